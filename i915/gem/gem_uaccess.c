// SPDX-License-Identifier: MIT
/*
 * gem_uaccess: every user pointer the uAPI follows goes through here, and
 * from here through the drm layer's user copy (drmcore/drm_user.h): an
 * unmapped or read-only address is -EFAULT instead of a crash in the
 * driver, as copy_from_user() makes it in the kernel. What is GEM's own is
 * the i915 extension chain and its must-be-zero fields.
 */
#include <drmcore/drm_user.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "gem_priv.h"

int gem_copy_from_user(void *dst, uint64_t src, size_t len)
{
	if (src > UINTPTR_MAX)
		return -EFAULT;
	return drm_copy_from_user(dst, drm_u64_to_user_ptr(src), len) ? -EFAULT : 0;
}

int gem_copy_to_user(uint64_t dst, const void *src, size_t len)
{
	if (dst > UINTPTR_MAX)
		return -EFAULT;
	return drm_copy_to_user(drm_u64_to_user_ptr(dst), src, len) ? -EFAULT : 0;
}

int gem_check_user_mbz64(uint64_t uptr)
{
	uint64_t v;

	if (gem_copy_from_user(&v, uptr, sizeof(v)))
		return -EFAULT;
	return v ? -EINVAL : 0;
}

int gem_check_user_mbz32(uint64_t uptr)
{
	uint32_t v;

	if (gem_copy_from_user(&v, uptr, sizeof(v)))
		return -EFAULT;
	return v ? -EINVAL : 0;
}

int gem_user_extensions(uint64_t ext, const gem_ext_fn *tbl, unsigned int count, void *data)
{
	unsigned int depth = 512;

	while (ext) {
		struct i915_user_extension e;
		int err;

		if (!depth--)
			return -E2BIG;
		err = gem_check_user_mbz32(ext + offsetof(struct i915_user_extension, flags));
		for (unsigned int i = 0; !err && i < 4; i++)
			err = gem_check_user_mbz32(
			    ext + offsetof(struct i915_user_extension, rsvd) + 4 * i);
		if (err)
			return err;
		if (gem_copy_from_user(&e.name, ext + offsetof(struct i915_user_extension, name),
				       sizeof(e.name)))
			return -EFAULT;
		err = -EINVAL;
		if (e.name < count && tbl[e.name])
			err = tbl[e.name](ext, data);
		if (err)
			return err;
		if (gem_copy_from_user(&e.next_extension, ext, sizeof(e.next_extension)))
			return -EFAULT;
		ext = e.next_extension;
	}
	return 0;
}

/* The uid whose call this thread serves; -1: this process's own. */
static _Thread_local int64_t gem_caller_euid = -1;

void i915_gem_set_caller_euid(int64_t euid)
{
	gem_caller_euid = euid < 0 ? -1 : euid;
}

bool gem_caller_is_root(void)
{
	return (gem_caller_euid < 0 ? (int64_t)geteuid() : gem_caller_euid) == 0;
}
