/* SPDX-License-Identifier: MIT */
/*
 * i915_bench.h - the timing and statistics the i915 benchmarks share
 * (benchmark-exec-nop, benchmark-blit-copy). i915/ is built before the
 * shared harness in bench/lib, so these programs cannot link it; this
 * header is their small stand-in, static functions only, no library.
 */
#ifndef I915_BENCH_H
#define I915_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define I915_BENCH_MAX_REPS 64

/* A raw monotonic clock: NTP slewing must not stretch a repetition. */
static inline uint64_t i915_bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * struct i915_bench_series - one figure over repetitions.
 * @v: the value of each repetition, @n of them (at most I915_BENCH_MAX_REPS).
 * @median, @min, @max: set by i915_bench_series_finish(); @v keeps its order.
 */
struct i915_bench_series {
	double v[I915_BENCH_MAX_REPS];
	unsigned int n;
	double median, min, max;
};

static inline int i915_bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median (mean of the middle two for even @s->n), min and max; @s->n >= 1. */
static inline void i915_bench_series_finish(struct i915_bench_series *s)
{
	double sorted[I915_BENCH_MAX_REPS];

	memcpy(sorted, s->v, s->n * sizeof(double));
	qsort(sorted, s->n, sizeof(double), i915_bench_cmp_double);
	s->min = sorted[0];
	s->max = sorted[s->n - 1];
	s->median = s->n & 1 ? sorted[s->n / 2] : (sorted[s->n / 2 - 1] + sorted[s->n / 2]) / 2;
}

#endif /* I915_BENCH_H */
