// SPDX-License-Identifier: MIT
/*
 * benchmark-blit-copy: bandwidth of XY_FAST_COPY_BLT copies on the
 * simulated blitter (latency model off) between two GGTT-mapped host
 * buffers, submitted with i915_blt_copy() and waited for, against memcpy()
 * of the same buffers in the same run.
 *
 *   blit_copy.blit     GB/s of i915_blt_copy() + fence wait
 *   blit_copy.memcpy   GB/s of memcpy() between the same buffers
 *
 * Both are related to the harness's memcpy_bw reference; the summary line
 * gives blit/memcpy of the medians (target >= 0.7). The common options are
 * the harness's (bench/lib: --reps, --warmup, --quick, --out, --cpus,
 * --backend, --seed); --size-mib N (1..256, default 16; 4 with --quick) is
 * the buffer size. The blitter copy is a sim-only path: --backend=hw skips
 * (exit 77), --backend=core runs the sim.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bench.h>

#include <i915/i915_drv.h>

#define BLIT_MAX_SIZE_MIB 256

struct blit_opts {
	unsigned int size_mib;
	bool size_set;
};

static int opt_size_mib(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct blit_opts *o = ctx;

	if (bench_parse_uint(arg ? arg : "", 1, BLIT_MAX_SIZE_MIB, &o->size_mib)) {
		snprintf(err, errlen, "expected an integer in 1..%d, got '%s'", BLIT_MAX_SIZE_MIB,
			 arg ? arg : "");
		return -EINVAL;
	}
	o->size_set = true;
	return 0;
}

static const struct bench_opt blit_extra[] = {
    {"size-mib", "N", "buffer size in MiB, 1..256 (default 16; 4 with --quick)", opt_size_mib},
    {0},
};

/* Host buffer of @size bytes bound at a fresh GGTT range. */
static int map_buffer(struct i915_device *i915, size_t size, void **mem, struct ttm_resource **res)
{
	const struct ttm_place place = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};
	size_t pages = size / 4096;
	void **ptrs;
	int ret;

	*mem = aligned_alloc(4096, size);
	ptrs = calloc(pages, sizeof(*ptrs));
	if (!*mem || !ptrs) {
		free(ptrs);
		free(*mem);
		*mem = NULL;
		return -ENOMEM;
	}
	memset(*mem, 0x11, size);
	for (size_t i = 0; i < pages; i++)
		ptrs[i] = (char *)*mem + i * 4096;
	ret = ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place, size, 0, res);
	if (!ret) {
		ret = i915_ggtt_bind_host(&i915->ggtt, (*res)->start, ptrs, pages);
		if (ret)
			ttm_resource_free(i915_ggtt_manager(&i915->ggtt), res);
	}
	free(ptrs);
	return ret;
}

static void unmap_buffer(struct i915_device *i915, size_t size, void *mem,
			 struct ttm_resource **res)
{
	if (*res) {
		i915_ggtt_unbind(&i915->ggtt, (*res)->start, size / 4096);
		ttm_resource_free(i915_ggtt_manager(&i915->ggtt), res);
	}
	free(mem);
}

/* @copies blits of @size bytes from @rs to @rd, each waited for; GB/s in *@gbs. */
static int blit_rep(struct i915_device *i915, struct ttm_resource *rd, struct ttm_resource *rs,
		    size_t size, unsigned int copies, double *gbs)
{
	uint64_t t0 = testlib_now_raw_ns();
	int ret = 0;

	for (unsigned int c = 0; c < copies && !ret; c++) {
		struct dma_fence *f;

		ret =
		    i915_blt_copy(i915, NULL, i915_ggtt_offset(rd), i915_ggtt_offset(rs), size, &f);
		if (!ret) {
			dma_fence_wait(f, false);
			if (dma_fence_get_status(f) != 1)
				ret = -EIO;
			dma_fence_put(f);
		}
	}
	*gbs = (double)size * copies / (double)(testlib_now_raw_ns() - t0);
	return ret;
}

