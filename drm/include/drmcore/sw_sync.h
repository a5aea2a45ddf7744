/* SPDX-License-Identifier: MIT */
/*
 * sw_sync: a software timeline whose fences userspace signals itself, the
 * kernel's drivers/dma-buf/sw_sync.c behind debugfs's sync/sw_sync file.
 * igt (sw_sync, syncobj_timeline, gem_exec_fence) opens that file to make
 * fences it controls; the render node presents the path and calls
 * drm_sw_sync_open() for it, then routes ioctls on the descriptor
 * (drm_fd_kind() == DRM_FD_SW_SYNC) to drm_sw_sync_ioctl().
 *
 * A timeline has a 32-bit value, 0 at open. SW_SYNC_IOC_CREATE_FENCE makes
 * a sync_file whose fence signals once the value reaches the fence's
 * (wrap-safe, as the kernel compares); two requests for the same pending
 * value share one fence. SW_SYNC_IOC_INC advances the value. When the
 * last descriptor of the timeline is closed (drm_fd_close()/drm_fd_gc()),
 * every pending fence signals with error -ENOENT.
 *
 * The descriptor is a pipe that never polls readable (see drm_fd.h).
 */
#ifndef DRMCORE_SW_SYNC_H
#define DRMCORE_SW_SYNC_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include <ttm/dma_fence.h>

/*
 * The sw_sync uAPI: the kernel keeps it in sw_sync.c (debugfs, no uapi
 * header), so its layout is stated here.
 */
struct sw_sync_create_fence_data {
	__u32 value;
	char name[32];
	__s32 fence; /* out: the new sync_file */
};

#define SW_SYNC_IOC_MAGIC 'W'
#define SW_SYNC_IOC_CREATE_FENCE _IOWR(SW_SYNC_IOC_MAGIC, 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC _IOW(SW_SYNC_IOC_MAGIC, 1, __u32)

/**
 * drm_sw_sync_open() - a new timeline and a descriptor for it (an open(2)
 * of debugfs sync/sw_sync).
 * @flags: O_CLOEXEC or 0 (other open flags are ignored).
 * Return: 0 with *@fd; -ENOMEM (fault point "sync_file_alloc"); -EMFILE.
 */
int drm_sw_sync_open(int flags, int *fd);

/**
 * drm_sw_sync_ioctl() - SW_SYNC_IOC_CREATE_FENCE or SW_SYNC_IOC_INC on
 * timeline descriptor @fd, @arg a user pointer.
 * Return: 0; -ENOTTY (not a timeline, unknown request); -EFAULT; -ENOMEM;
 * -EMFILE.
 */
int drm_sw_sync_ioctl(int fd, unsigned long req, void *arg);

/** drm_sw_sync_is_fence() - whether @fence is a sw_sync timeline's. */
bool drm_sw_sync_is_fence(struct dma_fence *fence);

#endif /* DRMCORE_SW_SYNC_H */
