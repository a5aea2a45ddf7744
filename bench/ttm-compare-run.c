// SPDX-License-Identifier: MIT
/*
 * ttm-compare --run: paired A/B comparison. Two builds of the suite (build
 * trees, or commits built on demand) run the same benchmarks alternately, in
 * short rounds on the same CPUs, and every metric is judged on the paired
 * per-round differences, so that what the machine does between rounds (other
 * load, frequency, a noisy neighbour) hits both sides alike and cancels.
 *
 *   ttm-compare --run A B [--bench validate,fence,...] [--rounds N]
 *               [--metrics GLOB] [--threshold PCT] [--confidence PCT]
 *               [--out DIR] [--cpus LIST] [--args "ARGS"]
 *
 * A and B: a build directory of this project (its bench/benchmark-* are
 * brought up to date with ninja first), or anything `git rev-parse` names as
 * a commit of the source tree, which is checked out in a worktree and built
 * (release, NDEBUG) under $XDG_CACHE_HOME/ttm-ab/<commit>/ once and reused.
 *
 * Round r runs every benchmark of A then of B (r even) or B then A (r odd),
 * each with ARGS (default "--quick"), its results file in
 * OUT/{A,B}/round-<r>/. Per metric and round the figure is the median of
 * that run; the paired difference is d = ln(B/A). The change is the
 * Hodges-Lehmann estimate of d (the median of the pairwise means, robust to
 * a round that went wrong on one side), its interval the distribution-free
 * one of Wilcoxon's signed-rank test at --confidence (default 99%). It is
 * exact: comparing a build with itself (the rounds alternate which side runs
 * first, so the differences are symmetric about 0) flags a metric at most
 * 1 - confidence of the time, whatever the noise looks like. So few rounds
 * flag nothing: at 99% it takes 8 (all of 7 differences of one sign still
 * happens 1.6% of the time by chance). A metric
 * REGRESSED when the whole interval lies on the worse side of zero and the
 * change is at least --threshold percent (default 1); "improved" likewise.
 * The smallest change the run could have detected is the interval's
 * half-width (or the threshold, when larger): that is the figure to read
 * before trusting "within noise".
 *
 * With --instructions, each side's benchmarks also run once under
 * valgrind's callgrind, and the instructions per call of the core's entry
 * points (--functions, default ttm_bo_validate, ttm_bo_validate_nospc,
 * ttm_bo_reserve, ttm_bo_init_validate, ttm_bo_put, dma_fence_init,
 * dma_fence_signal, dma_fence_signal_timestamp, dma_resv_reserve_fences,
 * i915_gem_execbuffer) are compared: inclusive instructions over the call
 * edges into the function (its own recursion left out) divided by the
 * calls. Instruction counts do not move with the machine's load, so the
 * threshold there is tight (--icount-threshold, default 0.5%); wall time
 * stays the figure users read. This machine kind has no hardware counters
 * (`perf stat -e instructions` is not supported in these guests), and the
 * per-function split needs callgrind anyway; the results say which tool
 * counted. The same runs also give every metric whose timed region the
 * benchmark marks (bench_icount_start/stop) its instructions per
 * operation, compared with the same threshold.
 *
 * Both sides' results files are recorded in the results history when
 * ttm-history is built beside this program and a history is at hand
 * ($TTM_HISTORY_DB, $TTM_HISTORY_PG, or results/ in the current directory).
 *
 * Exit: 0 nothing regressed; 1 a regression; 2 bad usage or input (a side
 * that cannot be built or run, no metric in common).
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <testlib/prng.h>

#include "bench.h"
#include "ttm-compare-run.h"

/*
 * The build-tree path of benchmark @b: bench/benchmark-<b>, or
 * bench/<b>/benchmark-<b> for a benchmark with a directory of its own (the
 * kernel reference, bench/kref).
 */
/*
 * PATHF() - format a path into the array @buf; true when it fits. A path
 * that does not fit names another file: callers fail rather than use it.
 */
#define PATHF(buf, ...) (snprintf((buf), sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

static void bench_path(const char *b, char *out, size_t len)
{
	static const char *const own_dir[] = {"kref"};

	for (size_t i = 0; i < sizeof(own_dir) / sizeof(own_dir[0]); i++) {
		if (!strcmp(b, own_dir[i])) {
			snprintf(out, len, "bench/%s/benchmark-%s", b, b);
			return;
		}
	}
	snprintf(out, len, "bench/benchmark-%s", b);
}

#define EXIT_REGRESSION 1
#define EXIT_BAD_INPUT 2
#define RUN_MAX_ROUNDS 1000
#define RUN_TIMEOUT_S 900
/* Pairs up to which the signed-rank interval is exact (normal beyond). */
#define WILCOXON_EXACT_MAX 60

static const char *prog = "ttm-compare --run";

struct run_opts {
	const char *side[2];
	char *bench; /* comma-separated names, owned */
	unsigned rounds;
	const char *metrics;
	double threshold_pct;
	double confidence;
	const char *out;
	const char *cpus;
	const char *args;
	bool instructions;
	char *functions; /* comma-separated, owned */
	double icount_threshold_pct;
};

/* One metric: its per-round figure on each side (NAN: not recorded). */
struct run_metric {
	char *key;  /* benchmark[params] metric, owned */
	char *unit; /* owned */
	bool higher_better;
	double *v[2]; /* [side][round] */
};

