// SPDX-License-Identifier: MIT
/*
 * ttm_bo_util: memcpy moves between every pair of SYSTEM/TT/VRAM, zeroed
 * new BOs, the move_copy fault point, pipelined moves and their ghosts,
 * pipelined evictions out of VRAM (early free behind the move fence),
 * gutting, CPU access bounds, the metadata figure, and content surviving a
 * random sequence of validates, evictions and swaps.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_faults.h>

#include "ktest.h"
#include "../ttm_bo_internal.h"
#include "ttm_test_helpers.h"

#define PAGE TTM_PAGE_SIZE
#define BO_PAGES 4
#define BO_SIZE (BO_PAGES * PAGE)

static struct testlib_mock_device tdev;

static void dev_init(uint64_t tt_pages, uint64_t vram_pages)
{
	struct testlib_mock_cfg cfg = {.tt_pages = tt_pages, .vram_pages = vram_pages};

	if (testlib_mock_device_init(&tdev, &cfg))
		ktest_abort_case();
}

static void dev_fini(void)
{
	EXPECT_EQ(testlib_mock_device_fini(&tdev), 0);
}

static struct ttm_resource_manager *man(unsigned type)
{
	return ttm_manager_type(&tdev.bdev, type);
}

static unsigned mem_type(struct ttm_buffer_object *bo)
{
	return bo->resource ? bo->resource->mem_type : TTM_NUM_MEM_TYPES;
}

/* A reserved device BO of @size in @type. */
static struct ttm_buffer_object *bo_reserved_in(uint64_t size, unsigned type)
{
	struct ttm_test_placement p;
	struct ttm_buffer_object *bo = NULL;
	int ret = ttm_test_bo_create(&tdev.bdev, size, ttm_bo_type_device,
				     ttm_test_placement(&p, type, 0), NULL, true, &bo);

	if (ret) {
		ktest_fail(__FILE__, __LINE__, "bo create in %u: %d", type, ret);
		ktest_abort_case();
	}
	return bo;
}

/*
 * On a dev_init(64, 64) device, a reserved BO_SIZE BO in @type holding the
 * pattern of @seed and busy on @f (@usage) until the case signals it.
 */
static struct ttm_buffer_object *busy_bo_reserved_in(unsigned type, uint64_t seed,
						     struct dma_fence *f, enum dma_resv_usage usage)
{
	struct ttm_buffer_object *bo;

	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, type);
	EXPECT_EQ(ttm_test_bo_fill(bo, seed), 0);
	EXPECT_EQ(ttm_test_bo_add_fence(bo, f, usage), 0);
	return bo;
}

static int validate_locked(struct ttm_buffer_object *bo, unsigned type,
			   struct ttm_operation_ctx *ctx)
{
	struct ttm_test_placement p;

	return ttm_bo_validate(bo, ttm_test_placement(&p, type, 0), ctx);
}

static bool bo_is_zero(struct ttm_buffer_object *bo)
{
	struct ttm_operation_ctx ctx = {0};
	static unsigned char buf[PAGE], zero[PAGE];

	for (uint64_t off = 0; off < bo->size; off += PAGE) {
		if (ttm_bo_access(bo, off, buf, PAGE, false, &ctx))
			return false;
		if (memcmp(buf, zero, PAGE))
			return false;
	}
	return true;
}

static const unsigned types[] = {TTM_PL_SYSTEM, TTM_PL_TT, TTM_PL_VRAM};

KTEST(ttm_bo_move_memcpy_every_pair)
{
	dev_init(64, 64);
	for (unsigned s = 0; s < 3; s++) {
		for (unsigned d = 0; d < 3; d++) {
			struct ttm_operation_ctx ctx = {0};
			struct ttm_buffer_object *bo = bo_reserved_in(3 * BO_SIZE, types[s]);
			uint64_t seed = 1000 + s * 10 + d;

			EXPECT_EQ(ttm_test_bo_fill(bo, seed), 0);
			EXPECT_EQ(validate_locked(bo, types[d], &ctx), 0);
			EXPECT_EQ(mem_type(bo), types[d]);
			EXPECT_UEQ(ctx.moves, s == d ? 0 : 1);
			EXPECT_EQ(ttm_test_bo_verify(bo, seed), 0);
			/* Only tt types keep pages. */
			EXPECT_EQ(bo->ttm != NULL, types[d] != TTM_PL_VRAM);
			ttm_bo_unreserve(bo);
			ttm_bo_put(bo);
		}
	}
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	dev_fini();
}

