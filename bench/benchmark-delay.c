// SPDX-License-Identifier: MIT
/*
 * benchmark-delay: does the regression knob add what it says?
 *
 * Builds with -Dvalidate_delay_ns, -Dfence_delay_ns or -Devict_delay_ns
 * delay every validate, fence signal or eviction with ttm_delay_after()
 * (ttm/ttm_delay.c): the known slowdown the comparison tools are tested
 * against. A test of sensitivity ("a 3% slowdown is flagged") is only as
 * good as the 3%: this program measures, per asked delay T (1, 2, 3, 5, 10,
 * 30, 100, 300, 1000 and 3000 ns), what one use adds to a loop shaped like
 * the paths the knobs sit on (take a lock with an atomic exchange, load the
 * object's state, the use, follow two pointers from the object, release),
 * which is not the walk the calibration measures:
 *
 *   delay.added.<T>ns        ns per use of a T ns delay minus ns per
 *                            iteration of the same loop without the use
 *   delay.added.<T>ns.ratio  that over T
 *   delay.added.<T>ns.error  |ratio - 1| (target: at most 0.1, from 1 ns up)
 *
 * The loops with and without the use alternate in every repetition, so
 * drift weighs on both; the figure is the median over repetitions. The
 * fitted calibration (delay.calibration.fixed_ns, .step_ns) is recorded
 * beside.
 */
#include "ttm_config.h"

#include <bench.h>
#include <ttm/ttm_delay.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static const unsigned delays[] = {1, 2, 3, 5, 10, 30, 100, 300, 1000, 3000};
#define NDELAYS (sizeof(delays) / sizeof(delays[0]))

/* The object a path works on: a lock, its state, two pointers to follow. */
struct rep_obj {
	_Atomic unsigned lock;
	unsigned state;
	struct rep_obj *next;
	struct rep_obj *peer;
};

/* The path the knob sits in; @ns 0 is the path without the use. */
static __attribute__((noinline)) double rep_loop(struct ttm_delay_site *site, uint64_t ns,
						 struct rep_obj *obj, unsigned long iters)
{
	uint64_t t0 = testlib_now_raw_ns();
	unsigned sum = 0;

	for (unsigned long i = 0; i < iters; i++) {
		struct rep_obj *o = obj;

		while (atomic_exchange_explicit(&o->lock, 1, memory_order_acquire))
			;
		if (ns)
			o = (struct rep_obj *)ttm_delay_on(site, ns, (uintptr_t)o, o->state);
		sum += o->next->peer->state;
		atomic_store_explicit(&obj->lock, 0, memory_order_release);
	}
	__asm__ volatile("" ::"r"(sum));
	return (double)(testlib_now_raw_ns() - t0) / (double)iters;
}

int main(int argc, char **argv)
{
	struct bench_metric *added[NDELAYS], *ratio[NDELAYS], *error[NDELAYS], *fixed, *step;
	struct ttm_delay_site sites[NDELAYS];
	struct rep_obj objs[2] = {{.state = 1}, {.state = 2}};
	struct bench_run run;
	double fixed_ns, step_ns;
	int rc;

	objs[0].next = &objs[1];
	objs[1].next = &objs[0];
	objs[0].peer = &objs[1];
	objs[1].peer = &objs[0];
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
		snprintf(name, sizeof(name), "delay.added.%uns.error", delays[d]);
		error[d] = bench_metric_add(&run, name, "x asked", BENCH_LOWER_IS_BETTER);
		sites[d] = (struct ttm_delay_site)TTM_DELAY_SITE_INIT;
		if (!added[d] || !ratio[d] || !error[d]) {
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
			double base = rep_loop(&sites[d], 0, objs, iters);
			double with = rep_loop(&sites[d], delays[d], objs, iters);

			base = (base + rep_loop(&sites[d], 0, objs, iters)) / 2;
			if (r < 0)
				continue;
			rc |= bench_metric_sample(added[d], with - base);
			rc |= bench_metric_sample(ratio[d], (with - base) / delays[d]);
			rc |= bench_metric_sample(error[d], fabs((with - base) / delays[d] - 1));
		}
	}
	bench_progress_done(&run);
	if (rc) {
		bench_run_fini(&run);
		return 1;
	}
	for (unsigned d = 0; d < NDELAYS; d++) {
		bench_metric_target(error[d], 0.1, BENCH_TARGET_AT_MOST);
		bench_metric_label(error[d], "target", "within 10% of the asked delay");
	}
	return bench_run_finish(&run);
}
