// SPDX-License-Identifier: MIT
/* ttm_buddy_manager: what a CONTIGUOUS place accepts of a resource's blocks. */
#include <errno.h>

#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_resource.h>

#include "ktest.h"

#define PG TTM_PAGE_SIZE

/*
 * A resource is one run for a CONTIGUOUS place only when its blocks follow
 * each other in list order, as the kernel's amdgpu_is_vram_mgr_blocks_contiguous()
 * judges: the bytes of a resource are its blocks in list order, so blocks
 * that cover one run of addresses in another order still scatter the
 * resource (a CPU window from its first page would show them swapped).
 */
KTEST(ttm_buddy_manager_compatible_contiguous_needs_list_order)
{
	struct ttm_buddy_manager bman;
	struct ttm_resource_manager *man = &bman.manager;
	const struct ttm_place any = {.mem_type = TTM_PL_VRAM};
	const struct ttm_place contig = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_CONTIGUOUS};
	struct ttm_resource *page[8], *res = NULL, *run = NULL;
	struct drm_buddy_block *first, *second;
	struct ttm_buddy_resource *vres;
	uint64_t len;

	ASSERT_EQ(ttm_buddy_manager_init(&bman, 8, 0, 0), 0);
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, PG, 0, &page[i]), 0);
	/* Pages 3, 4 and 5 free: page 3 alone, [4, 6) merged into one block. */
	for (int i = 3; i < 6; i++)
		ttm_resource_free(man, &page[i]);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 3 * PG, 0, &res), 0);
	vres = to_ttm_buddy_resource(res);
	first = list_first_entry(&vres->blocks, struct drm_buddy_block, link);
	second = list_entry(first->link.next, struct drm_buddy_block, link);
	/* The larger block comes first: [4, 6) then [3, 4), one run in reverse. */
	ASSERT_UEQ(drm_buddy_block_offset(first), 4 * PG);
	ASSERT_UEQ(drm_buddy_block_offset(second), 3 * PG);
	EXPECT_UEQ(res->start, 3);
	EXPECT_FALSE(ttm_resource_is_linear(man, res));
	EXPECT_FALSE(ttm_resource_place_compatible(man, res, &contig));
	EXPECT_TRUE(ttm_resource_place_compatible(man, res, &any));
	ttm_resource_free(man, &res);

	/* The same pages asked for as one run: blocks in ascending order. */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &contig, 3 * PG, 0, &run), 0);
	EXPECT_UEQ(run->start, 3);
	EXPECT_UEQ(ttm_resource_io_segment(man, run, PG, &len), PG);
	EXPECT_UEQ(ttm_resource_io_segment(man, run, 2 * PG, &len), 2 * PG);
	EXPECT_TRUE(ttm_resource_is_linear(man, run));
	EXPECT_TRUE(ttm_resource_place_compatible(man, run, &contig));
	ttm_resource_free(man, &run);

	for (int i = 0; i < 8; i++)
		ttm_resource_free(man, &page[i]);
	EXPECT_UEQ(drm_buddy_avail(&bman.mm), 8 * PG);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

static bool want_cleared_answer;

static bool test_want_cleared(struct ttm_buffer_object *bo)
{
	(void)bo;
	return want_cleared_answer;
}

/*
 * Cleared state passes through the manager as the kernel's amdgpu VRAM
 * manager passes it: a resource its owner zeroed (set_cleared) goes back to
 * the buddy as cleared blocks, an allocation for a BO that wants zeroed
 * memory gets them (is_cleared: the owner may skip its clear), and other
 * allocations take dirty blocks first, keeping the cleared ones.
 */
KTEST(ttm_buddy_manager_cleared_blocks_pass_through)
{
	struct ttm_buddy_manager bman;
	struct ttm_resource_manager *man = &bman.manager;
	const struct ttm_place any = {.mem_type = TTM_PL_VRAM};
	struct ttm_resource *a = NULL, *b = NULL, *c = NULL, *d = NULL;

	ASSERT_EQ(ttm_buddy_manager_init(&bman, 16, 0, 0), 0);
	EXPECT_TRUE(bman.want_cleared == NULL);
	bman.want_cleared = test_want_cleared;
	want_cleared_answer = false;
	/* Nothing was ever cleared: a fresh manager's memory is dirty. */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 8 * PG, 0, &a), 0);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 8 * PG, 0, &b), 0);
	EXPECT_FALSE(ttm_buddy_resource_is_cleared(a));
	EXPECT_UEQ(bman.mm.clear_avail, 0);

	/* a was zeroed by its owner: its pages come back cleared; b's dirty. */
	ttm_buddy_resource_set_cleared(a);
	ttm_resource_free(man, &a);
	EXPECT_UEQ(bman.mm.clear_avail, 8 * PG);
	ttm_resource_free(man, &b);
	EXPECT_UEQ(bman.mm.clear_avail, 8 * PG);
	EXPECT_UEQ(drm_buddy_avail(&bman.mm), 16 * PG);

	/* A BO that does not care takes the dirty half first. */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 4 * PG, 0, &c), 0);
	EXPECT_FALSE(ttm_buddy_resource_is_cleared(c));
	EXPECT_UEQ(bman.mm.clear_avail, 8 * PG);

	/* A BO that wants zeroed memory gets cleared blocks and may skip its clear. */
	want_cleared_answer = true;
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 8 * PG, 0, &d), 0);
	EXPECT_TRUE(ttm_buddy_resource_is_cleared(d));
	EXPECT_UEQ(bman.mm.clear_avail, 0);
	/* Written since (not set_cleared): back as dirty. */
	ttm_resource_free(man, &d);
	EXPECT_UEQ(bman.mm.clear_avail, 0);
	ttm_resource_free(man, &c);
	EXPECT_UEQ(drm_buddy_avail(&bman.mm), 16 * PG);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}
