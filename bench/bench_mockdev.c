// SPDX-License-Identifier: MIT
/* The benchmarks' stand-in driver; contract in bench_mockdev.h. */
#include "bench_mockdev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const struct ttm_place mock_tt_place = { .mem_type = TTM_PL_TT };
static const struct ttm_place mock_sys_place = { .mem_type = TTM_PL_SYSTEM };

static struct bench_mockdev *to_mockdev(struct ttm_device *bdev)
{
	return container_of(bdev, struct bench_mockdev, bdev);
}

static void mock_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	struct bench_mockdev *md = to_mockdev(bo->bdev);
	uint32_t from = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;

	placement->num_placement = 0;
	placement->placement = NULL;
	if (from == TTM_PL_VRAM && md->tt_pages) {
		placement->num_placement = 1;
		placement->placement = &mock_tt_place;
	} else if (from == TTM_PL_VRAM || from == TTM_PL_TT) {
		placement->num_placement = 1;
		placement->placement = &mock_sys_place;
	}
}

static int mock_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		     struct ttm_resource *new_mem, struct ttm_place *hop)
{
	(void)evict;
	(void)hop;
	return ttm_bo_move_memcpy(bo, ctx, new_mem);
}

static int mock_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct bench_mockdev *md = to_mockdev(bdev);

	if (res->mem_type == TTM_PL_SYSTEM || res->mem_type == TTM_PL_TT)
		return 0;
	if (res->mem_type != TTM_PL_VRAM || !md->vram_mem)
		return -EINVAL;
	/* Range-managed VRAM is one contiguous run per resource. */
	res->bus.addr = (char *)md->vram_mem + (res->start << TTM_PAGE_SHIFT);
	res->bus.offset = res->start << TTM_PAGE_SHIFT;
	res->bus.is_iomem = true;
	return 0;
}

static void mock_io_mem_free(struct ttm_device *bdev, struct ttm_resource *res)
{
	(void)bdev;
	res->bus.addr = NULL;
}

static const struct ttm_device_funcs mock_funcs = {
	.evict_flags = mock_evict_flags,
	.move = mock_move,
	.io_mem_reserve = mock_io_mem_reserve,
	.io_mem_free = mock_io_mem_free,
};

int bench_mockdev_init(struct bench_mockdev *md, uint64_t tt_pages, uint64_t vram_pages)
{
	int ret;

	memset(md, 0, sizeof(*md));
	md->tt_pages = tt_pages;
	md->vram_pages = vram_pages;
	ret = ttm_device_init(&md->bdev, &mock_funcs, false);
	if (ret)
		return ret;
	if (tt_pages) {
		ret = ttm_range_manager_init(&md->tt, true, tt_pages);
		if (ret)
			goto err_dev;
		ttm_set_driver_manager(&md->bdev, TTM_PL_TT, &md->tt.manager);
	}
	if (vram_pages) {
		md->vram_mem = mmap(NULL, vram_pages << TTM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (md->vram_mem == MAP_FAILED) {
			md->vram_mem = NULL;
			ret = -ENOMEM;
			goto err_tt;
		}
		ret = ttm_range_manager_init(&md->vram, false, vram_pages);
		if (ret)
			goto err_map;
		ttm_set_driver_manager(&md->bdev, TTM_PL_VRAM, &md->vram.manager);
	}
	return 0;

err_map:
	munmap(md->vram_mem, vram_pages << TTM_PAGE_SHIFT);
	md->vram_mem = NULL;
err_tt:
	if (tt_pages) {
		ttm_set_driver_manager(&md->bdev, TTM_PL_TT, NULL);
		ttm_range_manager_fini(&md->tt);
	}
err_dev:
	ttm_device_fini(&md->bdev);
	return ret;
}

int bench_mockdev_fini(struct bench_mockdev *md)
{
	int ret;

	ttm_device_flush_delayed(&md->bdev, true);
	if (atomic_load(&md->bdev.stats.bo_count))
		return -EBUSY;
	if (md->vram_pages) {
		ret = ttm_range_manager_fini(&md->vram);
		if (ret)
			return ret;
		ttm_set_driver_manager(&md->bdev, TTM_PL_VRAM, NULL);
		munmap(md->vram_mem, md->vram_pages << TTM_PAGE_SHIFT);
		md->vram_mem = NULL;
	}
	if (md->tt_pages) {
		ret = ttm_range_manager_fini(&md->tt);
		if (ret)
			return ret;
		ttm_set_driver_manager(&md->bdev, TTM_PL_TT, NULL);
	}
	return ttm_device_fini(&md->bdev);
}

static void mock_bo_destroy(struct ttm_buffer_object *bo)
{
	free(bo);
}

struct ttm_buffer_object *bench_mockdev_bo_create(struct bench_mockdev *md, uint64_t size,
						  const struct ttm_placement *placement)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return NULL;
	/* On failure the core has called @destroy already. */
	if (ttm_bo_init_validate(&md->bdev, bo, size, ttm_bo_type_device, placement, 0, &ctx,
				 NULL, mock_bo_destroy))
		return NULL;
	return bo;
}

struct ttm_placement *bench_mockdev_place(struct ttm_placement *placement,
					  struct ttm_place *place, uint32_t mem_type)
{
	*place = (struct ttm_place){ .mem_type = mem_type };
	placement->num_placement = 1;
	placement->placement = place;
	return placement;
}
