// SPDX-License-Identifier: MIT
/*
 * bench_results.c - the results file (format: results/README.md): writing
 * it atomically, loading and checking it, and the plot inputs derived from it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench_priv.h"
#include "ttm_config.h"

/*
 * Builders. json-c returns NULL on allocation failure and a failed add
 * leaves the value to us; *ok latches the first failure so the builder code
 * reads straight and the caller checks once.
 */
/*
 * json-c spells JSON null as a NULL object pointer, which is also what a
 * failed json_object_new_*() returns; builders pass JNULL for an intended
 * null so that jadd()/jpush() can tell the two apart.
 */
static char jnull_marker;
#define JNULL ((json_object *)(void *)&jnull_marker)

static void jadd(json_object *o, const char *key, json_object *v, bool *ok)
{
	if (v == JNULL) {
		if (json_object_object_add(o, key, NULL))
			*ok = false;
		return;
	}
	if (!v) {
		*ok = false;
		return;
	}
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		*ok = false;
	}
}

static void jpush(json_object *a, json_object *v, bool *ok)
{
	if (v == JNULL) {
		if (json_object_array_add(a, NULL))
			*ok = false;
		return;
	}
	if (!v) {
		*ok = false;
		return;
	}
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		*ok = false;
	}
}

/* Non-finite doubles have no JSON spelling: they become null. */
static json_object *jdouble(double v)
{
	return isfinite(v) ? json_object_new_double(v) : JNULL;
}

static json_object *jkvs(const struct bench_kvs *k, bool *ok)
{
	json_object *o = json_object_new_object();
	size_t i;

	if (!o) {
		*ok = false;
		return NULL;
	}
	for (i = 0; i < k->n; i++)
		jadd(o, k->v[i].key, json_object_new_string(k->v[i].value), ok);
	return o;
}

static json_object *jstats(const struct bench_stats *s, bool *ok)
{
	json_object *o = json_object_new_object();

	if (!o) {
		*ok = false;
		return NULL;
	}
	jadd(o, "n", json_object_new_uint64(s->n), ok);
	jadd(o, "min", jdouble(s->min), ok);
	jadd(o, "median", jdouble(s->median), ok);
	jadd(o, "p90", jdouble(s->p90), ok);
	jadd(o, "p99", jdouble(s->p99), ok);
	jadd(o, "max", jdouble(s->max), ok);
	jadd(o, "mean", jdouble(s->mean), ok);
	jadd(o, "stddev", jdouble(s->stddev), ok);
	jadd(o, "ci_lo", jdouble(s->ci_lo), ok);
	jadd(o, "ci_hi", jdouble(s->ci_hi), ok);
	return o;
}

static const char *dir_name(enum bench_direction d)
{
	return d == BENCH_HIGHER_IS_BETTER ? "higher_is_better" : "lower_is_better";
}

static void utc_string(int64_t t, char *buf, size_t len, bool compact)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm)) {
		snprintf(buf, len, "unknown");
		return;
	}
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_object *jmachine(const struct bench_run *r, bool *ok)
{
	const struct bench_machine *m = &r->machine;
	json_object *o = json_object_new_object(), *b;

	if (!o) {
		*ok = false;
		return NULL;
	}
	jadd(o, "id", json_object_new_string(m->id), ok);
	jadd(o, "hostname", json_object_new_string(m->hostname), ok);
	jadd(o, "cpu_model", json_object_new_string(m->cpu_model), ok);
	jadd(o, "cpu_signature", json_object_new_string(m->cpu_signature), ok);
	jadd(o, "kernel", json_object_new_string(m->kernel), ok);
	jadd(o, "arch", json_object_new_string(m->arch), ok);
	jadd(o, "packages", json_object_new_int64(m->packages), ok);
	jadd(o, "cores", json_object_new_int64(m->cores), ok);
	jadd(o, "pus", json_object_new_int64(m->pus), ok);
	jadd(o, "numa_nodes", json_object_new_int64(m->numa_nodes), ok);
	jadd(o, "l1d_bytes", json_object_new_uint64(m->l1d_bytes), ok);
	jadd(o, "l2_bytes", json_object_new_uint64(m->l2_bytes), ok);
	jadd(o, "l3_bytes", json_object_new_uint64(m->l3_bytes), ok);
	jadd(o, "ram_bytes", json_object_new_uint64(m->ram_bytes), ok);
	jadd(o, "topology_source", json_object_new_string(m->have_hwloc ? "hwloc" : "sysconf"), ok);
	b = json_object_new_object();
	if (b) {
		jadd(b, "version", json_object_new_string(TTM_VERSION), ok);
		jadd(b, "git_rev", json_object_new_string(TTM_GIT_REV), ok);
		jadd(b, "compiler", json_object_new_string(TTM_COMPILER), ok);
		jadd(b, "build_type", json_object_new_string(TTM_BUILD_TYPE), ok);
		jadd(b, "sanitize", json_object_new_string(TTM_SANITIZE), ok);
		jadd(b, "fault_inject", json_object_new_boolean(FAULT_INJECT_ENABLED), ok);
		jadd(b, "validate_delay_ns", json_object_new_double(TTM_VALIDATE_DELAY_NS), ok);
		jadd(b, "fence_delay_ns", json_object_new_double(TTM_FENCE_DELAY_NS), ok);
		jadd(b, "evict_delay_ns", json_object_new_double(TTM_EVICT_DELAY_NS), ok);
	}
	jadd(o, "build", b, ok);
	jadd(o, "backend",
	     json_object_new_string(r->opts.backend == BENCH_BACKEND_HW	    ? "hw"
				    : r->opts.backend == BENCH_BACKEND_CORE ? "core"
									    : "sim"),
	     ok);
	jadd(o, "backend_params", jkvs(&r->priv->backend_params, ok), ok);
	return o;
}