struct run_table {
	struct run_metric *m;
	size_t n, cap;
};

/* ------------------------------------------------------------ processes */

/*
 * run_cmd() - run @argv with stdout and stderr to @log (NULL: inherited),
 * in @cwd (NULL: here). Return: the exit status, or -1 when it could not be
 * started, died of a signal or ran past @timeout_s (then it is killed).
 */
static int run_cmd(char *const *argv, const char *log, const char *cwd, unsigned timeout_s)
{
	time_t deadline = time(NULL) + timeout_s;
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(126);
		}
		if (cwd && chdir(cwd))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (time(NULL) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fprintf(stderr, "%s: %s ran longer than %u s, killed\n", prog, argv[0],
				timeout_s);
			return -1;
		}
		usleep(20000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return is_dir(buf) ? 0 : -ENOTDIR;
}

/* Output of a command (first line, trailing newline dropped) into @out. */
static int cmd_line(char *const *argv, char *out, size_t len)
{
	int pfd[2], st;
	pid_t pid;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (dup2(pfd[1], 1) < 0 || (null >= 0 && dup2(null, 2) < 0))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], out, len - 1);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n <= 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -ENOENT;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- sides */

/*
 * resolve_side() - the build directory of side @spec in @dir: @spec itself
 * when it is a build tree, else the cached build of the commit it names.
 * Brings the benchmark targets up to date. Return: 0; -1 with a message.
 */
static int resolve_side(const char *spec, const char *bench, char *dir, size_t len)
{
	char sha[64], top[PATH_MAX], cache[PATH_MAX], src[PATH_MAX + 8], log[PATH_MAX + 16];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *targets[64];
	unsigned nt = 0;
	char *list, *save = NULL;
	int rc;

	if (is_dir(spec)) {
		char probe[PATH_MAX];

		snprintf(probe, sizeof(probe), "%s/build.ninja", spec);
		if (access(probe, R_OK)) {
			fprintf(stderr,
				"%s: %s is a directory but not a build tree (no build.ninja)\n",
				prog, spec);
			return -1;
		}
		if (!realpath(spec, dir)) {
			fprintf(stderr, "%s: %s: %s\n", prog, spec, strerror(errno));
			return -1;
		}
	} else {
		char rev[256];
		char *rp[] = {"git", "rev-parse", "--verify", "--quiet", rev, NULL};
		char *tl[] = {"git", "rev-parse", "--show-toplevel", NULL};

		snprintf(rev, sizeof(rev), "%s^{commit}", spec);
		if (cmd_line(rp, sha, sizeof(sha)) || cmd_line(tl, top, sizeof(top))) {
			fprintf(stderr,
				"%s: %s is neither a build directory nor a commit of this tree\n",
				prog, spec);
			return -1;
		}
		if (xdg && *xdg)
			snprintf(cache, sizeof(cache), "%s/ttm-ab/%.40s", xdg, sha);
		else
			snprintf(cache, sizeof(cache), "%s/.cache/ttm-ab/%.40s",
				 home ? home : "/tmp", sha);
		snprintf(src, sizeof(src), "%s/src", cache);
		if ((size_t)snprintf(dir, len, "%s/build", cache) >= len || mkdir_p(cache)) {
			fprintf(stderr, "%s: cannot create %s\n", prog, cache);
			return -1;
		}
		if (!is_dir(src)) {
			char *wt[] = {"git",	  "-C",	     top, "worktree", "add",
				      "--detach", "--force", src, sha,	      NULL};

			snprintf(log, sizeof(log), "%s/worktree.log", cache);
			if (run_cmd(wt, log, NULL, 300)) {
				fprintf(stderr, "%s: git worktree add for %s failed (see %s)\n",
					prog, spec, log);
				return -1;
			}
		}
		if (!PATHF(log, "%s/build.ninja", dir)) {
			fprintf(stderr, "%s: path too long: %s\n", prog, dir);
			return -1;
		}
		if (access(log, R_OK)) {
			char *setup[] = {"muon-meson",	    "setup", "-Dbuildtype=release",
					 "-Db_ndebug=true", dir,     NULL};

			snprintf(log, sizeof(log), "%s/setup.log", cache);
			if (run_cmd(setup, log, src, 600)) {
				fprintf(stderr, "%s: configuring %s failed (see %s)\n", prog, spec,
					log);
				return -1;
			}
		}
		fprintf(stderr, "%s: %s is commit %.12s, built in %s\n", prog, spec, sha, dir);
	}
	/* Bring the benchmark programs (and only those) up to date. */
	list = strdup(bench);
	if (!list)
		return -1;
	targets[nt++] = "ninja";
	targets[nt++] = "-C";
	targets[nt++] = dir;
	for (char *b = strtok_r(list, ",", &save); b && nt < 60; b = strtok_r(NULL, ",", &save)) {
		size_t tl = 2 * strlen(b) + 32;
		char *t = malloc(tl);

		if (!t)
			break;
		bench_path(b, t, tl);
		targets[nt++] = t;
	}
	targets[nt] = NULL;
	rc = PATHF(log, "%s/.ab-build.log", dir) ? run_cmd(targets, log, NULL, 1800) : -1;
	for (unsigned i = 3; i < nt; i++)
		free(targets[i]);
	free(list);
	if (rc) {
		fprintf(stderr, "%s: building the benchmarks of %s failed (see %s)\n", prog, spec,
			log);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- collecting */

static struct run_metric *table_get(struct run_table *t, const char *key, unsigned rounds)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->m[i].key, key))
			return &t->m[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct run_metric *m = realloc(t->m, cap * sizeof(*m));

		if (!m)
			return NULL;
		t->m = m;
		t->cap = cap;
	}
	struct run_metric *m = &t->m[t->n];

	memset(m, 0, sizeof(*m));
	m->key = strdup(key);
	m->v[0] = malloc(rounds * sizeof(double));
	m->v[1] = malloc(rounds * sizeof(double));
	if (!m->key || !m->v[0] || !m->v[1]) {
		free(m->key);
		free(m->v[0]);
		free(m->v[1]);
		return NULL;
	}
	for (unsigned r = 0; r < rounds; r++)
		m->v[0][r] = m->v[1][r] = NAN;
	t->n++;
	return m;
}

