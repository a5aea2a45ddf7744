// SPDX-License-Identifier: MIT
/*
 * ttm_device.c: init/fini (several devices at once, refusal while BOs live),
 * the manager table, the delayed-destroy flush, the swap shrinker (LRU
 * order, the page cap under two allocating threads) and the info dump.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/ww_lockdep.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>

#include "ktest.h"
#include "ttm_test_helpers.h"

#define BO_PAGES 8
#define BO_SIZE (BO_PAGES * TTM_PAGE_SIZE)

static const struct testlib_mock_cfg full_cfg = {.tt_pages = 256, .vram_pages = 256};

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* A test device of full_cfg, calloc'ed (the caller frees it); ASSERT-checked. */
static struct testlib_mock_device *full_device(void)
{
	struct testlib_mock_device *tdev = calloc(1, sizeof(*tdev));

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(testlib_mock_device_init(tdev, &full_cfg), 0);
	return tdev;
}

/*
 * A BO of @mem_type made busy with a fresh fence (@usage) and dropped, so
 * that it waits on the delayed-destroy list; returns the fence (the
 * caller signals and puts it). ASSERT-checked.
 */
static struct dma_fence *queue_dead_bo(struct testlib_mock_device *tdev, uint32_t mem_type,
				       enum dma_resv_usage usage)
{
	struct ttm_buffer_object *bo;
	struct dma_fence *fence;

	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, mem_type, &bo), 0);
	fence = ttm_test_bo_busy(bo, usage);
	ASSERT_NOT_NULL(fence);
	ttm_bo_put(bo);
	return fence;
}

static void evict_flags_stub(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	placement->num_placement = 0;
	placement->placement = NULL;
}

KTEST(ttm_device_init_basic)
{
	static const struct ttm_device_funcs funcs = {.evict_flags = evict_flags_stub};
	struct ttm_device *bdev = calloc(1, sizeof(*bdev));

	ASSERT_NOT_NULL(bdev);
	ASSERT_EQ(ttm_device_init(bdev, &funcs, false), 0);
	EXPECT_TRUE(ttm_manager_type(bdev, TTM_PL_SYSTEM) == &bdev->sysman);
	EXPECT_TRUE(bdev->sysman.use_tt);
	EXPECT_NULL(ttm_manager_type(bdev, TTM_PL_TT));
	EXPECT_NULL(ttm_manager_type(bdev, TTM_NUM_MEM_TYPES));
	EXPECT_TRUE(list_empty(&bdev->ddestroy_list));
	EXPECT_EQ(ttm_device_flush_delayed(bdev, false), 0);
	EXPECT_EQ(ttm_device_fini(bdev), 0);
	free(bdev);
}

KTEST(ttm_device_init_invalid)
{
	static const struct ttm_device_funcs no_evict = {0};
	struct ttm_device *bdev = calloc(1, sizeof(*bdev));

	ASSERT_NOT_NULL(bdev);
	EXPECT_EQ(ttm_device_init(bdev, NULL, false), -EINVAL);
	EXPECT_EQ(ttm_device_init(bdev, &no_evict, false), -EINVAL);
	EXPECT_EQ(ttm_device_init(NULL, &no_evict, false), -EINVAL);
	free(bdev);
}

