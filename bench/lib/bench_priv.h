/* SPDX-License-Identifier: MIT */
/*
 * bench_priv.h - the harness's private state, shared by bench_run.c (which
 * builds it) and bench_results.c (which serialises it). Not for benchmarks.
 * Everything here belongs to the controlling thread (see bench.h).
 */
#ifndef BENCH_PRIV_H
#define BENCH_PRIV_H

#include "bench.h"

/* Format a one-line error message into @err/@errlen (no-op when @err is NULL). */
void bench_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * struct bench_kv - one key -> value string (parameters, labels).
 * @key: owned copy.
 * @value: owned copy.
 */
struct bench_kv {
	char *key;
	char *value;
};

/**
 * struct bench_kvs - growable array of &struct bench_kv, insertion order kept
 * (the JSON and the matching key in ttm-compare sort their own copies).
 * @v: entries.
 * @n: used.
 * @cap: allocated.
 */
struct bench_kvs {
	struct bench_kv *v;
	size_t n;
	size_t cap;
};

/**
 * struct bench_metric - one measured figure.
 * @run: owning run (for the bootstrap seed).
 * @name: stable name (owned).
 * @unit: unit string (owned).
 * @dir: which way is better.
 * @hist: the histogram of a histogram metric, NULL for a sample metric.
 * @samples: raw samples of a sample metric (all of them; the JSON keeps at
 *           most BENCH_SAMPLES_STORED_MAX).
 * @nsamples: used entries of @samples.
 * @cap: allocated entries of @samples.
 * @has_ref: bench_metric_reference() was called.
 * @ref: the reference.
 * @form: how the ratio is formed.
 * @has_target: bench_metric_target() was called.
 * @target: target value.
 * @cmp: how the value is compared with @target.
 * @labels: informational labels.
 * @icount: instructions per operation of each timed region counted under
 *          callgrind (bench_icount_stop()); none outside callgrind.
 * @nicount: used entries of @icount.
 * @icount_cap: allocated entries of @icount.
 */
struct bench_metric {
	struct bench_run *run;
	char *name;
	char *unit;
	enum bench_direction dir;
	struct bench_hist *hist;
	struct bench_hist *round;
	double *samples;
	size_t nsamples;
	size_t cap;
	bool has_ref;
	enum bench_ref_id ref;
	enum bench_ratio_form form;
	bool has_target;
	double target;
	enum bench_target_cmp cmp;
	bool platform;
	const struct bench_metric *bound;
	struct bench_kvs labels;
	double *icount;
	size_t nicount;
	size_t icount_cap;
};

/**
 * struct bench_output - where the results file goes, prepared before measuring.
 * @fd: the open temporary file, -1 when none is prepared.
 * @tmp: its name ("<base>.tmp.<pid>", owned), NULL when none.
 * @base: the final name, or in a directory the name without ".json" to which
 *        "-2", "-3", ... are added on a collision (owned).
 * @in_dir: --out named a directory (or was not given): collisions get a
 *          suffix; otherwise an existing file makes the write fail.
 */
struct bench_output {
	int fd;
	char *tmp;
	char *base;
	bool in_dir;
};

/**
 * struct bench_series - a time series: rows of (t, values[ncols]).
 * @name: owned.
 * @columns: owned copies of the column names.
 * @ncols: value columns per row.
 * @rows: row-major, (1 + ncols) doubles per row.
 * @nrows: used rows.
 * @cap: allocated rows.
 */
struct bench_series {
	char *name;
	char **columns;
	unsigned ncols;
	double *rows;
	size_t nrows;
	size_t cap;
};

/**
 * struct bench_run_priv - what struct bench_run hides.
 * @params: benchmark parameters (matching key).
 * @backend_params: back-end parameters (informational).
 * @metrics: metrics in creation order.
 * @nmetrics: used.
 * @series: series in creation order.
 * @nseries: used.
 * @phase: current progress phase (owned) or NULL.
 * @phase_start_ns: when @phase began.
 * @last_progress_ns: when the last progress line was drawn.
 * @progress_shown: a progress line is on the terminal.
 */
struct bench_run_priv {
	struct bench_kvs params;
	struct bench_kvs backend_params;
	struct bench_metric **metrics;
	size_t nmetrics;
	struct bench_series **series;
	size_t nseries;
	char *phase;
	uint64_t phase_start_ns;
	uint64_t last_progress_ns;
	bool progress_shown;
	cpu_set_t allowed;
	struct bench_output out;
};

/**
 * bench_output_prepare() - make sure the results file can be written before
 * anything is measured: resolve --out (or the current directory), refuse an
 * existing non-directory, sweep stale "*.json.tmp.PID" files of processes
 * that are gone from the target directory (one line on stderr for each),
 * and create this run's temporary file exclusively in it.
 * @r: the run (opts.out and name are read; priv->out is filled).
 * @err: one-line message on failure.
 * @errlen: size of @err.
 *
 * Return: 0; -EEXIST (the file exists), -ENOTDIR, -EACCES, -EROFS, ...
 * from the file system; -ENOMEM.
 */
int bench_output_prepare(struct bench_run *r, char *err, size_t errlen);

/** bench_output_release() - close and remove an unpublished temporary file. */
void bench_output_release(struct bench_output *o);

/**
 * bench_metric_ratio() - the ratio of @m's median @value to its reference.
 * Return: true with *@ratio set, false when there is no measured reference.
 */
bool bench_metric_ratio(const struct bench_metric *m, double value, double *ratio);

/** bench_metric_passes() - @value meets @m's target (only when has_target). */
bool bench_metric_passes(const struct bench_metric *m, double value);

/**
 * bench_push_double() - append @x to the growable array *@v of *@n used and
 * *@cap allocated entries (doubling from 16).
 * @v: the array (may be NULL while *@cap is 0).
 * @n: used entries.
 * @cap: allocated entries.
 * @x: the value.
 *
 * Return: 0, or -ENOMEM with the array unchanged.
 */
int bench_push_double(double **v, size_t *n, size_t *cap, double x);

#endif /* BENCH_PRIV_H */