static void table_fini(struct run_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->m[i].key);
		free(t->m[i].unit);
		free(t->m[i].v[0]);
		free(t->m[i].v[1]);
	}
	free(t->m);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "benchmark[k=v,k=v]" with the parameters sorted, into @buf. */
static void group_name(json_object *root, char *buf, size_t len)
{
	json_object *b = NULL, *p = NULL;
	const char *names[64];
	size_t n = 0, off;

	json_object_object_get_ex(root, "benchmark", &b);
	off = (size_t)snprintf(buf, len, "%s[", b ? json_object_get_string(b) : "?");
	if (json_object_object_get_ex(root, "parameters", &p) &&
	    json_object_is_type(p, json_type_object)) {
		json_object_object_foreach(p, k, v)
		{
			(void)v;
			if (n < 64)
				names[n++] = k;
		}
		qsort(names, n, sizeof(*names), cmp_str);
		for (size_t i = 0; i < n && off < len; i++) {
			json_object *val;

			json_object_object_get_ex(p, names[i], &val);
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? "," : "",
						names[i], json_object_get_string(val));
		}
	}
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

/* Every metric median of the results files in @dir into side @side, round @r. */
static int collect(struct run_table *t, const char *dir, int side, unsigned r, unsigned rounds,
		   const char *glob)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[PATH_MAX], err[256], group[512];
		json_object *root, *metrics;
		size_t nlen = strlen(e->d_name);

		if (nlen < 6 || strcmp(e->d_name + nlen - 5, ".json"))
			continue;
		if (!PATHF(path, "%s/%s", dir, e->d_name)) {
			fprintf(stderr, "%s: path too long: %s/%s\n", prog, dir, e->d_name);
			continue;
		}
		if (bench_results_load(path, (void **)&root, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			continue;
		}
		group_name(root, group, sizeof(group));
		json_object_object_get_ex(root, "metrics", &metrics);
		for (size_t i = 0; i < json_object_array_length(metrics); i++) {
			json_object *m = json_object_array_get_idx(metrics, i), *name, *st, *med,
				    *unit, *dirn, *plat;
			char key[1024];
			struct run_metric *rm;

			if (!json_object_object_get_ex(m, "name", &name) ||
			    !json_object_object_get_ex(m, "stats", &st) || !st ||
			    !json_object_object_get_ex(st, "median", &med) || !med)
				continue;
			/* The machine's own figures are not ours to judge. */
			if (json_object_object_get_ex(m, "platform", &plat) &&
			    json_object_get_boolean(plat))
				continue;
			if (glob && fnmatch(glob, json_object_get_string(name), 0))
				continue;
			snprintf(key, sizeof(key), "%s %s", group, json_object_get_string(name));
			rm = table_get(t, key, rounds);
			if (!rm) {
				json_object_put(root);
				closedir(d);
				return -ENOMEM;
			}
			if (!rm->unit && json_object_object_get_ex(m, "unit", &unit))
				rm->unit = strdup(json_object_get_string(unit));
			if (json_object_object_get_ex(m, "direction", &dirn))
				rm->higher_better =
				    !strcmp(json_object_get_string(dirn), "higher_is_better");
			rm->v[side][r] = json_object_get_double(med);
			found++;
		}
		json_object_put(root);
	}
	closedir(d);
	return found;
}

/* -------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Hodges-Lehmann: the median of the n(n+1)/2 Walsh averages of @d. */
static double hodges_lehmann(const double *d, size_t n, double *walsh)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			walsh[k++] = (d[i] + d[j]) / 2;
	qsort(walsh, k, sizeof(*walsh), cmp_double);
	return k % 2 ? walsh[k / 2] : (walsh[k / 2 - 1] + walsh[k / 2]) / 2;
}

/*
 * The lower rank k of the distribution-free interval of the Hodges-Lehmann
 * shift at @conf percent: the interval is [W(k), W(M + 1 - k)] of the
 * M = n(n+1)/2 sorted Walsh averages (1-based), k the largest count with
 * P(T+ <= k - 1) <= alpha/2 under the null distribution of Wilcoxon's
 * signed-rank statistic T+ (exact up to 60 pairs, normal beyond). 0 when
 * n pairs cannot give an interval at that confidence: with all n
 * differences of one sign the null probability is still 2^-n per side.
 * The exact table needs no allocation (at most 1,831 terms, on the stack)
 * and each n is computed once per confidence: every metric of a comparison
 * asks for the same few n.
 */
