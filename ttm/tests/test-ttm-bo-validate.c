// SPDX-License-Identifier: MIT
/*
 * ttm_bo_validate(): placement passes, no-op validates, errors, fallback,
 * multi-hop, gutting, move fences and every eviction rule (the kernel's
 * ttm_bo_validate KUnit behaviours, on the shared mock driver).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_range_manager.h>
#include <ttm/ww_lockdep.h>

#include "ktest.h"
#include "ttm_test_helpers.h"

#define PAGE TTM_PAGE_SIZE
#define BO_PAGES 4
#define BO_SIZE (BO_PAGES * PAGE)

static struct ttm_test_device tdev;

static struct ttm_device *dev_init(uint64_t tt_pages, uint64_t vram_pages, bool multihop)
{
	struct ttm_test_device_cfg cfg = {
	    .tt_pages = tt_pages,
	    .vram_pages = vram_pages,
	    .multihop = multihop,
	};

	if (ttm_test_device_init(&tdev, &cfg))
		ktest_abort_case();
	return &tdev.bdev;
}

static void dev_fini(void)
{
	EXPECT_EQ(ttm_test_device_fini(&tdev), 0);
}

static struct ttm_resource_manager *man(unsigned type)
{
	return ttm_manager_type(&tdev.bdev, type);
}

/* An unreserved device BO of @size in @type (ASSERT-checked). */
static struct ttm_buffer_object *bo_in(uint64_t size, unsigned type)
{
	struct ttm_buffer_object *bo = NULL;

	ASSERT_EQ(ttm_test_bo_create_in(&tdev.bdev, size, type, &bo), 0);
	return bo;
}

/* ttm_test_bo_reserve_validate() into @first, or @second when @first will not do. */
static int validate_to_either(struct ttm_buffer_object *bo, unsigned first, unsigned second,
			      struct ttm_operation_ctx *ctx)
{
	struct ttm_test_placement p;

	ttm_test_placement(&p, first, 0);
	return ttm_test_bo_reserve_validate(bo, ttm_test_placement_add(&p, second, 0), ctx);
}

/* Attach a fresh unsignalled fence (KERNEL usage) to @bo; returned referenced. */
static struct dma_fence *bo_busy(struct ttm_buffer_object *bo)
{
	struct dma_fence *f = ttm_test_bo_busy(bo, DMA_RESV_USAGE_KERNEL);

	ASSERT_NOT_NULL(f);
	return f;
}

/*
 * A device whose VRAM has a pipelined move @f pending into it, and an
 * unreserved BO in SYSTEM to validate there.
 */
static struct ttm_buffer_object *bo_behind_move(struct dma_fence *f)
{
	dev_init(64, 64, false);
	ttm_resource_manager_set_move(man(TTM_PL_VRAM), f);
	return bo_in(BO_SIZE, TTM_PL_SYSTEM);
}

/* A device whose VRAM holds one BO, *@victim, and a BO in SYSTEM to take its place. */
static struct ttm_buffer_object *bo_vs_victim(struct ttm_buffer_object **victim)
{
	dev_init(64, BO_PAGES, false);
	*victim = bo_in(BO_SIZE, TTM_PL_VRAM);
	return bo_in(BO_SIZE, TTM_PL_SYSTEM);
}

/* The end of a bo_vs_victim() case where @bo won: it is in VRAM, @victim in TT. */
static void bo_vs_victim_won(struct ttm_buffer_object *bo, struct ttm_buffer_object *victim)
{
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(victim), TTM_PL_TT);
	ttm_bo_put(victim);
	ttm_bo_put(bo);
	dev_fini();
}

struct delayed_signal {
	pthread_t thread;
	struct dma_fence *fence;
	long delay_ms;
	int error;
};

static void *delayed_signal_fn(void *arg)
{
	struct delayed_signal *d = arg;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = d->delay_ms * 1000000L};

	nanosleep(&ts, NULL);
	if (d->error)
		dma_fence_set_error(d->fence, d->error);
	dma_fence_signal(d->fence);
	return NULL;
}

/*
 * Signal @f from another thread after @ms, so a waiter really sleeps; with
 * @error (0: none) set on it first.
 */
static void signal_later_error(struct delayed_signal *d, struct dma_fence *f, long ms, int error)
{
	d->fence = f;
	d->delay_ms = ms;
	d->error = error;
	if (pthread_create(&d->thread, NULL, delayed_signal_fn, d))
		ktest_abort_case();
}

static void signal_later(struct delayed_signal *d, struct dma_fence *f, long ms)
{
	signal_later_error(d, f, ms, 0);
}

KTEST(ttm_bo_validate_basic)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;

	dev_init(64, 64, false);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 1), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_TT, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_TT);
	EXPECT_UEQ(ctx.moves, 1);
	EXPECT_UEQ(ctx.bytes_moved, BO_SIZE);
	/* The same pages, bound: nothing was copied. */
	EXPECT_UEQ(ctx.bytes_copied, 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), BO_SIZE);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.moves, 2);
	/* The mock copies with ttm_bo_move_memcpy(). */
	EXPECT_UEQ(ctx.bytes_copied, BO_SIZE);
	EXPECT_UEQ(ctx.bytes_moved, 2 * BO_SIZE);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), BO_SIZE);
	/* Leaving tt memory for good frees the pages. */
	EXPECT_NULL(bo->ttm);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 1), 0);
	EXPECT_EQ(ctx.evictions, 0);
	EXPECT_UGE(atomic_load(&tdev.bdev.stats.bytes_moved), 2 * BO_SIZE);

	ttm_bo_put(bo);
	dev_fini();
}

/* Room for one fence, so the caller can fence the BO without reserving a slot. */
static bool bo_has_fence_slot(struct ttm_buffer_object *bo)
{
	return bo->resv->num_fences < bo->resv->max_fences;
}

