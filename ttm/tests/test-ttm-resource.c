// SPDX-License-Identifier: MIT
/* ttm_resource and the SYSTEM, range and buddy managers. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_range_manager.h>
#include <ttm/ttm_resource.h>

#include "ktest.h"
#include "ttm_test_helpers.h"

#define PG TTM_PAGE_SIZE

static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};

KTEST(ttm_resource_manager_init_usage_starts_zero)
{
	struct ttm_resource_manager man;
	struct ttm_resource *a = NULL, *b = NULL;

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	EXPECT_TRUE(man.use_type);
	EXPECT_TRUE(man.use_tt);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), 0);
	ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, 3 * PG, 0, &a), 0);
	/* Sizes are rounded up to whole pages. */
	ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, 1, 0, &b), 0);
	EXPECT_UEQ(b->size, PG);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), 4 * PG);
	ttm_resource_free(&man, &a);
	EXPECT_TRUE(a == NULL);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), PG);
	ttm_resource_free(&man, &b);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), 0);
	ttm_resource_free(&man, &b); /* NULL is a no-op */
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
}

/*
 * The kernel's ttm_resource_manager_init_basic: a manager initialises
 * without any callbacks (the kernel's init takes none); every field starts
 * defined. Without an alloc callback it allocates nothing; a resource set up
 * on it directly is still charged and uncharged.
 */
KTEST(ttm_resource_manager_init_basic)
{
	struct ttm_resource_manager man;
	struct ttm_resource res, *r = NULL, *p = &res;

	memset(&man, 0xa5, sizeof(man));
	ASSERT_EQ(ttm_resource_manager_init(&man, NULL, 4), 0);
	EXPECT_UEQ(man.size, 4);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), 0);
	EXPECT_FALSE(man.use_type);
	EXPECT_FALSE(man.use_tt);
	EXPECT_NULL(ttm_resource_manager_get_move(&man));
	for (unsigned i = 0; i < TTM_MAX_BO_PRIORITY; i++)
		EXPECT_TRUE(list_empty(&man.lru[i]));

	EXPECT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &r), -EINVAL);
	EXPECT_NULL(r);
	ttm_resource_init(&man, NULL, &sys_place, PG, &res);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), PG);
	ttm_resource_free(&man, &p);
	EXPECT_NULL(p);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), 0);
	EXPECT_EQ(ttm_resource_manager_fini(&man), 0);
}

KTEST(ttm_resource_alloc_zero_size_einval)
{
	struct ttm_resource_manager man;
	struct ttm_resource *r = (struct ttm_resource *)&man;

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	EXPECT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, 0, 0, &r), -EINVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
}

/* SYSTEM has no size: a SYSTEM resource satisfies a SYSTEM place without range limits. */
KTEST(ttm_resource_compatible_system_unbounded)
{
	struct ttm_resource_manager man;
	struct ttm_resource *r = NULL;
	struct ttm_placement pl = {.num_placement = 1, .placement = &sys_place};

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, 64 * 4096, 0, &r), 0);
	EXPECT_TRUE(ttm_resource_compatible(&man, r, &pl, false));
	EXPECT_TRUE(ttm_resource_compatible(&man, r, &pl, true));
	ttm_resource_free(&man, &r);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
}

KTEST(ttm_resource_manager_fini_busy_while_resource_remains)
{
	struct ttm_resource_manager man;
	struct ttm_range_manager rman;
	struct ttm_buddy_manager bman;
	struct ttm_place tt = {.mem_type = TTM_PL_TT}, vram = {.mem_type = TTM_PL_VRAM};
	struct ttm_resource *a, *b, *c;

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	ASSERT_EQ(ttm_range_manager_init(&rman, true, 64), 0);
	ASSERT_EQ(ttm_buddy_manager_init(&bman, 64, 0, 0), 0);
	ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &a), 0);
	ASSERT_EQ(ttm_resource_alloc(&rman.manager, NULL, &tt, PG, 0, &b), 0);
	ASSERT_EQ(ttm_resource_alloc(&bman.manager, NULL, &vram, PG, 0, &c), 0);
	EXPECT_EQ(ttm_sys_manager_fini(&man), -EBUSY);
	EXPECT_EQ(ttm_range_manager_fini(&rman), -EBUSY);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), -EBUSY);
	/* Refusing left everything usable. */
	ttm_resource_free(&man, &a);
	ttm_resource_free(&rman.manager, &b);
	ttm_resource_free(&bman.manager, &c);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