KTEST(ttm_bo_move_memcpy_new_bo_zeroed)
{
	dev_init(64, 64);
	/* Dirty VRAM and recycled pool pages first: zeroes must be written. */
	for (unsigned i = 0; i < 3; i++) {
		struct ttm_buffer_object *bo = bo_reserved_in(BO_SIZE, types[i]);

		EXPECT_EQ(ttm_test_bo_fill(bo, 77), 0);
		ttm_bo_unreserve(bo);
		ttm_bo_put(bo);
	}
	for (unsigned i = 0; i < 3; i++) {
		struct ttm_buffer_object *bo = bo_reserved_in(BO_SIZE, types[i]);

		EXPECT_TRUE(bo_is_zero(bo));
		ttm_bo_unreserve(bo);
		ttm_bo_put(bo);
	}
	dev_fini();
}

/*
 * A large move out of VRAM into recycled pool pages takes the streamed copy
 * (no page fresh from the OS); every byte arrives, and a second move of the
 * same size into fresh pages (the pool emptied first) takes the cached copy
 * and arrives as well.
 */
KTEST(ttm_bo_move_memcpy_large_vram_to_recycled_pages_keeps_content)
{
	const uint64_t size = 512 * PAGE;
	struct ttm_buffer_object *bo;
	unsigned long fresh;

	dev_init(1024, 1024);
	/* Warm the pool: the same number of pages populated, then given back. */
	bo = bo_reserved_in(size, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_fill(bo, 5), 0);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);

	for (unsigned round = 0; round < 2; round++) {
		struct ttm_operation_ctx ctx = {0};
		uint64_t seed = 4242 + round;

		if (round == 1)
			ttm_pool_shrink(&tdev.bdev.pool, ~0ul);
		bo = bo_reserved_in(size, TTM_PL_VRAM);
		EXPECT_EQ(ttm_test_bo_fill(bo, seed), 0);
		fresh = ttm_pool_os_pages(&tdev.bdev.pool);
		EXPECT_EQ(validate_locked(bo, TTM_PL_SYSTEM, &ctx), 0);
		EXPECT_EQ(mem_type(bo), TTM_PL_SYSTEM);
		fresh = ttm_pool_os_pages(&tdev.bdev.pool) - fresh;
		if (round == 0)
			EXPECT_UEQ(fresh, 0);
		else
			EXPECT_UGE(fresh, 512);
		EXPECT_EQ(ttm_test_bo_verify(bo, seed), 0);
		ttm_bo_unreserve(bo);
		ttm_bo_put(bo);
	}
	dev_fini();
}

KTEST(ttm_bo_move_memcpy_fault_keeps_content)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_fill(bo, 5), 0);

	for (unsigned d = 1; d < 3; d++) {
		/* TT shares the SYSTEM pages: no copy there, so no fault either. */
		if (types[d] == TTM_PL_TT)
			continue;
		fault_set_nth(&ttm_fault_move_copy, 1);
		EXPECT_EQ(validate_locked(bo, types[d], &ctx), -ENOMEM);
		fault_reset(&ttm_fault_move_copy);
		EXPECT_EQ(mem_type(bo), TTM_PL_SYSTEM);
		EXPECT_UEQ(ttm_resource_manager_usage(man(types[d])), 0);
		EXPECT_EQ(ttm_test_bo_verify(bo, 5), 0);
	}

	/* From VRAM back to SYSTEM as well. */
	EXPECT_EQ(validate_locked(bo, TTM_PL_VRAM, &ctx), 0);
	fault_set_nth(&ttm_fault_move_copy, 1);
	EXPECT_EQ(validate_locked(bo, TTM_PL_SYSTEM, &ctx), -ENOMEM);
	fault_reset(&ttm_fault_move_copy);
	EXPECT_EQ(mem_type(bo), TTM_PL_VRAM);
	EXPECT_NULL(bo->ttm);
	EXPECT_EQ(ttm_test_bo_verify(bo, 5), 0);
	EXPECT_EQ(validate_locked(bo, TTM_PL_SYSTEM, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_verify(bo, 5), 0);

	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_move_memcpy_busy_no_wait)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true};
	struct ttm_buffer_object *bo;
	struct dma_fence *f = ttm_test_fence_create();

	ASSERT_NOT_NULL(f);
	bo = busy_bo_reserved_in(TTM_PL_SYSTEM, 6, f, DMA_RESV_USAGE_WRITE);

	/* A copy needs the BO idle; with no_wait it stays put. */
	EXPECT_EQ(validate_locked(bo, TTM_PL_VRAM, &nw), -EBUSY);
	EXPECT_EQ(mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	/* Reads also respect the pending writer. */
	{
		char c;

		EXPECT_EQ(ttm_bo_access(bo, 0, &c, 1, false, &nw), -EBUSY);
	}
	dma_fence_signal(f);
	dma_fence_put(f);
	EXPECT_EQ(validate_locked(bo, TTM_PL_VRAM, &nw), 0);
	EXPECT_EQ(ttm_test_bo_verify(bo, 6), 0);

	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_fini();
}

/* Allocate a resource of @type for @bo the way a driver's move would get it. */
static struct ttm_resource *res_alloc(struct ttm_buffer_object *bo, unsigned type)
{
	struct ttm_place place = {.mem_type = type};
	struct ttm_resource *res = NULL;