/* Use up @bo's free fence slots with fences that are signalled once added. */
static void bo_fill_fence_slots(struct ttm_buffer_object *bo)
{
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	while (bo_has_fence_slot(bo)) {
		/* Pending while added, so no earlier one's slot is reused. */
		struct dma_fence *f = ttm_test_fence_create();

		ASSERT_NOT_NULL(f);
		ASSERT_EQ(dma_resv_add_fence(bo->resv, f, DMA_RESV_USAGE_BOOKKEEP), 0);
		dma_fence_put(f);
	}
	for (unsigned i = 0; i < bo->resv->num_fences; i++)
		dma_fence_signal(bo->resv->fences[i]);
	ttm_bo_unreserve(bo);
}

/*
 * Placing a BO reserves a fence slot on its reservation, as the kernel's
 * ttm_bo_mem_space() and ttm_bo_handle_move_mem() do (its KUnit case
 * ttm_bo_init_reserved_sys_man checks that the resv has a fence array after
 * init): init, a validate that moves, and an eviction each leave one free.
 */
KTEST(ttm_bo_init_reserved_sys_man)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo, *victim;

	bo = bo_vs_victim(&victim);
	EXPECT_TRUE(bo_has_fence_slot(bo));
	EXPECT_TRUE(bo_has_fence_slot(victim));
	bo_fill_fence_slots(bo);
	bo_fill_fence_slots(victim);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_TRUE(bo_has_fence_slot(bo));
	EXPECT_TRUE(bo_has_fence_slot(victim));
	bo_vs_victim_won(bo, victim);
}

KTEST(ttm_bo_validate_same_placement)
{
	static const unsigned types[] = {TTM_PL_SYSTEM, TTM_PL_TT, TTM_PL_VRAM};

	dev_init(64, 64, false);
	for (unsigned i = 0; i < 3; i++) {
		struct ttm_operation_ctx ctx = {0};
		struct ttm_buffer_object *bo = bo_in(BO_SIZE, types[i]);
		struct ttm_resource *res = bo->resource;

		EXPECT_EQ(ttm_test_bo_validate_to(bo, types[i], 0, &ctx), 0);
		EXPECT_TRUE(bo->resource == res);
		EXPECT_UEQ(ctx.moves, 0);
		EXPECT_UEQ(ctx.bytes_moved, 0);
		ttm_bo_put(bo);
	}
	dev_fini();
}

KTEST(ttm_bo_validate_invalid_placement)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement p;
	struct ttm_buffer_object *bo;
	struct ttm_resource *res;

	dev_init(64, 0, false);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	res = bo->resource;

	/*
	 * No VRAM manager registered, and a type number past the table: the
	 * place is skipped and, nothing else fitting, -ENOMEM, as the kernel's
	 * ttm_bo_validate_invalid_placement expects.
	 */
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -ENOMEM);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_NUM_MEM_TYPES + 3, 0, &ctx), -ENOMEM);
	/* A place without a manager is passed over for the next one. */
	EXPECT_EQ(validate_to_either(bo, TTM_PL_VRAM, TTM_PL_TT, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_TT);
	EXPECT_UEQ(ctx.moves, 1);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_SYSTEM, 0, &ctx), 0);
	res = bo->resource;
	ctx.moves = 0;

	/* A range outside the type. */
	ttm_test_placement(&p, TTM_PL_TT, 0);
	p.places[0].fpfn = 0;
	p.places[0].lpfn = 65;
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(bo, &p.placement, &ctx), -EINVAL);
	p.places[0].fpfn = 8;
	p.places[0].lpfn = 8;
	EXPECT_EQ(ttm_bo_validate(bo, &p.placement, &ctx), -EINVAL);
	EXPECT_EQ(ttm_bo_validate(bo, NULL, &ctx), -EINVAL);
	ttm_bo_unreserve(bo);

	EXPECT_TRUE(bo->resource == res);
	EXPECT_UEQ(ctx.moves, 0);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_failed_alloc)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_mock_manager mock;
	struct ttm_buffer_object *bo;

	dev_init(64, 0, false);
	ASSERT_EQ(ttm_mock_manager_init(&mock, &tdev.bdev, TTM_PL_VRAM, -ENOSPC, 64), 0);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 7), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -ENOMEM);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	/* Tried on both passes; nothing on its LRU to evict. */
	EXPECT_UGE(atomic_load(&mock.allocs), 1);
	EXPECT_UEQ(ctx.moves, 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 7), 0);

	ttm_bo_put(bo);
	ttm_mock_manager_fini(&mock, &tdev.bdev, TTM_PL_VRAM);
	dev_fini();
}

KTEST(ttm_bo_validate_busy_manager)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_mock_manager mock;
	struct ttm_buffer_object *bo;

	dev_init(64, 0, false);
	ASSERT_EQ(ttm_mock_manager_init(&mock, &tdev.bdev, TTM_PL_VRAM, -EBUSY, 64), 0);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);

	/* A busy type is passed over for the next place. */
	EXPECT_EQ(validate_to_either(bo, TTM_PL_VRAM, TTM_PL_TT, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_TT);

	ttm_bo_put(bo);
	ttm_mock_manager_fini(&mock, &tdev.bdev, TTM_PL_VRAM);
	dev_fini();
}

KTEST(ttm_bo_validate_pinned)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;

	dev_init(64, 64, false);
	bo = bo_in(BO_SIZE, TTM_PL_TT);
	ttm_test_bo_pin(bo);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -EINVAL);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_TT);
	/* Where it already is, a pinned BO validates fine. */
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_TT, 0, &ctx), 0);
	ttm_bo_reserve(bo, false, false, NULL);
	{
		struct ttm_placement empty = {0};

		EXPECT_EQ(ttm_bo_validate(bo, &empty, &ctx), -EINVAL);
	}
	ttm_bo_unpin(bo);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);

	ttm_bo_put(bo);
	dev_fini();
}

/* Fill VRAM (@pages) with pinned BOs of BO_SIZE. */
static unsigned fill_pinned(struct ttm_buffer_object **bos, unsigned type, uint64_t pages)
{
	unsigned n = (unsigned)(pages / BO_PAGES);

	for (unsigned i = 0; i < n; i++) {
		bos[i] = bo_in(BO_SIZE, type);
		ttm_test_bo_pin(bos[i]);
	}
	return n;
}