KTEST(ttm_resource_alloc_fault_point_enomem_usage_unchanged)
{
	struct ttm_resource_manager man;
	struct ttm_range_manager rman;
	struct ttm_place tt = {.mem_type = TTM_PL_TT};
	struct ttm_resource *a = NULL, *r;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	ASSERT_EQ(ttm_range_manager_init(&rman, true, 16), 0);
	ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &a), 0);
	fault_set_nth(&ttm_fault_resource_alloc, 1);
	r = a;
	EXPECT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &r), -ENOMEM);
	EXPECT_TRUE(r == NULL);
	EXPECT_UEQ(ttm_resource_manager_usage(&man), PG);
	fault_set_nth(&ttm_fault_resource_alloc, 1);
	EXPECT_EQ(ttm_resource_alloc(&rman.manager, NULL, &tt, PG, 0, &r), -ENOMEM);
	EXPECT_UEQ(ttm_resource_manager_usage(&rman.manager), 0);
	EXPECT_TRUE(drm_mm_clean(&rman.mm));
	fault_reset(&ttm_fault_resource_alloc);
	/* The next call goes through again. */
	ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &r), 0);
	ttm_resource_free(&man, &r);
	ttm_resource_free(&man, &a);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
}

KTEST(ttm_range_manager_alloc_range_topdown_alignment)
{
	struct ttm_range_manager rman;
	struct ttm_resource_manager *man = &rman.manager;
	struct ttm_place low = {.mem_type = TTM_PL_TT};
	struct ttm_place top = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};
	struct ttm_place win = {.fpfn = 100, .lpfn = 110, .mem_type = TTM_PL_TT};
	struct ttm_place wintop = {
	    .fpfn = 100, .lpfn = 110, .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};
	struct ttm_resource *a, *b, *c, *d, *e;

	ASSERT_EQ(ttm_range_manager_init(&rman, true, 1024), 0);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &low, 4 * PG, 0, &a), 0);
	EXPECT_UEQ(a->start, 0);
	EXPECT_TRUE(a->placement & TTM_PL_FLAG_CONTIGUOUS);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &top, 4 * PG, 0, &b), 0);
	EXPECT_UEQ(b->start, 1020);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &win, 3 * PG, 0, &c), 0);
	EXPECT_UEQ(c->start, 100);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &wintop, 3 * PG, 0, &d), 0);
	EXPECT_UEQ(d->start, 107);
	/* Alignment of 64 pages: the first free multiple after a (pages 0..3). */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &low, PG, 64, &e), 0);
	EXPECT_UEQ(e->start % 64, 0);
	EXPECT_UEQ(e->start, 64);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 15 * PG);
	ttm_resource_free(man, &a);
	ttm_resource_free(man, &b);
	ttm_resource_free(man, &c);
	ttm_resource_free(man, &d);
	ttm_resource_free(man, &e);
	EXPECT_TRUE(drm_mm_clean(&rman.mm));
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
}

KTEST(ttm_range_manager_alloc_full_enospc)
{
	struct ttm_range_manager rman;
	struct ttm_resource_manager *man = &rman.manager;
	struct ttm_place tt = {.mem_type = TTM_PL_TT};
	struct ttm_place win = {.fpfn = 4, .lpfn = 8, .mem_type = TTM_PL_TT};
	struct ttm_resource *r[16], *x = NULL;

	ASSERT_EQ(ttm_range_manager_init(&rman, false, 16), 0);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &tt, 17 * PG, 0, &x), -ENOSPC);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &win, 5 * PG, 0, &x), -ENOSPC);
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(ttm_resource_alloc(man, NULL, &tt, PG, 0, &r[i]), 0);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &tt, PG, 0, &x), -ENOSPC);
	EXPECT_TRUE(x == NULL);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 16 * PG);
	ttm_resource_free(man, &r[5]);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &tt, 2 * PG, 0, &x), -ENOSPC);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &win, PG, 0, &x), 0);
	EXPECT_UEQ(x->start, 5);
	ttm_resource_free(man, &x);
	for (int i = 0; i < 16; i++)
		ttm_resource_free(man, &r[i]);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 0);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
}

