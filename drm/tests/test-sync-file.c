// SPDX-License-Identifier: MIT
#include <drmcore/sync_file.h>
#include <drmcore/drm_fd.h>
#include <drmcore/drm_faults.h>
#include <drmcore/dma_fence_array.h>
#include <ktest.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sync_file.h>

static const char *tname(struct dma_fence *f)
{
	(void)f;
	return "test";
}

static const struct dma_fence_ops test_ops = {.get_driver_name = tname, .get_timeline_name = tname};

static struct dma_fence *fence_on(uint64_t ctx, uint64_t seqno)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	dma_fence_init(f, &test_ops, ctx, seqno);
	return f;
}

static struct dma_fence *new_fence(void)
{
	return fence_on(dma_fence_context_alloc(1), 1);
}

static short poll_now(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

KTEST(sync_file_polls_readable_only_after_signal)
{
	struct dma_fence *f = new_fence();
	unsigned live = drm_fd_live_count();
	int fd;

	ASSERT_EQ(drm_sync_file_create(f, O_CLOEXEC, &fd), 0);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(drm_fd_kind(fd), DRM_FD_SYNC_FILE);
	EXPECT_EQ(poll_now(fd), 0);
	dma_fence_signal(f);
	EXPECT_EQ(poll_now(fd), POLLIN);
	/* Still readable on the next poll: nothing consumed the state. */
	EXPECT_EQ(poll_now(fd), POLLIN);
	EXPECT_EQ(drm_fd_close(fd, NULL), 0);
	EXPECT_EQ(drm_fd_live_count(), live);
	dma_fence_put(f);
}

KTEST(sync_file_of_signalled_fence_is_readable_at_once)
{
	struct dma_fence *f = dma_fence_get_stub();
	int fd;

	ASSERT_EQ(drm_sync_file_create(f, 0, &fd), 0);
	EXPECT_FALSE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(poll_now(fd), POLLIN);
	drm_fd_close(fd, NULL);
	dma_fence_put(f);
}

static void *signal_later(void *arg)
{
	usleep(20000);
	dma_fence_signal(arg);
	return NULL;
}

KTEST(sync_file_blocking_poll_and_epoll_wake_on_signal)
{
	struct dma_fence *f = new_fence();
	struct pollfd p;
	struct epoll_event ev = {.events = EPOLLIN}, out;
	pthread_t t;
	int fd, ep;

	ASSERT_EQ(drm_sync_file_create(f, O_CLOEXEC, &fd), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_GE(ep, 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	pthread_create(&t, NULL, signal_later, f);
	p.fd = fd;
	p.events = POLLIN;
	EXPECT_EQ(poll(&p, 1, 10000), 1);
	EXPECT_EQ(p.revents, POLLIN);
	EXPECT_EQ(epoll_wait(ep, &out, 1, 10000), 1);
	pthread_join(t, NULL);
	EXPECT_TRUE(dma_fence_is_signaled(f));
	close(ep);
	drm_fd_close(fd, NULL);
	dma_fence_put(f);
}

KTEST(sync_file_dup_resolves_and_keeps_fence_until_last_close)
{
	struct dma_fence *f = new_fence(), *g;
	unsigned live = drm_fd_live_count();
	int fd, fd2;

	ASSERT_EQ(drm_sync_file_create(f, O_CLOEXEC, &fd), 0);
	fd2 = dup(fd);
	ASSERT_GE(fd2, 0);
	g = drm_sync_file_get_fence(fd2);
	EXPECT_TRUE(g == f);
	dma_fence_put(g);
	EXPECT_EQ(drm_fd_close(fd, NULL), 0);
	/* One descriptor left: the sync_file stays. */
	EXPECT_EQ(drm_fd_live_count(), live + 1);
	g = drm_sync_file_get_fence(fd2);
	EXPECT_TRUE(g == f);
	dma_fence_put(g);
	/* Closed behind our back: the sweep finds it. */
	close(fd2);
	drm_fd_gc();
	EXPECT_EQ(drm_fd_live_count(), live);
	dma_fence_put(f);
}

KTEST(sync_file_fork_inherited_descriptor_keeps_it_alive)
{
	struct dma_fence *f = new_fence();
	unsigned live = drm_fd_live_count();
	int fd, go[2], status;
	pid_t pid;

	ASSERT_EQ(drm_sync_file_create(f, 0, &fd), 0);
	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char c;

		close(go[1]);
		/* Holds the inherited sync_file descriptor until told to go. */
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);
	close(fd);
	drm_fd_gc();
	EXPECT_EQ(drm_fd_live_count(), live + 1);
	close(go[1]);
	waitpid(pid, &status, 0);
	drm_fd_gc();
	EXPECT_EQ(drm_fd_live_count(), live);
	dma_fence_put(f);
}

KTEST(sync_file_get_fence_rejects_other_descriptors)
{
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	EXPECT_NULL(drm_sync_file_get_fence(p[0]));
	EXPECT_NULL(drm_sync_file_get_fence(-1));
	EXPECT_NULL(drm_sync_file_get_fence(9999));
	EXPECT_EQ(drm_sync_file_ioctl(p[0], SYNC_IOC_FILE_INFO, NULL), -ENOTTY);
	EXPECT_EQ(drm_fd_kind(p[0]), DRM_FD_NONE);
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(drm_sync_file_create(NULL, 0, &p[0]), -EINVAL);
}

KTEST(sync_file_merge_waits_for_both_and_reports_info)
{
	struct dma_fence *a = new_fence(), *b = new_fence(), *m;
	struct sync_merge_data data = {.name = "merged"};
	struct sync_fence_info fi[2];
	struct sync_file_info info = {0};
	int fa, fb;

	ASSERT_EQ(drm_sync_file_create(a, O_CLOEXEC, &fa), 0);
	ASSERT_EQ(drm_sync_file_create(b, O_CLOEXEC, &fb), 0);
	data.fd2 = fb;
	ASSERT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_MERGE, &data), 0);
	EXPECT_EQ(poll_now(data.fence), 0);

	/* Count first (num_fences = 0), then fetch. */
	ASSERT_EQ(drm_sync_file_ioctl(data.fence, SYNC_IOC_FILE_INFO, &info), 0);
	EXPECT_EQ(info.num_fences, 2);
	EXPECT_EQ(info.status, 0);
	EXPECT_STREQ(info.name, "merged");
	info.sync_fence_info = (uintptr_t)fi;
	ASSERT_EQ(drm_sync_file_ioctl(data.fence, SYNC_IOC_FILE_INFO, &info), 0);
	EXPECT_STREQ(fi[0].driver_name, "test");

	dma_fence_signal(a);
	EXPECT_EQ(poll_now(data.fence), 0);
	dma_fence_signal(b);
	m = drm_sync_file_get_fence(data.fence);
	ASSERT_NOT_NULL(m);
	EXPECT_TRUE(dma_fence_wait_timeout(m, false, 1000000000ll) > 0);
	dma_fence_put(m);
	EXPECT_EQ(poll_now(data.fence), POLLIN);
	info.num_fences = 0;
	ASSERT_EQ(drm_sync_file_ioctl(data.fence, SYNC_IOC_FILE_INFO, &info), 0);
	EXPECT_EQ(info.status, 1);

	drm_fd_close(data.fence, NULL);
	drm_fd_close(fa, NULL);
	drm_fd_close(fb, NULL);
	dma_fence_put(a);
	dma_fence_put(b);
}