	if (ttm_resource_alloc(man(type), bo, &place, bo->size, 0, &res))
		ktest_abort_case();
	return res;
}

/*
 * A pipelined eviction out of VRAM frees the range at once: no ghost, and
 * VRAM's move fence makes the next allocation there wait for the copy.
 */
KTEST(ttm_bo_move_accel_cleanup_evict_frees_vram_at_once)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true}, ctx = {0};
	struct ttm_buffer_object *bo, *other;
	struct ttm_resource *res;
	struct dma_fence *f = ttm_test_fence_create(), *move;

	ASSERT_NOT_NULL(f);
	dev_init(64, BO_PAGES);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);

	/* As a driver whose blitter copies VRAM -> TT and signals @f when done. */
	res = res_alloc(bo, TTM_PL_TT);
	EXPECT_EQ(ttm_bo_tt_create(bo, false), 0);
	EXPECT_EQ(ttm_bo_move_accel_cleanup(bo, f, true, true, res), 0);
	EXPECT_TRUE(bo->resource == res);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	EXPECT_UEQ(ttm_resource_manager_lru_count(man(TTM_PL_VRAM), bo->priority), 0);
	EXPECT_FALSE(dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_KERNEL));
	move = ttm_resource_manager_get_move(man(TTM_PL_VRAM));
	EXPECT_TRUE(move == f);
	dma_fence_put(move);
	ttm_bo_unreserve(bo);

	/* The freed range is there, but not usable before the copy is done. */
	other = bo_reserved_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(validate_locked(other, TTM_PL_VRAM, &nw), -EBUSY);
	EXPECT_EQ(mem_type(other), TTM_PL_SYSTEM);
	EXPECT_UEQ(nw.evictions, 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	dma_fence_signal(f);
	EXPECT_EQ(validate_locked(other, TTM_PL_VRAM, &ctx), 0);
	EXPECT_EQ(mem_type(other), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 0);
	ttm_bo_unreserve(other);

	ttm_bo_put(other);
	dma_fence_put(f);
	ttm_bo_put(bo);
	EXPECT_EQ(ttm_resource_manager_cleanup_move(man(TTM_PL_VRAM), false), 0);
	dev_fini();
}

/*
 * VRAM's one move-fence slot holds another timeline's pending copy: the
 * new fence cannot be recorded without losing that one, so the range is
 * not freed early; a ghost keeps it until the new copy is done.
 */
KTEST(ttm_bo_move_accel_cleanup_evict_other_timeline_keeps_ghost)
{
	struct ttm_buffer_object *bo;
	struct ttm_resource *res;
	struct dma_fence *f = ttm_test_fence_create(), *g = ttm_test_fence_create(), *move;

	ASSERT_NOT_NULL(f);
	ASSERT_NOT_NULL(g);
	dev_init(64, 64);
	EXPECT_EQ(ttm_resource_manager_set_move(man(TTM_PL_VRAM), g), 0);
	EXPECT_EQ(ttm_resource_manager_set_move(man(TTM_PL_VRAM), f), -EBUSY);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_SYSTEM);
	/* Into VRAM once g is done, so that g is still pending afterwards. */
	dma_fence_signal(g);
	EXPECT_EQ(validate_locked(bo, TTM_PL_VRAM, &(struct ttm_operation_ctx){0}), 0);
	dma_fence_put(g);
	g = ttm_test_fence_create();
	ASSERT_NOT_NULL(g);
	EXPECT_EQ(ttm_resource_manager_set_move(man(TTM_PL_VRAM), g), 0);

	res = res_alloc(bo, TTM_PL_TT);
	EXPECT_EQ(ttm_bo_tt_create(bo, false), 0);
	EXPECT_EQ(ttm_bo_move_accel_cleanup(bo, f, true, true, res), 0);
	EXPECT_TRUE(bo->resource == res);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), BO_SIZE);
	move = ttm_resource_manager_get_move(man(TTM_PL_VRAM));
	EXPECT_TRUE(move == g);
	dma_fence_put(move);
	ttm_bo_unreserve(bo);

	dma_fence_signal(f);
	dma_fence_signal(g);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);

	dma_fence_put(f);
	dma_fence_put(g);
	ttm_bo_put(bo);
	EXPECT_EQ(ttm_resource_manager_cleanup_move(man(TTM_PL_VRAM), false), 0);
	dev_fini();
}

