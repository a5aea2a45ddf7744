// SPDX-License-Identifier: MIT
/*
 * ttm_bo.c: reservation, LRU bump, pinning, release and delayed destroy,
 * cleanup of dead BOs, swapout and the init argument checks, over the mock
 * driver of ttm_test_helpers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <ttm/ww_lockdep.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_faults.h>

#include "ktest.h"
#include "../ttm_bo_internal.h"
#include "ttm_test_helpers.h"

#define BO_SIZE (8 * TTM_PAGE_SIZE)

static struct testlib_mock_device *dev_setup(void)
{
	static const struct testlib_mock_cfg cfg = {.tt_pages = 256, .vram_pages = 256};
	struct testlib_mock_device *tdev = calloc(1, sizeof(*tdev));

	fault_reset_all();
	if (!tdev)
		return NULL;
	if (testlib_mock_device_init(tdev, &cfg)) {
		free(tdev);
		return NULL;
	}
	return tdev;
}

/* dev_setup() and one unreserved BO_SIZE BO in @mem_type (ASSERT-checked). */
static struct testlib_mock_device *dev_setup_bo(uint32_t mem_type, struct ttm_buffer_object **bo)
{
	struct testlib_mock_device *tdev = dev_setup();

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, mem_type, bo), 0);
	return tdev;
}

