// SPDX-License-Identifier: MIT
/*
 * bench_coredev - see bench_coredev.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_coredev.h"

static void bench_coredev_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	static const struct ttm_place sys = {.mem_type = TTM_PL_SYSTEM};

	(void)bo;
	placement->num_placement = 1;
	placement->placement = &sys;
}

/* VRAM is I/O memory at its offset in the host buffer; SYSTEM needs nothing. */
static int bench_coredev_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct bench_coredev *d = container_of(bdev, struct bench_coredev, bdev);

	if (res->mem_type != TTM_PL_VRAM)
		return res->mem_type == TTM_PL_SYSTEM ? 0 : -EINVAL;
	res->bus.addr = (char *)d->vram_mem + (res->start << TTM_PAGE_SHIFT);
	res->bus.is_iomem = true;
	return 0;
}

static const struct ttm_device_funcs bench_coredev_funcs = {
    .evict_flags = bench_coredev_evict_flags,
    .io_mem_reserve = bench_coredev_io_mem_reserve,
};

int bench_coredev_init(struct bench_coredev *d, uint64_t vram_pages)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->vram_pages = vram_pages;
	d->vram_mem = mmap(NULL, vram_pages << TTM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->vram_mem == MAP_FAILED) {
		d->vram_mem = NULL;
		return -ENOMEM;
	}
	ret = ttm_device_init(&d->bdev, &bench_coredev_funcs, false);
	if (ret)
		goto err_map;
	ret = ttm_range_manager_init(&d->vram, false, vram_pages);
	if (ret)
		goto err_dev;
	ret = ttm_set_driver_manager(&d->bdev, TTM_PL_VRAM, &d->vram.manager);
	if (ret)
		goto err_man;
	return 0;

err_man:
	ttm_range_manager_fini(&d->vram);
err_dev:
	ttm_device_fini(&d->bdev);
err_map:
	munmap(d->vram_mem, vram_pages << TTM_PAGE_SHIFT);
	d->vram_mem = NULL;
	return ret;
}

void bench_coredev_fini(struct bench_coredev *d)
{
	ttm_device_flush_delayed(&d->bdev, true);
	ttm_set_driver_manager(&d->bdev, TTM_PL_VRAM, NULL);
	ttm_range_manager_fini(&d->vram);
	ttm_device_fini(&d->bdev);
	munmap(d->vram_mem, d->vram_pages << TTM_PAGE_SHIFT);
	d->vram_mem = NULL;
}

static void bench_coredev_bo_destroy(struct ttm_buffer_object *bo)
{
	free(bo);
}

int bench_coredev_bo_create(struct bench_coredev *d, uint64_t size,
			    const struct ttm_placement *placement, struct ttm_buffer_object **bo)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *b = calloc(1, sizeof(*b));
	int ret;

	*bo = NULL;
	if (!b)
		return -ENOMEM;
	/* On failure ttm_bo_init_reserved() frees @b through the destroy callback. */
	ret = ttm_bo_init_reserved(&d->bdev, b, size, ttm_bo_type_device, placement, 0, &ctx, NULL,
				   bench_coredev_bo_destroy);
	if (ret)
		return ret;
	*bo = b;
	return 0;
}
