// SPDX-License-Identifier: MIT
/*
 * The mock driver and fixtures shared by the core's unit tests; see
 * ttm_test_helpers.h for what each one stands in for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <testlib/checksum.h>
#include <testlib/prng.h>

#include "ttm_test_helpers.h"

/* --- placements and BOs --- */

struct ttm_placement *ttm_test_placement(struct ttm_test_placement *p, uint32_t mem_type,
					 uint32_t flags)
{
	p->placement.num_placement = 0;
	p->placement.placement = p->places;
	return ttm_test_placement_add(p, mem_type, flags);
}

struct ttm_placement *ttm_test_placement_add(struct ttm_test_placement *p, uint32_t mem_type,
					     uint32_t flags)
{
	unsigned n = p->placement.num_placement;

	if (n < sizeof(p->places) / sizeof(p->places[0])) {
		p->places[n] = (struct ttm_place){.mem_type = mem_type, .flags = flags};
		p->placement.num_placement = n + 1;
	}
	return &p->placement;
}

void ttm_test_bo_destroy(struct ttm_buffer_object *bo)
{
	testlib_mock_bo_destroy(bo);
}

int ttm_test_bo_create(struct ttm_device *bdev, uint64_t size, enum ttm_bo_type type,
		       const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
		       bool reserved, struct ttm_buffer_object **out)
{
	return testlib_mock_bo_create_type(bdev, size, type, placement, ctx, reserved, out);
}

int ttm_test_bo_create_in(struct ttm_device *bdev, uint64_t size, uint32_t mem_type,
			  struct ttm_buffer_object **out)
{
	struct ttm_test_placement p;

	return ttm_test_bo_create(bdev, size, ttm_bo_type_device,
				  ttm_test_placement(&p, mem_type, 0), NULL, false, out);
}

/* --- fences --- */

const char *ttm_test_fence_name(struct dma_fence *fence)
{
	(void)fence;
	return "ttm-test";
}

static const struct dma_fence_ops ttm_test_fence_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
};

struct dma_fence *ttm_test_fence_create_on(uint64_t context, uint64_t seqno)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	if (!f)
		return NULL;
	dma_fence_init(f, &ttm_test_fence_ops, context, seqno);
	return f;
}

struct dma_fence *ttm_test_fence_create(void)
{
	return ttm_test_fence_create_on(dma_fence_context_alloc(1), 1);
}

int ttm_test_bo_add_fence(struct ttm_buffer_object *bo, struct dma_fence *fence,
			  enum dma_resv_usage usage)
{
	int ret = dma_resv_reserve_fences(bo->resv, 1);

	if (ret)
		return ret;
	return dma_resv_add_fence(bo->resv, fence, usage);
}

struct dma_fence *ttm_test_bo_busy(struct ttm_buffer_object *bo, enum dma_resv_usage usage)
{
	struct dma_fence *f = ttm_test_fence_create();
	int ret;

	if (!f)
		return NULL;
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (!ret) {
		ret = ttm_test_bo_add_fence(bo, f, usage);
		ttm_bo_unreserve(bo);
	}
	if (ret) {
		dma_fence_put(f);
		return NULL;
	}
	return f;
}

/* --- content pattern --- */

/* splitmix64 of the word index: every word differs, every seed differs. */
static uint64_t ttm_test_pattern(uint64_t seed, uint64_t word)
{
	return prng_mix64(seed + word * PRNG_GOLDEN);
}

#define TTM_TEST_CHUNK 4096u

int ttm_test_bo_fill(struct ttm_buffer_object *bo, uint64_t seed)
{
	struct ttm_operation_ctx ctx = {0};
	uint64_t buf[TTM_TEST_CHUNK / 8];

	for (uint64_t off = 0; off < bo->size; off += TTM_TEST_CHUNK) {
		size_t len = bo->size - off < TTM_TEST_CHUNK ? bo->size - off : TTM_TEST_CHUNK;
		int ret;

		for (size_t i = 0; i < len / 8; i++)
			buf[i] = ttm_test_pattern(seed, off / 8 + i);
		ret = ttm_bo_access(bo, off, buf, len, true, &ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int ttm_test_bo_verify(struct ttm_buffer_object *bo, uint64_t seed)
{
	struct ttm_operation_ctx ctx = {0};
	uint64_t buf[TTM_TEST_CHUNK / 8];

	for (uint64_t off = 0; off < bo->size; off += TTM_TEST_CHUNK) {
		size_t len = bo->size - off < TTM_TEST_CHUNK ? bo->size - off : TTM_TEST_CHUNK;
		int ret = ttm_bo_access(bo, off, buf, len, false, &ctx);

		if (ret)
			return ret;
		for (size_t i = 0; i < len / 8; i++)
			if (buf[i] != ttm_test_pattern(seed, off / 8 + i))
				return -EILSEQ;
	}
	return 0;
}

/* @op (fill or verify) of the unreserved @bo, reserving it around the call. */
static int ttm_test_bo_reserved_op(struct ttm_buffer_object *bo, uint64_t seed,
				   int (*op)(struct ttm_buffer_object *bo, uint64_t seed))
{
	int ret;

	ttm_bo_reserve(bo, false, false, NULL);
	ret = op(bo, seed);
	ttm_bo_unreserve(bo);
	return ret;
}

int ttm_test_bo_reserve_fill(struct ttm_buffer_object *bo, uint64_t seed)
{
	return ttm_test_bo_reserved_op(bo, seed, ttm_test_bo_fill);
}

int ttm_test_bo_reserve_verify(struct ttm_buffer_object *bo, uint64_t seed)
{
	return ttm_test_bo_reserved_op(bo, seed, ttm_test_bo_verify);
}

int ttm_test_bo_reserve_validate(struct ttm_buffer_object *bo,
				 const struct ttm_placement *placement,
				 struct ttm_operation_ctx *ctx)
{
	int ret;

	ttm_bo_reserve(bo, false, false, NULL);
	ret = ttm_bo_validate(bo, placement, ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

int ttm_test_bo_validate_to(struct ttm_buffer_object *bo, uint32_t mem_type, uint32_t flags,
			    struct ttm_operation_ctx *ctx)
{
	struct ttm_test_placement p;

	return ttm_test_bo_reserve_validate(bo, ttm_test_placement(&p, mem_type, flags), ctx);
}

void ttm_test_bo_pin(struct ttm_buffer_object *bo)
{
	ttm_bo_reserve(bo, false, false, NULL);
	ttm_bo_pin(bo);
	ttm_bo_unreserve(bo);
}

unsigned ttm_test_bo_mem_type(const struct ttm_buffer_object *bo)
{
	return bo->resource ? bo->resource->mem_type : TTM_NUM_MEM_TYPES;
}

int ttm_test_bo_checksum(struct ttm_buffer_object *bo, uint64_t *sum)
{
	struct ttm_operation_ctx ctx = {0};
	unsigned char buf[TTM_TEST_CHUNK];
	uint64_t h = TESTLIB_CHECKSUM_INIT;

	for (uint64_t off = 0; off < bo->size; off += TTM_TEST_CHUNK) {
		size_t len = bo->size - off < TTM_TEST_CHUNK ? bo->size - off : TTM_TEST_CHUNK;
		int ret = ttm_bo_access(bo, off, buf, len, false, &ctx);

		if (ret)
			return ret;
		h = testlib_checksum_update(h, buf, len);
	}
	*sum = h;
	return 0;
}