static void dev_teardown(struct testlib_mock_device *tdev)
{
	EXPECT_EQ(testlib_mock_device_fini(tdev), 0);
	free(tdev);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Wait up to ~5 s for the worker to bring the live BO count to @n. */
static bool wait_bo_count(struct ttm_device *bdev, uint64_t n)
{
	for (int i = 0; i < 5000; i++) {
		if (atomic_load(&bdev->stats.bo_count) == n)
			return true;
		sleep_ms(1);
	}
	return false;
}

static struct ttm_resource *lru_last(struct ttm_resource_manager *man, unsigned prio)
{
	if (list_empty(&man->lru[prio]))
		return NULL;
	return list_entry(man->lru[prio].prev, struct ttm_resource, lru);
}

static struct ttm_resource *lru_first(struct ttm_resource_manager *man, unsigned prio)
{
	if (list_empty(&man->lru[prio]))
		return NULL;
	return list_entry(man->lru[prio].next, struct ttm_resource, lru);
}

KTEST(ttm_bo_reserve_optimistic_no_ticket)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	EXPECT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_TRUE(dma_resv_is_locked(bo->resv));
	ttm_bo_unreserve(bo);
	EXPECT_FALSE(dma_resv_is_locked(bo->resv));
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_reserve_locked_no_sleep)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	/* A trylock of a held reservation must answer at once. */
	EXPECT_EQ(ttm_bo_reserve(bo, false, true, NULL), -EBUSY);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_reserve_double_resv)
{
	struct testlib_mock_device *tdev;
	struct ww_acquire_ctx ticket;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ww_acquire_init(&ticket, &reservation_ww_class);
	EXPECT_EQ(ttm_bo_reserve(bo, false, false, &ticket), 0);
	EXPECT_EQ(ttm_bo_reserve(bo, false, false, &ticket), -EALREADY);
	/* no_wait with a ticket is refused before looking at the lock, as in the kernel. */
	EXPECT_EQ(ttm_bo_reserve(bo, false, true, &ticket), -EBUSY);
	ttm_bo_unreserve(bo);
	ww_acquire_fini(&ticket);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_reserve_no_wait_ticket)
{
	struct testlib_mock_device *tdev;
	struct ww_acquire_ctx ticket;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ww_acquire_init(&ticket, &reservation_ww_class);
	/* A ticket says "wait-die", no_wait says "don't wait": -EBUSY, lock untouched. */
	EXPECT_EQ(ttm_bo_reserve(bo, false, true, &ticket), -EBUSY);
	EXPECT_FALSE(dma_resv_is_locked(bo->resv));
	EXPECT_EQ(ttm_bo_reserve(bo, true, true, &ticket), -EBUSY);
	EXPECT_FALSE(dma_resv_is_locked(bo->resv));
	ww_acquire_fini(&ticket);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

struct deadlock_arg {
	struct ttm_buffer_object *first, *second;
	struct ww_acquire_ctx *ticket;
	pthread_barrier_t *barrier;
	int second_ret;
	int slow_ret;
	int retry_ret;
};

/*
 * Lock @first, meet the other thread, then go for @second. The younger
 * transaction must die with -EDEADLK, back off, take the contended lock in
 * the slow path and then the rest; the older one simply waits.
 */
static void *deadlock_thread(void *p)
{
	struct deadlock_arg *a = p;

	EXPECT_EQ(ttm_bo_reserve(a->first, false, false, a->ticket), 0);
	pthread_barrier_wait(a->barrier);
	a->second_ret = ttm_bo_reserve(a->second, false, false, a->ticket);
	if (a->second_ret == -EDEADLK) {
		ttm_bo_unreserve(a->first);
		a->slow_ret = ttm_bo_reserve_slowpath(a->second, false, a->ticket);
		a->retry_ret = ttm_bo_reserve(a->first, false, false, a->ticket);
	}
	ttm_bo_unreserve(a->second);
	ttm_bo_unreserve(a->first);
	return NULL;
}

KTEST(ttm_bo_reserve_deadlock)
{
	struct testlib_mock_device *tdev;
	struct ww_acquire_ctx old_ticket, young_ticket;
	struct ttm_buffer_object *bo1, *bo2;
	pthread_barrier_t barrier;
	struct deadlock_arg a, b;
	pthread_t ta, tb;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo1);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_SYSTEM, &bo2), 0);
	ww_acquire_init(&old_ticket, &reservation_ww_class);
	ww_acquire_init(&young_ticket, &reservation_ww_class);
	pthread_barrier_init(&barrier, NULL, 2);
	a = (struct deadlock_arg){bo1, bo2, &old_ticket, &barrier, 1, 1, 1};
	b = (struct deadlock_arg){bo2, bo1, &young_ticket, &barrier, 1, 1, 1};
	ASSERT_EQ(pthread_create(&ta, NULL, deadlock_thread, &a), 0);
	ASSERT_EQ(pthread_create(&tb, NULL, deadlock_thread, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	EXPECT_EQ(a.second_ret, 0);
	EXPECT_EQ(b.second_ret, -EDEADLK);
	EXPECT_EQ(b.slow_ret, 0);
	EXPECT_EQ(b.retry_ret, 0);
	EXPECT_FALSE(dma_resv_is_locked(bo1->resv));
	EXPECT_FALSE(dma_resv_is_locked(bo2->resv));
	pthread_barrier_destroy(&barrier);
	ww_acquire_fini(&old_ticket);
	ww_acquire_fini(&young_ticket);
	ttm_bo_put(bo1);
	ttm_bo_put(bo2);
	dev_teardown(tdev);
}

struct intr_arg {
	struct ttm_buffer_object *bo;
	struct dma_fence_interrupt intr;
	atomic_bool started;
	int ret;
};

static void *intr_thread(void *p)
{
	struct intr_arg *a = p;

	dma_fence_interrupt_install(&a->intr);
	atomic_store(&a->started, true);
	a->ret = ttm_bo_reserve(a->bo, true, false, NULL);
	if (!a->ret)
		ttm_bo_unreserve(a->bo);
	dma_fence_interrupt_install(NULL);
	return NULL;
}

KTEST(ttm_bo_reserve_interrupted)
{
	struct testlib_mock_device *tdev;
	struct intr_arg a = {0};
	pthread_t t;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &a.bo);
	ASSERT_EQ(ttm_bo_reserve(a.bo, false, false, NULL), 0);
	dma_fence_interrupt_init(&a.intr);
	ASSERT_EQ(pthread_create(&t, NULL, intr_thread, &a), 0);
	while (!atomic_load(&a.started))
		sleep_ms(1);
	sleep_ms(20);
	dma_fence_interrupt_raise(&a.intr);
	pthread_join(t, NULL);
	EXPECT_EQ(a.ret, -EINTR);
	ttm_bo_unreserve(a.bo);
	ttm_bo_put(a.bo);
	dev_teardown(tdev);
}

struct intr_wait_arg {
	struct ttm_buffer_object *bo;
	struct dma_fence_interrupt intr;
	atomic_bool started;
	int wait_ret;
	int slow_ret;
	struct ww_acquire_ctx ticket;
};

