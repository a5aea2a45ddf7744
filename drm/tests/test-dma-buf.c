// SPDX-License-Identifier: MIT
#include <drmcore/dma_buf.h>
#include <drmcore/drm_fd.h>
#include <drmcore/drm_faults.h>
#include <drmcore/drm_file.h>
#include <drmcore/sync_file.h>
#include <ktest.h>

#include "ttm_test_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#define BO_SIZE (16 * 4096)

static struct testlib_mock_device *dev_setup(struct ttm_buffer_object **bo)
{
	struct testlib_mock_cfg cfg = {0};
	struct testlib_mock_device *tdev = calloc(1, sizeof(*tdev));

	if (!tdev || testlib_mock_device_init(tdev, &cfg)) {
		free(tdev);
		return NULL;
	}
	if (ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_SYSTEM, bo)) {
		testlib_mock_device_fini(tdev);
		free(tdev);
		return NULL;
	}
	return tdev;
}

static void dev_teardown(struct testlib_mock_device *tdev, struct ttm_buffer_object *bo)
{
	ttm_bo_put(bo);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

static _Atomic int releases;

static void count_release(struct drm_dma_buf *buf)
{
	(void)buf;
	releases++;
}

static const struct drm_dma_buf_ops test_ops = {.release = count_release};

KTEST(dma_buf_export_import_round_trip)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	struct drm_dma_buf *buf, *got;
	struct stat s1, s2;
	int fd, fd2;
	int prio;

	ASSERT_NOT_NULL(tdev);
	prio = releases;
	ASSERT_EQ(drm_dma_buf_export(bo, &test_ops, &prio, O_CLOEXEC | O_RDWR, &fd, &buf), 0);
	EXPECT_EQ(drm_fd_kind(fd), DRM_FD_DMA_BUF);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ((fcntl(fd, F_GETFL) & O_ACCMODE), O_RDWR);
	/* The size is the buffer's, natively. */
	EXPECT_EQ(lseek(fd, 0, SEEK_END), BO_SIZE);
	EXPECT_TRUE(buf->bo == bo);
	EXPECT_TRUE(buf->priv == &prio);

	/* Export again: a new descriptor of the same dma-buf (same inode). */
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, 0, &fd2, &got), 0);
	EXPECT_TRUE(got == buf);
	EXPECT_EQ(fcntl(fd2, F_GETFL) & O_ACCMODE, O_RDONLY);
	fstat(fd, &s1);
	fstat(fd2, &s2);
	EXPECT_UEQ(s1.st_ino, s2.st_ino);
	EXPECT_UEQ(s1.st_dev, s2.st_dev);

	ASSERT_EQ(drm_dma_buf_get(fd2, &got), 0);
	EXPECT_TRUE(got == buf);
	drm_dma_buf_put(got);
	drm_fd_close(fd, NULL);
	drm_fd_close(fd2, NULL);
	EXPECT_EQ(releases, prio + 1);
	dev_teardown(tdev, bo);
}

KTEST(dma_buf_keeps_bo_until_last_descriptor_and_importer)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	struct drm_dma_buf *buf, *imp;
	unsigned live = drm_fd_live_count();
	int fd, fd2;

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(drm_dma_buf_export(bo, &test_ops, NULL, O_CLOEXEC, &fd, &buf), 0);
	EXPECT_EQ(bo->refcount, 2);
	fd2 = dup(fd);
	EXPECT_EQ(drm_fd_close(fd, NULL), 0);
	EXPECT_EQ(bo->refcount, 2);
	/* An importer's reference outlives the descriptors. */
	ASSERT_EQ(drm_dma_buf_get(fd2, &imp), 0);
	close(fd2);
	drm_fd_gc();
	EXPECT_EQ(bo->refcount, 2);
	EXPECT_EQ(drm_fd_live_count(), live + 1);
	/* Re-export while only imported: the same dma-buf, a new descriptor. */
	ASSERT_EQ(drm_dma_buf_fd(imp, O_CLOEXEC, &fd), 0);
	drm_dma_buf_put(imp);
	EXPECT_EQ(bo->refcount, 2);
	EXPECT_EQ(drm_fd_close(fd, NULL), 0);
	EXPECT_EQ(bo->refcount, 1);
	EXPECT_EQ(drm_fd_live_count(), live);
	dev_teardown(tdev, bo);
}

KTEST(dma_buf_mapping_keeps_it_alive)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	void *map;
	int fd;

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC | O_RDWR, &fd, NULL), 0);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	close(fd);
	drm_fd_gc();
	EXPECT_EQ(bo->refcount, 2);
	munmap(map, 4096);
	drm_fd_gc();
	EXPECT_EQ(bo->refcount, 1);
	dev_teardown(tdev, bo);
}

