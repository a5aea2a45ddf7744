// SPDX-License-Identifier: MIT
/*
 * sw_sync timelines (see drmcore/sw_sync.h).
 *
 * The pending list holds a reference on each of its points, so a request
 * for a value already pending can share the point safely (a list entry is
 * never a fence on its way out), and a point leaves the list only by being
 * signalled. Points are signalled after @lock is dropped: their callbacks
 * may put the last reference of another point of this timeline.
 *
 * Lifetime: the timeline is referenced by its file (until the last
 * descriptor goes) and by each point (for the value and the name).
 */
#include <drmcore/sw_sync.h>
#include <drmcore/drm_faults.h>
#include <drmcore/drm_user.h>
#include <drmcore/sync_file.h>

#include "drm_fd_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * struct sw_sync_timeline - one timeline.
 * @base: its file.
 * @refcount: the file's reference and one per point.
 * @context: the fence context of its points.
 * @value: the timeline's value; written under @lock, read by ops->signaled.
 * @lock: protects @pending.
 * @pending: unsignalled points in ascending seqno order, a reference each.
 * @name: the opener's name (the kernel uses the task's comm).
 */
struct sw_sync_timeline {
	struct drm_fd_obj base;
	atomic_int refcount;
	uint64_t context;
	_Atomic uint32_t value;
	pthread_mutex_t lock;
	struct list_head pending;
	char name[32];
};

struct sync_pt {
	struct dma_fence base;
	struct sw_sync_timeline *tl;
	struct list_head link;
};

static void timeline_put(struct sw_sync_timeline *tl)
{
	if (atomic_fetch_sub(&tl->refcount, 1) != 1)
		return;
	pthread_mutex_destroy(&tl->lock);
	free(tl);
}

static const char *pt_driver_name(struct dma_fence *f)
{
	(void)f;
	return "sw_sync";
}

static const char *pt_timeline_name(struct dma_fence *f)
{
	return ((struct sync_pt *)f)->tl->name;
}

/* Reached: the 32-bit value is not before the point (the kernel's compare). */
static bool reached(uint32_t value, uint64_t seqno)
{
	return (int32_t)((uint32_t)seqno - value) <= 0;
}

static bool pt_signaled(struct dma_fence *f)
{
	struct sync_pt *pt = (struct sync_pt *)f;

	return reached(atomic_load(&pt->tl->value), f->seqno);
}

static void pt_release(struct dma_fence *f)
{
	struct sync_pt *pt = (struct sync_pt *)f;

	timeline_put(pt->tl);
	free(pt);
}

static const struct dma_fence_ops pt_ops = {
    .get_driver_name = pt_driver_name,
    .get_timeline_name = pt_timeline_name,
    .signaled = pt_signaled,
    .release = pt_release,
};

bool drm_sw_sync_is_fence(struct dma_fence *fence)
{
	return fence && fence->ops == &pt_ops;
}

/* Signal and drop the list's reference of every point on @list. */
static void signal_list(struct list_head *list, int error)
{
	while (!list_empty(list)) {
		struct sync_pt *pt = list_first_entry(list, struct sync_pt, link);

		list_del_init(&pt->link);
		if (error)
			dma_fence_set_error(&pt->base, error);
		dma_fence_signal(&pt->base);
		dma_fence_put(&pt->base);
	}
}

/* The last descriptor went: pending points fail with -ENOENT. */
static void timeline_file_release(struct drm_fd_obj *obj)
{
	struct sw_sync_timeline *tl = (struct sw_sync_timeline *)obj;
	struct list_head list;

	INIT_LIST_HEAD(&list);
	pthread_mutex_lock(&tl->lock);
	list_splice_tail_init(&tl->pending, &list);
	pthread_mutex_unlock(&tl->lock);
	signal_list(&list, -ENOENT);
	timeline_put(tl);
}

