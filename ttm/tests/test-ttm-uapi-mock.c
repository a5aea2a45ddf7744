// SPDX-License-Identifier: MIT
/*
 * The mock driver behind the uAPI tests: two fence classes whose fences
 * signal on FENCE_FLUSH (or when a test calls mock_uapi_signal_all()), a
 * driver fence type "RW" for buffers with READ/WRITE access, evictions
 * VRAM -> TT -> LOCAL, and a VRAM arena of MOCK_VRAM_PAGES of which the
 * CPU reaches only the first MOCK_VRAM_VISIBLE_PAGES (io_mem_reserve, and
 * the cpu_visible_pages hook saying so), as a discrete part's small BAR:
 * a buffer above the window is mapped by moving it at its first fault.
 * Moves run the core's memcpy with the whole arena addressable, standing
 * for the part's copy engine, which reaches all of VRAM. Its entry points
 * are plain functions so the 2008-style client test can use it without
 * any TTM header.
 *
 * It is not the stress programs' uAPI mock (stress/lib/ttm_uapi_mock.c) on
 * purpose: that one signals each fence as it is emitted and has no VRAM,
 * so nothing there can wait or fault through a window, which is what these
 * tests are about. The ioctl wrappers both sides use are one set, in
 * ttm_uapi_helpers.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

#include <testlib/fence_queue.h>

#include "test-ttm-uapi-mock.h"

#define MOCK_FENCE_TYPE_RW 0x2u

/*
 * Set while this thread runs a move: the copy engine reaches every page of
 * the arena, the CPU only the visible window.
 */
static _Thread_local bool mock_in_copy_engine;

struct mock_uapi {
	struct ttm_drm_device ddev;
	struct testlib_fence_queue fences;
	char *vram;
};

static struct mock_uapi *to_mock(struct ttm_drm_device *ddev)
{
	return container_of(ddev, struct mock_uapi, ddev);
}

static const char *mock_fence_driver_name(struct dma_fence *f)
{
	return "mock-uapi";
}

static const char *mock_fence_timeline_name(struct dma_fence *f)
{
	return "mock-ring";
}

static const struct dma_fence_ops mock_fence_ops = {
    .get_driver_name = mock_fence_driver_name,
    .get_timeline_name = mock_fence_timeline_name,
};

static struct dma_fence *mock_fence_emit(struct ttm_drm_device *ddev, uint32_t fence_class,
					 uint32_t type, uint32_t *sequence)
{
	return testlib_fence_queue_emit(&to_mock(ddev)->fences, fence_class, sequence);
}

static void mock_fence_flush(struct ttm_drm_device *ddev, uint32_t fence_class, uint32_t type)
{
	testlib_fence_queue_signal(&to_mock(ddev)->fences, fence_class);
}

static uint32_t mock_fence_type(struct ttm_drm_device *ddev, uint64_t access)
{
	return DRM_FENCE_TYPE_EXE |
	       (access & (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE) ? MOCK_FENCE_TYPE_RW : 0);
}

static const struct ttm_place mock_place_tt = {.mem_type = TTM_PL_TT};
static const struct ttm_place mock_place_sys = {.mem_type = TTM_PL_SYSTEM};

static void mock_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	struct ttm_drm_device *ddev = to_ttm_drm_device(bo->bdev);
	unsigned from = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;

	placement->num_placement = 1;
	/* mem[] is stable here: evictions run under the uAPI's mm_lock or validate. */
	if (from != TTM_PL_TT && from != TTM_PL_SYSTEM && ddev->mem[TTM_PL_TT].rman &&
	    !ddev->mem[TTM_PL_TT].locked)
		placement->placement = &mock_place_tt;
	else
		placement->placement = &mock_place_sys;
}

static int mock_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct mock_uapi *m = to_mock(to_ttm_drm_device(bdev));
	uint64_t pages = res->size >> TTM_PAGE_SHIFT;
	uint64_t reach = mock_in_copy_engine ? MOCK_VRAM_PAGES : MOCK_VRAM_VISIBLE_PAGES;

	if (res->mem_type != TTM_PL_VRAM || res->start + pages > reach)
		return -EINVAL;
	res->bus.addr = m->vram + (res->start << TTM_PAGE_SHIFT);
	res->bus.offset = res->start << TTM_PAGE_SHIFT;
	res->bus.is_iomem = true;
	return 0;
}

static int mock_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		     struct ttm_resource *new_mem, struct ttm_place *hop)
{
	int ret;

	mock_in_copy_engine = true;
	ret = ttm_bo_move_memcpy(bo, ctx, new_mem);
	mock_in_copy_engine = false;
	return ret;
}

static uint64_t mock_cpu_visible_pages(struct ttm_drm_device *ddev, uint32_t mem_type)
{
	return mem_type == TTM_PL_VRAM ? MOCK_VRAM_VISIBLE_PAGES : 0;
}

static const struct ttm_device_funcs mock_funcs = {
    .evict_flags = mock_evict_flags,
    .move = mock_move,
    .io_mem_reserve = mock_io_mem_reserve,
};

static const struct ttm_drm_driver mock_driver = {
    .num_fence_classes = 2,
    .fence_types = MOCK_FENCE_TYPE_RW,
    .fence_emit = mock_fence_emit,
    .fence_flush = mock_fence_flush,
    .fence_type = mock_fence_type,
    .cpu_visible_pages = mock_cpu_visible_pages,
};

struct ttm_drm_device *mock_uapi_start(const char *name)
{
	struct mock_uapi *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->vram = calloc(MOCK_VRAM_PAGES, TTM_PAGE_SIZE);
	if (!m->vram) {
		free(m);
		return NULL;
	}
	testlib_fence_queue_init(&m->fences, mock_driver.num_fence_classes, &mock_fence_ops);
	if (ttm_drm_device_init(&m->ddev, &mock_funcs, &mock_driver, name, false)) {
		testlib_fence_queue_fini(&m->fences);
		free(m->vram);
		free(m);
		return NULL;
	}
	return &m->ddev;
}

void mock_uapi_signal_all(struct ttm_drm_device *ddev)
{
	testlib_fence_queue_signal(&to_mock(ddev)->fences, UINT32_MAX);
}

unsigned long mock_uapi_pending(struct ttm_drm_device *ddev)
{
	return testlib_fence_queue_pending(&to_mock(ddev)->fences);
}

unsigned long mock_uapi_bo_count(struct ttm_drm_device *ddev)
{
	unsigned long n = 0;

	/*
	 * The delayed-destroy worker may be freeing a BO it already took off
	 * the list: give it up to a second to finish before counting it.
	 */
	for (int i = 0; i < 1000; i++) {
		struct timespec ts = {0, 1000000};

		ttm_device_flush_delayed(&ddev->bdev, true);
		n = (unsigned long)atomic_load(&ddev->bdev.stats.bo_count);
		if (!n)
			break;
		nanosleep(&ts, NULL);
	}
	return n;
}

int mock_uapi_stop(struct ttm_drm_device *ddev)
{
	struct mock_uapi *m = to_mock(ddev);
	int ret;

	mock_uapi_signal_all(ddev);
	ret = ttm_drm_device_fini(ddev);
	if (ret)
		return ret;
	testlib_fence_queue_fini(&m->fences);
	free(m->vram);
	free(m);
	return 0;
}