/* @copies memcpy()s of @size bytes from @src to @dst; GB/s in *@gbs. */
static double memcpy_rep(void *dst, const void *src, size_t size, unsigned int copies)
{
	uint64_t t0 = testlib_now_raw_ns();

	for (unsigned int c = 0; c < copies; c++) {
		memcpy(dst, src, size);
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
	return (double)size * copies / (double)(testlib_now_raw_ns() - t0);
}

static int blit_measure(struct bench_run *run, struct i915_device *i915, size_t size,
			unsigned int copies)
{
	struct ttm_resource *rs = NULL, *rd = NULL;
	struct bench_metric *blit, *cpu;
	void *src = NULL, *dst = NULL;
	double x, y;
	int ret;

	blit = bench_metric_add(run, "blit_copy.blit", "GB/s", BENCH_HIGHER_IS_BETTER);
	cpu = bench_metric_add(run, "blit_copy.memcpy", "GB/s", BENCH_HIGHER_IS_BETTER);
	if (!blit || !cpu)
		return -ENOMEM;
	bench_metric_reference(blit, BENCH_REF_MEMCPY_BW, BENCH_RATIO_REF_OVER_VALUE);
	bench_metric_reference(cpu, BENCH_REF_MEMCPY_BW, BENCH_RATIO_REF_OVER_VALUE);
	bench_metric_platform(cpu);
	ret = map_buffer(i915, size, &src, &rs);
	if (!ret)
		ret = map_buffer(i915, size, &dst, &rd);
	for (unsigned int w = 0; !ret && w < run->opts.warmup; w++) {
		ret = blit_rep(i915, rd, rs, size, copies, &x);
		memcpy_rep(dst, src, size, copies);
	}
	/* Alternate the two so drift on a shared machine weighs on both. */
	for (unsigned int r = 0; !ret && r < run->opts.reps; r++) {
		bench_progress(run, "blit copies", (double)r / run->opts.reps);
		ret = blit_rep(i915, rd, rs, size, copies, &x);
		y = memcpy_rep(dst, src, size, copies);
		ret = ret ? ret : bench_metric_sample(blit, x);
		ret = ret ? ret : bench_metric_sample(cpu, y);
	}
	bench_progress_done(run);
	unmap_buffer(i915, size, dst, &rd);
	unmap_buffer(i915, size, src, &rs);
	return ret;
}

int main(int argc, char **argv)
{
	struct blit_opts o = {.size_mib = 16};
	struct bench_stats sb, sc;
	struct i915_device *i915 = NULL;
	struct i915_device_config cfg;
	unsigned int copies;
	struct bench_run run;
	int ret;

	ret = bench_setup(&run, "blit-copy", argc, argv, blit_extra, &o);
	if (ret)
		return bench_exit_code(ret);
	if (run.opts.backend == BENCH_BACKEND_HW) {
		fprintf(stderr, "benchmark-blit-copy: SKIP: --backend=hw: the blitter copy runs "
				"on the sim back end only\n");
		bench_run_fini(&run);
		return 77;
	}
	if (!o.size_set && run.opts.quick)
		o.size_mib = 4;
	copies = run.opts.quick ? 4 : 8;
	bench_run_param(&run, "size_mib", "%u", o.size_mib);
	bench_run_param(&run, "copies", "%u", copies);
	bench_run_param(&run, "engine", "%s", "bcs");
	bench_run_backend_param(&run, "latency_model", "%s", "off");
	ret = bench_references_measure(&run);
	if (ret)
		fprintf(stderr, "benchmark-blit-copy: a reference failed (%d)\n", ret);

	i915_device_config_init(&cfg, I915_BACKEND_SIM);
	cfg.ggtt_size = 1ull << 30;
	ret = i915_device_create(&cfg, &i915);
	if (ret) {
		fprintf(stderr, "benchmark-blit-copy: sim device: %s\n", strerror(-ret));
		bench_run_fini(&run);
		return 1;
	}
	ret = blit_measure(&run, i915, (size_t)o.size_mib << 20, copies);
	i915_device_destroy(i915);
	if (ret) {
		fprintf(stderr, "benchmark-blit-copy: failed (%s)\n", strerror(-ret));
		bench_run_fini(&run);
		return 1;
	}
	if (!bench_metric_stats(bench_metric_find(&run, "blit_copy.blit"), &sb) &&
	    !bench_metric_stats(bench_metric_find(&run, "blit_copy.memcpy"), &sc) && sc.median > 0)
		printf("ratio blit/memcpy (medians) = %.2f (target >= 0.7)\n",
		       sb.median / sc.median);
	return bench_run_finish(&run);
}