/* An interruptible wait for idle, then an interruptible slow-path reserve. */
static void *intr_wait_thread(void *p)
{
	struct intr_wait_arg *a = p;
	struct ttm_operation_ctx ctx = {.interruptible = true};

	dma_fence_interrupt_install(&a->intr);
	atomic_store(&a->started, true);
	a->wait_ret = ttm_bo_wait_ctx(a->bo, &ctx);
	ww_acquire_init(&a->ticket, &reservation_ww_class);
	a->slow_ret = ttm_bo_reserve_slowpath(a->bo, true, &a->ticket);
	if (!a->slow_ret)
		ttm_bo_unreserve(a->bo);
	ww_acquire_fini(&a->ticket);
	dma_fence_interrupt_install(NULL);
	return NULL;
}

KTEST(ttm_bo_wait_ctx_interrupted)
{
	struct testlib_mock_device *tdev;
	struct intr_wait_arg a = {0};
	struct dma_fence *fence;
	pthread_t t;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &a.bo);
	fence = ttm_test_fence_create();
	ASSERT_NOT_NULL(fence);
	ASSERT_EQ(ttm_bo_reserve(a.bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_add_fence(a.bo, fence, DMA_RESV_USAGE_WRITE), 0);
	/* Held: the thread's slow-path reserve has to sleep too. */
	dma_fence_interrupt_init(&a.intr);
	ASSERT_EQ(pthread_create(&t, NULL, intr_wait_thread, &a), 0);
	while (!atomic_load(&a.started))
		sleep_ms(1);
	sleep_ms(20);
	/* Raised once, it stays pending: both sleeps end with -EINTR. */
	dma_fence_interrupt_raise(&a.intr);
	pthread_join(t, NULL);
	EXPECT_EQ(a.wait_ret, -EINTR);
	EXPECT_EQ(a.slow_ret, -EINTR);
	EXPECT_FALSE(dma_fence_is_signaled(fence));
	dma_fence_signal(fence);
	ttm_bo_unreserve(a.bo);
	dma_fence_put(fence);
	ttm_bo_put(a.bo);
	dev_teardown(tdev);
}

/* As the kernel's ttm_tt_create_invalid_bo_type: no tt, -EINVAL. */
KTEST(ttm_tt_create_invalid_bo_type)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;
	struct ttm_tt *tt;
	enum ttm_bo_type type;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	tt = bo->ttm;
	type = bo->type;
	bo->ttm = NULL;
	bo->type = (enum ttm_bo_type)(ttm_bo_type_userptr + 1);
	EXPECT_EQ(ttm_bo_tt_create(bo, false), -EINVAL);
	EXPECT_NULL(bo->ttm);
	bo->type = type;
	bo->ttm = tt;
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_unreserve_basic)
{
	struct testlib_mock_device *tdev;
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *bo1, *bo2;

	tdev = dev_setup_bo(TTM_PL_TT, &bo1);
	man = ttm_manager_type(&tdev->bdev, TTM_PL_TT);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_TT, &bo2), 0);
	EXPECT_TRUE(lru_last(man, 0) == bo2->resource);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 2);
	/* Using bo1 makes it the most recently used: bo2 becomes the victim. */
	ASSERT_EQ(ttm_bo_reserve(bo1, false, false, NULL), 0);
	ttm_bo_unreserve(bo1);
	EXPECT_TRUE(lru_last(man, 0) == bo1->resource);
	EXPECT_TRUE(lru_first(man, 0) == bo2->resource);
	ttm_bo_put(bo1);
	ttm_bo_put(bo2);
	dev_teardown(tdev);
}

