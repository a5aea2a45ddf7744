// SPDX-License-Identifier: MIT
/*
 * Fault-injection sweep over the drm layer: fail the n-th fallible step of
 * a workload that touches every object (syncobj handles and files,
 * sync_file export/import/merge, timeline points, dma-buf export and
 * prime entries), for n = 1, 2, ... until a run completes unfailed, and
 * check after every run that nothing leaked: fences, fd objects, BO
 * references.
 */
#include <drmcore/dma_buf.h>
#include <drmcore/drm_fd.h>
#include <drmcore/drm_faults.h>
#include <drmcore/drm_syncobj.h>
#include <drmcore/sync_file.h>
#include <ktest.h>

#include "ttm_test_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/sync_file.h>

static int workload(struct drm_file *file, struct ttm_buffer_object *bo)
{
	struct drm_syncobj_create c = {0};
	struct drm_syncobj_handle h = {0};
	struct drm_syncobj_timeline_array ta = {0};
	struct sync_merge_data merge = {.name = "m"};
	struct dma_fence *f = ttm_test_fence_create();
	struct drm_dma_buf *buf = NULL;
	struct sync_file_info info = {0};
	struct sync_fence_info fi;
	uint64_t point = 3;
	int ret, sfd = -1, dfd = -1;

	if (!f)
		return -ENOMEM;
	ret = drm_syncobj_create_ioctl(file, &c);
	if (ret)
		goto out;
	ta.handles = (uintptr_t)&c.handle;
	ta.points = (uintptr_t)&point;
	ta.count_handles = 1;
	ret = drm_syncobj_timeline_signal_ioctl(file, &ta);
	if (ret)
		goto out;
	ret = drm_sync_file_create(f, O_CLOEXEC, &sfd);
	if (ret)
		goto out;
	merge.fd2 = sfd;
	ret = drm_sync_file_ioctl(sfd, SYNC_IOC_MERGE, &merge);
	if (ret)
		goto out;
	drm_fd_close(merge.fence, NULL);
	h.handle = c.handle;
	h.fd = sfd;
	h.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
	ret = drm_syncobj_fd_to_handle_ioctl(file, &h);
	if (ret)
		goto out;
	h.flags = 0;
	ret = drm_syncobj_handle_to_fd_ioctl(file, &h);
	if (ret)
		goto out;
	ret = drm_syncobj_fd_to_handle_ioctl(file, &h);
	drm_fd_close(h.fd, NULL);
	if (ret)
		goto out;
	ret = drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &dfd, &buf);
	if (ret)
		goto out;
	drm_prime_lock(&file->prime);
	ret = drm_prime_add_buf_handle_locked(&file->prime, buf, 1);
	drm_prime_unlock(&file->prime);
	if (ret)
		goto out;
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fi;
	ret = drm_sync_file_ioctl(sfd, SYNC_IOC_FILE_INFO, &info);
out:
	if (dfd >= 0)
		drm_fd_close(dfd, NULL);
	if (sfd >= 0)
		drm_fd_close(sfd, NULL);
	dma_fence_signal(f);
	dma_fence_put(f);
	return ret;
}

KTEST(drm_fault_sweep_leaves_nothing_behind)
{
	struct testlib_mock_cfg cfg = {0};
	struct testlib_mock_device *tdev = calloc(1, sizeof(*tdev));
	struct ttm_buffer_object *bo;
	unsigned failures = 0, n;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(testlib_mock_device_init(tdev, &cfg), 0);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, 4096, TTM_PL_SYSTEM, &bo), 0);
	for (n = 1; n < 200; n++) {
		long fences = dma_fence_live_count();
		unsigned objs = drm_fd_live_count();
		struct drm_file file;
		int ret;

		drm_file_init(&file);
		fault_thread_fail_nth(NULL, n);
		ret = workload(&file, bo);
		fault_thread_fail_nth(NULL, 0);
		drm_file_fini(&file);
		drm_fd_gc();
		EXPECT_EQ(bo->refcount, 1);
		EXPECT_EQ(drm_fd_live_count(), objs);
		EXPECT_EQ(dma_fence_live_count(), fences);
		if (!ret)
			break;
		EXPECT_EQ(ret, -ENOMEM);
		failures++;
	}
	/* Every allocation step was failed once before a clean run. */
	EXPECT_GE(failures, 8);
	EXPECT_LT(n, 200);
	ttm_bo_put(bo);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

/*
 * A scan for dead descriptors that runs out of memory has not seen every
 * reference: it keeps every object, and a dma-buf another descriptor still
 * holds survives the close and the sweep.
 */
KTEST(drm_fd_scan_out_of_memory_keeps_live_objects)
{
	struct testlib_mock_cfg cfg = {0};
	struct testlib_mock_device *tdev = calloc(1, sizeof(*tdev));
	struct ttm_buffer_object *bo;
	struct drm_dma_buf *buf = NULL;
	unsigned objs;
	int dfd = -1, dup_fd;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(testlib_mock_device_init(tdev, &cfg), 0);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, 4096, TTM_PL_SYSTEM, &bo), 0);
	objs = drm_fd_live_count();
	ASSERT_EQ(drm_dma_buf_export(bo, NULL, NULL, O_CLOEXEC, &dfd, &buf), 0);
	dup_fd = dup(dfd);
	ASSERT_GE(dup_fd, 0);
	/* The first growth of each table fails, then every one. */
	for (unsigned long nth = 1; nth <= 3; nth++) {
		fault_thread_fail_nth(&drm_fault_fd_scan_alloc, nth);
		drm_fd_gc();
		fault_thread_fail_nth(NULL, 0);
		EXPECT_EQ(drm_fd_live_count(), objs + 1);
	}
	ASSERT_EQ(fault_configure("fd_scan_alloc:probability=100,times=-1", NULL, 0), 0);
	drm_fd_gc();
	EXPECT_EQ(drm_fd_live_count(), objs + 1);
	drm_fd_close(dfd, NULL);
	fault_reset(&drm_fault_fd_scan_alloc);
	EXPECT_EQ(drm_fd_live_count(), objs + 1);
	EXPECT_EQ(drm_fd_kind(dup_fd), DRM_FD_DMA_BUF);
	/* Memory back: the last descriptor's close releases it. */
	drm_fd_close(dup_fd, NULL);
	drm_fd_gc();
	EXPECT_EQ(drm_fd_live_count(), objs);
	EXPECT_EQ(bo->refcount, 1);
	ttm_bo_put(bo);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}
