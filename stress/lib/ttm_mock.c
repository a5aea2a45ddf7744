// SPDX-License-Identifier: MIT
/*
 * ttm_mock.c - the stress programs' mock driver (see ttm_mock.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <testlib/prng.h>

#include "ttm_mock.h"

#define CHUNK_WORDS (TTM_PAGE_SIZE / sizeof(uint64_t))

static struct ttm_mock_device *to_mock(struct ttm_device *bdev)
{
	return container_of(bdev, struct ttm_mock_device, bdev);
}

uint64_t ttm_mock_pattern(uint64_t seed, uint64_t i)
{
	/* splitmix64's output function is bijective: distinct (seed, i) rarely collide. */
	return prng_mix64((seed - 1) * PRNG_GOLDEN + i + 1);
}

static bool mem_is_tt(struct ttm_device *bdev, uint32_t mem_type)
{
	struct ttm_resource_manager *man = ttm_manager_type(bdev, mem_type);

	return man && man->use_tt;
}

/* Compare @len bytes at byte @off of @mbo's pattern; returns the bad word or -1. */
static long check_words(const struct ttm_mock_bo *mbo, uint64_t off, const uint64_t *w,
			size_t words)
{
	for (size_t i = 0; i < words; i++)
		if (w[i] != ttm_mock_pattern(mbo->seed, off / sizeof(uint64_t) + i))
			return (long)i;
	return -1;
}

/*
 * Read the pattern straight from where the BO now lives, not through
 * ttm_bo_access(): inside the move callback the point is to catch a bad
 * copy before anything else touches the BO.
 */
static void verify_resident(struct ttm_mock_device *mdev, struct ttm_mock_bo *mbo)
{
	struct ttm_buffer_object *bo = &mbo->base;
	struct ttm_resource *res = bo->resource;
	uint64_t buf[CHUNK_WORDS];

	if (!res)
		return;
	for (uint64_t off = 0; off < bo->size; off += TTM_PAGE_SIZE) {
		size_t len = bo->size - off < TTM_PAGE_SIZE ? bo->size - off : TTM_PAGE_SIZE;
		const uint64_t *w;

		if (res->mem_type == TTM_PL_VRAM) {
			w = (const uint64_t *)(mdev->vram_mem + res->start * TTM_PAGE_SIZE + off);
		} else if (bo->ttm && ttm_tt_is_populated(bo->ttm)) {
			if (ttm_tt_copy_from(bo->ttm, off, buf, len))
				goto mismatch;
			w = buf;
		} else {
			return; /* swapped or never populated: nothing resident to read */
		}
		if (check_words(mbo, off, w, len / sizeof(uint64_t)) >= 0)
			goto mismatch;
	}
	atomic_fetch_add(&mdev->stats.moves_verified, 1);
	atomic_fetch_add(&mdev->stats.bytes_verified, bo->size);
	return;
mismatch:
	atomic_fetch_add(&mdev->stats.move_mismatches, 1);
}

static void mock_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	static const struct ttm_place to_tt[] = {
		{ .mem_type = TTM_PL_TT },
		{ .mem_type = TTM_PL_SYSTEM, .flags = TTM_PL_FLAG_FALLBACK },
	};
	static const struct ttm_place to_sys[] = {
		{ .mem_type = TTM_PL_SYSTEM },
	};

	if (bo->resource && bo->resource->mem_type == TTM_PL_VRAM &&
	    ttm_manager_type(bo->bdev, TTM_PL_TT)) {
		placement->placement = to_tt;
		placement->num_placement = 2;
	} else {
		placement->placement = to_sys;
		placement->num_placement = 1;
	}
}

static int mock_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		     struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_mock_device *mdev = to_mock(bo->bdev);
	struct ttm_resource *old = bo->resource;
	int ret;

	if ((!old || mem_is_tt(bo->bdev, old->mem_type)) && mem_is_tt(bo->bdev, new_mem->mem_type) &&
	    bo->ttm) {
		/* Same pages, new binding; an aperture needs them present. */
		if (new_mem->mem_type != TTM_PL_SYSTEM) {
			ret = ttm_bo_populate(bo, ctx);
			if (ret)
				return ret;
		}
		ttm_bo_move_null(bo, new_mem);
	} else {
		ret = ttm_bo_move_memcpy(bo, ctx, new_mem);
		if (ret)
			return ret;
	}
	atomic_fetch_add(&mdev->stats.moves, 1);
	if (mdev->verify_moves && to_ttm_mock_bo(bo)->filled)
		verify_resident(mdev, to_ttm_mock_bo(bo));
	return 0;
}

static int mock_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct ttm_mock_device *mdev = to_mock(bdev);

	if (res->mem_type != TTM_PL_VRAM)
		return 0;
	res->bus.addr = mdev->vram_mem + res->start * TTM_PAGE_SIZE;
	res->bus.offset = res->start * TTM_PAGE_SIZE;
	res->bus.is_iomem = true;
	return 0;
}

static const struct ttm_device_funcs mock_funcs = {
	.evict_flags = mock_evict_flags,
	.move = mock_move,
	.io_mem_reserve = mock_io_mem_reserve,
};

