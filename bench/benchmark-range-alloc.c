// SPDX-License-Identifier: MIT
/*
 * benchmark-range-alloc: the range allocators' costs, three tables.
 *
 * 1. One drm_mm remove+insert pair (random size, DRM_MM_INSERT_BEST) with
 *    1 Ki, 64 Ki and 1 Mi nodes resident, against a glibc tdelete+tsearch
 *    pair on a tree holding the same number of random keys, measured in the
 *    same run: what the drm_mm bookkeeping costs over a bare ordered-set
 *    update.
 * 2. drm_mm placement: remove+insert pairs of random 4..64 KiB nodes at 4 KiB
 *    and 64 KiB alignment in BEST, LOW and HIGH mode, over the whole space
 *    and restricted to its middle half (the kernel's insert_node_in_range).
 * 3. drm_buddy alloc+free pairs of random 4..64 KiB in 1 GiB at 25/50/90%
 *    fill: plain, top-down, range-restricted to a 256 MiB window, and
 *    contiguous (non power-of-two sizes); target: top-down and range within
 *    2x of plain at the same fill.
 *
 * On the shared harness (bench.h): the common options, a results file with
 * each figure in ns per pair (and, under callgrind with
 * TTM_BENCH_CALLGRIND_OUT set, instructions per pair beside it), and the
 * tables of median/min/max over --reps repetitions (default 5, at most
 * MAX_REPS).
 *
 * Usage: benchmark-range-alloc [common options] [--pairs N] | --callgrind NODES
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/drm_buddy.h>
#include <ttm/drm_mm.h>

#include <testlib/clock.h>
#include <testlib/prng.h>

#include "bench.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#endif

#define MAX_REPS 32

static struct prng rng = {PRNG_GOLDEN};

static uint64_t rnd(void)
{
	return prng_next(&rng);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_key(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return (x > y) - (x < y);
}

static void no_free(void *p)
{
	(void)p;
}

/* Node sizes in pages: 1..16 pages of 4 KiB, space for twice the mean demand. */
static uint64_t rand_size(void)
{
	return (1 + rnd() % 16) * 4096;
}

/* @n resident drm_mm nodes of rand_size() pages, the state both measurements churn. */
struct mm_churn {
	struct drm_mm mm;
	struct drm_mm_node *nodes;
	size_t n;
};

static void churn_fini(struct mm_churn *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->nodes[i].allocated)
			drm_mm_remove_node(&c->mm, &c->nodes[i]);
	drm_mm_takedown(&c->mm);
	free(c->nodes);
}

/* Room for twice the mean demand, filled with @n nodes. Return 0, or -1 with nothing held. */
static int churn_init(struct mm_churn *c, size_t n)
{
	c->n = n;
	c->nodes = calloc(n, sizeof(*c->nodes));
	if (!c->nodes || drm_mm_init(&c->mm, 0, (uint64_t)n * 17 * 4096)) {
		free(c->nodes);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (drm_mm_insert_node(&c->mm, &c->nodes[i], rand_size(), 0, 0,
				       DRM_MM_INSERT_BEST)) {
			churn_fini(c);
			return -1;
		}
	}
	return 0;
}

/*
 * @pairs remove+insert pairs of a random resident node at a new random size.
 * Return how many pairs completed (fewer only on an unexpected -ENOSPC).
 */
static size_t churn_pairs(struct mm_churn *c, size_t pairs)
{
	size_t i;

	for (i = 0; i < pairs; i++) {
		struct drm_mm_node *node = &c->nodes[rnd() % c->n];

		drm_mm_remove_node(&c->mm, node);
		if (drm_mm_insert_node(&c->mm, node, rand_size(), 0, 0, DRM_MM_INSERT_BEST))
			break;
	}
	return i;
}

/*
 * ns per remove+insert pair, or a negative value on an unexpected failure;
 * the pairs' instructions go to @m under callgrind.
 */
static double measure_mm(size_t n, size_t pairs, struct bench_metric *m)
{
	struct mm_churn c;
	uint64_t t0, t1;
	double ret = -1;

	if (churn_init(&c, n))
		return -1;
	bench_icount_start();
	t0 = testlib_now_ns();
	if (churn_pairs(&c, pairs) == pairs) {
		t1 = testlib_now_ns();
		if (bench_icount_stop(m, pairs) == 0)
			ret = (double)(t1 - t0) / (double)pairs;
	}
	churn_fini(&c);
	return ret;
}