static uint64_t blocks_lo_hi(struct ttm_buddy_manager *bman, struct ttm_resource *res, uint64_t *hi)
{
	struct drm_buddy_block *b;
	uint64_t lo = UINT64_MAX;

	*hi = 0;
	list_for_each_entry (b, &to_ttm_buddy_resource(res)->blocks, struct drm_buddy_block, link) {
		uint64_t s = drm_buddy_block_offset(b) / PG;
		uint64_t e = s + drm_buddy_block_size(&bman->mm, b) / PG;

		lo = s < lo ? s : lo;
		*hi = e > *hi ? e : *hi;
	}
	return lo;
}

KTEST(ttm_buddy_manager_alloc_contiguous_topdown_visible)
{
	struct ttm_buddy_manager bman;
	struct ttm_resource_manager *man = &bman.manager;
	struct ttm_place any = {.mem_type = TTM_PL_VRAM};
	struct ttm_place top = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_TOPDOWN};
	struct ttm_place vis = {.mem_type = TTM_PL_VRAM,
				.flags = TTM_PL_FLAG_MAPPABLE | TTM_PL_FLAG_TOPDOWN};
	struct ttm_place contig = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_CONTIGUOUS};
	struct ttm_place win = {.fpfn = 512, .lpfn = 600, .mem_type = TTM_PL_VRAM};
	struct ttm_resource *a, *b, *c, *d, *e;
	uint64_t lo, hi;

	ASSERT_EQ(ttm_buddy_manager_init(&bman, 1024, 256, 0), 0);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 3 * PG, 0, &a), 0);
	EXPECT_TRUE(a->bus.is_iomem);
	lo = blocks_lo_hi(&bman, a, &hi);
	EXPECT_UEQ(a->start, lo);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &top, 8 * PG, 0, &b), 0);
	lo = blocks_lo_hi(&bman, b, &hi);
	EXPECT_UEQ(hi, 1024);
	EXPECT_UEQ(lo, 1016);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &vis, 4 * PG, 0, &c), 0);
	lo = blocks_lo_hi(&bman, c, &hi);
	EXPECT_ULE(hi, 256);
	EXPECT_UEQ(hi, 256); /* topdown inside the visible window */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &contig, 6 * PG, 0, &d), 0);
	lo = blocks_lo_hi(&bman, d, &hi);
	EXPECT_UEQ(hi - lo, 6);
	EXPECT_UEQ(d->size, 6 * PG);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &win, 20 * PG, 0, &e), 0);
	lo = blocks_lo_hi(&bman, e, &hi);
	EXPECT_GE(lo, 512);
	EXPECT_ULE(hi, 600);
	EXPECT_UEQ(ttm_resource_manager_usage(man), (3 + 8 + 4 + 6 + 20) * PG);
	ttm_resource_free(man, &a);
	ttm_resource_free(man, &b);
	ttm_resource_free(man, &c);
	ttm_resource_free(man, &d);
	ttm_resource_free(man, &e);
	EXPECT_UEQ(drm_buddy_avail(&bman.mm), 1024 * PG);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

KTEST(ttm_buddy_manager_alloc_full_enospc)
{
	struct ttm_buddy_manager bman;
	struct ttm_resource_manager *man = &bman.manager;
	struct ttm_place any = {.mem_type = TTM_PL_VRAM};
	struct ttm_place vis = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_MAPPABLE};
	struct ttm_resource *a, *b, *x = NULL;

	ASSERT_EQ(ttm_buddy_manager_init(&bman, 64, 16, 0), 0);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &vis, 17 * PG, 0, &x), -ENOSPC);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &vis, 16 * PG, 0, &a), 0);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &vis, PG, 0, &x), -ENOSPC);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 48 * PG, 0, &b), 0);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &any, PG, 0, &x), -ENOSPC);
	EXPECT_TRUE(x == NULL);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 64 * PG);
	ttm_resource_free(man, &a);
	ttm_resource_free(man, &b);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 0);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

static struct ttm_resource *lru_at(struct ttm_resource_manager *man, unsigned prio, int idx)
{
	struct list_head *pos = man->lru[prio].next;

	while (idx-- > 0 && pos != &man->lru[prio])
		pos = pos->next;
	return pos == &man->lru[prio] ? NULL : list_entry(pos, struct ttm_resource, lru);
}