static void put_unpin(struct ttm_buffer_object **bos, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		ttm_bo_reserve(bos[i], false, false, NULL);
		ttm_bo_unpin(bos[i]);
		ttm_bo_unreserve(bos[i]);
		ttm_bo_put(bos[i]);
	}
}

KTEST(ttm_bo_validate_busy_placement)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *pinned[4], *bo;
	struct ttm_test_placement p;
	unsigned n;

	dev_init(64, 16, false);
	n = fill_pinned(pinned, TTM_PL_VRAM, 16);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);

	/* VRAM full of pinned BOs: the fallback takes it. */
	ttm_test_placement(&p, TTM_PL_VRAM, TTM_PL_FLAG_DESIRED);
	ttm_test_placement_add(&p, TTM_PL_TT, TTM_PL_FLAG_FALLBACK);
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(bo, &p.placement, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_TT);
	EXPECT_UEQ(ctx.moves, 1);

	/* Sitting in the fallback while the desired type is still full: no move. */
	EXPECT_EQ(ttm_bo_validate(bo, &p.placement, &ctx), 0);
	EXPECT_UEQ(ctx.moves, 1);
	ttm_bo_unreserve(bo);

	/* Room again in the desired type: the first pass takes it. */
	put_unpin(pinned, 1);
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(bo, &p.placement, &ctx), 0);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);

	ttm_bo_put(bo);
	put_unpin(pinned + 1, n - 1);
	dev_fini();
}

KTEST(ttm_bo_validate_multihop)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;

	dev_init(64, 64, true);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 11), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_UEQ(atomic_load(&tdev.multihops), 1);
	/* SYSTEM -> TT, then TT -> VRAM. */
	EXPECT_UEQ(ctx.moves, 2);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 11), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_SYSTEM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(atomic_load(&tdev.multihops), 2);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 11), 0);

	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_no_placement_signaled)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_placement empty = {0};
	struct ttm_buffer_object *tt_bo, *vram_bo;
	struct dma_fence *f;

	dev_init(64, 64, false);
	tt_bo = bo_in(BO_SIZE, TTM_PL_TT);
	vram_bo = bo_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(tt_bo, 3), 0);
	f = bo_busy(tt_bo);
	dma_fence_signal(f);
	dma_fence_put(f);

	/* With a tt: the resource goes, the tt stays unpopulated, marked for clear. */
	ttm_bo_reserve(tt_bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(tt_bo, &empty, &ctx), 0);
	ttm_bo_unreserve(tt_bo);
	EXPECT_NULL(tt_bo->resource);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	ASSERT_NOT_NULL(tt_bo->ttm);
	EXPECT_FALSE(ttm_tt_is_populated(tt_bo->ttm));
	EXPECT_TRUE(tt_bo->ttm->page_flags & TTM_TT_FLAG_ZERO_ALLOC);
	EXPECT_UEQ(ctx.bytes_moved, 0);

	/* Without one it gets an unpopulated one. */
	ttm_bo_reserve(vram_bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(vram_bo, &empty, &ctx), 0);
	ttm_bo_unreserve(vram_bo);
	EXPECT_NULL(vram_bo->resource);
	ASSERT_NOT_NULL(vram_bo->ttm);
	EXPECT_FALSE(ttm_tt_is_populated(vram_bo->ttm));
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);

	/* A gutted BO can be placed again, zero-filled. */
	EXPECT_EQ(ttm_test_bo_validate_to(vram_bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(vram_bo), TTM_PL_VRAM);

	ttm_bo_put(tt_bo);
	ttm_bo_put(vram_bo);
	dev_fini();
}

KTEST(ttm_bo_validate_no_placement_not_signaled)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_placement empty = {0};
	struct ttm_buffer_object *bo;
	struct dma_fence *f;

	dev_init(64, 64, false);
	bo = bo_in(BO_SIZE, TTM_PL_VRAM);
	f = bo_busy(bo);

	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(bo, &empty, &ctx), 0);
	ttm_bo_unreserve(bo);
	EXPECT_NULL(bo->resource);
	/* The GPU may still use the old memory: a ghost holds it. */
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), BO_SIZE);

	dma_fence_signal(f);
	dma_fence_put(f);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);

	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_move_fence_signaled)
{
	struct ttm_operation_ctx ctx = {.no_wait_gpu = true};
	struct ttm_buffer_object *bo;
	struct dma_fence *f = ttm_test_fence_create();

	ASSERT_NOT_NULL(f);
	dma_fence_signal(f);
	bo = bo_behind_move(f);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);

	ttm_bo_put(bo);
	dma_fence_put(f);
	dev_fini();
}

/*
 * A pipelined move into VRAM failed (its fence signalled with -EIO): the
 * first validate into VRAM reports it and leaves the BO where it was, with
 * or without no_wait; the error is reported once and VRAM is usable again.
 */
KTEST(ttm_bo_validate_move_fence_error)
{
	for (unsigned no_wait = 0; no_wait < 2; no_wait++) {
		struct ttm_operation_ctx ctx = {.no_wait_gpu = no_wait};
		struct ttm_buffer_object *bo;
		struct dma_fence *f = ttm_test_fence_create();
		struct delayed_signal d;

		ASSERT_NOT_NULL(f);
		bo = bo_behind_move(f);
		EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 9), 0);
		if (no_wait) {
			dma_fence_set_error(f, -EIO);
			dma_fence_signal(f);
		} else {
			signal_later_error(&d, f, 20, -EIO);
		}

		EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -EIO);
		if (!no_wait)
			pthread_join(d.thread, NULL);
		EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
		EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
		EXPECT_UEQ(ctx.moves, 0);
		EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 9), 0);

		EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
		EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
		EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 9), 0);

		ttm_bo_put(bo);
		dma_fence_put(f);
		dev_fini();
	}
}