KTEST(ttm_bo_unreserve_priority)
{
	struct testlib_mock_device *tdev;
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	man = ttm_manager_type(&tdev->bdev, TTM_PL_TT);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 1);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	bo->priority = 2;
	ttm_bo_unreserve(bo);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 0);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 2), 1);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_unreserve_pinned)
{
	struct testlib_mock_device *tdev;
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	man = ttm_manager_type(&tdev->bdev, TTM_PL_TT);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_pin(bo);
	ttm_bo_unreserve(bo);
	/* The bump on unreserve must not put a pinned BO back on the LRU. */
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 0);
	EXPECT_FALSE(list_empty(&tdev->bdev.pinned));
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_unpin(bo);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 1);
	EXPECT_TRUE(list_empty(&tdev->bdev.pinned));
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_unreserve_bulk)
{
	struct testlib_mock_device *tdev = dev_setup();
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *bo[3];
	struct ttm_lru_bulk_move bulk;

	ASSERT_NOT_NULL(tdev);
	man = ttm_manager_type(&tdev->bdev, TTM_PL_TT);
	ttm_lru_bulk_move_init(&bulk);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_TT, &bo[i]), 0);
	/* bo0 and bo2 form a bulk; bo1 sits outside it. */
	for (int i = 0; i < 3; i += 2) {
		ASSERT_EQ(ttm_bo_reserve(bo[i], false, false, NULL), 0);
		ttm_bo_set_bulk_move(bo[i], &bulk);
		ttm_bo_unreserve(bo[i]);
	}
	EXPECT_TRUE(bulk.pos[TTM_PL_TT][0].first == bo[0]->resource);
	EXPECT_TRUE(bulk.pos[TTM_PL_TT][0].last == bo[2]->resource);
	EXPECT_TRUE(bo[0]->resource->lru.next == &bo[2]->resource->lru);
	/* Bumping a member keeps the range adjacent. */
	ASSERT_EQ(ttm_bo_reserve(bo[0], false, false, NULL), 0);
	ttm_bo_unreserve(bo[0]);
	EXPECT_TRUE(bulk.pos[TTM_PL_TT][0].first == bo[2]->resource);
	EXPECT_TRUE(bulk.pos[TTM_PL_TT][0].last == bo[0]->resource);
	EXPECT_TRUE(bo[2]->resource->lru.next == &bo[0]->resource->lru);
	ttm_lock(&tdev->bdev.lru_lock);
	ttm_lru_bulk_move_tail(&bulk, tdev->bdev.man_drv);
	ttm_unlock(&tdev->bdev.lru_lock);
	EXPECT_TRUE(lru_first(man, 0) == bo[1]->resource);
	for (int i = 0; i < 3; i += 2) {
		ASSERT_EQ(ttm_bo_reserve(bo[i], false, false, NULL), 0);
		ttm_bo_set_bulk_move(bo[i], NULL);
		ttm_bo_unreserve(bo[i]);
	}
	EXPECT_NULL(bulk.pos[TTM_PL_TT][0].first);
	for (int i = 0; i < 3; i++)
		ttm_bo_put(bo[i]);
	dev_teardown(tdev);
}

KTEST(ttm_bo_pin_basic)
{
	struct testlib_mock_device *tdev;
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	man = ttm_manager_type(&tdev->bdev, TTM_PL_TT);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_pin(bo);
	ttm_bo_pin(bo);
	EXPECT_EQ(bo->pin_count, 2);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.pinned), 1);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 0);
	EXPECT_TRUE(tdev->bdev.pinned.next == &bo->resource->lru);
	ttm_bo_unpin(bo);
	EXPECT_EQ(bo->pin_count, 1);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 0);
	ttm_bo_unpin(bo);
	EXPECT_EQ(bo->pin_count, 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.pinned), 0);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 1);
	/* One unpin too many is ignored rather than wrapping the count. */
	ttm_bo_unpin(bo);
	EXPECT_EQ(bo->pin_count, 0);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_pin_put_pinned)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_pin(bo);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_EQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	EXPECT_TRUE(list_empty(&tdev->bdev.pinned));
	dev_teardown(tdev);
}

KTEST(ttm_bo_get_unless_zero_basic)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	EXPECT_TRUE(ttm_bo_get_unless_zero(bo) == bo);
	EXPECT_EQ(atomic_load(&bo->refcount), 2);
	ttm_bo_put(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	dev_teardown(tdev);
}

KTEST(ttm_bo_put_idle)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), BO_SIZE);
	ttm_bo_put(bo);
	/* Idle: freed at once, with both notifications. */
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	EXPECT_EQ(atomic_load(&tdev->delete_mem_notifies), 1);
	EXPECT_EQ(atomic_load(&tdev->release_notifies), 1);
	dev_teardown(tdev);
}

KTEST(ttm_bo_put_busy_delayed)
{
	struct testlib_mock_device *tdev;
	struct ttm_buffer_object *bo;
	struct dma_fence *fence;
	long fences = dma_fence_live_count();

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	fence = ttm_test_bo_busy(bo, DMA_RESV_USAGE_WRITE);
	ASSERT_NOT_NULL(fence);

	ttm_bo_put(bo);
	/* Busy: still alive, on the delayed list, still holding its space. */
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 1);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 1);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), BO_SIZE);
	EXPECT_EQ(atomic_load(&tdev->release_notifies), 0);
	sleep_ms(5);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 1);

	/* The worker notices the signal by itself. */
	dma_fence_signal(fence);
	EXPECT_TRUE(wait_bo_count(&tdev->bdev, 0));
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	EXPECT_EQ(atomic_load(&tdev->release_notifies), 1);
	dma_fence_put(fence);
	EXPECT_EQ(dma_fence_live_count(), fences);
	dev_teardown(tdev);
}

