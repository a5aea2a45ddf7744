/* SPDX-License-Identifier: MIT */
/*
 * ttm_delay: a calibrated busy-wait, the regression the comparison tools
 * must notice. Builds configured with -Dvalidate_delay_ns, -Dfence_delay_ns
 * or -Devict_delay_ns spend that much extra time in every validate, fence
 * signal or eviction; the default builds compile the call out.
 *
 * The wait is an inline chain of dependent additions, one per cycle. What
 * n steps add is measured once per process, at a grid of step counts, the
 * way a use runs (inline, once per iteration of a loop, against the same
 * loop without it), and a use for T ns runs the step count interpolated in
 * that table: at small n the core overlaps one use's short chain with the
 * following work and predicts the loop exit, so the cost is not linear.
 * The step count of a use is computed once, at its first run, and kept in
 * the use's own site, so a delay costs no arithmetic, no call, no clock
 * read and no shared cache line after the first run: small delays (a few
 * nanoseconds, a 3% slowdown of an in-place validate) add what they say
 * instead of the cost of computing them.
 */
#ifndef TTM_DELAY_H
#define TTM_DELAY_H

#include <stdatomic.h>
#include <stdint.h>

/**
 * struct ttm_delay_site - one use of the delay: its step count, once known.
 * @steps: steps for the use's delay; negative until the first run.
 */
struct ttm_delay_site {
	_Atomic int64_t steps;
};

#define TTM_DELAY_SITE_INIT                                                                        \
	{                                                                                          \
		.steps = -1                                                                        \
	}

/**
 * ttm_delay_site_steps() - calibrate (first call in the process) and store
 * the step count of @site for @ns nanoseconds.
 * @site: the use.
 * @ns: the delay the use asks for.
 *
 * Return: the step count now stored in @site (0 when @ns is below what an
 * empty use costs).
 */
int64_t ttm_delay_site_steps(struct ttm_delay_site *site, uint64_t ns);

/* @n dependent single-cycle steps; the asm keeps the chain unfolded. */
static inline __attribute__((always_inline)) void ttm_delay_spin(int64_t n)
{
	uint64_t x = 0;

	while (n-- > 0) {
		x += 1;
		__asm__ volatile("" : "+r"(x));
	}
}

/**
 * ttm_delay_at() - spin for about @ns nanoseconds, with the step count kept
 * in @site.
 * @site: the use; one per distinct @ns (a static per call site).
 * @ns: the time to add; every call with one @site must pass the same @ns.
 *
 * Context: any thread; the first call in the process calibrates (a few
 * milliseconds).
 */
static inline __attribute__((always_inline)) void ttm_delay_at(struct ttm_delay_site *site,
							       uint64_t ns)
{
	int64_t n = atomic_load_explicit(&site->steps, memory_order_relaxed);

	if (__builtin_expect(n < 0, 0))
		n = ttm_delay_site_steps(site, ns);
	ttm_delay_spin(n);
}

/**
 * ttm_delay_ns() - spin for about @ns nanoseconds at this call site.
 * @ns: the time to add, the same on every run of this call site (a
 *      configuration constant).
 *
 * A statement macro: each expansion keeps its own &struct ttm_delay_site.
 */
#define ttm_delay_ns(ns)                                                                           \
	do {                                                                                       \
		static struct ttm_delay_site ttm_delay_site_ = TTM_DELAY_SITE_INIT;                \
		ttm_delay_at(&ttm_delay_site_, (ns));                                              \
	} while (0)

/**
 * ttm_delay_calibration() - the measured cost of a use (calibrates on first
 * call).
 * @fixed_ns: receives what a use of 0 steps adds to a loop.
 * @step_ns: receives what one step adds to a long use.
 */
void ttm_delay_calibration(double *fixed_ns, double *step_ns);

#endif /* TTM_DELAY_H */