static size_t wilcoxon_rank(size_t n, double conf)
{
	static double memo_conf = -1;
	static size_t memo_k[WILCOXON_EXACT_MAX + 1];
	static bool memo_set[WILCOXON_EXACT_MAX + 1];
	double half_alpha = (1.0 - conf / 100.0) / 2.0, cum = 0;
	size_t m = n * (n + 1) / 2, k = 0;

	if (n > WILCOXON_EXACT_MAX) {
		double lo = 0, hi = 10, sd = sqrt((double)n * (n + 1) * (2 * n + 1) / 24.0), kk;

		/* z with P(Z > z) = alpha/2, by bisection on erfc. */
		for (int i = 0; i < 100; i++) {
			double z = (lo + hi) / 2;

			if (0.5 * erfc(z / M_SQRT2) > half_alpha)
				lo = z;
			else
				hi = z;
		}
		kk = floor((double)m / 2 + 0.5 - lo * sd);
		return kk > 0 ? (size_t)kk : 0;
	}
	double p[WILCOXON_EXACT_MAX * (WILCOXON_EXACT_MAX + 1) / 2 + 1] = {0};

	if (conf != memo_conf) {
		memset(memo_set, 0, sizeof(memo_set));
		memo_conf = conf;
	}
	if (memo_set[n])
		return memo_k[n];
	/* p[t] = P(T+ = t): rank i joins the positive side with probability 1/2. */
	p[0] = 1;
	for (size_t i = 1; i <= n; i++)
		for (size_t t = i * (i + 1) / 2 + 1; t-- > 0;)
			p[t] = 0.5 * (p[t] + (t >= i ? p[t - i] : 0));
	while (k <= m && cum + p[k] <= half_alpha)
		cum += p[k++];
	memo_k[n] = k;
	memo_set[n] = true;
	return k;
}

struct paired {
	size_t n;
	double a_med, b_med;
	double est, lo, hi; /* of ln(B/A) */
};

/* The paired estimate over the rounds both sides recorded; n 0 when < 3. */
static int paired_estimate(const struct run_metric *m, unsigned rounds, double conf,
			   struct paired *out)
{
	double *d = malloc(rounds * sizeof(*d)), *a = malloc(rounds * sizeof(*a));
	double *b = malloc(rounds * sizeof(*b));
	double *walsh = malloc(((size_t)rounds * (rounds + 1) / 2 + 1) * sizeof(*walsh));
	size_t n = 0;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!d || !a || !b || !walsh)
		goto out;
	for (unsigned r = 0; r < rounds; r++) {
		double x = m->v[0][r], y = m->v[1][r];

		if (isfinite(x) && isfinite(y) && x > 0 && y > 0) {
			a[n] = x;
			b[n] = y;
			d[n++] = log(y / x);
		}
	}
	rc = 0;
	if (n < 3)
		goto out;
	out->n = n;
	qsort(a, n, sizeof(*a), cmp_double);
	qsort(b, n, sizeof(*b), cmp_double);
	out->a_med = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
	out->b_med = n % 2 ? b[n / 2] : (b[n / 2 - 1] + b[n / 2]) / 2;
	out->est = hodges_lehmann(d, n, walsh);
	{
		/* hodges_lehmann() left the Walsh averages sorted. */
		size_t nw = n * (n + 1) / 2, k = wilcoxon_rank(n, conf);

		out->lo = k ? walsh[k - 1] : -INFINITY;
		out->hi = k ? walsh[nw - k] : INFINITY;
	}
out:
	free(d);
	free(a);
	free(b);
	free(walsh);
	return rc;
}

/* ------------------------------------------------------ instruction counts */

#define ICOUNT_MAX_FUNCS 64
#define ICOUNT_MIN_CALLS 100

/* One function's inclusive instructions and calls, summed over benchmarks. */
struct icount {
	char name[128];
	double calls, ir;
};

/* @name without callgrind's recursion-level suffix ("f'2" is f). */
static void icount_base(const char *name, char *out, size_t len)
{
	size_t n = strcspn(name, "'\n");

	if (n >= len)
		n = len - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

static bool icount_wanted(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, name, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

static struct icount *icount_get(struct icount *acc, unsigned *n, const char *name)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp(acc[i].name, name))
			return &acc[i];
	if (*n == ICOUNT_MAX_FUNCS)
		return NULL;
	memset(&acc[*n], 0, sizeof(acc[*n]));
	snprintf(acc[*n].name, sizeof(acc[*n].name), "%s", name);
	return &acc[(*n)++];
}

/*
 * callgrind_parse() - add to @acc, for each function of @list, the calls
 * into it and their inclusive Ir, from a callgrind output file written with
 * --compress-strings=no --compress-pos=no (names and positions in full).
 * A call edge is a "cfn=" line, a "calls=COUNT ..." line and the cost line
 * after it, whose second field is the Ir of those calls, callees included.
 * Edges from a function into itself are its recursion, already inside the
 * outer call's cost. Return: 0; -errno.
 */
