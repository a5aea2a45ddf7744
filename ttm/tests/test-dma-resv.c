// SPDX-License-Identifier: MIT
#include <ttm/dma_resv.h>
#include <ttm/ttm_faults.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "ttm_test_helpers.h"

static unsigned count_usage(struct dma_resv *r, enum dma_resv_usage u)
{
	struct dma_fence **f;
	unsigned n;

	if (dma_resv_get_fences(r, u, &n, &f))
		return 999;
	dma_resv_put_fences(f, n);
	return n;
}

KTEST(dma_resv_get_fences_filters_by_usage)
{
	struct dma_resv r;
	uint64_t ctx = dma_fence_context_alloc(4);
	struct dma_fence *f[4];
	long live = dma_fence_live_count();

	dma_resv_init(&r);
	ASSERT_EQ(dma_resv_lock(&r, NULL), 0);
	ASSERT_EQ(dma_resv_reserve_fences(&r, 4), 0);
	for (int i = 0; i < 4; i++) {
		f[i] = ttm_test_fence_create_on(ctx + i, 1);
		EXPECT_EQ(dma_resv_add_fence(&r, f[i], (enum dma_resv_usage)i), 0);
		dma_fence_put(f[i]);
	}
	dma_resv_unlock(&r);
	EXPECT_EQ(count_usage(&r, DMA_RESV_USAGE_KERNEL), 1);
	EXPECT_EQ(count_usage(&r, DMA_RESV_USAGE_WRITE), 2);
	EXPECT_EQ(count_usage(&r, DMA_RESV_USAGE_READ), 3);
	EXPECT_EQ(count_usage(&r, DMA_RESV_USAGE_BOOKKEEP), 4);
	EXPECT_EQ(dma_resv_count_pending(&r), 4);
	for (int i = 0; i < 4; i++)
		dma_fence_signal(f[i]);
	dma_resv_fini(&r);
	EXPECT_EQ(dma_fence_live_count(), live);
}

KTEST(dma_resv_add_fence_without_slot_enospc)
{
	struct dma_resv r;
	struct dma_fence *a = ttm_test_fence_create();
	struct dma_fence *b = ttm_test_fence_create();

	dma_resv_init(&r);
	dma_resv_lock(&r, NULL);
	EXPECT_EQ(dma_resv_add_fence(&r, a, DMA_RESV_USAGE_WRITE), -ENOSPC);
	ASSERT_EQ(dma_resv_reserve_fences(&r, 1), 0);
	EXPECT_EQ(dma_resv_add_fence(&r, a, DMA_RESV_USAGE_WRITE), 0);
	/* max grows to at least 4: fill it up and check the refusal. */
	{
		struct dma_fence *x[16];
		unsigned nx = 0;

		while (r.num_fences < r.max_fences && nx < 16) {
			x[nx] = ttm_test_fence_create();
			EXPECT_EQ(dma_resv_add_fence(&r, x[nx], DMA_RESV_USAGE_READ), 0);
			nx++;
		}
		EXPECT_EQ(r.num_fences, r.max_fences);
		EXPECT_EQ(dma_resv_add_fence(&r, b, DMA_RESV_USAGE_READ), -ENOSPC);
		/* Signalled entries may be replaced even without a free slot. */
		for (unsigned i = 0; i < nx; i++) {
			dma_fence_signal(x[i]);
			dma_fence_put(x[i]);
		}
	}
	/* A signalled entry is reused even without a free slot. */
	EXPECT_EQ(dma_resv_add_fence(&r, b, DMA_RESV_USAGE_READ), 0);
	EXPECT_EQ(dma_resv_add_fence(&r, NULL, DMA_RESV_USAGE_READ), -EINVAL);
	dma_resv_unlock(&r);
	dma_fence_signal(a);
	dma_fence_signal(b);
	dma_fence_put(a);
	dma_fence_put(b);
	dma_resv_fini(&r);
}

