// SPDX-License-Identifier: MIT
/*
 * Sync objects (see drmcore/drm_syncobj.h).
 *
 * Waiting: one wait call owns a struct syncobj_waiter, a futex word that
 * every event which may end the wait bumps (a fence callback, a fence
 * appearing in a syncobj). The waiter re-evaluates its entries after each
 * bump and sleeps with FUTEX_WAIT_BITSET on the absolute CLOCK_MONOTONIC
 * deadline, so a wake-up between its check and its sleep is never lost
 * (the word has changed and FUTEX_WAIT returns at once).
 */
#include <drmcore/drm_syncobj.h>
#include <drmcore/dma_fence_array.h>
#include <drmcore/drm_faults.h>
#include <drmcore/drm_user.h>
#include <drmcore/sync_file.h>

#include "drm_fd_priv.h"
#include "drm_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Beyond this an array allocation fails, as the kernel's kmalloc (4 MiB). */
#define DRM_SYNCOBJ_KMALLOC_MAX (4ul << 20)

struct syncobj_waiter {
	atomic_uint seq;
};

/**
 * struct syncobj_wait_entry - one syncobj of one wait.
 * @node: on the syncobj's @cb_list while waiting for a fence to appear.
 * @waiter: whom to wake.
 * @point: the timeline point (0: binary).
 * @fence: the fence waited for once known (a reference); written under
 *	the syncobj lock or by the waiter before it publishes @node.
 * @fence_cb: armed on @fence at most once.
 * @cb_armed: @fence_cb is (or was) queued.
 */
struct syncobj_wait_entry {
	struct list_head node;
	struct syncobj_waiter *waiter;
	uint64_t point;
	_Atomic(struct dma_fence *) fence;
	struct dma_fence_cb fence_cb;
	bool cb_armed;
};

/**
 * struct syncobj_file - a syncobj file descriptor's object.
 * @base: its file (a pipe nobody writes).
 * @syncobj: one reference.
 */
struct syncobj_file {
	struct drm_fd_obj base;
	struct drm_syncobj *syncobj;
};

/**
 * struct syncobj_eventfd_entry - one DRM_IOCTL_SYNCOBJ_EVENTFD request.
 * @node: on the syncobj's @ev_fd_list until its point has a fence.
 * @fd: our duplicate of the eventfd.
 * @point: the timeline point (0: binary).
 * @flags: 0 or DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE.
 * @fence: the point's fence once known (a reference).
 * @fence_cb: armed on @fence to signal the eventfd.
 */
struct syncobj_eventfd_entry {
	struct list_head node;
	int fd;
	uint64_t point;
	uint32_t flags;
	struct dma_fence *fence;
	struct dma_fence_cb fence_cb;
};