KTEST(ttm_resource_lru_order_per_priority_move_tail)
{
	struct ttm_resource_manager man;
	struct ttm_resource *r[6];

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	for (int i = 0; i < 6; i++) {
		ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &r[i]), 0);
		r[i]->priority = (unsigned)(i % 2) * 3; /* 0 or 3 */
		ttm_resource_lru_add(&man, r[i]);
	}
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 0), 3);
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 3), 3);
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 1), 0);
	EXPECT_TRUE(lru_at(&man, 0, 0) == r[0]);
	EXPECT_TRUE(lru_at(&man, 0, 1) == r[2]);
	EXPECT_TRUE(lru_at(&man, 0, 2) == r[4]);
	EXPECT_TRUE(lru_at(&man, 3, 0) == r[1]);
	ttm_resource_lru_move_tail(&man, r[0]);
	EXPECT_TRUE(lru_at(&man, 0, 0) == r[2]);
	EXPECT_TRUE(lru_at(&man, 0, 2) == r[0]);
	EXPECT_TRUE(lru_at(&man, 3, 0) == r[1]); /* other priority untouched */
	ttm_resource_lru_del(&man, r[2]);
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 0), 2);
	EXPECT_TRUE(lru_at(&man, 0, 0) == r[4]);
	/* free takes resources off the LRU */
	for (int i = 0; i < 6; i++)
		ttm_resource_free(&man, &r[i]);
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 0), 0);
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 3), 0);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
}

KTEST(ttm_lru_bulk_move_tail_keeps_range_adjacent)
{
	struct ttm_resource_manager man;
	struct ttm_resource_manager *mans[TTM_NUM_MEM_TYPES] = {&man};
	struct ttm_lru_bulk_move bulk;
	struct ttm_resource *r[5];

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	ttm_lru_bulk_move_init(&bulk);
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(ttm_resource_alloc(&man, NULL, &sys_place, PG, 0, &r[i]), 0);
		EXPECT_EQ(ttm_lru_bulk_move_add(&bulk, &man, r[i]), -EINVAL);
		ttm_resource_lru_add(&man, r[i]);
	}
	/* Bulk = {r0, r2}: r2 is pulled next to r0. LRU: r0 r2 r1 r3 r4 */
	ASSERT_EQ(ttm_lru_bulk_move_add(&bulk, &man, r[0]), 0);
	ASSERT_EQ(ttm_lru_bulk_move_add(&bulk, &man, r[2]), 0);
	EXPECT_EQ(ttm_lru_bulk_move_add(&bulk, &man, r[2]), -EBUSY);
	EXPECT_TRUE(lru_at(&man, 0, 1) == r[2]);
	ttm_lru_bulk_move_tail(&bulk, mans);
	/* LRU: r1 r3 r4 r0 r2 */
	EXPECT_TRUE(lru_at(&man, 0, 0) == r[1]);
	EXPECT_TRUE(lru_at(&man, 0, 3) == r[0]);
	EXPECT_TRUE(lru_at(&man, 0, 4) == r[2]);
	/* Move-to-tail of a bulk member stays within its range. */
	ttm_resource_lru_move_tail(&man, r[1]);
	ttm_resource_lru_move_tail(&man, r[0]);
	/* LRU: r3 r4 r2 r0 r1 */
	EXPECT_TRUE(lru_at(&man, 0, 2) == r[2]);
	EXPECT_TRUE(lru_at(&man, 0, 3) == r[0]);
	EXPECT_TRUE(lru_at(&man, 0, 4) == r[1]);
	ttm_lru_bulk_move_tail(&bulk, mans);
	/* LRU: r3 r4 r1 r2 r0 */
	EXPECT_TRUE(lru_at(&man, 0, 2) == r[1]);
	EXPECT_TRUE(lru_at(&man, 0, 3) == r[2]);
	EXPECT_TRUE(lru_at(&man, 0, 4) == r[0]);
	ttm_resource_free(&man, &r[2]);
	EXPECT_TRUE(bulk.pos[0][0].first == r[0] && bulk.pos[0][0].last == r[0]);
	ttm_resource_free(&man, &r[0]);
	EXPECT_TRUE(bulk.pos[0][0].first == NULL && bulk.pos[0][0].last == NULL);
	ttm_lru_bulk_move_tail(&bulk, mans);
	EXPECT_EQ(ttm_resource_manager_lru_count(&man, 0), 3);
	for (int i = 0; i < 5; i++)
		ttm_resource_free(&man, &r[i]);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
}

