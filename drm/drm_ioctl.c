// SPDX-License-Identifier: MIT
/* drm_ioctl()'s argument sizing and copies; see drmcore/drm_ioctl.h. */
#include <drmcore/drm_ioctl.h>
#include <drmcore/drm_faults.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ioctl.h>

int drm_ioctl_args_in(struct drm_ioctl_args *a, unsigned int cmd, unsigned int drv_cmd,
		      void __user *uarg)
{
	unsigned int drv_size = _IOC_SIZE(drv_cmd);

	a->in_size = a->out_size = _IOC_SIZE(cmd);
	if (!(cmd & drv_cmd & IOC_IN))
		a->in_size = 0;
	if (!(cmd & drv_cmd & IOC_OUT))
		a->out_size = 0;
	a->ksize = a->in_size > a->out_size ? a->in_size : a->out_size;
	if (drv_size > a->ksize)
		a->ksize = drv_size;

	if (a->ksize <= sizeof(a->stack)) {
		a->kdata = a->stack;
	} else {
		a->kdata =
		    fault_should_fail(&drm_fault_ioctl_alloc, a->ksize) ? NULL : malloc(a->ksize);
		if (!a->kdata)
			return -ENOMEM;
	}
	if (drm_copy_from_user(a->kdata, uarg, a->in_size)) {
		drm_ioctl_args_release(a);
		return -EFAULT;
	}
	if (a->ksize > a->in_size)
		memset((char *)a->kdata + a->in_size, 0, a->ksize - a->in_size);
	return 0;
}

int drm_ioctl_args_out(struct drm_ioctl_args *a, void __user *uarg, int ret)
{
	if (drm_copy_to_user(uarg, a->kdata, a->out_size))
		ret = -EFAULT;
	drm_ioctl_args_release(a);
	return ret;
}

void drm_ioctl_args_release(struct drm_ioctl_args *a)
{
	if (a->kdata && a->kdata != (void *)a->stack)
		free(a->kdata);
	a->kdata = NULL;
}