static int callgrind_parse(const char *path, const char *list, struct icount *acc, unsigned *n)
{
	char line[4096], fn[128] = "", cfn[128] = "";
	double pending = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "fn=", 3)) {
			icount_base(line + 3, fn, sizeof(fn));
			pending = -1;
		} else if (!strncmp(line, "cfn=", 4)) {
			icount_base(line + 4, cfn, sizeof(cfn));
		} else if (!strncmp(line, "calls=", 6)) {
			pending = strtod(line + 6, NULL);
		} else if (pending >= 0 && (line[0] == '+' || line[0] == '-' || line[0] == '*' ||
					    (line[0] >= '0' && line[0] <= '9'))) {
			char *sp = strchr(line, ' ');
			double ir = sp ? strtod(sp + 1, NULL) : 0;

			if (strcmp(cfn, fn) && icount_wanted(list, cfn)) {
				struct icount *c = icount_get(acc, n, cfn);

				if (c) {
					c->calls += pending;
					c->ir += ir;
				}
			}
			pending = -1;
		}
	}
	fclose(f);
	return 0;
}

/* Each benchmark of one side once under callgrind; counts into @acc. */
static int icount_side(const struct run_opts *o, const char *dir, const char *outdir,
		       struct icount *acc, unsigned *n)
{
	char *list = strdup(o->bench), *save = NULL;
	int rc = 0;

	if (!list)
		return -1;
	for (char *b = strtok_r(list, ",", &save); b && !rc; b = strtok_r(NULL, ",", &save)) {
		char exe[2 * PATH_MAX], rel[PATH_MAX], log[PATH_MAX], cg[PATH_MAX];
		char cgopt[PATH_MAX + 32];
		char *argv[72], *asave = NULL, *copy = strdup(o->args);
		unsigned k = 0;
		int st;

		if (!copy) {
			rc = -1;
			break;
		}
		bench_path(b, rel, sizeof(rel));
		if (!PATHF(exe, "%s/%s", dir, rel) ||
		    !PATHF(log, "%s/callgrind.%s.log", outdir, b) ||
		    !PATHF(cg, "%s/callgrind.%s.out", outdir, b) ||
		    !PATHF(cgopt, "--callgrind-out-file=%s", cg)) {
			fprintf(stderr, "%s: path too long under %s\n", prog, outdir);
			free(copy);
			rc = -1;
			break;
		}
		argv[k++] = "valgrind";
		argv[k++] = "--tool=callgrind";
		argv[k++] = cgopt;
		argv[k++] = "--compress-strings=no";
		argv[k++] = "--compress-pos=no";
		argv[k++] = "--dump-instr=no";
		argv[k++] = exe;
		for (char *t = strtok_r(copy, " ", &asave); t && k < 60;
		     t = strtok_r(NULL, " ", &asave))
			argv[k++] = t;
		argv[k++] = "--reps";
		argv[k++] = "1";
		argv[k++] = "--out";
		argv[k++] = (char *)outdir;
		argv[k] = NULL;
		/* The harness reads its timed regions' dumps back (bench_icount_stop()). */
		if (setenv("TTM_BENCH_CALLGRIND_OUT", cg, 1)) {
			free(copy);
			rc = -1;
			break;
		}
		st = run_cmd(argv, log, NULL, 4 * RUN_TIMEOUT_S);
		unsetenv("TTM_BENCH_CALLGRIND_OUT");
		if (st && st != 77) {
			fprintf(stderr,
				"%s: benchmark-%s under callgrind failed (exit %d, see %s)\n", prog,
				b, st, log);
			rc = -1;
		} else if (!st && callgrind_parse(cg, o->functions, acc, n)) {
			fprintf(stderr, "%s: cannot read %s\n", prog, cg);
			rc = -1;
		}
		free(copy);
	}
	free(list);
	return rc;
}

#define ICOUNT_MAX_METRICS 512

/* One metric's instructions per operation (the harness's timed regions). */
struct micount {
	char name[160];
	double per_op;
};

/*
 * The "instructions" of every metric in the results files of @dir (one
 * side's callgrind runs); returns how many, or -1.
 */
static int icount_metrics(const char *dir, struct micount *out, unsigned max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		json_object *root, *metrics;
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (!PATHF(path, "%s/%s", dir, e->d_name)) {
			fprintf(stderr, "%s: path too long: %s/%s\n", prog, dir, e->d_name);
			continue;
		}
		root = json_object_from_file(path);
		if (!root)
			continue;
		if (json_object_object_get_ex(root, "metrics", &metrics) &&
		    json_object_is_type(metrics, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(metrics) && n < max; i++) {
				json_object *m = json_object_array_get_idx(metrics, i), *nm, *ic,
					    *po;
				double v;

				if (!json_object_object_get_ex(m, "name", &nm) ||
				    !json_object_object_get_ex(m, "instructions", &ic) ||
				    !json_object_object_get_ex(ic, "per_op", &po))
					continue;
				v = json_object_get_double(po);
				if (!isfinite(v) || v <= 0)
					continue;
				snprintf(out[n].name, sizeof(out[n].name), "%s",
					 json_object_get_string(nm));
				out[n++].per_op = v;
			}
		}
		json_object_put(root);
	}
	closedir(d);
	return (int)n;
}

/*
 * Per-metric instruction table (the benchmarks' marked timed regions):
 * returns how many metrics regressed, or -1.
 */
