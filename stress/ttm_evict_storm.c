// SPDX-License-Identifier: MIT
/*
 * ttm_evict_storm - validate far beyond capacity and prove nothing is lost.
 *
 * A mock device (stress/lib/ttm_mock.h) with a small VRAM heap and TT
 * aperture; clients create BOs of random sizes whose total is several
 * times what VRAM and TT hold, then validate them into random placements
 * (VRAM, TT, SYSTEM, VRAM with TT fallback, top-down, restricted page
 * ranges) so almost every validate evicts someone. Pinned BOs (the 2008
 * NO_EVICT buffers) are mixed in and must never move.
 *
 * What is proven, whatever the interleaving:
 *   - every BO holds its pattern after every move (checked inside the move
 *     callback at the destination) and whenever its owner reads it back;
 *   - a validate that succeeds leaves the BO in one of the places asked
 *     for; one that fails returns -ENOMEM or -EBUSY and leaves the BO
 *     where it was, content intact;
 *   - pinned BOs keep their exact resource;
 *   - afterwards every manager's usage is zero, the device has no BO left,
 *     fences and global pages are back at their baseline.
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

#define VRAM_PAGES 256 /* 1 MiB */
#define TT_PAGES 512   /* 2 MiB */
#define MAX_BO_PAGES 24
#define MAX_CLIENTS 4
#define MAX_BOS 160

struct storm_client {
	struct ttm_mock_device *mdev;
	unsigned int id;
	unsigned int nbos;
	unsigned int npinned;
	uint64_t rng;
	uint64_t ops, validates_ok, validates_failed, verified;
	struct ttm_mock_bo *bo[MAX_BOS];
	/* For pinned BOs: where they were pinned. */
	uint32_t pinned_type[MAX_BOS];
	uint64_t pinned_start[MAX_BOS];
};

struct storm_baseline {
	long fences;
	uint64_t pages;
};

static void baseline_take(struct storm_baseline *b)
{
	struct ttm_global_stats gs;

	ttm_global_get_stats(&gs);
	b->fences = dma_fence_live_count();
	b->pages = gs.pages;
}

/* Teardown checks shared by every subtest. */
static void check_clean(struct ttm_mock_device *mdev, const struct storm_baseline *b)
{
	struct ttm_global_stats gs;

	igt_assert_eq_u64(ttm_resource_manager_usage(&mdev->base.vram.manager), 0);
	igt_assert_eq_u64(ttm_resource_manager_usage(&mdev->base.tt.manager), 0);
	igt_assert_eq_u64(atomic_load(&mdev->base.bdev.stats.bo_count), 0);
	igt_assert_eq_u64(atomic_load(&mdev->stats.move_mismatches), 0);
	igt_assert_eq(ttm_mock_device_fini(mdev), 0);
	ttm_global_get_stats(&gs);
	igt_assert_eq_s64(dma_fence_live_count(), b->fences);
	igt_assert_eq_u64(gs.pages, b->pages);
}

/* A random placement; at most 3 places. Returns the number of places. */
static unsigned pick_placement(uint64_t *rng, struct ttm_place *pl)
{
	switch (stress_rand_below(rng, 7)) {
	case 0:
		ttm_mock_place(&pl[0], TTM_PL_VRAM, 0);
		return 1;
	case 1:
		ttm_mock_place(&pl[0], TTM_PL_TT, 0);
		return 1;
	case 2:
		ttm_mock_place(&pl[0], TTM_PL_SYSTEM, 0);
		return 1;
	case 3:
		ttm_mock_place(&pl[0], TTM_PL_VRAM, 0);
		ttm_mock_place(&pl[1], TTM_PL_TT, TTM_PL_FLAG_FALLBACK);
		return 2;
	case 4:
		ttm_mock_place(&pl[0], TTM_PL_VRAM, TTM_PL_FLAG_TOPDOWN);
		ttm_mock_place(&pl[1], TTM_PL_TT, TTM_PL_FLAG_TOPDOWN);
		ttm_mock_place(&pl[2], TTM_PL_SYSTEM, TTM_PL_FLAG_FALLBACK);
		return 3;
	case 5: /* the low half of VRAM only (a "mappable" window) */
		ttm_mock_place(&pl[0], TTM_PL_VRAM, 0);
		pl[0].lpfn = VRAM_PAGES / 2;
		return 1;
	default:
		ttm_mock_place(&pl[0], TTM_PL_TT, 0);
		pl[0].fpfn = TT_PAGES / 4;
		ttm_mock_place(&pl[1], TTM_PL_SYSTEM, 0);
		return 2;
	}
}

