/* SPDX-License-Identifier: MIT */
/*
 * drm_syncobj: sync objects, binary and timeline (the kernel's
 * drivers/gpu/drm/drm_syncobj.c): a container for a fence that execbuffer
 * in-fences wait on and out-fences replace, with handles per file, export
 * as a syncobj file or a sync_file, and the DRM_IOCTL_SYNCOBJ_* ioctls.
 *
 * A binary syncobj holds one fence (or none). A timeline syncobj holds a
 * dma_fence_chain whose links are its points; point N signals once every
 * point <= N has.
 *
 * The *_ioctl functions take the ioctl's argument already copied into
 * kernel memory (by drm_ioctl_args_in(): the caller's drm_ioctl step) and
 * read the user arrays it points to (handles, points) through drm_user.h;
 * they return the kernel's errno for every bad input. The driver feature
 * checks (DRIVER_SYNCOBJ, DRIVER_SYNCOBJ_TIMELINE) are the caller's: i915
 * has both.
 *
 * Waits are not interruptible (the kernel's -ERESTARTSYS has no userspace
 * counterpart here); timeouts are absolute CLOCK_MONOTONIC ns, 0 polls.
 *
 * Lock order: drm_file's syncobj_table_lock -> syncobj->lock -> fence lock.
 * replace_fence/add_point call waiters' wake-ups with syncobj->lock held;
 * those only set a fence pointer and FUTEX_WAKE.
 */
#ifndef DRMCORE_DRM_SYNCOBJ_H
#define DRMCORE_DRM_SYNCOBJ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <linux/ioctl.h>

#include <drm.h>

#include <ttm/dma_fence.h>
#include <ttm/dma_fence_chain.h>
#include <ttm/list.h>

#include <drmcore/drm_file.h>

/* Flag of kernel 6.5+ (deadline hint) that older libdrm headers lack. */
#ifndef DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE
#define DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE (1 << 3)
#endif

/*
 * DRM_IOCTL_SYNCOBJ_EVENTFD (kernel 6.6) where libdrm's <drm.h> predates it:
 * the kernel's layout, so callers built against either header agree.
 */
#ifndef DRM_IOCTL_SYNCOBJ_EVENTFD
struct drm_syncobj_eventfd {
	__u32 handle;
	__u32 flags;
	__u64 point;
	__s32 fd;
	__u32 pad;
};
#define DRM_IOCTL_SYNCOBJ_EVENTFD DRM_IOWR(0xCF, struct drm_syncobj_eventfd)
#endif

/* How long find_fence with WAIT_FOR_SUBMIT waits for a fence (the kernel's 5 s). */
#define DRM_SYNCOBJ_WAIT_FOR_SUBMIT_TIMEOUT_NS 5000000000ll

/**
 * struct drm_syncobj - a sync object.
 * @refcount: references: handles, syncobj files, in-flight users.
 * @lock: protects @fence, @cb_list and @ev_fd_list.
 * @fence: the current fence (one reference) or NULL.
 * @cb_list: waiters for a fence to appear (WAIT_FOR_SUBMIT/WAIT_AVAILABLE).
 * @ev_fd_list: eventfds waiting for a point to appear (DRM_IOCTL_SYNCOBJ_EVENTFD).
 */
struct drm_syncobj {
	atomic_int refcount;
	pthread_mutex_t lock;
	struct dma_fence *fence;
	struct list_head cb_list;
	struct list_head ev_fd_list;
};

/**
 * drm_syncobj_create() - a new syncobj with one reference.
 * @flags: DRM_SYNCOBJ_CREATE_SIGNALED: starts with a signalled stub fence.
 * @fence: optional; installed as with drm_syncobj_replace_fence().
 * Return: 0; -ENOMEM (fault point "syncobj_alloc").
 */
int drm_syncobj_create(struct drm_syncobj **out, uint32_t flags, struct dma_fence *fence);

/** drm_syncobj_get() - take a reference (the caller already holds one). */
static inline void drm_syncobj_get(struct drm_syncobj *syncobj)
{
	atomic_fetch_add_explicit(&syncobj->refcount, 1, memory_order_relaxed);
}

/** drm_syncobj_put() - drop a reference; the last frees it and its fence. */
void drm_syncobj_put(struct drm_syncobj *syncobj);

/** drm_syncobj_find() - @handle's syncobj in @file with a reference, or NULL. */
struct drm_syncobj *drm_syncobj_find(struct drm_file *file, uint32_t handle);

/** drm_syncobj_fence_get() - the current fence with a reference, or NULL. */
struct dma_fence *drm_syncobj_fence_get(struct drm_syncobj *syncobj);

