// SPDX-License-Identifier: MIT
/*
 * ttm_delay: the calibrated busy-wait of the regression knobs, see
 * ttm_delay.h.
 */
#include <math.h>
#include <pthread.h>
#include <time.h>

#include <ttm/ttm_delay.h>

static pthread_once_t ttm_delay_once = PTHREAD_ONCE_INIT;
/* Written once under ttm_delay_once, read after it. */
static double ttm_delay_fixed_ns, ttm_delay_step_ns, ttm_delay_inv_step;

/* @n dependent steps; the asm keeps the compiler from folding the chain. */
__attribute__((noinline)) static uint64_t ttm_delay_spin(uint64_t n)
{
	uint64_t x = n | 1;

	while (n--) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static double ttm_delay_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Cost of one call of @n steps over one batch of @calls calls. */
static double ttm_delay_measure(uint64_t n, unsigned calls)
{
	double t0 = ttm_delay_now_ns();
	volatile uint64_t sink = 0;

	for (unsigned i = 0; i < calls; i++)
		sink += ttm_delay_spin(n);
	(void)sink;
	return (ttm_delay_now_ns() - t0) / calls;
}

/* The work of a call after calibration: the step count, then the steps. */
__attribute__((noinline)) static void ttm_delay_run(uint64_t ns)
{
	double steps = ((double)ns - ttm_delay_fixed_ns) * ttm_delay_inv_step;

	ttm_delay_spin(steps > 0 ? (uint64_t)(steps + 0.5) : 0);
}

static double ttm_delay_measure_run(uint64_t ns, unsigned calls)
{
	double t0 = ttm_delay_now_ns();

	for (unsigned i = 0; i < calls; i++)
		ttm_delay_run(ns);
	return (ttm_delay_now_ns() - t0) / calls;
}

/*
 * Fit a + b n to calls of the bare spin at two step counts, then measure
 * what the step computation of a real call adds (with no fixed part
 * subtracted yet, a call for the time of n1 steps runs exactly n1 steps)
 * and count it in the fixed part.
 */
static void ttm_delay_calibrate(void)
{
	const uint64_t n1 = 16, n2 = 4096;
	double c1 = INFINITY, c2 = INFINITY, run = INFINITY, step;

	/*
	 * Batches of the two sizes interleaved, the fastest of each kept: a
	 * batch that was preempted or met a slower clock loses, and both sizes
	 * see the same machine.
	 */
	ttm_delay_measure(n2, 2000); /* warm up: frequency, caches */
	for (unsigned rep = 0; rep < 15; rep++) {
		c1 = fmin(c1, ttm_delay_measure(n1, 20000));
		c2 = fmin(c2, ttm_delay_measure(n2, 200));
	}
	step = (c2 - c1) / (double)(n2 - n1);
	if (!(step > 0.01))
		step = 0.3;
	ttm_delay_fixed_ns = 0;
	ttm_delay_inv_step = 1.0 / step;
	for (unsigned rep = 0; rep < 15; rep++)
		run = fmin(run, ttm_delay_measure_run((uint64_t)llround(step * (double)n1), 20000));
	ttm_delay_step_ns = step;
	ttm_delay_fixed_ns = fmax(0.0, run - step * (double)n1);
}

void ttm_delay_ns(uint64_t ns)
{
	if (!ns)
		return;
	pthread_once(&ttm_delay_once, ttm_delay_calibrate);
	ttm_delay_run(ns);
}

void ttm_delay_calibration(double *fixed_ns, double *step_ns)
{
	pthread_once(&ttm_delay_once, ttm_delay_calibrate);
	*fixed_ns = ttm_delay_fixed_ns;
	*step_ns = ttm_delay_step_ns;
}