static json_object *joptions(const struct bench_options *op, bool *ok)
{
	json_object *o = json_object_new_object(), *c;
	unsigned i;

	if (!o) {
		*ok = false;
		return NULL;
	}
	jadd(o, "reps", json_object_new_int64(op->reps), ok);
	jadd(o, "warmup", json_object_new_int64(op->warmup), ok);
	jadd(o, "duration_s", jdouble(op->duration_s), ok);
	jadd(o, "quick", json_object_new_boolean(op->quick), ok);
	jadd(o, "threads", json_object_new_int64(op->threads), ok);
	jadd(o, "seed", json_object_new_uint64(op->seed), ok);
	c = json_object_new_array();
	for (i = 0; c && i < op->ncpus; i++)
		jpush(c, json_object_new_int64(op->cpus[i]), ok);
	jadd(o, "cpus", c, ok);
	return o;
}

static int cmp_icount(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static json_object *jmetric(const struct bench_metric *m, bool *ok)
{
	json_object *o = json_object_new_object(), *x, *arr;
	struct bench_stats s;
	bool have = !bench_metric_stats(m, &s);
	double ratio;
	size_t i, n;

	if (!o) {
		*ok = false;
		return NULL;
	}
	jadd(o, "name", json_object_new_string(m->name), ok);
	jadd(o, "unit", json_object_new_string(m->unit), ok);
	jadd(o, "direction", json_object_new_string(dir_name(m->dir)), ok);
	jadd(o, "kind", json_object_new_string(m->hist ? "histogram" : "samples"), ok);
	jadd(o, "stats", have ? jstats(&s, ok) : JNULL, ok);
	if (m->hist) {
		const struct bench_hist *h = m->hist;

		x = json_object_new_object();
		if (x) {
			json_object *b = json_object_new_array();
			unsigned k;

			jadd(x, "sub_bits", json_object_new_int64(BENCH_HIST_SUB_BITS), ok);
			jadd(x, "n", json_object_new_uint64(h->n), ok);
			jadd(x, "min", json_object_new_uint64(h->n ? h->min : 0), ok);
			jadd(x, "max", json_object_new_uint64(h->max), ok);
			jadd(x, "sum", jdouble(h->sum), ok);
			jadd(x, "sumsq", jdouble(h->sumsq), ok);
			for (k = 0; b && k < BENCH_HIST_BUCKETS; k++) {
				json_object *pair;

				if (!h->counts[k])
					continue;
				pair = json_object_new_array();
				if (pair) {
					jpush(pair, json_object_new_int64(k), ok);
					jpush(pair, json_object_new_uint64(h->counts[k]), ok);
				}
				jpush(b, pair, ok);
			}
			jadd(x, "buckets", b, ok);
		}
		jadd(o, "histogram", x, ok);
		/* bench_run_round_end(): one median per round, none without rounds. */
		if (m->nsamples) {
			x = json_object_new_array();
			for (i = 0; x && i < m->nsamples; i++)
				jpush(x, jdouble(m->samples[i]), ok);
			jadd(o, "round_medians", x, ok);
		}
	} else {
		x = json_object_new_array();
		n = m->nsamples < BENCH_SAMPLES_STORED_MAX ? m->nsamples : BENCH_SAMPLES_STORED_MAX;
		for (i = 0; x && i < n; i++)
			jpush(x, jdouble(m->samples[i]), ok);
		jadd(o, "samples", x, ok);
		jadd(o, "samples_total", json_object_new_uint64(m->nsamples), ok);
	}
	if (m->has_ref) {
		const struct bench_reference *rf = &m->run->refs[m->ref];

		x = json_object_new_object();
		if (x) {
			jadd(x, "name", json_object_new_string(rf->name), ok);
			jadd(x, "form",
			     json_object_new_string(m->form == BENCH_RATIO_VALUE_OVER_REF
							? "value/reference"
							: "reference/value"),
			     ok);
			jadd(x, "value", rf->measured ? jdouble(rf->stats.median) : JNULL, ok);
			jadd(x, "ratio",
			     have && bench_metric_ratio(m, s.median, &ratio) ? jdouble(ratio)
									     : JNULL,
			     ok);
		}
		jadd(o, "reference", x, ok);
	}
	if (m->has_target) {
		x = json_object_new_object();
		if (x) {
			jadd(x, "value", jdouble(m->target), ok);
			jadd(x, "cmp",
			     json_object_new_string(m->cmp == BENCH_TARGET_AT_MOST ? "<=" : ">="),
			     ok);
			jadd(x, "pass",
			     have ? json_object_new_boolean(bench_metric_passes(m, s.median))
				  : JNULL,
			     ok);
		}
		jadd(o, "target", x, ok);
	}
	if (m->platform)
		jadd(o, "platform", json_object_new_boolean(true), ok);
	if (m->bound)
		jadd(o, "bound", json_object_new_string(m->bound->name), ok);
	jadd(o, "labels", jkvs(&m->labels, ok), ok);
	if (m->nicount) {
		double *sorted = malloc(m->nicount * sizeof(*sorted));

		x = json_object_new_object();
		if (x && sorted) {
			memcpy(sorted, m->icount, m->nicount * sizeof(*sorted));
			qsort(sorted, m->nicount, sizeof(*sorted), cmp_icount);
			jadd(x, "per_op", jdouble(bench_percentile_sorted(sorted, m->nicount, 0.5)),
			     ok);
			jadd(x, "tool", json_object_new_string("callgrind"), ok);
			arr = json_object_new_array();
			for (i = 0; arr && i < m->nicount; i++)
				jpush(arr, jdouble(m->icount[i]), ok);
			jadd(x, "samples", arr, ok);
		} else {
			*ok = false;
		}
		free(sorted);
		jadd(o, "instructions", x, ok);
	}
	return o;
}

static json_object *jseries(const struct bench_series *s, bool *ok)
{
	json_object *o = json_object_new_object(), *c, *rows;
	size_t i, w = 1 + s->ncols;
	unsigned k;

	if (!o) {
		*ok = false;
		return NULL;
	}
	jadd(o, "name", json_object_new_string(s->name), ok);
	c = json_object_new_array();
	if (c) {
		jpush(c, json_object_new_string("t"), ok);
		for (k = 0; k < s->ncols; k++)
			jpush(c, json_object_new_string(s->columns[k]), ok);
	}
	jadd(o, "columns", c, ok);
	rows = json_object_new_array();
	for (i = 0; rows && i < s->nrows; i++) {
		json_object *row = json_object_new_array();

		for (k = 0; row && k < w; k++)
			jpush(row, jdouble(s->rows[i * w + k]), ok);
		jpush(rows, row, ok);
	}
	jadd(o, "rows", rows, ok);
	return o;
}

static json_object *run_to_json(struct bench_run *r)
{
	struct bench_run_priv *p = r->priv;
	json_object *root = json_object_new_object(), *x;
	char utc[32];
	bool ok = true;
	size_t i;
	int k;

	if (!root)
		return NULL;
	jadd(root, "schema", json_object_new_string(BENCH_SCHEMA_NAME), &ok);
	jadd(root, "schema_version", json_object_new_int64(BENCH_SCHEMA_VERSION), &ok);
	jadd(root, "benchmark", json_object_new_string(r->name), &ok);
	utc_string(r->started_unix, utc, sizeof(utc), false);
	jadd(root, "started_utc", json_object_new_string(utc), &ok);
	jadd(root, "elapsed_s", jdouble((double)(testlib_now_raw_ns() - r->started_ns) / 1e9), &ok);
	jadd(root, "options", joptions(&r->opts, &ok), &ok);
	jadd(root, "parameters", jkvs(&p->params, &ok), &ok);
	jadd(root, "machine", jmachine(r, &ok), &ok);
	/* Wall times measured under callgrind are not the code's: say so. */
	if (bench_icount_active())
		jadd(root, "instruction_tool", json_object_new_string("callgrind"), &ok);
	x = json_object_new_object();
	for (k = 0; x && k < BENCH_REF_COUNT; k++) {
		const struct bench_reference *rf = &r->refs[k];
		json_object *o;

		if (!rf->measured)
			continue;
		o = json_object_new_object();
		if (o) {
			jadd(o, "unit", json_object_new_string(rf->unit), &ok);
			jadd(o, "direction", json_object_new_string(dir_name(rf->direction)), &ok);
			jadd(o, "stats", jstats(&rf->stats, &ok), &ok);
		}
		jadd(x, rf->name, o, &ok);
	}
	jadd(root, "references", x, &ok);
	x = json_object_new_array();
	for (i = 0; x && i < p->nmetrics; i++)
		jpush(x, jmetric(p->metrics[i], &ok), &ok);
	jadd(root, "metrics", x, &ok);
	x = json_object_new_array();
	for (i = 0; x && i < p->nseries; i++)
		jpush(x, jseries(p->series[i], &ok), &ok);
	jadd(root, "series", x, &ok);
	if (!ok) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

/*
 * Where @path (NULL: opts.out, else ".") sends the results: a directory gets
 * "<name>-<machine>-<utc>[-N].json" inside it, anything else is taken as the
 * file name, which must not exist yet: a results file never replaces a file,
 * and never anything that is not a regular file (a device node, a FIFO).
 */
static int output_target(struct bench_run *r, const char *path, struct bench_output *o, char *err,
			 size_t errlen)
{
	const char *p = path ? path : r->opts.out ? r->opts.out : ".";
	struct stat st;
	char utc[32];

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!*p) {
		bench_set_err(err, errlen, "empty output path");
		return -EINVAL;
	}
	if (!stat(p, &st) && S_ISDIR(st.st_mode)) {
		utc_string(r->started_unix, utc, sizeof(utc), true);
		if (asprintf(&o->base, "%s/%s-%s-%s", p, r->name, r->machine.id, utc) < 0) {
			o->base = NULL;
			return -ENOMEM;
		}
		o->in_dir = true;
		return 0;
	}
	if (!lstat(p, &st)) {
		bench_set_err(err, errlen,
			      S_ISREG(st.st_mode)
				  ? "%s: exists; results are never written over a file"
				  : "%s: exists and is not a regular file or directory",
			      p);
		return -EEXIST;
	}
	o->base = strdup(p);
	return o->base ? 0 : -ENOMEM;
}

/* The directory the output goes into (caller frees). */
static char *output_dir(const struct bench_output *o)
{
	const char *slash = strrchr(o->base, '/');

	if (!slash)
		return strdup(".");
	if (slash == o->base)
		return strdup("/");
	return strndup(o->base, (size_t)(slash - o->base));
}

static int output_open(struct bench_output *o, char *err, size_t errlen)
{
	if (asprintf(&o->tmp, "%s%s.tmp.%ld", o->base, o->in_dir ? ".json" : "", (long)getpid()) <
	    0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (o->fd < 0) {
		int rc = -errno;

		bench_set_err(err, errlen, "%s: cannot create: %s", o->tmp, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return rc;
	}
	return 0;
}

void bench_output_release(struct bench_output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->base);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

/*
 * Remove "<anything>.json.tmp.<pid>" regular files of processes that no
 * longer exist: what a killed run left behind. A live pid (ours, another
 * run's, or a reused number) keeps its file.
 */
static void sweep_stale(const char *dir, const char *prog)
{
	static const char mark[] = ".json.tmp.";
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *t = NULL, *s = e->d_name, *q;
		struct stat st;
		char *end;
		long pid;

		while ((q = strstr(s, mark))) {
			t = q;
			s = q + 1;
		}
		if (!t || t == e->d_name)
			continue;
		t += sizeof(mark) - 1;
		if (*t < '1' || *t > '9')
			continue;
		errno = 0;
		pid = strtol(t, &end, 10);
		if (errno || *end || pid <= 0 || pid > INT32_MAX || pid == (long)getpid())
			continue;
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (!unlinkat(dirfd(d), e->d_name, 0))
			fprintf(stderr,
				"%s: removed stale temporary file %s/%s (process %ld is gone)\n",
				prog, dir, e->d_name, pid);
	}
	closedir(d);
}

int bench_output_prepare(struct bench_run *r, char *err, size_t errlen)
{
	struct bench_output *o = &r->priv->out;
	char *dir;
	int rc;

	bench_output_release(o);
	rc = output_target(r, NULL, o, err, errlen);
	if (rc)
		goto fail;
	dir = output_dir(o);
	if (!dir) {
		rc = -ENOMEM;
		goto fail;
	}
	sweep_stale(dir, r->name);
	free(dir);
	rc = output_open(o, err, errlen);
	if (rc)
		goto fail;
	return 0;
fail:
	if (rc == -ENOMEM)
		bench_set_err(err, errlen, "out of memory");
	bench_output_release(o);
	return rc;
}

/* rename() that fails with -EEXIST instead of replacing @to. */
static int rename_noreplace(const char *from, const char *to)
{
	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system without RENAME_NOREPLACE: link() never replaces either. */
	if (link(from, to))
		return -errno;
	unlink(from);
	return 0;
}

/* Give the written temporary file its final name: the first free one in a directory. */
static int output_publish(struct bench_output *o, char **final)
{
	unsigned k;
	int rc = -EEXIST;

	for (k = 1; k <= 1000 && rc == -EEXIST; k++) {
		char *name;

		if (!o->in_dir)
			name = k == 1 ? strdup(o->base) : NULL;
		else if (asprintf(&name, k == 1 ? "%s.json" : "%s-%u.json", o->base, k) < 0)
			name = NULL;
		if (!name)
			return k == 1 || o->in_dir ? -ENOMEM : -EEXIST;
		rc = rename_noreplace(o->tmp, name);
		if (!rc) {
			*final = name;
			free(o->tmp);
			o->tmp = NULL;
			return 0;
		}
		free(name);
		if (!o->in_dir)
			break;
	}
	return rc;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int bench_run_write(struct bench_run *r, const char *path, char **written)
{
	struct bench_output local, *o;
	char *final = NULL;
	json_object *root;
	const char *text;
	size_t len;
	int rc;

	if (written)
		*written = NULL;
	if (!path && r->priv->out.fd >= 0) {
		o = &r->priv->out;
	} else {
		o = &local;
		rc = output_target(r, path, o, NULL, 0);
		if (!rc)
			rc = output_open(o, NULL, 0);
		if (rc) {
			bench_output_release(o);
			return rc;
		}
	}
	root = run_to_json(r);
	if (!root) {
		rc = -ENOMEM;
		goto out;
	}
	text = json_object_to_json_string_length(
	    root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED, &len);
	rc = text ? write_all(o->fd, text, len) : -ENOMEM;
	if (!rc)
		rc = write_all(o->fd, "\n", 1);
	/* fsync before rename: after a crash the name holds the whole file or nothing. */
	if (!rc && fsync(o->fd))
		rc = -errno;
	if (close(o->fd) && !rc)
		rc = -errno;
	o->fd = -1;
	if (!rc)
		rc = output_publish(o, &final);
	json_object_put(root);
out:
	bench_output_release(o);
	if (!rc && written)
		*written = final;
	else
		free(final);
	return rc;
}

/* ------------------------------------------------------------ loading */

/*
 * Read a whole results file: a regular file (a FIFO or a device would block
 * or never end) of at most BENCH_RESULTS_MAX_BYTES, NUL-terminated.
 */
static int read_file(const char *path, char **out, size_t *outlen, char *err, size_t errlen)
{
	size_t len = 0, cap = 1 << 16;
	struct stat st;
	char *buf, *nb;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		bench_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		bench_set_err(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (st.st_size > BENCH_RESULTS_MAX_BYTES) {
		bench_set_err(err, errlen, "%s: too large (%lld bytes, at most %u)", path,
			      (long long)st.st_size, BENCH_RESULTS_MAX_BYTES);
		close(fd);
		return -EFBIG;
	}
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 == cap) {
			/* The file grew while being read: still bounded. */
			if (cap > BENCH_RESULTS_MAX_BYTES) {
				bench_set_err(err, errlen, "%s: too large (more than %u bytes)",
					      path, BENCH_RESULTS_MAX_BYTES);
				rc = -EFBIG;
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				rc = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			bench_set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return rc;
}

/* Every number anywhere in @o is finite (1e999 parses to infinity). */
static bool all_finite(json_object *o)
{
	size_t i, n;

	switch (json_object_get_type(o)) {
	case json_type_double:
		return isfinite(json_object_get_double(o));
	case json_type_array:
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			if (!all_finite(json_object_array_get_idx(o, i)))
				return false;
		return true;
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			if (!all_finite(v))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

/*
 * @v is null or a possible metric value: within BENCH_VALUE_MAX of zero,
 * and not negative unless @signed_ok. Counts the
 * numbers in *@nums.
 */
static bool value_ok(json_object *v, bool signed_ok, unsigned *nums)
{
	double x;

	if (!v)
		return true;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return false;
	x = json_object_get_double(v);
	if (x > BENCH_VALUE_MAX || x < (signed_ok ? -BENCH_VALUE_MAX : 0.0))
		return false;
	(*nums)++;
	return true;
}

/*
 * Check the values of metric @m: samples, round medians and statistics are
 * null or numbers within BENCH_VALUE_MAX of zero; only a time in "ns" may be
 * negative (an overhead is a difference of two times), a rate, a size, a
 * count or a ratio may not. *@usable is set when the metric has a
 * value to compare: a numeric median or a sample.
 */
static int check_metric(json_object *m, size_t i, const char *path, bool *usable, char *err,
			size_t errlen)
{
	static const char *const stat_keys[] = {"min",	"median", "p90",   "p99",  "max",
						"mean", "stddev", "ci_lo", "ci_hi"};
	static const char *const arrays[] = {"samples", "round_medians"};
	json_object *name = NULL, *x, *v;
	const char *mname;
	bool signed_ok;
	unsigned nums;
	size_t k, j, n;

	if (!json_object_is_type(m, json_type_object)) {
		bench_set_err(err, errlen, "%s: malformed: metric %zu is not an object", path, i);
		return -EINVAL;
	}
	json_object_object_get_ex(m, "name", &name);
	mname = json_object_is_type(name, json_type_string) ? json_object_get_string(name) : "?";
	signed_ok = json_object_object_get_ex(m, "unit", &x) &&
		    json_object_is_type(x, json_type_string) &&
		    !strcmp(json_object_get_string(x), "ns");
	for (k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++) {
		if (!json_object_object_get_ex(m, arrays[k], &x) || !x)
			continue;
		if (!json_object_is_type(x, json_type_array)) {
			bench_set_err(err, errlen, "%s: malformed: %s of metric %s is not an array",
				      path, arrays[k], mname);
			return -EINVAL;
		}
		n = json_object_array_length(x);
		nums = 0;
		for (j = 0; j < n; j++) {
			v = json_object_array_get_idx(x, j);
			if (!value_ok(v, signed_ok, &nums)) {
				bench_set_err(err, errlen,
					      "%s: malformed: %s[%zu] of metric %s is %s, not a "
					      "possible value",
					      path, arrays[k], j, mname,
					      json_object_to_json_string(v));
				return -EINVAL;
			}
		}
		if (nums && k == 0)
			*usable = true;
	}
	if (json_object_object_get_ex(m, "stats", &x) && x) {
		if (!json_object_is_type(x, json_type_object)) {
			bench_set_err(err, errlen,
				      "%s: malformed: stats of metric %s is not an object", path,
				      mname);
			return -EINVAL;
		}
		for (k = 0; k < sizeof(stat_keys) / sizeof(stat_keys[0]); k++) {
			nums = 0;
			v = NULL;
			json_object_object_get_ex(x, stat_keys[k], &v);
			if (!value_ok(v, signed_ok, &nums)) {
				bench_set_err(err, errlen,
					      "%s: malformed: stats.%s of metric %s is %s, not a "
					      "possible value",
					      path, stat_keys[k], mname,
					      json_object_to_json_string(v));
				return -EINVAL;
			}
			if (nums && !strcmp(stat_keys[k], "median"))
				*usable = true;
		}
	}
	return 0;
}

int bench_results_load(const char *path, void **out, char *err, size_t errlen)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *root, *v;
	/* Set on every success of read_file(); gcc -O2 cannot prove it. */
	char *text = NULL;
	size_t len = 0, i, n, end;
	bool usable = false;
	int rc;

	*out = NULL;
	rc = read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	if (len > INT32_MAX - 1) {
		free(text);
		return -EFBIG;
	}
	tok = json_tokener_new();
	if (!tok) {
		free(text);
		return -ENOMEM;
	}
	/* Strict: no NaN or Infinity literals, no single quotes, no trailing commas. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		free(text);
		json_object_put(root);
		bench_set_err(err, errlen, "%s: malformed JSON: %s", path,
			      jerr == json_tokener_success ? "empty"
							   : json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	/* The object must be the whole file: nothing but blanks after it. */
	for (i = end; i < len && strchr(" \t\r\n", text[i]) && text[i]; i++)
		;
	free(text);
	if (i < len) {
		bench_set_err(err, errlen, "%s: malformed: data after the JSON object (offset %zu)",
			      path, i);
		rc = -EINVAL;
		goto fail;
	}
	if (!json_object_is_type(root, json_type_object)) {
		bench_set_err(err, errlen, "%s: malformed: top level is not an object", path);
		rc = -EINVAL;
		goto fail;
	}
	if (!all_finite(root)) {
		bench_set_err(err, errlen, "%s: malformed: a number is not finite", path);
		rc = -EINVAL;
		goto fail;
	}
	if (!json_object_object_get_ex(root, "schema", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), BENCH_SCHEMA_NAME)) {
		bench_set_err(err, errlen, "%s: schema mismatch: \"schema\" is not \"%s\"", path,
			      BENCH_SCHEMA_NAME);
		rc = -EPROTO;
		goto fail;
	}
	if (!json_object_object_get_ex(root, "schema_version", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != BENCH_SCHEMA_VERSION) {
		bench_set_err(err, errlen,
			      "%s: schema mismatch: schema_version %s, this tool reads %d", path,
			      v ? json_object_get_string(v) : "missing", BENCH_SCHEMA_VERSION);
		rc = -EPROTO;
		goto fail;
	}
	if (!json_object_object_get_ex(root, "benchmark", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		bench_set_err(err, errlen, "%s: malformed: \"benchmark\" missing or not a string",
			      path);
		rc = -EINVAL;
		goto fail;
	}
	if (!json_object_object_get_ex(root, "machine", &v) ||
	    !json_object_is_type(v, json_type_object)) {
		bench_set_err(err, errlen, "%s: malformed: \"machine\" missing or not an object",
			      path);
		rc = -EINVAL;
		goto fail;
	}
	if (!json_object_object_get_ex(root, "metrics", &v) ||
	    !json_object_is_type(v, json_type_array)) {
		bench_set_err(err, errlen, "%s: malformed: \"metrics\" missing or not an array",
			      path);
		rc = -EINVAL;
		goto fail;
	}
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		rc = check_metric(json_object_array_get_idx(v, i), i, path, &usable, err, errlen);
		if (rc)
			goto fail;
	}
	if (!usable) {
		bench_set_err(err, errlen, "%s: no usable metric (none has a median or a sample)",
			      path);
		rc = -EINVAL;
		goto fail;
	}
	*out = root;
	return 0;
fail:
	json_object_put(root);
	return rc;
}

static bool get_u64(json_object *o, const char *key, uint64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_uint64(x);
	return true;
}

static bool get_double(json_object *o, const char *key, double *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !(json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int)))
		return false;
	*v = json_object_get_double(x);
	return true;
}

int bench_results_metric_hist(void *metric, struct bench_hist *h)
{
	json_object *m = metric, *x, *b;
	uint64_t sub, n, total = 0;
	size_t i, len;

	if (!m || !json_object_is_type(m, json_type_object))
		return -EINVAL;
	if (!json_object_object_get_ex(m, "histogram", &x))
		return json_object_object_get_ex(m, "samples", &b) ? -ENOENT : -EINVAL;
	bench_hist_init(h);
	if (!json_object_is_type(x, json_type_object) || !get_u64(x, "sub_bits", &sub) ||
	    sub != BENCH_HIST_SUB_BITS || !get_u64(x, "n", &n) || !get_u64(x, "min", &h->min) ||
	    !get_u64(x, "max", &h->max) || !get_double(x, "sum", &h->sum) ||
	    !get_double(x, "sumsq", &h->sumsq) || !json_object_object_get_ex(x, "buckets", &b) ||
	    !json_object_is_type(b, json_type_array))
		return -EINVAL;
	len = json_object_array_length(b);
	for (i = 0; i < len; i++) {
		json_object *pair = json_object_array_get_idx(b, i), *ix, *cx;
		int64_t idx;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2)
			return -EINVAL;
		ix = json_object_array_get_idx(pair, 0);
		cx = json_object_array_get_idx(pair, 1);
		if (!json_object_is_type(ix, json_type_int) ||
		    !json_object_is_type(cx, json_type_int))
			return -EINVAL;
		idx = json_object_get_int64(ix);
		if (idx < 0 || idx >= BENCH_HIST_BUCKETS)
			return -EINVAL;
		h->counts[idx] += json_object_get_uint64(cx);
		total += json_object_get_uint64(cx);
	}
	if (total != n || (n && h->min > h->max))
		return -EINVAL;
	h->n = n;
	if (!n)
		h->min = UINT64_MAX;
	return 0;
}

/* ---------------------------------------------------------- plot data */

static FILE *dat_open(const char *dir, const char *name, const char *header, int *rc)
{
	char *p;
	FILE *f;

	if (asprintf(&p, "%s/%s", dir, name) < 0) {
		*rc = -ENOMEM;
		return NULL;
	}
	f = fopen(p, "w");
	if (!f)
		*rc = -errno;
	else
		fprintf(f, "%s\n", header);
	free(p);
	return f;
}

static const char *jstr(json_object *o, const char *key, const char *dflt)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_string))
		return dflt;
	return json_object_get_string(x);
}