KTEST(ttm_bo_validate_move_fence_not_signaled_no_wait)
{
	struct ttm_operation_ctx ctx = {.no_wait_gpu = true};
	struct ttm_buffer_object *bo;
	struct dma_fence *f = ttm_test_fence_create();

	ASSERT_NOT_NULL(f);
	bo = bo_behind_move(f);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);

	/* The next place is tried instead. */
	EXPECT_EQ(validate_to_either(bo, TTM_PL_VRAM, TTM_PL_TT, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_TT);

	dma_fence_signal(f);
	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_move_fence_not_signaled_wait)
{
	struct ttm_operation_ctx ctx = {0};
	struct delayed_signal d;
	struct ttm_buffer_object *bo;
	struct dma_fence *f = ttm_test_fence_create();

	ASSERT_NOT_NULL(f);
	bo = bo_behind_move(f);

	signal_later(&d, f, 20);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	/* Validate could only finish after the fence signalled. */
	EXPECT_TRUE(dma_fence_test_signaled_flag(f));
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	pthread_join(d.thread, NULL);

	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

static _Atomic unsigned ordered_calls;

/* A driver claiming its moves queue behind every pending move fence. */
static bool orders_after_all(struct ttm_buffer_object *bo, struct dma_fence *fence)
{
	(void)bo;
	(void)fence;
	atomic_fetch_add(&ordered_calls, 1);
	return true;
}

/*
 * A driver whose move is ordered after VRAM's pending move fence gets the
 * fence in the BO's reservation instead of validate's wait or -EBUSY; the
 * mock's move copies by CPU, so it waits for the fence itself: with
 * no_wait that is -EBUSY from the move, the BO untouched in SYSTEM and the
 * fence a KERNEL dependency of it (so a CPU read now would wait for it);
 * waiting, the copy lands after the fence with the contents intact.
 */
KTEST(ttm_bo_validate_move_fence_handed_to_ordered_move)
{
	struct ttm_operation_ctx no_wait = {.no_wait_gpu = true}, ctx = {0};
	struct ttm_buffer_object *bo;
	struct dma_fence *f = ttm_test_fence_create();
	struct delayed_signal d;

	ASSERT_NOT_NULL(f);
	bo = bo_behind_move(f);
	atomic_store(&ordered_calls, 0);
	tdev.funcs.move_orders_after = orders_after_all;
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 5), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &no_wait), -EBUSY);
	EXPECT_UEQ(atomic_load(&ordered_calls), 1);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	EXPECT_FALSE(dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_KERNEL));

	signal_later(&d, f, 20);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_TRUE(dma_fence_test_signaled_flag(f));
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 5), 0);
	pthread_join(d.thread, NULL);

	tdev.funcs.move_orders_after = NULL;
	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_happy_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bos[4], *big;

	/* VRAM holds exactly four BOs; the big one needs two slots. */
	dev_init(64, 4 * BO_PAGES, false);
	for (unsigned i = 0; i < 4; i++) {
		bos[i] = bo_in(BO_SIZE, TTM_PL_VRAM);
		EXPECT_EQ(ttm_test_bo_reserve_fill(bos[i], 100 + i), 0);
	}
	/* Touching bos[0] makes bos[1] the least recently used. */
	ttm_bo_reserve(bos[0], false, false, NULL);
	ttm_bo_unreserve(bos[0]);

	big = bo_in(2 * BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_validate_to(big, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(big), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 2);
	EXPECT_UEQ(ctx.moves, 1);
	EXPECT_UEQ(ctx.bytes_moved, 4 * BO_SIZE);
	/* Least recently used first, and no more than needed. */
	EXPECT_EQ(ttm_test_bo_mem_type(bos[1]), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[2]), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[0]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[3]), TTM_PL_VRAM);
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(ttm_test_bo_reserve_verify(bos[i], 100 + i), 0);
	EXPECT_UGE(atomic_load(&tdev.bdev.stats.evictions), 2);

	for (unsigned i = 0; i < 4; i++)
		ttm_bo_put(bos[i]);
	ttm_bo_put(big);
	dev_fini();
}

KTEST(ttm_bo_validate_evict_priority)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *high, *low, *bo;

	dev_init(64, 2 * BO_PAGES, false);
	high = calloc(1, sizeof(*high));
	ASSERT_NOT_NULL(high);
	high->priority = 2;
	{
		struct ttm_test_placement p;

		ASSERT_EQ(ttm_bo_init_validate(&tdev.bdev, high, BO_SIZE, ttm_bo_type_device,
					       ttm_test_placement(&p, TTM_PL_VRAM, 0), 0, &ctx,
					       NULL, ttm_test_bo_destroy),
			  0);
	}
	/* Newer, but of the lower priority: goes first. */
	low = bo_in(BO_SIZE, TTM_PL_VRAM);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(low), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(high), TTM_PL_VRAM);

	ttm_bo_put(high);
	ttm_bo_put(low);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_all_pinned_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *pinned[4], *bo;
	unsigned n;

	dev_init(64, 16, false);
	n = fill_pinned(pinned, TTM_PL_VRAM, 16);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 5), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -ENOMEM);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(ctx.evictions, 0);
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(ttm_test_bo_mem_type(pinned[i]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 5), 0);

	ttm_bo_put(bo);
	put_unpin(pinned, n);
	dev_fini();
}