/* Out of a tt type the old pages may still be read: a ghost keeps them. */
KTEST(ttm_bo_move_accel_cleanup_ghost_freed_on_signal)
{
	struct ttm_buffer_object *bo;
	struct ttm_resource *res;
	struct dma_fence *f = ttm_test_fence_create(), *move;

	ASSERT_NOT_NULL(f);
	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_fill(bo, 9), 0);

	res = res_alloc(bo, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_bo_move_accel_cleanup(bo, f, true, true, res), 0);
	EXPECT_TRUE(bo->resource == res);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), BO_SIZE);
	EXPECT_FALSE(dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_KERNEL));
	/* The ghost holds the range, so TT needs no move fence. */
	move = ttm_resource_manager_get_move(man(TTM_PL_TT));
	EXPECT_NULL(move);
	dma_fence_put(move);
	ttm_bo_unreserve(bo);

	ttm_device_flush_delayed(&tdev.bdev, false);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);
	dma_fence_signal(f);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 9), 0);

	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

/*
 * A driver whose "blitter" copies VRAM -> TT later, on a thread of the case
 * (gpu_thread), and hands the move to ttm_bo_move_accel_cleanup(); VRAM ->
 * SYSTEM bounces through TT. Every other move is the CPU's. One copy is in
 * flight at a time (later VRAM -> TT moves are the CPU's).
 */
struct pending_copy {
	pthread_mutex_t lock;
	struct dma_fence *fence;
	const char *src;
	struct ttm_tt *tt;
	uint64_t pages;
	bool stop;
};

static struct pending_copy pend = {.lock = PTHREAD_MUTEX_INITIALIZER};
static const struct ttm_place tt_place = {.mem_type = TTM_PL_TT};
static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};

static int deferred_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old = bo->resource;
	struct dma_fence *f;
	int ret;

	if (old && old->mem_type == TTM_PL_VRAM && new_mem->mem_type == TTM_PL_SYSTEM) {
		*hop = tt_place;
		return -EMULTIHOP;
	}
	pthread_mutex_lock(&pend.lock);
	if (!old || old->mem_type != TTM_PL_VRAM || new_mem->mem_type != TTM_PL_TT || pend.fence) {
		pthread_mutex_unlock(&pend.lock);
		return ttm_bo_move_memcpy(bo, ctx, new_mem);
	}
	f = ttm_test_fence_create();
	if (!f) {
		pthread_mutex_unlock(&pend.lock);
		return -ENOMEM;
	}
	/* The range manager's VRAM resource is one run from its start. */
	pend.src = (const char *)tdev.vram_mem + (old->start << TTM_PAGE_SHIFT);
	pend.tt = bo->ttm;
	pend.pages = bo->size >> TTM_PAGE_SHIFT;
	pend.fence = dma_fence_get(f);
	pthread_mutex_unlock(&pend.lock);
	ret = ttm_bo_move_accel_cleanup(bo, f, evict, true, new_mem);
	dma_fence_put(f);
	return ret;
}

static void evict_to_system(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	(void)bo;
	placement->num_placement = 1;
	placement->placement = &sys_place;
}

/* Run the pending copy, if any, and signal its fence. Return: whether one ran. */
static bool gpu_complete(void)
{
	struct dma_fence *f;

	pthread_mutex_lock(&pend.lock);
	f = pend.fence;
	if (f) {
		for (uint64_t i = 0; i < pend.pages; i++)
			memcpy(ttm_tt_page_ptr(pend.tt, i), pend.src + (i << TTM_PAGE_SHIFT), PAGE);
		pend.fence = NULL;
	}
	pthread_mutex_unlock(&pend.lock);
	if (!f)
		return false;
	dma_fence_signal(f);
	dma_fence_put(f);
	return true;
}

/* Completes copies a little after they are queued, until pend.stop. */
static void *gpu_thread(void *arg)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000000L};

	(void)arg;
	for (;;) {
		bool queued, stop;

		pthread_mutex_lock(&pend.lock);
		queued = pend.fence != NULL;
		stop = pend.stop;
		pthread_mutex_unlock(&pend.lock);
		if (queued) {
			/* Late enough that a writer not waiting for it would be first. */
			ts.tv_nsec = 20 * 1000000L;
			nanosleep(&ts, NULL);
			gpu_complete();
			ts.tv_nsec = 1000000L;
		} else if (stop) {
			return NULL;
		}
		nanosleep(&ts, NULL);
	}
}

static void gpu_start(pthread_t *thread)
{
	pend.stop = false;
	if (pthread_create(thread, NULL, gpu_thread, NULL))
		ktest_abort_case();
}

static void gpu_stop(pthread_t thread)
{
	pthread_mutex_lock(&pend.lock);
	pend.stop = true;
	pthread_mutex_unlock(&pend.lock);
	pthread_join(thread, NULL);
}

/*
 * A VRAM of two BOs holding *@a (seed 1) and *@b (seed 2), LRU order a, b,
 * and *@c (seed 3) in SYSTEM to take a place; the deferred blitter moves.
 */