KTEST(ttm_device_init_multiple)
{
	enum { NDEV = 3 };
	struct testlib_mock_device *tdev = calloc(NDEV, sizeof(*tdev));
	struct ttm_buffer_object *bo[NDEV];
	struct ttm_global_stats before, during;

	ASSERT_NOT_NULL(tdev);
	ttm_global_get_stats(&before);
	for (int i = 0; i < NDEV; i++)
		ASSERT_EQ(testlib_mock_device_init(&tdev[i], &full_cfg), 0);
	for (int i = 0; i < NDEV; i++) {
		ASSERT_EQ(ttm_test_bo_create_in(&tdev[i].bdev, BO_SIZE, TTM_PL_TT, &bo[i]), 0);
		ASSERT_EQ(ttm_bo_reserve(bo[i], false, false, NULL), 0);
		ASSERT_EQ(ttm_test_bo_fill(bo[i], (uint64_t)i), 0);
		ttm_bo_unreserve(bo[i]);
	}
	/* Every device charges the one global count. */
	ttm_global_get_stats(&during);
	EXPECT_UGE(during.pages, before.pages + NDEV * BO_PAGES);
	for (int i = 0; i < NDEV; i++) {
		EXPECT_EQ(atomic_load(&tdev[i].bdev.stats.bo_count), 1);
		EXPECT_UEQ(ttm_resource_manager_usage(&tdev[i].tt.manager), BO_SIZE);
	}
	/* Devices are independent: tearing one down leaves the others working. */
	ttm_bo_put(bo[0]);
	EXPECT_EQ(testlib_mock_device_fini(&tdev[0]), 0);
	for (int i = 1; i < NDEV; i++) {
		ASSERT_EQ(ttm_bo_reserve(bo[i], false, false, NULL), 0);
		EXPECT_EQ(ttm_test_bo_verify(bo[i], (uint64_t)i), 0);
		ttm_bo_unreserve(bo[i]);
		ttm_bo_put(bo[i]);
		EXPECT_EQ(testlib_mock_device_fini(&tdev[i]), 0);
	}
	free(tdev);
}

KTEST(ttm_device_fini_busy)
{
	struct testlib_mock_device *tdev = full_device();
	struct ttm_buffer_object *bo;

	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_SYSTEM, &bo), 0);
	EXPECT_EQ(ttm_device_fini(&tdev->bdev), -EBUSY);
	/* Nothing was torn down: the BO and the device still work. */
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_EQ(ttm_test_bo_fill(bo, 3), 0);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

KTEST(ttm_set_driver_manager_invalid)
{
	struct testlib_mock_device *tdev = full_device();
	struct testlib_mock_manager mock;

	EXPECT_EQ(ttm_set_driver_manager(&tdev->bdev, TTM_PL_SYSTEM, &tdev->tt.manager), -EINVAL);
	EXPECT_EQ(ttm_set_driver_manager(&tdev->bdev, TTM_NUM_MEM_TYPES, &tdev->tt.manager),
		  -EINVAL);
	EXPECT_EQ(ttm_set_driver_manager(&tdev->bdev, TTM_PL_TT, &tdev->vram.manager), -EINVAL);
	EXPECT_TRUE(ttm_manager_type(&tdev->bdev, TTM_PL_TT) == &tdev->tt.manager);
	ASSERT_EQ(testlib_mock_manager_init(&mock, &tdev->bdev, TTM_PL_PRIV, -ENOSPC, 16), 0);
	EXPECT_TRUE(ttm_manager_type(&tdev->bdev, TTM_PL_PRIV) == &mock.man);
	testlib_mock_manager_fini(&mock, &tdev->bdev, TTM_PL_PRIV);
	EXPECT_NULL(ttm_manager_type(&tdev->bdev, TTM_PL_PRIV));
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

struct signal_arg {
	struct dma_fence *fence;
	long delay_ms;
};

static void *signal_later(void *p)
{
	struct signal_arg *a = p;

	sleep_ms(a->delay_ms);
	dma_fence_signal(a->fence);
	return NULL;
}

KTEST(ttm_device_flush_delayed_wait)
{
	struct testlib_mock_device *tdev = full_device();
	struct signal_arg sa = {queue_dead_bo(tdev, TTM_PL_TT, DMA_RESV_USAGE_WRITE), 20};
	pthread_t t;

	EXPECT_EQ(ttm_device_flush_delayed(&tdev->bdev, false), 1);
	ASSERT_EQ(pthread_create(&t, NULL, signal_later, &sa), 0);
	EXPECT_EQ(ttm_device_flush_delayed(&tdev->bdev, true), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	pthread_join(t, NULL);
	dma_fence_put(sa.fence);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

KTEST(ttm_device_fini_waits_for_delayed)
{
	struct testlib_mock_device *tdev = full_device();
	struct signal_arg sa = {queue_dead_bo(tdev, TTM_PL_SYSTEM, DMA_RESV_USAGE_WRITE), 20};
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, signal_later, &sa), 0);
	/* Only a deleted BO is left: fini waits for it instead of refusing. */
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	pthread_join(t, NULL);
	dma_fence_put(sa.fence);
	free(tdev);
}

KTEST(ttm_device_swapout_lru_order)
{
	struct testlib_mock_device *tdev = full_device();
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo[3];

	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_SYSTEM, &bo[i]), 0);
		ASSERT_EQ(ttm_bo_reserve(bo[i], false, false, NULL), 0);
		ASSERT_EQ(ttm_test_bo_fill(bo[i], (uint64_t)i + 100), 0);
		ttm_bo_unreserve(bo[i]);
	}
	/* bo0 was used last: bo1 is now the least recently used. */
	ASSERT_EQ(ttm_bo_reserve(bo[0], false, false, NULL), 0);
	ttm_bo_unreserve(bo[0]);
	EXPECT_EQ(ttm_device_swapout(&tdev->bdev, &ctx, BO_PAGES), BO_PAGES);
	EXPECT_TRUE(ttm_tt_is_swapped(bo[1]->ttm));
	EXPECT_FALSE(ttm_tt_is_swapped(bo[0]->ttm));
	EXPECT_FALSE(ttm_tt_is_swapped(bo[2]->ttm));
	/* A reserved BO is skipped (trylock only), as is a pinned one. */
	ASSERT_EQ(ttm_bo_reserve(bo[2], false, false, NULL), 0);
	/* Two reservations without a ticket, on purpose: nothing here can wait on them. */
	ww_lockdep_nest_ok(&bo[0]->resv->lock);
	ASSERT_EQ(ttm_bo_reserve(bo[0], false, false, NULL), 0);
	ttm_bo_pin(bo[0]);
	ttm_bo_unreserve(bo[0]);
	EXPECT_EQ(ttm_device_swapout(&tdev->bdev, &ctx, 1000), 0);
	ttm_bo_unreserve(bo[2]);
	EXPECT_EQ(ttm_device_swapout(&tdev->bdev, &ctx, 1000), BO_PAGES);
	EXPECT_TRUE(ttm_tt_is_swapped(bo[2]->ttm));
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 2);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(ttm_bo_reserve(bo[i], false, false, NULL), 0);
		if (i == 0)
			ttm_bo_unpin(bo[i]);
		EXPECT_EQ(ttm_test_bo_verify(bo[i], (uint64_t)i + 100), 0);
		ttm_bo_unreserve(bo[i]);
		ttm_bo_put(bo[i]);
	}
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