static double measure_tsearch(size_t n, size_t pairs)
{
	uintptr_t *keys = malloc(n * sizeof(*keys));
	void *root = NULL;
	uint64_t t0, t1;
	size_t i;

	if (!keys)
		return -1;
	for (i = 0; i < n; i++) {
		keys[i] = (uintptr_t)(rnd() | 1);
		if (!tsearch((void *)keys[i], &root, cmp_key))
			goto fail;
	}
	t0 = testlib_now_ns();
	for (i = 0; i < pairs; i++) {
		size_t k = rnd() % n;

		tdelete((void *)keys[k], &root, cmp_key);
		keys[k] = (uintptr_t)(rnd() | 1);
		if (!tsearch((void *)keys[k], &root, cmp_key))
			goto fail;
	}
	t1 = testlib_now_ns();
	tdestroy(root, no_free);
	free(keys);
	return (double)(t1 - t0) / (double)pairs;
fail:
	tdestroy(root, no_free);
	free(keys);
	return -1;
}

/*
 * drm_mm placement: a space of 32 pages per node filled with @n random
 * 4..64 KiB nodes by @mode at @align (inside the middle half when
 * @ranged), then @pairs remove+insert pairs of a random node at a new size
 * the same way. ns per pair, or -1 on a failed set-up or an unexpected
 * -ENOSPC; the pairs' instructions go to @m under callgrind.
 */
static const char *const mm_mode_name[] = {"best", "low", "high"};