KTEST(dma_resv_add_fence_same_context_replaced_in_place)
{
	struct dma_resv r;
	uint64_t ctx = dma_fence_context_alloc(1);
	struct dma_fence *f1 = ttm_test_fence_create_on(ctx, 1);
	struct dma_fence *f2 = ttm_test_fence_create_on(ctx, 2);
	struct dma_fence *f3 = ttm_test_fence_create_on(ctx, 3);

	dma_resv_init(&r);
	dma_resv_lock(&r, NULL);
	ASSERT_EQ(dma_resv_reserve_fences(&r, 1), 0);
	EXPECT_EQ(dma_resv_add_fence(&r, f1, DMA_RESV_USAGE_READ), 0);
	/* Later fence, same or stronger usage: replaces, no new slot needed. */
	EXPECT_EQ(dma_resv_add_fence(&r, f2, DMA_RESV_USAGE_WRITE), 0);
	EXPECT_EQ(r.num_fences, 1);
	EXPECT_TRUE(r.fences[0] == f2);
	EXPECT_EQ(r.usages[0], DMA_RESV_USAGE_WRITE);
	/* Weaker usage does not replace a stronger one: needs a slot. */
	ASSERT_EQ(dma_resv_reserve_fences(&r, 1), 0);
	EXPECT_EQ(dma_resv_add_fence(&r, f3, DMA_RESV_USAGE_BOOKKEEP), 0);
	EXPECT_EQ(r.num_fences, 2);
	dma_resv_unlock(&r);
	dma_fence_signal(f1);
	dma_fence_signal(f2);
	dma_fence_signal(f3);
	dma_fence_put(f1);
	dma_fence_put(f2);
	dma_fence_put(f3);
	dma_resv_fini(&r);
}

KTEST(dma_resv_for_each_fence_locked_iteration)
{
	struct dma_resv r;
	struct dma_fence *fence;
	unsigned i, seen = 0;

	dma_resv_init(&r);
	dma_resv_lock(&r, NULL);
	dma_resv_reserve_fences(&r, 3);
	struct dma_fence *fs[3];

	for (int k = 0; k < 3; k++) {
		fs[k] = ttm_test_fence_create();
		EXPECT_EQ(dma_resv_add_fence(
			      &r, fs[k], k == 0 ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_BOOKKEEP),
			  0);
	}
	EXPECT_EQ(r.num_fences, 3);
	dma_resv_for_each_fence (&r, DMA_RESV_USAGE_READ, i, fence) {
		EXPECT_TRUE(fence != NULL);
		seen++;
	}
	EXPECT_EQ(seen, 1);
	for (int k = 0; k < 3; k++) {
		dma_fence_signal(fs[k]);
		dma_fence_put(fs[k]);
	}
	dma_resv_prune(&r);
	EXPECT_EQ(r.num_fences, 0);
	dma_resv_unlock(&r);
	dma_resv_fini(&r);
}

KTEST(dma_resv_reserve_fences_fault_keeps_state)
{
	struct dma_resv r;

	dma_resv_init(&r);
	dma_resv_lock(&r, NULL);
	fault_set_nth(&ttm_fault_resv_reserve, 1);
	EXPECT_EQ(dma_resv_reserve_fences(&r, 2), -ENOMEM);
	EXPECT_EQ(r.max_fences, 0);
	EXPECT_EQ(dma_resv_reserve_fences(&r, 2), 0);
	EXPECT_GE(r.max_fences, 2);
	dma_resv_unlock(&r);
	dma_resv_fini(&r);
}

static void *signal_soon(void *p)
{
	usleep(2000);
	dma_fence_signal(p);
	return NULL;
}

KTEST(dma_resv_wait_timeout_and_test_signaled)
{
	struct dma_resv r;
	struct dma_fence *w = ttm_test_fence_create();
	struct dma_fence *rd = ttm_test_fence_create();
	pthread_t t;

	dma_resv_init(&r);
	dma_resv_lock(&r, NULL);
	dma_resv_reserve_fences(&r, 2);
	dma_resv_add_fence(&r, w, DMA_RESV_USAGE_WRITE);
	dma_resv_add_fence(&r, rd, DMA_RESV_USAGE_READ);
	dma_resv_unlock(&r);
	EXPECT_FALSE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_WRITE));
	EXPECT_EQ(dma_resv_wait_timeout(&r, DMA_RESV_USAGE_WRITE, false, 0), 0);
	EXPECT_EQ(dma_resv_wait_timeout(&r, DMA_RESV_USAGE_WRITE, false, 1000000), 0);
	ASSERT_EQ(pthread_create(&t, NULL, signal_soon, w), 0);
	EXPECT_GT(dma_resv_wait_timeout(&r, DMA_RESV_USAGE_WRITE, false, 5000000000ll), 0);
	pthread_join(t, NULL);
	EXPECT_TRUE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_WRITE));
	/* The read fence is still busy: a writer must wait for readers. */
	EXPECT_FALSE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_READ));
	dma_fence_signal(rd);
	EXPECT_TRUE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_BOOKKEEP));
	EXPECT_EQ(dma_resv_count_pending(&r), 0);
	dma_fence_put(w);
	dma_fence_put(rd);
	dma_resv_fini(&r);
}

