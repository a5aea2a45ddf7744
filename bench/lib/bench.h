/* SPDX-License-Identifier: MIT */
/*
 * bench - the harness every benchmark-*.c program links (meson: bench_dep).
 *
 * A benchmark does, in order:
 *
 *	struct bench_run run;
 *	int rc = bench_setup(&run, "validate", argc, argv, my_opts, my_ctx);
 *	if (rc)
 *		return bench_exit_code(rc);          // --help (0), bad option (2)
 *	bench_run_param(&run, "sizes", "%s", "4k,64k,1m");
 *	bench_run_backend_param(&run, "latency_ns", "%u", 500);
 *	bench_references_measure(&run);           // memcpy, futex, mutex, syscall, memfd
 *	m = bench_metric_add(&run, "validate.evict.64k", "ns", BENCH_LOWER_IS_BETTER);
 *	bench_metric_use_hist(m);                 // latency distribution
 *	bench_metric_reference(m, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
 *	bench_metric_target(m, 20000.0, BENCH_TARGET_AT_MOST);
 *	... bench_pin_thread(&run, i) in each worker, bench_metric_record(m, ns) ...
 *	return bench_run_finish(&run);            // JSON file + summary, exit code
 *
 * Everything here is single-threaded unless stated: a struct bench_run and its
 * metrics belong to the controlling thread. Worker threads record into their
 * own struct bench_hist and the controlling thread merges them with
 * bench_metric_merge_hist() after joining. testlib_now_raw_ns() and
 * bench_pin_thread() may be called from any thread.
 *
 * Errors are negative errno values; nothing here calls exit().
 * Results format: see results/README.md (schema version BENCH_SCHEMA_VERSION).
 */
#ifndef BENCH_H
#define BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <testlib/clock.h>
#include <testlib/prng.h>

#define BENCH_SCHEMA_NAME "ttm-bench-results"
#define BENCH_SCHEMA_VERSION 1

/* Raw samples are kept in the JSON file up to this many per metric. */
#define BENCH_SAMPLES_STORED_MAX 10000
/* Readers refuse a results file larger than this (a full run's file is about 1 MiB). */
#define BENCH_RESULTS_MAX_BYTES (64u << 20)
/* Readers refuse a metric value further than this from 0 (11.6 days in ns). */
#define BENCH_VALUE_MAX 1e15
/* Resamples of the bootstrap confidence intervals. */
#define BENCH_BOOTSTRAP_RESAMPLES 1000

/* Status values of bench_setup() besides 0 (run the benchmark). */
#define BENCH_SETUP_HELP 1  /* --help printed on stdout: exit 0 */
#define BENCH_SETUP_USAGE 2 /* one-line error printed on stderr: exit 2 */

/* ---------------------------------------------------------- statistics */

/**
 * struct bench_stats - summary of one metric's distribution.
 * @n: number of samples.
 * @min: smallest sample.
 * @median: 50th percentile (mean of the two middle samples for even @n).
 * @p90: 90th percentile.
 * @p99: 99th percentile.
 * @max: largest sample.
 * @mean: arithmetic mean.
 * @stddev: sample standard deviation (n - 1 denominator; 0 when n < 2).
 * @ci_lo: lower end of the 95% confidence interval of the median.
 * @ci_hi: upper end of the 95% confidence interval of the median.
 *
 * Percentiles of raw samples use linear interpolation between closest ranks
 * (the "R-7" / numpy default definition): p(q) = x[floor(h)] + frac(h) *
 * (x[floor(h)+1] - x[floor(h)]) with h = (n - 1) * q on sorted data.
 * Percentiles of a histogram are the representative value of the bucket that
 * holds the rank ceil(q * n), so they carry the histogram's relative error.
 */
struct bench_stats {
	uint64_t n;
	double min;
	double median;
	double p90;
	double p99;
	double max;
	double mean;
	double stddev;
	double ci_lo;
	double ci_hi;
};

/**
 * bench_percentile_sorted() - percentile @q (0..1) of ascending @v[0..n-1].
 *
 * Return: the interpolated value, or NAN when @n is 0.
 */
double bench_percentile_sorted(const double *v, size_t n, double q);

