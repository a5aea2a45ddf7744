/* SPDX-License-Identifier: MIT */
/*
 * drm_ioctl: the argument handling of the kernel's drm_ioctl(), for any
 * DRM ioctl table (core or driver).
 *
 * The request code the caller passed and the code in the driver's table
 * may differ in size (userspace built against older or newer headers) and
 * in direction. Exactly as the kernel: in_size = out_size = the caller's
 * size; in_size = 0 unless both codes have IOC_IN (_IOC_WRITE); out_size = 0
 * unless both have IOC_OUT (_IOC_READ); the kernel buffer is
 * max(in, out, driver size) bytes, filled with in_size bytes from the user
 * and zero beyond; after the handler, out_size bytes are copied back, even
 * when the handler failed; a failed copy back turns the result into
 * -EFAULT.
 *
 * Typical use by a dispatcher:
 *
 *	struct drm_ioctl_args a;
 *	ret = drm_ioctl_args_in(&a, cmd, table[nr].cmd, uarg);
 *	if (ret)
 *		return ret;
 *	ret = table[nr].func(file, a.kdata);
 *	return drm_ioctl_args_out(&a, uarg, ret);
 */
#ifndef DRMCORE_DRM_IOCTL_H
#define DRMCORE_DRM_IOCTL_H

#include <stdint.h>

#include <drmcore/drm_user.h>

/**
 * struct drm_ioctl_args - one ioctl's kernel copy of its argument.
 * @kdata: the argument (points into @stack or to a malloc'ed block).
 * @in_size: bytes copied in.
 * @out_size: bytes to copy out.
 * @ksize: bytes of @kdata.
 * @stack: small arguments live here (the kernel's 128-byte stack_kdata).
 */
struct drm_ioctl_args {
	void *kdata;
	unsigned int in_size;
	unsigned int out_size;
	unsigned int ksize;
	_Alignas(8) unsigned char stack[128];
};

/**
 * drm_ioctl_args_in() - prepare @a for a call with user request @cmd on a
 * table entry declared as @drv_cmd, copying the argument in from @uarg.
 * Return: 0; -EFAULT (nothing to free); -ENOMEM (fault point
 * "ioctl_alloc" for arguments above 128 bytes).
 */
int drm_ioctl_args_in(struct drm_ioctl_args *a, unsigned int cmd, unsigned int drv_cmd,
		      void __user *uarg);

/**
 * drm_ioctl_args_out() - copy @a back to @uarg and release it.
 * @ret: the handler's result.
 * Return: @ret, or -EFAULT when the copy back failed.
 */
int drm_ioctl_args_out(struct drm_ioctl_args *a, void __user *uarg, int ret);

/** drm_ioctl_args_release() - release @a without copying back. */
void drm_ioctl_args_release(struct drm_ioctl_args *a);

#endif /* DRMCORE_DRM_IOCTL_H */