KTEST(ttm_resource_compatible_decisions)
{
	struct ttm_range_manager rman;
	struct ttm_buddy_manager bman;
	struct ttm_place tt_any = {.mem_type = TTM_PL_TT};
	struct ttm_place tt_low = {.fpfn = 0, .lpfn = 8, .mem_type = TTM_PL_TT};
	struct ttm_place tt_hi = {.fpfn = 512, .mem_type = TTM_PL_TT};
	struct ttm_place vram_any = {.mem_type = TTM_PL_VRAM};
	struct ttm_place vram_contig = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_CONTIGUOUS};
	struct ttm_place vram_vis = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_MAPPABLE};
	struct ttm_place vram_top = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_TOPDOWN};
	struct ttm_place hi_fallback = {
	    .fpfn = 512, .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_FALLBACK};
	struct ttm_place hi_desired = {
	    .fpfn = 512, .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_DESIRED};
	struct ttm_placement p;
	struct ttm_resource *t, *v, *w;
	struct drm_buddy_block *blk;
	unsigned nblocks = 0;

	ASSERT_EQ(ttm_range_manager_init(&rman, true, 1024), 0);
	ASSERT_EQ(ttm_buddy_manager_init(&bman, 1024, 256, 0), 0);
	ASSERT_EQ(ttm_resource_alloc(&rman.manager, NULL, &tt_hi, 4 * PG, 0, &t), 0);
	EXPECT_UEQ(t->start, 512);

	p = (struct ttm_placement){1, &tt_any};
	EXPECT_TRUE(ttm_resource_compatible(&rman.manager, t, &p, false));
	p = (struct ttm_placement){1, &tt_low};
	EXPECT_FALSE(ttm_resource_compatible(&rman.manager, t, &p, false));
	p = (struct ttm_placement){1, &vram_any}; /* other type */
	EXPECT_FALSE(ttm_resource_compatible(&rman.manager, t, &p, false));
	const struct ttm_place pl2[] = {tt_low, hi_fallback};
	p = (struct ttm_placement){2, pl2};
	EXPECT_FALSE(ttm_resource_compatible(&rman.manager, t, &p, false));
	EXPECT_TRUE(ttm_resource_compatible(&rman.manager, t, &p, true));
	p = (struct ttm_placement){1, &hi_desired};
	EXPECT_TRUE(ttm_resource_compatible(&rman.manager, t, &p, false));
	EXPECT_FALSE(ttm_resource_compatible(&rman.manager, t, &p, true));
	EXPECT_TRUE(ttm_resource_intersects(&rman.manager, t, &tt_hi, PG));
	EXPECT_FALSE(ttm_resource_intersects(&rman.manager, t, &tt_low, PG));

	/* Scattered VRAM: fragment the space so 3 pages cannot come as one block. */
	ASSERT_EQ(ttm_resource_alloc(&bman.manager, NULL, &vram_top, 1021 * PG, 0, &w), 0);
	ASSERT_EQ(ttm_resource_alloc(&bman.manager, NULL, &vram_any, 3 * PG, 0, &v), 0);
	list_for_each_entry (blk, &to_ttm_buddy_resource(v)->blocks, struct drm_buddy_block, link)
		nblocks++;
	p = (struct ttm_placement){1, &vram_any};
	EXPECT_TRUE(ttm_resource_compatible(&bman.manager, v, &p, false));
	p = (struct ttm_placement){1, &vram_vis};
	EXPECT_TRUE(ttm_resource_compatible(&bman.manager, v, &p, false));
	p = (struct ttm_placement){1, &vram_vis};
	EXPECT_FALSE(ttm_resource_compatible(&bman.manager, w, &p, false));
	EXPECT_TRUE(ttm_resource_intersects(&bman.manager, w, &vram_vis, PG));
	p = (struct ttm_placement){1, &vram_contig};
	/* The 3 pages are contiguous here (0..2) even in two blocks. */
	EXPECT_TRUE(ttm_resource_compatible(&bman.manager, v, &p, false));
	EXPECT_GE(nblocks, 1);
	ttm_resource_free(&bman.manager, &w);
	ttm_resource_free(&bman.manager, &v);
	ttm_resource_free(&rman.manager, &t);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
}

