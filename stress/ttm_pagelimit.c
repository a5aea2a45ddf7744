// SPDX-License-Identifier: MIT
/*
 * ttm_pagelimit - drive the global page cap with swap-out and swap-in.
 *
 * The cap (ttm_global) is set far below what the BOs need; creating and
 * touching them forces the device's swap shrinker to move LRU BOs to shmem
 * and access to bring them back. Proven in every subtest: the accounted
 * page count never exceeded the cap (the high-water mark), every BO reads
 * back its exact pattern after any number of swap round trips, and the
 * count is back at its baseline once the devices are gone. Without swap the
 * cap must end creation with -ENOMEM, not overshoot.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <ttm/dma_fence.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_global.h>

#include "igt.h"
#include "stress_util.h"
#include "ttm_mock.h"

#define BO_PAGES 16
#define MAX_BOS 64

static const struct ttm_place place_sys = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place place_tt = {.mem_type = TTM_PL_TT};
static const struct ttm_placement placement_sys = {1, &place_sys};
static const struct ttm_placement placement_tt = {1, &place_tt};

static uint64_t set_cap(uint64_t pages, bool swap)
{
	struct ttm_global_config cfg = {.limit_pages = pages, .swap_disabled = !swap};
	struct ttm_global_stats gs;

	igt_assert_eq(ttm_global_config(&cfg), 0);
	ttm_global_reset_high_water();
	ttm_global_get_stats(&gs);
	igt_assert_eq_u64(gs.limit_pages, pages);
	return gs.pages;
}

static void check_cap_held(uint64_t cap)
{
	struct ttm_global_stats gs;

	ttm_global_get_stats(&gs);
	igt_assert_f(gs.high_water <= cap,
		     "accounted pages reached %" PRIu64 " above cap %" PRIu64 "\n", gs.high_water,
		     cap);
}

static void check_pages_back(uint64_t baseline)
{
	struct ttm_global_stats gs;

	ttm_global_get_stats(&gs);
	igt_assert_eq_u64(gs.pages, baseline);
}

/* Read back, tolerating a refused swap-in (-ENOMEM) but never wrong content. */
static int verify_once(struct ttm_mock_bo *mbo, uint64_t *bytes)
{
	struct ttm_operation_ctx ctx = {0};
	uint64_t bad = 0;
	int ret;

	igt_assert_eq(ttm_bo_reserve(&mbo->base, false, false, NULL), 0);
	ret = ttm_mock_bo_verify(mbo, &ctx, &bad);
	ttm_bo_unreserve(&mbo->base);
	igt_assert_f(ret == 0 || ret == -ENOMEM, "BO seed %" PRIu64 ": %s at %" PRIu64 " (%d)\n",
		     mbo->seed, ret == -EILSEQ ? "content lost" : "unreadable", bad, ret);
	if (!ret)
		*bytes += mbo->base.size;
	return ret;
}

/* 4x the cap in BOs on one device, every BO read back twice in random order. */
static void subtest_swap_cycle(void)
{
	const uint64_t cap = 256;
	struct ttm_mock_device mdev;
	struct ttm_mock_bo *bo[MAX_BOS];
	struct ttm_operation_ctx ctx = {0};
	uint64_t base, rng = igt_seed(), bytes = 0, ops = 0;
	long fences = dma_fence_live_count();

	base = set_cap(cap, true);
	igt_assert_eq(ttm_mock_device_init(&mdev, 512, 0), 0);
	mdev.verify_moves = true;
	for (unsigned i = 0; i < MAX_BOS; i++) {
		const struct ttm_placement *p = i % 4 ? &placement_sys : &placement_tt;

		igt_assert_eq(
		    ttm_mock_bo_create(&mdev, BO_PAGES * TTM_PAGE_SIZE, i, p, &ctx, &bo[i]), 0);
		ops++;
	}
	for (unsigned round = 0; round < 2 * MAX_BOS; round++) {
		igt_assert_eq(verify_once(bo[stress_rand_below(&rng, MAX_BOS)], &bytes), 0);
		ops++;
	}
	for (unsigned i = 0; i < MAX_BOS; i++) {
		igt_assert_eq(verify_once(bo[i], &bytes), 0);
		ttm_bo_put(&bo[i]->base);
	}
	igt_info("%" PRIu64 " swap-outs, %" PRIu64 " swap-ins under a %" PRIu64 "-page cap\n",
		 (uint64_t)atomic_load(&mdev.base.bdev.stats.swapouts),
		 (uint64_t)atomic_load(&mdev.base.bdev.stats.swapins), cap);
	igt_assert(atomic_load(&mdev.base.bdev.stats.swapouts) > 0);
	igt_assert(atomic_load(&mdev.base.bdev.stats.swapins) > 0);
	check_cap_held(cap);
	igt_assert_eq_u64(atomic_load(&mdev.stats.move_mismatches), 0);
	igt_assert_eq(ttm_mock_device_fini(&mdev), 0);
	check_pages_back(base);
	igt_assert_eq_s64(dma_fence_live_count(), fences);
	igt_report_checks(ops, bytes + atomic_load(&mdev.stats.bytes_verified), 0);
}