/**
 * bench_stats_compute() - statistics of @n samples (any order, not modified).
 * @v: the samples.
 * @n: how many.
 * @seed: seed of the bootstrap resampling (same seed, same interval).
 * @out: filled on success.
 *
 * The confidence interval of the median is a percentile bootstrap with
 * BENCH_BOOTSTRAP_RESAMPLES resamples (2.5% and 97.5% of the resampled
 * medians).
 *
 * Return: 0, -EINVAL when @n is 0, -ENOMEM.
 */
int bench_stats_compute(const double *v, size_t n, uint64_t seed, struct bench_stats *out);

/**
 * bench_bootstrap_medians() - medians of @nres bootstrap resamples of @n
 * ascending samples @sorted, drawn with prng_step(@rng), into @out
 * (unsorted). O(n) per resample. Shared by bench_stats_compute() and
 * ttm-compare's interval of a change.
 * Return: 0, -EINVAL when @n is 0, -ENOMEM.
 */
int bench_bootstrap_medians(const double *sorted, size_t n, uint64_t *rng, double *out,
			    size_t nres);

/*
 * Log-scaled histogram of non-negative integer values (nanoseconds, bytes).
 * Values below 2^BENCH_HIST_SUB_BITS land in exact buckets; above, each power
 * of two is split in 2^BENCH_HIST_SUB_BITS equal sub-buckets, so a bucket's
 * width is at most 1/2^BENCH_HIST_SUB_BITS of its lower bound: a recorded value
 * is represented by its bucket midpoint with a relative error below
 * BENCH_HIST_REL_ERROR. Covers 0 .. 2^63.
 */
#define BENCH_HIST_SUB_BITS 6
#define BENCH_HIST_SUB (1u << BENCH_HIST_SUB_BITS)
#define BENCH_HIST_BUCKETS ((64 - BENCH_HIST_SUB_BITS + 1) * BENCH_HIST_SUB)
#define BENCH_HIST_REL_ERROR (1.0 / (2.0 * BENCH_HIST_SUB))

/**
 * struct bench_hist - mergeable latency histogram (about 30 KiB, no allocation).
 * @counts: per-bucket counts, index from bench_hist_bucket().
 * @n: total values recorded.
 * @min: smallest value recorded (exact), UINT64_MAX when empty.
 * @max: largest value recorded (exact), 0 when empty.
 * @sum: sum of the values as a double (for the mean; exact up to 2^53).
 * @sumsq: sum of squares as a double (for the standard deviation).
 *
 * Not thread-safe: give each thread its own and merge after joining.
 */
struct bench_hist {
	uint64_t counts[BENCH_HIST_BUCKETS];
	uint64_t n;
	uint64_t min;
	uint64_t max;
	double sum;
	double sumsq;
};

/** bench_hist_init() - empty @h. */
void bench_hist_init(struct bench_hist *h);
/** bench_hist_bucket() - bucket index of value @v. */
unsigned bench_hist_bucket(uint64_t v);
/** bench_hist_bucket_lo() - smallest value of bucket @i. */
uint64_t bench_hist_bucket_lo(unsigned i);
/** bench_hist_bucket_mid() - representative (midpoint) value of bucket @i. */
double bench_hist_bucket_mid(unsigned i);
/** bench_hist_record() - add one value. */
void bench_hist_record(struct bench_hist *h, uint64_t v);
/** bench_hist_record_n() - add @count copies of @v (used to reload buckets). */
void bench_hist_record_n(struct bench_hist *h, uint64_t v, uint64_t count);
/** bench_hist_merge() - add every count of @src into @dst. */
void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src);
/**
 * bench_hist_percentile() - value at percentile @q (0..1): the midpoint of the
 * bucket holding rank ceil(q * n), clamped to [min, max]. NAN when empty.
 */
double bench_hist_percentile(const struct bench_hist *h, double q);
/**
 * bench_hist_stats() - statistics of @h into @out.
 *
 * The median's 95% interval is the distribution-free order-statistic interval
 * (ranks n/2 -+ 1.96 sqrt(n)/2, the binomial normal approximation), read from
 * the buckets: bootstrapping millions of values would cost seconds and gives
 * the same answer at that size.
 *
 * Return: 0, -EINVAL when @h is empty.
 */
int bench_hist_stats(const struct bench_hist *h, struct bench_stats *out);

/* ------------------------------------------------------------ options */

/** enum bench_backend - which GPU back end the benchmark drives (--backend). */
enum bench_backend {
	BENCH_BACKEND_SIM,
	BENCH_BACKEND_HW,
	BENCH_BACKEND_CORE,
};