static double measure_mm_place(enum drm_mm_insert_mode mode, uint64_t align, bool ranged, size_t n,
			       size_t pairs, struct bench_metric *m)
{
	const uint64_t space = (uint64_t)n * 32 * 4096;
	const uint64_t lo = ranged ? space / 4 : 0, hi = ranged ? space / 4 * 3 : space;
	struct drm_mm_node *nodes = calloc(n, sizeof(*nodes));
	struct drm_mm mm;
	double ret = -1;
	uint64_t t0;
	size_t i;

	if (!nodes || drm_mm_init(&mm, 0, space)) {
		free(nodes);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (drm_mm_insert_node_in_range(&mm, &nodes[i], rand_size(), align, 0, lo, hi,
						mode))
			goto out;
	bench_icount_start();
	t0 = testlib_now_ns();
	for (i = 0; i < pairs; i++) {
		struct drm_mm_node *node = &nodes[rnd() % n];

		drm_mm_remove_node(&mm, node);
		if (drm_mm_insert_node_in_range(&mm, node, rand_size(), align, 0, lo, hi, mode))
			break;
	}
	t0 = testlib_now_ns() - t0;
	if (bench_icount_stop(m, pairs) == 0 && i == pairs)
		ret = (double)t0 / (double)pairs;
out:
	for (i = 0; i < n; i++)
		if (nodes[i].allocated)
			drm_mm_remove_node(&mm, &nodes[i]);
	drm_mm_takedown(&mm);
	free(nodes);
	return ret;
}

/*
 * drm_buddy: a 1 GiB space of 4 KiB chunks filled to @fill_pct with random
 * 4..64 KiB allocations, then alloc+free pairs of one more such allocation:
 * plain, top-down, range-restricted to the 256 MiB window [512, 768) MiB,
 * or contiguous (1..16 pages, mostly no power of two). ns per pair (a
 * refused request counts as one), or -1 on a failed setup; the pairs'
 * instructions go to @m under callgrind.
 */
enum buddy_mode { BUDDY_PLAIN, BUDDY_TOPDOWN, BUDDY_RANGE, BUDDY_CONTIG, BUDDY_MODES };
static const char *const buddy_mode_name[BUDDY_MODES] = {"plain", "topdown", "range", "contig"};

static double measure_buddy(enum buddy_mode mode, unsigned fill_pct, size_t pairs,
			    struct bench_metric *m)
{
	const uint64_t size = 1ull << 30, win_start = 512ull << 20, win_end = 768ull << 20;
	unsigned flags = mode == BUDDY_TOPDOWN	? DRM_BUDDY_TOPDOWN_ALLOCATION
			 : mode == BUDDY_RANGE	? DRM_BUDDY_RANGE_ALLOCATION
			 : mode == BUDDY_CONTIG ? DRM_BUDDY_CONTIGUOUS_ALLOCATION
						: 0;
	struct list_head held = LIST_HEAD_INIT(held);
	struct drm_buddy mm;
	uint64_t t0, used = 0;
	size_t done = 0;

	if (drm_buddy_init(&mm, size, 4096))
		return -1;
	while (used < size / 100 * fill_pct) {
		uint64_t sz = 4096ull << (rnd() % 5);

		if (drm_buddy_alloc_blocks(&mm, 0, size, sz, 4096, &held, 0))
			break;
		used += sz;
	}
	bench_icount_start();
	t0 = testlib_now_ns();
	for (size_t i = 0; i < pairs; i++) {
		struct list_head one = LIST_HEAD_INIT(one);
		uint64_t sz =
		    mode == BUDDY_CONTIG ? 4096 * (1 + rnd() % 16) : 4096ull << (rnd() % 5);

		/* A refused request (a full window) costs its walk: it counts too. */
		if (!drm_buddy_alloc_blocks(&mm, mode == BUDDY_RANGE ? win_start : 0,
					    mode == BUDDY_RANGE ? win_end : size, sz, 4096, &one,
					    flags))
			drm_buddy_free_list(&mm, &one, 0);
		done++;
	}
	t0 = testlib_now_ns() - t0;
	if (bench_icount_stop(m, done))
		done = 0;
	drm_buddy_free_list(&mm, &held, 0);
	drm_buddy_fini(&mm);
	return done ? (double)t0 / (double)done : -1;
}

static void summarize(double *v, int reps, double *med, double *min, double *max)
{
	qsort(v, (size_t)reps, sizeof(*v), cmp_double);
	*min = v[0];
	*max = v[reps - 1];
	*med = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
}

/*
 * --callgrind N: fill N nodes uninstrumented, then run CALLGRIND_PAIRS
 * remove+insert pairs with callgrind's instrumentation on, so that
 * `valgrind --tool=callgrind --instr-atstart=no` counts the pairs' instructions
 * only (scripts/callgrind-range-alloc.sh divides by the pair count).
 */
#define CALLGRIND_PAIRS 20000

static int run_callgrind(size_t n)
{
	struct mm_churn c;
	size_t done;

	if (!HAVE_CALLGRIND) {
		fprintf(stderr, "built without valgrind/callgrind.h\n");
		return 1;
	}
	if (churn_init(&c, n))
		return 1;
#if HAVE_CALLGRIND
	CALLGRIND_START_INSTRUMENTATION;
#endif
	done = churn_pairs(&c, CALLGRIND_PAIRS);
#if HAVE_CALLGRIND
	CALLGRIND_STOP_INSTRUMENTATION;
#endif
	printf("pairs %d resident %zu\n", CALLGRIND_PAIRS, n);
	churn_fini(&c);
	return done == CALLGRIND_PAIRS ? 0 : 1;
}

/* The extra options' values. */
struct ra_opts {
	size_t callgrind;
	size_t pairs;
};

/* A whole count 1..16 Mi into *@out. */
static int parse_count(const char *arg, size_t *out, const char *what, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = arg && *arg >= '0' && *arg <= '9' ? strtoul(arg, &end, 10) : 0;
	if (!v || errno || *end || v > 16ul * 1024 * 1024) {
		snprintf(err, errlen, "expected a %s 1..16Mi, got '%s'", what, arg ? arg : "");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* --callgrind NODES: the node count. */
static int set_callgrind(void *ctx, const char *arg, char *err, size_t errlen)
{
	return parse_count(arg, &((struct ra_opts *)ctx)->callgrind, "node count", err, errlen);
}

/* --pairs N: pairs per repetition (a short run under callgrind). */
static int set_pairs(void *ctx, const char *arg, char *err, size_t errlen)
{
	return parse_count(arg, &((struct ra_opts *)ctx)->pairs, "pair count", err, errlen);
}

static const struct bench_opt ra_extra[] = {
    {"callgrind", "NODES", "count one pair's instructions under callgrind instead", set_callgrind},
    {"pairs", "N",
     "pairs per repetition (default 20000 with --quick, else 200000; the buddy tables run N/4)",
     set_pairs},
    {NULL, NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
	static const size_t sizes[] = {1024, 64 * 1024, 1024 * 1024};
	struct bench_metric *mmm[3], *mts[3], *mratio[3];
	struct ra_opts xo = {0, 0};
	size_t pairs, mm_nodes;
	double mm_best[2][2] = {{0}};
	struct bench_run run;
	unsigned reps;
	char name[64];
	int rc;

	rc = bench_setup(&run, "range-alloc", argc, argv, ra_extra, &xo);
	if (rc)
		return bench_exit_code(rc);
	if (xo.callgrind) {
		bench_run_fini(&run);
		return run_callgrind(xo.callgrind);
	}
	pairs = xo.pairs ? xo.pairs : run.opts.quick ? 20000 : 200000;
	reps = run.opts.reps_set ? run.opts.reps : 5;
	if (reps > MAX_REPS) {
		fprintf(stderr, "%s: --reps: at most %d for this benchmark\n", argv[0], MAX_REPS);
		bench_run_fini(&run);
		return 2;
	}
	/* Placement: fewer nodes than the 1 Mi churn, so set-up stays short. */
	mm_nodes = run.opts.quick ? 4096 : 16384;
	bench_run_param(&run, "pairs", "%zu", pairs);
	bench_run_param(&run, "placement_nodes", "%zu", mm_nodes);
	for (size_t s = 0; s < 3; s++) {
		snprintf(name, sizeof(name), "range_alloc.drm_mm.%zu", sizes[s]);
		mmm[s] = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "range_alloc.tsearch.%zu", sizes[s]);
		mts[s] = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "range_alloc.ratio.%zu", sizes[s]);
		mratio[s] = bench_metric_add(&run, name, "x", BENCH_LOWER_IS_BETTER);
		if (!mmm[s] || !mts[s] || !mratio[s]) {
			bench_run_fini(&run);
			return 1;
		}
		bench_metric_target(mratio[s], 1.0, BENCH_TARGET_AT_MOST);
	}
	printf(
	    "# drm_mm remove+insert pair (random 4..64 KiB, BEST) vs glibc tdelete+tsearch pair\n");
	printf("# %zu pairs per repetition, %u repetitions, unit: ns per pair\n", pairs, reps);
	printf("%-9s %-28s %-11s %-28s %-11s %s\n", "resident", "drm_mm median [min, max]",
	       "drm_mm", "tsearch median [min, max]", "tsearch",
	       "ratio drm_mm/tsearch (target <= 1.00)");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		double mm[MAX_REPS], ts[MAX_REPS], mmed, mmin, mmax, tmed, tmin, tmax;

		for (unsigned r = 0; r < reps; r++) {
			/* Alternate which side runs first so drift hits both alike. */
			if (r % 2) {
				ts[r] = measure_tsearch(sizes[s], pairs);
				mm[r] = measure_mm(sizes[s], pairs, mmm[s]);
			} else {
				mm[r] = measure_mm(sizes[s], pairs, mmm[s]);
				ts[r] = measure_tsearch(sizes[s], pairs);
			}
			if (mm[r] < 0 || ts[r] < 0) {
				fprintf(stderr, "setup failed at %zu nodes\n", sizes[s]);
				bench_run_fini(&run);
				return 1;
			}
			bench_metric_sample(mmm[s], mm[r]);
			bench_metric_sample(mts[s], ts[r]);
			bench_metric_sample(mratio[s], mm[r] / ts[r]);
		}
		summarize(mm, (int)reps, &mmed, &mmin, &mmax);
		summarize(ts, (int)reps, &tmed, &tmin, &tmax);
		printf("%-9zu %7.1f [%7.1f, %7.1f] ns    %6.2f M/s  %7.1f [%7.1f, %7.1f] ns    "
		       "%6.2f M/s  "
		       "%.2f %s\n",
		       sizes[s], mmed, mmin, mmax, 1e3 / mmed, tmed, tmin, tmax, 1e3 / tmed,
		       mmed / tmed, mmed <= tmed ? "pass" : "MISS");
	}
	printf("# drm_mm remove+insert pair (random 4..64 KiB) among %zu nodes, space 32 pages "
	       "per node; range: its middle half\n%-5s %-6s %-6s %28s %9s\n",
	       mm_nodes, "mode", "align", "where", "ns/pair median [min, max]", "x best");
	for (int md = 0; md < 3; md++) {
		for (int al = 0; al < 2; al++) {
			for (int rg = 0; rg < 2; rg++) {
				const uint64_t align = al ? 65536 : 4096;
				struct bench_metric *mp;
				double v[MAX_REPS], med, mn, mx;

				snprintf(name, sizeof(name), "range_alloc.drm_mm.%s.%s.%s",
					 mm_mode_name[md], al ? "64k" : "4k",
					 rg ? "range" : "whole");
				mp = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
				if (!mp) {
					bench_run_fini(&run);
					return 1;
				}
				for (unsigned r = 0; r < reps; r++) {
					v[r] = measure_mm_place((enum drm_mm_insert_mode)md, align,
								rg, mm_nodes, pairs, mp);
					if (v[r] < 0) {
						fprintf(stderr, "drm_mm placement setup failed\n");
						bench_run_fini(&run);
						return 1;
					}
					bench_metric_sample(mp, v[r]);
				}
				summarize(v, (int)reps, &med, &mn, &mx);
				if (md == 0)
					mm_best[al][rg] = med;
				printf("%-5s %-6s %-6s %8.1f [%7.1f, %8.1f] %9.2f\n",
				       mm_mode_name[md], al ? "64k" : "4k", rg ? "range" : "whole",
				       med, mn, mx, med / mm_best[al][rg]);
			}
		}
	}
	printf("# drm_buddy alloc+free pair (random 4..64 KiB; contig: 1..16 pages) in 1 GiB at a "
	       "fill; range: a 256 MiB window\n%-6s %-8s %12s %12s (target: top-down and range "
	       "<= 2x plain)\n",
	       "fill", "mode", "ns/pair", "x plain");
	for (unsigned f = 0; f < 3; f++) {
		static const unsigned fills[] = {25, 50, 90};
		double plain = 0;

		for (int m = 0; m < BUDDY_MODES; m++) {
			struct bench_metric *mb, *mr = NULL;
			double v[MAX_REPS], med, mn, mx;
			bool target = m == BUDDY_TOPDOWN || m == BUDDY_RANGE;

			snprintf(name, sizeof(name), "range_alloc.buddy.%s.%u", buddy_mode_name[m],
				 fills[f]);
			mb = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
			if (m != BUDDY_PLAIN) {
				snprintf(name, sizeof(name), "range_alloc.buddy.%s_vs_plain.%u",
					 buddy_mode_name[m], fills[f]);
				mr = bench_metric_add(&run, name, "x", BENCH_LOWER_IS_BETTER);
				if (mr && target)
					bench_metric_target(mr, 2.0, BENCH_TARGET_AT_MOST);
			}
			if (!mb || (m != BUDDY_PLAIN && !mr)) {
				bench_run_fini(&run);
				return 1;
			}
			for (unsigned r = 0; r < reps; r++) {
				v[r] = measure_buddy((enum buddy_mode)m, fills[f],
						     pairs < 4 ? 1 : pairs / 4, mb);
				if (v[r] < 0) {
					fprintf(stderr, "buddy setup failed\n");
					bench_run_fini(&run);
					return 1;
				}
				bench_metric_sample(mb, v[r]);
			}
			summarize(v, (int)reps, &med, &mn, &mx);
			if (m == BUDDY_PLAIN)
				plain = med;
			else
				bench_metric_sample(mr, med / plain);
			printf("%-6u %-8s %12.1f %12.2f %s\n", fills[f], buddy_mode_name[m], med,
			       med / plain,
			       !target		  ? ""
			       : med <= 2 * plain ? "pass"
						  : "MISS");
		}
	}
	return bench_run_finish(&run);
}
