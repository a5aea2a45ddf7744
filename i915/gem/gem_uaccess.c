// SPDX-License-Identifier: MIT
/*
 * gem_uaccess: every user pointer the uAPI follows goes through here. The
 * caller's memory is read and written with process_vm_readv/writev on our
 * own pid, so an unmapped or read-only address is -EFAULT from the kernel
 * instead of a crash in the driver, as copy_from_user() makes it in the
 * kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "gem_priv.h"

/*
 * Our pid, asked once per process: a system call per copy costs as much as
 * the copy. A forked child forgets the parent's (pthread_atfork), so it
 * never reads its parent's memory.
 */
static _Atomic pid_t gem_self;
static pthread_once_t gem_self_once = PTHREAD_ONCE_INIT;

static void gem_self_forget(void)
{
	atomic_store(&gem_self, 0);
}

static void gem_self_init(void)
{
	pthread_atfork(NULL, NULL, gem_self_forget);
}

static pid_t gem_self_pid(void)
{
	pid_t pid;

	pthread_once(&gem_self_once, gem_self_init);
	pid = atomic_load(&gem_self);
	if (!pid) {
		pid = getpid();
		atomic_store(&gem_self, pid);
	}
	return pid;
}

/* process_vm_*() may transfer less than asked (a partial page run): loop. */
static int gem_user_xfer(void *local, uint64_t remote, size_t len, bool write)
{
	pid_t self = gem_self_pid();

	if (!len)
		return 0;
	if (!remote || remote + len < remote || remote > UINTPTR_MAX)
		return -EFAULT;
	while (len) {
		struct iovec l = {.iov_base = local, .iov_len = len};
		struct iovec r = {.iov_base = (void *)(uintptr_t)remote, .iov_len = len};
		ssize_t n = write ? process_vm_writev(self, &l, 1, &r, 1, 0)
				  : process_vm_readv(self, &l, 1, &r, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EFAULT;
		local = (char *)local + n;
		remote += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int gem_copy_from_user(void *dst, uint64_t src, size_t len)
{
	return gem_user_xfer(dst, src, len, false);
}

int gem_copy_to_user(uint64_t dst, const void *src, size_t len)
{
	return gem_user_xfer((void *)src, dst, len, true);
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
			err = gem_check_user_mbz32(ext + offsetof(struct i915_user_extension, rsvd) +
						   4 * i);
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