static void read_all(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
}

KTEST(ttm_resource_manager_debug_prints_size_usage)
{
	struct ttm_range_manager rman;
	struct ttm_buddy_manager bman;
	struct ttm_place tt = {.mem_type = TTM_PL_TT}, vram = {.mem_type = TTM_PL_VRAM};
	struct ttm_resource *r, *v;
	char buf[8192];
	FILE *f;

	ASSERT_EQ(ttm_range_manager_init(&rman, true, 100), 0);
	ASSERT_EQ(ttm_buddy_manager_init(&bman, 256, 64, 0), 0);
	ASSERT_EQ(ttm_resource_alloc(&rman.manager, NULL, &tt, 3 * PG, 0, &r), 0);
	ASSERT_EQ(ttm_resource_alloc(&bman.manager, NULL, &vram, 2 * PG, 0, &v), 0);
	ttm_resource_lru_add(&rman.manager, r);
	f = tmpfile();
	ASSERT_TRUE(f != NULL);
	ttm_resource_manager_debug(&rman.manager, f);
	read_all(f, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "size: 100 pages") != NULL);
	EXPECT_TRUE(strstr(buf, "usage: 12288 bytes") != NULL);
	EXPECT_TRUE(strstr(buf, "lru[0]: 1") != NULL);
	fclose(f);
	f = tmpfile();
	ASSERT_TRUE(f != NULL);
	ttm_resource_manager_debug(&bman.manager, f);
	read_all(f, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "size: 256 pages") != NULL);
	EXPECT_TRUE(strstr(buf, "usage: 8192 bytes") != NULL);
	EXPECT_TRUE(strstr(buf, "visible_size: 64 pages") != NULL);
	fclose(f);
	ttm_resource_free(&rman.manager, &r);
	ttm_resource_free(&bman.manager, &v);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

KTEST(ttm_resource_manager_set_move_keeps_later_fence)
{
	struct ttm_resource_manager man;
	struct dma_fence *f1, *f2, *got;
	uint64_t ctx = dma_fence_context_alloc(1);

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	f1 = ttm_test_fence_create_on(ctx, 1);
	f2 = ttm_test_fence_create_on(ctx, 2);
	ASSERT_NOT_NULL(f1);
	ASSERT_NOT_NULL(f2);
	EXPECT_TRUE(ttm_resource_manager_get_move(&man) == NULL);
	ttm_resource_manager_set_move(&man, f2);
	ttm_resource_manager_set_move(&man, f1); /* earlier: ignored */
	got = ttm_resource_manager_get_move(&man);
	EXPECT_TRUE(got == f2);
	dma_fence_put(got);
	dma_fence_signal(f1);
	dma_fence_signal(f2);
	EXPECT_EQ(ttm_resource_manager_cleanup_move(&man, false), 0);
	EXPECT_TRUE(ttm_resource_manager_get_move(&man) == NULL);
	ttm_resource_manager_set_move(&man, f1);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0); /* drops the signalled fence */
	/* Heap fences: ASan sees a reference the manager dropped twice or kept. */
	dma_fence_put(f1);
	dma_fence_put(f2);
}

struct churn_arg {
	struct ttm_resource_manager *man;
	struct ttm_place place;
	unsigned iters;
	int errors;
};

/* Allocate and free in a loop; the manager's own lock is all that serialises. */
static void *churn_thread(void *p)
{
	struct churn_arg *a = p;
	struct ttm_resource *held[8] = {NULL};

	for (unsigned i = 0; i < a->iters; i++) {
		unsigned slot = i % 8;
		int ret;

		ttm_resource_free(a->man, &held[slot]);
		ret = ttm_resource_alloc(a->man, NULL, &a->place, (1 + i % 3) * PG, 0, &held[slot]);
		if (ret && ret != -ENOSPC)
			a->errors++;
	}
	for (unsigned s = 0; s < 8; s++)
		ttm_resource_free(a->man, &held[s]);
	return NULL;
}

