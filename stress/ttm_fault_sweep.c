// SPDX-License-Identifier: MIT
/*
 * ttm_fault_sweep - fail every core fault point at every hit of a fixed
 * workload and prove the memory manager recovers: clean negative errno,
 * nothing lost, nothing leaked.
 *
 * For each registered fault point P and N = 1, 2, 3, ... the workload runs
 * with P armed to fail its Nth hit (the point's one-shot countdown, so the
 * device's worker thread counts too), until a run completes without hitting
 * it. The workload: create BOs in SYSTEM, TT and VRAM, fill them with their
 * pattern, validate them round all three types with VRAM and TT too small
 * for all of them (evictions), swap everything out, read everything back
 * (swap-in, VRAM reads), move again, destroy. Every call either succeeds or
 * returns one of -ENOMEM, -EIO, -ENOSPC, -EBUSY.
 *
 * After each run: every BO whose fill succeeded still reads back its exact
 * pattern (read after the fault fired, so a failed swap-in or move that
 * dropped pages shows up), the managers' usage is zero once all BOs are
 * put, the device has no BO or ghost left and tears down, and the live
 * fence count and the global page count are back at their baseline. Under
 * ASan, LeakSanitizer checks the process at exit on top of that.
 *
 * Dynamic subtests: one per point ("each-point"), and "probabilistic" runs
 * every point at a small probability from the printed seed (--seed N, or
 * IGT_SEED, reproduces a run exactly).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <fault_inject.h>
#include <ttm/dma_fence.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>

#include "igt.h"
#include "stress_util.h"
#include "ttm_mock.h"

#define SWEEP_VRAM_PAGES 32
#define SWEEP_TT_PAGES 48
#define SWEEP_BOS 12
#define SWEEP_MAX_NTH 400

struct sweep_result {
	unsigned long fired; /* faults injected by the last workload run */
	uint64_t ops;
	uint64_t failed_ops;
	uint64_t bytes_verified;
};

static bool errno_ok(int ret)
{
	return ret == 0 || ret == -ENOMEM || ret == -EIO || ret == -ENOSPC || ret == -EBUSY;
}

#define sweep_check_ret(res, ret, what)                                                            \
	do {                                                                                       \
		int r_ = (ret);                                                                    \
		(res)->ops++;                                                                      \
		if (r_)                                                                            \
			(res)->failed_ops++;                                                       \
		igt_assert_f(errno_ok(r_), "%s returned %d\n", (what), r_);                        \
	} while (0)

static const struct ttm_place place_sys = { .mem_type = TTM_PL_SYSTEM };
static const struct ttm_place place_tt = { .mem_type = TTM_PL_TT };
static const struct ttm_place place_vram = { .mem_type = TTM_PL_VRAM };

static const struct ttm_placement *placement_for(unsigned i)
{
	static const struct ttm_placement p[3] = {
		{ 1, &place_sys },
		{ 1, &place_tt },
		{ 1, &place_vram },
	};

	return &p[i % 3];
}

static const char *sweep_fence_name(struct dma_fence *fence)
{
	(void)fence;
	return "sweep";
}

static const struct dma_fence_ops sweep_fence_ops = {
	.get_driver_name = sweep_fence_name,
	.get_timeline_name = sweep_fence_name,
};

/*
 * Make @mbo busy with a fresh WRITE fence (fault points fence_alloc and
 * resv_reserve live on this path). Returns the fence for the caller to
 * signal and put, or NULL when an injected failure refused it.
 */
static struct dma_fence *sweep_make_busy(struct ttm_mock_bo *mbo, uint64_t context,
					 uint64_t seqno, struct sweep_result *res)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));
	int ret;

	if (!f) {
		sweep_check_ret(res, -ENOMEM, "dma_fence_alloc");
		return NULL;
	}
	dma_fence_init(f, &sweep_fence_ops, context, seqno);
	igt_assert_eq(ttm_bo_reserve(&mbo->base, false, false, NULL), 0);
	ret = dma_resv_reserve_fences(mbo->base.resv, 1);
	sweep_check_ret(res, ret, "dma_resv_reserve_fences");
	if (!ret)
		igt_assert_eq(dma_resv_add_fence(mbo->base.resv, f, DMA_RESV_USAGE_WRITE), 0);
	ttm_bo_unreserve(&mbo->base);
	return f;
}

/* Read @mbo back; a read refused by an injected fault is retried once. */
static void sweep_verify(struct ttm_mock_bo *mbo, struct sweep_result *res, bool final)
{
	struct ttm_operation_ctx ctx = { 0 };
	uint64_t bad = 0;
	int ret;

	if (!mbo->filled)
		return;
	ret = ttm_mock_bo_verify(mbo, &ctx, &bad);
	if (ret && ret != -EILSEQ && !final) {
		sweep_check_ret(res, ret, "ttm_bo_access (read)");
		return;
	}
	igt_assert_f(ret == 0, "BO seed %" PRIu64 ": %s at byte %" PRIu64 " (ret %d)\n", mbo->seed,
		     ret == -EILSEQ ? "content lost" : "unreadable", bad, ret);
	res->bytes_verified += mbo->base.size;
}