/* Swap disabled: creation stops with -ENOMEM at the cap, survivors intact. */
static void subtest_no_swap_enomem(void)
{
	const uint64_t cap = 256;
	struct ttm_mock_device mdev;
	struct ttm_mock_bo *bo[MAX_BOS];
	struct ttm_operation_ctx ctx = {0};
	uint64_t base, bytes = 0;
	unsigned n = 0;
	int ret = 0;

	base = set_cap(cap, false);
	igt_assert_eq(ttm_mock_device_init(&mdev, 512, 0), 0);
	for (; n < MAX_BOS; n++) {
		ret = ttm_mock_bo_create(&mdev, BO_PAGES * TTM_PAGE_SIZE, n, &placement_sys, &ctx,
					 &bo[n]);
		if (ret)
			break;
	}
	igt_assert_eq(ret, -ENOMEM);
	igt_assert_lte((int)n, (int)(cap / BO_PAGES));
	igt_assert_lte((int)(cap / BO_PAGES) - 2, (int)n);
	igt_assert_eq_u64(atomic_load(&mdev.base.bdev.stats.swapouts), 0);
	check_cap_held(cap);
	for (unsigned i = 0; i < n; i++) {
		igt_assert_eq(verify_once(bo[i], &bytes), 0);
		ttm_bo_put(&bo[i]->base);
	}
	igt_assert_eq(ttm_mock_device_fini(&mdev), 0);
	check_pages_back(base);
	igt_info("%u BOs of %d pages fit under a %" PRIu64 "-page cap without swap\n", n, BO_PAGES,
		 cap);
	igt_report_checks(n + 1, bytes, 0);
}

struct pl_thread {
	struct ttm_mock_device *mdev;
	unsigned id;
	unsigned nbos;
	struct ttm_mock_bo *bo[16];
	uint64_t rng, ops, bytes, refused;
};

static void *pl_thread_fn(void *arg)
{
	struct pl_thread *t = arg;
	struct ttm_operation_ctx ctx = {0};
	struct stress_budget budget;

	for (unsigned i = 0; i < 12; i++) {
		int ret = ttm_mock_bo_create(t->mdev, BO_PAGES * TTM_PAGE_SIZE,
					     ((uint64_t)t->id << 32) | i, &placement_sys, &ctx,
					     &t->bo[t->nbos]);

		igt_assert_f(ret == 0 || ret == -ENOMEM, "create returned %d\n", ret);
		if (ret)
			t->refused++;
		else
			t->nbos++;
		t->ops++;
	}
	igt_assert(t->nbos > 0);
	stress_budget_init(&budget, igt_stress_budget_s(), 3000);
	while (!stress_budget_done(&budget, t->ops)) {
		struct ttm_mock_bo *mbo = t->bo[stress_rand_below(&t->rng, t->nbos)];

		if (stress_rand_below(&t->rng, 4) == 0) {
			int ret;

			igt_assert_eq(ttm_bo_reserve(&mbo->base, false, false, NULL), 0);
			ret = ttm_mock_bo_fill(mbo, prng_step(&t->rng), &ctx);
			if (ret) {
				/* A refused write leaves it unfilled: put the old pattern back. */
				igt_assert_eq(ret, -ENOMEM);
				t->refused++;
				while (ttm_mock_bo_fill(mbo, mbo->seed, &ctx) == -ENOMEM)
					t->refused++;
			}
			ttm_bo_unreserve(&mbo->base);
		} else if (verify_once(mbo, &t->bytes)) {
			t->refused++;
		}
		t->ops++;
	}
	return NULL;
}

/* Two devices sharing the cap, two threads on each. */
static void subtest_multi_device(void)
{
	const uint64_t cap = 384;
	struct ttm_mock_device mdev[2];
	struct pl_thread t[4] = {0};
	pthread_t th[4];
	uint64_t base, ops = 0, bytes = 0, refused = 0, swapouts = 0, swapins = 0;

	base = set_cap(cap, true);
	for (int d = 0; d < 2; d++)
		igt_assert_eq(ttm_mock_device_init(&mdev[d], 256, 0), 0);
	for (unsigned i = 0; i < 4; i++) {
		t[i].mdev = &mdev[i % 2];
		t[i].id = i;
		t[i].rng = igt_seed() * 7919 + i;
		igt_assert_eq(pthread_create(&th[i], NULL, pl_thread_fn, &t[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	check_cap_held(cap);
	for (unsigned i = 0; i < 4; i++) {
		for (unsigned b = 0; b < t[i].nbos; b++) {
			igt_assert_eq(verify_once(t[i].bo[b], &t[i].bytes), 0);
			ttm_bo_put(&t[i].bo[b]->base);
		}
		ops += t[i].ops;
		bytes += t[i].bytes;
		refused += t[i].refused;
	}
	for (int d = 0; d < 2; d++) {
		swapouts += atomic_load(&mdev[d].base.bdev.stats.swapouts);
		swapins += atomic_load(&mdev[d].base.bdev.stats.swapins);
		igt_assert_eq(ttm_mock_device_fini(&mdev[d]), 0);
	}
	check_pages_back(base);
	igt_info("%" PRIu64 " operations, %" PRIu64 " refused with -ENOMEM, %" PRIu64
		 " swap-outs, %" PRIu64 " swap-ins\n",
		 ops, refused, swapouts, swapins);
	igt_assert(swapouts > 0);
	igt_report_checks(ops, bytes, 0);
}

igt_main_description("Exhausts the global page cap from several threads and devices with "
		     "swap-out and swap-in; the cap is never exceeded and content survives.")
{
	igt_subtest("swap-cycle") subtest_swap_cycle();
	igt_subtest("no-swap-enomem") subtest_no_swap_enomem();
	igt_subtest("multi-device") subtest_multi_device();
}
