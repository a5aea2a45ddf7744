// SPDX-License-Identifier: MIT
/*
 * bench_stats.c - clock, exact sample statistics with a bootstrap interval of
 * the median, and the log-scaled mergeable histogram.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <testlib/clock.h>
#include <testlib/prng.h>

#include "bench.h"

/* Uniform index in [0, n) without the modulo bias mattering at our sizes. */
static size_t rng_below(uint64_t *state, size_t n)
{
	return (size_t)(((unsigned __int128)prng_step(state) * n) >> 64);
}

double bench_percentile_sorted(const double *v, size_t n, double q)
{
	double h, frac;
	size_t lo;

	if (!n)
		return NAN;
	if (q <= 0.0)
		return v[0];
	if (q >= 1.0)
		return v[n - 1];
	h = (double)(n - 1) * q;
	lo = (size_t)floor(h);
	frac = h - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median of one bootstrap resample of the sorted @s. Drawing indices
 * into sorted data and counting them gives the resample's order statistics
 * in O(n) instead of sorting every resample.
 */
static double resample_median(const double *s, size_t n, uint32_t *count, uint64_t *rng)
{
	size_t lo_rank = (n - 1) / 2, hi_rank = n / 2, seen = 0, i;
	double lo = s[0], hi = s[0];
	bool have_lo = false;

	memset(count, 0, n * sizeof(*count));
	for (i = 0; i < n; i++)
		count[rng_below(rng, n)]++;
	for (i = 0; i < n; i++) {
		seen += count[i];
		if (!have_lo && seen > lo_rank) {
			lo = s[i];
			have_lo = true;
		}
		if (seen > hi_rank) {
			hi = s[i];
			break;
		}
	}
	return (lo + hi) / 2.0;
}

int bench_bootstrap_medians(const double *sorted, size_t n, uint64_t *rng, double *out, size_t nres)
{
	uint32_t *count;
	size_t i;

	if (!n)
		return -EINVAL;
	count = malloc(n * sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (i = 0; i < nres; i++)
		out[i] = resample_median(sorted, n, count, rng);
	free(count);
	return 0;
}

int bench_stats_compute(const double *v, size_t n, uint64_t seed, struct bench_stats *out)
{
	double *s, *med, sum = 0.0, ss = 0.0;
	uint64_t rng;
	size_t i;
	int rc;

	if (!n)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	med = malloc(BENCH_BOOTSTRAP_RESAMPLES * sizeof(*med));
	if (!s || !med) {
		free(s);
		free(med);
		return -ENOMEM;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);

	for (i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / (double)n;
	/* Two passes: the textbook one-pass formula cancels badly on ns data. */
	for (i = 0; i < n; i++)
		ss += (s[i] - out->mean) * (s[i] - out->mean);
	out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = bench_percentile_sorted(s, n, 0.5);
	out->p90 = bench_percentile_sorted(s, n, 0.90);
	out->p99 = bench_percentile_sorted(s, n, 0.99);

	/* Scramble the seed so that seeds 1, 2, 3 give unrelated streams. */
	rng = prng_mix64(seed);
	rc = bench_bootstrap_medians(s, n, &rng, med, BENCH_BOOTSTRAP_RESAMPLES);
	if (rc) {
		free(s);
		free(med);
		return rc;
	}
	qsort(med, BENCH_BOOTSTRAP_RESAMPLES, sizeof(*med), cmp_double);
	out->ci_lo = bench_percentile_sorted(med, BENCH_BOOTSTRAP_RESAMPLES, 0.025);
	out->ci_hi = bench_percentile_sorted(med, BENCH_BOOTSTRAP_RESAMPLES, 0.975);

	free(s);
	free(med);
	return 0;
}

/* ---------------------------------------------------------- histogram */

void bench_hist_init(struct bench_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned bench_hist_bucket(uint64_t v)
{
	unsigned e, shift;

	if (v < BENCH_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	shift = e - BENCH_HIST_SUB_BITS;
	/* (v >> shift) is in [SUB, 2 * SUB): the top SUB_BITS + 1 bits of v. */
	return BENCH_HIST_SUB * (shift + 1) + (unsigned)((v >> shift) - BENCH_HIST_SUB);
}

uint64_t bench_hist_bucket_lo(unsigned i)
{
	unsigned shift;

	if (i < BENCH_HIST_SUB)
		return i;
	shift = i / BENCH_HIST_SUB - 1;
	return ((uint64_t)BENCH_HIST_SUB + i % BENCH_HIST_SUB) << shift;
}

double bench_hist_bucket_mid(unsigned i)
{
	uint64_t width;

	if (i < BENCH_HIST_SUB)
		return (double)i;
	width = 1ull << (i / BENCH_HIST_SUB - 1);
	/* Midpoint of the integers lo .. lo + width - 1. */
	return (double)bench_hist_bucket_lo(i) + (double)(width - 1) / 2.0;
}

void bench_hist_record_n(struct bench_hist *h, uint64_t v, uint64_t count)
{
	double d = (double)v;

	if (!count)
		return;
	h->counts[bench_hist_bucket(v)] += count;
	h->n += count;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum += d * (double)count;
	h->sumsq += d * d * (double)count;
}

void bench_hist_record(struct bench_hist *h, uint64_t v)
{
	bench_hist_record_n(h, v, 1);
}

void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src)
{
	unsigned i;

	if (!src->n)
		return;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
}

/* Representative value of the @rank-th smallest value (1-based), clamped. */
static double hist_value_at_rank(const struct bench_hist *h, uint64_t rank)
{
	uint64_t seen = 0;
	double v;
	unsigned i;

	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			break;
	}
	if (i == BENCH_HIST_BUCKETS)
		return (double)h->max;
	v = bench_hist_bucket_mid(i);
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

double bench_hist_percentile(const struct bench_hist *h, double q)
{
	if (!h->n)
		return NAN;
	if (q < 0.0)
		q = 0.0;
	if (q > 1.0)
		q = 1.0;
	return hist_value_at_rank(h, (uint64_t)ceil(q * (double)h->n));
}

int bench_hist_stats(const struct bench_hist *h, struct bench_stats *out)
{
	double n, var, half;

	if (!h->n)
		return -EINVAL;
	n = (double)h->n;
	out->n = h->n;
	out->min = (double)h->min;
	out->max = (double)h->max;
	out->mean = h->sum / n;
	var = h->n > 1 ? (h->sumsq - h->sum * h->sum / n) / (n - 1.0) : 0.0;
	out->stddev = var > 0.0 ? sqrt(var) : 0.0;
	out->median = bench_hist_percentile(h, 0.5);
	out->p90 = bench_hist_percentile(h, 0.90);
	out->p99 = bench_hist_percentile(h, 0.99);
	half = 1.96 * sqrt(n) / 2.0;
	out->ci_lo = hist_value_at_rank(h, (uint64_t)fmax(1.0, floor(n / 2.0 - half)));
	out->ci_hi = hist_value_at_rank(h, (uint64_t)fmin(n, ceil(n / 2.0 + half + 1.0)));
	return 0;
}