enum { CAP_PAGES = 96, CAP_BOS = 16, CAP_BO_PAGES = 8 };

struct cap_arg {
	struct ttm_device *bdev;
	pthread_barrier_t *start;
	uint64_t seed;
	int failures;
	int verified;
};

/*
 * Each thread keeps CAP_BOS BOs of CAP_BO_PAGES pages alive, more than the
 * whole cap, so filling them only works by swapping other BOs (its own or
 * the other thread's) out. Both start at the barrier so that they compete. Every
 * BO is checked at the end (swapping it back in, which again needs room).
 */
static void *cap_thread(void *p)
{
	struct cap_arg *a = p;
	struct ttm_buffer_object *bo[CAP_BOS];
	unsigned rounds = 2 * ktest_scale();

	pthread_barrier_wait(a->start);
	for (unsigned r = 0; r < rounds; r++) {
		for (int i = 0; i < CAP_BOS; i++) {
			if (ttm_test_bo_create_in(a->bdev, CAP_BO_PAGES * TTM_PAGE_SIZE,
						  TTM_PL_SYSTEM, &bo[i])) {
				a->failures++;
				bo[i] = NULL;
				continue;
			}
			ttm_bo_reserve(bo[i], false, false, NULL);
			if (ttm_test_bo_fill(bo[i], a->seed + (uint64_t)i))
				a->failures++;
			ttm_bo_unreserve(bo[i]);
		}
		for (int i = 0; i < CAP_BOS; i++) {
			if (!bo[i])
				continue;
			ttm_bo_reserve(bo[i], false, false, NULL);
			if (ttm_test_bo_verify(bo[i], a->seed + (uint64_t)i))
				a->failures++;
			else
				a->verified++;
			ttm_bo_unreserve(bo[i]);
			ttm_bo_put(bo[i]);
		}
	}
	return NULL;
}