int drm_sw_sync_open(int flags, int *fd)
{
	struct sw_sync_timeline *tl;
	int ret;

	drm_fd_gc_maybe();
	if (fault_should_fail(&drm_fault_sync_file_alloc, sizeof(*tl)))
		return -ENOMEM;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	atomic_init(&tl->refcount, 1);
	tl->context = dma_fence_context_alloc(1);
	pthread_mutex_init(&tl->lock, NULL);
	INIT_LIST_HEAD(&tl->pending);
	snprintf(tl->name, sizeof(tl->name), "%.15s", program_invocation_short_name);
	ret = drm_fd_obj_install_pipe(&tl->base, DRM_FD_SW_SYNC, flags & O_CLOEXEC, fd,
				      timeline_file_release);
	if (ret) {
		pthread_mutex_destroy(&tl->lock);
		free(tl);
	}
	return ret;
}

/* A reference to the point for @value: shared while pending, else new. */
static struct dma_fence *point_get(struct sw_sync_timeline *tl, uint32_t value)
{
	struct sync_pt *pt, *pos;

	if (fault_should_fail(&drm_fault_sync_file_alloc, sizeof(*pt)))
		return NULL;
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	atomic_fetch_add(&tl->refcount, 1);
	pt->tl = tl;
	INIT_LIST_HEAD(&pt->link);
	dma_fence_init(&pt->base, &pt_ops, tl->context, value);

	pthread_mutex_lock(&tl->lock);
	if (reached(atomic_load(&tl->value), value)) {
		pthread_mutex_unlock(&tl->lock);
		dma_fence_signal(&pt->base);
		return &pt->base;
	}
	list_for_each_entry (pos, &tl->pending, struct sync_pt, link) {
		int32_t d = (int32_t)((uint32_t)pos->base.seqno - value);

		if (d == 0) {
			struct dma_fence *f = dma_fence_get(&pos->base);

			pthread_mutex_unlock(&tl->lock);
			dma_fence_put(&pt->base);
			return f;
		}
		if (d > 0)
			break;
	}
	/* Before @pos (or at the tail): the list stays in order. */
	list_add_tail(&pt->link, &pos->link);
	dma_fence_get(&pt->base);
	pthread_mutex_unlock(&tl->lock);
	return &pt->base;
}

static int ioctl_create_fence(struct sw_sync_timeline *tl, void __user *arg)
{
	struct sw_sync_create_fence_data data;
	struct dma_fence *f;
	int ret, fd;

	if (drm_copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	f = point_get(tl, data.value);
	if (!f)
		return -ENOMEM;
	ret = drm_sync_file_create(f, O_CLOEXEC, &fd);
	dma_fence_put(f);
	if (ret)
		return ret;
	data.fence = fd;
	if (drm_copy_to_user(arg, &data, sizeof(data))) {
		drm_fd_close(fd, NULL);
		return -EFAULT;
	}
	return 0;
}

static int ioctl_inc(struct sw_sync_timeline *tl, void __user *arg)
{
	struct list_head list;
	struct sync_pt *pt, *tmp;
	uint32_t inc;

	if (drm_copy_from_user(&inc, arg, sizeof(inc)))
		return -EFAULT;
	INIT_LIST_HEAD(&list);
	pthread_mutex_lock(&tl->lock);
	/* One step, not INT_MAX-sized ones: the value is 32 bits either way. */
	atomic_store(&tl->value, atomic_load(&tl->value) + inc);
	list_for_each_entry_safe (pt, tmp, &tl->pending, struct sync_pt, link) {
		if (!reached(atomic_load(&tl->value), pt->base.seqno))
			break;
		list_move_tail(&pt->link, &list);
	}
	pthread_mutex_unlock(&tl->lock);
	signal_list(&list, 0);
	return 0;
}

int drm_sw_sync_ioctl(int fd, unsigned long req, void *arg)
{
	struct sw_sync_timeline *tl;
	int err, ret;

	tl = (struct sw_sync_timeline *)drm_fd_obj_lookup(fd, DRM_FD_SW_SYNC, &err);
	if (!tl)
		return -ENOTTY;
	switch (req) {
	case SW_SYNC_IOC_CREATE_FENCE:
		ret = ioctl_create_fence(tl, arg);
		break;
	case SW_SYNC_IOC_INC:
		ret = ioctl_inc(tl, arg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	drm_fd_obj_put(&tl->base);
	return ret;
}