#define BENCH_MAX_CPUS 256
/* Upper bounds of --threads, --reps / --warmup and --duration: a larger value is a typo. */
#define BENCH_MAX_THREADS BENCH_MAX_CPUS
#define BENCH_MAX_REPS 100000
#define BENCH_MAX_DURATION_S 3600

/**
 * struct bench_options - the options every benchmark accepts.
 * @reps: measured repetitions (--reps N, default 10; 3 with --quick).
 * @warmup: unmeasured repetitions first (--warmup N, default 2; 1 with --quick).
 * @duration_s: time budget of one repetition in seconds for time-bounded
 *              loops (--duration S, default 1.0; 0.2 with --quick).
 * @quick: --quick given (CI smoke: small sizes, short runs).
 * @out: --out FILE.json or DIR (a directory gets <bench>-<machine>-<utc>.json);
 *       NULL: the current directory.
 * @cpus: --cpus LIST ("0,2,4-7"): the logical CPU (PU) numbers threads are
 *        pinned to, in order; empty: one thread per core, spread.
 * @ncpus: entries in @cpus.
 * @threads: --threads N (default 1); must not exceed @ncpus when --cpus given.
 * @backend: --backend=sim|hw|core (default sim). core is the TTM core
 *           through the benchmarks' mock driver (bench_mockdev), without
 *           the i915 driver; programs with no core path treat it as sim.
 * @seed: --seed N (default 1): seeds workloads and the bootstrap.
 * @reps_set: --reps given explicitly (it wins over --quick).
 * @warmup_set: --warmup given explicitly.
 * @duration_set: --duration given explicitly.
 * @threads_set: --threads given explicitly.
 *
 * Both "--opt value" and "--opt=value" are accepted.
 */
struct bench_options {
	unsigned reps;
	unsigned warmup;
	double duration_s;
	bool quick;
	const char *out;
	unsigned cpus[BENCH_MAX_CPUS];
	unsigned ncpus;
	unsigned threads;
	enum bench_backend backend;
	uint64_t seed;
	bool reps_set;
	bool warmup_set;
	bool duration_set;
	bool threads_set;
};

/**
 * struct bench_opt - one benchmark-specific option (table ends with .name NULL).
 * @name: long name without the dashes ("pattern" for --pattern).
 * @arg: name of the value in --help ("LRU|RANDOM"); NULL for a flag.
 * @help: one line of help.
 * @set: called with the value (NULL for a flag) and the caller's context.
 *       Return 0, or -EINVAL after writing a short reason into @err (at most
 *       @errlen bytes); the parser prefixes it with the option name.
 */
struct bench_opt {
	const char *name;
	const char *arg;
	const char *help;
	int (*set)(void *ctx, const char *arg, char *err, size_t errlen);
};

/**
 * bench_options_parse() - fill @o from the command line.
 * @o: output, fully initialised (defaults applied) on return 0.
 * @argc, @argv: as given to main().
 * @extra: benchmark-specific options or NULL.
 * @ctx: passed to each @extra->set.
 * @err: receives a one-line message naming the problem on -EINVAL.
 * @errlen: size of @err.
 *
 * Rejected: unknown options, positional arguments, missing or malformed
 * values (every number is checked whole: no sign, no leading blanks, no
 * trailing characters, no overflow), --reps 0, --threads 0, --duration <= 0
 * or not finite, values above BENCH_MAX_THREADS, BENCH_MAX_REPS and
 * BENCH_MAX_DURATION_S, a --cpus list with
 * duplicates or ranges going backwards, --threads larger than the --cpus list,
 * --backend other than sim/hw.
 *
 * Return: 0; BENCH_SETUP_HELP when --help was seen (nothing printed);
 * -EINVAL with @err filled.
 */
int bench_options_parse(struct bench_options *o, int argc, char **argv,
			const struct bench_opt *extra, void *ctx, char *err, size_t errlen);

/** bench_options_usage() - print the --help text (common + @extra) to @f. */
void bench_options_usage(FILE *f, const char *prog, const char *bench_name,
			 const struct bench_opt *extra);

/**
 * bench_parse_uint() - parse decimal @s whole into *@out: digits only (no sign,
 * blank or trailing text), no overflow, within [@min, @max]. For programs with
 * options of their own beside the harness's.
 * Return: 0, or -EINVAL (nothing stored).
 */
