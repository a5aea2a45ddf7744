/* SPDX-License-Identifier: MIT */
/*
 * ttm_delay: a calibrated busy-wait, the regression the comparison tools
 * must notice. Builds configured with -Dvalidate_delay_ns, -Dfence_delay_ns
 * or -Devict_delay_ns spend that much extra time in every validate, fence
 * signal or eviction; the default builds compile the call out.
 *
 * The wait is a chain of dependent additions, one per cycle, that sits ON
 * the path it slows down: it starts from a value the path has just loaded
 * (@seed, so it cannot run early, beside a locked instruction still in
 * flight) and the object the path goes on with comes out of it (@obj, so
 * nothing after it can run beside it). A chain off the path, as an
 * independent spin is, overlaps with the path's own stalls and adds a
 * fraction of what it asks at a few nanoseconds.
 *
 * A nanosecond is about three steps, so whole steps cannot add 1 ns within
 * 10%: a site runs floor(s) or floor(s) + 1 steps for the calibrated s,
 * dithered by an accumulator so the mean over calls is s. The step count of
 * a site is computed once, at its first run, and kept in the site, so a
 * delay costs no call, no clock read and no division after the first run.
 */
#ifndef TTM_DELAY_H
#define TTM_DELAY_H

#include <stdatomic.h>
#include <stdint.h>

/**
 * struct ttm_delay_site - one use of the delay: its step count, once known.
 * @steps: whole steps for the use's delay; negative until the first run.
 * @frac: the fractional step, in units of 2^-32.
 * @acc: the dither accumulator; a carry out of it adds one step. Updated
 *       with relaxed loads and stores: a lost update among racing threads
 *       only moves which call takes the extra step.
 */
struct ttm_delay_site {
	_Atomic int64_t steps;
	_Atomic uint32_t frac;
	_Atomic uint32_t acc;
};

#define TTM_DELAY_SITE_INIT                                                                        \
	{                                                                                          \
		.steps = -1, .frac = 0, .acc = 0                                                   \
	}

/**
 * ttm_delay_site_steps() - calibrate (first call in the process) and store
 * the step count of @site for @ns nanoseconds.
 * @site: the use.
 * @ns: the delay the use asks for.
 *
 * Return: the whole steps now stored in @site (0 when @ns is below what an
 * empty use costs); the fraction is stored in @site->frac.
 */
int64_t ttm_delay_site_steps(struct ttm_delay_site *site, double ns);

/*
 * @n dependent single-cycle steps starting from @seed; returns @obj made
 * to depend on the last of them. The asm keeps the chain unfolded and hides
 * from the compiler that the final difference is zero.
 */
static inline __attribute__((always_inline)) uintptr_t ttm_delay_chain(int64_t n, uintptr_t obj,
								       uintptr_t seed)
{
	uintptr_t x = seed, end = seed + (uintptr_t)n;

	while (n-- > 0) {
		x += 1;
		__asm__ volatile("" : "+r"(x));
	}
	return obj + (x - end);
}

/**
 * ttm_delay_on() - spin for about @ns nanoseconds on the path of @obj.
 * @site: the use; one per distinct @ns (a static per call site).
 * @ns: the time to add; every call with one @site must pass the same @ns.
 * @obj: what the path goes on with after the delay (a pointer as integer).
 * @seed: a value the path loaded just before (the chain starts from it).
 *
 * Context: any thread; the first call in the process calibrates (a few
 * milliseconds).
 * Return: @obj, available only once the delay has run.
 */
static inline __attribute__((always_inline)) uintptr_t
ttm_delay_on(struct ttm_delay_site *site, double ns, uintptr_t obj, uintptr_t seed)
{
	int64_t n = atomic_load_explicit(&site->steps, memory_order_relaxed);
	uint32_t acc, sum;

	if (__builtin_expect(n < 0, 0))
		n = ttm_delay_site_steps(site, ns);
	acc = atomic_load_explicit(&site->acc, memory_order_relaxed);
	sum = acc + atomic_load_explicit(&site->frac, memory_order_relaxed);
	atomic_store_explicit(&site->acc, sum, memory_order_relaxed);
	return ttm_delay_chain(n + (sum < acc), obj, seed);
}

/**
 * ttm_delay_after() - delay the path of @obj by about @ns nanoseconds at
 * this call site.
 * @ns: the time to add, a double (0.75 is a valid delay), the same on
 *       every run of this call site (a configuration constant).
 * @obj: a pointer the path uses next; the expression yields it back, to be
 *       assigned over the original so the path waits for the delay.
 * @seed: a value the path has just loaded (an integer or pointer).
 *
 * A statement expression: each expansion keeps its own &struct
 * ttm_delay_site.
 */
#define ttm_delay_after(ns, obj, seed)                                                             \
	({                                                                                         \
		static struct ttm_delay_site ttm_delay_site_ = TTM_DELAY_SITE_INIT;                \
		(__typeof__(obj))ttm_delay_on(&ttm_delay_site_, (ns), (uintptr_t)(obj),            \
					      (uintptr_t)(seed));                                  \
	})

/**
 * ttm_delay_calibration() - the measured cost of a use (calibrates on first
 * call).
 * @fixed_ns: receives what a use of 0 steps adds to a dependent path.
 * @step_ns: receives what one step adds.
 */
void ttm_delay_calibration(double *fixed_ns, double *step_ns);

#endif /* TTM_DELAY_H */