KTEST(ttm_bo_put_shared_resv_individualized)
{
	struct testlib_mock_device *tdev = dev_setup();
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *a, *b;
	struct ttm_test_placement p;
	struct dma_fence *fa, *fb;
	struct dma_resv resv;

	ASSERT_NOT_NULL(tdev);
	dma_resv_init(&resv);
	ASSERT_EQ(dma_resv_lock(&resv, NULL), 0);
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ttm_test_placement(&p, TTM_PL_TT, 0);
	ASSERT_EQ(ttm_bo_init_reserved(&tdev->bdev, a, BO_SIZE, ttm_bo_type_device, &p.placement, 0,
				       &ctx, &resv, ttm_test_bo_destroy),
		  0);
	ASSERT_EQ(ttm_bo_init_reserved(&tdev->bdev, b, BO_SIZE, ttm_bo_type_device, &p.placement, 0,
				       &ctx, &resv, ttm_test_bo_destroy),
		  0);
	fa = ttm_test_fence_create();
	fb = ttm_test_fence_create();
	ASSERT_NOT_NULL(fa);
	ASSERT_NOT_NULL(fb);
	ASSERT_EQ(ttm_test_bo_add_fence(a, fa, DMA_RESV_USAGE_WRITE), 0);
	dma_resv_unlock(&resv);

	/* a goes on the delayed list with a copy of the shared fences. */
	ttm_bo_put(a);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 1);
	ASSERT_EQ(dma_resv_lock(&resv, NULL), 0);
	ASSERT_EQ(ttm_test_bo_add_fence(b, fb, DMA_RESV_USAGE_WRITE), 0);
	dma_resv_unlock(&resv);
	/* A fence added to the shared object later does not hold a back. */
	dma_fence_signal(fa);
	EXPECT_TRUE(wait_bo_count(&tdev->bdev, 1));
	dma_fence_signal(fb);
	ttm_bo_put(b);
	EXPECT_TRUE(wait_bo_count(&tdev->bdev, 0));
	dma_fence_put(fa);
	dma_fence_put(fb);
	dma_resv_fini(&resv);
	dev_teardown(tdev);
}

KTEST(ttm_bo_cleanup_refs_deleted)
{
	struct testlib_mock_device *tdev;
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *bo;
	struct dma_fence *fence;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	man = ttm_manager_type(&tdev->bdev, TTM_PL_TT);
	fence = ttm_test_bo_busy(bo, DMA_RESV_USAGE_BOOKKEEP);
	ASSERT_NOT_NULL(fence);
	ttm_bo_put(bo);
	/* Dead but busy: still on the LRU where eviction will find it. */
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 1);
	EXPECT_TRUE(bo->deleted);

	/* What eviction does with it. */
	ASSERT_TRUE(ttm_bo_get_unless_zero(bo) == bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, true, NULL), 0);
	EXPECT_EQ(ttm_bo_cleanup_refs(bo, false, true, false), -EBUSY);
	EXPECT_TRUE(dma_resv_is_locked(bo->resv));
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 1);
	dma_fence_signal(fence);
	EXPECT_EQ(ttm_bo_cleanup_refs(bo, false, true, true), 0);
	EXPECT_FALSE(dma_resv_is_locked(bo->resv));
	EXPECT_TRUE(list_empty(&tdev->bdev.ddestroy_list));
	EXPECT_UEQ(ttm_resource_manager_usage(man), 0);
	EXPECT_EQ(ttm_resource_manager_lru_count(man, 0), 0);
	/* Off the list and empty, but counted until the last reference goes. */
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 1);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 1);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.ddestroy), 0);
	dma_fence_put(fence);
	dev_teardown(tdev);
}

KTEST(ttm_bo_init_reserved_fault_bo_alloc)
{
	struct testlib_mock_device *tdev = dev_setup();
	struct ttm_buffer_object *bo = (void *)1;
	long fences = dma_fence_live_count();

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	ASSERT_NOT_NULL(tdev);
	fault_set_nth(&ttm_fault_bo_alloc, 1);
	EXPECT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_TT, &bo), -ENOMEM);
	EXPECT_NULL(bo);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	EXPECT_EQ(dma_fence_live_count(), fences);
	/* The point fired once; the next create works. */
	EXPECT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_TT, &bo), 0);
	ttm_bo_put(bo);
	fault_reset_all();
	dev_teardown(tdev);
}

