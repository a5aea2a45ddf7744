/* SPDX-License-Identifier: MIT */
/*
 * hw_priv.h - the device structure shared by hw_device.c, hw_bo.c and
 * hw_exec.c, which implement hw_gpu.h. Not installed; callers see struct
 * hw_gpu as opaque.
 */
#ifndef I915_HW_PRIV_H
#define I915_HW_PRIV_H

#include <stdatomic.h>

#include "hw_fence.h"
#include "hw_gpu.h"
#include "hw_sys.h"

/**
 * struct hw_gpu - an open i915 render node.
 * @sys: kernel interface.
 * @sys_data: its cookie.
 * @fd: the render node.
 * @info: facts read at open; immutable afterwards.
 * @waiter: turns out-fences into dma_fences.
 * @wedged: set when an execbuffer returned -EIO; read and written
 *	without a lock (a sticky flag).
 */
struct hw_gpu {
	const struct hw_sys_ops *sys;
	void *sys_data;
	int fd;
	struct hw_gpu_info info;
	struct hw_fence_waiter waiter;
	atomic_bool wedged;
};

static inline int hw_ioctl(struct hw_gpu *gpu, unsigned long request, void *arg)
{
	return gpu->sys->ioctl(gpu->sys_data, gpu->fd, request, arg);
}

#endif /* I915_HW_PRIV_H */
