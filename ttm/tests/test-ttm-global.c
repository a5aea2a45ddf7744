// SPDX-License-Identifier: MIT
/* Tests of the process-wide page cap: CAS reservation, shrinker stages, DMA32 cap. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include <ttm/ttm_global.h>

#include <testlib/prng.h>

#include "ktest.h"

/* A fake device: holds pages it can "swap out" when asked. */
struct fake_shrinker {
	struct ttm_global_shrinker base;
	atomic_ulong held;
	atomic_ulong calls;
	bool dma32;
};

static unsigned long fake_scan(struct ttm_global_shrinker *s, unsigned long nr,
			       struct ttm_operation_ctx *ctx)
{
	struct fake_shrinker *f = container_of(s, struct fake_shrinker, base);
	unsigned long held = atomic_load(&f->held), take;

	atomic_fetch_add(&f->calls, 1);
	do {
		take = held < nr ? held : nr;
		if (!take)
			return 0;
	} while (!atomic_compare_exchange_weak(&f->held, &held, held - take));
	ttm_global_unreserve(take, f->dma32);
	return take;
}

static void fake_init(struct fake_shrinker *f, bool swaps)
{
	f->base.scan = fake_scan;
	f->base.swaps = swaps;
	atomic_init(&f->held, 0);
	atomic_init(&f->calls, 0);
	f->dma32 = false;
	ttm_global_register_shrinker(&f->base);
}

static void set_cap(uint64_t limit, uint64_t dma32, bool swap_disabled)
{
	struct ttm_global_config cfg = {
	    .limit_pages = limit, .dma32_limit_pages = dma32, .swap_disabled = swap_disabled};

	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ttm_global_reset_high_water();
}

static uint64_t cur_pages(void)
{
	struct ttm_global_stats s;

	ttm_global_get_stats(&s);
	return s.pages;
}

KTEST(ttm_global_config_defaults_half_of_ram)
{
	struct ttm_global_config cfg = {0};
	struct ttm_global_stats s;

	EXPECT_EQ(ttm_global_config(NULL), -EINVAL);
	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ttm_global_get_stats(&s);
	EXPECT_GT(s.limit_pages, 0);
	EXPECT_LE(s.dma32_limit_pages, s.limit_pages);
	EXPECT_LE(s.dma32_limit_pages, (4ull << 30) / 4096);
}

KTEST(ttm_global_reserve_within_cap)
{
	set_cap(100, 0, false);
	ASSERT_EQ(ttm_global_reserve(60, false, NULL), 0);
	EXPECT_EQ(cur_pages(), 60);
	ASSERT_EQ(ttm_global_reserve(40, false, NULL), 0);
	EXPECT_EQ(cur_pages(), 100);
	EXPECT_EQ(ttm_global_reserve(1, false, NULL), -ENOMEM);
	ttm_global_unreserve(100, false);
	EXPECT_EQ(cur_pages(), 0);
	EXPECT_EQ(ttm_global_reserve(101, false, NULL), -ENOMEM);
	EXPECT_EQ(ttm_global_reserve(0, false, NULL), 0);
	EXPECT_EQ(cur_pages(), 0);
}

KTEST(ttm_global_reserve_beyond_cap_calls_shrinkers_then_enomem)
{
	struct fake_shrinker pool, dev;

	set_cap(100, 0, false);
	fake_init(&pool, false);
	fake_init(&dev, true);
	/* 30 pages cached by the "pool", 70 held by the "device". */
	ASSERT_EQ(ttm_global_reserve(100, false, NULL), 0);
	atomic_store(&pool.held, 30);
	atomic_store(&dev.held, 70);

	/* The pool is trimmed first: the device is not asked while the pool suffices. */
	ASSERT_EQ(ttm_global_reserve(20, false, NULL), 0);
	EXPECT_GE(atomic_load(&pool.calls), 1);
	EXPECT_EQ(atomic_load(&dev.calls), 0);
	EXPECT_EQ(atomic_load(&pool.held), 10);

	/* Needs more than the pool has left: the device swaps out the rest. */
	ASSERT_EQ(ttm_global_reserve(50, false, NULL), 0);
	EXPECT_GE(atomic_load(&dev.calls), 1);
	EXPECT_EQ(atomic_load(&pool.held), 0);

	/* Everything left is ours (70 pages) or the device's (20): 31 cannot fit. */
	EXPECT_EQ(atomic_load(&dev.held), 20);
	EXPECT_EQ(cur_pages(), 90);
	atomic_store(&dev.held, 0); /* pretend it is all pinned now */
	EXPECT_EQ(ttm_global_reserve(31, false, NULL), -ENOMEM);

	ttm_global_unreserve(90, false);
	EXPECT_EQ(cur_pages(), 0);
	ttm_global_unregister_shrinker(&pool.base);
	ttm_global_unregister_shrinker(&dev.base);
}