static _Atomic int destroyed;

static void count_destroy(struct ttm_buffer_object *bo)
{
	atomic_fetch_add(&destroyed, 1);
	free(bo);
}

static int init_one(struct ttm_device *bdev, uint64_t size, uint32_t align, unsigned prio,
		    const struct ttm_placement *pl)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));
	int ret;

	if (!bo)
		return -ENOMEM;
	bo->priority = prio;
	ret = ttm_bo_init_validate(bdev, bo, size, ttm_bo_type_device, pl, align, &ctx, NULL,
				   count_destroy);
	if (!ret)
		ttm_bo_put(bo);
	return ret;
}

KTEST(ttm_bo_init_reserved_invalid_args)
{
	struct testlib_mock_device *tdev = dev_setup();
	struct ttm_placement empty = {0, NULL};
	struct ttm_test_placement p;
	struct ttm_placement *pl;

	ASSERT_NOT_NULL(tdev);
	pl = ttm_test_placement(&p, TTM_PL_TT, 0);
	atomic_store(&destroyed, 0);
	EXPECT_EQ(init_one(&tdev->bdev, 0, 0, 0, pl), -EINVAL);
	EXPECT_EQ(init_one(&tdev->bdev, UINT64_MAX, 0, 0, pl), -EINVAL);
	EXPECT_EQ(init_one(&tdev->bdev, BO_SIZE, 3, 0, pl), -EINVAL);
	EXPECT_EQ(init_one(&tdev->bdev, BO_SIZE, 0, TTM_MAX_BO_PRIORITY, pl), -EINVAL);
	EXPECT_EQ(init_one(&tdev->bdev, BO_SIZE, 0, 0, &empty), -EINVAL);
	EXPECT_EQ(init_one(&tdev->bdev, BO_SIZE, 0, 0, NULL), -EINVAL);
	/* destroy ran for every failure: the caller never frees. */
	EXPECT_EQ(atomic_load(&destroyed), 6);
	EXPECT_EQ(init_one(&tdev->bdev, BO_SIZE, 4, TTM_MAX_BO_PRIORITY - 1, pl), 0);
	EXPECT_EQ(atomic_load(&destroyed), 7);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	dev_teardown(tdev);
}

KTEST(ttm_bo_init_reserved_userptr_checks)
{
	struct testlib_mock_device *tdev = dev_setup();
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement p;
	struct ttm_buffer_object *bo;
	char *mem = aligned_alloc(TTM_PAGE_SIZE, BO_SIZE + TTM_PAGE_SIZE);

	ASSERT_NOT_NULL(tdev);
	ASSERT_NOT_NULL(mem);
	atomic_store(&destroyed, 0);
	bo = calloc(1, sizeof(*bo));
	ASSERT_NOT_NULL(bo);
	bo->user_ptr = mem + 1;
	EXPECT_EQ(ttm_bo_init_reserved(&tdev->bdev, bo, BO_SIZE, ttm_bo_type_userptr,
				       ttm_test_placement(&p, TTM_PL_SYSTEM, 0), 0, &ctx, NULL,
				       count_destroy),
		  -EINVAL);
	bo = calloc(1, sizeof(*bo));
	ASSERT_NOT_NULL(bo);
	bo->user_ptr = mem;
	EXPECT_EQ(ttm_bo_init_reserved(&tdev->bdev, bo, BO_SIZE, ttm_bo_type_userptr,
				       ttm_test_placement(&p, TTM_PL_VRAM, 0), 0, &ctx, NULL,
				       count_destroy),
		  -EINVAL);
	EXPECT_EQ(atomic_load(&destroyed), 2);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	free(mem);
	dev_teardown(tdev);
}