int ttm_mock_device_init(struct ttm_mock_device *mdev, uint64_t tt_pages, uint64_t vram_pages)
{
	int ret;

	memset(mdev, 0, sizeof(*mdev));
	mdev->tt_pages = tt_pages;
	mdev->vram_pages = vram_pages;
	if (vram_pages) {
		mdev->vram_mem = calloc(vram_pages, TTM_PAGE_SIZE);
		if (!mdev->vram_mem)
			return -ENOMEM;
	}
	ret = ttm_device_init(&mdev->bdev, &mock_funcs, false);
	if (ret)
		goto err_mem;
	if (tt_pages) {
		ret = ttm_range_manager_init(&mdev->tt, true, tt_pages);
		if (ret)
			goto err_dev;
		ret = ttm_set_driver_manager(&mdev->bdev, TTM_PL_TT, &mdev->tt.manager);
		if (ret)
			goto err_tt;
	}
	if (vram_pages) {
		ret = ttm_range_manager_init(&mdev->vram, false, vram_pages);
		if (ret)
			goto err_tt_reg;
		ret = ttm_set_driver_manager(&mdev->bdev, TTM_PL_VRAM, &mdev->vram.manager);
		if (ret)
			goto err_vram;
	}
	return 0;

err_vram:
	ttm_range_manager_fini(&mdev->vram);
err_tt_reg:
	if (tt_pages)
		ttm_set_driver_manager(&mdev->bdev, TTM_PL_TT, NULL);
err_tt:
	if (tt_pages)
		ttm_range_manager_fini(&mdev->tt);
err_dev:
	ttm_device_fini(&mdev->bdev);
err_mem:
	free(mdev->vram_mem);
	mdev->vram_mem = NULL;
	return ret;
}

int ttm_mock_device_fini(struct ttm_mock_device *mdev)
{
	int ret;

	ttm_device_flush_delayed(&mdev->bdev, true);
	if (atomic_load(&mdev->stats.bo_live) != 0)
		return -EBUSY;
	if (mdev->vram_pages) {
		ret = ttm_range_manager_fini(&mdev->vram);
		if (ret)
			return ret;
		ttm_set_driver_manager(&mdev->bdev, TTM_PL_VRAM, NULL);
		mdev->vram_pages = 0;
	}
	if (mdev->tt_pages) {
		ret = ttm_range_manager_fini(&mdev->tt);
		if (ret)
			return ret;
		ttm_set_driver_manager(&mdev->bdev, TTM_PL_TT, NULL);
		mdev->tt_pages = 0;
	}
	ret = ttm_device_fini(&mdev->bdev);
	if (ret)
		return ret;
	free(mdev->vram_mem);
	mdev->vram_mem = NULL;
	return 0;
}

static void mock_bo_destroy(struct ttm_buffer_object *bo)
{
	struct ttm_mock_bo *mbo = to_ttm_mock_bo(bo);

	atomic_fetch_sub(&mbo->mdev->stats.bo_live, 1);
	free(mbo);
}

int ttm_mock_bo_fill(struct ttm_mock_bo *mbo, uint64_t seed, struct ttm_operation_ctx *ctx)
{
	uint64_t buf[CHUNK_WORDS];
	uint64_t size = mbo->base.size;

	mbo->filled = false;
	mbo->seed = seed;
	for (uint64_t off = 0; off < size; off += TTM_PAGE_SIZE) {
		size_t len = size - off < TTM_PAGE_SIZE ? size - off : TTM_PAGE_SIZE;
		int ret;

		for (size_t i = 0; i < len / sizeof(uint64_t); i++)
			buf[i] = ttm_mock_pattern(seed, off / sizeof(uint64_t) + i);
		ret = ttm_bo_access(&mbo->base, off, buf, len, true, ctx);
		if (ret)
			return ret;
	}
	mbo->filled = true;
	return 0;
}

int ttm_mock_bo_verify(struct ttm_mock_bo *mbo, struct ttm_operation_ctx *ctx,
		       uint64_t *bad_offset)
{
	uint64_t buf[CHUNK_WORDS];
	uint64_t size = mbo->base.size;

	for (uint64_t off = 0; off < size; off += TTM_PAGE_SIZE) {
		size_t len = size - off < TTM_PAGE_SIZE ? size - off : TTM_PAGE_SIZE;
		long bad;
		int ret;

		ret = ttm_bo_access(&mbo->base, off, buf, len, false, ctx);
		if (ret)
			return ret;
		bad = check_words(mbo, off, buf, len / sizeof(uint64_t));
		if (bad >= 0) {
			if (bad_offset)
				*bad_offset = off + (uint64_t)bad * sizeof(uint64_t);
			return -EILSEQ;
		}
	}
	atomic_fetch_add(&mbo->mdev->stats.bytes_verified, size);
	return 0;
}

int ttm_mock_bo_create(struct ttm_mock_device *mdev, uint64_t size, uint64_t seed,
		       const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
		       struct ttm_mock_bo **out)
{
	struct ttm_mock_bo *mbo = calloc(1, sizeof(*mbo));
	int ret;

	if (!mbo)
		return -ENOMEM;
	mbo->mdev = mdev;
	atomic_fetch_add(&mdev->stats.bo_live, 1);
	ret = ttm_bo_init_reserved(&mdev->bdev, &mbo->base, size, ttm_bo_type_device, placement,
				   0, ctx, NULL, mock_bo_destroy);
	if (ret)
		return ret; /* @destroy already ran */
	ret = ttm_mock_bo_fill(mbo, seed, ctx);
	ttm_bo_unreserve(&mbo->base);
	if (ret) {
		ttm_bo_put(&mbo->base);
		return ret;
	}
	*out = mbo;
	return 0;
}