KTEST(ttm_global_swap_disabled_fails_without_swapping)
{
	struct fake_shrinker dev;

	set_cap(64, 0, true);
	fake_init(&dev, true);
	ASSERT_EQ(ttm_global_reserve(64, false, NULL), 0);
	atomic_store(&dev.held, 64);
	EXPECT_EQ(ttm_global_reserve(1, false, NULL), -ENOMEM);
	EXPECT_EQ(atomic_load(&dev.calls), 0);
	EXPECT_EQ(atomic_load(&dev.held), 64);

	set_cap(64, 0, false);
	EXPECT_EQ(ttm_global_reserve(1, false, NULL), 0);
	EXPECT_GE(atomic_load(&dev.calls), 1);
	ttm_global_unreserve(64 - atomic_load(&dev.held), false);
	ttm_global_unreserve(atomic_load(&dev.held), false);
	ttm_global_unregister_shrinker(&dev.base);
	EXPECT_EQ(cur_pages(), 0);
}

KTEST(ttm_global_dma32_cap_is_separate)
{
	struct ttm_global_stats s;

	set_cap(100, 10, false);
	ASSERT_EQ(ttm_global_reserve(8, true, NULL), 0);
	EXPECT_EQ(ttm_global_reserve(3, true, NULL), -ENOMEM);
	/* The failed DMA32 attempt left no trace, and normal pages still fit. */
	ttm_global_get_stats(&s);
	EXPECT_EQ(s.dma32_pages, 8);
	EXPECT_EQ(s.pages, 8);
	ASSERT_EQ(ttm_global_reserve(90, false, NULL), 0);
	ASSERT_EQ(ttm_global_reserve(2, true, NULL), 0);
	/* Both caps full: a DMA32 page fails on the main cap and is given back. */
	ttm_global_unreserve(1, true);
	ASSERT_EQ(ttm_global_reserve(1, false, NULL), 0);
	EXPECT_EQ(ttm_global_reserve(1, true, NULL), -ENOMEM);
	ttm_global_get_stats(&s);
	EXPECT_EQ(s.dma32_pages, 9);
	EXPECT_EQ(s.pages, 100);
	EXPECT_LE(s.dma32_high_water, 10);
	ttm_global_unreserve(9, true);
	ttm_global_unreserve(91, false);
	EXPECT_EQ(cur_pages(), 0);
}

static pthread_barrier_t hammer_start;

struct hammer {
	struct fake_shrinker *dev;
	unsigned long iters;
	unsigned long ok;
	uint64_t seed;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	unsigned long i;
	struct prng rng = {h->seed};
	uint64_t x;

	/* Both threads start together so their reservations really overlap. */
	pthread_barrier_wait(&hammer_start);
	for (i = 0; i < h->iters; i++) {
		unsigned long n;

		x = prng_next(&rng);
		n = 1 + x % 24;
		if (ttm_global_reserve(n, false, NULL) == 0) {
			h->ok++;
			/* Half are freed at once, half handed to the "device" to swap later. */
			if (x & 256)
				ttm_global_unreserve(n, false);
			else
				atomic_fetch_add(&h->dev->held, n);
		}
	}
	return NULL;
}

KTEST(ttm_global_cap_never_exceeded_by_two_threads)
{
	struct fake_shrinker dev;
	struct hammer h[2];
	pthread_t t[2];
	struct ttm_global_stats s;
	int i;

	set_cap(128, 0, false);
	fake_init(&dev, true);
	ASSERT_EQ(pthread_barrier_init(&hammer_start, NULL, 2), 0);
	for (i = 0; i < 2; i++) {
		h[i] = (struct hammer){
		    .dev = &dev, .iters = 200000 * ktest_scale(), .seed = ktest_rand()};
		ASSERT_EQ(pthread_create(&t[i], NULL, hammer_thread, &h[i]), 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&hammer_start);
	ttm_global_get_stats(&s);
	EXPECT_LE(s.high_water, 128);
	/* The cap was reached and reclaimed from, not merely approached. */
	EXPECT_GT(s.shrink_calls, 0);
	EXPECT_GT(h[0].ok + h[1].ok, 0);
	EXPECT_EQ(s.pages, atomic_load(&dev.held));
	ttm_global_unreserve(atomic_load(&dev.held), false);
	ttm_global_unregister_shrinker(&dev.base);
	EXPECT_EQ(cur_pages(), 0);
}
