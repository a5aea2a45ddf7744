/* SPDX-License-Identifier: MIT */
/*
 * ttm_delay: a calibrated busy-wait, the regression the comparison tools
 * must notice. Builds configured with -Dvalidate_delay_ns, -Dfence_delay_ns
 * or -Devict_delay_ns spend that much extra time in every validate, fence
 * signal or eviction; the default builds compile the call out.
 *
 * The wait is a chain of dependent multiplications whose cost per step is
 * measured once per process (the first call): the cost of a call is taken
 * as a + b n for n steps, fitted from two step counts, and a call for T ns
 * runs (T - a) / b steps. So the added time is what was asked for down to
 * the cost of an empty call (about a nanosecond), not the 40-60 ns floor of
 * polling a clock, and it holds while other threads run (no clock reads, no
 * syscalls, no shared cache lines after calibration).
 */
#ifndef TTM_DELAY_H
#define TTM_DELAY_H

#include <stdint.h>

/**
 * ttm_delay_ns() - spin for about @ns nanoseconds on this CPU.
 * @ns: the time to add; 0 returns at once.
 *
 * Context: any thread; the first call calibrates (a few milliseconds).
 */
void ttm_delay_ns(uint64_t ns);

/**
 * ttm_delay_calibration() - the fitted cost of a call: @fixed_ns for the
 * call itself, @step_ns per step (calibrates on first use).
 * @fixed_ns: receives a.
 * @step_ns: receives b.
 */
void ttm_delay_calibration(double *fixed_ns, double *step_ns);

#endif /* TTM_DELAY_H */
