// SPDX-License-Identifier: MIT
/*
 * The --backend=hw cases of benchmark-validate against i915/hw's recording
 * fake: what their figures stand for has to be true before they are worth
 * timing. A bind is an address the range manager picks; under a TT range
 * of one BO each validate of the other BO evicts exactly one (the
 * benchmark treats anything else as -EPROTO); an execbuffer list reaches
 * the kernel with every object softpinned at the address its TT resource
 * names.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/dma_fence.h>

#include "bench.h"
#include "bench_hw.h"
#include "hw_fake.h"
#include "hw_ttm.h"
#include "ktest.h"
#include "bench_hw_fixture.h"

/* The shared fixture, on a part without VRAM as the validate cases assume. */
static int fixture_init(struct bench_hw_fixture *fx)
{
	int ret = bench_hw_fixture_init(fx, "test-bench-hw-validate", "validate");

	if (!ret)
		fx->args.no_vram = true;
	return ret;
}

/* Reserve, validate into @pl, unreserve, as the benchmark's timed step. */
static int validate(struct hw_ttm_bo *bo, const struct ttm_placement *pl,
		    struct ttm_operation_ctx *ctx)
{
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ret = ttm_bo_reserve(&bo->tbo, false, false, NULL);
	if (ret)
		return ret;
	ret = ttm_bo_validate(&bo->tbo, pl, ctx);
	ttm_bo_unreserve(&bo->tbo);
	return ret;
}

static uint64_t gpu_addr(struct hw_ttm_bo *bo)
{
	uint64_t a = UINT64_MAX;

	if (!ttm_bo_reserve(&bo->tbo, false, false, NULL)) {
		a = hw_ttm_bo_gpu_addr(bo);
		ttm_bo_unreserve(&bo->tbo);
	}
	return a;
}

KTEST(hw_validate_bind_in_place_unbind)
{
	struct ttm_operation_ctx ctx;
	struct hw_ttm_bo *bo;
	struct bench_hw_fixture fx;
	uint64_t a;

	ASSERT_EQ(fixture_init(&fx), 0);
	ASSERT_EQ(bench_hw_open(&fx.run, &fx.hw, &fx.args), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.hw.dev, 65536, &hw_ttm_placement_system, &bo), 0);
	EXPECT_EQ(gpu_addr(bo), UINT64_MAX);
	EXPECT_EQ(validate(bo, &hw_ttm_placement_tt, &ctx), 0);
	a = gpu_addr(bo);
	EXPECT_TRUE(a != UINT64_MAX && a % TTM_PAGE_SIZE == 0);
	/* Already there: the in_place case must be a no-op. */
	EXPECT_EQ(validate(bo, &hw_ttm_placement_tt, &ctx), 0);
	EXPECT_EQ(ctx.moves, 0);
	EXPECT_EQ(gpu_addr(bo), a);
	/* Back to SYSTEM: the address is gone (the bind case's round trip). */
	EXPECT_EQ(validate(bo, &hw_ttm_placement_system, &ctx), 0);
	EXPECT_EQ(gpu_addr(bo), UINT64_MAX);
	EXPECT_EQ(validate(bo, &hw_ttm_placement_tt, &ctx), 0);
	EXPECT_TRUE(gpu_addr(bo) != UINT64_MAX);
	ttm_bo_put(&bo->tbo);
	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
	bench_hw_fixture_fini(&fx);
}