KTEST(ttm_bo_validate_allowed_only_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *a, *b, *c, *bo;

	dev_init(64, 3 * BO_PAGES, false);
	a = bo_in(BO_SIZE, TTM_PL_VRAM);
	b = bo_in(BO_SIZE, TTM_PL_VRAM);
	c = bo_in(BO_SIZE, TTM_PL_VRAM);
	/* a and c pinned: b is the only candidate although it is not the oldest. */
	ttm_test_bo_pin(a);
	ttm_test_bo_pin(c);

	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(b), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(a), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(c), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 1);

	/*
	 * A victim reserved by someone else is not taken without a ticket. Since
	 * this call may wait (no no_wait_gpu), it does not fail at once: it backs
	 * off and scans again, TTM_EVICT_MAX_RESCANS times with growing sleeps
	 * (about 110 ms in all), then returns -EBUSY. The wait is bounded because
	 * the holder may itself be waiting for a reservation the caller holds.
	 */
	ttm_bo_reserve(bo, false, false, NULL);
	{
		struct ttm_buffer_object *d = bo_in(BO_SIZE, TTM_PL_SYSTEM);
		struct ttm_operation_ctx ctx2 = {0};

		/* d is ours alone: reserving it while holding bo cannot deadlock. */
		ww_lockdep_nest_ok(&d->resv->lock);
		EXPECT_EQ(ttm_test_bo_validate_to(d, TTM_PL_VRAM, 0, &ctx2), -EBUSY);
		EXPECT_EQ(ttm_test_bo_mem_type(d), TTM_PL_SYSTEM);
		ttm_bo_put(d);
	}
	ttm_bo_unreserve(bo);

	put_unpin(&a, 1);
	put_unpin(&c, 1);
	ttm_bo_put(b);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_deleted_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *dead, *bo;
	struct delayed_signal d;
	struct dma_fence *f;

	dev_init(64, BO_PAGES, false);
	dead = bo_in(BO_SIZE, TTM_PL_VRAM);
	f = bo_busy(dead);
	ttm_bo_put(dead);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), BO_SIZE);

	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	/* The dead BO is busy: released only by a caller that may wait. */
	{
		struct ttm_operation_ctx nw = {.no_wait_gpu = true};

		EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &nw), -EBUSY);
	}
	signal_later(&d, f, 20);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	pthread_join(d.thread, NULL);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	/* Released, never moved. */
	EXPECT_UEQ(ctx.evictions, 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 0);

	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

/*
 * The kernel's own ttm_bo_validate_deleted_evict: an idle BO the caller marks
 * deleted by hand, never queued for delayed destroy, is released (not moved)
 * to make room, and its final put frees it without touching the
 * delayed-destroy count (which would underflow and keep a waiting flush and
 * ttm_device_fini() spinning).
 */
KTEST(ttm_bo_validate_deleted_evict_unqueued)
{
	const uint64_t vram_pages = 16, big = (vram_pages - 1) * PAGE, small = 2 * PAGE;
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo_big, *bo_small;

	dev_init(64, vram_pages, false);
	bo_big = bo_in(big, TTM_PL_VRAM);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), big);
	ttm_lock(&tdev.bdev.lru_lock);
	bo_big->deleted = true;
	ttm_unlock(&tdev.bdev.lru_lock);

	bo_small = bo_in(small, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_validate_to(bo_small, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo_small), TTM_PL_VRAM);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), small);
	EXPECT_NULL(bo_big->ttm);
	EXPECT_NULL(bo_big->resource);
	EXPECT_UEQ(ctx.evictions, 0);

	ttm_bo_put(bo_small);
	ttm_bo_put(bo_big);
	/* Not 0 here means fini below would wait for it forever. */
	ASSERT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 0);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.bo_count), 0);
	dev_fini();
}

KTEST(ttm_bo_validate_busy_domain_evict)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true};
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *busy, *bo;
	struct delayed_signal d;
	struct dma_fence *f;

	dev_init(64, BO_PAGES, false);
	busy = bo_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(busy, 9), 0);
	f = bo_busy(busy);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &nw), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_mem_type(busy), TTM_PL_VRAM);
	EXPECT_UEQ(nw.evictions, 0);

	/* Allowed to wait, the busy BO is evicted once idle. */
	signal_later(&d, f, 20);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	pthread_join(d.thread, NULL);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(busy), TTM_PL_TT);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_EQ(ttm_test_bo_reserve_verify(busy, 9), 0);

	dma_fence_put(f);
	ttm_bo_put(busy);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_evict_gutting)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_range_manager priv;
	struct ttm_buffer_object *victim, *bo;

	/* The mock driver has no eviction placement for a private type. */
	dev_init(64, 0, false);
	ASSERT_EQ(ttm_range_manager_init(&priv, false, BO_PAGES), 0);
	ASSERT_EQ(ttm_set_driver_manager(&tdev.bdev, TTM_PL_PRIV, &priv.manager), 0);

	victim = bo_in(BO_SIZE, TTM_PL_PRIV);
	/* Not CPU-reachable: the mock cannot copy into it, so start there. */
	bo = calloc(1, sizeof(*bo));
	ASSERT_NOT_NULL(bo);
	{
		struct ttm_test_placement p;

		ASSERT_EQ(ttm_bo_init_validate(&tdev.bdev, bo, BO_SIZE, ttm_bo_type_device,
					       ttm_test_placement(&p, TTM_PL_PRIV, 0), 0, &ctx,
					       NULL, ttm_test_bo_destroy),
			  0);
	}
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_PRIV);
	EXPECT_NULL(victim->resource);
	EXPECT_UEQ(ctx.evictions, 1);
	/* And a CPU copy into it is refused, leaving the BO where it was. */
	{
		struct ttm_buffer_object *sys = bo_in(BO_SIZE, TTM_PL_SYSTEM);

		EXPECT_EQ(ttm_test_bo_validate_to(victim, TTM_PL_SYSTEM, 0, &ctx), 0);
		EXPECT_EQ(ttm_test_bo_validate_to(sys, TTM_PL_PRIV, 0, &ctx), -EIO);
		EXPECT_EQ(ttm_test_bo_mem_type(sys), TTM_PL_SYSTEM);
		ttm_bo_put(sys);
	}
	EXPECT_UGE(atomic_load(&tdev.delete_mem_notifies), 1);

	ttm_bo_put(victim);
	ttm_bo_put(bo);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_EQ(ttm_range_manager_fini(&priv), 0);
	ttm_set_driver_manager(&tdev.bdev, TTM_PL_PRIV, NULL);
	dev_fini();
}