int bench_parse_uint(const char *s, unsigned min, unsigned max, unsigned *out);

/** bench_parse_u64() - bench_parse_uint() for 64-bit values. */
int bench_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * bench_parse_cpu_list() - parse "0,2,4-7" into @cpus (at most @max entries).
 * Return: number of entries, or -EINVAL (empty item, bad number, backwards
 * range, duplicate, too many).
 */
int bench_parse_cpu_list(const char *s, unsigned *cpus, unsigned max);

/* ------------------------------------------------------------ machine */

/**
 * struct bench_machine - description of the machine recorded in every result.
 * @id: stable machine id, 16 hex digits: FNV-1a of CPU model, core count,
 *      PU count, RAM rounded to GiB, CPU signature and the three cache
 *      sizes. Names results/baselines/<id>/.
 * @hostname: gethostname().
 * @cpu_model: "model name" of /proc/cpuinfo (or "unknown").
 * @cpu_signature: "x86 <family>/<model>/<stepping>" or "arm <implementer>/
 *      <part>/<variant>" of the first processor in /proc/cpuinfo ("-" for a
 *      field it lacks), or "unknown": a guest's model name may hide the part.
 * @kernel: uname release ("6.1.0-18-amd64").
 * @arch: uname machine ("x86_64").
 * @packages: processor packages (hwloc; 1 without hwloc).
 * @cores: physical cores (hwloc; online CPUs without it).
 * @pus: logical CPUs (hardware threads).
 * @numa_nodes: NUMA nodes (hwloc; 1 without it).
 * @l1d_bytes: L1 data cache of the first core (0 when unknown).
 * @l2_bytes: L2 cache of the first core (0 when unknown).
 * @l3_bytes: last-level cache of the first package (0 when unknown).
 * @ram_bytes: physical memory.
 * @have_hwloc: the topology came from hwloc.
 * @topo: the loaded hwloc topology (hwloc_topology_t) or NULL; private.
 */
struct bench_machine {
	char id[17];
	char hostname[64];
	char cpu_model[128];
	char cpu_signature[64];
	char kernel[64];
	char arch[32];
	unsigned packages;
	unsigned cores;
	unsigned pus;
	unsigned numa_nodes;
	uint64_t l1d_bytes;
	uint64_t l2_bytes;
	uint64_t l3_bytes;
	uint64_t ram_bytes;
	bool have_hwloc;
	void *topo;
};

/** bench_machine_probe() - fill @m (loads the hwloc topology). Return 0 or -errno. */
int bench_machine_probe(struct bench_machine *m);
/** bench_machine_fini() - release what bench_machine_probe() took. */
void bench_machine_fini(struct bench_machine *m);

/* --------------------------------------------------------- references */

/**
 * enum bench_ref_id - reference figures measured by the harness in the same
 * run, so a result can be read relative to what this machine does anyway.
 * @BENCH_REF_MEMCPY_BW: copy of a buffer 4x the last-level cache (at least
 *                       64 MiB; 16 MiB with --quick), the faster of memcpy()
 *                       and a streaming copy (drm_memcpy_stream()) per
 *                       repetition, GB/s, higher is better.
 * @BENCH_REF_FUTEX_RTT: two threads ping-pong through FUTEX_WAIT/FUTEX_WAKE,
 *                       ns per round trip, lower is better.
 * @BENCH_REF_MUTEX: uncontended pthread_mutex_lock + unlock, ns.
 * @BENCH_REF_SYSCALL: syscall(SYS_getppid), ns.
 * @BENCH_REF_MEMFD_WRITE_BW: pwrite of 1 MiB blocks into a memfd, GB/s.
 * @BENCH_REF_CLOCK: clock_gettime(CLOCK_MONOTONIC), ns: what the timestamp
 *                   of every dma_fence_signal() costs. A bare TSC read on
 *                   one machine, a paravirtual clock page on another (28 ns
 *                   on a PVM guest with kvm-clock), which no code of ours
 *                   can make cheaper.
 * @BENCH_REF_COUNT: number of references.
 */
enum bench_ref_id {
	BENCH_REF_MEMCPY_BW,
	BENCH_REF_FUTEX_RTT,
	BENCH_REF_MUTEX,
	BENCH_REF_SYSCALL,
	BENCH_REF_MEMFD_WRITE_BW,
	BENCH_REF_CLOCK,
	BENCH_REF_COUNT,
};

