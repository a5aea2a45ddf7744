// SPDX-License-Identifier: MIT
/*
 * The hw back end on a real Intel GPU: every case skips (exit 77, with the
 * reason) where hw_gpu_open() finds no usable i915 render node, which is
 * the case in CI. On an Intel machine it submits real batches: an empty
 * one with an out-fence, a store-free blitter copy between two softpinned
 * objects whose contents are checked from the CPU, and GEM_WAIT.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hw_gpu.h"
#include "hw_ttm.h"
#include "ktest.h"

#define WAIT_NS (10ll * 1000 * 1000 * 1000)

static struct hw_gpu *open_or_skip(void)
{
	static char why[256];
	struct hw_open_args args = {.why = why, .why_len = sizeof(why)};
	struct hw_gpu *gpu;
	int ret;

	ret = hw_gpu_open(&args, &gpu);
	if (hw_err_is_skip(ret))
		KTEST_SKIP(why[0] ? why : "no usable i915 render node");
	ASSERT_EQ(ret, 0);
	return gpu;
}

KTEST(hw_device_nop_batch_signals_its_fence)
{
	struct hw_gpu *gpu = open_or_skip();
	struct hw_exec_obj obj;
	struct hw_context ctx;
	struct dma_fence *f = NULL;
	struct hw_exec eb;
	struct hw_bo batch;
	int n;

	ASSERT_EQ(hw_context_init(gpu, &ctx), 0);
	ASSERT_EQ(hw_bo_init(gpu, &batch, 4096, NULL, 0, 0), 0);
	ASSERT_EQ(hw_bo_mmap(gpu, &batch, hw_gpu_info(gpu)->discrete ? HW_MMAP_FIXED : HW_MMAP_WC),
		  0);
	n = hw_batch_nop(batch.map, 1024);
	ASSERT_EQ(n, 2);
	obj = (struct hw_exec_obj){&batch, 1ull << 20, 0};
	eb = (struct hw_exec){
	    .ctx = &ctx, .engine = HW_ENGINE_RENDER, .objs = &obj, .count = 1, .batch_len = 8};
	ASSERT_EQ(hw_exec_submit(gpu, &eb, hw_gpu_info(gpu)->has_exec_fence ? &f : NULL), 0);
	if (f) {
		EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
		EXPECT_EQ(dma_fence_get_status(f), 1);
		dma_fence_put(f);
	}
	EXPECT_EQ(hw_bo_wait(gpu, &batch, WAIT_NS), 0);
	hw_bo_fini(gpu, &batch);
	hw_context_fini(gpu, &ctx);
	hw_gpu_close(gpu);
}

KTEST(hw_device_blitter_copy_moves_the_bytes)
{
	struct hw_gpu *gpu = open_or_skip();
	const uint64_t size = 256 << 10;
	enum hw_mmap_mode mode = hw_gpu_info(gpu)->discrete ? HW_MMAP_FIXED : HW_MMAP_WC;
	struct hw_bo src, dst, batch;
	struct hw_exec_obj objs[3];
	struct hw_context ctx;
	struct hw_exec eb;
	uint32_t *s, *d;
	uint64_t i;
	int n;

	ASSERT_EQ(hw_context_init(gpu, &ctx), 0);
	ASSERT_EQ(hw_bo_init(gpu, &src, size, NULL, 0, 0), 0);
	ASSERT_EQ(hw_bo_init(gpu, &dst, size, NULL, 0, 0), 0);
	ASSERT_EQ(hw_bo_init(gpu, &batch, 4096, NULL, 0, 0), 0);
	ASSERT_EQ(hw_bo_mmap(gpu, &src, mode), 0);
	ASSERT_EQ(hw_bo_mmap(gpu, &dst, mode), 0);
	ASSERT_EQ(hw_bo_mmap(gpu, &batch, mode), 0);
	s = src.map;
	d = dst.map;
	for (i = 0; i < size / 4; i++) {
		s[i] = (uint32_t)(i * 2654435761u);
		d[i] = 0;
	}
	/* Addresses our range manager could have chosen: far apart, one above 4 GiB. */
	objs[0] = (struct hw_exec_obj){&src, 16ull << 20, 0};
	objs[1] = (struct hw_exec_obj){&dst, 5ull << 30, HW_EXEC_OBJ_WRITE};
	objs[2] = (struct hw_exec_obj){&batch, 1ull << 20, 0};
	n = hw_batch_copy(batch.map, 1024, objs[1].offset, objs[0].offset, size);
	ASSERT_GT(n, 0);
	eb = (struct hw_exec){.ctx = &ctx,
			      .engine = HW_ENGINE_BLT,
			      .objs = objs,
			      .count = 3,
			      .batch_len = (uint32_t)n * 4};
	ASSERT_EQ(hw_exec_submit(gpu, &eb, NULL), 0);
	ASSERT_EQ(hw_bo_wait(gpu, &dst, WAIT_NS), 0);
	EXPECT_MEMEQ(d, s, size);
	hw_bo_fini(gpu, &batch);
	hw_bo_fini(gpu, &dst);
	hw_bo_fini(gpu, &src);
	hw_context_fini(gpu, &ctx);
	hw_gpu_close(gpu);
}

KTEST(hw_ttm_device_exec_nop_at_assigned_address)
{
	struct hw_gpu *gpu = open_or_skip();
	struct hw_ttm_device *dev;
	struct hw_ttm_bo *batch, *target;
	struct dma_fence *f = NULL;
	struct hw_bo *gem;
	int ret;

	if (!hw_gpu_info(gpu)->has_exec_fence) {
		hw_gpu_close(gpu);
		KTEST_SKIP("kernel without exec fences (I915_PARAM_HAS_EXEC_FENCE)");
	}
	ASSERT_EQ(hw_ttm_device_create(gpu, NULL, &dev), 0);
	ASSERT_EQ(hw_ttm_bo_create(dev, 4096, &hw_ttm_placement_system, &batch), 0);
	ASSERT_EQ(hw_ttm_bo_create(
		      dev, 65536, dev->has_vram ? &hw_ttm_placement_vram : &hw_ttm_placement_system,
		      &target),
		  0);
	ASSERT_EQ(ttm_bo_reserve(&batch->tbo, false, false, NULL), 0);
	gem = hw_ttm_bo_gem(batch);
	ret = hw_bo_mmap(gpu, gem, hw_gpu_info(gpu)->discrete ? HW_MMAP_FIXED : HW_MMAP_WC);
	if (!ret)
		ret = hw_batch_nop(gem->map, 1024) == 2 ? 0 : -EINVAL;
	hw_bo_munmap(gpu, gem);
	ttm_bo_unreserve(&batch->tbo);
	ASSERT_EQ(ret, 0);

	/* On discrete parts the target is blitted out of VRAM first. */
	ASSERT_EQ(hw_ttm_exec(dev, &target, 1, batch, &f), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	dma_fence_put(f);
	EXPECT_EQ(target->tbo.resource->mem_type, TTM_PL_TT);

	ttm_bo_put(&target->tbo);
	ttm_bo_put(&batch->tbo);
	EXPECT_EQ(hw_ttm_device_destroy(dev), 0);
	hw_gpu_close(gpu);
}
