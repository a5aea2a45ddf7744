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
	return container_of(to_testlib_mock(bdev), struct ttm_mock_device, base);
}

uint64_t ttm_mock_pattern(uint64_t seed, uint64_t i)
{
	/* splitmix64's output function is bijective: distinct (seed, i) rarely collide. */
	return prng_mix64((seed - 1) * PRNG_GOLDEN + i + 1);
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
			w = (const uint64_t *)((const char *)mdev->base.vram_mem +
					       res->start * TTM_PAGE_SIZE + off);
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

/* After every successful move of the mock: count it, check the destination. */
static void mock_moved(struct ttm_buffer_object *bo)
{
	struct ttm_mock_device *mdev = to_mock(bo->bdev);

	atomic_fetch_add(&mdev->stats.moves, 1);
	if (mdev->verify_moves && to_ttm_mock_bo(bo)->filled)
		verify_resident(mdev, to_ttm_mock_bo(bo));
}

int ttm_mock_device_init(struct ttm_mock_device *mdev, uint64_t tt_pages, uint64_t vram_pages)
{
	const struct testlib_mock_cfg cfg = {
	    .tt_pages = tt_pages,
	    .vram_pages = vram_pages,
	    .bare = true,
	    .evict = TESTLIB_MOCK_EVICT_DOWN_FALLBACK,
	    .move = TESTLIB_MOCK_MOVE_BIND,
	    .moved = mock_moved,
	};

	memset(mdev, 0, sizeof(*mdev));
	return testlib_mock_device_init(&mdev->base, &cfg);
}

int ttm_mock_device_fini(struct ttm_mock_device *mdev)
{
	ttm_device_flush_delayed(&mdev->base.bdev, true);
	if (atomic_load(&mdev->stats.bo_live) != 0)
		return -EBUSY;
	return testlib_mock_device_fini(&mdev->base);
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

int ttm_mock_bo_verify(struct ttm_mock_bo *mbo, struct ttm_operation_ctx *ctx, uint64_t *bad_offset)
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
	ret = ttm_bo_init_reserved(&mdev->base.bdev, &mbo->base, size, ttm_bo_type_device,
				   placement, 0, ctx, NULL, mock_bo_destroy);
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