KTEST(ttm_resource_alloc_two_threads_usage_balanced)
{
	struct ttm_range_manager rman;
	struct ttm_buddy_manager bman;
	struct churn_arg args[4];
	pthread_t th[4];

	ASSERT_EQ(ttm_range_manager_init(&rman, true, 64), 0);
	ASSERT_EQ(ttm_buddy_manager_init(&bman, 64, 0, 0), 0);
	for (int i = 0; i < 4; i++) {
		args[i].man = i < 2 ? &rman.manager : &bman.manager;
		args[i].place = (struct ttm_place){.mem_type = i < 2 ? TTM_PL_TT : TTM_PL_VRAM,
						   .flags = i % 2 ? TTM_PL_FLAG_TOPDOWN : 0};
		args[i].iters = 2000 * ktest_scale();
		args[i].errors = 0;
		ASSERT_EQ(pthread_create(&th[i], NULL, churn_thread, &args[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(args[i].errors, 0);
	}
	EXPECT_UEQ(ttm_resource_manager_usage(&rman.manager), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(&bman.manager), 0);
	EXPECT_TRUE(drm_mm_clean(&rman.mm));
	EXPECT_UEQ(drm_buddy_avail(&bman.mm), 64 * PG);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

KTEST(ttm_buddy_manager_alloc_alignment_blocks_aligned)
{
	struct ttm_buddy_manager bman;
	struct ttm_resource_manager *man = &bman.manager;
	struct ttm_place any = {.mem_type = TTM_PL_VRAM};
	struct ttm_resource *a, *b, *x = NULL;
	struct drm_buddy_block *blk;

	ASSERT_EQ(ttm_buddy_manager_init(&bman, 256, 0, 0), 0);
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, PG, 0, &a), 0);
	/* 16-page alignment: every block starts on 16 pages, size rounds up. */
	ASSERT_EQ(ttm_resource_alloc(man, NULL, &any, 20 * PG, 16, &b), 0);
	EXPECT_UEQ(b->size, 32 * PG);
	EXPECT_UEQ(b->start % 16, 0);
	list_for_each_entry (blk, &to_ttm_buddy_resource(b)->blocks, struct drm_buddy_block, link)
		EXPECT_UEQ(drm_buddy_block_offset(blk) % (16 * PG), 0);
	EXPECT_EQ(ttm_resource_alloc(man, NULL, &any, PG, 3, &x), -EINVAL);
	EXPECT_TRUE(x == NULL);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 33 * PG);
	ttm_resource_free(man, &a);
	ttm_resource_free(man, &b);
	EXPECT_EQ(ttm_buddy_manager_fini(&bman), 0);
}

KTEST(ttm_range_manager_alloc_bad_alignment_einval)
{
	struct ttm_range_manager rman;
	struct ttm_place tt = {.mem_type = TTM_PL_TT};
	struct ttm_resource *x = NULL;

	ASSERT_EQ(ttm_range_manager_init(&rman, true, 64), 0);
	EXPECT_EQ(ttm_resource_alloc(&rman.manager, NULL, &tt, PG, 3, &x), -EINVAL);
	EXPECT_TRUE(x == NULL);
	EXPECT_UEQ(ttm_resource_manager_usage(&rman.manager), 0);
	EXPECT_EQ(ttm_range_manager_fini(&rman), 0);
}

KTEST(ttm_resource_manager_cleanup_move_reports_fence_error)
{
	struct ttm_resource_manager man;
	struct dma_fence *f;

	ASSERT_EQ(ttm_sys_manager_init(&man), 0);
	f = ttm_test_fence_create();
	ASSERT_NOT_NULL(f);
	ttm_resource_manager_set_move(&man, f);
	dma_fence_set_error(f, -EIO);
	dma_fence_signal(f);
	EXPECT_EQ(ttm_resource_manager_cleanup_move(&man, false), -EIO);
	/* Signalled, so dropped even though it failed. */
	EXPECT_TRUE(ttm_resource_manager_get_move(&man) == NULL);
	EXPECT_EQ(ttm_sys_manager_fini(&man), 0);
	dma_fence_put(f);
}

static unsigned list_len_locked(struct ttm_device *bdev, struct list_head *head)
{
	struct list_head *e;
	unsigned n = 0;

	ttm_lock(&bdev->lru_lock);
	for (e = head->next; e != head; e = e->next)
		n++;
	ttm_unlock(&bdev->lru_lock);
	return n;
}

/* A device with VRAM and one BO (in SYSTEM, priority 2) for the cases below. */
static struct ttm_buffer_object *lru_case_init(struct ttm_test_device *tdev)
{
	struct ttm_test_device_cfg cfg = {.tt_pages = 16, .vram_pages = 16};
	struct ttm_buffer_object *bo = NULL;

	if (ttm_test_device_init(tdev, &cfg))
		ktest_abort_case();
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, 2 * PG, TTM_PL_SYSTEM, &bo), 0);
	ttm_bo_reserve(bo, false, false, NULL);
	ttm_lock(&tdev->bdev.lru_lock);
	bo->priority = 2;
	ttm_bo_move_to_lru_tail(bo);
	ttm_unlock(&tdev->bdev.lru_lock);
	ttm_bo_unreserve(bo);
	return bo;
}

