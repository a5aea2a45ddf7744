// SPDX-License-Identifier: MIT
/* Statistics of the bench harness: exact values on known data, histogram error bound. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <ktest.h>

#include "bench.h"

#define EXPECT_NEAR(a, b, tol)                                                                     \
	KTEST_CHECK_(fabs((double)(a) - (double)(b)) <= (tol), false, "%s ~ %s (%.9g vs %.9g)",    \
		     #a, #b, (double)(a), (double)(b))

KTEST(bench_percentile_sorted_interpolates)
{
	const double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

	EXPECT_NEAR(bench_percentile_sorted(v, 10, 0.5), 5.5, 1e-12);
	EXPECT_NEAR(bench_percentile_sorted(v, 10, 0.9), 9.1, 1e-12);
	EXPECT_NEAR(bench_percentile_sorted(v, 10, 0.25), 3.25, 1e-12);
	EXPECT_NEAR(bench_percentile_sorted(v, 10, 0.0), 1.0, 0);
	EXPECT_NEAR(bench_percentile_sorted(v, 10, 1.0), 10.0, 0);
	EXPECT_NEAR(bench_percentile_sorted(v, 1, 0.7), 1.0, 0);
	EXPECT_TRUE(isnan(bench_percentile_sorted(v, 0, 0.5)));
}

KTEST(bench_stats_compute_known_data)
{
	/* Unsorted on purpose: the input must not need to be sorted nor be modified. */
	double v[] = {9, 2, 7, 4, 5, 6, 3, 8, 1, 10};
	struct bench_stats s;

	ASSERT_EQ(bench_stats_compute(v, 10, 1, &s), 0);
	EXPECT_EQ(s.n, 10);
	EXPECT_NEAR(s.min, 1, 0);
	EXPECT_NEAR(s.max, 10, 0);
	EXPECT_NEAR(s.median, 5.5, 1e-12);
	EXPECT_NEAR(s.mean, 5.5, 1e-12);
	EXPECT_NEAR(s.p90, 9.1, 1e-12);
	EXPECT_NEAR(s.p99, 9.91, 1e-12);
	/* var = sum((x - 5.5)^2) / 9 = 82.5 / 9 */
	EXPECT_NEAR(s.stddev, sqrt(82.5 / 9.0), 1e-12);
	EXPECT_LE(s.ci_lo, s.median);
	EXPECT_GE(s.ci_hi, s.median);
	EXPECT_GE(s.ci_lo, 1);
	EXPECT_LE(s.ci_hi, 10);
	EXPECT_NEAR(v[0], 9, 0);
}

KTEST(bench_stats_compute_odd_and_single)
{
	const double v[] = {3, 1, 2};
	struct bench_stats s;

	ASSERT_EQ(bench_stats_compute(v, 3, 7, &s), 0);
	EXPECT_NEAR(s.median, 2, 0);
	EXPECT_NEAR(s.stddev, 1, 1e-12);
	ASSERT_EQ(bench_stats_compute(v, 1, 7, &s), 0);
	EXPECT_NEAR(s.median, 3, 0);
	EXPECT_NEAR(s.stddev, 0, 0);
	EXPECT_NEAR(s.ci_lo, 3, 0);
	EXPECT_NEAR(s.ci_hi, 3, 0);
	EXPECT_EQ(bench_stats_compute(v, 0, 7, &s), -EINVAL);
}

KTEST(bench_stats_compute_bootstrap_deterministic)
{
	struct bench_stats a, b, c;
	double v[200];
	unsigned i;

	for (i = 0; i < 200; i++)
		v[i] = (double)(ktest_rand() % 100000) / 7.0;
	ASSERT_EQ(bench_stats_compute(v, 200, 42, &a), 0);
	ASSERT_EQ(bench_stats_compute(v, 200, 42, &b), 0);
	ASSERT_EQ(bench_stats_compute(v, 200, 43, &c), 0);
	EXPECT_TRUE(a.ci_lo == b.ci_lo && a.ci_hi == b.ci_hi);
	EXPECT_LT(a.ci_lo, a.median);
	EXPECT_GT(a.ci_hi, a.median);
	/* A different seed moves the interval a little, not a lot. */
	EXPECT_TRUE(fabs(c.ci_lo - a.ci_lo) < (a.max - a.min) / 4);
}

KTEST(prng_step_reproducible)
{
	uint64_t s1 = 5, s2 = 5;
	unsigned i;

	for (i = 0; i < 100; i++)
		EXPECT_UEQ(prng_step(&s1), prng_step(&s2));
	EXPECT_NE(s1, 0);
}