static bool resource_in(const struct ttm_resource *res, const struct ttm_place *pl, unsigned n,
			uint64_t pages)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t lpfn = pl[i].lpfn ? pl[i].lpfn : UINT64_MAX;

		if (res->mem_type != pl[i].mem_type)
			continue;
		if (res->mem_type == TTM_PL_SYSTEM ||
		    (res->start >= pl[i].fpfn && res->start + pages <= lpfn))
			return true;
	}
	return false;
}

static void verify_bo(struct storm_client *c, struct ttm_mock_bo *mbo,
		      struct ttm_operation_ctx *ctx)
{
	uint64_t bad = 0;
	int ret = ttm_mock_bo_verify(mbo, ctx, &bad);

	igt_assert_f(ret == 0,
		     "client %u: BO seed %#" PRIx64 " (%" PRIu64 " bytes) %s at %" PRIu64
		     " (ret %d)\n",
		     c->id, mbo->seed, mbo->base.size,
		     ret == -EILSEQ ? "content lost" : "unreadable", bad, ret);
	c->verified += mbo->base.size;
}

static void client_create(struct storm_client *c, unsigned nbos, unsigned npinned)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_place sys;
	struct ttm_placement placement = {1, &sys};

	ttm_mock_place(&sys, TTM_PL_SYSTEM, 0);
	for (unsigned i = 0; i < nbos; i++) {
		uint64_t pages = 1 + stress_rand_below(&c->rng, MAX_BO_PAGES);
		uint64_t seed = ((uint64_t)c->id << 32) | i;
		int ret = ttm_mock_bo_create(c->mdev, pages * TTM_PAGE_SIZE, seed, &placement, &ctx,
					     &c->bo[i]);

		igt_assert_eq(ret, 0);
	}
	c->nbos = nbos;
	/* Pin the first @npinned in VRAM (or TT when VRAM is taken). */
	for (unsigned i = 0; i < npinned && i < nbos; i++) {
		struct ttm_buffer_object *bo = &c->bo[i]->base;
		struct ttm_place pl[2];
		struct ttm_placement p = {2, pl};

		ttm_mock_place(&pl[0], TTM_PL_VRAM, 0);
		ttm_mock_place(&pl[1], TTM_PL_TT, 0);
		igt_assert_eq(ttm_bo_reserve(bo, false, false, NULL), 0);
		igt_assert_eq(ttm_bo_validate(bo, &p, &ctx), 0);
		ttm_bo_pin(bo);
		c->pinned_type[i] = bo->resource->mem_type;
		c->pinned_start[i] = bo->resource->start;
		ttm_bo_unreserve(bo);
	}
	c->npinned = npinned < nbos ? npinned : nbos;
}

static void client_check_pinned(struct storm_client *c)
{
	for (unsigned i = 0; i < c->npinned; i++) {
		struct ttm_buffer_object *bo = &c->bo[i]->base;

		igt_assert_eq(ttm_bo_reserve(bo, false, false, NULL), 0);
		igt_assert_f(bo->resource && bo->resource->mem_type == c->pinned_type[i] &&
				 bo->resource->start == c->pinned_start[i],
			     "client %u: pinned BO %u moved\n", c->id, i);
		ttm_bo_unreserve(bo);
	}
}

static void client_destroy(struct storm_client *c)
{
	struct ttm_operation_ctx ctx = {0};

	for (unsigned i = 0; i < c->nbos; i++) {
		struct ttm_buffer_object *bo = &c->bo[i]->base;

		igt_assert_eq(ttm_bo_reserve(bo, false, false, NULL), 0);
		verify_bo(c, c->bo[i], &ctx);
		if (i < c->npinned)
			ttm_bo_unpin(bo);
		ttm_bo_unreserve(bo);
		ttm_bo_put(bo);
		c->bo[i] = NULL;
	}
	c->nbos = 0;
}

