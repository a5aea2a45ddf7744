// SPDX-License-Identifier: MIT
/*
 * gen-results - write a synthetic results file for the ttm-compare tests.
 *
 *   gen-results OUT.json SCALE SEED [malformed|schema|othermachine|refscale=R|
 *                                    histscale=H|rounds|bench=NAME|floor=F]...
 *
 * Two metrics (a latency from 10 samples with 1% noise, and a histogram
 * latency), both scaled by SCALE, so SCALE 1.2 is "20% slower", related to a
 * syscall reference that is scaled by R (default SCALE: a uniformly slower
 * machine, the ratios stay put; refscale=1 with SCALE 1.2 is the code that got
 * 20% slower on an unchanged machine). A mutex reference, used by no metric,
 * is scaled by 1.05 R: machines never drift quite uniformly. "malformed"
 * writes truncated JSON, "schema" a file with schema_version 99,
 * "othermachine" a different machine id. "histscale=H" scales the histogram
 * alone by H more; "rounds" records it in five rounds (bench_run_round_end())
 * whose values are scaled by 0.85, 1.15, 1.0, 0.9 and 1.1: a figure that moves
 * by 15% either way over one run, as they do on a shared machine.
 * "bench=NAME" names the benchmark NAME instead of "gen" (its metrics then
 * match nothing of gen's; its references still join its side's).
 * "floor=F" adds gen.floor, a platform metric (10 samples around 2000 x F),
 * and makes it the bound of both latencies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return 1;
	fputs(text, f);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_metric *m, *h;
	struct bench_run r;
	char err[128];
	char *pargv[] = {"gen-results", "--quick", NULL};
	uint64_t rng;
	static const double round_scale[] = {0.85, 1.15, 1.0, 0.9, 1.1};
	double scale, refscale, histscale = 1.0;
	unsigned rounds = 1;
	const char *bench = "gen";
	double floor = 0.0;
	int i, rc;

	if (argc < 4)
		return 2;
	if (argc > 4 && !strcmp(argv[4], "malformed"))
		return write_text(
		    argv[1], "{\"schema\": \"ttm-bench-results\", \"schema_version\": 1, \"metr");
	if (argc > 4 && !strcmp(argv[4], "schema"))
		return write_text(argv[1],
				  "{\"schema\": \"ttm-bench-results\", \"schema_version\": 99, "
				  "\"benchmark\": \"gen\", \"machine\": {}, \"metrics\": []}\n");
	scale = strtod(argv[2], NULL);
	refscale = scale;
	for (i = 4; i < argc; i++)
		if (!strncmp(argv[i], "refscale=", 9))
			refscale = strtod(argv[i] + 9, NULL);
		else if (!strncmp(argv[i], "histscale=", 10))
			histscale = strtod(argv[i] + 10, NULL);
		else if (!strcmp(argv[i], "rounds"))
			rounds = 5;
		else if (!strncmp(argv[i], "bench=", 6))
			bench = argv[i] + 6;
		else if (!strncmp(argv[i], "floor=", 6))
			floor = strtod(argv[i] + 6, NULL);
	rng = strtoull(argv[3], NULL, 10) | 1;
	if (bench_options_parse(&o, 2, pargv, NULL, NULL, err, sizeof(err)) ||
	    bench_run_init(&r, bench, &o))
		return 1;
	bench_run_param(&r, "size", "%s", "64k");
	for (i = 4; i < argc; i++)
		if (!strcmp(argv[i], "othermachine"))
			snprintf(r.machine.id, sizeof(r.machine.id), "00000000deadbeef");
	/* A fixed reference instead of a measured one: the test needs exact ratios. */
	r.refs[BENCH_REF_SYSCALL].measured = true;
	r.refs[BENCH_REF_SYSCALL].stats = (struct bench_stats){
	    .n = 1,
	    .min = 100 * refscale,
	    .median = 100 * refscale,
	    .max = 100 * refscale,
	    .mean = 100 * refscale,
	    .ci_lo = 100 * refscale,
	    .ci_hi = 100 * refscale,
	};
	r.refs[BENCH_REF_MUTEX].measured = true;
	r.refs[BENCH_REF_MUTEX].stats = (struct bench_stats){
	    .n = 1,
	    .min = 10 * refscale * 1.05,
	    .median = 10 * refscale * 1.05,
	    .max = 10 * refscale * 1.05,
	    .mean = 10 * refscale * 1.05,
	    .ci_lo = 10 * refscale * 1.05,
	    .ci_hi = 10 * refscale * 1.05,
	};
	m = bench_metric_add(&r, "gen.latency", "ns", BENCH_LOWER_IS_BETTER);
	h = bench_metric_add(&r, "gen.hist", "ns", BENCH_LOWER_IS_BETTER);
	if (!m || !h || bench_metric_use_hist(h)) {
		bench_run_fini(&r);
		return 1;
	}
	bench_metric_reference(m, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(h, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	if (floor > 0.0) {
		struct bench_metric *f =
		    bench_metric_add(&r, "gen.floor", "ns", BENCH_LOWER_IS_BETTER);

		if (!f) {
			bench_run_fini(&r);
			return 1;
		}
		bench_metric_platform(f);
		bench_metric_bound(m, f);
		bench_metric_bound(h, f);
		for (i = 0; i < 10; i++)
			bench_metric_sample(f, 2000.0 * floor * (1.0 + 0.001 * i));
	}
	for (i = 0; i < 10; i++) {
		double noise = (double)(prng_step(&rng) % 2001) / 100000.0 - 0.01;

		bench_metric_sample(m, 1000.0 * scale * (1.0 + noise));
	}
	for (unsigned k = 0; k < rounds; k++) {
		double f = scale * histscale * (rounds > 1 ? round_scale[k] : 1.0);

		for (i = 0; i < 20000 / (int)rounds; i++)
			bench_metric_record(
			    h, (uint64_t)(f * (double)(5000 + prng_step(&rng) % 1000)));
		if (rounds > 1 && bench_run_round_end(&r)) {
			bench_run_fini(&r);
			return 1;
		}
	}
	rc = bench_run_write(&r, argv[1], NULL);
	bench_run_fini(&r);
	return rc ? 1 : 0;
}