KTEST(ttm_bo_validate_recursive_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *in_tt, *in_vram, *bo;

	/* One BO fills each type: VRAM's victim needs TT's victim gone first. */
	dev_init(BO_PAGES, BO_PAGES, false);
	in_tt = bo_in(BO_SIZE, TTM_PL_TT);
	in_vram = bo_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(in_tt, 21), 0);
	EXPECT_EQ(ttm_test_bo_reserve_fill(in_vram, 22), 0);

	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 23), 0);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(in_vram), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(in_tt), TTM_PL_SYSTEM);
	EXPECT_UEQ(ctx.evictions, 2);
	EXPECT_EQ(ttm_test_bo_reserve_verify(in_tt, 21), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(in_vram, 22), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 23), 0);

	ttm_bo_put(in_tt);
	ttm_bo_put(in_vram);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_ticket_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ww_acquire_ctx ticket;
	struct ttm_buffer_object *victim, *bo;

	bo = bo_vs_victim(&victim);

	/* Both locked by one transaction: the victim is ours, not evictable. */
	ww_acquire_init(&ticket, &reservation_ww_class);
	ctx.ticket = &ticket;
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, &ticket), 0);
	ASSERT_EQ(ttm_bo_reserve(victim, false, false, &ticket), 0);
	{
		struct ttm_test_placement p;

		EXPECT_EQ(ttm_bo_validate(bo, ttm_test_placement(&p, TTM_PL_VRAM, 0), &ctx),
			  -ENOMEM);
	}
	ttm_bo_unreserve(victim);
	/* Unlocked now: the ticket takes it. */
	{
		struct ttm_test_placement p;

		EXPECT_EQ(ttm_bo_validate(bo, ttm_test_placement(&p, TTM_PL_VRAM, 0), &ctx), 0);
	}
	ttm_bo_unreserve(bo);
	ww_acquire_fini(&ticket);
	bo_vs_victim_won(bo, victim);
}

/*
 * The kernel's ttm_bo_validate_busy_domain_evict: VRAM is full and the type
 * its BOs are evicted to (TT here) is a manager that answers -EBUSY. The
 * eviction cannot happen, the place is given up and, with no other place,
 * validate fails with -ENOMEM (not -EBUSY); nothing moved.
 */
KTEST(ttm_bo_validate_busy_domain_evict_target)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_resource_manager *tt;
	struct ttm_buffer_object *victim, *bo;
	struct ttm_mock_manager busy;

	dev_init(64, BO_PAGES, false);
	victim = bo_in(BO_SIZE, TTM_PL_VRAM);
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	tt = man(TTM_PL_TT);
	ASSERT_EQ(ttm_set_driver_manager(&tdev.bdev, TTM_PL_TT, NULL), 0);
	ASSERT_EQ(ttm_mock_manager_init(&busy, &tdev.bdev, TTM_PL_TT, -EBUSY, 64), 0);

	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), -ENOMEM);
	EXPECT_EQ(ttm_test_bo_mem_type(victim), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(ctx.evictions, 0);
	/* With somewhere else to go, the next place takes it. */
	EXPECT_EQ(validate_to_either(bo, TTM_PL_VRAM, TTM_PL_SYSTEM, &ctx), 0);

	ttm_mock_manager_fini(&busy, &tdev.bdev, TTM_PL_TT);
	ASSERT_EQ(ttm_set_driver_manager(&tdev.bdev, TTM_PL_TT, tt), 0);
	ttm_bo_put(victim);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_evict_mem_type_basic)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bos[3];

	dev_init(64, 64, false);
	for (unsigned i = 0; i < 3; i++) {
		bos[i] = bo_in(BO_SIZE, TTM_PL_VRAM);
		EXPECT_EQ(ttm_test_bo_reserve_fill(bos[i], 40 + i), 0);
	}
	ttm_test_bo_pin(bos[2]);

	/* Everything evictable goes; the pinned one stays and is reported. */
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &ctx), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[0]), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[1]), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[2]), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 2);

	put_unpin(&bos[2], 1);
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &ctx), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_SYSTEM, &ctx), -EINVAL);
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_PRIV, &ctx), -EINVAL);
	for (unsigned i = 0; i < 2; i++) {
		EXPECT_EQ(ttm_test_bo_reserve_verify(bos[i], 40 + i), 0);
		ttm_bo_put(bos[i]);
	}
	dev_fini();
}

/*
 * Evict-all with a busy BO: no_wait reports -EBUSY after evicting the idle
 * ones and leaves the busy one in place; a caller that may wait gets every
 * BO out once the fence signals, content intact.
 */
KTEST(ttm_bo_evict_mem_type_busy)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true}, ctx = {0};
	struct ttm_buffer_object *bos[3];
	struct delayed_signal d;
	struct dma_fence *f;

	dev_init(64, 64, false);
	for (unsigned i = 0; i < 3; i++) {
		bos[i] = bo_in(BO_SIZE, TTM_PL_VRAM);
		EXPECT_EQ(ttm_test_bo_reserve_fill(bos[i], 60 + i), 0);
	}
	f = bo_busy(bos[0]);

	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &nw), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[0]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[1]), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[2]), TTM_PL_TT);
	EXPECT_UEQ(nw.evictions, 2);

	signal_later(&d, f, 20);
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &ctx), 0);
	pthread_join(d.thread, NULL);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[0]), TTM_PL_TT);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	for (unsigned i = 0; i < 3; i++) {
		EXPECT_EQ(ttm_test_bo_reserve_verify(bos[i], 60 + i), 0);
		ttm_bo_put(bos[i]);
	}
	dma_fence_put(f);
	dev_fini();
}

/*
 * Evict-all waits for the pipelined moves out of the type; one that failed
 * is reported (-EIO) once, and the type counts as empty afterwards.
 */
KTEST(ttm_bo_evict_mem_type_move_fence_error)
{
	struct ttm_operation_ctx ctx = {0};
	struct dma_fence *f = ttm_test_fence_create();

	ASSERT_NOT_NULL(f);
	dev_init(64, 64, false);
	dma_fence_set_error(f, -EIO);
	dma_fence_signal(f);
	ttm_resource_manager_set_move(man(TTM_PL_VRAM), f);
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &ctx), -EIO);
	EXPECT_EQ(ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &ctx), 0);
	dma_fence_put(f);
	dev_fini();
}