/* One random operation on one of the client's own BOs. */
static void client_step(struct storm_client *c)
{
	struct ttm_operation_ctx ctx = {0};
	unsigned i = c->npinned + (unsigned)stress_rand_below(&c->rng, c->nbos - c->npinned);
	struct ttm_mock_bo *mbo = c->bo[i];
	struct ttm_buffer_object *bo = &mbo->base;
	struct ttm_place pl[3];
	struct ttm_placement placement;
	uint32_t old_type;
	uint64_t old_start;
	int ret;

	placement.placement = pl;
	placement.num_placement = pick_placement(&c->rng, pl);
	igt_assert_eq(ttm_bo_reserve(bo, false, false, NULL), 0);
	igt_assert(bo->resource);
	old_type = bo->resource->mem_type;
	old_start = bo->resource->start;
	ret = ttm_bo_validate(bo, &placement, &ctx);
	if (ret == 0) {
		c->validates_ok++;
		igt_assert_f(resource_in(bo->resource, pl, placement.num_placement,
					 bo->size / TTM_PAGE_SIZE),
			     "validate put the BO in type %u page %" PRIu64 ", not where asked\n",
			     bo->resource->mem_type, bo->resource->start);
	} else {
		c->validates_failed++;
		igt_assert_f(ret == -ENOMEM || ret == -EBUSY, "validate returned %d\n", ret);
		igt_assert(bo->resource && bo->resource->mem_type == old_type &&
			   bo->resource->start == old_start);
	}
	/* Read it back every time; rewrite it with a new seed now and then. */
	verify_bo(c, mbo, &ctx);
	if (stress_rand_below(&c->rng, 8) == 0)
		igt_assert_eq(ttm_mock_bo_fill(mbo, prng_step(&c->rng), &ctx), 0);
	ttm_bo_unreserve(bo);
	c->ops++;
}

struct storm_run {
	struct storm_client *c;
	double seconds;
	uint64_t max_ops;
};

static void *client_thread(void *arg)
{
	struct storm_run *r = arg;
	struct stress_budget budget;

	stress_budget_init(&budget, r->seconds, r->max_ops);
	while (!stress_budget_done(&budget, r->c->ops))
		client_step(r->c);
	return NULL;
}

/*
 * Run @nclients clients with @nbos BOs each (@npinned of them pinned) for
 * the stress budget, then check and tear everything down.
 */
static void storm(unsigned nclients, unsigned nbos, unsigned npinned, uint64_t max_ops)
{
	struct ttm_mock_device mdev;
	struct storm_baseline base;
	struct storm_client *c = calloc(nclients, sizeof(*c));
	struct storm_run run[MAX_CLIENTS];
	pthread_t th[MAX_CLIENTS];
	uint64_t ops = 0, ok = 0, failed = 0, verified = 0;

	igt_assert(c);
	baseline_take(&base);
	igt_assert_eq(ttm_mock_device_init(&mdev, TT_PAGES, VRAM_PAGES), 0);
	mdev.verify_moves = true;
	for (unsigned i = 0; i < nclients; i++) {
		c[i].mdev = &mdev;
		c[i].id = i;
		c[i].rng = igt_seed() * 1000003u + i;
		client_create(&c[i], nbos, npinned);
		run[i].c = &c[i];
		run[i].seconds = igt_stress_budget_s();
		run[i].max_ops = max_ops;
	}
	if (nclients == 1) {
		client_thread(&run[0]);
	} else {
		for (unsigned i = 0; i < nclients; i++)
			igt_assert_eq(pthread_create(&th[i], NULL, client_thread, &run[i]), 0);
		for (unsigned i = 0; i < nclients; i++)
			pthread_join(th[i], NULL);
	}
	for (unsigned i = 0; i < nclients; i++) {
		client_check_pinned(&c[i]);
		client_destroy(&c[i]);
		ops += c[i].ops;
		ok += c[i].validates_ok;
		failed += c[i].validates_failed;
		verified += c[i].verified;
	}
	igt_info("%" PRIu64 " validates (%" PRIu64 " ok, %" PRIu64 " refused), %" PRIu64
		 " evictions, %" PRIu64 " moves of which %" PRIu64 " verified at the destination\n",
		 ops, ok, failed, (uint64_t)atomic_load(&mdev.base.bdev.stats.evictions),
		 (uint64_t)atomic_load(&mdev.stats.moves),
		 (uint64_t)atomic_load(&mdev.stats.moves_verified));
	igt_assert(atomic_load(&mdev.base.bdev.stats.evictions) > 0);
	verified += atomic_load(&mdev.stats.bytes_verified);
	check_clean(&mdev, &base);
	igt_report_checks(ops, verified, 0);
	free(c);
}