KTEST(ttm_device_swapout_page_cap_threads)
{
	struct testlib_mock_device *tdev = full_device();
	struct ttm_global_config cfg = {.limit_pages = CAP_PAGES};
	struct cap_arg a[2];
	struct ttm_global_stats st;
	uint64_t swapouts, swapins;
	pthread_barrier_t start;
	pthread_t t[2];

	/* Free-list pages of earlier cases count too: start from an empty pool. */
	ttm_global_shrink(UINT32_MAX);
	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ttm_global_reset_high_water();
	pthread_barrier_init(&start, NULL, 2);
	for (int i = 0; i < 2; i++) {
		a[i] = (struct cap_arg){&tdev->bdev, &start, 1000 * (uint64_t)(i + 1), 0, 0};
		ASSERT_EQ(pthread_create(&t[i], NULL, cap_thread, &a[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	ttm_global_get_stats(&st);
	cfg.limit_pages = 0;
	ttm_global_config(&cfg);

	swapouts = atomic_load(&tdev->bdev.stats.swapouts);
	swapins = atomic_load(&tdev->bdev.stats.swapins);
	EXPECT_ULE(st.high_water, CAP_PAGES);
	EXPECT_GT(swapouts, 0);
	EXPECT_GT(swapins, 0);
	if (!swapouts || !swapins)
		ttm_device_print(&tdev->bdev, stderr);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(a[i].failures, 0);
		EXPECT_EQ(a[i].verified, (int)(2 * ktest_scale() * CAP_BOS));
	}
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 0);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

static bool has(const char *text, const char *needle)
{
	if (strstr(text, needle))
		return true;
	fprintf(stderr, "# info dump lacks \"%s\"\n", needle);
	return false;
}

KTEST(ttm_device_print_all)
{
	struct testlib_mock_device *tdev = full_device();
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *pinned, *swapped, *dead;
	struct dma_fence *fence;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_VRAM, &pinned), 0);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_SYSTEM, &swapped), 0);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_TT, &dead), 0);
	ASSERT_EQ(ttm_bo_reserve(pinned, false, false, NULL), 0);
	ttm_bo_pin(pinned);
	ttm_bo_unreserve(pinned);
	ASSERT_EQ(ttm_bo_reserve(swapped, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_fill(swapped, 5), 0);
	EXPECT_GT(ttm_bo_swapout(swapped, &ctx), 0);
	ttm_bo_unreserve(swapped);
	fence = ttm_test_bo_busy(dead, DMA_RESV_USAGE_WRITE);
	ASSERT_NOT_NULL(fence);
	ttm_bo_put(dead);

	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ttm_device_print(&tdev->bdev, f);
	fclose(f);
	ASSERT_NOT_NULL(text);
	EXPECT_TRUE(has(text, "manager 0 (system)"));
	EXPECT_TRUE(has(text, "manager 1 (tt)"));
	EXPECT_TRUE(has(text, "manager 2 (vram)"));
	EXPECT_TRUE(has(text, "lru[3]"));
	EXPECT_TRUE(has(text, "bos: 3\n"));
	EXPECT_TRUE(has(text, "ghosts: 0\n"));
	EXPECT_TRUE(has(text, "pinned: 1\n"));
	EXPECT_TRUE(has(text, "swapped: 1\n"));
	EXPECT_TRUE(has(text, "delayed_destroy: 1\n"));
	EXPECT_TRUE(has(text, "evictions: "));
	EXPECT_TRUE(has(text, "bytes_moved: "));
	EXPECT_TRUE(has(text, "swapouts: 1\n"));
	EXPECT_TRUE(has(text, "swapins: 0\n"));
	EXPECT_TRUE(has(text, "pending_fences: 1\n"));
	EXPECT_TRUE(has(text, "pool:\n"));
	EXPECT_TRUE(has(text, "page_cap:\n"));
	free(text);

	dma_fence_signal(fence);
	dma_fence_put(fence);
	ASSERT_EQ(ttm_bo_reserve(pinned, false, false, NULL), 0);
	ttm_bo_unpin(pinned);
	ttm_bo_unreserve(pinned);
	ttm_bo_put(pinned);
	ttm_bo_put(swapped);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

enum { CHURN_THREADS = 2, CHURN_QUEUE = 64 };

/*
 * Fences of the churning threads are signalled by a thread of their own:
 * a churner may itself end up waiting for one of them (validate evicting a
 * dead busy BO from a full TT), so it must not be the one to signal it.
 */
struct churn_queue {
	pthread_mutex_t lock;
	struct dma_fence *fences[CHURN_QUEUE];
	unsigned n;
};

struct churn_arg {
	struct ttm_device *bdev;
	struct churn_queue *q;
	atomic_bool *stop;
	unsigned iters;
	int failures;
};

static void churn_queue_drain(struct churn_queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->n) {
		struct dma_fence *f = q->fences[--q->n];

		dma_fence_signal(f);
		dma_fence_put(f);
	}
	pthread_mutex_unlock(&q->lock);
}