static void full_vram(struct ttm_buffer_object **a, struct ttm_buffer_object **b,
		      struct ttm_buffer_object **c)
{
	dev_init(64, 2 * BO_PAGES);
	tdev.funcs.move = deferred_move;
	*a = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);
	*b = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);
	*c = bo_reserved_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_fill(*a, 1), 0);
	EXPECT_EQ(ttm_test_bo_fill(*b, 2), 0);
	EXPECT_EQ(ttm_test_bo_fill(*c, 3), 0);
	ttm_bo_unreserve(*a);
	ttm_bo_unreserve(*b);
}

static void put3(struct ttm_buffer_object *a, struct ttm_buffer_object *b,
		 struct ttm_buffer_object *c)
{
	ttm_bo_put(a);
	ttm_bo_put(b);
	ttm_bo_put(c);
}

/*
 * Evicting A to make room for C frees A's range at once (one eviction, no
 * ghost), and C, given that range, is written only after the copy out of
 * it finished: A's content arrives whole in TT, C's stays C's.
 */
KTEST(ttm_bo_validate_pipelined_evict_new_bo_waits_for_copy)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true}, ctx = {0};
	struct ttm_buffer_object *a, *b, *c;
	struct dma_fence *move;
	uint64_t a_start;
	pthread_t thread;

	full_vram(&a, &b, &c);
	a_start = a->resource->start;

	/* Without waiting: A goes, C may not use the range before the copy. */
	EXPECT_EQ(validate_locked(c, TTM_PL_VRAM, &nw), -EBUSY);
	EXPECT_UEQ(nw.evictions, 1);
	EXPECT_EQ(ttm_test_bo_mem_type(a), TTM_PL_TT);
	EXPECT_EQ(mem_type(c), TTM_PL_SYSTEM);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), BO_SIZE);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	move = ttm_resource_manager_get_move(man(TTM_PL_VRAM));
	EXPECT_TRUE(move != NULL && move == pend.fence);
	EXPECT_FALSE(move && dma_fence_is_signaled(move));
	dma_fence_put(move);

	/* Waiting: the range fits without a second eviction. */
	gpu_start(&thread);
	EXPECT_EQ(validate_locked(c, TTM_PL_VRAM, &ctx), 0);
	gpu_stop(thread);
	EXPECT_UEQ(ctx.evictions, 0);
	EXPECT_EQ(mem_type(c), TTM_PL_VRAM);
	EXPECT_UEQ(c->resource->start, a_start);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 2 * BO_SIZE);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), BO_SIZE);
	EXPECT_EQ(ttm_test_bo_verify(c, 3), 0);
	ttm_bo_unreserve(c);
	EXPECT_EQ(ttm_test_bo_reserve_verify(a, 1), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(b, 2), 0);

	put3(a, b, c);
	dev_fini();
}

/*
 * The eviction the benchmark found: VRAM -> SYSTEM bounces through TT, and
 * that first leg is an eviction too, so it frees A's VRAM at once; before,
 * a ghost kept it and the retry evicted B as well.
 */
KTEST(ttm_bo_validate_pipelined_evict_through_hop_one_eviction)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *a, *b, *c;
	pthread_t thread;

	full_vram(&a, &b, &c);
	tdev.funcs.evict_flags = evict_to_system;

	gpu_start(&thread);
	EXPECT_EQ(validate_locked(c, TTM_PL_VRAM, &ctx), 0);
	gpu_stop(thread);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_UEQ(ctx.moves, 1);
	EXPECT_EQ(mem_type(c), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(a), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_mem_type(b), TTM_PL_VRAM);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_EQ(ttm_test_bo_verify(c, 3), 0);
	ttm_bo_unreserve(c);
	EXPECT_EQ(ttm_test_bo_reserve_verify(a, 1), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(b, 2), 0);

	put3(a, b, c);
	dev_fini();
}

/* Bytes held by the BOs of @bos in memory type @type. */
static uint64_t bytes_in(struct ttm_buffer_object *const *bos, unsigned n, unsigned type)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		if (ttm_test_bo_mem_type(bos[i]) == type)
			sum += bos[i]->size;
	return sum;
}

/*
 * Failing the n-th resource allocation or the CPU copy anywhere on that
 * path leaves every BO whole where it is, the usage counters equal to what
 * the BOs hold, no ghost and no fence behind.
 */
