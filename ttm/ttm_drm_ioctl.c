// SPDX-License-Identifier: MIT
/*
 * ttm_drm_ioctl: the 2008 TTM requests over the memory manager core. One
 * dispatch checks the request number and size, then each handler checks
 * every field of its argument before it changes anything: an unknown flag
 * or hint bit, a nonzero pad, an unknown or invisible handle, a bad fence
 * class or type, a memory type without a manager, a zero or overflowing
 * size or a page alignment that is not a power of two are -EINVAL with no
 * state changed.
 *
 * The objects live in their own files: fence objects in ttm_drm_fence.c,
 * buffer objects and their mappings in ttm_drm_bo.c, memory types in
 * ttm_drm_mm.c; this file copies arguments in and out and dispatches.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm_drm.h>

#include "ttm_drm_priv.h"

struct ttm_drm_ioctl_desc {
	unsigned long request;
	int (*func)(struct ttm_drm_file *file, void *data);
};

#define TTM_DRM_IOCTL(req, fn) [TTM_DRM_IOC_NR(req) - 0xc0] = {.request = req, .func = fn}

static const struct ttm_drm_ioctl_desc ttm_drm_ioctls[] = {
    TTM_DRM_IOCTL(DRM_IOCTL_MM_INIT, ttm_drm_mm_init_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_TAKEDOWN, ttm_drm_mm_takedown_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_LOCK, ttm_drm_mm_lock_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_UNLOCK, ttm_drm_mm_unlock_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_CREATE, ttm_drm_fence_create_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_REFERENCE, ttm_drm_fence_reference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_UNREFERENCE, ttm_drm_fence_unreference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_SIGNALED, ttm_drm_fence_signaled_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_FLUSH, ttm_drm_fence_flush_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_WAIT, ttm_drm_fence_wait_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_EMIT, ttm_drm_fence_emit_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_BUFFERS, ttm_drm_fence_buffers_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_CREATE, ttm_drm_bo_create_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_MAP, ttm_drm_bo_map_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_UNMAP, ttm_drm_bo_unmap_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_REFERENCE, ttm_drm_bo_reference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_UNREFERENCE, ttm_drm_bo_unreference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_SETSTATUS, ttm_drm_bo_setstatus_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_INFO, ttm_drm_bo_info_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_WAIT_IDLE, ttm_drm_bo_wait_idle_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_VERSION, ttm_drm_bo_version_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_INFO, ttm_drm_mm_info_ioctl),
};

int ttm_drm_copy_from_user(const struct ttm_drm_device *ddev, void *to, const void *from, size_t n)
{
	if (!n)
		return 0;
	if (!from)
		return -EFAULT;
	if (!ddev->driver->copy_from_user) {
		memcpy(to, from, n);
		return 0;
	}
	return ddev->driver->copy_from_user(to, from, n) ? -EFAULT : 0;
}

int ttm_drm_copy_to_user(const struct ttm_drm_device *ddev, void *to, const void *from, size_t n)
{
	if (!n)
		return 0;
	if (!to)
		return -EFAULT;
	if (!ddev->driver->copy_to_user) {
		memcpy(to, from, n);
		return 0;
	}
	return ddev->driver->copy_to_user(to, from, n) ? -EFAULT : 0;
}

/* Argument structs up to this size are copied on the stack (all of ours are). */
#define TTM_DRM_ARG_STACK 256

/*
 * Run @fn on a kernel copy of the @request's argument at @arg, as
 * drm_ioctl(): copied in when the request writes (else zeroed), copied
 * back when it reads, whatever @fn returned; a copy that fails is -EFAULT.
 */
static int ttm_drm_call(struct ttm_drm_file *file, unsigned long request, void *arg,
			int (*fn)(struct ttm_drm_file *file, unsigned long request, void *data))
{
	unsigned dir = TTM_DRM_IOC_DIR(request);
	size_t size = TTM_DRM_IOC_SIZE(request);
	_Alignas(max_align_t) unsigned char stack[TTM_DRM_ARG_STACK];
	void *data = stack;
	int ret;

	if (!size)
		return fn(file, request, NULL);
	if (!arg)
		return -EFAULT;
	if (size > sizeof(stack)) {
		if (fault_should_fail(&ttm_fault_uapi_alloc, size))
			return -ENOMEM;
		data = malloc(size);
		if (!data)
			return -ENOMEM;
	}
	if (dir & TTM_DRM_IOC_WRITE)
		ret = ttm_drm_copy_from_user(file->ddev, data, arg, size);
	else
		ret = (memset(data, 0, size), 0);
	if (!ret) {
		ret = fn(file, request, data);
		if ((dir & TTM_DRM_IOC_READ) && ttm_drm_copy_to_user(file->ddev, arg, data, size))
			ret = -EFAULT;
	}
	if (data != stack)
		free(data);
	return ret;
}

static int ttm_drm_command(struct ttm_drm_file *file, unsigned long request, void *data)
{
	return file->ddev->driver->command(file, TTM_DRM_IOC_NR(request) - DRM_COMMAND_BASE, data,
					   TTM_DRM_IOC_SIZE(request));
}

static int ttm_drm_core_ioctl(struct ttm_drm_file *file, unsigned long request, void *data)
{
	return ttm_drm_ioctls[TTM_DRM_IOC_NR(request) - 0xc0].func(file, data);
}

int ttm_drm_ioctl(int fd, unsigned long request, void *arg)
{
	const struct ttm_drm_ioctl_desc *desc = NULL;
	struct ttm_drm_file *file;
	unsigned nr = TTM_DRM_IOC_NR(request);
	unsigned dir = TTM_DRM_IOC_DIR(request);
	size_t size = TTM_DRM_IOC_SIZE(request);
	int ret;

	file = ttm_drm_file_get_fd(fd);
	if (!file)
		return -EBADF;
	if (TTM_DRM_IOC_TYPE(request) != DRM_IOCTL_BASE || request > UINT32_MAX) {
		ret = -ENOTTY;
	} else if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END) {
		/* A command without data is DRM_IO; with data it must say which way. */
		if ((size && dir == TTM_DRM_IOC_NONE) || (!size && dir != TTM_DRM_IOC_NONE))
			ret = -ENOTTY;
		else if (size && !arg)
			ret = -EFAULT;
		else if (!file->ddev->driver->command)
			ret = -EINVAL;
		else
			ret = ttm_drm_call(file, request, arg, ttm_drm_command);
	} else {
		if (nr >= 0xc0 && nr - 0xc0 < sizeof(ttm_drm_ioctls) / sizeof(ttm_drm_ioctls[0]))
			desc = &ttm_drm_ioctls[nr - 0xc0];
		if (!desc || !desc->func || desc->request != request)
			ret = -ENOTTY;
		else if (!arg)
			ret = -EFAULT;
		else
			ret = ttm_drm_call(file, request, arg, ttm_drm_core_ioctl);
	}
	ttm_drm_file_put(file);
	return ret;
}