KTEST(dma_buf_get_errors)
{
	int p[2];
	struct drm_dma_buf *buf;

	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(drm_dma_buf_get(p[0], &buf), -EINVAL);
	EXPECT_EQ(drm_dma_buf_get(-1, &buf), -EBADF);
	close(p[0]);
	EXPECT_EQ(drm_dma_buf_get(p[0], &buf), -EBADF);
	close(p[1]);
	EXPECT_EQ(drm_dma_buf_export(NULL, NULL, NULL, 0, &p[0], NULL), -EINVAL);
	EXPECT_EQ(drm_dma_buf_poll(0, POLLIN, NULL), -ENOTTY);
	EXPECT_EQ(drm_dma_buf_ioctl(0, DMA_BUF_IOCTL_SYNC, NULL), -ENOTTY);
}

KTEST(dma_buf_poll_follows_implicit_fences)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	struct dma_fence *w, *r;
	short rev;
	int fd;

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &fd, NULL), 0);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLIN | POLLOUT, &rev), 0);
	EXPECT_EQ(rev, POLLIN | POLLOUT);
	r = ttm_test_bo_busy(bo, DMA_RESV_USAGE_READ);
	ASSERT_NOT_NULL(r);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLIN | POLLOUT, &rev), 0);
	EXPECT_EQ(rev, POLLIN);
	w = ttm_test_bo_busy(bo, DMA_RESV_USAGE_WRITE);
	ASSERT_NOT_NULL(w);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLIN | POLLOUT, &rev), 0);
	EXPECT_EQ(rev, 0);
	dma_fence_signal(w);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLIN | POLLOUT, &rev), 0);
	EXPECT_EQ(rev, POLLIN);
	dma_fence_signal(r);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLOUT, &rev), 0);
	EXPECT_EQ(rev, POLLOUT);
	dma_fence_put(w);
	dma_fence_put(r);
	drm_fd_close(fd, NULL);
	dev_teardown(tdev, bo);
}

KTEST(dma_buf_ioctls_sync_name_and_sync_files)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	struct dma_buf_sync sync = {0};
	struct dma_buf_export_sync_file ex = {0};
	struct dma_buf_import_sync_file im = {0};
	struct drm_dma_buf *buf;
	struct dma_fence *w, *f;
	short rev;
	int fd, sfd;

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &fd, &buf), 0);
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), -EINVAL);
	sync.flags = 1u << 5;
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), -EINVAL);
	sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), 0);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), 0);
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_SYNC, (void *)8), -EFAULT);

	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_SET_NAME_B, "scanout"), 0);
	EXPECT_STREQ(buf->name, "scanout");
	EXPECT_EQ(
	    drm_dma_buf_ioctl(fd, DMA_BUF_SET_NAME_B, "a name much longer than thirty-two bytes"),
	    -EINVAL);
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_SET_NAME_B, (void *)8), -EFAULT);

	/* Export the implicit write fence as a sync_file. */
	w = ttm_test_bo_busy(bo, DMA_RESV_USAGE_WRITE);
	ASSERT_NOT_NULL(w);
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex), -EINVAL);
	ex.flags = DMA_BUF_SYNC_READ;
	ASSERT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &ex), 0);
	f = drm_sync_file_get_fence(ex.fd);
	EXPECT_TRUE(f == w);
	dma_fence_put(f);
	dma_fence_signal(w);
	dma_fence_put(w);
	drm_fd_close(ex.fd, NULL);

	/* Import a sync_file as a write fence: readers must wait. */
	f = ttm_test_fence_create();
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(drm_sync_file_create(f, O_CLOEXEC, &sfd), 0);
	im.fd = sfd;
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im), -EINVAL);
	im.flags = DMA_BUF_SYNC_WRITE;
	ASSERT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im), 0);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLIN, &rev), 0);
	EXPECT_EQ(rev, 0);
	dma_fence_signal(f);
	ASSERT_EQ(drm_dma_buf_poll(fd, POLLIN, &rev), 0);
	EXPECT_EQ(rev, POLLIN);
	im.fd = -1;
	EXPECT_EQ(drm_dma_buf_ioctl(fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &im), -EINVAL);
	dma_fence_put(f);
	drm_fd_close(sfd, NULL);
	drm_fd_close(fd, NULL);
	dev_teardown(tdev, bo);
}