KTEST(ttm_bo_init_reserved_mock_managers)
{
	struct testlib_mock_device *tdev = dev_setup();
	struct testlib_mock_manager nospc, busy;
	struct ttm_buffer_object *bo = NULL;
	struct ttm_test_placement p;

	ASSERT_NOT_NULL(tdev);
	ASSERT_EQ(testlib_mock_manager_init(&nospc, &tdev->bdev, TTM_PL_PRIV, -ENOSPC, 64), 0);
	ASSERT_EQ(testlib_mock_manager_init(&busy, &tdev->bdev, TTM_PL_PRIV + 1, -EBUSY, 64), 0);
	/* Nothing fits and nothing can be evicted: the create fails, leaks nothing. */
	EXPECT_LT(ttm_test_bo_create(&tdev->bdev, BO_SIZE, ttm_bo_type_device,
				     ttm_test_placement(&p, TTM_PL_PRIV, 0), NULL, false, &bo),
		  0);
	EXPECT_GT(atomic_load(&nospc.allocs), 0);
	EXPECT_LT(ttm_test_bo_create(&tdev->bdev, BO_SIZE, ttm_bo_type_device,
				     ttm_test_placement(&p, TTM_PL_PRIV + 1, 0), NULL, false, &bo),
		  0);
	EXPECT_GT(atomic_load(&busy.allocs), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.bo_count), 0);
	/* A fallback after the full type is used. */
	ttm_test_placement(&p, TTM_PL_PRIV, 0);
	ttm_test_placement_add(&p, TTM_PL_TT, 0);
	ASSERT_EQ(ttm_test_bo_create(&tdev->bdev, BO_SIZE, ttm_bo_type_device, &p.placement, NULL,
				     false, &bo),
		  0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_TT);
	ttm_bo_put(bo);
	testlib_mock_manager_fini(&busy, &tdev->bdev, TTM_PL_PRIV + 1);
	testlib_mock_manager_fini(&nospc, &tdev->bdev, TTM_PL_PRIV);
	dev_teardown(tdev);
}

KTEST(ttm_bo_wait_ctx_basic)
{
	struct testlib_mock_device *tdev;
	struct ttm_operation_ctx nowait = {.no_wait_gpu = true};
	struct ttm_operation_ctx wait = {0};
	struct ttm_buffer_object *bo;
	struct dma_fence *fence;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	EXPECT_EQ(ttm_bo_wait_ctx(bo, &nowait), 0);
	fence = ttm_test_fence_create();
	ASSERT_NOT_NULL(fence);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_add_fence(bo, fence, DMA_RESV_USAGE_READ), 0);
	EXPECT_EQ(ttm_bo_wait_ctx(bo, &nowait), -EBUSY);
	dma_fence_set_error(fence, -EIO);
	dma_fence_signal(fence);
	EXPECT_EQ(ttm_bo_wait_ctx(bo, &wait), -EIO);
	ttm_bo_unreserve(bo);
	dma_fence_put(fence);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_swapout_swapin_content)
{
	struct testlib_mock_device *tdev;
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint64_t before, after;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_fill(bo, 42), 0);
	ASSERT_EQ(ttm_test_bo_checksum(bo, &before), 0);
	EXPECT_EQ(ttm_bo_swapout(bo, &ctx), (long)(BO_SIZE / TTM_PAGE_SIZE));
	ASSERT_NOT_NULL(bo->ttm);
	EXPECT_TRUE(ttm_tt_is_swapped(bo->ttm));
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 1);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapouts), 1);
	EXPECT_EQ(atomic_load(&tdev->swap_notifies), 1);
	/* Already swapped: nothing populated left to write out. */
	EXPECT_EQ(ttm_bo_swapout(bo, &ctx), -EINVAL);
	/* Access swaps it back in with identical content. */
	EXPECT_EQ(ttm_test_bo_verify(bo, 42), 0);
	EXPECT_EQ(ttm_test_bo_checksum(bo, &after), 0);
	EXPECT_UEQ(before, after);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapins), 1);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_swapout_from_tt)
{
	struct testlib_mock_device *tdev;
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;

	tdev = dev_setup_bo(TTM_PL_TT, &bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_fill(bo, 7), 0);
	EXPECT_GT(ttm_bo_swapout(bo, &ctx), 0);
	/* Swapped pages cannot stay bound: the BO dropped to SYSTEM. */
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_UEQ(ttm_resource_manager_usage(&tdev->tt.manager), 0);
	EXPECT_EQ(ttm_test_bo_verify(bo, 7), 0);
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

KTEST(ttm_bo_swapout_refused)
{
	struct testlib_mock_device *tdev;
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo, *vram;
	struct dma_fence *fence;

	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ASSERT_EQ(ttm_test_bo_create_in(&tdev->bdev, BO_SIZE, TTM_PL_VRAM, &vram), 0);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	/* Two reservations without a ticket, on purpose: nothing here can wait on them. */
	ww_lockdep_nest_ok(&vram->resv->lock);
	ASSERT_EQ(ttm_bo_reserve(vram, false, false, NULL), 0);
	EXPECT_EQ(ttm_bo_swapout(vram, &ctx), -EINVAL);
	ASSERT_EQ(ttm_test_bo_fill(bo, 1), 0);
	ttm_bo_pin(bo);
	EXPECT_EQ(ttm_bo_swapout(bo, &ctx), -EBUSY);
	ttm_bo_unpin(bo);
	fence = ttm_test_fence_create();
	ASSERT_NOT_NULL(fence);
	ASSERT_EQ(ttm_test_bo_add_fence(bo, fence, DMA_RESV_USAGE_BOOKKEEP), 0);
	EXPECT_EQ(ttm_bo_swapout(bo, &ctx), -EBUSY);
	dma_fence_signal(fence);
	dma_fence_put(fence);
	EXPECT_GT(ttm_bo_swapout(bo, &ctx), 0);
	ttm_bo_unreserve(vram);
	ttm_bo_unreserve(bo);
	ttm_bo_put(vram);
	ttm_bo_put(bo);
	/* Destroying a swapped BO uncounts it. */
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 0);
	dev_teardown(tdev);
}

