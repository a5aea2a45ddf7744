// SPDX-License-Identifier: MIT
/*
 * The per-metric instruction axis: under valgrind's callgrind, each timed
 * region a benchmark marks (bench_icount_start/stop) is dumped by a client
 * request, and the dump's instruction total over the region's operations
 * becomes a sample of the metric's instruction count. Callgrind writes a
 * dump synchronously, as "<out>.<part>" for the part-th dump of the
 * process, so the process reads its own counts back at once.
 *
 * Instructions do not move with the machine's load or frequency, so two
 * builds compared by them show a change of well under 1% that wall time on
 * a shared machine cannot (rustc-perf and SQLite track them for that
 * reason); the machine kind this project runs on has no hardware counters
 * (perf stat -e instructions is not supported there), so callgrind counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_priv.h"
#include "ttm_config.h"

#if TTM_HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#endif

/* -1: not decided yet; 0: inactive; 1: active. One benchmark thread marks. */
static int icount_state = -1;
static const char *icount_out;
static unsigned icount_part;
/* Collection was toggled off by bench_icount_pause(). */
static bool icount_paused;

bool bench_icount_active(void)
{
#if TTM_HAVE_CALLGRIND_H
	if (icount_state < 0) {
		icount_out = getenv("TTM_BENCH_CALLGRIND_OUT");
		icount_state = RUNNING_ON_VALGRIND && icount_out && *icount_out;
	}
	return icount_state == 1;
#else
	return false;
#endif
}

void bench_icount_start(void)
{
#if TTM_HAVE_CALLGRIND_H
	if (bench_icount_active()) {
		bench_icount_resume();
		CALLGRIND_ZERO_STATS;
	}
#endif
}

void bench_icount_pause(void)
{
#if TTM_HAVE_CALLGRIND_H
	if (bench_icount_active() && !icount_paused) {
		CALLGRIND_TOGGLE_COLLECT;
		icount_paused = true;
	}
#endif
}

void bench_icount_resume(void)
{
#if TTM_HAVE_CALLGRIND_H
	if (bench_icount_active() && icount_paused) {
		CALLGRIND_TOGGLE_COLLECT;
		icount_paused = false;
	}
#endif
}

/* The "summary:" (or "totals:") Ir of a callgrind dump; -1 when unreadable. */
static double icount_read(const char *path)
{
	char line[512];
	double ir = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if ((sscanf(line, "summary: %llu", &v) == 1) ||
		    (ir < 0 && sscanf(line, "totals: %llu", &v) == 1))
			ir = (double)v;
	}
	fclose(f);
	return ir;
}

int bench_icount_stop(struct bench_metric *m, uint64_t ops)
{
#if TTM_HAVE_CALLGRIND_H
	char path[4096];
	double ir;

	if (!bench_icount_active())
		return 0;
	if (!ops)
		return -EINVAL;
	/* Dumped as collected so far, paused or not; then collecting again. */
	CALLGRIND_DUMP_STATS_AT(m->name);
	bench_icount_resume();
	snprintf(path, sizeof(path), "%s.%u", icount_out, ++icount_part);
	ir = icount_read(path);
	if (ir < 0) {
		fprintf(stderr, "bench: cannot read callgrind dump %s\n", path);
		return -EIO;
	}
	/* The dump has served: keep the directory from growing per region. */
	remove(path);
	return bench_push_double(&m->icount, &m->nicount, &m->icount_cap, ir / (double)ops);
#else
	(void)m;
	(void)ops;
	return 0;
#endif
}
