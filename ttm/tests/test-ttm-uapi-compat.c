// SPDX-License-Identifier: MIT
/*
 * A client written against the 2008 libdrm TTM API: it includes only the
 * compatibility xf86drm.h (no TTM header; as with 2008 libdrm, xf86drm.h
 * brings xf86mm.h's drmBO and drmFence along) and drives the device
 * the way a 2008 DRI driver did: drmOpen, drmMMInit, drmBOCreate, drmBOMap,
 * drmBOSetStatus, drmFenceBuffers, drmFenceWait, sharing a buffer with a
 * second client by its handle. The device itself comes from the test's mock
 * driver, reached through three opaque calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "ktest.h"

struct ttm_drm_device;
struct ttm_drm_device *mock_uapi_start(const char *name);
int mock_uapi_stop(struct ttm_drm_device *ddev);
unsigned long mock_uapi_bo_count(struct ttm_drm_device *ddev);

#define BO_SIZE (64ul * 1024)

static void fill(unsigned char *p, unsigned long n, unsigned seed)
{
	for (unsigned long i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static int check(const unsigned char *p, unsigned long n, unsigned seed)
{
	for (unsigned long i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 31 + seed))
			return 0;
	return 1;
}

KTEST(drm2008_client_create_map_validate_fence_share)
{
	struct ttm_drm_device *dev = mock_uapi_start("compat-2008");
	unsigned major, minor, patch;
	drmBO bo, shared;
	drmFence fence;
	uint64_t tt_pages = 0;
	void *virt;
	int fd, fd2, busy, signaled;

	ASSERT_NOT_NULL(dev);
	fd = drmOpen("compat-2008", NULL);
	fd2 = drmOpen("compat-2008", NULL);
	ASSERT_GE(fd, 0);
	ASSERT_GE(fd2, 0);
	EXPECT_NE(fd, fd2);

	ASSERT_EQ(drmBOVersion(fd, &major, &minor, &patch), 0);
	EXPECT_EQ(major, DRM_BO_INIT_MAJOR);
	EXPECT_EQ(minor, DRM_BO_INIT_MINOR);

	/* The X server's part: the apertures. */
	ASSERT_EQ(drmMMInit(fd, 0, 512, DRM_BO_MEM_TT), 0);
	ASSERT_EQ(drmMMInit(fd, 0, 256, DRM_BO_MEM_VRAM), 0);
	ASSERT_EQ(drmMMInfo(fd, DRM_BO_MEM_TT, &tt_pages), 0);
	EXPECT_EQ(tt_pages, 512);

	/* A shareable VRAM buffer the client fills through a CPU mapping. */
	ASSERT_EQ(drmBOCreate(fd, BO_SIZE, 0, NULL,
			      DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE | DRM_BO_FLAG_SHAREABLE |
				  DRM_BO_FLAG_MEM_VRAM,
			      DRM_BO_HINT_DONT_FENCE, &bo),
		  0);
	EXPECT_NE(bo.handle, 0);
	EXPECT_EQ(bo.size, BO_SIZE);
	EXPECT_TRUE(bo.flags & DRM_BO_FLAG_MEM_VRAM);
	ASSERT_EQ(drmBOMap(fd, &bo, DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE, 0, &virt), 0);
	ASSERT_NOT_NULL(virt);
	EXPECT_EQ(bo.mapCount, 1);
	fill(virt, BO_SIZE, 7);
	/* Mapped, it still moves: the mapping shows the same bytes afterwards. */
	ASSERT_EQ(drmBOSetStatus(fd, &bo, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, 0, 0), 0);
	EXPECT_TRUE(bo.flags & DRM_BO_FLAG_MEM_TT);
	EXPECT_TRUE(check(virt, BO_SIZE, 7));
	ASSERT_EQ(drmBOSetStatus(fd, &bo, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM, 0, 0, 0), 0);
	EXPECT_TRUE(check(virt, BO_SIZE, 7));
	ASSERT_EQ(drmBOUnmap(fd, &bo), 0);
	EXPECT_EQ(bo.mapCount, 0);

	/* Validate to TT and back: the content travels with it. */
	ASSERT_EQ(drmBOSetStatus(fd, &bo, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, 0, 0), 0);
	EXPECT_TRUE(bo.flags & DRM_BO_FLAG_MEM_TT);
	EXPECT_FALSE(bo.flags & DRM_BO_FLAG_MEM_VRAM);
	ASSERT_EQ(drmBOMap(fd, &bo, DRM_BO_FLAG_READ, 0, &virt), 0);
	EXPECT_TRUE(check(virt, BO_SIZE, 7));
	ASSERT_EQ(drmBOUnmap(fd, &bo), 0);
	ASSERT_EQ(drmBOSetStatus(fd, &bo, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM, 0, 0, 0), 0);
	EXPECT_TRUE(bo.flags & DRM_BO_FLAG_MEM_VRAM);

	/* The batch went to the GPU: fence what was validated. */
	ASSERT_EQ(drmFenceBuffers(fd, DRM_FENCE_FLAG_SHAREABLE, 0, &fence), 0);
	EXPECT_NE(fence.handle, 0);
	EXPECT_TRUE(fence.type & DRM_FENCE_TYPE_EXE);
	ASSERT_EQ(drmBOBusy(fd, &bo, &busy), 0);
	EXPECT_EQ(busy, 1);
	ASSERT_EQ(drmFenceSignaled(fd, &fence, DRM_FENCE_TYPE_EXE, &signaled), 0);
	EXPECT_EQ(signaled, 0);
	ASSERT_EQ(drmFenceWait(fd, 0, &fence, 0), 0);
	ASSERT_EQ(drmFenceSignaled(fd, &fence, DRM_FENCE_TYPE_EXE, &signaled), 0);
	EXPECT_EQ(signaled, 1);
	ASSERT_EQ(drmBOWaitIdle(fd, &bo, 0), 0);
	ASSERT_EQ(drmBOBusy(fd, &bo, &busy), 0);
	EXPECT_EQ(busy, 0);

	/* The second client shares the buffer and the fence by handle. */
	ASSERT_EQ(drmBOReference(fd2, bo.handle, &shared), 0);
	EXPECT_EQ(shared.handle, bo.handle);
	EXPECT_EQ(shared.size, bo.size);
	ASSERT_EQ(drmBOMap(fd2, &shared, DRM_BO_FLAG_READ, 0, &virt), 0);
	EXPECT_TRUE(check(virt, BO_SIZE, 7));
	ASSERT_EQ(drmBOUnmap(fd2, &shared), 0);
	{
		drmFence f2;

		ASSERT_EQ(drmFenceReference(fd2, fence.handle, &f2), 0);
		EXPECT_EQ(f2.sequence, fence.sequence);
		EXPECT_EQ(drmFenceUnreference(fd2, &f2), 0);
	}
	EXPECT_EQ(drmFenceUnreference(fd, &fence), 0);

	/* The creator lets go; the sharer still holds it. */
	ASSERT_EQ(drmBOUnreference(fd, &bo), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 1);
	ASSERT_EQ(drmBOInfo(fd2, &shared), 0);
	ASSERT_EQ(drmBOUnreference(fd2, &shared), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);

	EXPECT_EQ(drmMMTakedown(fd, DRM_BO_MEM_VRAM), 0);
	EXPECT_EQ(drmMMTakedown(fd, DRM_BO_MEM_TT), 0);
	EXPECT_EQ(drmClose(fd2), 0);
	EXPECT_EQ(drmClose(fd), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(drm2008_client_lock_evicts_and_unlock)
{
	struct ttm_drm_device *dev = mock_uapi_start("compat-lock");
	drmBO a, b;
	int fd;

	ASSERT_NOT_NULL(dev);
	fd = drmOpen("compat-lock", NULL);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(drmMMInit(fd, 16, 64, DRM_BO_MEM_TT), 0);
	ASSERT_EQ(drmBOCreate(fd, 8192, 0, NULL,
			      DRM_BO_FLAG_READ | DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_MEM_LOCAL, 0, &a),
		  0);
	EXPECT_TRUE(a.flags & DRM_BO_FLAG_MEM_TT);
	EXPECT_GE(a.offset, 16ul * 4096);
	ASSERT_EQ(drmBOCreate(fd, 4096, 0, NULL, DRM_BO_FLAG_NO_EVICT | DRM_BO_FLAG_MEM_TT, 0, &b),
		  0);
	/* NO_EVICT stays, so the VT switch fails unless it ignores NO_EVICT. */
	EXPECT_EQ(drmMMLock(fd, DRM_BO_MEM_TT, 1, 0), -EBUSY);
	ASSERT_EQ(drmMMLock(fd, DRM_BO_MEM_TT, 1, 1), 0);
	ASSERT_EQ(drmBOInfo(fd, &a), 0);
	EXPECT_TRUE(a.flags & DRM_BO_FLAG_MEM_LOCAL);
	ASSERT_EQ(drmBOInfo(fd, &b), 0);
	EXPECT_TRUE(b.flags & DRM_BO_FLAG_MEM_LOCAL);
	/* While locked, TT is no place for new buffers. */
	{
		drmBO c;

		EXPECT_EQ(drmBOCreate(fd, 4096, 0, NULL, DRM_BO_FLAG_MEM_TT, 0, &c), -EBUSY);
	}
	ASSERT_EQ(drmMMUnlock(fd, DRM_BO_MEM_TT, 1), 0);
	EXPECT_EQ(drmMMUnlock(fd, DRM_BO_MEM_TT, 1), -EINVAL);
	ASSERT_EQ(drmBOSetStatus(fd, &a, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, 0, 0), 0);
	EXPECT_TRUE(a.flags & DRM_BO_FLAG_MEM_TT);
	EXPECT_EQ(drmBOUnreference(fd, &a), 0);
	EXPECT_EQ(drmBOUnreference(fd, &b), 0);
	EXPECT_EQ(drmClose(fd), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(drm2008_client_close_of_descriptor_is_harmless)
{
	struct ttm_drm_device *dev = mock_uapi_start("compat-close");
	drmBO bo;
	int fd, other;

	ASSERT_NOT_NULL(dev);
	fd = drmOpen("compat-close", NULL);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(drmBOCreate(fd, 4096, 0, NULL, DRM_BO_FLAG_MEM_LOCAL, 0, &bo), 0);
	/* A 2008 client may close() what drmOpen gave it. */
	EXPECT_EQ(close(fd), 0);
	other = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(other, 0);
	/* The device file is still open, and drmClose leaves the new descriptor alone. */
	EXPECT_EQ(drmBOInfo(fd, &bo), 0);
	EXPECT_EQ(drmClose(fd), 0);
	EXPECT_GE(fcntl(other, F_GETFD), 0);
	close(other);
	EXPECT_EQ(drmClose(fd), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(drmOpen("no-such-device", NULL), -1);
	EXPECT_EQ(errno, ENODEV);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}