KTEST(ttm_bo_validate_pipelined_evict_fault_points_leak_nothing)
{
	struct fault_attr *points[] = {&ttm_fault_resource_alloc, &ttm_fault_move_copy};

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	for (unsigned p = 0; p < 2; p++) {
		for (unsigned long nth = 1; nth < 16; nth++) {
			struct ttm_operation_ctx ctx = {0};
			struct ttm_buffer_object *bos[3];
			long fences = dma_fence_live_count();
			bool hit;
			pthread_t thread;
			int ret;

			full_vram(&bos[0], &bos[1], &bos[2]);
			gpu_start(&thread);
			fault_set_nth(points[p], nth);
			ret = validate_locked(bos[2], TTM_PL_VRAM, &ctx);
			/* The countdown is spent only when the n-th call came. */
			hit = ret != 0;
			fault_reset(points[p]);
			gpu_stop(thread);
			EXPECT_TRUE(ret == 0 || ret == -ENOMEM);
			EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
			for (unsigned t = TTM_PL_TT; t <= TTM_PL_VRAM; t++)
				EXPECT_UEQ(ttm_resource_manager_usage(man(t)), bytes_in(bos, 3, t));
			EXPECT_EQ(ttm_test_bo_verify(bos[2], 3), 0);
			ttm_bo_unreserve(bos[2]);
			EXPECT_EQ(ttm_test_bo_reserve_verify(bos[0], 1), 0);
			EXPECT_EQ(ttm_test_bo_reserve_verify(bos[1], 2), 0);
			put3(bos[0], bos[1], bos[2]);
			EXPECT_EQ(ttm_resource_manager_cleanup_move(man(TTM_PL_VRAM), false), 0);
			dev_fini();
			EXPECT_EQ(dma_fence_live_count(), fences);
			if (!hit)
				break;
		}
	}
}

KTEST(ttm_bo_move_accel_cleanup_no_pipeline)
{
	struct ttm_buffer_object *bo;
	struct ttm_resource *res;
	struct dma_fence *f = ttm_test_fence_create();

	ASSERT_NOT_NULL(f);
	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_fill(bo, 8), 0);
	res = res_alloc(bo, TTM_PL_SYSTEM);
	/* Already signalled: the old resource is freed at once, no ghost. */
	dma_fence_signal(f);
	EXPECT_EQ(ttm_bo_move_accel_cleanup(bo, f, false, false, res), 0);
	EXPECT_TRUE(bo->resource == res);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_EQ(ttm_test_bo_verify(bo, 8), 0);

	ttm_bo_unreserve(bo);
	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

/*
 * Gutting a busy BO, as the kernel's: the resource and the populated tt go
 * to a ghost until the fence signals; the BO is left without a resource and
 * with a fresh unpopulated tt that will be zero-filled.
 */
KTEST(ttm_bo_pipeline_gutting_busy_hands_tt_to_ghost)
{
	struct ttm_buffer_object *bo;
	struct dma_fence *f = ttm_test_fence_create();
	struct ttm_tt *old_tt;

	ASSERT_NOT_NULL(f);
	bo = busy_bo_reserved_in(TTM_PL_TT, 12, f, DMA_RESV_USAGE_BOOKKEEP);
	old_tt = bo->ttm;

	EXPECT_EQ(ttm_bo_pipeline_gutting(bo), 0);
	EXPECT_NULL(bo->resource);
	ASSERT_NOT_NULL(bo->ttm);
	EXPECT_TRUE(bo->ttm != old_tt);
	EXPECT_FALSE(ttm_tt_is_populated(bo->ttm));
	EXPECT_TRUE(bo->ttm->page_flags & TTM_TT_FLAG_ZERO_ALLOC);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), BO_SIZE);
	dma_fence_signal(f);
	ttm_bo_unreserve(bo);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);

	/* Placed again, it reads as zeroes, not as the old content. */
	ttm_bo_reserve(bo, false, false, NULL);
	{
		struct ttm_operation_ctx ctx = {0};

		EXPECT_EQ(validate_locked(bo, TTM_PL_TT, &ctx), 0);
	}
	ttm_bo_unreserve(bo);
	EXPECT_TRUE(bo_is_zero(bo));

	dma_fence_put(f);
	ttm_bo_put(bo);
	dev_fini();
}

/*
 * The kernel's ttm_bo_validate_no_placement_signaled (both params) through
 * ttm_bo_pipeline_gutting() itself: an idle BO's resource is freed at once
 * (usage drops, no ghost), its tt stays but unpopulated and marked for
 * clear; a BO without a tt gets an unpopulated one.
 */