static void waiter_wake(struct syncobj_waiter *w)
{
	atomic_fetch_add_explicit(&w->seq, 1, memory_order_release);
	syscall(SYS_futex, &w->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Sleep while @w->seq == @seen, until @deadline_ns (CLOCK_MONOTONIC; <0: forever). */
static void waiter_sleep(struct syncobj_waiter *w, unsigned seen, int64_t deadline_ns)
{
	struct timespec ts, *tsp = NULL;

	if (deadline_ns >= 0) {
		ts.tv_sec = deadline_ns / 1000000000ll;
		ts.tv_nsec = deadline_ns % 1000000000ll;
		tsp = &ts;
	}
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time. */
	syscall(SYS_futex, &w->seq, FUTEX_WAIT_BITSET_PRIVATE, seen, tsp, NULL,
		FUTEX_BITSET_MATCH_ANY);
}

/* The ioctls' handle, point and fence arrays (kmalloc_array() in the kernel). */
static void *kmalloc_array(size_t n, size_t size)
{
	if (size && n > DRM_SYNCOBJ_KMALLOC_MAX / size)
		return NULL;
	if (fault_should_fail(&drm_fault_syncobj_alloc, n * size))
		return NULL;
	return malloc(n && size ? n * size : 1);
}

int drm_syncobj_create(struct drm_syncobj **out, uint32_t flags, struct dma_fence *fence)
{
	struct drm_syncobj *s;

	if (fault_should_fail(&drm_fault_syncobj_alloc, sizeof(*s)))
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	atomic_init(&s->refcount, 1);
	pthread_mutex_init(&s->lock, NULL);
	INIT_LIST_HEAD(&s->cb_list);
	INIT_LIST_HEAD(&s->ev_fd_list);
	if (flags & DRM_SYNCOBJ_CREATE_SIGNALED) {
		struct dma_fence *stub = dma_fence_allocate_private_stub(dma_fence_now_ns());

		if (!stub) {
			drm_syncobj_put(s);
			return -ENOMEM;
		}
		drm_syncobj_replace_fence(s, stub);
		dma_fence_put(stub);
	}
	if (fence)
		drm_syncobj_replace_fence(s, fence);
	*out = s;
	return 0;
}

void drm_syncobj_put(struct drm_syncobj *syncobj)
{
	if (!syncobj || atomic_fetch_sub_explicit(&syncobj->refcount, 1, memory_order_acq_rel) != 1)
		return;
	/* Eventfds still waiting for a point: dropped unsignalled, as the kernel does. */
	while (!list_empty(&syncobj->ev_fd_list)) {
		struct syncobj_eventfd_entry *e =
		    list_first_entry(&syncobj->ev_fd_list, struct syncobj_eventfd_entry, node);

		list_del_init(&e->node);
		drm_sys_close(e->fd);
		free(e);
	}
	dma_fence_put(syncobj->fence);
	pthread_mutex_destroy(&syncobj->lock);
	free(syncobj);
}

struct drm_syncobj *drm_syncobj_find(struct drm_file *file, uint32_t handle)
{
	struct drm_syncobj *s;

	pthread_mutex_lock(&file->syncobj_table_lock);
	s = drm_idr_find(&file->syncobj_idr, handle);
	if (s)
		drm_syncobj_get(s);
	pthread_mutex_unlock(&file->syncobj_table_lock);
	return s;
}

struct dma_fence *drm_syncobj_fence_get(struct drm_syncobj *syncobj)
{
	struct dma_fence *f;

	pthread_mutex_lock(&syncobj->lock);
	f = dma_fence_get(syncobj->fence);
	pthread_mutex_unlock(&syncobj->lock);
	return f;
}

/*
 * A fence appeared or changed: hand it to each waiter whose point it now
 * covers. Syncobj lock held.
 */
static void wake_waiters_locked(struct drm_syncobj *syncobj)
{
	struct syncobj_wait_entry *e, *tmp;

	list_for_each_entry_safe (e, tmp, &syncobj->cb_list, struct syncobj_wait_entry, node) {
		struct dma_fence *f = dma_fence_get(syncobj->fence);

		if (!f || dma_fence_chain_find_seqno(&f, e->point)) {
			dma_fence_put(f);
			continue;
		}
		atomic_store(&e->fence, f ? f : dma_fence_get_stub());
		list_del_init(&e->node);
		waiter_wake(e->waiter);
	}
}

static void eventfd_entry_signal_free(struct syncobj_eventfd_entry *e)
{
	uint64_t one = 1;

	/* eventfd_signal(): only an overflowing counter could block. */
	if (drm_sys_write(e->fd, &one, sizeof(one)) != sizeof(one))
		(void)0;
	drm_sys_close(e->fd);
	dma_fence_put(e->fence);
	free(e);
}

static void eventfd_entry_fence_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	(void)f;
	eventfd_entry_signal_free(container_of(cb, struct syncobj_eventfd_entry, fence_cb));
}

/* Syncobj lock held: if @e's point has a fence now, leave the list and arm. */
static void eventfd_entry_check_locked(struct drm_syncobj *syncobj, struct syncobj_eventfd_entry *e)
{
	struct dma_fence *f = dma_fence_get(syncobj->fence);

	if (!f)
		return;
	if (dma_fence_chain_find_seqno(&f, e->point)) {
		dma_fence_put(f);
		return;
	}
	list_del_init(&e->node);
	e->fence = f ? f : dma_fence_get_stub();
	if ((e->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE) ||
	    dma_fence_add_callback(e->fence, &e->fence_cb, eventfd_entry_fence_cb))
		eventfd_entry_signal_free(e);
}

static void eventfds_check_locked(struct drm_syncobj *syncobj)
{
	struct syncobj_eventfd_entry *e, *tmp;

	list_for_each_entry_safe (e, tmp, &syncobj->ev_fd_list, struct syncobj_eventfd_entry, node)
		eventfd_entry_check_locked(syncobj, e);
}

/* 0 when @fd is an eventfd; -EBADF when not open; -EINVAL otherwise. */
static int check_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (fd < 0 || drm_sys_fcntl(fd, F_GETFD, 0) < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = drm_sys_readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -EBADF;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") ? -EINVAL : 0;
}

int drm_syncobj_eventfd_ioctl(struct drm_file *file, struct drm_syncobj_eventfd *args)
{
	struct syncobj_eventfd_entry *e;
	struct drm_syncobj *s;
	int ret;

	if (args->flags & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE)
		return -EINVAL;
	if (args->pad)
		return -EINVAL;
	s = drm_syncobj_find(file, args->handle);
	if (!s)
		return -ENOENT;
	ret = check_eventfd(args->fd);
	if (ret)
		goto out;
	if (fault_should_fail(&drm_fault_syncobj_alloc, sizeof(*e)) ||
	    !(e = calloc(1, sizeof(*e)))) {
		ret = -ENOMEM;
		goto out;
	}
	e->fd = drm_sys_fcntl(args->fd, F_DUPFD_CLOEXEC, 0);
	if (e->fd < 0) {
		ret = -errno;
		free(e);
		goto out;
	}
	e->point = args->point;
	e->flags = args->flags;
	pthread_mutex_lock(&s->lock);
	list_add_tail(&e->node, &s->ev_fd_list);
	eventfd_entry_check_locked(s, e);
	pthread_mutex_unlock(&s->lock);
out:
	drm_syncobj_put(s);
	return ret;
}

void drm_syncobj_replace_fence(struct drm_syncobj *syncobj, struct dma_fence *fence)
{
	struct dma_fence *old;

	dma_fence_get(fence);
	pthread_mutex_lock(&syncobj->lock);
	old = syncobj->fence;
	syncobj->fence = fence;
	if (fence != old) {
		wake_waiters_locked(syncobj);
		eventfds_check_locked(syncobj);
	}
	pthread_mutex_unlock(&syncobj->lock);
	dma_fence_put(old);
}

void drm_syncobj_add_point(struct drm_syncobj *syncobj, struct dma_fence_chain *chain,
			   struct dma_fence *fence, uint64_t point)
{
	struct dma_fence *prev, *old = NULL;

	dma_fence_get(fence);
	pthread_mutex_lock(&syncobj->lock);
	/* The chain takes over the syncobj's reference to its old fence. */
	prev = syncobj->fence;
	/*
	 * Every point up to the head has signalled: the new point need not
	 * keep the old links (and their payload fences, GPU requests) alive.
	 * It hangs off a lone, signalled link at the head's point instead,
	 * which answers QUERY and waits for old points the same way. The
	 * kernel prunes signalled links when it walks the chain; ours cannot
	 * be rewritten.
	 * Without memory for the copy the chain just stays long.
	 */
	if (to_dma_fence_chain(prev) && dma_fence_is_signaled(prev)) {
		struct dma_fence_chain *copy = dma_fence_chain_alloc();

		if (copy) {
			dma_fence_chain_init(copy, NULL, dma_fence_get_stub(), prev->seqno);
			/* Put after unlocking: it may free a long chain. */
			old = prev;
			prev = &copy->base;
		}
	}
	dma_fence_chain_init(chain, prev, fence, point);
	syncobj->fence = &chain->base;
	wake_waiters_locked(syncobj);
	eventfds_check_locked(syncobj);
	pthread_mutex_unlock(&syncobj->lock);
	dma_fence_put(old);
}

/* Register @e for a fence to appear, unless the fence is there already. */
static void add_wait(struct drm_syncobj *syncobj, struct syncobj_wait_entry *e)
{
	struct dma_fence *f;

	if (atomic_load(&e->fence))
		return;
	pthread_mutex_lock(&syncobj->lock);
	f = dma_fence_get(syncobj->fence);
	if (!f || dma_fence_chain_find_seqno(&f, e->point)) {
		dma_fence_put(f);
		list_add_tail(&e->node, &syncobj->cb_list);
	} else {
		atomic_store(&e->fence, f ? f : dma_fence_get_stub());
	}
	pthread_mutex_unlock(&syncobj->lock);
}

static void remove_wait(struct drm_syncobj *syncobj, struct syncobj_wait_entry *e)
{
	pthread_mutex_lock(&syncobj->lock);
	if (!list_empty(&e->node))
		list_del_init(&e->node);
	pthread_mutex_unlock(&syncobj->lock);
}

static void wait_fence_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct syncobj_wait_entry *e = container_of(cb, struct syncobj_wait_entry, fence_cb);

	(void)f;
	waiter_wake(e->waiter);
}

