// SPDX-License-Identifier: MIT
#include <drmcore/drm_syncobj.h>
#include <drmcore/drm_fd.h>
#include <drmcore/drm_faults.h>
#include <drmcore/sync_file.h>
#include <ktest.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static const char *tname(struct dma_fence *f)
{
	(void)f;
	return "test";
}

static const struct dma_fence_ops test_ops = {.get_driver_name = tname, .get_timeline_name = tname};

static struct dma_fence *new_fence(void)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	dma_fence_init(f, &test_ops, dma_fence_context_alloc(1), 1);
	return f;
}

static int64_t now_plus(int64_t ns)
{
	return dma_fence_now_ns() + ns;
}

static uint32_t create(struct drm_file *file, uint32_t flags)
{
	struct drm_syncobj_create c = {.flags = flags};

	if (drm_syncobj_create_ioctl(file, &c))
		return 0;
	return c.handle;
}

static int wait_one(struct drm_file *file, uint32_t handle, uint32_t flags, int64_t timeout)
{
	struct drm_syncobj_wait w = {.handles = (uintptr_t)&handle,
				     .count_handles = 1,
				     .flags = flags,
				     .timeout_nsec = timeout};

	return drm_syncobj_wait_ioctl(file, &w);
}

static int twait(struct drm_file *file, uint32_t *h, uint64_t *p, uint32_t n, uint32_t flags,
		 int64_t timeout, uint32_t *first)
{
	struct drm_syncobj_timeline_wait w = {.handles = (uintptr_t)h,
					      .points = (uintptr_t)p,
					      .count_handles = n,
					      .flags = flags,
					      .timeout_nsec = timeout};
	int ret = drm_syncobj_timeline_wait_ioctl(file, &w);

	if (first)
		*first = w.first_signaled;
	return ret;
}

static int tsignal(struct drm_file *file, uint32_t h, uint64_t point)
{
	struct drm_syncobj_timeline_array a = {
	    .handles = (uintptr_t)&h, .points = (uintptr_t)&point, .count_handles = 1};

	return drm_syncobj_timeline_signal_ioctl(file, &a);
}

static uint64_t query(struct drm_file *file, uint32_t h, uint32_t flags)
{
	uint64_t point = ~0ull;
	struct drm_syncobj_timeline_array a = {.handles = (uintptr_t)&h,
					       .points = (uintptr_t)&point,
					       .count_handles = 1,
					       .flags = flags};

	if (drm_syncobj_query_ioctl(file, &a))
		return ~0ull;
	return point;
}

/* Attach @fence at timeline @point of @h, as execbuffer's out-fence does. */
static void add_point(struct drm_file *file, uint32_t h, struct dma_fence *fence, uint64_t point)
{
	struct drm_syncobj *s = drm_syncobj_find(file, h);
	struct dma_fence_chain *c = dma_fence_chain_alloc();

	drm_syncobj_add_point(s, c, fence, point);
	drm_syncobj_put(s);
}