KTEST(bench_hist_bucket_bounds)
{
	uint64_t v;
	unsigned i, b;

	for (v = 0; v < 64; v++) {
		EXPECT_EQ(bench_hist_bucket(v), v);
		EXPECT_UEQ(bench_hist_bucket_lo((unsigned)v), v);
	}
	EXPECT_EQ(bench_hist_bucket(UINT64_MAX), BENCH_HIST_BUCKETS - 1);
	/* Buckets are contiguous and increasing. */
	for (i = 1; i < BENCH_HIST_BUCKETS; i++) {
		uint64_t lo = bench_hist_bucket_lo(i);

		EXPECT_TRUE(lo > bench_hist_bucket_lo(i - 1));
		EXPECT_EQ(bench_hist_bucket(lo), i);
		EXPECT_EQ(bench_hist_bucket(lo - 1), i - 1);
	}
	for (i = 0; i < 100000u * ktest_scale(); i++) {
		v = ktest_rand() >> (ktest_rand() % 64);
		b = bench_hist_bucket(v);
		ASSERT_LT(b, BENCH_HIST_BUCKETS);
		EXPECT_ULE(bench_hist_bucket_lo(b), v);
		if (v)
			EXPECT_TRUE(fabs(bench_hist_bucket_mid(b) - (double)v) / (double)v <=
				    BENCH_HIST_REL_ERROR);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

KTEST(bench_hist_percentile_within_bound)
{
	static const double qs[] = {0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0};
	struct bench_hist *h = malloc(sizeof(*h));
	unsigned n = 20000, i, k;
	uint64_t *v = malloc(n * sizeof(*v));

	ASSERT_NOT_NULL(h);
	ASSERT_NOT_NULL(v);
	bench_hist_init(h);
	EXPECT_TRUE(isnan(bench_hist_percentile(h, 0.5)));
	for (i = 0; i < n; i++) {
		/* Log-uniform-ish latencies from 10 ns to ~10 ms. */
		v[i] = 10 + (ktest_rand() % 1000) * (1ull << (ktest_rand() % 14));
		bench_hist_record(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	EXPECT_UEQ(h->n, n);
	EXPECT_UEQ(h->min, v[0]);
	EXPECT_UEQ(h->max, v[n - 1]);
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)ceil(qs[k] * n);
		double exact = (double)v[rank - 1], got = bench_hist_percentile(h, qs[k]);

		EXPECT_TRUE(fabs(got - exact) <= exact * BENCH_HIST_REL_ERROR);
	}
	free(v);
	free(h);
}

KTEST(bench_hist_merge_equals_single)
{
	struct bench_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)),
			  *all = malloc(sizeof(*all));
	struct bench_stats sa, sall;
	unsigned i;

	ASSERT_TRUE(a && b && all);
	bench_hist_init(a);
	bench_hist_init(b);
	bench_hist_init(all);
	for (i = 0; i < 5000; i++) {
		uint64_t x = ktest_rand() % 1000000;

		bench_hist_record(i & 1 ? a : b, x);
		bench_hist_record(all, x);
	}
	bench_hist_merge(a, b);
	EXPECT_MEMEQ(a->counts, all->counts, sizeof(a->counts));
	EXPECT_UEQ(a->n, all->n);
	EXPECT_UEQ(a->min, all->min);
	EXPECT_UEQ(a->max, all->max);
	ASSERT_EQ(bench_hist_stats(a, &sa), 0);
	ASSERT_EQ(bench_hist_stats(all, &sall), 0);
	EXPECT_TRUE(sa.median == sall.median && sa.p99 == sall.p99);
	EXPECT_TRUE(fabs(sa.mean - sall.mean) <= 1e-6 * sall.mean);
	EXPECT_LE(sa.ci_lo, sa.median);
	EXPECT_GE(sa.ci_hi, sa.median);
	free(a);
	free(b);
	free(all);
}

KTEST(bench_hist_stats_exact_small_values)
{
	struct bench_hist *h = malloc(sizeof(*h));
	struct bench_stats s;

	ASSERT_NOT_NULL(h);
	bench_hist_init(h);
	EXPECT_EQ(bench_hist_stats(h, &s), -EINVAL);
	bench_hist_record_n(h, 10, 3);
	bench_hist_record(h, 20);
	ASSERT_EQ(bench_hist_stats(h, &s), 0);
	EXPECT_EQ(s.n, 4);
	EXPECT_NEAR(s.mean, 12.5, 1e-12);
	EXPECT_NEAR(s.stddev, 5.0, 1e-9);
	EXPECT_NEAR(s.median, 10, 0);
	EXPECT_NEAR(s.max, 20, 0);
	EXPECT_NEAR(s.p99, 20, 0);
	free(h);
}