KTEST(sync_file_ioctl_errors_match_the_kernel)
{
	struct dma_fence *a = new_fence(), *b = new_fence();
	struct sync_merge_data data = {0};
	struct sync_file_info info = {0};
	struct sync_fence_info fi[1];
	int fa, fb, p[2];

	ASSERT_EQ(drm_sync_file_create(a, O_CLOEXEC, &fa), 0);
	ASSERT_EQ(drm_sync_file_create(b, O_CLOEXEC, &fb), 0);
	ASSERT_EQ(pipe(p), 0);
	data.fd2 = p[0];
	EXPECT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_MERGE, &data), -ENOENT);
	data.fd2 = fb;
	data.flags = 1;
	EXPECT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_MERGE, &data), -EINVAL);
	data.flags = 0;
	data.pad = 1;
	EXPECT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_MERGE, &data), -EINVAL);
	EXPECT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_MERGE, (void *)8), -EFAULT);
	EXPECT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_FILE_INFO, (void *)8), -EFAULT);
	info.flags = 1;
	EXPECT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_FILE_INFO, &info), -EINVAL);
	info.flags = 0;
	/* Merge of two fences reports 2: asking for room for 1 is -EINVAL. */
	data.pad = 0;
	ASSERT_EQ(drm_sync_file_ioctl(fa, SYNC_IOC_MERGE, &data), 0);
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)fi;
	EXPECT_EQ(drm_sync_file_ioctl(data.fence, SYNC_IOC_FILE_INFO, &info), -EINVAL);
	info.num_fences = 2;
	info.sync_fence_info = 8;
	EXPECT_EQ(drm_sync_file_ioctl(data.fence, SYNC_IOC_FILE_INFO, &info), -EFAULT);
	EXPECT_EQ(drm_sync_file_ioctl(fa, _IO('>', 9), NULL), -ENOTTY);
	drm_fd_close(data.fence, NULL);
	close(p[0]);
	close(p[1]);
	drm_fd_close(fa, NULL);
	drm_fd_close(fb, NULL);
	dma_fence_signal(a);
	dma_fence_signal(b);
	dma_fence_put(a);
	dma_fence_put(b);
}