KTEST(ttm_bo_pipeline_gutting_idle_frees_resource)
{
	struct ttm_buffer_object *bo, *vbo;
	struct ttm_tt *old_tt;

	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_TT);
	EXPECT_EQ(ttm_test_bo_fill(bo, 5), 0);
	old_tt = bo->ttm;
	ASSERT_NOT_NULL(old_tt);
	ASSERT_TRUE(ttm_tt_is_populated(old_tt));
	EXPECT_EQ(ttm_bo_pipeline_gutting(bo), 0);
	EXPECT_NULL(bo->resource);
	EXPECT_TRUE(bo->ttm == old_tt);
	EXPECT_FALSE(ttm_tt_is_populated(bo->ttm));
	EXPECT_TRUE(bo->ttm->page_flags & TTM_TT_FLAG_ZERO_ALLOC);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_TT)), 0);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	ttm_bo_unreserve(bo);

	vbo = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_NULL(vbo->ttm);
	EXPECT_EQ(ttm_bo_pipeline_gutting(vbo), 0);
	EXPECT_NULL(vbo->resource);
	ASSERT_NOT_NULL(vbo->ttm);
	EXPECT_FALSE(ttm_tt_is_populated(vbo->ttm));
	EXPECT_TRUE(vbo->ttm->page_flags & TTM_TT_FLAG_ZERO_ALLOC);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), 0);
	ttm_bo_unreserve(vbo);

	ttm_bo_put(vbo);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_access_bounds)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	char buf[16] = "0123456789abcdef", out[16];

	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_EQ(ttm_bo_access(bo, BO_SIZE - 8, buf, 16, true, &ctx), -EINVAL);
	EXPECT_EQ(ttm_bo_access(bo, BO_SIZE + 1, buf, 0, true, &ctx), -EINVAL);
	/* Across a page boundary, in io memory and then in tt pages. */
	EXPECT_EQ(ttm_bo_access(bo, PAGE - 8, buf, 16, true, &ctx), 0);
	EXPECT_EQ(validate_locked(bo, TTM_PL_SYSTEM, &ctx), 0);
	EXPECT_EQ(ttm_bo_access(bo, PAGE - 8, out, 16, false, &ctx), 0);
	EXPECT_MEMEQ(buf, out, 16);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_metadata_size_small)
{
	struct ttm_buffer_object *bo;
	size_t sys, vram;

	dev_init(64, 64);
	bo = bo_reserved_in(PAGE, TTM_PL_VRAM);
	vram = ttm_bo_metadata_size(bo);
	EXPECT_GE(vram, sizeof(*bo) + sizeof(struct ttm_resource));
	EXPECT_TRUE(ttm_bo_populate(bo, &(struct ttm_operation_ctx){0}) == 0);
	sys = ttm_bo_metadata_size(bo);
	EXPECT_GT(sys, vram);
	EXPECT_LE(sys, 512);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_tt_create_destroy)
{
	struct ttm_buffer_object *bo;

	dev_init(64, 64);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_NULL(bo->ttm);
	EXPECT_EQ(ttm_bo_tt_create(bo, true), 0);
	ASSERT_NOT_NULL(bo->ttm);
	EXPECT_TRUE(bo->ttm->page_flags & TTM_TT_FLAG_ZERO_ALLOC);
	EXPECT_UEQ(bo->ttm->num_pages, BO_PAGES);
	/* Idempotent. */
	{
		struct ttm_tt *tt = bo->ttm;

		EXPECT_EQ(ttm_bo_tt_create(bo, false), 0);
		EXPECT_TRUE(bo->ttm == tt);
	}
	ttm_bo_tt_destroy(bo);
	EXPECT_NULL(bo->ttm);
	ttm_bo_tt_destroy(bo);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_fini();
}

KTEST(ttm_bo_validate_random_content_preserved)
{
	enum { NBO = 6 };
	struct ttm_buffer_object *bos[NBO];
	uint64_t sums[NBO];
	unsigned steps = 150 * ktest_scale();

	/* Small TT and VRAM, so that most validates evict something. */
	dev_init(3 * BO_PAGES, 2 * BO_PAGES);
	for (unsigned i = 0; i < NBO; i++) {
		bos[i] = bo_reserved_in(BO_SIZE, TTM_PL_SYSTEM);
		EXPECT_EQ(ttm_test_bo_fill(bos[i], ktest_rand()), 0);
		EXPECT_EQ(ttm_test_bo_checksum(bos[i], &sums[i]), 0);
		ttm_bo_unreserve(bos[i]);
	}

	for (unsigned s = 0; s < steps; s++) {
		struct ttm_operation_ctx ctx = {0};
		unsigned idx = (unsigned)(ktest_rand() % NBO);
		struct ttm_buffer_object *bo = bos[idx];
		unsigned op = (unsigned)(ktest_rand() % 5);
		uint64_t sum;
		int ret;

		ttm_bo_reserve(bo, false, false, NULL);
		if (op < 3) {
			ret = validate_locked(bo, types[op], &ctx);
			EXPECT_EQ(ret, 0);
		} else if (op == 3) {
			long pages = ttm_bo_swapout(bo, &ctx);

			/* Only a populated tt swaps; anything else says why. */
			EXPECT_TRUE(pages > 0 || pages == -EINVAL || pages == -EBUSY);
		} else {
			ttm_bo_unreserve(bo);
			ret = ttm_bo_evict_mem_type(
			    &tdev.bdev, ktest_rand() % 2 ? TTM_PL_TT : TTM_PL_VRAM, &ctx);
			EXPECT_EQ(ret, 0);
			ttm_bo_reserve(bo, false, false, NULL);
		}
		EXPECT_EQ(ttm_test_bo_checksum(bo, &sum), 0);
		if (sum != sums[idx])
			ktest_fail(__FILE__, __LINE__, "step %u: bo %u content changed (op %u)", s,
				   idx, op);
		ttm_bo_unreserve(bo);
	}

	for (unsigned i = 0; i < NBO; i++) {
		uint64_t sum;

		ttm_bo_reserve(bos[i], false, false, NULL);
		EXPECT_EQ(ttm_test_bo_checksum(bos[i], &sum), 0);
		EXPECT_UEQ(sum, sums[i]);
		ttm_bo_unreserve(bos[i]);
		ttm_bo_put(bos[i]);
	}
	/* The sequence really went through every path. */
	EXPECT_UGE(atomic_load(&tdev.bdev.stats.evictions), 1);
	EXPECT_UGE(atomic_load(&tdev.bdev.stats.swapouts), 1);
	EXPECT_UGE(atomic_load(&tdev.bdev.stats.swapins), 1);
	dev_fini();
}