KTEST(ttm_bo_swapout_fault_keeps_content)
{
	struct testlib_mock_device *tdev;
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	tdev = dev_setup_bo(TTM_PL_SYSTEM, &bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_fill(bo, 9), 0);
	fault_set_nth(&ttm_fault_swapout_write, 1);
	EXPECT_LT(ttm_bo_swapout(bo, &ctx), 0);
	EXPECT_EQ(atomic_load(&tdev->bdev.stats.swapped), 0);
	EXPECT_TRUE(ttm_tt_is_populated(bo->ttm));
	EXPECT_EQ(ttm_test_bo_verify(bo, 9), 0);
	fault_reset_all();
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	dev_teardown(tdev);
}

/*
 * A driver of its own for the release_notify order: the shared mock only
 * counts the calls, this one records whether the BO still had its memory.
 */
struct rn_device {
	struct ttm_device bdev;
	atomic_int calls;
	atomic_int with_resource;
	atomic_int with_tt;
};

static void rn_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	(void)bo;
	placement->num_placement = 0;
}

static void rn_release_notify(struct ttm_buffer_object *bo)
{
	struct rn_device *rn = container_of(bo->bdev, struct rn_device, bdev);

	atomic_fetch_add(&rn->calls, 1);
	if (bo->resource)
		atomic_fetch_add(&rn->with_resource, 1);
	if (bo->ttm)
		atomic_fetch_add(&rn->with_tt, 1);
}

static const struct ttm_device_funcs rn_funcs = {
    .evict_flags = rn_evict_flags,
    .release_notify = rn_release_notify,
};

static void rn_check(bool busy)
{
	struct rn_device *rn = calloc(1, sizeof(*rn));
	struct ttm_buffer_object *bo;
	struct dma_fence *fence = NULL;

	ASSERT_NOT_NULL(rn);
	ASSERT_EQ(ttm_device_init(&rn->bdev, &rn_funcs, false), 0);
	ASSERT_EQ(ttm_test_bo_create_in(&rn->bdev, BO_SIZE, TTM_PL_SYSTEM, &bo), 0);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_bo_tt_create(bo, false), 0);
	if (busy) {
		fence = ttm_test_fence_create();
		ASSERT_NOT_NULL(fence);
		ASSERT_EQ(ttm_test_bo_add_fence(bo, fence, DMA_RESV_USAGE_BOOKKEEP), 0);
	}
	ttm_bo_unreserve(bo);
	ttm_bo_put(bo);
	if (busy) {
		/* Not yet: the BO still waits for the GPU on the delayed list. */
		EXPECT_EQ(atomic_load(&rn->calls), 0);
		dma_fence_signal(fence);
		ttm_device_flush_delayed(&rn->bdev, true);
		dma_fence_put(fence);
	}
	EXPECT_EQ(atomic_load(&rn->calls), 1);
	EXPECT_EQ(atomic_load(&rn->with_resource), 1);
	EXPECT_EQ(atomic_load(&rn->with_tt), 1);
	EXPECT_EQ(ttm_device_fini(&rn->bdev), 0);
	free(rn);
}

KTEST(ttm_bo_release_notify_before_memory_idle)
{
	rn_check(false);
}

KTEST(ttm_bo_release_notify_before_memory_delayed)
{
	rn_check(true);
}
