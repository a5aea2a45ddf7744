// SPDX-License-Identifier: MIT
/*
 * ttm_delay: the calibration of the regression knobs' busy-wait, see
 * ttm_delay.h.
 *
 * A use sits on a dependent path, so what n steps add is linear in n: a
 * fixed cost (tying the object to the chain) plus n times the latency of
 * one add. Both are measured once per process on a dependent walk, the
 * shape of the paths the knobs slow down, and a site's step count is
 * solved from them for the asked time.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "ttm_config.h"
#if TTM_HAVE_CALLGRIND_H
#include <valgrind/valgrind.h>
#endif

#include <testlib/clock.h>

#include <ttm/ttm_delay.h>

static pthread_once_t ttm_delay_once = PTHREAD_ONCE_INIT;
/* Written once under ttm_delay_once, read after it. */
static double ttm_delay_fixed; /* ns a use of 0 steps adds to a dependent path */
static double ttm_delay_step;  /* ns one step adds */

/*
 * ns per iteration of a dependent walk (each iteration loads the pointer
 * the previous one left) with a use of @steps on it, or without the use
 * (@steps < 0). The cell points to itself: every load hits L1, so the walk
 * is a chain of load latencies that a use lengthens by exactly its own
 * latency. noinline keeps every measured loop in the same shape.
 */
__attribute__((noinline)) static double ttm_delay_loop(int64_t steps, unsigned iters)
{
	static void *cell = &cell;
	void **p = &cell;
	double t0 = (double)testlib_now_ns();

	for (unsigned i = 0; i < iters; i++) {
		void **q = *p;

		if (steps >= 0)
			q = (void **)ttm_delay_chain(steps, (uintptr_t)q, (uintptr_t)q);
		p = q;
	}
	__asm__ volatile("" ::"r"(p));
	return ((double)testlib_now_ns() - t0) / iters;
}

/*
 * The clock of the CPU the process runs on, in GHz: the first "cpu MHz" of
 * /proc/cpuinfo, or 3 when there is none (one dependent add a cycle).
 */
static double ttm_delay_nominal_ghz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	if (f)
		fclose(f);
	return mhz >= 100 && mhz <= 10000 ? mhz / 1000 : 3.0;
}

/*
 * Per step count of a small grid, the fastest of nine batches (a batch that
 * was preempted or met a slower clock loses) minus the fastest bare walk,
 * the rounds interleaved so every point sees the same machine. On the path,
 * a use adds fixed + n * step exactly: the step is the slope between the
 * long uses, the fixed cost the median residue of the short ones.
 *
 * Under valgrind the emulated CPU is tens of times slower and its clock says
 * nothing about the native one: a step is taken to be one cycle of the
 * nominal clock, and a use of 0 steps two (the two subtractions that tie
 * @obj to the chain), so a delay build leaves its trace on the instruction
 * axis.
 */
static void ttm_delay_calibrate(void)
{
	static const int64_t grid[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 1024, 2048, 4096};
	enum { NGRID = sizeof(grid) / sizeof(grid[0]), NSHORT = 9 };
	double bare = INFINITY, with[NGRID], resid[NSHORT];

#if TTM_HAVE_CALLGRIND_H
	if (RUNNING_ON_VALGRIND) {
		ttm_delay_step = 1 / ttm_delay_nominal_ghz();
		ttm_delay_fixed = 2 * ttm_delay_step;
		return;
	}
#endif
	for (unsigned i = 0; i < NGRID; i++)
		with[i] = INFINITY;
	ttm_delay_loop(4096, 200); /* warm up: frequency, caches, predictors */
	for (unsigned rep = 0; rep < 9; rep++) {
		for (unsigned i = 0; i < NGRID; i++) {
			unsigned iters = (unsigned)(200000 / (grid[i] + 8));

			bare = fmin(bare, ttm_delay_loop(-1, iters));
			with[i] = fmin(with[i], ttm_delay_loop(grid[i], iters));
		}
	}
	ttm_delay_step =
	    (with[NGRID - 1] - with[NSHORT]) / (double)(grid[NGRID - 1] - grid[NSHORT]);
	if (!(ttm_delay_step > 0.01 && ttm_delay_step < 10))
		ttm_delay_step = 1 / ttm_delay_nominal_ghz(); /* a preempted calibration */
	for (unsigned i = 0; i < NSHORT; i++)
		resid[i] = with[i] - bare - (double)grid[i] * ttm_delay_step;
	/* Median of the residues (insertion sort of nine). */
	for (unsigned i = 1; i < NSHORT; i++)
		for (unsigned j = i; j > 0 && resid[j - 1] > resid[j]; j--) {
			double t = resid[j];

			resid[j] = resid[j - 1];
			resid[j - 1] = t;
		}
	ttm_delay_fixed = fmax(0.0, resid[NSHORT / 2]);
}

int64_t ttm_delay_site_steps(struct ttm_delay_site *site, double ns)
{
	double s;
	int64_t whole;
	uint32_t frac;

	pthread_once(&ttm_delay_once, ttm_delay_calibrate);
	s = (ns - ttm_delay_fixed) / ttm_delay_step;
	/*
	 * Half steps: a site that alternates n and n + 1 steps keeps the loop's
	 * exit branch predictable (period two), where a finer dither would
	 * mispredict it, at a cost far above the step it refines.
	 */
	s = s > 0 ? round(2 * s) / 2 : 0;
	whole = (int64_t)s;
	frac = s - (double)whole >= 0.5 ? UINT32_C(0x80000000) : 0;
	atomic_store_explicit(&site->frac, frac, memory_order_relaxed);
	atomic_store_explicit(&site->steps, whole, memory_order_relaxed);
	return whole;
}

void ttm_delay_calibration(double *fixed_ns, double *step_ns)
{
	pthread_once(&ttm_delay_once, ttm_delay_calibrate);
	*fixed_ns = ttm_delay_fixed;
	*step_ns = ttm_delay_step;
}