KTEST(drm_syncobj_create_destroy_handles_and_errors)
{
	struct drm_file file;
	struct drm_syncobj_create c = {.flags = 2};
	struct drm_syncobj_destroy d = {0};

	drm_file_init(&file);
	EXPECT_EQ(drm_syncobj_create_ioctl(&file, &c), -EINVAL);
	EXPECT_EQ(create(&file, 0), 1);
	EXPECT_EQ(create(&file, DRM_SYNCOBJ_CREATE_SIGNALED), 2);
	EXPECT_EQ(create(&file, 0), 3);
	d.handle = 2;
	EXPECT_EQ(drm_syncobj_destroy_ioctl(&file, &d), 0);
	EXPECT_EQ(drm_syncobj_destroy_ioctl(&file, &d), -EINVAL);
	d.handle = 0;
	EXPECT_EQ(drm_syncobj_destroy_ioctl(&file, &d), -EINVAL);
	d.handle = 1;
	d.pad = 1;
	EXPECT_EQ(drm_syncobj_destroy_ioctl(&file, &d), -EINVAL);
	/* The lowest free handle is reused. */
	EXPECT_EQ(create(&file, 0), 2);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_wait_binary_errors_and_timeouts)
{
	struct drm_file file;
	uint32_t h, s, bad = 99, hs[2];
	struct drm_syncobj_wait w = {0};

	drm_file_init(&file);
	h = create(&file, 0);
	s = create(&file, DRM_SYNCOBJ_CREATE_SIGNALED);
	/* No fence and no WAIT_FOR_SUBMIT: -EINVAL, not a timeout. */
	EXPECT_EQ(wait_one(&file, h, 0, 0), -EINVAL);
	EXPECT_EQ(wait_one(&file, s, 0, 0), 0);
	EXPECT_EQ(wait_one(&file, h, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0), -ETIME);
	EXPECT_EQ(wait_one(&file, h, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, now_plus(1000000)),
		  -ETIME);
	EXPECT_EQ(wait_one(&file, bad, 0, 0), -ENOENT);
	EXPECT_EQ(wait_one(&file, h, 1u << 4, 0), -EINVAL);
	/* WAIT_AVAILABLE belongs to the timeline wait only. */
	EXPECT_EQ(wait_one(&file, s, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0), -EINVAL);
	/* Count 0 is a successful no-op for the waits. */
	EXPECT_EQ(drm_syncobj_wait_ioctl(&file, &w), 0);
	w.count_handles = 1;
	w.handles = 8;
	EXPECT_EQ(drm_syncobj_wait_ioctl(&file, &w), -EFAULT);
	w.count_handles = 0x7fffffff;
	EXPECT_EQ(drm_syncobj_wait_ioctl(&file, &w), -ENOMEM);

	/* Any vs all, first_signaled. */
	hs[0] = create(&file, 0);
	hs[1] = s;
	{
		struct dma_fence *f = new_fence();
		struct drm_syncobj *o = drm_syncobj_find(&file, hs[0]);

		drm_syncobj_replace_fence(o, f);
		w.handles = (uintptr_t)hs;
		w.count_handles = 2;
		w.timeout_nsec = 0;
		w.flags = 0;
		EXPECT_EQ(drm_syncobj_wait_ioctl(&file, &w), 0);
		EXPECT_EQ(w.first_signaled, 1);
		w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
		EXPECT_EQ(drm_syncobj_wait_ioctl(&file, &w), -ETIME);
		dma_fence_signal(f);
		EXPECT_EQ(drm_syncobj_wait_ioctl(&file, &w), 0);
		drm_syncobj_put(o);
		dma_fence_put(f);
	}
	drm_file_fini(&file);
}