KTEST(sync_file_merge_keeps_later_point_of_one_context)
{
	uint64_t ctx = dma_fence_context_alloc(1);
	struct dma_fence *f1 = fence_on(ctx, 1), *f2 = fence_on(ctx, 2), *pair[2] = {f1, f2}, *m;

	m = dma_fence_unwrap_merge(pair, 2);
	EXPECT_TRUE(m == f2);
	dma_fence_put(m);
	dma_fence_signal(f1);
	dma_fence_signal(f2);
	/* Everything signalled: a signalled stub. */
	m = dma_fence_unwrap_merge(pair, 2);
	ASSERT_NOT_NULL(m);
	EXPECT_TRUE(dma_fence_is_signaled(m));
	dma_fence_put(m);
	dma_fence_put(f1);
	dma_fence_put(f2);
}

KTEST(sync_file_create_fails_cleanly_under_fault_injection)
{
	struct dma_fence *f = new_fence();
	long fences = dma_fence_live_count();
	unsigned live = drm_fd_live_count();
	int fd;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	fault_set_nth(&drm_fault_sync_file_alloc, 1);
	EXPECT_EQ(drm_sync_file_create(f, O_CLOEXEC, &fd), -ENOMEM);
	fault_reset(&drm_fault_sync_file_alloc);
	EXPECT_EQ(drm_fd_live_count(), live);
	EXPECT_EQ(dma_fence_live_count(), fences);
	dma_fence_signal(f);
	dma_fence_put(f);
}

struct storm {
	struct dma_fence *f[64];
	int fd[64];
};

static void *storm_signal(void *arg)
{
	struct storm *s = arg;

	for (int i = 0; i < 64; i++)
		dma_fence_signal(s->f[i]);
	return NULL;
}

KTEST(sync_file_concurrent_signal_and_close)
{
	unsigned live = drm_fd_live_count();
	struct storm s;
	pthread_t t;

	for (int i = 0; i < 64; i++) {
		s.f[i] = new_fence();
		ASSERT_EQ(drm_sync_file_create(s.f[i], O_CLOEXEC, &s.fd[i]), 0);
	}
	pthread_create(&t, NULL, storm_signal, &s);
	/* Closing races with the callbacks writing into the pipes. */
	for (int i = 0; i < 64; i++)
		drm_fd_close(s.fd[i], NULL);
	pthread_join(t, NULL);
	EXPECT_EQ(drm_fd_live_count(), live);
	for (int i = 0; i < 64; i++)
		dma_fence_put(s.f[i]);
}

KTEST(sync_file_lazy_sweep_reclaims_closed_files)
{
	struct dma_fence *f = new_fence();
	unsigned live = drm_fd_live_count();
	int fd;

	/* Closed behind the library's back, 200 times: the reaper catches up. */
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(drm_sync_file_create(f, O_CLOEXEC, &fd), 0);
		close(fd);
	}
	for (int i = 0; i < 500 && drm_fd_live_count() > live + 64; i++)
		usleep(10000);
	EXPECT_LE(drm_fd_live_count(), live + 64);
	drm_fd_gc();
	EXPECT_EQ(drm_fd_live_count(), live);
	dma_fence_signal(f);
	dma_fence_put(f);
}