/*
 * The fixed workload. Faults may fire anywhere in it; only the final
 * verification runs with every point disarmed.
 */
static void sweep_workload(struct sweep_result *res)
{
	struct ttm_mock_device mdev;
	struct ttm_mock_bo *bo[SWEEP_BOS] = { NULL };
	struct dma_fence *busy[SWEEP_BOS] = { NULL };
	uint64_t context;
	struct ttm_operation_ctx ctx = { 0 };
	struct ttm_global_stats gs;
	long fences = dma_fence_live_count();
	uint64_t pages;
	int ret;

	res->fired = 0;
	ttm_global_get_stats(&gs);
	pages = gs.pages;
	ret = ttm_mock_device_init(&mdev, SWEEP_TT_PAGES, SWEEP_VRAM_PAGES);
	sweep_check_ret(res, ret, "device init");
	if (ret)
		goto out_counters;

	/* Create: 12 BOs of 4..12 pages, 96 pages in all, VRAM holds 32. */
	for (unsigned i = 0; i < SWEEP_BOS; i++) {
		uint64_t size = (4 + (i * 5) % 9) * TTM_PAGE_SIZE;

		ctx = (struct ttm_operation_ctx){ 0 };
		ret = ttm_mock_bo_create(&mdev, size, 1000 + i, placement_for(i), &ctx, &bo[i]);
		sweep_check_ret(res, ret, "ttm_mock_bo_create");
		if (ret)
			bo[i] = NULL;
	}

	/* Every BO busy for the first validate pass (no waiting allowed there). */
	context = dma_fence_context_alloc(1);
	for (unsigned i = 0; i < SWEEP_BOS; i++)
		busy[i] = bo[i] ? sweep_make_busy(bo[i], context, i + 1, res) : NULL;

	/* Validate round the types twice: VRAM and TT overflow, evictions. */
	for (unsigned pass = 1; pass <= 2; pass++) {
		for (unsigned i = 0; i < SWEEP_BOS; i++) {
			if (!bo[i])
				continue;
			ctx = (struct ttm_operation_ctx){ .no_wait_gpu = pass == 1 };
			igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
			ret = ttm_bo_validate(&bo[i]->base, placement_for(i + pass), &ctx);
			sweep_check_ret(res, ret, "ttm_bo_validate");
			ttm_bo_unreserve(&bo[i]->base);
		}
		for (unsigned i = 0; i < SWEEP_BOS; i++) {
			if (!busy[i])
				continue;
			dma_fence_signal(busy[i]);
			dma_fence_put(busy[i]);
			busy[i] = NULL;
		}
		for (unsigned i = 0; i < SWEEP_BOS; i++) {
			if (!bo[i])
				continue;
			igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
			sweep_verify(bo[i], res, false);
			ttm_bo_unreserve(&bo[i]->base);
		}
	}

	/* Evict VRAM entirely, then swap out what is in SYSTEM. */
	ctx = (struct ttm_operation_ctx){ 0 };
	ret = ttm_bo_evict_mem_type(&mdev.bdev, TTM_PL_VRAM, &ctx);
	sweep_check_ret(res, ret, "ttm_bo_evict_mem_type");
	ctx = (struct ttm_operation_ctx){ 0 };
	ttm_device_swapout(&mdev.bdev, &ctx, 1u << 20);
	res->ops++;

	/* Rewrite half of them (swap-in for write), read all (swap-in). */
	for (unsigned i = 0; i < SWEEP_BOS; i++) {
		if (!bo[i])
			continue;
		ctx = (struct ttm_operation_ctx){ 0 };
		igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
		if (i % 2) {
			ret = ttm_mock_bo_fill(bo[i], 2000 + i, &ctx);
			sweep_check_ret(res, ret, "ttm_mock_bo_fill");
		}
		sweep_verify(bo[i], res, false);
		ttm_bo_unreserve(&bo[i]->base);
	}

	/* Everything disarmed from here: what survived must be intact. */
	res->fired = fault_total_fired();
	fault_reset_all();
	for (unsigned i = 0; i < SWEEP_BOS; i++) {
		if (!bo[i])
			continue;
		igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
		sweep_verify(bo[i], res, true);
		ttm_bo_unreserve(&bo[i]->base);
		ttm_bo_put(&bo[i]->base);
		bo[i] = NULL;
	}
	ttm_device_flush_delayed(&mdev.bdev, true);
	igt_assert_eq_s64(dma_fence_live_count(), fences);
	igt_assert_eq_u64(ttm_resource_manager_usage(&mdev.vram.manager), 0);
	igt_assert_eq_u64(ttm_resource_manager_usage(&mdev.tt.manager), 0);
	igt_assert_eq_u64(atomic_load(&mdev.bdev.stats.bo_count), 0);
	igt_assert_eq_u64(atomic_load(&mdev.bdev.stats.ghost_count), 0);
	igt_assert_eq_u64(atomic_load(&mdev.stats.move_mismatches), 0);
	igt_assert_eq(ttm_mock_device_fini(&mdev), 0);
out_counters:
	if (ret)
		res->fired = fault_total_fired();
	fault_reset_all();
	ttm_global_get_stats(&gs);
	igt_assert_eq_s64(dma_fence_live_count(), fences);
	igt_assert_eq_u64(gs.pages, pages);
}