/** enum bench_direction - which way a figure is better. */
enum bench_direction {
	BENCH_LOWER_IS_BETTER,
	BENCH_HIGHER_IS_BETTER,
};

/**
 * struct bench_reference - one measured reference.
 * @name: "memcpy_bw", "futex_rtt", "mutex_lock_unlock", "syscall_getppid",
 *        "memfd_write_bw", "clock_gettime".
 * @unit: "GB/s" or "ns".
 * @direction: which way is better.
 * @stats: statistics over the repetitions; @stats.median is the value used.
 * @measured: false until bench_references_measure() succeeded for it.
 */
struct bench_reference {
	const char *name;
	const char *unit;
	enum bench_direction direction;
	struct bench_stats stats;
	bool measured;
};

/* ------------------------------------------------------------ metrics */

/**
 * enum bench_ratio_form - how a metric's ratio to its reference is formed.
 * @BENCH_RATIO_VALUE_OVER_REF: ratio = value / reference ("value/reference"),
 *	e.g. validate latency in units of a syscall.
 * @BENCH_RATIO_REF_OVER_VALUE: ratio = reference / value ("reference/value"),
 *	e.g. memcpy bandwidth over eviction bandwidth.
 */
enum bench_ratio_form {
	BENCH_RATIO_VALUE_OVER_REF,
	BENCH_RATIO_REF_OVER_VALUE,
};

/** enum bench_target_cmp - how the value is compared with its target. */
enum bench_target_cmp {
	BENCH_TARGET_AT_MOST,  /* pass when value <= target ("<=") */
	BENCH_TARGET_AT_LEAST, /* pass when value >= target (">=") */
};

struct bench_metric;
struct bench_series;

/**
 * struct bench_run - one benchmark run: options, machine, references,
 * parameters, metrics and series. Embedded by the caller; bench_setup()
 * initialises it, bench_run_finish() or bench_run_fini() releases it.
 * @name: benchmark name ("validate", "eviction", "fence", "pagelimit").
 * @opts: parsed options.
 * @machine: probed machine.
 * @refs: references, indexed by enum bench_ref_id.
 * @started_ns: testlib_now_raw_ns() at setup.
 * @started_unix: wall clock at setup (for the file name and "started_utc").
 * @priv: private state (parameters, metrics, series, progress).
 */
struct bench_run {
	const char *name;
	struct bench_options opts;
	struct bench_machine machine;
	struct bench_reference refs[BENCH_REF_COUNT];
	uint64_t started_ns;
	int64_t started_unix;
	struct bench_run_priv *priv;
};

/**
 * bench_setup() - parse options, probe the machine and initialise @r.
 * @r: the run (caller-embedded).
 * @name: benchmark name, a stable identifier (matched by ttm-compare).
 * @argc, @argv, @extra, @ctx: as bench_options_parse().
 *
 * Prints --help on stdout or the one-line error on stderr itself. A TTM_FAULTS
 * string that does not parse is a usage error too (its line is printed by
 * fault_init_from_env()). Checks
 * what needs the machine: every --cpus entry must be a CPU this process may
 * run on. Then prepares the results file (bench_output_prepare(): stale
 * temporary files swept, this run's created exclusively), so an unwritable
 * or occupied --out fails before anything is measured.
 *
 * Return: 0 to go on; BENCH_SETUP_HELP or BENCH_SETUP_USAGE (nothing to free);
 * -errno when the machine probe, an allocation or the output failed (@r not
 * initialised).
 */
int bench_setup(struct bench_run *r, const char *name, int argc, char **argv,
		const struct bench_opt *extra, void *ctx);

/** bench_exit_code() - map bench_setup()'s non-zero return to main()'s exit status. */
static inline int bench_exit_code(int setup_rc)
{
	return setup_rc == BENCH_SETUP_HELP ? 0 : setup_rc == BENCH_SETUP_USAGE ? 2 : 1;
}

/**
 * bench_run_init() - initialise @r from already-parsed @opts (no argv; for
 * tests and tools). Return 0 or -errno.
 */
int bench_run_init(struct bench_run *r, const char *name, const struct bench_options *opts);

/** bench_run_fini() - free everything @r holds (metrics, series, topology). */
void bench_run_fini(struct bench_run *r);

/**
 * bench_run_param() - record a benchmark parameter (key -> printf value).
 * Parameters identify a configuration: ttm-compare only matches results whose
 * benchmark name and parameters are equal. Setting a key again replaces it.
 * Return: 0, -ENOMEM, -EINVAL (empty key).
 */
