// SPDX-License-Identifier: MIT
/* GGTT binding and placements, stolen and lmem memory types, blitter copies. */
#include <errno.h>

#include <ttm/drm_buddy.h>

#include "i915_test_common.h"

static struct sim_gpu *sim(struct i915_device *i915)
{
	return i915_device_sim(i915);
}

KTEST(ggtt_bind_writes_ptes_unbind_clears)
{
	struct i915_device *i915 = i915_test_device(false);
	const struct ttm_place place = {.mem_type = TTM_PL_TT};
	struct ttm_resource *res;
	void *pages[4];
	unsigned long writes;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place,
				     4 * TTM_PAGE_SIZE, 0, &res),
		  0);
	EXPECT_NE(res->start, 0); /* page 0 is the guard */
	for (int i = 0; i < 4; i++) {
		pages[i] = aligned_alloc(TTM_PAGE_SIZE, TTM_PAGE_SIZE);
		ASSERT_NOT_NULL(pages[i]);
	}
	writes = atomic_load(&i915->ggtt.pte_writes);
	ASSERT_EQ(i915_ggtt_bind_host(&i915->ggtt, res->start, pages, 4), 0);
	EXPECT_EQ(atomic_load(&i915->ggtt.pte_writes), writes + 4);
	for (int i = 0; i < 4; i++) {
		EXPECT_UEQ(sim_ggtt_read_pte(sim(i915), res->start + i), sim_pte_host(pages[i]));
		EXPECT_UEQ(i915_ggtt_read_pte(&i915->ggtt, res->start + i), sim_pte_host(pages[i]));
	}
	/* Pages the GGTT maps are what the GPU reaches: the aperture sees them. */
	memset(pages[2], 0x5a, TTM_PAGE_SIZE);
	if (i915_ggtt_offset(res) + 4 * TTM_PAGE_SIZE <= i915->ggtt.mappable_end) {
		unsigned char b = 0;

		EXPECT_EQ(sim_aperture_read(sim(i915),
					    i915_ggtt_offset(res) + 2 * TTM_PAGE_SIZE + 7, &b, 1),
			  0);
		EXPECT_EQ(b, 0x5a);
	}
	ASSERT_EQ(i915_ggtt_unbind(&i915->ggtt, res->start, 4), 0);
	for (int i = 0; i < 4; i++)
		EXPECT_UEQ(sim_ggtt_read_pte(sim(i915), res->start + i) & SIM_PTE_PRESENT, 0);
	EXPECT_EQ(
	    i915_ggtt_bind_host(&i915->ggtt, (i915->ggtt.size >> TTM_PAGE_SHIFT) - 2, pages, 4),
	    -EINVAL);
	pages[1] = (char *)pages[1] + 8;
	EXPECT_EQ(i915_ggtt_bind_host(&i915->ggtt, res->start, pages, 4), -EINVAL);
	pages[1] = (char *)pages[1] - 8;
	for (int i = 0; i < 4; i++)
		free(pages[i]);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &res);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(ggtt_mappable_placement_lands_in_aperture)
{
	struct i915_device *i915 = i915_test_device(false);
	struct ttm_resource_manager *man;
	const struct ttm_place mappable_top = {.mem_type = TTM_PL_TT,
					       .flags = TTM_PL_FLAG_MAPPABLE | TTM_PL_FLAG_TOPDOWN};
	const struct ttm_place any_top = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};
	const struct ttm_placement want_mappable = {1, &mappable_top};
	struct ttm_resource *a, *b, *big;
	uint64_t ap;

	ASSERT_NOT_NULL(i915);
	man = i915_ggtt_manager(&i915->ggtt);
	ap = i915_ggtt_mappable_pages(&i915->ggtt);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &mappable_top, 64 * TTM_PAGE_SIZE, 0, &a), 0);
	EXPECT_LE(a->start + 64, ap);
	EXPECT_GE(a->start + 64, ap - 64); /* topdown inside the aperture: its top */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any_top, 64 * TTM_PAGE_SIZE, 0, &b), 0);
	EXPECT_GE(b->start, ap);
	EXPECT_TRUE(ttm_resource_compatible(man, a, &want_mappable, false));
	EXPECT_FALSE(ttm_resource_compatible(man, b, &want_mappable, false));
	/* Larger than the aperture: no room in the mappable window. */
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &mappable_top, (ap + 1) * TTM_PAGE_SIZE, 0, &big),
		  -ENOSPC);
	/* The same size fits the whole GGTT. */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any_top, (ap + 1) * TTM_PAGE_SIZE, 0, &big), 0);
	ttm_resource_free(man, &big);
	ttm_resource_free(man, &a);
	ttm_resource_free(man, &b);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(stolen_placement_gpu_writes_seen_through_aperture)
{
	struct i915_device *i915 = i915_test_device(false);
	const struct ttm_place sp = {.mem_type = I915_PL_STOLEN};
	const struct ttm_place gp = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_MAPPABLE};
	struct ttm_resource *stolen, *gtt;
	uint32_t cmds[4], v = 0;
	struct dma_fence *f;

	ASSERT_NOT_NULL(i915);
	ASSERT_TRUE(i915->has_stolen);
	ASSERT_EQ(
	    ttm_resource_alloc(&i915->stolen.manager, NULL, &sp, 8 * TTM_PAGE_SIZE, 0, &stolen), 0);
	ASSERT_EQ(ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &gp, 8 * TTM_PAGE_SIZE,
				     0, &gtt),
		  0);
	EXPECT_EQ(i915_io_mem_reserve(i915, stolen), -EINVAL);
	ASSERT_EQ(i915_ggtt_bind_linear(&i915->ggtt, gtt->start, false,
					stolen->start << TTM_PAGE_SHIFT, 8),
		  0);
	EXPECT_UEQ(sim_ggtt_read_pte(sim(i915), gtt->start + 3),
		   sim_pte_stolen((stolen->start + 3) << TTM_PAGE_SHIFT));
	i915_emit_store_dword_imm(cmds, i915_ggtt_offset(gtt) + 5 * TTM_PAGE_SIZE + 8, 0x57013e);
	ASSERT_EQ(i915_request_submit(i915_engine_get(i915, I915_ENGINE_RCS), NULL, cmds, 4, 0, &f),
		  0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	dma_fence_put(f);
	EXPECT_EQ(
	    sim_aperture_read(sim(i915), i915_ggtt_offset(gtt) + 5 * TTM_PAGE_SIZE + 8, &v, 4), 0);
	EXPECT_EQ(v, 0x57013e);
	/* Beyond stolen memory is refused. */
	EXPECT_EQ(i915_ggtt_bind_linear(&i915->ggtt, gtt->start, false, 4ull << 20, 1), -EINVAL);
	i915_ggtt_unbind(&i915->ggtt, gtt->start, 8);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &gtt);
	ttm_resource_free(&i915->stolen.manager, &stolen);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(lmem_io_mem_reserve_only_for_visible_part)
{
	struct i915_device *i915 = i915_test_device(false);
	const struct ttm_place vis = {.mem_type = TTM_PL_VRAM,
				      .flags = TTM_PL_FLAG_MAPPABLE | TTM_PL_FLAG_CONTIGUOUS};
	const struct ttm_place top = {.mem_type = TTM_PL_VRAM,
				      .flags = TTM_PL_FLAG_TOPDOWN | TTM_PL_FLAG_CONTIGUOUS};
	struct ttm_resource *a, *b;

	ASSERT_NOT_NULL(i915);
	ASSERT_TRUE(i915->has_lmem);
	ASSERT_EQ(ttm_resource_alloc(&i915->lmem.manager, NULL, &vis, 16 * TTM_PAGE_SIZE, 0, &a),
		  0);
	ASSERT_EQ(ttm_resource_alloc(&i915->lmem.manager, NULL, &top, 16 * TTM_PAGE_SIZE, 0, &b),
		  0);
	ASSERT_EQ(i915_io_mem_reserve(i915, a), 0);
	EXPECT_TRUE(a->bus.addr == sim_lmem_cpu_ptr(sim(i915), a->start << TTM_PAGE_SHIFT));
	EXPECT_TRUE(a->bus.is_iomem);
	EXPECT_EQ(i915_io_mem_reserve(i915, b), -EINVAL);
	ttm_resource_free(&i915->lmem.manager, &a);
	ttm_resource_free(&i915->lmem.manager, &b);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

static void fill_pattern(void *p, size_t len, uint64_t seed)
{
	uint64_t *q = p;

	for (size_t i = 0; i < len / 8; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		q[i] = seed;
	}
}

/*
 * Content survives a blitter round trip SYSTEM -> LMEM -> SYSTEM (the
 * eviction path's copy), for scattered lmem blocks and several sizes.
 */
KTEST(blt_copy_lmem_round_trip_preserves_content)
{
	struct i915_device *i915 = i915_test_device(false);
	const struct ttm_place lp = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_TOPDOWN};
	const struct ttm_place gp = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};
	static const size_t sizes[] = {1, 3, 17, 64, 300};

	ASSERT_NOT_NULL(i915);
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t len = sizes[s] * TTM_PAGE_SIZE;
		struct i915_test_buf sys;
		struct ttm_resource *lmem, *lgtt;
		struct dma_fence *f1, *f2;
		uint64_t sum;

		ASSERT_EQ(i915_test_buf_init(&sys, i915, len, 0), 0);
		fill_pattern(sys.mem, len, ktest_rand() | 1);
		sum = i915_test_checksum(sys.mem, len);
		ASSERT_EQ(ttm_resource_alloc(&i915->lmem.manager, NULL, &lp, len, 0, &lmem), 0);
		ASSERT_EQ(
		    ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &gp, len, 0, &lgtt),
		    0);
		ASSERT_EQ(i915_ggtt_bind_lmem(&i915->ggtt, lgtt->start, &i915->lmem, lmem), 0);
		ASSERT_EQ(i915_blt_copy(i915, NULL, i915_ggtt_offset(lgtt), sys.addr, len, &f1), 0);
		EXPECT_EQ(dma_fence_wait(f1, false), 0);
		EXPECT_EQ(dma_fence_get_status(f1), 1);
		memset(sys.mem, 0, len);
		ASSERT_EQ(i915_blt_copy(i915, NULL, sys.addr, i915_ggtt_offset(lgtt), len, &f2), 0);
		EXPECT_EQ(dma_fence_wait(f2, false), 0);
		EXPECT_EQ(dma_fence_get_status(f2), 1);
		EXPECT_UEQ(i915_test_checksum(sys.mem, len), sum);
		dma_fence_put(f1);
		dma_fence_put(f2);
		i915_ggtt_unbind(&i915->ggtt, lgtt->start, len / TTM_PAGE_SIZE);
		ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &lgtt);
		ttm_resource_free(&i915->lmem.manager, &lmem);
		i915_test_buf_fini(&sys);
	}
	EXPECT_EQ(i915_blt_copy(i915, NULL, 4096, 8192, 100, NULL), -EINVAL);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(device_destroy_refuses_while_ranges_allocated)
{
	struct i915_device *i915 = i915_test_device(false);
	const struct ttm_place sp = {.mem_type = I915_PL_STOLEN};
	struct ttm_resource *r;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(ttm_resource_alloc(&i915->stolen.manager, NULL, &sp, TTM_PAGE_SIZE, 0, &r), 0);
	EXPECT_EQ(i915_device_destroy(i915), -EBUSY);
	ttm_resource_free(&i915->stolen.manager, &r);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(device_create_rejects_bad_config)
{
	struct sim_gpu_config cfg;
	struct i915_device *i915 = NULL;

	i915_test_config(&cfg);
	cfg.aperture_size = cfg.ggtt_size * 2;
	EXPECT_EQ(i915_device_create_sim(&cfg, &i915), -EINVAL);
	EXPECT_NULL(i915);
	EXPECT_EQ(i915_device_create_sim(NULL, &i915), -EINVAL);
}
