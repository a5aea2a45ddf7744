// SPDX-License-Identifier: MIT
#include <drmcore/sw_sync.h>
#include <drmcore/drm_fd.h>
#include <drmcore/sync_file.h>
#include <ktest.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <linux/sync_file.h>

static int create_fence(int tl, uint32_t value)
{
	struct sw_sync_create_fence_data d = {.value = value, .name = "pt"};

	if (drm_sw_sync_ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, &d))
		return -1;
	return d.fence;
}

static int inc(int tl, uint32_t n)
{
	return drm_sw_sync_ioctl(tl, SW_SYNC_IOC_INC, &n);
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

KTEST(sw_sync_fences_signal_as_the_timeline_advances)
{
	unsigned live = drm_fd_live_count();
	int tl, f1, f3, f3b;
	struct dma_fence *a, *b;

	ASSERT_EQ(drm_sw_sync_open(O_CLOEXEC, &tl), 0);
	EXPECT_EQ(drm_fd_kind(tl), DRM_FD_SW_SYNC);
	f1 = create_fence(tl, 1);
	f3 = create_fence(tl, 3);
	f3b = create_fence(tl, 3);
	ASSERT_GE(f1, 0);
	ASSERT_GE(f3, 0);
	ASSERT_GE(f3b, 0);
	/* One pending value, one fence. */
	a = drm_sync_file_get_fence(f3);
	b = drm_sync_file_get_fence(f3b);
	EXPECT_TRUE(a == b);
	EXPECT_TRUE(drm_sw_sync_is_fence(a));
	dma_fence_put(a);
	dma_fence_put(b);
	EXPECT_FALSE(readable(f1));
	EXPECT_EQ(inc(tl, 1), 0);
	EXPECT_TRUE(readable(f1));
	EXPECT_FALSE(readable(f3));
	EXPECT_EQ(inc(tl, 2), 0);
	EXPECT_TRUE(readable(f3));
	EXPECT_TRUE(readable(f3b));
	/* A value already reached: signalled at once. */
	drm_fd_close(f1, NULL);
	f1 = create_fence(tl, 2);
	EXPECT_TRUE(readable(f1));
	drm_fd_close(f1, NULL);
	drm_fd_close(f3, NULL);
	drm_fd_close(f3b, NULL);
	drm_fd_close(tl, NULL);
	EXPECT_EQ(drm_fd_live_count(), live);
}

KTEST(sw_sync_closing_the_timeline_fails_pending_fences)
{
	struct sync_file_info info = {0};
	struct sync_fence_info fi;
	int tl, f;

	ASSERT_EQ(drm_sw_sync_open(0, &tl), 0);
	f = create_fence(tl, 5);
	ASSERT_GE(f, 0);
	drm_fd_close(tl, NULL);
	EXPECT_TRUE(readable(f));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fi;
	ASSERT_EQ(drm_sync_file_ioctl(f, SYNC_IOC_FILE_INFO, &info), 0);
	EXPECT_EQ(fi.status, -ENOENT);
	EXPECT_STREQ(fi.driver_name, "sw_sync");
	drm_fd_close(f, NULL);
}

KTEST(sw_sync_ioctl_errors)
{
	int tl, p[2];

	ASSERT_EQ(drm_sw_sync_open(O_CLOEXEC, &tl), 0);
	EXPECT_EQ(drm_sw_sync_ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, (void *)8), -EFAULT);
	EXPECT_EQ(drm_sw_sync_ioctl(tl, SW_SYNC_IOC_INC, (void *)8), -EFAULT);
	EXPECT_EQ(drm_sw_sync_ioctl(tl, _IO('W', 7), NULL), -ENOTTY);
	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(drm_sw_sync_ioctl(p[0], SW_SYNC_IOC_INC, NULL), -ENOTTY);
	close(p[0]);
	close(p[1]);
	drm_fd_close(tl, NULL);
}

KTEST(sw_sync_value_wraps_like_the_kernel)
{
	int tl, f;

	ASSERT_EQ(drm_sw_sync_open(O_CLOEXEC, &tl), 0);
	EXPECT_EQ(inc(tl, 0xfffffff0u), 0);
	f = create_fence(tl, 0x10);
	ASSERT_GE(f, 0);
	EXPECT_FALSE(readable(f));
	EXPECT_EQ(inc(tl, 0x20), 0);
	EXPECT_TRUE(readable(f));
	drm_fd_close(f, NULL);
	drm_fd_close(tl, NULL);
}

struct incer {
	int tl;
};

static void *inc_loop(void *arg)
{
	struct incer *i = arg;

	for (int n = 0; n < 100; n++)
		inc(i->tl, 1);
	return NULL;
}

KTEST(sw_sync_concurrent_create_and_inc)
{
	struct incer i;
	pthread_t t;
	int fds[100];

	ASSERT_EQ(drm_sw_sync_open(O_CLOEXEC, &i.tl), 0);
	pthread_create(&t, NULL, inc_loop, &i);
	for (int n = 0; n < 100; n++)
		fds[n] = create_fence(i.tl, (uint32_t)n + 1);
	pthread_join(t, NULL);
	for (int n = 0; n < 100; n++) {
		EXPECT_TRUE(readable(fds[n]));
		drm_fd_close(fds[n], NULL);
	}
	drm_fd_close(i.tl, NULL);
}