/* Pinned BOs fill VRAM: a validate into VRAM must fail cleanly, never evict them. */
static void subtest_pinned_full(void)
{
	struct ttm_mock_device mdev;
	struct storm_baseline base;
	struct storm_client c = {0};
	struct ttm_operation_ctx ctx = {0};
	struct ttm_place vram;
	struct ttm_placement p = {1, &vram};
	struct ttm_mock_bo *extra;
	unsigned n = 0;

	baseline_take(&base);
	igt_assert_eq(ttm_mock_device_init(&mdev, TT_PAGES, VRAM_PAGES), 0);
	mdev.verify_moves = true;
	c.mdev = &mdev;
	c.rng = igt_seed();
	ttm_mock_place(&vram, TTM_PL_VRAM, 0);
	/* 16-page BOs pinned in VRAM until it is full. */
	for (; n < MAX_BOS; n++) {
		struct ttm_mock_bo *mbo;
		int ret = ttm_mock_bo_create(&mdev, 16 * TTM_PAGE_SIZE, n, &p, &ctx, &mbo);

		if (ret) {
			igt_assert_eq(ret, -ENOMEM);
			break;
		}
		igt_assert_eq(ttm_bo_reserve(&mbo->base, false, false, NULL), 0);
		ttm_bo_pin(&mbo->base);
		c.pinned_type[n] = mbo->base.resource->mem_type;
		c.pinned_start[n] = mbo->base.resource->start;
		ttm_bo_unreserve(&mbo->base);
		c.bo[n] = mbo;
	}
	igt_assert_eq(n, VRAM_PAGES / 16);
	c.nbos = c.npinned = n;
	/* One more BO: it lives in SYSTEM, and cannot get into VRAM. */
	{
		struct ttm_place sys;
		struct ttm_placement ps = {1, &sys};

		ttm_mock_place(&sys, TTM_PL_SYSTEM, 0);
		igt_assert_eq(ttm_mock_bo_create(&mdev, 4 * TTM_PAGE_SIZE, 999, &ps, &ctx, &extra),
			      0);
	}
	igt_assert_eq(ttm_bo_reserve(&extra->base, false, false, NULL), 0);
	igt_assert_eq(ttm_bo_validate(&extra->base, &p, &ctx), -ENOMEM);
	igt_assert_eq(extra->base.resource->mem_type, TTM_PL_SYSTEM);
	igt_assert_eq(ttm_mock_bo_verify(extra, &ctx, NULL), 0);
	/* Evicting the whole type leaves the pinned ones and says so. */
	ttm_bo_unreserve(&extra->base);
	igt_assert_eq(ttm_bo_evict_mem_type(&mdev.base.bdev, TTM_PL_VRAM, &ctx), -EBUSY);
	client_check_pinned(&c);
	/* Unpin one: now there is room. */
	igt_assert_eq(ttm_bo_reserve(&c.bo[0]->base, false, false, NULL), 0);
	ttm_bo_unpin(&c.bo[0]->base);
	ttm_bo_unreserve(&c.bo[0]->base);
	igt_assert_eq(ttm_bo_reserve(&extra->base, false, false, NULL), 0);
	igt_assert_eq(ttm_bo_validate(&extra->base, &p, &ctx), 0);
	igt_assert_eq(extra->base.resource->mem_type, TTM_PL_VRAM);
	igt_assert_eq(ttm_mock_bo_verify(extra, &ctx, NULL), 0);
	ttm_bo_unreserve(&extra->base);
	ttm_bo_put(&extra->base);
	/* bo[0] is no longer pinned: skip it in the pinned checks. */
	igt_assert_eq(ttm_bo_reserve(&c.bo[0]->base, false, false, NULL), 0);
	verify_bo(&c, c.bo[0], &ctx);
	ttm_bo_unreserve(&c.bo[0]->base);
	ttm_bo_put(&c.bo[0]->base);
	for (unsigned i = 1; i < n; i++) {
		c.bo[i - 1] = c.bo[i];
		c.pinned_type[i - 1] = c.pinned_type[i];
		c.pinned_start[i - 1] = c.pinned_start[i];
	}
	c.nbos = c.npinned = n - 1;
	client_check_pinned(&c);
	client_destroy(&c);
	check_clean(&mdev, &base);
	igt_report_checks(n + 4, c.verified + atomic_load(&mdev.stats.bytes_verified), 0);
}

igt_main_description("Validates far beyond VRAM and TT capacity from several clients, with "
		     "pinned BOs mixed in; every BO's pattern is checked after every move.")
{
	igt_subtest("basic") storm(1, 128, 0, 40000);
	igt_subtest("pinned-mixed") storm(1, 128, 6, 40000);
	igt_subtest("multi-client") storm(igt_opt_count(IGT_CLIENTS, 4, MAX_CLIENTS), 40, 0, 15000);
	igt_subtest("multi-client-pinned")
	    storm(igt_opt_count(IGT_CLIENTS, 4, MAX_CLIENTS), 40, 2, 15000);
	igt_subtest("pinned-full") subtest_pinned_full();
}