KTEST(drm_syncobj_reset_signal_errors)
{
	struct drm_file file;
	uint32_t h[2];
	struct drm_syncobj_array a = {.handles = (uintptr_t)h, .count_handles = 2};

	drm_file_init(&file);
	h[0] = create(&file, 0);
	h[1] = create(&file, 0);
	EXPECT_EQ(drm_syncobj_signal_ioctl(&file, &a), 0);
	EXPECT_EQ(wait_one(&file, h[1], 0, 0), 0);
	EXPECT_EQ(drm_syncobj_reset_ioctl(&file, &a), 0);
	EXPECT_EQ(wait_one(&file, h[0], 0, 0), -EINVAL);
	a.pad = 1;
	EXPECT_EQ(drm_syncobj_reset_ioctl(&file, &a), -EINVAL);
	EXPECT_EQ(drm_syncobj_signal_ioctl(&file, &a), -EINVAL);
	a.pad = 0;
	a.count_handles = 0;
	EXPECT_EQ(drm_syncobj_reset_ioctl(&file, &a), -EINVAL);
	EXPECT_EQ(drm_syncobj_signal_ioctl(&file, &a), -EINVAL);
	a.count_handles = 2;
	h[1] = 77;
	EXPECT_EQ(drm_syncobj_signal_ioctl(&file, &a), -ENOENT);
	a.handles = 8;
	EXPECT_EQ(drm_syncobj_reset_ioctl(&file, &a), -EFAULT);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_handle_fd_round_trip_and_errors)
{
	struct drm_file f1, f2;
	struct drm_syncobj_handle a = {0};
	struct drm_syncobj *o1, *o2;
	int p[2];

	drm_file_init(&f1);
	drm_file_init(&f2);
	a.handle = create(&f1, DRM_SYNCOBJ_CREATE_SIGNALED);
	ASSERT_EQ(drm_syncobj_handle_to_fd_ioctl(&f1, &a), 0);
	EXPECT_TRUE(fcntl(a.fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(drm_fd_kind(a.fd), DRM_FD_SYNCOBJ);
	a.handle = 0;
	ASSERT_EQ(drm_syncobj_fd_to_handle_ioctl(&f2, &a), 0);
	EXPECT_EQ(a.handle, 1);
	o1 = drm_syncobj_find(&f1, 1);
	o2 = drm_syncobj_find(&f2, 1);
	EXPECT_TRUE(o1 == o2);
	drm_syncobj_put(o1);
	drm_syncobj_put(o2);
	drm_fd_close(a.fd, NULL);

	/* Errors. */
	a.handle = 55;
	a.flags = 0;
	EXPECT_EQ(drm_syncobj_handle_to_fd_ioctl(&f1, &a), -EINVAL);
	a.handle = 1;
	a.pad = 1;
	EXPECT_EQ(drm_syncobj_handle_to_fd_ioctl(&f1, &a), -EINVAL);
	EXPECT_EQ(drm_syncobj_fd_to_handle_ioctl(&f1, &a), -EINVAL);
	a.pad = 0;
	a.flags = 2;
	EXPECT_EQ(drm_syncobj_handle_to_fd_ioctl(&f1, &a), -EINVAL);
	EXPECT_EQ(drm_syncobj_fd_to_handle_ioctl(&f1, &a), -EINVAL);
	a.flags = 0;
	ASSERT_EQ(pipe(p), 0);
	a.fd = p[0];
	EXPECT_EQ(drm_syncobj_fd_to_handle_ioctl(&f1, &a), -EINVAL);
	a.fd = -1;
	EXPECT_EQ(drm_syncobj_fd_to_handle_ioctl(&f1, &a), -EINVAL);
	close(p[0]);
	close(p[1]);
	drm_file_fini(&f1);
	drm_file_fini(&f2);
}

KTEST(drm_syncobj_sync_file_export_import)
{
	struct drm_file file;
	struct drm_syncobj_handle a = {0};
	struct dma_fence *f = new_fence(), *g;
	struct drm_syncobj *o;
	uint32_t h;
	int p[2];

	drm_file_init(&file);
	h = create(&file, 0);

	/* Export of an empty syncobj: -EINVAL; of a bad handle: -ENOENT. */
	a.handle = h;
	a.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
	EXPECT_EQ(drm_syncobj_handle_to_fd_ioctl(&file, &a), -EINVAL);
	a.handle = 42;
	EXPECT_EQ(drm_syncobj_handle_to_fd_ioctl(&file, &a), -ENOENT);

	o = drm_syncobj_find(&file, h);
	drm_syncobj_replace_fence(o, f);
	a.handle = h;
	ASSERT_EQ(drm_syncobj_handle_to_fd_ioctl(&file, &a), 0);
	g = drm_sync_file_get_fence(a.fd);
	EXPECT_TRUE(g == f);
	dma_fence_put(g);

	/* Import into another syncobj. */
	a.handle = create(&file, 0);
	a.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
	ASSERT_EQ(drm_syncobj_fd_to_handle_ioctl(&file, &a), 0);
	EXPECT_EQ(wait_one(&file, a.handle, 0, 0), -ETIME);
	dma_fence_signal(f);
	EXPECT_EQ(wait_one(&file, a.handle, 0, now_plus(1000000000)), 0);
	a.handle = 77;
	EXPECT_EQ(drm_syncobj_fd_to_handle_ioctl(&file, &a), -ENOENT);
	ASSERT_EQ(pipe(p), 0);
	a.fd = p[0];
	a.handle = h;
	EXPECT_EQ(drm_syncobj_fd_to_handle_ioctl(&file, &a), -EINVAL);
	close(p[0]);
	close(p[1]);
	drm_syncobj_put(o);
	dma_fence_put(f);
	drm_fd_gc();
	drm_file_fini(&file);
}

struct later {
	struct drm_file *file;
	uint32_t handle;
	uint64_t point;
	struct dma_fence *fence;
	int delay_us;
};

static void *submit_later(void *arg)
{
	struct later *l = arg;

	usleep(l->delay_us);
	add_point(l->file, l->handle, l->fence, l->point);
	usleep(l->delay_us);
	dma_fence_signal(l->fence);
	return NULL;
}

KTEST(drm_syncobj_timeline_wait_for_submit_from_another_thread)
{
	struct drm_file file;
	struct later l;
	pthread_t t;
	uint64_t point = 5;
	uint32_t h, first = 99;

	drm_file_init(&file);
	h = create(&file, 0);
	l.file = &file;
	l.handle = h;
	l.point = 5;
	l.fence = new_fence();
	l.delay_us = 20000;
	/* Without WAIT_FOR_SUBMIT an unsubmitted point is -EINVAL. */
	EXPECT_EQ(twait(&file, &h, &point, 1, 0, 0, NULL), -EINVAL);
	pthread_create(&t, NULL, submit_later, &l);
	/* WAIT_AVAILABLE returns once the point exists, before it signals. */
	EXPECT_EQ(
	    twait(&file, &h, &point, 1,
		  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE,
		  now_plus(10000000000ll), &first),
	    0);
	EXPECT_EQ(first, 0);
	EXPECT_EQ(twait(&file, &h, &point, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
			now_plus(10000000000ll), NULL),
		  0);
	EXPECT_TRUE(dma_fence_is_signaled(l.fence));
	pthread_join(t, NULL);
	EXPECT_EQ(query(&file, h, 0), 5);
	dma_fence_put(l.fence);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_find_fence_waits_for_submit)
{
	struct drm_file file;
	struct dma_fence *f = NULL;
	struct later l;
	pthread_t t;
	uint32_t h;

	drm_file_init(&file);
	h = create(&file, 0);
	EXPECT_EQ(drm_syncobj_find_fence(&file, h, 3, 0, &f), -EINVAL);
	EXPECT_EQ(drm_syncobj_find_fence(&file, 9, 3, 0, &f), -ENOENT);
	EXPECT_EQ(drm_syncobj_find_fence(&file, h, 3, 8, &f), -EINVAL);
	l.file = &file;
	l.handle = h;
	l.point = 3;
	l.fence = new_fence();
	l.delay_us = 10000;
	pthread_create(&t, NULL, submit_later, &l);
	ASSERT_EQ(drm_syncobj_find_fence(&file, h, 3, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, &f),
		  0);
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(f->seqno, 3);
	EXPECT_TRUE(dma_fence_wait_timeout(f, false, 5000000000ll) > 0);
	dma_fence_put(f);
	pthread_join(t, NULL);
	dma_fence_put(l.fence);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_timeline_signal_query_and_order)
{
	struct drm_file file;
	struct dma_fence *p1 = new_fence(), *p2 = new_fence();
	struct drm_syncobj_timeline_array a = {0};
	uint64_t pt;
	uint32_t h;

	drm_file_init(&file);
	h = create(&file, 0);
	EXPECT_EQ(query(&file, h, 0), 0);
	add_point(&file, h, p1, 1);
	add_point(&file, h, p2, 2);
	EXPECT_EQ(query(&file, h, 0), 0);
	EXPECT_EQ(query(&file, h, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 2);
	/* Point 2's own fence alone does not complete point 2. */
	dma_fence_signal(p2);
	EXPECT_EQ(query(&file, h, 0), 0);
	pt = 2;
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), -ETIME);
	dma_fence_signal(p1);
	EXPECT_EQ(query(&file, h, 0), 2);
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), 0);
	EXPECT_EQ(tsignal(&file, h, 10), 0);
	EXPECT_EQ(query(&file, h, 0), 10);
	/* A point already passed waits on a signalled stub. */
	pt = 7;
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), 0);
	/* Beyond the last point: -EINVAL without WAIT_FOR_SUBMIT. */
	pt = 11;
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), -EINVAL);

	/* Errors of signal and query. */
	a.handles = (uintptr_t)&h;
	a.count_handles = 1;
	a.flags = 1;
	EXPECT_EQ(drm_syncobj_timeline_signal_ioctl(&file, &a), -EINVAL);
	a.flags = 2;
	EXPECT_EQ(drm_syncobj_query_ioctl(&file, &a), -EINVAL);
	a.flags = 0;
	a.points = 8;
	EXPECT_EQ(drm_syncobj_query_ioctl(&file, &a), -EFAULT);
	EXPECT_EQ(drm_syncobj_timeline_signal_ioctl(&file, &a), -EFAULT);
	a.count_handles = 0;
	EXPECT_EQ(drm_syncobj_query_ioctl(&file, &a), -EINVAL);
	EXPECT_EQ(drm_syncobj_timeline_signal_ioctl(&file, &a), -EINVAL);
	EXPECT_EQ(twait(&file, &h, &pt, 1, 1u << 5, 0, NULL), -EINVAL);
	dma_fence_put(p1);
	dma_fence_put(p2);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_transfer_between_binary_and_timeline)
{
	struct drm_file file;
	struct drm_syncobj_transfer t = {0};
	struct dma_fence *f = new_fence();
	struct drm_syncobj *o;
	uint32_t bin, tl, bin2;
	uint64_t pt;

	drm_file_init(&file);
	bin = create(&file, 0);
	tl = create(&file, 0);
	bin2 = create(&file, 0);
	o = drm_syncobj_find(&file, bin);
	drm_syncobj_replace_fence(o, f);
	drm_syncobj_put(o);

	/* binary -> timeline point 4 */
	t.src_handle = bin;
	t.dst_handle = tl;
	t.dst_point = 4;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), 0);
	EXPECT_EQ(query(&file, tl, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 4);
	EXPECT_EQ(query(&file, tl, 0), 0);
	/* timeline point 4 -> binary */
	t.src_handle = tl;
	t.src_point = 4;
	t.dst_handle = bin2;
	t.dst_point = 0;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), 0);
	EXPECT_EQ(wait_one(&file, bin2, 0, 0), -ETIME);
	dma_fence_signal(f);
	EXPECT_EQ(wait_one(&file, bin2, 0, 0), 0);
	EXPECT_EQ(query(&file, tl, 0), 4);
	pt = 4;
	EXPECT_EQ(twait(&file, &tl, &pt, 1, 0, 0, NULL), 0);

	/* Errors: pad, bad dst, bad src, unsubmitted src point, bad flags. */
	t.pad = 1;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), -EINVAL);
	t.pad = 0;
	t.dst_handle = 66;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), -ENOENT);
	t.dst_handle = bin2;
	t.src_handle = 66;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), -ENOENT);
	t.src_handle = tl;
	t.src_point = 9;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), -EINVAL);
	t.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	EXPECT_EQ(drm_syncobj_transfer_ioctl(&file, &t), -EINVAL);
	dma_fence_put(f);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_ioctl_dispatches_by_number)
{
	struct drm_file file;
	struct drm_syncobj_create c = {0};
	struct drm_syncobj_destroy d = {0};

	drm_file_init(&file);
	EXPECT_EQ(drm_syncobj_ioctl(&file, _IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE), &c), 0);
	d.handle = c.handle;
	EXPECT_EQ(drm_syncobj_ioctl(&file, _IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY), &d), 0);
	EXPECT_EQ(drm_syncobj_ioctl(&file, 0x01, &d), -ENOTTY);
	drm_file_fini(&file);
}