/* Queue @f (the caller's reference); false when the queue is full. */
static bool churn_queue_push(struct churn_queue *q, struct dma_fence *f)
{
	bool ok;

	pthread_mutex_lock(&q->lock);
	ok = q->n < CHURN_QUEUE;
	if (ok)
		q->fences[q->n++] = f;
	pthread_mutex_unlock(&q->lock);
	return ok;
}

/*
 * Create a populated BO, sometimes give it a fence signalled a little later,
 * drop it: idle ones go at once, busy ones through the worker or through
 * eviction, while the swapper thread walks the same LRUs.
 */
static void *churn_thread(void *p)
{
	struct churn_arg *a = p;

	for (unsigned i = 0; i < a->iters; i++) {
		struct ttm_buffer_object *bo;

		if (ttm_test_bo_create_in(a->bdev, BO_SIZE, i & 1 ? TTM_PL_TT : TTM_PL_SYSTEM,
					  &bo)) {
			a->failures++;
			continue;
		}
		ttm_bo_reserve(bo, false, false, NULL);
		if (ttm_test_bo_fill(bo, i))
			a->failures++;
		if (ktest_rand() & 1) {
			struct dma_fence *f = ttm_test_fence_create();

			if (!f || ttm_test_bo_add_fence(bo, f, DMA_RESV_USAGE_WRITE))
				a->failures++;
			if (f && !churn_queue_push(a->q, f)) {
				dma_fence_signal(f);
				dma_fence_put(f);
			}
		}
		ttm_bo_unreserve(bo);
		ttm_bo_put(bo);
	}
	return NULL;
}

static void *swapper_thread(void *p)
{
	struct churn_arg *a = p;
	struct ttm_operation_ctx ctx = {.no_wait_gpu = true};

	while (!atomic_load(a->stop)) {
		ttm_device_swapout(a->bdev, &ctx, 4 * BO_PAGES);
		ttm_device_flush_delayed(a->bdev, false);
		churn_queue_drain(a->q);
		sched_yield();
	}
	return NULL;
}

