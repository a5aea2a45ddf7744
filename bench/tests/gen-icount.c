// SPDX-License-Identifier: MIT
/*
 * gen-icount - a stand-in benchmark whose one metric's timed region runs a
 * known number of instructions per operation, for the tests of the
 * per-metric instruction axis (bench_icount_start/stop, and
 * `ttm-compare --run --instructions`).
 *
 *   <tree>/bench/benchmark-gen [the harness's options]
 *
 * where benchmark-gen is a symbolic link to this program and the file
 * <tree>/icount-factor holds a factor F (1.0 when absent): each operation
 * of gen.work is a chain of round(1000 F) dependent additions, so F 1.01 is
 * a build whose code runs 1% more instructions on that path. Under
 * callgrind (with TTM_BENCH_CALLGRIND_OUT) the results carry gen.work's
 * instructions per operation; outside it, only its time.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct work {
	struct bench_metric *m;
	unsigned long steps;
	unsigned long ops;
};

static __attribute__((noinline)) uint64_t op(unsigned long steps)
{
	uint64_t x = 0;

	for (unsigned long i = 0; i < steps; i++) {
		x += i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static int work_rep(void *arg, int rep, double *value)
{
	struct work *w = arg;
	uint64_t sink = 0, t0;

	(void)rep;
	bench_icount_start();
	t0 = testlib_now_raw_ns();
	for (unsigned long i = 0; i < w->ops; i++)
		sink += op(w->steps);
	*value = (double)(testlib_now_raw_ns() - t0) / (double)w->ops;
	__asm__ volatile("" : : "r"(sink)); /* the chains' results are used */
	return bench_icount_stop(w->m, w->ops) ? -EIO : 0;
}

/* F from <dir of argv[0]>/../icount-factor, 1.0 when there is none. */
static double factor(const char *argv0)
{
	char copy[PATH_MAX], path[PATH_MAX + 32];
	double f = 1.0;
	FILE *fp;

	snprintf(copy, sizeof(copy), "%s", argv0);
	snprintf(path, sizeof(path), "%s/../icount-factor", dirname(copy));
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%lf", &f) != 1 || !(f > 0.5 && f < 2))
			f = 1.0;
		fclose(fp);
	}
	return f;
}

int main(int argc, char **argv)
{
	struct bench_run run;
	struct work w;
	int rc;

	rc = bench_setup(&run, "gen", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	w.steps = (unsigned long)lround(1000.0 * factor(argv[0]));
	w.ops = run.opts.quick ? 2000 : 20000;
	w.m = bench_metric_add(&run, "gen.work", "ns", BENCH_LOWER_IS_BETTER);
	if (!w.m) {
		bench_run_fini(&run);
		return 1;
	}
	/* No parameter names the step count: A and B run the same workload. */
	rc = bench_repeat(&run, w.m, work_rep, &w);
	if (rc) {
		fprintf(stderr, "gen-icount: %s\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