KTEST(ttm_bo_populate_userptr)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement p;
	struct ttm_buffer_object *bo;
	char *mem = aligned_alloc(PAGE, BO_SIZE);
	char buf[8] = "userptr";

	ASSERT_NOT_NULL(mem);
	memset(mem, 0x5a, BO_SIZE);
	dev_init(64, 64);
	bo = calloc(1, sizeof(*bo));
	ASSERT_NOT_NULL(bo);
	bo->user_ptr = mem;
	ASSERT_EQ(ttm_bo_init_reserved(&tdev.bdev, bo, BO_SIZE, ttm_bo_type_userptr,
				       ttm_test_placement(&p, TTM_PL_SYSTEM, 0), 0, &ctx, NULL,
				       ttm_test_bo_destroy),
		  0);

	/* The BO's pages are the creator's memory, in SYSTEM and bound in TT. */
	EXPECT_EQ(ttm_bo_access(bo, PAGE + 4, buf, sizeof(buf), true, &ctx), 0);
	EXPECT_MEMEQ(mem + PAGE + 4, buf, sizeof(buf));
	EXPECT_EQ(validate_locked(bo, TTM_PL_TT, &ctx), 0);
	EXPECT_EQ(mem_type(bo), TTM_PL_TT);
	mem[3 * PAGE] = 'x';
	EXPECT_EQ(ttm_bo_access(bo, 3 * PAGE, buf, 1, false, &ctx), 0);
	EXPECT_EQ(buf[0], 'x');
	/* VRAM cannot hold it. */
	EXPECT_EQ(validate_locked(bo, TTM_PL_VRAM, &ctx), -EINVAL);
	EXPECT_EQ(mem_type(bo), TTM_PL_TT);

	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_fini();
	/* Still the creator's, untouched by the teardown. */
	EXPECT_EQ(mem[0], 0x5a);
	free(mem);
}

static void *signal_after_20ms(void *arg)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 20 * 1000000L};

	nanosleep(&ts, NULL);
	dma_fence_signal(arg);
	return NULL;
}

/*
 * A ghost holding the old VRAM of a pipelined move is a dead, busy BO to
 * eviction: a validate that needs the space gets -EBUSY with no_wait, and
 * otherwise waits for the ghost's fence and releases it; nothing is moved
 * or counted as an eviction.
 */
KTEST(ttm_bo_validate_ghost_released_for_space)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true}, ctx = {0};
	struct ttm_buffer_object *bo, *other;
	struct dma_fence *f = ttm_test_fence_create();
	struct ttm_resource *res;
	pthread_t thread;

	ASSERT_NOT_NULL(f);
	dev_init(64, BO_PAGES);
	bo = bo_reserved_in(BO_SIZE, TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_fill(bo, 77), 0);
	res = res_alloc(bo, TTM_PL_TT);
	EXPECT_EQ(ttm_bo_tt_create(bo, false), 0);
	/* Not an eviction: no move fence, only the ghost stands in the way. */
	EXPECT_EQ(ttm_bo_move_accel_cleanup(bo, f, false, true, res), 0);
	ttm_bo_unreserve(bo);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(man(TTM_PL_VRAM)), BO_SIZE);

	other = bo_reserved_in(BO_SIZE, TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_fill(other, 78), 0);
	EXPECT_EQ(validate_locked(other, TTM_PL_VRAM, &nw), -EBUSY);
	EXPECT_EQ(mem_type(other), TTM_PL_SYSTEM);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 1);

	ASSERT_EQ(pthread_create(&thread, NULL, signal_after_20ms, f), 0);
	EXPECT_EQ(validate_locked(other, TTM_PL_VRAM, &ctx), 0);
	pthread_join(thread, NULL);
	EXPECT_EQ(mem_type(other), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 0);
	EXPECT_UEQ(atomic_load(&tdev.bdev.stats.ghost_count), 0);
	EXPECT_EQ(ttm_test_bo_verify(other, 78), 0);
	ttm_bo_unreserve(other);

	ttm_bo_put(other);
	ttm_bo_put(bo);
	dma_fence_put(f);
	dev_fini();
}