KTEST(ttm_device_flush_delayed_concurrent)
{
	struct testlib_mock_device *tdev = full_device();
	struct churn_queue q = {.n = 0};
	struct churn_arg a[CHURN_THREADS], sw;
	pthread_t t[CHURN_THREADS], ts;
	atomic_bool stop = false;
	long fences = dma_fence_live_count();

	pthread_mutex_init(&q.lock, NULL);
	sw = (struct churn_arg){&tdev->bdev, &q, &stop, 0, 0};
	ASSERT_EQ(pthread_create(&ts, NULL, swapper_thread, &sw), 0);
	for (int i = 0; i < CHURN_THREADS; i++) {
		a[i] = (struct churn_arg){&tdev->bdev, &q, &stop, 200 * ktest_scale(), 0};
		ASSERT_EQ(pthread_create(&t[i], NULL, churn_thread, &a[i]), 0);
	}
	for (int i = 0; i < CHURN_THREADS; i++)
		pthread_join(t[i], NULL);
	atomic_store(&stop, true);
	pthread_join(ts, NULL);
	churn_queue_drain(&q);
	pthread_mutex_destroy(&q.lock);
	for (int i = 0; i < CHURN_THREADS; i++)
		EXPECT_EQ(a[i].failures, 0);
	/* Every fence signalled: a waiting flush leaves nothing behind. */
	EXPECT_EQ(ttm_device_flush_delayed(&tdev->bdev, true), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	EXPECT_EQ(dma_fence_live_count(), fences);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

/*
 * A fence whose class counts the polls of its state: the delayed-destroy
 * worker looks at a busy BO's fences only when woken, so the count shows
 * whether it woke. @done makes the poll report completion without a signal,
 * as hardware that is only polled would.
 */
struct poll_fence {
	struct dma_fence base;
	atomic_int polls;
	atomic_bool done;
};

static bool poll_fence_signaled(struct dma_fence *f)
{
	struct poll_fence *pf = container_of(f, struct poll_fence, base);

	atomic_fetch_add(&pf->polls, 1);
	return atomic_load(&pf->done);
}

static const struct dma_fence_ops poll_fence_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
    .signaled = poll_fence_signaled,
};

static struct poll_fence *poll_fence_create(void)
{
	struct poll_fence *pf = dma_fence_alloc(sizeof(*pf));

	if (!pf)
		return NULL;
	dma_fence_init(&pf->base, &poll_fence_ops, dma_fence_context_alloc(1), 1);
	atomic_init(&pf->polls, 0);
	atomic_init(&pf->done, false);
	return pf;
}

static int64_t now_ms(void)
{
	return dma_fence_now_ns() / 1000000;
}

/* Wait up to @ms for the device to have no BO left; the time taken, or -1. */
static int64_t wait_no_bos(struct ttm_device *bdev, int64_t ms)
{
	int64_t t0 = now_ms();

	while (atomic_load(&bdev->stats.bo_count)) {
		if (now_ms() - t0 > ms)
			return -1;
		sched_yield();
	}
	return now_ms() - t0;
}

/* Queue a TT BO busy on @pf, then leave the worker 100 ms to settle. */
static void queue_busy_bo(struct testlib_mock_device *tdev, struct poll_fence *pf)
{
	struct ttm_buffer_object *bo;

	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_TT, &bo), 0);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_add_fence(bo, &pf->base, DMA_RESV_USAGE_BOOKKEEP), 0);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 1);
	sleep_ms(100);
}

KTEST(ttm_device_worker_sleeps_until_signal)
{
	struct testlib_mock_device *tdev = full_device();
	long fences = dma_fence_live_count();
	struct poll_fence *pf;
	int polls;
	int64_t took;

	pf = poll_fence_create();
	ASSERT_NOT_NULL(pf);
	queue_busy_bo(tdev, pf);

	/* Nothing signals: the worker must not look (a poller would, ~200 times). */
	polls = atomic_load(&pf->polls);
	sleep_ms(200);
	EXPECT_EQ(atomic_load(&pf->polls), polls);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 1);

	/*
	 * The signal wakes it: freed well before the 1 s safety timeout that
	 * started when the worker went to sleep 300 ms ago.
	 */
	dma_fence_signal(&pf->base);
	took = wait_no_bos(&tdev->bdev, 5000);
	EXPECT_GE(took, 0);
	EXPECT_LT(took, 500);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 0);
	dma_fence_put(&pf->base);
	/* The callback gave its fence reference back on the signal. */
	EXPECT_EQ(dma_fence_live_count(), fences);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

KTEST(ttm_device_worker_safety_timeout_polls)
{
	struct testlib_mock_device *tdev = full_device();
	struct poll_fence *pf;

	pf = poll_fence_create();
	ASSERT_NOT_NULL(pf);
	queue_busy_bo(tdev, pf);

	/* Completed without a signal, so no callback: only the safety timeout finds it. */
	atomic_store(&pf->done, true);
	EXPECT_GE(wait_no_bos(&tdev->bdev, 5000), 0);
	EXPECT_GT(atomic_load(&pf->polls), 0);
	dma_fence_put(&pf->base);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

KTEST(ttm_device_flush_wait_with_armed_callback)
{
	struct testlib_mock_device *tdev = full_device();
	struct poll_fence *pf;
	long fences = dma_fence_live_count();

	pf = poll_fence_create();
	ASSERT_NOT_NULL(pf);
	queue_busy_bo(tdev, pf);
	/*
	 * Freed by a waiting flush from another thread than the worker: the
	 * worker's callback then fires (or is disarmed by fini) and the
	 * fence outlives the device without pointing into it.
	 */
	atomic_store(&pf->done, true);
	ttm_device_flush_delayed(&tdev->bdev, true);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
	dma_fence_signal(&pf->base);
	dma_fence_put(&pf->base);
	EXPECT_EQ(dma_fence_live_count(), fences);
}