static int icount_metric_compare(const struct run_opts *o, const char *outdir)
{
	static struct micount m[2][ICOUNT_MAX_METRICS];
	char sdir[PATH_MAX + 32];
	int n[2], regressed = 0, compared = 0;

	for (int s = 0; s < 2; s++) {
		snprintf(sdir, sizeof(sdir), "%s/icount-%c", outdir, 'A' + s);
		n[s] = icount_metrics(sdir, m[s], ICOUNT_MAX_METRICS);
		if (n[s] < 0)
			return -1;
	}
	printf("\ninstructions per operation of each metric's timed region (callgrind; threshold "
	       "%.3g%%)\n",
	       o->icount_threshold_pct);
	printf("%-44s %14s %14s %9s  %s\n", "metric", "Ir/op A", "Ir/op B", "change", "verdict");
	for (int i = 0; i < n[0]; i++) {
		const struct micount *a = &m[0][i], *b = NULL;
		const char *verdict = "same";
		double chg;

		if (o->metrics && fnmatch(o->metrics, a->name, 0))
			continue;
		for (int j = 0; j < n[1] && !b; j++)
			if (!strcmp(m[1][j].name, a->name))
				b = &m[1][j];
		if (!b)
			continue;
		chg = 100.0 * (b->per_op - a->per_op) / a->per_op;
		if (chg > o->icount_threshold_pct) {
			verdict = "REGRESSED";
			regressed++;
		} else if (chg < -o->icount_threshold_pct) {
			verdict = "improved";
		}
		compared++;
		printf("%-44s %14.1f %14.1f %+8.2f%%  %s\n", a->name, a->per_op, b->per_op, chg,
		       verdict);
	}
	printf("%d metrics compared by instructions per operation: %d regressed\n", compared,
	       regressed);
	return regressed;
}