int bench_run_param(struct bench_run *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * bench_run_backend_param() - record a back-end parameter (sim latency model,
 * render node, ...). Stored in the machine block; not used for matching.
 * Return: 0, -ENOMEM, -EINVAL.
 */
int bench_run_backend_param(struct bench_run *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * bench_references_measure() - measure every reference (about 1 s in total,
 * 0.2 s with --quick), pinned to the first CPU of the run (the futex
 * partner thread to the second); the caller's CPU affinity is restored after.
 * Return: 0, or the first error (the others are still measured; a failed
 * reference is reported as not measured and metrics using it get no ratio).
 */
int bench_references_measure(struct bench_run *r);

/**
 * bench_pin_thread() - pin the calling thread for worker @index.
 *
 * With --cpus, worker i goes to the i-th listed PU (modulo the list). Without,
 * workers are spread one per core (the first PU of core i modulo the cores),
 * so two workers share a core only when there are more workers than cores.
 * With hwloc the binding goes through hwloc_set_cpubind(HWLOC_CPUBIND_THREAD);
 * without hwloc, sched_setaffinity() to PU (index modulo online CPUs).
 * Any thread; the run must outlive the call.
 *
 * Return: 0, -EINVAL (a listed CPU does not exist), -errno of the binding.
 * Benchmarks may ignore the error (results stay valid, just noisier).
 */
int bench_pin_thread(struct bench_run *r, unsigned index);

/**
 * bench_device_cpus() - where a simulated device's threads belong while
 * workers 0..@nworkers-1 run pinned by bench_pin_thread(): every CPU the
 * process could use when the run started except theirs, so the "GPU" does
 * not time-slice with a client on its core while another core idles; all
 * of those CPUs when that leaves none. Threads inherit their creator's
 * affinity: set it around the device's creation (bench_simdev_open()).
 * Return: 0, -EINVAL for a worker's CPU that does not exist.
 */
int bench_device_cpus(struct bench_run *r, unsigned nworkers, cpu_set_t *set);

/**
 * bench_metric_add() - add a metric to @r.
 * @name: stable name; see results/README.md for the names plots expect
 *        ("validate.<case>.<size>", "evict.<pattern>.ws<pct>.throughput", ...).
 * @unit: unit string ("ns", "GB/s", "ops/s", "bytes").
 * @dir: which way is better.
 *
 * Return: the metric (owned by @r), or NULL on -ENOMEM or a duplicate name.
 */
struct bench_metric *bench_metric_add(struct bench_run *r, const char *name, const char *unit,
				      enum bench_direction dir);

/** bench_metric_find() - the metric of @r called @name, or NULL. */
struct bench_metric *bench_metric_find(struct bench_run *r, const char *name);

/**
 * bench_metric_use_hist() - switch @m to a histogram (call before recording).
 * Histogram metrics take integer values (bench_metric_record()) and are
 * stored as buckets. Return 0, -ENOMEM, -EBUSY when samples exist.
 */
int bench_metric_use_hist(struct bench_metric *m);

/**
 * bench_run_round_end() - end a round of every histogram metric of @r.
 *
 * A histogram's median interval comes from its order statistics: with 10^5
 * values it is a few tenths of a percent wide, and says how well this run's
 * median is known, not how far the next run's will be (on a shared machine,
 * 10-30% for the same build). A benchmark that measures its cases in rounds
 * spread over the run (every case once per round) calls this after each
 * round: for each histogram metric that recorded values since the previous
 * call, the median of those values becomes one round median. They are
 * written as "round_medians" beside the histogram, and ttm-compare judges
 * the metric by their bootstrap instead. The histogram keeps every value.
 * Return 0 or -ENOMEM (the rounds so far stay).
 */
int bench_run_round_end(struct bench_run *r);

/**
 * bench_metric_sample() - add one sample (one repetition's figure) to a sample
 * metric. Return 0, -ENOMEM, -EINVAL (histogram metric or non-finite value).
 */
int bench_metric_sample(struct bench_metric *m, double v);

/**
 * bench_metric_record() - add one integer value: into the histogram of a
 * histogram metric, as a sample otherwise. Return as bench_metric_sample().
 */
int bench_metric_record(struct bench_metric *m, uint64_t v);

/**
 * bench_metric_merge_hist() - merge a worker's histogram into histogram
 * metric @m. Return 0 or -EINVAL (not a histogram metric).
 */
int bench_metric_merge_hist(struct bench_metric *m, const struct bench_hist *h);

/** bench_metric_reference() - relate @m to reference @ref, ratio formed as @form. */
void bench_metric_reference(struct bench_metric *m, enum bench_ref_id ref,
			    enum bench_ratio_form form);

/** bench_metric_target() - set a target; the summary and JSON show pass/miss. */
void bench_metric_target(struct bench_metric *m, double target, enum bench_target_cmp cmp);

/**
 * bench_metric_platform() - @m measures the machine, not the code: a floor
 * the platform sets (a copy into fresh pages, a PTE install), the kernel's
 * own cost of the same thing. Written as "platform": true; ttm-compare
 * shows its change and never calls it a regression.
 */
void bench_metric_platform(struct bench_metric *m);

/**
 * bench_metric_bound() - @m cannot be better than platform metric @bound
 * of the same run allows (its floor, measured in the same repetitions).
 * Written as "bound": "<name>"; ttm-compare widens @m's interval by how far
 * @bound moved between the runs, as it does by a reference's drift, so a
 * machine whose floor halved does not read as code that got twice slower.
 */
void bench_metric_bound(struct bench_metric *m, const struct bench_metric *bound);

/**
 * bench_metric_label() - attach a label (key -> value string) to @m, e.g.
 * "threads" -> "4". Labels are informational; plots read metric names.
 * Return 0, -ENOMEM.
 */
int bench_metric_label(struct bench_metric *m, const char *key, const char *value);

/**
 * bench_metric_stats() - current statistics of @m (bootstrap seeded from
 * --seed). Return 0, -EINVAL (no samples), -ENOMEM.
 */
int bench_metric_stats(const struct bench_metric *m, struct bench_stats *out);

/**
 * bench_icount_active() - is this process counting instructions per metric?
 *
 * True when it runs under valgrind's callgrind and the environment names
 * the callgrind output file (TTM_BENCH_CALLGRIND_OUT, the path given to
 * valgrind's --callgrind-out-file), as `ttm-compare --run --instructions`
 * and `scripts/icount.sh` run it. Outside callgrind it costs a few
 * instructions and the markers below do nothing.
 */
bool bench_icount_active(void);

/**
 * bench_icount_start() - begin a timed region: zero callgrind's counters.
 *
 * Call it right where the region's clock starts; nothing when not active.
 */
void bench_icount_start(void);

/**
 * bench_icount_pause() - leave out what follows (untimed set-up inside a
 * region) until bench_icount_resume(); nothing when not active.
 */
void bench_icount_pause(void);

/** bench_icount_resume() - count again after bench_icount_pause(). */
void bench_icount_resume(void);

/**
 * bench_icount_stop() - end a timed region of @ops operations of metric @m:
 * callgrind dumps the region's counts, and its instructions per operation
 * become a sample of @m's instruction axis (written as "instructions" in
 * the results: median per operation, the samples, the tool).
 * @m: the metric whose figure the region measures.
 * @ops: operations the region performed (the divisor of its ns/op figure).
 *
 * A region whose operations are timed one by one with untimed work between
 * them is counted the same way: start, pause, and around each timed call
 * resume and pause; stop then counts what was resumed.
 *
 * Return: 0 (also when not active), -EINVAL (@ops 0), -ENOMEM, -EIO (the
 * dump could not be read).
 */
int bench_icount_stop(struct bench_metric *m, uint64_t ops);

/**
 * typedef bench_rep_fn - one repetition of a benchmark body.
 * @ctx: caller's context.
 * @rep: repetition index (warm-up repetitions are negative: -warmup .. -1).
 * @value: set to this repetition's figure (in the metric's unit).
 * Return: 0 or -errno (stops bench_repeat()).
 */
typedef int (*bench_rep_fn)(void *ctx, int rep, double *value);

/**
 * bench_repeat() - run @fn opts.warmup times unmeasured, then opts.reps times
 * recording each figure as a sample of @m, with progress lines.
 * Return: 0 or the first error of @fn / of recording.
 */
int bench_repeat(struct bench_run *r, struct bench_metric *m, bench_rep_fn fn, void *ctx);

/**
 * bench_series_add() - add a time series (e.g. accounted pages and RSS over
 * time). @columns names the value columns after "t" (seconds); @ncols of them.
 * Return the series (owned by @r) or NULL on -ENOMEM / bad arguments.
 */
struct bench_series *bench_series_add(struct bench_run *r, const char *name,
				      const char *const *columns, unsigned ncols);

/** bench_series_append() - append a row: @t seconds, then ncols @values. 0 or -ENOMEM. */
int bench_series_append(struct bench_series *s, double t, const double *values);

/**
 * bench_progress() - report progress of @phase (0..1) on stderr, as one
 * overwritten line "phase  42%  ETA 3s", only when stderr is a terminal and at
 * most every 100 ms. The ETA is extrapolated from the phase's start (a new
 * @phase string starts a new phase).
 */
void bench_progress(struct bench_run *r, const char *phase, double fraction);

/** bench_progress_done() - clear the progress line (when one was shown). */
void bench_progress_done(struct bench_run *r);

/**
 * bench_run_write() - write the results JSON of @r to @path.
 * @path: a file name, a directory (the file gets <name>-<machine id>-<UTC
 *        time>.json inside it) or NULL (opts.out, else the current directory).
 * @written: if non-NULL, receives the final path (caller frees).
 *
 * Written to "<path>.tmp.<pid>" (created with O_EXCL), fsync'ed and renamed
 * without replacing: a reader never sees a partial file under the final
 * name, an existing file is never replaced (-EEXIST for a file name; in a
 * directory the name gets "-2", "-3", ... so two runs in one second both
 * keep their file), and on failure nothing is left behind. With @path NULL
 * the file bench_setup() prepared is used when there is one.
 *
 * Return: 0, -errno from the file system, -ENOMEM.
 */
int bench_run_write(struct bench_run *r, const char *path, char **written);

/**
 * bench_summary_print() - human table on @f: one row per metric with metric,
 * value (median; histogram metrics also p99), unit, reference (name and
 * value), ratio, target and pass/miss; then the machine id and references.
 */
void bench_summary_print(struct bench_run *r, FILE *f);

/**
 * bench_run_finish() - write the results file, print the summary on stdout,
 * free @r. Return: the exit status for main(): 0, or 1 when the file could
 * not be written (a missed target does not fail the run; ttm-compare judges).
 */
int bench_run_finish(struct bench_run *r);

/* ---------------------------------------------- reading results back */

/**
 * bench_results_load() - parse a results file with json-c and check it.
 * @path: the file.
 * @out: receives the json_object root (struct json_object *, caller puts it
 *       with json_object_put()).
 * @err: one-line message on failure.
 * @errlen: size of @err.
 *
 * Refuses what is not a regular file of at most BENCH_RESULTS_MAX_BYTES,
 * anything but one strict JSON object (no NaN or Infinity, nothing after
 * the object), a number that is not finite, a metric value (sample, round
 * median, statistic) further than BENCH_VALUE_MAX from 0 or negative in a
 * unit other than "ns", and a file in which no metric has a
 * median or a sample. Checks "schema" == BENCH_SCHEMA_NAME and
 * "schema_version" == BENCH_SCHEMA_VERSION, and that "benchmark", "machine"
 * and "metrics" exist.
 *
 * Return: 0, -ENOENT/-EACCES (unreadable), -EFBIG (too large), -EINVAL
 * (malformed or nothing usable), -EPROTO (schema mismatch).
 */
int bench_results_load(const char *path, void **out, char *err, size_t errlen);

/**
 * bench_results_metric_hist() - rebuild the histogram of a metric object
 * (struct json_object *) from its stored buckets into @h.
 * Return 0, -ENOENT (the metric has raw samples, not buckets), -EINVAL.
 */
int bench_results_metric_hist(void *metric, struct bench_hist *h);

/**
 * bench_results_to_csv() - write the plot inputs derived from the results
 * files @paths[0..n-1] into directory @dir (created if missing): metrics.dat,
 * validate-cdf.dat, eviction.dat, fence.dat, series-<name>.dat; formats in
 * results/README.md. Files whose input metrics are absent are not created;
 * the others are rewritten, except series-<name>.dat which is appended to.
 * Return: 0, or -errno / -EINVAL / -EPROTO (message in @err).
 */
int bench_results_to_csv(const char *const *paths, unsigned n, const char *dir, char *err,
			 size_t errlen);

#endif /* BENCH_H */