KTEST(hw_validate_evict_unbind_one_per_validate)
{
	const uint64_t size = 2 * TTM_PAGE_SIZE;
	struct ttm_operation_ctx ctx;
	struct hw_ttm_bo *bo[2] = {NULL, NULL};
	struct bench_hw_fixture fx;

	ASSERT_EQ(fixture_init(&fx), 0);
	fx.args.tt_size = size;
	ASSERT_EQ(bench_hw_open(&fx.run, &fx.hw, &fx.args), 0);
	for (unsigned k = 0; k < 2; k++)
		ASSERT_EQ(hw_ttm_bo_create(fx.hw.dev, size, &hw_ttm_placement_system, &bo[k]), 0);
	EXPECT_EQ(validate(bo[0], &hw_ttm_placement_tt, &ctx), 0);
	EXPECT_EQ(ctx.evictions, 0);
	for (unsigned i = 1; i < 6; i++) {
		struct hw_ttm_bo *in = bo[i & 1], *out = bo[(i + 1) & 1];

		EXPECT_EQ(validate(in, &hw_ttm_placement_tt, &ctx), 0);
		EXPECT_EQ(ctx.evictions, 1);
		/* One slot: the newcomer takes the address the other one held. */
		EXPECT_EQ(gpu_addr(in), 0);
		EXPECT_EQ(gpu_addr(out), UINT64_MAX);
	}
	for (unsigned k = 0; k < 2; k++)
		ttm_bo_put(&bo[k]->tbo);
	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
	bench_hw_fixture_fini(&fx);
}

KTEST(hw_validate_execbuf_softpins_every_object)
{
	enum { N = 4 };
	struct hw_ttm_bo *bos[N], *batch = NULL;
	struct drm_i915_gem_execbuffer2 eb;
	const struct hw_fake_call *call;
	struct dma_fence *f = NULL;
	uint64_t addr[N + 1];
	struct bench_hw_fixture fx;
	int idx;

	ASSERT_EQ(fixture_init(&fx), 0);
	ASSERT_EQ(bench_hw_open(&fx.run, &fx.hw, &fx.args), 0);
	ASSERT_EQ(bench_hw_nop_batch(&fx.hw, &batch), 0);
	for (unsigned k = 0; k < N; k++)
		ASSERT_EQ(
		    hw_ttm_bo_create(fx.hw.dev, TTM_PAGE_SIZE, &hw_ttm_placement_system, &bos[k]),
		    0);
	hw_fake_clear_calls(fx.fake);
	ASSERT_EQ(hw_ttm_exec(fx.hw.dev, bos, N, batch, &f), 0);
	ASSERT_NOT_NULL(f);
	for (unsigned k = 0; k < N; k++)
		addr[k] = gpu_addr(bos[k]);
	addr[N] = gpu_addr(batch);

	idx = hw_fake_find(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, 0);
	if (idx < 0)
		idx = hw_fake_find(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2, 0);
	ASSERT_TRUE(idx >= 0);
	call = &fx.fake->calls[idx];
	memcpy(&eb, call->arg, sizeof(eb));
	EXPECT_EQ(eb.buffer_count, N + 1);
	for (unsigned k = 0; k < N + 1 && k < eb.buffer_count; k++) {
		const struct drm_i915_gem_exec_object2 *o = &call->objs[k];
		bool found = false;

		EXPECT_TRUE(o->flags & EXEC_OBJECT_PINNED);
		/* Each softpinned offset is one of the TT addresses, once. */
		for (unsigned j = 0; j < N + 1; j++)
			found |= addr[j] == o->offset;
		EXPECT_TRUE(found);
		for (unsigned j = 0; j < k; j++)
			EXPECT_TRUE(call->objs[j].offset != o->offset);
	}
	/* The batch goes last (i915's default without BATCH_FIRST). */
	if (eb.buffer_count == N + 1)
		EXPECT_EQ(call->objs[N].offset, addr[N]);

	EXPECT_EQ(hw_fake_signal(fx.fake, 0, 1), 0);
	EXPECT_TRUE(dma_fence_wait_timeout(f, false, 2000000000LL) > 0);
	EXPECT_EQ(f->error, 0);
	dma_fence_put(f);
	for (unsigned k = 0; k < N; k++)
		ttm_bo_put(&bos[k]->tbo);
	ttm_bo_put(&batch->tbo);
	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
	bench_hw_fixture_fini(&fx);
}