/* The instruction-count table; returns how many functions regressed, or -1. */
static int icount_compare(const struct run_opts *o, char dir[2][PATH_MAX], const char *outdir)
{
	struct icount acc[2][ICOUNT_MAX_FUNCS];
	unsigned n[2] = {0, 0};
	char sdir[PATH_MAX + 32];
	int regressed = 0, compared = 0;

	for (int s = 0; s < 2; s++) {
		snprintf(sdir, sizeof(sdir), "%s/icount-%c", outdir, 'A' + s);
		if (mkdir_p(sdir) || icount_side(o, dir[s], sdir, acc[s], &n[s]))
			return -1;
	}
	printf("\ninstructions per call (callgrind, inclusive; threshold %.3g%%)\n",
	       o->icount_threshold_pct);
	printf("%-32s %12s %12s %14s %14s %9s  %s\n", "function", "calls A", "calls B", "Ir/call A",
	       "Ir/call B", "change", "verdict");
	for (unsigned i = 0; i < n[0]; i++) {
		const struct icount *a = &acc[0][i], *b = NULL;
		double pa, pb, chg;
		const char *verdict = "same";

		for (unsigned j = 0; j < n[1]; j++)
			if (!strcmp(acc[1][j].name, a->name))
				b = &acc[1][j];
		if (!b || a->calls < ICOUNT_MIN_CALLS || b->calls < ICOUNT_MIN_CALLS)
			continue;
		pa = a->ir / a->calls;
		pb = b->ir / b->calls;
		chg = 100.0 * (pb - pa) / pa;
		if (chg > o->icount_threshold_pct) {
			verdict = "REGRESSED";
			regressed++;
		} else if (chg < -o->icount_threshold_pct) {
			verdict = "improved";
		}
		compared++;
		printf("%-32s %12.0f %12.0f %14.1f %14.1f %+8.2f%%  %s\n", a->name, a->calls,
		       b->calls, pa, pb, chg, verdict);
	}
	printf("%d functions compared by instructions per call: %d regressed\n", compared,
	       regressed);
	{
		int mr = icount_metric_compare(o, outdir);

		if (mr < 0)
			return -1;
		regressed += mr;
	}
	return regressed;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *to)
{
	fprintf(
	    to,
	    "usage: ttm-compare --run A B [--bench LIST] [--rounds N] [--metrics GLOB]\n"
	    "                   [--threshold PCT] [--confidence PCT] [--out DIR] [--cpus LIST]\n"
	    "                   [--args \"ARGS\"]\n"
	    "A, B: build directories or commits (built under $XDG_CACHE_HOME/ttm-ab/)\n"
	    "--bench: benchmarks (names after benchmark-), default validate,fence,evict\n"
	    "--rounds: paired rounds, default 10 (A and B alternate which runs first)\n"
	    "--args: arguments of every benchmark run, default \"--quick\"\n"
	    "--instructions [--functions LIST] [--icount-threshold PCT]: also compare\n"
	    "    instructions per call of core functions, counted under callgrind\n");
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int parse(int argc, char **argv, struct run_opts *o)
{
	unsigned nside = 0;

	*o = (struct run_opts){.rounds = 10,
			       .threshold_pct = 1.0,
			       .confidence = 99.0,
			       .args = "--quick",
			       .icount_threshold_pct = 0.5};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (a[0] != '-') {
			if (nside == 2) {
				fprintf(stderr, "%s: more than two sides ('%s')\n", prog, a);
				return -1;
			}
			o->side[nside++] = a;
			continue;
		}
		if (!strcmp(a, "--instructions")) {
			o->instructions = true;
			continue;
		}
		if (!val || !*val) {
			fprintf(stderr, "%s: %s needs a value\n", prog, a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--bench")) {
			free(o->bench);
			o->bench = strdup(val);
			for (const char *c = val; *c; c++)
				if (!(*c == ',' || *c == '-' || (*c >= 'a' && *c <= 'z') ||
				      (*c >= '0' && *c <= '9'))) {
					fprintf(stderr,
						"%s: --bench takes names like validate,fence\n",
						prog);
					return -1;
				}
		} else if (!strcmp(a, "--rounds")) {
			if (bench_parse_uint(val, 3, RUN_MAX_ROUNDS, &o->rounds)) {
				fprintf(stderr, "%s: --rounds takes a whole number from 3 to %u\n",
					prog, RUN_MAX_ROUNDS);
				return -1;
			}
		} else if (!strcmp(a, "--metrics")) {
			o->metrics = val;
		} else if (!strcmp(a, "--threshold")) {
			if (!parse_num(val, 0, 1000, &o->threshold_pct)) {
				fprintf(stderr,
					"%s: --threshold takes a percentage from 0 to 1000\n",
					prog);
				return -1;
			}
		} else if (!strcmp(a, "--confidence")) {
			if (!parse_num(val, 50, 99.9, &o->confidence)) {
				fprintf(stderr,
					"%s: --confidence takes a percentage from 50 to 99.9\n",
					prog);
				return -1;
			}
		} else if (!strcmp(a, "--out")) {
			o->out = val;
		} else if (!strcmp(a, "--cpus")) {
			o->cpus = val;
		} else if (!strcmp(a, "--args")) {
			o->args = val;
		} else if (!strcmp(a, "--functions")) {
			free(o->functions);
			o->functions = strdup(val);
		} else if (!strcmp(a, "--icount-threshold")) {
			if (!parse_num(val, 0, 1000, &o->icount_threshold_pct)) {
				fprintf(
				    stderr,
				    "%s: --icount-threshold takes a percentage from 0 to 1000\n",
				    prog);
				return -1;
			}
		} else {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			usage(stderr);
			return -1;
		}
	}
	if (nside != 2) {
		fprintf(stderr, "%s: needs two sides, A and B\n", prog);
		usage(stderr);
		return -1;
	}
	if (!o->bench)
		o->bench = strdup("validate,fence,evict");
	if (!o->functions)
		o->functions =
		    strdup("ttm_bo_validate,ttm_bo_validate_nospc,ttm_bo_reserve,"
			   "ttm_bo_init_validate,ttm_bo_put,dma_fence_init,dma_fence_signal,"
			   "dma_fence_signal_timestamp,dma_resv_reserve_fences,"
			   "i915_gem_execbuffer");
	return o->bench && o->functions ? 0 : -1;
}

/* Run every benchmark of side @s (build dir @dir) into @outdir. */
static int run_side(const struct run_opts *o, const char *dir, const char *outdir)
{
	char *list = strdup(o->bench), *save = NULL, *args = strdup(o->args);
	int rc = 0;

	if (!list || !args) {
		free(list);
		free(args);
		return -1;
	}
	for (char *b = strtok_r(list, ",", &save); b && !rc; b = strtok_r(NULL, ",", &save)) {
		char exe[2 * PATH_MAX], rel[PATH_MAX], log[PATH_MAX], *argv[64], *asave = NULL;
		char *copy = strdup(args);
		unsigned n = 0;
		int st;

		if (!copy) {
			rc = -1;
			break;
		}
		bench_path(b, rel, sizeof(rel));
		if (!PATHF(exe, "%s/%s", dir, rel) ||
		    !PATHF(log, "%s/benchmark-%s.log", outdir, b)) {
			fprintf(stderr, "%s: path too long under %s\n", prog, outdir);
			free(copy);
			rc = -1;
			break;
		}
		argv[n++] = exe;
		for (char *t = strtok_r(copy, " ", &asave); t && n < 56;
		     t = strtok_r(NULL, " ", &asave))
			argv[n++] = t;
		argv[n++] = "--out";
		argv[n++] = (char *)outdir;
		if (o->cpus) {
			argv[n++] = "--cpus";
			argv[n++] = (char *)o->cpus;
		}
		argv[n] = NULL;
		st = run_cmd(argv, log, NULL, RUN_TIMEOUT_S);
		if (st == 77) {
			fprintf(stderr, "%s: benchmark-%s skipped (exit 77, see %s)\n", prog, b,
				log);
		} else if (st) {
			fprintf(stderr, "%s: benchmark-%s failed (exit %d, see %s)\n", prog, b, st,
				log);
			rc = -1;
		}
		free(copy);
	}
	free(list);
	free(args);
	return rc;
}

/* Record the run's files in the history when ttm-history sits beside us. */
static void record_history(const char *out)
{
	char self[PATH_MAX], hist[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(hist, sizeof(hist), "%s/ttm-history", self);
	if (access(hist, X_OK))
		return;
	/* Its default database lives in the source tree's results/. */
	if (!getenv("TTM_HISTORY_DB") && !getenv("TTM_HISTORY_PG") && !is_dir("results"))
		return;
	{
		char *argv[] = {hist, "import", "--source", "compare-run", (char *)out, NULL};
		char log[PATH_MAX];

		if (!PATHF(log, "%s/history.log", out) || run_cmd(argv, log, NULL, 300))
			fprintf(stderr, "%s: recording the runs in the history failed (see %s)\n",
				prog, log);
	}
}

int ttm_compare_run(int argc, char **argv)
{
	char dir[2][PATH_MAX], outdir[PATH_MAX], rdir[PATH_MAX + 64];
	struct run_table t = {0};
	struct run_opts o;
	unsigned regressed = 0, improved = 0, judged = 0;
	double *mde = NULL;
	int rc;

	rc = parse(argc, argv, &o);
	if (rc) {
		free(o.bench);
		free(o.functions);
		return rc > 0 ? 0 : EXIT_BAD_INPUT;
	}
	for (int s = 0; s < 2; s++)
		if (resolve_side(o.side[s], o.bench, dir[s], sizeof(dir[s]))) {
			free(o.bench);
			free(o.functions);
			return EXIT_BAD_INPUT;
		}
	if (o.out) {
		snprintf(outdir, sizeof(outdir), "%s", o.out);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(outdir, sizeof(outdir), "results/ab/%Y%m%dT%H%M%SZ", &tm);
	}
	if (mkdir_p(outdir)) {
		fprintf(stderr, "%s: cannot create %s\n", prog, outdir);
		free(o.bench);
		free(o.functions);
		return EXIT_BAD_INPUT;
	}
	fprintf(stderr, "%s: A = %s, B = %s, %u rounds of %s (%s), results in %s\n", prog, dir[0],
		dir[1], o.rounds, o.bench, o.args, outdir);
	for (unsigned r = 0; r < o.rounds; r++) {
		for (int k = 0; k < 2; k++) {
			int s = (r % 2) ? 1 - k : k;

			snprintf(rdir, sizeof(rdir), "%s/%c/round-%03u", outdir, 'A' + s, r);
			if (mkdir_p(rdir) || run_side(&o, dir[s], rdir)) {
				fprintf(stderr, "%s: round %u of side %c failed\n", prog, r,
					'A' + s);
				rc = EXIT_BAD_INPUT;
				goto out;
			}
			if (collect(&t, rdir, s, r, o.rounds, o.metrics) < 0) {
				rc = EXIT_BAD_INPUT;
				goto out;
			}
		}
		fprintf(stderr, "%s: round %u/%u done\n", prog, r + 1, o.rounds);
	}
	for (int s = 0; s < 2; s++) {
		snprintf(rdir, sizeof(rdir), "%s/%c", outdir, 'A' + s);
		record_history(rdir);
	}

	mde = calloc(t.n ? t.n : 1, sizeof(*mde));
	if (!mde) {
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if (!wilcoxon_rank(o.rounds, o.confidence)) {
		unsigned need = o.rounds;

		while (need < RUN_MAX_ROUNDS && !wilcoxon_rank(need, o.confidence))
			need++;
		fprintf(
		    stderr,
		    "%s: %u paired rounds cannot show a change at %.3g%% confidence (it takes %u): "
		    "nothing will be flagged\n",
		    prog, o.rounds, o.confidence, need);
	}
	printf("%-64s %-9s %5s %12s %12s %9s %21s %8s  %s\n", "metric (A -> B)", "unit", "pairs",
	       "A median", "B median", "change", "interval", "mde", "verdict");
	for (size_t i = 0; i < t.n; i++) {
		const struct run_metric *m = &t.m[i];
		struct paired p;
		double chg, lo, hi, worse_lo, half;
		const char *verdict;

		if (paired_estimate(m, o.rounds, o.confidence, &p)) {
			rc = EXIT_BAD_INPUT;
			goto out;
		}
		if (!p.n)
			continue;
		chg = 100.0 * expm1(p.est);
		lo = 100.0 * expm1(p.lo);
		hi = 100.0 * expm1(p.hi);
		half = (hi - lo) / 2;
		mde[judged++] = fmax(half, o.threshold_pct);
		/* Worse means slower for latencies, lower for rates. */
		worse_lo = m->higher_better ? -hi : lo;
		if (worse_lo > 0 && fabs(chg) >= o.threshold_pct) {
			verdict = "REGRESSED";
			regressed++;
		} else if ((m->higher_better ? lo : -hi) > 0 && fabs(chg) >= o.threshold_pct) {
			verdict = "improved";
			improved++;
		} else {
			verdict = "within noise";
		}
		printf("%-64s %-9s %5zu %12.5g %12.5g %+8.2f%% [%+8.2f%% %+8.2f%%] %7.2f%%  %s\n",
		       m->key, m->unit ? m->unit : "-", p.n, p.a_med, p.b_med, chg, lo, hi,
		       fmax(half, o.threshold_pct), verdict);
	}
	if (!judged) {
		fprintf(stderr, "%s: no metric was recorded by both sides in 3 or more rounds\n",
			prog);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	qsort(mde, judged, sizeof(*mde), cmp_double);
	printf("%u metrics compared over %u paired rounds: %u regressed, %u improved (threshold "
	       "%.3g%%, %.3g%% intervals); smallest detectable change: median %.2f%%, best %.2f%%, "
	       "worst %.2f%%\n",
	       judged, o.rounds, regressed, improved, o.threshold_pct, o.confidence,
	       mde[judged / 2], mde[0], mde[judged - 1]);
	rc = regressed ? EXIT_REGRESSION : 0;
	if (o.instructions) {
		int r = icount_compare(&o, dir, outdir);

		if (r < 0)
			rc = EXIT_BAD_INPUT;
		else if (r > 0)
			rc = EXIT_REGRESSION;
	}
out:
	free(mde);
	table_fini(&t);
	free(o.bench);
	free(o.functions);
	return rc;
}