static int fake_mmap(struct drm_dma_buf *buf, void *hint, size_t len, int prot, int flags,
		     off_t offset, void **addr)
{
	(void)buf;
	(void)offset;
	*addr = mmap(hint, len, prot, (flags & ~MAP_SHARED) | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return *addr == MAP_FAILED ? -ENOMEM : 0;
}

static const struct drm_dma_buf_ops mmap_ops = {.mmap = fake_mmap};

KTEST(dma_buf_mmap_checks_access_and_range)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	void *addr;
	int fd, rw;

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(drm_dma_buf_export(bo, &mmap_ops, NULL, O_CLOEXEC, &fd, NULL), 0);
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC | O_RDWR, &rw, NULL), 0);
	EXPECT_EQ(drm_dma_buf_mmap(fd, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 0, &addr),
		  -EACCES);
	EXPECT_EQ(drm_dma_buf_mmap(rw, NULL, BO_SIZE + 4096, PROT_READ, MAP_SHARED, 0, &addr),
		  -EINVAL);
	EXPECT_EQ(drm_dma_buf_mmap(rw, NULL, 4096, PROT_READ, MAP_SHARED, BO_SIZE, &addr), -EINVAL);
	ASSERT_EQ(drm_dma_buf_mmap(rw, NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, 0, &addr),
		  0);
	munmap(addr, BO_SIZE);
	EXPECT_EQ(drm_dma_buf_mmap(1, NULL, 4096, PROT_READ, MAP_SHARED, 0, &addr), -ENOTTY);
	drm_fd_close(fd, NULL);
	drm_fd_close(rw, NULL);
	dev_teardown(tdev, bo);
}

KTEST(dma_buf_prime_table_maps_buffer_to_one_handle)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	struct drm_dma_buf *buf, *got;
	struct drm_file file;
	uint32_t h;
	int fd;

	ASSERT_NOT_NULL(tdev);
	drm_file_init(&file);
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &fd, NULL), 0);
	ASSERT_EQ(drm_dma_buf_get(fd, &buf), 0);
	drm_prime_lock(&file.prime);
	EXPECT_EQ(drm_prime_lookup_buf_handle_locked(&file.prime, buf, &h), -ENOENT);
	EXPECT_EQ(drm_prime_add_buf_handle_locked(&file.prime, buf, 5), 0);
	drm_prime_unlock(&file.prime);
	drm_dma_buf_put(buf);
	drm_fd_close(fd, NULL);
	/* The prime entry keeps the dma-buf (and the BO). */
	EXPECT_EQ(bo->refcount, 2);
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &fd, NULL), 0);
	ASSERT_EQ(drm_dma_buf_get(fd, &got), 0);
	EXPECT_TRUE(got == buf);
	drm_prime_lock(&file.prime);
	EXPECT_EQ(drm_prime_lookup_buf_handle_locked(&file.prime, got, &h), 0);
	EXPECT_EQ(h, 5);
	EXPECT_TRUE(drm_prime_lookup_handle_locked(&file.prime, 5) == got);
	drm_prime_unlock(&file.prime);
	drm_dma_buf_put(got);
	drm_fd_close(fd, NULL);
	drm_prime_remove_buf_handle(&file.prime, 5);
	EXPECT_EQ(bo->refcount, 1);
	drm_file_fini(&file);
	dev_teardown(tdev, bo);
}

KTEST(dma_buf_export_fails_cleanly_under_fault_injection)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev;
	unsigned live = drm_fd_live_count();
	int fd;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	tdev = dev_setup(&bo);
	ASSERT_NOT_NULL(tdev);
	fault_set_nth(&drm_fault_dma_buf_alloc, 1);
	EXPECT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &fd, NULL), -ENOMEM);
	fault_reset(&drm_fault_dma_buf_alloc);
	EXPECT_EQ(bo->refcount, 1);
	EXPECT_EQ(drm_fd_live_count(), live);
	dev_teardown(tdev, bo);
}

struct exporter {
	struct ttm_buffer_object *bo;
	struct drm_dma_buf *seen[50];
};

static void *export_close_loop(void *arg)
{
	struct exporter *e = arg;

	for (int i = 0; i < 50; i++) {
		int fd;

		if (drm_dma_buf_export(e->bo, NULL, NULL, O_CLOEXEC, &fd, &e->seen[i]))
			continue;
		drm_fd_close(fd, NULL);
	}
	return NULL;
}

KTEST(dma_buf_concurrent_export_and_close)
{
	struct ttm_buffer_object *bo;
	struct testlib_mock_device *tdev = dev_setup(&bo);
	struct exporter e[2];
	pthread_t t[2];

	ASSERT_NOT_NULL(tdev);
	for (int i = 0; i < 2; i++) {
		e[i].bo = bo;
		pthread_create(&t[i], NULL, export_close_loop, &e[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	drm_fd_gc();
	EXPECT_EQ(bo->refcount, 1);
	dev_teardown(tdev, bo);
}