KTEST(drm_syncobj_create_fails_cleanly_under_fault_injection)
{
	struct drm_file file;
	struct drm_syncobj_create c = {0};

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	drm_file_init(&file);
	fault_set_nth(&drm_fault_syncobj_alloc, 1);
	EXPECT_EQ(drm_syncobj_create_ioctl(&file, &c), -ENOMEM);
	fault_set_nth(&drm_fault_idr_alloc, 1);
	EXPECT_EQ(drm_syncobj_create_ioctl(&file, &c), -ENOMEM);
	EXPECT_EQ(drm_syncobj_create_ioctl(&file, &c), 0);
	EXPECT_EQ(c.handle, 1);
	fault_reset(&drm_fault_syncobj_alloc);
	fault_reset(&drm_fault_idr_alloc);
	drm_file_fini(&file);
}

struct racer {
	struct drm_file *file;
	uint32_t handle;
	int rounds;
};

static void *signal_points(void *arg)
{
	struct racer *r = arg;

	for (int i = 1; i <= r->rounds; i++) {
		struct dma_fence *f = new_fence();

		add_point(r->file, r->handle, f, (uint64_t)i);
		dma_fence_signal(f);
		dma_fence_put(f);
	}
	return NULL;
}

KTEST(drm_syncobj_concurrent_waiters_see_every_point)
{
	struct drm_file file;
	struct racer r;
	pthread_t t;
	uint32_t h;

	drm_file_init(&file);
	h = create(&file, 0);
	r.file = &file;
	r.handle = h;
	r.rounds = 200;
	pthread_create(&t, NULL, signal_points, &r);
	for (uint64_t pt = 1; pt <= 200; pt += 7) {
		EXPECT_EQ(twait(&file, &h, &pt, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				now_plus(10000000000ll), NULL),
			  0);
	}
	pthread_join(t, NULL);
	EXPECT_EQ(query(&file, h, 0), 200);
	drm_file_fini(&file);
}