static double jnum(json_object *o, const char *key)
{
	double v;

	return get_double(o, key, &v) ? v : NAN;
}

static double metric_ratio(json_object *m)
{
	json_object *ref;

	if (!json_object_object_get_ex(m, "reference", &ref))
		return NAN;
	return jnum(ref, "ratio");
}

/* Data of one loaded file into the open .dat files (NULL: not wanted yet). */
struct dat_files {
	FILE *metrics, *cdf, *evict, *fence;
	const char *dir;
	int rc;
};

static FILE *dat_lazy(struct dat_files *d, FILE **f, const char *name, const char *header)
{
	if (!*f && !d->rc)
		*f = dat_open(d->dir, name, header, &d->rc);
	return *f;
}

static int export_one(struct dat_files *d, json_object *root, const char *path, char *err,
		      size_t errlen)
{
	const char *bench = jstr(root, "benchmark", "?");
	json_object *metrics, *machine, *series;
	const char *mid;
	size_t i, n;

	json_object_object_get_ex(root, "machine", &machine);
	mid = jstr(machine, "id", "?");
	json_object_object_get_ex(root, "metrics", &metrics);
	n = json_object_array_length(metrics);
	for (i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(metrics, i), *st;
		const char *name = jstr(m, "name", NULL), *unit = jstr(m, "unit", "?");
		char pattern[64];
		unsigned ws, thr;
		/*
		 * %n is only stored when the literal suffix matched too: without it
		 * "fence.x.t1.ns_per_fence" would pass for a throughput metric.
		 */
		int end = -1;
		FILE *f;

		if (!name || !json_object_object_get_ex(m, "stats", &st) ||
		    !json_object_is_type(st, json_type_object))
			continue;
		f = dat_lazy(d, &d->metrics, "metrics.dat",
			     "# machine benchmark metric unit median min max ci_lo ci_hi ratio");
		if (!f)
			break;
		fprintf(f, "%s %s %s %s %.17g %.17g %.17g %.17g %.17g %.17g\n", mid, bench, name,
			unit, jnum(st, "median"), jnum(st, "min"), jnum(st, "max"),
			jnum(st, "ci_lo"), jnum(st, "ci_hi"), metric_ratio(m));
		if (!strncmp(name, "validate.", 9)) {
			struct bench_hist *h = malloc(sizeof(*h));
			uint64_t seen = 0;
			unsigned k;

			if (!h) {
				d->rc = -ENOMEM;
				break;
			}
			if (!bench_results_metric_hist(m, h) && h->n &&
			    (f = dat_lazy(d, &d->cdf, "validate-cdf.dat",
					  "# metric value_ns cumulative_fraction"))) {
				for (k = 0; k < BENCH_HIST_BUCKETS; k++) {
					if (!h->counts[k])
						continue;
					seen += h->counts[k];
					fprintf(f, "%s %.17g %.9f\n", name,
						bench_hist_bucket_mid(k),
						(double)seen / (double)h->n);
				}
				fprintf(f, "\n\n");
			}
			free(h);
		} else if (sscanf(name, "evict.%63[^.].ws%u.throughput%n", pattern, &ws, &end) ==
			       2 &&
			   end > 0 && !name[end]) {
			f = dat_lazy(d, &d->evict, "eviction.dat",
				     "# pattern ws_pct median min max ci_lo ci_hi unit");
			if (f)
				fprintf(f, "%s %u %.17g %.17g %.17g %.17g %.17g %s\n", pattern, ws,
					jnum(st, "median"), jnum(st, "min"), jnum(st, "max"),
					jnum(st, "ci_lo"), jnum(st, "ci_hi"), unit);
		} else if (sscanf(name, "fence.%63[^.].t%u.throughput%n", pattern, &thr, &end) ==
			       2 &&
			   end > 0 && !name[end]) {
			f = dat_lazy(d, &d->fence, "fence.dat",
				     "# case threads median min max ci_lo ci_hi unit");
			if (f)
				fprintf(f, "%s %u %.17g %.17g %.17g %.17g %.17g %s\n", pattern, thr,
					jnum(st, "median"), jnum(st, "min"), jnum(st, "max"),
					jnum(st, "ci_lo"), jnum(st, "ci_hi"), unit);
		}
	}
	if (!d->rc && json_object_object_get_ex(root, "series", &series) &&
	    json_object_is_type(series, json_type_array)) {
		n = json_object_array_length(series);
		for (i = 0; i < n && !d->rc; i++) {
			json_object *s = json_object_array_get_idx(series, i), *cols, *rows;
			const char *sname = jstr(s, "name", NULL);
			char *fname;
			size_t c, j, nr;
			FILE *f;

			if (!sname || strchr(sname, '/') ||
			    !json_object_object_get_ex(s, "columns", &cols) ||
			    !json_object_object_get_ex(s, "rows", &rows) ||
			    !json_object_is_type(cols, json_type_array) ||
			    !json_object_is_type(rows, json_type_array))
				continue;
			if (asprintf(&fname, "%s/series-%s.dat", d->dir, sname) < 0) {
				d->rc = -ENOMEM;
				break;
			}
			/* Appending: several input files add blocks to one series file. */
			f = fopen(fname, "a");
			free(fname);
			if (!f) {
				d->rc = -errno;
				break;
			}
			fprintf(f, "# %s %s", mid, bench);
			for (c = 0; c < json_object_array_length(cols); c++)
				fprintf(f, " %s",
					json_object_get_string(json_object_array_get_idx(cols, c)));
			fprintf(f, "\n");
			nr = json_object_array_length(rows);
			for (j = 0; j < nr; j++) {
				json_object *row = json_object_array_get_idx(rows, j);

				for (c = 0; c < json_object_array_length(row); c++)
					fprintf(f, "%s%.17g", c ? " " : "",
						json_object_get_double(
						    json_object_array_get_idx(row, c)));
				fprintf(f, "\n");
			}
			fprintf(f, "\n\n");
			fclose(f);
		}
	}
	if (d->rc)
		bench_set_err(err, errlen, "%s: cannot write into %s: %s", path, d->dir,
			      strerror(-d->rc));
	return d->rc;
}

int bench_results_to_csv(const char *const *paths, unsigned n, const char *dir, char *err,
			 size_t errlen)
{
	struct dat_files d = {.dir = dir};
	unsigned i;
	int rc = 0;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		bench_set_err(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
		return rc;
	}
	for (i = 0; i < n && !rc; i++) {
		void *root;

		rc = bench_results_load(paths[i], &root, err, errlen);
		if (rc)
			break;
		rc = export_one(&d, root, paths[i], err, errlen);
		json_object_put(root);
	}
	if (d.metrics)
		fclose(d.metrics);
	if (d.cdf)
		fclose(d.cdf);
	if (d.evict)
		fclose(d.evict);
	if (d.fence)
		fclose(d.fence);
	return rc;
}