KTEST(dma_resv_lock_ticket_ealready)
{
	struct dma_resv r;
	struct ww_acquire_ctx ctx;

	dma_resv_init(&r);
	ww_acquire_init(&ctx, &reservation_ww_class);
	EXPECT_EQ(dma_resv_lock(&r, &ctx), 0);
	EXPECT_EQ(dma_resv_lock(&r, &ctx), -EALREADY);
	EXPECT_FALSE(dma_resv_trylock(&r));
	dma_resv_unlock(&r);
	EXPECT_TRUE(dma_resv_trylock(&r));
	dma_resv_unlock(&r);
	ww_acquire_fini(&ctx);
	dma_resv_fini(&r);
}

/*
 * Fences whose class answers ops->signaled from a flag, counting the polls:
 * the reservation must poll in order and stop at the first pending fence of
 * the usage asked for, as the kernel's unlocked iterator does.
 */
struct polled_fence {
	struct dma_fence base;
	atomic_bool done;
	atomic_int polls;
};

static bool polled_signaled(struct dma_fence *f)
{
	struct polled_fence *p = container_of(f, struct polled_fence, base);

	atomic_fetch_add(&p->polls, 1);
	return atomic_load(&p->done);
}

static const struct dma_fence_ops polled_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
    .signaled = polled_signaled,
};

KTEST(dma_resv_test_signaled_stops_at_first_pending)
{
	struct polled_fence *p[4];
	struct dma_resv r;

	dma_resv_init(&r);
	dma_resv_lock(&r, NULL);
	ASSERT_EQ(dma_resv_reserve_fences(&r, 4), 0);
	for (int i = 0; i < 4; i++) {
		p[i] = dma_fence_alloc(sizeof(*p[i]));
		ASSERT_NOT_NULL(p[i]);
		dma_fence_init(&p[i]->base, &polled_ops, dma_fence_context_alloc(1), 1);
		atomic_init(&p[i]->done, false);
		atomic_init(&p[i]->polls, 0);
		dma_resv_add_fence(&r, &p[i]->base,
				   i == 0 ? DMA_RESV_USAGE_BOOKKEEP : DMA_RESV_USAGE_WRITE);
	}
	dma_resv_unlock(&r);

	/* p[0] is not of the usage asked for; p[1] is pending: p[2] and p[3] are not asked. */
	EXPECT_FALSE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_WRITE));
	EXPECT_EQ(atomic_load(&p[0]->polls), 0);
	EXPECT_EQ(atomic_load(&p[1]->polls), 1);
	EXPECT_EQ(atomic_load(&p[2]->polls), 0);
	EXPECT_EQ(atomic_load(&p[3]->polls), 0);

	/* The class says p[1] is done: the poll signals it and moves on to p[2]. */
	atomic_store(&p[1]->done, true);
	EXPECT_FALSE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_WRITE));
	EXPECT_TRUE(dma_fence_test_signaled_flag(&p[1]->base));
	EXPECT_EQ(atomic_load(&p[2]->polls), 1);
	EXPECT_EQ(atomic_load(&p[3]->polls), 0);

	atomic_store(&p[2]->done, true);
	atomic_store(&p[3]->done, true);
	EXPECT_TRUE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_WRITE));
	EXPECT_FALSE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_BOOKKEEP));
	atomic_store(&p[0]->done, true);
	EXPECT_TRUE(dma_resv_test_signaled(&r, DMA_RESV_USAGE_BOOKKEEP));
	for (int i = 0; i < 4; i++)
		dma_fence_put(&p[i]->base);
	dma_resv_fini(&r);
}
