// SPDX-License-Identifier: MIT
/*
 * benchmark-fence-gpu: fences signalled by the simulated GPU (issue 7, item
 * 3, "GPU-signalled fences from the simulated engine's interrupts").
 *
 *  fence.gpu.submit_wait      one empty batch (MI_BATCH_BUFFER_END) on RCS,
 *                             wait for its request fence, ns per fence: the
 *                             client -> command streamer -> interrupt ->
 *                             waiter path
 *  fence.gpu.queued64         64 batches submitted back to back, then a wait
 *                             on the last, ns per fence
 *
 * Both against a futex round trip between two threads measured by the
 * harness in the same run (ratio = fence / futex). --backend=sim only, latency
 * model off; --backend=hw is reported as a skip (77).
 */
#include <i915/i915_cmds.h>
#include <i915/i915_gem.h>
#include <bench.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One repetition of @burst submissions per wait for @secs; ns per fence. */
static int gpu_rep(struct i915_engine *e, uint64_t batch, unsigned burst, double secs, double *ns)
{
	uint64_t t0 = testlib_now_raw_ns(), n = 0;

	do {
		for (unsigned i = 0; i < burst; i++) {
			struct dma_fence *f;
			int ret = i915_request_submit(e, NULL, NULL, 0, batch, &f);

			if (ret)
				return ret;
			/* Only the last of a burst is waited for; all are put. */
			if (i == burst - 1)
				dma_fence_wait(f, false);
			dma_fence_put(f);
		}
		n += burst;
	} while (testlib_now_raw_ns() - t0 < (uint64_t)(secs * 1e9));
	*ns = (double)(testlib_now_raw_ns() - t0) / (double)n;
	return 0;
}

int main(int argc, char **argv)
{
	const struct ttm_place place = {.mem_type = TTM_PL_TT};
	struct bench_metric *sw, *q64;
	struct ttm_resource *bres = NULL;
	struct i915_device *i915 = NULL;
	struct i915_device_config cfg;
	struct bench_run run;
	void *page = NULL;
	double secs, x;
	int rc;

	rc = bench_setup(&run, "fence-gpu", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	if (run.opts.backend == BENCH_BACKEND_HW) {
		fprintf(stderr, "benchmark-fence-gpu: SKIP: --backend=hw is not available yet\n");
		bench_run_fini(&run);
		return 77;
	}
	bench_run_param(&run, "engine", "%s", "rcs");
	bench_run_backend_param(&run, "latency_model", "%s", "off");
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-fence-gpu: a reference failed (%d)\n", rc);

	i915_device_config_init(&cfg, I915_BACKEND_SIM);
	cfg.ggtt_size = 256ull << 20;
	cfg.aperture_size = 64ull << 20;
	rc = i915_device_create(&cfg, &i915);
	if (!rc) {
		rc = i915_gem_init(i915);
		if (rc) {
			i915_device_destroy(i915);
			i915 = NULL;
		}
	}
	if (rc) {
		fprintf(stderr, "benchmark-fence-gpu: sim device: %s\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	/* The batch: one host page bound into the GGTT, ending at once. */
	page = aligned_alloc(4096, 4096);
	rc = page ? ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place, 4096, 0, &bres)
		  : -ENOMEM;
	if (!rc) {
		memset(page, 0, 4096);
		i915_emit_bb_end(page);
		rc = i915_ggtt_bind_host(&i915->ggtt, bres->start, &page, 1);
		if (rc)
			ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &bres);
	}
	sw = bench_metric_add(&run, "fence.gpu.submit_wait", "ns", BENCH_LOWER_IS_BETTER);
	q64 = bench_metric_add(&run, "fence.gpu.queued64", "ns", BENCH_LOWER_IS_BETTER);
	if (!rc && (!sw || !q64))
		rc = -ENOMEM;
	if (!rc) {
		struct i915_engine *rcs = i915_engine_get(i915, I915_ENGINE_RCS);
		uint64_t batch = i915_ggtt_offset(bres);

		bench_metric_reference(sw, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(q64, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
		secs = run.opts.duration_s / 5;
		rc = gpu_rep(rcs, batch, 1, secs / 2, &x);
		rc = rc ? rc : gpu_rep(rcs, batch, 64, secs / 2, &x);
		/* Alternate the two so drift on a shared machine weighs on both. */
		for (unsigned r = 0; !rc && r < run.opts.reps; r++) {
			bench_progress(&run, "gpu fences", (double)r / run.opts.reps);
			rc = gpu_rep(rcs, batch, 1, secs, &x);
			rc = rc ? rc : bench_metric_sample(sw, x);
			rc = rc ? rc : gpu_rep(rcs, batch, 64, secs, &x);
			rc = rc ? rc : bench_metric_sample(q64, x);
		}
		bench_progress_done(&run);
		i915_ggtt_unbind(&i915->ggtt, bres->start, 1);
		ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &bres);
	}
	free(page);
	i915_gem_fini(i915);
	i915_device_destroy(i915);
	if (rc) {
		fprintf(stderr, "benchmark-fence-gpu: failed (%s)\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