/*
 * The kernel's ttm_resource_init_basic and ttm_resource_fini_basic: a BO's
 * resource is filled in, charged and put on its manager's LRU for the BO's
 * priority by ttm_resource_init(); ttm_resource_fini() takes it off and
 * uncharges it.
 */
KTEST(ttm_resource_init_basic)
{
	const struct ttm_place vram = {.mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_TOPDOWN};
	struct ttm_test_device tdev;
	struct ttm_buffer_object *bo = lru_case_init(&tdev);
	struct ttm_resource_manager *man = ttm_manager_type(&tdev.bdev, TTM_PL_VRAM);
	struct ttm_resource res;

	memset(&res, 0xa5, sizeof(res));
	ASSERT_TRUE(list_empty(&man->lru[2]));
	ttm_resource_init(man, bo, &vram, 2 * PG, &res);
	EXPECT_UEQ(res.start, 0);
	EXPECT_UEQ(res.size, 2 * PG);
	EXPECT_UEQ(res.mem_type, TTM_PL_VRAM);
	EXPECT_UEQ(res.placement, TTM_PL_FLAG_TOPDOWN);
	EXPECT_TRUE(res.bo == bo);
	EXPECT_NULL(res.bus.addr);
	EXPECT_UEQ(res.bus.offset, 0);
	EXPECT_FALSE(res.bus.is_iomem);
	EXPECT_NULL(res.bulk_move);
	EXPECT_UEQ(res.priority, 2);
	EXPECT_UEQ(ttm_resource_manager_usage(man), 2 * PG);
	EXPECT_UEQ(list_len_locked(&tdev.bdev, &man->lru[2]), 1);
	EXPECT_TRUE(man->lru[2].next == &res.lru);

	ttm_resource_fini(man, &res);
	EXPECT_TRUE(list_empty(&res.lru));
	EXPECT_TRUE(list_empty(&man->lru[2]));
	EXPECT_UEQ(ttm_resource_manager_usage(man), 0);
	ttm_bo_put(bo);
	EXPECT_EQ(ttm_test_device_fini(&tdev), 0);
}

/* The kernel's ttm_resource_init_pinned: a pinned BO's goes on the pinned list. */
KTEST(ttm_resource_init_pinned)
{
	const struct ttm_place vram = {.mem_type = TTM_PL_VRAM};
	struct ttm_test_device tdev;
	struct ttm_buffer_object *bo = lru_case_init(&tdev);
	struct ttm_resource_manager *man = ttm_manager_type(&tdev.bdev, TTM_PL_VRAM);
	struct ttm_resource res;
	unsigned pinned;

	ttm_bo_reserve(bo, false, false, NULL);
	ttm_bo_pin(bo);
	/* The BO's own SYSTEM resource is there already. */
	pinned = list_len_locked(&tdev.bdev, &tdev.bdev.pinned);
	ttm_resource_init(man, bo, &vram, 2 * PG, &res);
	EXPECT_UEQ(list_len_locked(&tdev.bdev, &tdev.bdev.pinned), pinned + 1);
	EXPECT_TRUE(list_empty(&man->lru[2]));
	ttm_bo_unpin(bo);
	ttm_resource_fini(man, &res);
	ttm_bo_unreserve(bo);
	EXPECT_UEQ(list_len_locked(&tdev.bdev, &tdev.bdev.pinned), pinned - 1);
	EXPECT_TRUE(list_empty(&res.lru));
	EXPECT_UEQ(ttm_resource_manager_usage(man), 0);
	ttm_bo_put(bo);
	EXPECT_EQ(ttm_test_device_fini(&tdev), 0);
}
