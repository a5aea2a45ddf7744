// SPDX-License-Identifier: MIT
/*
 * ttm_delay: the calibration of the regression knobs' busy-wait, see
 * ttm_delay.h.
 *
 * What n steps add to a loop is not a + b n at small n: the core runs the
 * short chain of one use beside the next iterations' work (each use's chain
 * is independent), and the loop's exit branch is predicted for short trip
 * counts and mispredicted for long ones. So the calibration measures what
 * a use adds at a grid of step counts, the way a use runs (inline, once per
 * iteration of a loop, against the same loop without it), and a site's
 * step count is interpolated in that table for the asked time.
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

static const int64_t ttm_delay_grid[] = {
    0,	 1,   2,    3,	  4,	5,    6,    8,	  10,	12,    16,    20,
    24,	 32,  40,   48,	  64,	80,   96,   128,  160,	192,   256,   384,
    512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
};
#define TTM_DELAY_GRID (sizeof(ttm_delay_grid) / sizeof(ttm_delay_grid[0]))

static pthread_once_t ttm_delay_once = PTHREAD_ONCE_INIT;
/* Written once under ttm_delay_once, read after it. */
static double ttm_delay_added[TTM_DELAY_GRID];
/* ns per step of long uses: the least-squares slope from 512 steps up. */
static double ttm_delay_slope;

/*
 * ns per iteration of a loop that does what a use does, @steps read from
 * a site each time (@steps < 0: the loop without the use). noinline keeps
 * every measured loop in the same shape whatever the caller.
 */
__attribute__((noinline)) static double ttm_delay_loop(int64_t steps, unsigned iters)
{
	struct ttm_delay_site site = {.steps = steps < 0 ? 0 : steps};
	double t0 = (double)testlib_now_ns();

	for (unsigned i = 0; i < iters; i++) {
		if (steps >= 0)
			ttm_delay_spin(atomic_load_explicit(&site.steps, memory_order_relaxed));
		__asm__ volatile("" ::: "memory");
	}
	return ((double)testlib_now_ns() - t0) / iters;
}

/* Iterations for a batch of about 100 us (steps of about 0.3 ns). */
static unsigned ttm_delay_iters(int64_t steps)
{
	return (unsigned)(300000 / (steps + 30));
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
 * Under valgrind the emulated CPU is tens of times slower and its clock says
 * nothing about the native one: a measured table would ask for no steps at
 * all, and a delay build would leave no trace on the instruction axis. So a
 * step is taken to be one cycle of the nominal clock, and a use of @ns adds
 * about ns * GHz steps, as it would natively for long uses.
 */
static void ttm_delay_nominal(void)
{
	double ghz = ttm_delay_nominal_ghz();

	for (unsigned i = 0; i < TTM_DELAY_GRID; i++)
		ttm_delay_added[i] = (double)ttm_delay_grid[i] / ghz;
	ttm_delay_slope = 1 / ghz;
}

/*
 * Per grid point, the fastest of nine batches (a batch that was preempted
 * or met a slower clock loses) minus the fastest bare loop, the rounds
 * interleaved so every point sees the same machine; then made
 * non-decreasing, so the table inverts.
 */
static void ttm_delay_calibrate(void)
{
	double bare[TTM_DELAY_GRID], with[TTM_DELAY_GRID];

#if TTM_HAVE_CALLGRIND_H
	if (RUNNING_ON_VALGRIND) {
		ttm_delay_nominal();
		return;
	}
#endif
	for (unsigned i = 0; i < TTM_DELAY_GRID; i++)
		bare[i] = with[i] = INFINITY;
	ttm_delay_loop(4096, 200); /* warm up: frequency, caches, predictors */
	for (unsigned rep = 0; rep < 9; rep++) {
		for (unsigned i = 0; i < TTM_DELAY_GRID; i++) {
			unsigned iters = ttm_delay_iters(ttm_delay_grid[i]);

			bare[i] = fmin(bare[i], ttm_delay_loop(-1, iters));
			with[i] = fmin(with[i], ttm_delay_loop(ttm_delay_grid[i], iters));
		}
	}
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;

	for (unsigned i = 0; i < TTM_DELAY_GRID; i++) {
		double added = fmax(0.0, with[i] - bare[i]), x = (double)ttm_delay_grid[i];

		ttm_delay_added[i] = i ? fmax(added, ttm_delay_added[i - 1]) : added;
		if (ttm_delay_grid[i] >= 512) {
			sx += x;
			sy += with[i] - bare[i];
			sxx += x * x;
			sxy += x * (with[i] - bare[i]);
			k++;
		}
	}
	ttm_delay_slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
	if (!(ttm_delay_slope > 0.01))
		ttm_delay_slope = 0.3; /* a preempted calibration: one cycle at 3.3 GHz */
}

int64_t ttm_delay_site_steps(struct ttm_delay_site *site, uint64_t ns)
{
	const unsigned last = TTM_DELAY_GRID - 1;
	double t = (double)ns, n;
	unsigned i;

	pthread_once(&ttm_delay_once, ttm_delay_calibrate);
	if (t <= ttm_delay_added[0]) {
		n = 0;
	} else if (t > ttm_delay_added[last]) {
		n = (double)ttm_delay_grid[last] + (t - ttm_delay_added[last]) / ttm_delay_slope;
	} else {
		/* The first point at or above t; added[last] is, in this branch. */
		for (i = 1; i < last && ttm_delay_added[i] < t; i++)
			;
		/* Between grid points i-1 and i. */
		double a0 = ttm_delay_added[i - 1], a1 = ttm_delay_added[i];
		double n0 = (double)ttm_delay_grid[i - 1], n1 = (double)ttm_delay_grid[i];

		n = a1 > a0 ? n0 + (t - a0) * (n1 - n0) / (a1 - a0) : n1;
	}
	int64_t steps = n > 0 ? (int64_t)llround(n) : 0;

	atomic_store_explicit(&site->steps, steps, memory_order_relaxed);
	return steps;
}

void ttm_delay_calibration(double *fixed_ns, double *step_ns)
{
	pthread_once(&ttm_delay_once, ttm_delay_calibrate);
	*fixed_ns = ttm_delay_added[0];
	*step_ns = ttm_delay_slope;
}