/*
 * struct sweep_totals - what every point's dynamic subtest adds up. Each
 * dynamic subtest runs in its own forked process, so the totals live in a
 * shared anonymous mapping made by the subtest before forking them.
 */
struct sweep_totals {
	_Atomic uint64_t points, hits, ops, bytes, injected;
};

/* Sweep one point: N = 1.. until a run no longer reaches the Nth hit. */
static void sweep_point(struct fault_attr *attr, struct sweep_totals *tot)
{
	struct sweep_result res = { 0 };
	unsigned long n, injected = 0, hits_clean;


	for (n = 1; n <= SWEEP_MAX_NTH; n++) {
		unsigned long fired;

		fault_reset_all();
		fault_set_nth(attr, n);
		sweep_workload(&res);
		fired = res.fired;
		if (!fired)
			break;
		injected += fired;
	}
	hits_clean = n - 1;
	if (hits_clean == 0)
		igt_skip("%s: not reached by this workload (uAPI / CPU-mapping paths)\n",
			 attr->name);
	igt_assert_f(n <= SWEEP_MAX_NTH, "%s: still firing at hit %d\n", attr->name,
		     SWEEP_MAX_NTH);
	atomic_fetch_add(&tot->points, 1);
	atomic_fetch_add(&tot->hits, hits_clean);
	atomic_fetch_add(&tot->ops, res.ops);
	atomic_fetch_add(&tot->bytes, res.bytes_verified);
	atomic_fetch_add(&tot->injected, injected);
	igt_info("%s: swept hits 1..%lu, %lu faults injected, %" PRIu64 " calls refused with a clean errno\n",
		 attr->name, hits_clean, injected, res.failed_ops);
	igt_report_checks(res.ops, res.bytes_verified, injected);
}

struct point_list {
	struct fault_attr *attr[64];
	unsigned n;
};

static void collect_point(struct fault_attr *attr, void *data)
{
	struct point_list *l = data;

	if (l->n < 64)
		l->attr[l->n++] = attr;
}

/* Probabilistic: every point at 3 %, 20 workload runs, reproducible from the seed. */
static void subtest_probabilistic(void)
{
	struct sweep_result res = { 0 };
	unsigned long injected = 0;
	char spec[96], err[128];
	uint64_t seed = igt_seed();

	igt_info("fault seed %" PRIu64 " (rerun with --seed %" PRIu64 ")\n", seed, seed);
	for (unsigned run = 0; run < 20; run++) {
		snprintf(spec, sizeof(spec), "all:probability=3,times=-1;seed=%" PRIu64,
			 seed + run);
		igt_assert_f(fault_configure(spec, err, sizeof(err)) == 0, "%s\n", err);
		sweep_workload(&res);
		injected += res.fired;
	}
	igt_info("%lu faults injected over 20 runs, %" PRIu64 " calls refused with a clean errno\n", injected,
		 res.failed_ops);
	igt_assert(injected > 0);
	igt_report_checks(res.ops, res.bytes_verified, injected);
}

igt_main_description("For every core fault point, fail its 1st, 2nd, ... hit during a fixed "
		     "workload (create, validate, evict, swap, read back, destroy) and check "
		     "clean errors, intact content and no leak; plus seeded probabilistic runs.")
{
	struct point_list points = { .n = 0 };

	igt_fixture {
		igt_require_f(FAULT_INJECT_ENABLED, "fault points compiled out\n");
		fault_for_each(collect_point, &points);
		igt_require(points.n > 0);
	}

	igt_subtest_with_dynamic("each-point") {
		struct sweep_totals *tot = mmap(NULL, sizeof(*tot), PROT_READ | PROT_WRITE,
						MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		igt_assert(tot != MAP_FAILED);
		memset(tot, 0, sizeof(*tot));
		for (unsigned i = 0; i < points.n; i++)
			igt_dynamic_f("%s", points.attr[i]->name)
				sweep_point(points.attr[i], tot);
		igt_info("coverage: %" PRIu64 " of %u points swept, %" PRIu64
			 " hits in all, %" PRIu64 " faults injected\n",
			 (uint64_t)atomic_load(&tot->points), points.n,
			 (uint64_t)atomic_load(&tot->hits), (uint64_t)atomic_load(&tot->injected));
		igt_report_checks(atomic_load(&tot->ops), atomic_load(&tot->bytes),
				  atomic_load(&tot->injected));
		munmap(tot, sizeof(*tot));
	}

	igt_subtest("probabilistic")
		subtest_probabilistic();
}