/*
 * Concurrency: threads validating their own BOs into small TT and VRAM
 * evict each other's (trylock only) while a third empties VRAM now and
 * then. A validate may fail with -EBUSY or -ENOMEM when everything in the
 * way is locked by the others, but no content may ever change.
 */
#define RACE_THREADS 2
#define RACE_BOS 3

struct race_ctx {
	pthread_t thread;
	unsigned id;
	uint64_t rng;
	unsigned steps;
	struct ttm_buffer_object *bos[RACE_BOS];
	unsigned ok, busy, errors, corrupt;
};

static uint64_t race_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *race_fn(void *arg)
{
	static const unsigned types[] = {TTM_PL_SYSTEM, TTM_PL_TT, TTM_PL_VRAM};
	struct race_ctx *rc = arg;

	for (unsigned s = 0; s < rc->steps; s++) {
		unsigned i = (unsigned)(race_rand(&rc->rng) % RACE_BOS);
		struct ttm_buffer_object *bo = rc->bos[i];
		struct ttm_operation_ctx ctx = {0};
		int ret;

		ret = ttm_test_bo_validate_to(bo, types[race_rand(&rc->rng) % 3], 0, &ctx);
		if (!ret)
			rc->ok++;
		else if (ret == -EBUSY || ret == -ENOMEM)
			rc->busy++;
		else
			rc->errors++;
		if (ttm_test_bo_reserve_verify(bo, 1000 * rc->id + i))
			rc->corrupt++;
	}
	return NULL;
}

static void *race_evict_all_fn(void *arg)
{
	struct race_ctx *rc = arg;

	for (unsigned s = 0; s < rc->steps; s++) {
		struct ttm_operation_ctx ctx = {0};
		int ret = ttm_bo_evict_mem_type(&tdev.bdev, TTM_PL_VRAM, &ctx);

		if (!ret)
			rc->ok++;
		else if (ret == -EBUSY)
			rc->busy++;
		else
			rc->errors++;
		sched_yield();
	}
	return NULL;
}

KTEST(ttm_bo_validate_concurrent_evict)
{
	struct race_ctx rc[RACE_THREADS + 1];
	unsigned steps = 200 * ktest_scale();

	/*
	 * Room for a third of the BOs in each of TT and VRAM, both filled
	 * before the threads start, so that most moves into them evict (how
	 * many depends on the interleaving, so it is not asserted).
	 */
	dev_init(2 * BO_PAGES, 2 * BO_PAGES, false);
	memset(rc, 0, sizeof(rc));
	for (unsigned t = 0; t <= RACE_THREADS; t++) {
		rc[t].id = t;
		rc[t].rng = ktest_rand() | 1;
		rc[t].steps = t < RACE_THREADS ? steps : steps / 4;
	}
	for (unsigned t = 0; t < RACE_THREADS; t++) {
		struct ttm_operation_ctx to_vram = {0}, to_tt = {0};

		for (unsigned i = 0; i < RACE_BOS; i++) {
			rc[t].bos[i] = bo_in(BO_SIZE, TTM_PL_SYSTEM);
			EXPECT_EQ(ttm_test_bo_reserve_fill(rc[t].bos[i], 1000 * t + i), 0);
		}
		EXPECT_EQ(ttm_test_bo_validate_to(rc[t].bos[0], TTM_PL_VRAM, 0, &to_vram), 0);
		EXPECT_EQ(ttm_test_bo_validate_to(rc[t].bos[1], TTM_PL_TT, 0, &to_tt), 0);
	}
	for (unsigned t = 0; t <= RACE_THREADS; t++)
		ASSERT_EQ(pthread_create(&rc[t].thread, NULL,
					 t < RACE_THREADS ? race_fn : race_evict_all_fn, &rc[t]),
			  0);
	for (unsigned t = 0; t <= RACE_THREADS; t++)
		pthread_join(rc[t].thread, NULL);

	for (unsigned t = 0; t <= RACE_THREADS; t++) {
		EXPECT_UEQ(rc[t].errors, 0);
		EXPECT_UEQ(rc[t].corrupt, 0);
	}
	for (unsigned t = 0; t < RACE_THREADS; t++) {
		EXPECT_GT(rc[t].ok, 0);
		for (unsigned i = 0; i < RACE_BOS; i++) {
			EXPECT_EQ(ttm_test_bo_reserve_verify(rc[t].bos[i], 1000 * t + i), 0);
			ttm_bo_put(rc[t].bos[i]);
		}
	}
	dev_fini();
}

KTEST(ttm_bo_validate_ticket_deadlock)
{
	struct ttm_operation_ctx ctx = {0};
	struct ww_acquire_ctx older, younger;
	struct ttm_test_placement p;
	struct ttm_buffer_object *victim, *bo;

	bo = bo_vs_victim(&victim);

	/*
	 * An older transaction holds the only victim; the younger one, which
	 * already holds its BO, must back off (wait-die) instead of waiting.
	 */
	ww_acquire_init(&older, &reservation_ww_class);
	ww_acquire_init(&younger, &reservation_ww_class);
	ASSERT_EQ(ttm_bo_reserve(victim, false, false, &older), 0);
	/* One thread plays both transactions: the checker would take it for one. */
	ww_lockdep_nest_ok(&bo->resv->lock);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, &younger), 0);
	ctx.ticket = &younger;
	EXPECT_EQ(ttm_bo_validate(bo, ttm_test_placement(&p, TTM_PL_VRAM, 0), &ctx), -EDEADLK);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_mem_type(victim), TTM_PL_VRAM);
	EXPECT_UEQ(younger.acquired, 1);

	/* Back off, let the older one finish, retry: now it evicts. */
	ttm_bo_unreserve(bo);
	ttm_bo_unreserve(victim);
	ww_acquire_fini(&older);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, &younger), 0);
	EXPECT_EQ(ttm_bo_validate(bo, ttm_test_placement(&p, TTM_PL_VRAM, 0), &ctx), 0);
	ttm_bo_unreserve(bo);
	ww_acquire_fini(&younger);
	bo_vs_victim_won(bo, victim);
}