static uint64_t eventfd_value(int efd)
{
	struct pollfd p = {.fd = efd, .events = POLLIN};
	uint64_t v = 0;

	if (poll(&p, 1, 0) != 1)
		return 0;
	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

KTEST(drm_syncobj_eventfd_signals_on_fence_and_on_availability)
{
	struct drm_file file;
	struct drm_syncobj_eventfd a = {0};
	struct dma_fence *f = new_fence(), *g = new_fence();
	struct drm_syncobj *o;
	int efd = eventfd(0, EFD_CLOEXEC), p[2];
	uint32_t bin, tl;

	ASSERT_GE(efd, 0);
	drm_file_init(&file);
	bin = create(&file, 0);
	tl = create(&file, 0);

	/* Errors, in the kernel's order. */
	a.handle = bin;
	a.fd = efd;
	a.flags = 1;
	EXPECT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), -EINVAL);
	a.flags = 0;
	a.pad = 1;
	EXPECT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), -EINVAL);
	a.pad = 0;
	a.handle = 99;
	EXPECT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), -ENOENT);
	a.handle = bin;
	ASSERT_EQ(pipe(p), 0);
	a.fd = p[0];
	EXPECT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), -EINVAL);
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), -EBADF);

	/* Binary, flags 0: fires when the fence installed later signals. */
	a.fd = efd;
	ASSERT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), 0);
	EXPECT_UEQ(eventfd_value(efd), 0);
	o = drm_syncobj_find(&file, bin);
	drm_syncobj_replace_fence(o, f);
	drm_syncobj_put(o);
	EXPECT_UEQ(eventfd_value(efd), 0);
	dma_fence_signal(f);
	EXPECT_UEQ(eventfd_value(efd), 1);

	/* Timeline, WAIT_AVAILABLE: fires when the point is submitted. */
	a.handle = tl;
	a.point = 3;
	a.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	ASSERT_EQ(drm_syncobj_ioctl(&file, _IOC_NR(DRM_IOCTL_SYNCOBJ_EVENTFD), &a), 0);
	add_point(&file, tl, g, 2);
	EXPECT_UEQ(eventfd_value(efd), 0);
	add_point(&file, tl, g, 3);
	EXPECT_UEQ(eventfd_value(efd), 1);
	EXPECT_FALSE(dma_fence_is_signaled(g));

	/* A request pending when the syncobj goes is dropped, not leaked. */
	a.point = 10;
	ASSERT_EQ(drm_syncobj_eventfd_ioctl(&file, &a), 0);
	dma_fence_signal(g);
	drm_file_fini(&file);
	EXPECT_UEQ(eventfd_value(efd), 0);
	close(efd);
	dma_fence_put(f);
	dma_fence_put(g);
}

