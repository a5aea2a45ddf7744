// SPDX-License-Identifier: MIT
/*
 * benchmark-validate-hit: ttm_bo_validate() of an idle, reserved BO that
 * already sits where the placement wants it, the call every command
 * submission makes for every BO it touches.
 *
 *  validate.hit            ns per call (a 4 KiB BO in VRAM, one-place
 *                          placement); reference: an uncontended pthread mutex
 *                          lock+unlock measured in the same run, ratio =
 *                          validate / mutex; target <= 100 ns
 *  validate.hit_system     the same for a 4 KiB BO in SYSTEM (no range to
 *                          check); reference: a bare system call (getppid)
 *                          measured in the same run, ratio = validate / syscall
 *  validate.hit_cycle      ttm_bo_reserve() + ttm_bo_validate() +
 *                          ttm_bo_unreserve() of the idle 4 KiB VRAM BO, what
 *                          a submission pays per BO it names (the kernel
 *                          reference's row a); reference: the mutex, ratio =
 *                          cycle / mutex
 *  bo.metadata.4k          bytes of core metadata of a populated 4 KiB SYSTEM
 *                          BO (ttm_bo_metadata_size()); target <= 512
 *  bo.metadata.1m          the same for a 1 MiB BO (its page array grows
 *                          with the size), informational
 *
 * Each repetition times a loop of validate calls and records the mean per
 * call; the harness reports median, spread and ratios over --reps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>

#include <bench.h>

#include "bench_mockdev.h"

#define VRAM_PAGES 1024

struct hit_loop {
	struct bench_metric *m;
	struct ttm_buffer_object *bo;
	const struct ttm_placement *placement;
	unsigned long iters;
	bool cycle; /* take and drop the reservation around each call */
};

static int hit_rep(void *arg, int rep, double *value)
{
	struct hit_loop *l = arg;
	struct ttm_operation_ctx ctx = {0};
	uint64_t t0;
	int ret = 0;

	(void)rep;
	bench_icount_start();
	t0 = testlib_now_raw_ns();
	if (l->cycle) {
		for (unsigned long i = 0; i < l->iters; i++) {
			ret |= ttm_bo_reserve(l->bo, false, false, NULL);
			ret |= ttm_bo_validate(l->bo, l->placement, &ctx);
			ttm_bo_unreserve(l->bo);
		}
	} else {
		for (unsigned long i = 0; i < l->iters; i++)
			ret |= ttm_bo_validate(l->bo, l->placement, &ctx);
	}
	*value = (double)(testlib_now_raw_ns() - t0) / (double)l->iters;
	if (bench_icount_stop(l->m, l->iters))
		return -EIO;
	/* A hit moves nothing; anything else would measure a different path. */
	if (ret || ctx.moves || ctx.bytes_moved)
		return -EPROTO;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct ttm_place vram_place = {.mem_type = TTM_PL_VRAM};
	static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
	const struct ttm_placement vram = {1, &vram_place};
	const struct ttm_placement sys = {1, &sys_place};
	struct ttm_buffer_object *in_vram = NULL, *in_sys = NULL, *big = NULL;
	struct bench_metric *hit, *hit_fb, *cycle, *meta4k, *meta1m;
	struct ttm_operation_ctx ctx = {0};
	struct hit_loop loop = {0};
	struct bench_run run;
	struct testlib_mock_device dev;
	int rc;

	rc = bench_setup(&run, "validate-hit", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	loop.iters = run.opts.quick ? 200000 : 2000000;
	bench_run_param(&run, "bo_size", "%u", 4096u);
	bench_run_param(&run, "iters_per_rep", "%lu", loop.iters);
	rc = bench_references_measure(&run);
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: measuring references failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	bench_pin_thread(&run, 0);

	rc = bench_coredev_init(&dev, VRAM_PAGES);
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: device init failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	/* A failed BO stays NULL, which the check below reports. */
	testlib_mock_bo_create(&dev.bdev, 4096, &vram, NULL, true, &in_vram);
	testlib_mock_bo_create(&dev.bdev, 4096, &sys, NULL, true, &in_sys);
	testlib_mock_bo_create(&dev.bdev, 1 << 20, &sys, NULL, true, &big);
	hit = bench_metric_add(&run, "validate.hit", "ns", BENCH_LOWER_IS_BETTER);
	hit_fb = bench_metric_add(&run, "validate.hit_system", "ns", BENCH_LOWER_IS_BETTER);
	cycle = bench_metric_add(&run, "validate.hit_cycle", "ns", BENCH_LOWER_IS_BETTER);
	meta4k = bench_metric_add(&run, "bo.metadata.4k", "bytes", BENCH_LOWER_IS_BETTER);
	meta1m = bench_metric_add(&run, "bo.metadata.1m", "bytes", BENCH_LOWER_IS_BETTER);
	if (!in_vram || !in_sys || !big || !hit || !hit_fb || !cycle || !meta4k || !meta1m) {
		fprintf(stderr, "benchmark-validate-hit: setup failed\n");
		rc = 1;
		goto out;
	}

	loop.m = hit;
	loop.bo = in_vram;
	loop.placement = &vram;
	rc = bench_repeat(&run, hit, hit_rep, &loop);
	if (!rc) {
		loop.m = hit_fb;
		loop.bo = in_sys;
		loop.placement = &sys;
		rc = bench_repeat(&run, hit_fb, hit_rep, &loop);
	}
	if (!rc) {
		/* The cycle takes the reservation itself; the BO is reserved again after. */
		loop.m = cycle;
		loop.bo = in_vram;
		loop.placement = &vram;
		ttm_bo_unreserve(in_vram);
		loop.cycle = true;
		rc = bench_repeat(&run, cycle, hit_rep, &loop);
		if (ttm_bo_reserve(in_vram, false, false, NULL) && !rc)
			rc = -EDEADLK;
	}
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: validate loop failed (%d)\n", rc);
		rc = 1;
		goto out;
	}
	bench_metric_reference(hit, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(hit, 100.0, BENCH_TARGET_AT_MOST);
	bench_metric_reference(hit_fb, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(cycle, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);

	/* Metadata of populated BOs: the page array is part of the cost. */
	rc = ttm_bo_populate(in_sys, &ctx) || ttm_bo_populate(big, &ctx);
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: populate failed\n");
		rc = 1;
		goto out;
	}
	bench_metric_sample(meta4k, (double)ttm_bo_metadata_size(in_sys));
	bench_metric_target(meta4k, 512.0, BENCH_TARGET_AT_MOST);
	bench_metric_sample(meta1m, (double)ttm_bo_metadata_size(big));
	rc = 0;

out:
	if (in_vram) {
		ttm_bo_unreserve(in_vram);
		ttm_bo_put(in_vram);
	}
	if (in_sys) {
		ttm_bo_unreserve(in_sys);
		ttm_bo_put(in_sys);
	}
	if (big) {
		ttm_bo_unreserve(big);
		ttm_bo_put(big);
	}
	testlib_mock_device_fini(&dev);
	if (rc) {
		bench_run_fini(&run);
		return rc;
	}
	return bench_run_finish(&run);
}