/**
 * drm_syncobj_replace_fence() - make @fence (may be NULL; a reference is
 * taken) the syncobj's fence and wake WAIT_FOR_SUBMIT waiters.
 */
void drm_syncobj_replace_fence(struct drm_syncobj *syncobj, struct dma_fence *fence);

/**
 * drm_syncobj_add_point() - append timeline point @point carrying @fence
 * (a reference is taken) using @chain (from dma_fence_chain_alloc(), now
 * owned by the syncobj) and wake waiters of points it makes available.
 */
void drm_syncobj_add_point(struct drm_syncobj *syncobj, struct dma_fence_chain *chain,
			   struct dma_fence *fence, uint64_t point);

/**
 * drm_syncobj_find_fence() - the fence for @point of @handle (execbuffer
 * in-fences, timeline waits).
 * @flags: 0 or DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT: wait up to 5 s for
 *	the point to be submitted.
 * @fence: out: a reference; a signalled stub when the point has signalled
 *	and its link is gone.
 * Return: 0; -ENOENT (bad handle); -EINVAL (other flags; no fence or point
 * not yet submitted without WAIT_FOR_SUBMIT); -ETIME (not submitted within
 * the wait).
 */
int drm_syncobj_find_fence(struct drm_file *file, uint32_t handle, uint64_t point, uint64_t flags,
			   struct dma_fence **fence);

/**
 * drm_syncobj_get_handle() - a new handle in @file for @syncobj (takes a
 * reference). Return: 0; -ENOMEM.
 */
int drm_syncobj_get_handle(struct drm_file *file, struct drm_syncobj *syncobj, uint32_t *handle);

/**
 * drm_syncobj_get_fd() - a new syncobj file descriptor (O_CLOEXEC) holding
 * a reference on @syncobj. Return: 0; -ENOMEM; -EMFILE.
 */
int drm_syncobj_get_fd(struct drm_syncobj *syncobj, int *fd);

/**
 * drm_syncobj_from_fd() - the syncobj a syncobj file descriptor refers to,
 * with a reference, or NULL.
 */
struct drm_syncobj *drm_syncobj_from_fd(int fd);

/** drm_syncobj_release() - drop every handle of @file (at file close). */
void drm_syncobj_release(struct drm_file *file);

/* The ioctls (see the file comment). */
int drm_syncobj_create_ioctl(struct drm_file *file, struct drm_syncobj_create *args);
int drm_syncobj_destroy_ioctl(struct drm_file *file, struct drm_syncobj_destroy *args);
int drm_syncobj_handle_to_fd_ioctl(struct drm_file *file, struct drm_syncobj_handle *args);
int drm_syncobj_fd_to_handle_ioctl(struct drm_file *file, struct drm_syncobj_handle *args);
int drm_syncobj_transfer_ioctl(struct drm_file *file, struct drm_syncobj_transfer *args);
int drm_syncobj_wait_ioctl(struct drm_file *file, struct drm_syncobj_wait *args);
int drm_syncobj_timeline_wait_ioctl(struct drm_file *file, struct drm_syncobj_timeline_wait *args);
int drm_syncobj_reset_ioctl(struct drm_file *file, struct drm_syncobj_array *args);
int drm_syncobj_signal_ioctl(struct drm_file *file, struct drm_syncobj_array *args);
int drm_syncobj_timeline_signal_ioctl(struct drm_file *file,
				      struct drm_syncobj_timeline_array *args);
int drm_syncobj_query_ioctl(struct drm_file *file, struct drm_syncobj_timeline_array *args);

/**
 * drm_syncobj_eventfd_ioctl() - write 1 to eventfd @args->fd once point
 * @args->point of the syncobj signals (flags 0) or has a fence
 * (DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE). The eventfd is duplicated and
 * held until then (or until the syncobj goes).
 * Return: 0; -EINVAL (flags, pad, @fd not an eventfd); -EBADF (@fd not
 * open); -ENOENT (handle); -ENOMEM.
 */
int drm_syncobj_eventfd_ioctl(struct drm_file *file, struct drm_syncobj_eventfd *args);

/**
 * drm_syncobj_ioctl() - dispatch one DRM_IOCTL_SYNCOBJ_* by its number.
 * @nr: _IOC_NR() of the request (0xBF..0xC5, 0xCA..0xCD, 0xCF).
 * @kdata: the argument in kernel memory, at least the ioctl's size.
 * Return: the ioctl's result; -ENOTTY when @nr is not a syncobj ioctl.
 */
int drm_syncobj_ioctl(struct drm_file *file, unsigned int nr, void *kdata);

#endif /* DRMCORE_DRM_SYNCOBJ_H */
