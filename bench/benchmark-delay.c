// SPDX-License-Identifier: MIT
/*
 * benchmark-delay: does the regression knob add what it says?
 *
 * Builds with -Dvalidate_delay_ns, -Dfence_delay_ns or -Devict_delay_ns call
 * ttm_delay_ns() (ttm/ttm_delay.c) once per validate, fence signal or
 * eviction: the known slowdown the comparison tools are tested against. A
 * test of sensitivity ("a 3% slowdown is flagged") is only as good as the 3%:
 * this program measures, per asked delay T (1, 2, 3, 5, 10, 30, 100, 300,
 * 1000 and 3000 ns), what one use (ttm_delay_at() with its own site, as
 * ttm_delay_ns() expands at a call site) adds to a loop:
 *
 *   delay.added.<T>ns        ns per use of a T ns delay minus ns per
 *                            iteration of the same loop without the call
 *   delay.added.<T>ns.ratio  that over T (target: 0.9 to 1.1 from 1 ns up)
 *
 * The calls alternate with the empty loop in every repetition, so drift
 * weighs on both; the figure is the median over repetitions. The fitted
 * calibration (delay.calibration.fixed_ns, .step_ns) is recorded beside.
 */
#include "ttm_config.h"

#include <bench.h>
#include <ttm/ttm_delay.h>

#include <stdint.h>
#include <stdio.h>

static const unsigned delays[] = {1, 2, 3, 5, 10, 30, 100, 300, 1000, 3000};
#define NDELAYS (sizeof(delays) / sizeof(delays[0]))

/* The loop the knob sits in; @ns 0 is the loop without the call. */
static __attribute__((noinline)) double rep_loop(struct ttm_delay_site *site, uint64_t ns,
						 unsigned long iters)
{
	uint64_t t0 = testlib_now_raw_ns();

	for (unsigned long i = 0; i < iters; i++) {
		if (ns)
			ttm_delay_at(site, ns);
		__asm__ volatile("" ::: "memory");
	}
	return (double)(testlib_now_raw_ns() - t0) / (double)iters;
}

int main(int argc, char **argv)
{
	struct bench_metric *added[NDELAYS], *ratio[NDELAYS], *fixed, *step;
	struct ttm_delay_site sites[NDELAYS];
	struct bench_run run;
	double fixed_ns, step_ns;
	int rc;

	rc = bench_setup(&run, "delay", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	bench_pin_thread(&run, 0);
	fixed = bench_metric_add(&run, "delay.calibration.fixed_ns", "ns", BENCH_LOWER_IS_BETTER);
	step = bench_metric_add(&run, "delay.calibration.step_ns", "ns", BENCH_LOWER_IS_BETTER);
	if (!fixed || !step) {
		bench_run_fini(&run);
		return 1;
	}
	for (unsigned d = 0; d < NDELAYS; d++) {
		char name[64];

		snprintf(name, sizeof(name), "delay.added.%uns", delays[d]);
		added[d] = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "delay.added.%uns.ratio", delays[d]);
		ratio[d] = bench_metric_add(&run, name, "x asked", BENCH_LOWER_IS_BETTER);
		atomic_init(&sites[d].steps, -1);
		if (!added[d] || !ratio[d]) {
			bench_run_fini(&run);
			return 1;
		}
	}
	ttm_delay_calibration(&fixed_ns, &step_ns);
	rc = bench_metric_sample(fixed, fixed_ns) | bench_metric_sample(step, step_ns);

	for (int r = -(int)run.opts.warmup; r < (int)run.opts.reps && !rc; r++) {
		bench_progress(&run, "delay",
			       (double)(r + (int)run.opts.warmup) /
				   (double)(run.opts.reps + run.opts.warmup));
		for (unsigned d = 0; d < NDELAYS; d++) {
			/* About 20 ms (2 with --quick) of calls per figure. */
			unsigned long iters =
			    (run.opts.quick ? 2000000ul : 20000000ul) / (delays[d] + 10);
			double base = rep_loop(&sites[d], 0, iters);
			double with = rep_loop(&sites[d], delays[d], iters);

			base = (base + rep_loop(&sites[d], 0, iters)) / 2;
			if (r < 0)
				continue;
			rc |= bench_metric_sample(added[d], with - base);
			rc |= bench_metric_sample(ratio[d], (with - base) / delays[d]);
		}
	}
	bench_progress_done(&run);
	if (rc) {
		bench_run_fini(&run);
		return 1;
	}
	for (unsigned d = 0; d < NDELAYS; d++) {
		bench_metric_target(ratio[d], 1.1, BENCH_TARGET_AT_MOST);
		bench_metric_label(ratio[d], "target", "0.9 to 1.1 of the asked delay");
	}
	return bench_run_finish(&run);
}
