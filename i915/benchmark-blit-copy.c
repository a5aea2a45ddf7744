// SPDX-License-Identifier: MIT
/*
 * benchmark-blit-copy: bandwidth of XY_FAST_COPY_BLT copies on the
 * simulated blitter (latency model off) between two GGTT-mapped host
 * buffers, submitted with i915_blt_copy() and waited for, against memcpy()
 * of the same buffers in the same run. Reported as median/min/max GB/s
 * over repetitions and as the ratio blit/memcpy (target >= 0.7).
 *
 * Options: --quick (3 short repetitions), --reps N, --size-mib N.
 * Self-contained for the same reason as benchmark-exec-nop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <i915/i915_drv.h>

#include "i915_bench.h"

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
		return -ENOMEM;
	}
	memset(*mem, 0x11, size);
	for (size_t i = 0; i < pages; i++)
		ptrs[i] = (char *)*mem + i * 4096;
	ret = ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place, size, 0, res);
	if (!ret)
		ret = i915_ggtt_bind_host(&i915->ggtt, (*res)->start, ptrs, pages);
	free(ptrs);
	return ret;
}

/* @s whole as a decimal in 1..@max: no sign, blank, trailing text or overflow. */
static int parse_count(const char *s, unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > max)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int reps = 9, size_mib = 16, copies = 8;
	struct i915_bench_series blit = {0}, cpu = {0};
	struct ttm_resource *rs = NULL, *rd = NULL;
	struct i915_device *i915 = NULL;
	struct sim_gpu_config cfg;
	void *src = NULL, *dst = NULL;
	size_t size;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			reps = 3;
			size_mib = 4;
			copies = 4;
		} else if (!strcmp(argv[i], "--reps") || !strcmp(argv[i], "--size-mib")) {
			bool is_reps = argv[i][2] == 'r';
			const char *val = i + 1 < argc ? argv[++i] : "";

			if (parse_count(val, is_reps ? I915_BENCH_MAX_REPS : 256,
					is_reps ? &reps : &size_mib)) {
				fprintf(stderr, "%s: %s: expected an integer in 1..%d, got '%s'\n",
					argv[0], argv[i - 1], is_reps ? I915_BENCH_MAX_REPS : 256, val);
				return 2;
			}
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: %s [--quick] [--reps N] [--size-mib N]\n", argv[0]);
			return 0;
		} else {
			fprintf(stderr, "usage: %s [--quick] [--reps N] [--size-mib N]\n", argv[0]);
			return 2;
		}
	}
	if (!reps || reps > I915_BENCH_MAX_REPS || !size_mib || size_mib > 256) {
		fprintf(stderr, "--reps must be 1..%d, --size-mib 1..256\n", I915_BENCH_MAX_REPS);
		return 2;
	}
	size = (size_t)size_mib << 20;
	sim_gpu_config_init(&cfg);
	cfg.ggtt_size = 1ull << 30;
	ret = i915_device_create_sim(&cfg, &i915);
	if (!ret)
		ret = map_buffer(i915, size, &src, &rs);
	if (!ret)
		ret = map_buffer(i915, size, &dst, &rd);
	if (ret) {
		fprintf(stderr, "setup: %s\n", strerror(-ret));
		return 1;
	}
	for (unsigned int r = 0; r <= reps && !ret; r++) {
		uint64_t t0 = i915_bench_now_ns();

		/* Repetition 0 warms both paths up and is not recorded. */
		for (unsigned int c = 0; c < copies && !ret; c++) {
			struct dma_fence *f;

			ret = i915_blt_copy(i915, NULL, i915_ggtt_offset(rd), i915_ggtt_offset(rs),
					    size, &f);
			if (!ret) {
				dma_fence_wait(f, false);
				if (dma_fence_get_status(f) != 1)
					ret = -EIO;
				dma_fence_put(f);
			}
		}
		if (r)
			blit.v[blit.n++] =
			    (double)size * copies / (double)(i915_bench_now_ns() - t0);
		t0 = i915_bench_now_ns();
		for (unsigned int c = 0; c < copies; c++) {
			memcpy(dst, src, size);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		if (r)
			cpu.v[cpu.n++] = (double)size * copies / (double)(i915_bench_now_ns() - t0);
	}
	if (ret) {
		fprintf(stderr, "blit: %s\n", strerror(-ret));
		return 1;
	}
	i915_bench_series_finish(&blit);
	i915_bench_series_finish(&cpu);
	printf("benchmark-blit-copy: sim BCS, latency model off, %u MiB x %u copies, %u reps\n",
	       size_mib, copies, reps);
	printf("reference memcpy          median %6.2f GB/s (min %.2f, max %.2f)\n", cpu.median,
	       cpu.min, cpu.max);
	printf("XY_FAST_COPY_BLT + wait   median %6.2f GB/s (min %.2f, max %.2f)\n", blit.median,
	       blit.min, blit.max);
	printf("ratio blit/memcpy (medians) = %.2f (target >= 0.7)\n", blit.median / cpu.median);

	i915_ggtt_unbind(&i915->ggtt, rs->start, size / 4096);
	i915_ggtt_unbind(&i915->ggtt, rd->start, size / 4096);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &rs);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &rd);
	free(src);
	free(dst);
	i915_device_destroy(i915);
	return 0;
}