int drm_syncobj_find_fence(struct drm_file *file, uint32_t handle, uint64_t point, uint64_t flags,
			   struct dma_fence **fence)
{
	struct drm_syncobj *syncobj = drm_syncobj_find(file, handle);
	struct syncobj_waiter w = {0};
	struct syncobj_wait_entry e;
	int64_t deadline;
	int ret;

	if (!syncobj)
		return -ENOENT;
	if (flags & ~(uint64_t)DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT) {
		ret = -EINVAL;
		goto out;
	}
	*fence = drm_syncobj_fence_get(syncobj);
	if (*fence) {
		ret = dma_fence_chain_find_seqno(fence, point);
		if (!ret) {
			/* The point signalled and its link is gone: any signalled fence will do. */
			if (!*fence)
				*fence = dma_fence_get_stub();
			goto out;
		}
		dma_fence_put(*fence);
		*fence = NULL;
	} else {
		ret = -EINVAL;
	}
	if (!(flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
		goto out;

	memset(&e, 0, sizeof(e));
	INIT_LIST_HEAD(&e.node);
	e.waiter = &w;
	e.point = point;
	deadline = dma_fence_now_ns() + DRM_SYNCOBJ_WAIT_FOR_SUBMIT_TIMEOUT_NS;
	add_wait(syncobj, &e);
	for (;;) {
		unsigned seen = atomic_load_explicit(&w.seq, memory_order_acquire);

		if (atomic_load(&e.fence)) {
			ret = 0;
			break;
		}
		if (dma_fence_now_ns() >= deadline) {
			ret = -ETIME;
			break;
		}
		waiter_sleep(&w, seen, deadline);
	}
	remove_wait(syncobj, &e);
	*fence = atomic_load(&e.fence);
out:
	drm_syncobj_put(syncobj);
	return ret;
}

int drm_syncobj_get_handle(struct drm_file *file, struct drm_syncobj *syncobj, uint32_t *handle)
{
	int ret;

	drm_syncobj_get(syncobj);
	pthread_mutex_lock(&file->syncobj_table_lock);
	ret = drm_idr_alloc(&file->syncobj_idr, syncobj);
	pthread_mutex_unlock(&file->syncobj_table_lock);
	if (ret < 0) {
		drm_syncobj_put(syncobj);
		return ret;
	}
	*handle = (uint32_t)ret;
	return 0;
}

static void syncobj_file_release(struct drm_fd_obj *obj)
{
	struct syncobj_file *sf = (struct syncobj_file *)obj;

	drm_syncobj_put(sf->syncobj);
	free(sf);
}

int drm_syncobj_get_fd(struct drm_syncobj *syncobj, int *fd)
{
	struct syncobj_file *sf;
	int ret;

	drm_fd_gc_maybe();
	if (fault_should_fail(&drm_fault_syncobj_alloc, sizeof(*sf)))
		return -ENOMEM;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	sf->syncobj = syncobj;
	drm_syncobj_get(syncobj);
	ret =
	    drm_fd_obj_install_pipe(&sf->base, DRM_FD_SYNCOBJ, O_CLOEXEC, fd, syncobj_file_release);
	if (ret) {
		drm_syncobj_put(syncobj);
		free(sf);
	}
	return ret;
}

struct drm_syncobj *drm_syncobj_from_fd(int fd)
{
	struct syncobj_file *sf;
	struct drm_syncobj *s;
	int err;

	sf = (struct syncobj_file *)drm_fd_obj_lookup(fd, DRM_FD_SYNCOBJ, &err);
	if (!sf)
		return NULL;
	s = sf->syncobj;
	drm_syncobj_get(s);
	drm_fd_obj_put(&sf->base);
	return s;
}

static int release_handle(uint32_t handle, void *ptr, void *data)
{
	(void)handle;
	(void)data;
	drm_syncobj_put(ptr);
	return 0;
}

void drm_syncobj_release(struct drm_file *file)
{
	pthread_mutex_lock(&file->syncobj_table_lock);
	drm_idr_for_each(&file->syncobj_idr, release_handle, NULL);
	drm_idr_fini(&file->syncobj_idr);
	pthread_mutex_unlock(&file->syncobj_table_lock);
}

int drm_syncobj_create_ioctl(struct drm_file *file, struct drm_syncobj_create *args)
{
	struct drm_syncobj *s;
	int ret;

	if (args->flags & ~DRM_SYNCOBJ_CREATE_SIGNALED)
		return -EINVAL;
	ret = drm_syncobj_create(&s, args->flags, NULL);
	if (ret)
		return ret;
	ret = drm_syncobj_get_handle(file, s, &args->handle);
	drm_syncobj_put(s);
	return ret;
}

int drm_syncobj_destroy_ioctl(struct drm_file *file, struct drm_syncobj_destroy *args)
{
	struct drm_syncobj *s;

	if (args->pad)
		return -EINVAL;
	pthread_mutex_lock(&file->syncobj_table_lock);
	s = drm_idr_remove(&file->syncobj_idr, args->handle);
	pthread_mutex_unlock(&file->syncobj_table_lock);
	if (!s)
		return -EINVAL;
	drm_syncobj_put(s);
	return 0;
}

static int export_sync_file(struct drm_file *file, uint32_t handle, int *fd)
{
	struct dma_fence *fence;
	int ret;

	ret = drm_syncobj_find_fence(file, handle, 0, 0, &fence);
	if (ret)
		return ret;
	ret = drm_sync_file_create(fence, O_CLOEXEC, fd);
	dma_fence_put(fence);
	/* The kernel reports a failed sync_file_create() as -EINVAL. */
	if (ret == -ENOMEM)
		ret = -EINVAL;
	return ret;
}

int drm_syncobj_handle_to_fd_ioctl(struct drm_file *file, struct drm_syncobj_handle *args)
{
	struct drm_syncobj *s;
	int ret;

	if (args->pad)
		return -EINVAL;
	if (args->flags != 0 && args->flags != DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE)
		return -EINVAL;
	if (args->flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE)
		return export_sync_file(file, args->handle, &args->fd);
	s = drm_syncobj_find(file, args->handle);
	if (!s)
		return -EINVAL;
	ret = drm_syncobj_get_fd(s, &args->fd);
	drm_syncobj_put(s);
	return ret;
}

int drm_syncobj_fd_to_handle_ioctl(struct drm_file *file, struct drm_syncobj_handle *args)
{
	struct drm_syncobj *s;
	int ret;

	if (args->pad)
		return -EINVAL;
	if (args->flags != 0 && args->flags != DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE)
		return -EINVAL;
	if (args->flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE) {
		struct dma_fence *fence = drm_sync_file_get_fence(args->fd);

		if (!fence)
			return -EINVAL;
		s = drm_syncobj_find(file, args->handle);
		if (!s) {
			dma_fence_put(fence);
			return -ENOENT;
		}
		drm_syncobj_replace_fence(s, fence);
		dma_fence_put(fence);
		drm_syncobj_put(s);
		return 0;
	}
	s = drm_syncobj_from_fd(args->fd);
	if (!s)
		return -EINVAL;
	ret = drm_syncobj_get_handle(file, s, &args->handle);
	drm_syncobj_put(s);
	return ret;
}

int drm_syncobj_transfer_ioctl(struct drm_file *file, struct drm_syncobj_transfer *args)
{
	struct drm_syncobj *dst;
	struct dma_fence *fence, *merged;
	struct dma_fence_chain *chain;
	int ret;

	if (args->pad)
		return -EINVAL;
	dst = drm_syncobj_find(file, args->dst_handle);
	if (!dst)
		return -ENOENT;
	ret = drm_syncobj_find_fence(file, args->src_handle, args->src_point, args->flags, &fence);
	if (ret)
		goto out;
	if (!args->dst_point) {
		drm_syncobj_replace_fence(dst, fence);
		dma_fence_put(fence);
		goto out;
	}
	/* A point carries plain fences: never a chain inside a chain. */
	merged = dma_fence_unwrap_merge(&fence, 1);
	dma_fence_put(fence);
	if (!merged) {
		ret = -ENOMEM;
		goto out;
	}
	chain = dma_fence_chain_alloc();
	if (!chain) {
		ret = -ENOMEM;
	} else {
		drm_syncobj_add_point(dst, chain, merged, args->dst_point);
	}
	dma_fence_put(merged);
out:
	drm_syncobj_put(dst);
	return ret;
}

/* Copy in @count handles from @uhandles and look each up (the kernel's order of errors). */
static int array_find(struct drm_file *file, uint64_t uhandles, uint32_t count,
		      struct drm_syncobj ***out)
{
	struct drm_syncobj **objs;
	uint32_t *handles;
	uint32_t i;
	int ret = 0;

	handles = kmalloc_array(count, sizeof(*handles));
	if (!handles)
		return -ENOMEM;
	if (drm_copy_from_user(handles, drm_u64_to_user_ptr(uhandles),
			       (size_t)count * sizeof(*handles))) {
		ret = -EFAULT;
		goto out;
	}
	objs = kmalloc_array(count, sizeof(*objs));
	if (!objs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < count; i++) {
		objs[i] = drm_syncobj_find(file, handles[i]);
		if (!objs[i]) {
			while (i--)
				drm_syncobj_put(objs[i]);
			free(objs);
			ret = -ENOENT;
			goto out;
		}
	}
	*out = objs;
out:
	free(handles);
	return ret;
}

static void array_free(struct drm_syncobj **objs, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		drm_syncobj_put(objs[i]);
	free(objs);
}

/* The absolute CLOCK_MONOTONIC deadline of a wait ioctl: 0 polls. */
static int64_t abs_deadline(int64_t timeout_nsec)
{
	return timeout_nsec <= 0 ? 0 : timeout_nsec;
}

static int array_wait(struct drm_syncobj **objs, uint64_t upoints, uint32_t count, uint32_t flags,
		      int64_t timeout_nsec, uint32_t *first)
{
	const uint32_t submit =
	    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	struct syncobj_wait_entry *entries;
	struct syncobj_waiter w = {0};
	int64_t deadline = abs_deadline(timeout_nsec);
	uint64_t *points;
	uint32_t signaled, i;
	int ret = 0;

	points = kmalloc_array(count, sizeof(*points));
	if (!points)
		return -ENOMEM;
	if (!upoints)
		memset(points, 0, (size_t)count * sizeof(*points));
	else if (drm_copy_from_user(points, drm_u64_to_user_ptr(upoints),
				    (size_t)count * sizeof(*points))) {
		free(points);
		return -EFAULT;
	}
	entries = NULL;
	if (count <= DRM_SYNCOBJ_KMALLOC_MAX / sizeof(*entries) &&
	    !fault_should_fail(&drm_fault_syncobj_alloc, count * sizeof(*entries)))
		entries = calloc(count, sizeof(*entries));
	if (!entries) {
		free(points);
		return -ENOMEM;
	}

	/*
	 * First pass: a syncobj without a fence for its point is -EINVAL now
	 * unless the flags say to wait for one.
	 */
	signaled = 0;
	for (i = 0; i < count; i++) {
		struct dma_fence *f;

		INIT_LIST_HEAD(&entries[i].node);
		entries[i].waiter = &w;
		entries[i].point = points[i];
		f = drm_syncobj_fence_get(objs[i]);
		if (!f || dma_fence_chain_find_seqno(&f, points[i])) {
			dma_fence_put(f);
			if (flags & submit)
				continue;
			ret = -EINVAL;
			goto cleanup;
		}
		atomic_store(&entries[i].fence, f ? f : dma_fence_get_stub());
		if ((flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE) ||
		    dma_fence_is_signaled(atomic_load(&entries[i].fence))) {
			if (signaled == 0)
				*first = i;
			signaled++;
		}
	}
	if (signaled == count || (signaled > 0 && !(flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL)))
		goto cleanup;

	if (flags & submit)
		for (i = 0; i < count; i++)
			add_wait(objs[i], &entries[i]);

	for (;;) {
		unsigned seen = atomic_load_explicit(&w.seq, memory_order_acquire);

		signaled = 0;
		for (i = 0; i < count; i++) {
			struct dma_fence *f = atomic_load(&entries[i].fence);
			bool done;

			if (!f)
				continue;
			done = (flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE) ||
			       dma_fence_is_signaled(f);
			if (!done && !entries[i].cb_armed) {
				if (dma_fence_add_callback(f, &entries[i].fence_cb, wait_fence_cb))
					done = true;
				else
					entries[i].cb_armed = true;
			}
			if (!done)
				continue;
			if (!(flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL)) {
				*first = i;
				goto cleanup;
			}
			signaled++;
		}
		if (signaled == count)
			goto cleanup;
		if (dma_fence_now_ns() >= deadline) {
			ret = -ETIME;
			goto cleanup;
		}
		waiter_sleep(&w, seen, deadline);
	}

cleanup:
	for (i = 0; i < count; i++) {
		struct dma_fence *f;

		remove_wait(objs[i], &entries[i]);
		f = atomic_load(&entries[i].fence);
		if (entries[i].cb_armed)
			dma_fence_remove_callback(f, &entries[i].fence_cb);
		dma_fence_put(f);
	}
	free(entries);
	free(points);
	return ret;
}

int drm_syncobj_wait_ioctl(struct drm_file *file, struct drm_syncobj_wait *args)
{
	const uint32_t possible = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
				  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
				  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE;
	struct drm_syncobj **objs;
	uint32_t first = ~0u;
	int ret;

	if (args->flags & ~possible)
		return -EINVAL;
	if (args->count_handles == 0)
		return 0;
	ret = array_find(file, args->handles, args->count_handles, &objs);
	if (ret)
		return ret;
	ret = array_wait(objs, 0, args->count_handles, args->flags, args->timeout_nsec, &first);
	if (!ret)
		args->first_signaled = first;
	array_free(objs, args->count_handles);
	return ret;
}

int drm_syncobj_timeline_wait_ioctl(struct drm_file *file, struct drm_syncobj_timeline_wait *args)
{
	const uint32_t possible =
	    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
	    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE;
	struct drm_syncobj **objs;
	uint32_t first = ~0u;
	int ret;

	if (args->flags & ~possible)
		return -EINVAL;
	if (args->count_handles == 0)
		return 0;
	ret = array_find(file, args->handles, args->count_handles, &objs);
	if (ret)
		return ret;
	ret = array_wait(objs, args->points, args->count_handles, args->flags, args->timeout_nsec,
			 &first);
	if (!ret)
		args->first_signaled = first;
	array_free(objs, args->count_handles);
	return ret;
}

int drm_syncobj_reset_ioctl(struct drm_file *file, struct drm_syncobj_array *args)
{
	struct drm_syncobj **objs;
	int ret;

	if (args->pad)
		return -EINVAL;
	if (args->count_handles == 0)
		return -EINVAL;
	ret = array_find(file, args->handles, args->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < args->count_handles; i++)
		drm_syncobj_replace_fence(objs[i], NULL);
	array_free(objs, args->count_handles);
	return 0;
}

int drm_syncobj_signal_ioctl(struct drm_file *file, struct drm_syncobj_array *args)
{
	struct drm_syncobj **objs;
	int ret;

	if (args->pad)
		return -EINVAL;
	if (args->count_handles == 0)
		return -EINVAL;
	ret = array_find(file, args->handles, args->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < args->count_handles; i++) {
		struct dma_fence *stub = dma_fence_allocate_private_stub(dma_fence_now_ns());

		if (!stub) {
			ret = -ENOMEM;
			break;
		}
		drm_syncobj_replace_fence(objs[i], stub);
		dma_fence_put(stub);
	}
	array_free(objs, args->count_handles);
	return ret;
}

int drm_syncobj_timeline_signal_ioctl(struct drm_file *file,
				      struct drm_syncobj_timeline_array *args)
{
	struct dma_fence_chain **chains = NULL;
	struct drm_syncobj **objs;
	uint64_t *points;
	uint32_t i, n = args->count_handles;
	int ret;

	if (args->flags != 0)
		return -EINVAL;
	if (n == 0)
		return -EINVAL;
	ret = array_find(file, args->handles, n, &objs);
	if (ret)
		return ret;
	points = kmalloc_array(n, sizeof(*points));
	if (!points) {
		ret = -ENOMEM;
		goto out;
	}
	if (!args->points)
		memset(points, 0, (size_t)n * sizeof(*points));
	else if (drm_copy_from_user(points, drm_u64_to_user_ptr(args->points),
				    (size_t)n * sizeof(*points))) {
		ret = -EFAULT;
		goto out;
	}
	chains = kmalloc_array(n, sizeof(*chains));
	if (!chains) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		chains[i] = dma_fence_chain_alloc();
		if (!chains[i]) {
			while (i--)
				dma_fence_chain_free(chains[i]);
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		struct dma_fence *stub = dma_fence_get_stub();

		drm_syncobj_add_point(objs[i], chains[i], stub, points[i]);
		dma_fence_put(stub);
	}
out:
	free(chains);
	free(points);
	array_free(objs, n);
	return ret;
}

/* The highest point whose link (and so every earlier point) has signalled. */
static uint64_t query_point(struct dma_fence *head)
{
	struct dma_fence_chain *c = to_dma_fence_chain(head);
	uint64_t oldest_prev = 0;

	for (; c; c = to_dma_fence_chain(c->prev)) {
		if (c->base.context != head->context)
			break;
		if (dma_fence_is_signaled(&c->base))
			return c->base.seqno;
		oldest_prev = c->prev_seqno;
	}
	return oldest_prev;
}

int drm_syncobj_query_ioctl(struct drm_file *file, struct drm_syncobj_timeline_array *args)
{
	uint64_t __user *upoints = drm_u64_to_user_ptr(args->points);
	struct drm_syncobj **objs;
	int ret;

	if (args->flags & ~DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)
		return -EINVAL;
	if (args->count_handles == 0)
		return -EINVAL;
	ret = array_find(file, args->handles, args->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < args->count_handles; i++) {
		struct dma_fence *f = drm_syncobj_fence_get(objs[i]);
		uint64_t point = 0;

		if (to_dma_fence_chain(f)) {
			if (args->flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)
				point = f->seqno;
			else
				point = query_point(f);
		}
		dma_fence_put(f);
		if (drm_copy_to_user(&upoints[i], &point, sizeof(point))) {
			ret = -EFAULT;
			break;
		}
	}
	array_free(objs, args->count_handles);
	return ret;
}

int drm_syncobj_ioctl(struct drm_file *file, unsigned int nr, void *kdata)
{
	switch (nr) {
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE):
		return drm_syncobj_create_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY):
		return drm_syncobj_destroy_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD):
		return drm_syncobj_handle_to_fd_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE):
		return drm_syncobj_fd_to_handle_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT):
		return drm_syncobj_wait_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET):
		return drm_syncobj_reset_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL):
		return drm_syncobj_signal_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT):
		return drm_syncobj_timeline_wait_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_QUERY):
		return drm_syncobj_query_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TRANSFER):
		return drm_syncobj_transfer_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL):
		return drm_syncobj_timeline_signal_ioctl(file, kdata);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_EVENTFD):
		return drm_syncobj_eventfd_ioctl(file, kdata);
	default:
		return -ENOTTY;
	}
}