KTEST(ttm_bo_validate_evict_range)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bos[4], *bo;
	struct ttm_test_placement p;

	/* Four BOs fill VRAM in address order, which is also their LRU order. */
	dev_init(64, 4 * BO_PAGES, false);
	for (unsigned i = 0; i < 4; i++)
		bos[i] = bo_in(BO_SIZE, TTM_PL_VRAM);
	ASSERT_EQ(bos[2]->resource->start, 2 * BO_PAGES);

	/* Only the upper half will do: the older BOs below it are no use. */
	ttm_test_placement(&p, TTM_PL_VRAM, 0);
	p.places[0].fpfn = 2 * BO_PAGES;
	p.places[0].lpfn = 4 * BO_PAGES;
	bo = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_validate(bo, &p.placement, &ctx), 0);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_UGE(bo->resource->start, 2 * BO_PAGES);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[0]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[1]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[2]), TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[3]), TTM_PL_VRAM);

	for (unsigned i = 0; i < 4; i++)
		ttm_bo_put(bos[i]);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_allow_res_evict)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *owner, *shared;
	struct ttm_test_placement p;

	dev_init(64, BO_PAGES, false);
	owner = bo_in(BO_SIZE, TTM_PL_SYSTEM);
	shared = calloc(1, sizeof(*shared));
	ASSERT_NOT_NULL(shared);
	/* @shared lives on @owner's reservation, as the BOs of one VM do. */
	ttm_bo_reserve(owner, false, false, NULL);
	ASSERT_EQ(ttm_bo_init_reserved(&tdev.bdev, shared, BO_SIZE, ttm_bo_type_device,
				       ttm_test_placement(&p, TTM_PL_VRAM, 0), 0, &ctx, owner->resv,
				       ttm_test_bo_destroy),
		  0);
	EXPECT_EQ(ttm_test_bo_mem_type(shared), TTM_PL_VRAM);

	/* Sharing our lock is not permission to evict. */
	EXPECT_EQ(ttm_bo_validate(owner, ttm_test_placement(&p, TTM_PL_VRAM, 0), &ctx), -ENOMEM);
	EXPECT_EQ(ttm_test_bo_mem_type(shared), TTM_PL_VRAM);
	ctx.allow_res_evict = true;
	ctx.resv = owner->resv;
	EXPECT_EQ(ttm_bo_validate(owner, ttm_test_placement(&p, TTM_PL_VRAM, 0), &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(owner), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(shared), TTM_PL_TT);
	/* The caller still holds the shared reservation. */
	EXPECT_TRUE(dma_resv_is_locked(owner->resv));
	ttm_bo_unreserve(owner);

	ttm_bo_put(shared);
	ttm_bo_put(owner);
	dev_fini();
}

/*
 * Holds the delayed-destroy worker inside the release of one deleted BO
 * (@bo), so the next deleted BO on the list waits for whoever flushes next.
 * The validating thread (@main) never blocks here.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ttm_buffer_object *bo;
	pthread_t main;
	bool entered, open;
	void (*release_notify)(struct ttm_buffer_object *bo);
} gate = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void gate_release_notify(struct ttm_buffer_object *bo)
{
	gate.release_notify(bo);
	if (bo != gate.bo || pthread_equal(pthread_self(), gate.main))
		return;
	pthread_mutex_lock(&gate.lock);
	gate.entered = true;
	pthread_cond_broadcast(&gate.cond);
	while (!gate.open)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
}

/* Wait (at most 5 s) until the worker is held in the gate. */
static bool gate_wait_entered(void)
{
	struct timespec ts;
	bool entered;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&gate.lock);
	while (!gate.entered && pthread_cond_timedwait(&gate.cond, &gate.lock, &ts) == 0)
		;
	entered = gate.entered;
	pthread_mutex_unlock(&gate.lock);
	return entered;
}

static void gate_open(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

/*
 * An eviction that needs tt pages while a deleted BO that held some has gone
 * idle, and the delayed-destroy worker has not got to it (held in another
 * BO's release): the eviction recycles the dead BO's pages through the pool
 * instead of taking fresh ones from the OS, and the victim keeps every byte.
 */
KTEST(ttm_bo_validate_evict_recycles_idle_deleted_pages)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *victim, *bo, *held, *dead;
	struct dma_fence *fh, *fd;
	unsigned long os0;

	bo = bo_vs_victim(&victim);
	ASSERT_EQ(ttm_test_bo_reserve_fill(victim, 7), 0);
	ASSERT_EQ(ttm_test_bo_reserve_fill(bo, 9), 0);
	held = bo_in(BO_SIZE, TTM_PL_TT);
	dead = bo_in(BO_SIZE, TTM_PL_TT);
	fh = bo_busy(held);
	fd = bo_busy(dead);
	gate.bo = held;
	gate.main = pthread_self();
	gate.entered = gate.open = false;
	gate.release_notify = tdev.funcs.release_notify;
	tdev.funcs.release_notify = gate_release_notify;
	/* Both busy: queued for the worker, @held first. */
	ttm_bo_put(held);
	ttm_bo_put(dead);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 2);

	dma_fence_signal(fh);
	ASSERT_TRUE(gate_wait_entered());
	dma_fence_signal(fd);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 2);

	os0 = ttm_pool_os_pages(&tdev.bdev.pool);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_EQ(ttm_test_bo_mem_type(victim), TTM_PL_TT);
	/* The victim's tt came from the dead BO's pages, not from the OS. */
	EXPECT_UEQ(ttm_pool_os_pages(&tdev.bdev.pool), os0);
	/* Only the held BO is left; the dead one was released by the eviction. */
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 1);
	EXPECT_EQ(ttm_test_bo_reserve_verify(victim, 7), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 9), 0);

	gate_open();
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ddestroy), 0);
	tdev.funcs.release_notify = gate.release_notify;
	dma_fence_put(fh);
	dma_fence_put(fd);
	bo_vs_victim_won(bo, victim);
}