KTEST(drm_syncobj_signalled_timeline_does_not_grow)
{
	struct drm_file file;
	long base = dma_fence_live_count();
	uint64_t pt;
	uint32_t h;

	drm_file_init(&file);
	h = create(&file, 0);
	/* Points signalled as they come: the old links and payloads go. */
	for (uint64_t i = 1; i <= 5000; i++) {
		struct dma_fence *f = new_fence();

		add_point(&file, h, f, i);
		dma_fence_signal(f);
		dma_fence_put(f);
	}
	EXPECT_LT(dma_fence_live_count(), base + 16);
	EXPECT_EQ(query(&file, h, 0), 5000);
	EXPECT_EQ(query(&file, h, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 5000);
	pt = 1234;
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), 0);
	pt = 5000;
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), 0);
	pt = 5001;
	EXPECT_EQ(twait(&file, &h, &pt, 1, 0, 0, NULL), -EINVAL);
	/* An unsignalled point keeps the chain (and QUERY stays exact). */
	{
		struct dma_fence *a = new_fence(), *b = new_fence();

		add_point(&file, h, a, 5001);
		add_point(&file, h, b, 5002);
		dma_fence_signal(b);
		EXPECT_EQ(query(&file, h, 0), 5000);
		dma_fence_signal(a);
		EXPECT_EQ(query(&file, h, 0), 5002);
		dma_fence_put(a);
		dma_fence_put(b);
	}
	drm_file_fini(&file);
	EXPECT_EQ(dma_fence_live_count(), base);
}
