// SPDX-License-Identifier: MIT
/*
 * bench_run.c - the run object: setup, parameters, metrics, repetitions,
 * series, progress and the human summary.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fault_inject.h>

#include "bench_priv.h"

static const struct {
	const char *name;
	const char *unit;
	enum bench_direction dir;
} ref_desc[BENCH_REF_COUNT] = {
    [BENCH_REF_MEMCPY_BW] = {"memcpy_bw", "GB/s", BENCH_HIGHER_IS_BETTER},
    [BENCH_REF_FUTEX_RTT] = {"futex_rtt", "ns", BENCH_LOWER_IS_BETTER},
    [BENCH_REF_MUTEX] = {"mutex_lock_unlock", "ns", BENCH_LOWER_IS_BETTER},
    [BENCH_REF_SYSCALL] = {"syscall_getppid", "ns", BENCH_LOWER_IS_BETTER},
    [BENCH_REF_MEMFD_WRITE_BW] = {"memfd_write_bw", "GB/s", BENCH_HIGHER_IS_BETTER},
    [BENCH_REF_CLOCK] = {"clock_gettime", "ns", BENCH_LOWER_IS_BETTER},
};

/* ---------------------------------------------------------- key/value */

static void kvs_fini(struct bench_kvs *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].value);
	}
	free(k->v);
	memset(k, 0, sizeof(*k));
}

/* Takes ownership of @value (freed on failure too). */
static int kvs_set(struct bench_kvs *k, const char *key, char *value)
{
	struct bench_kv *nv;
	char *kc;
	size_t i;

	if (!key || !*key) {
		free(value);
		return -EINVAL;
	}
	for (i = 0; i < k->n; i++) {
		if (!strcmp(k->v[i].key, key)) {
			free(k->v[i].value);
			k->v[i].value = value;
			return 0;
		}
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;

		nv = realloc(k->v, cap * sizeof(*nv));
		if (!nv) {
			free(value);
			return -ENOMEM;
		}
		k->v = nv;
		k->cap = cap;
	}
	kc = strdup(key);
	if (!kc) {
		free(value);
		return -ENOMEM;
	}
	k->v[k->n].key = kc;
	k->v[k->n].value = value;
	k->n++;
	return 0;
}

static int kvs_vsetf(struct bench_kvs *k, const char *key, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static int kvs_vsetf(struct bench_kvs *k, const char *key, const char *fmt, va_list ap)
{
	char *v;

	if (vasprintf(&v, fmt, ap) < 0)
		return -ENOMEM;
	return kvs_set(k, key, v);
}

/* ---------------------------------------------------------------- run */

int bench_run_init(struct bench_run *r, const char *name, const struct bench_options *opts)
{
	int i, rc;

	if (!name || !*name || !opts)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->opts = *opts;
	r->priv = calloc(1, sizeof(*r->priv));
	if (!r->priv)
		return -ENOMEM;
	r->priv->out.fd = -1;
	rc = bench_machine_probe(&r->machine);
	if (rc) {
		free(r->priv);
		r->priv = NULL;
		return rc;
	}
	/* Before any pinning: what bench_device_cpus() may hand out. */
	if (sched_getaffinity(0, sizeof(r->priv->allowed), &r->priv->allowed)) {
		CPU_ZERO(&r->priv->allowed);
		for (i = 0; i < (int)r->machine.pus && i < CPU_SETSIZE; i++)
			CPU_SET(i, &r->priv->allowed);
	}
	for (i = 0; i < BENCH_REF_COUNT; i++) {
		r->refs[i].name = ref_desc[i].name;
		r->refs[i].unit = ref_desc[i].unit;
		r->refs[i].direction = ref_desc[i].dir;
	}
	r->started_ns = testlib_now_raw_ns();
	r->started_unix = (int64_t)time(NULL);
	return 0;
}

int bench_setup(struct bench_run *r, const char *name, int argc, char **argv,
		const struct bench_opt *extra, void *ctx)
{
	struct bench_options o;
	const char *prog = argc > 0 && argv[0] ? argv[0] : name;
	char err[256];
	unsigned i;
	int rc;

	rc = bench_options_parse(&o, argc, argv, extra, ctx, err, sizeof(err));
	if (rc == BENCH_SETUP_HELP) {
		bench_options_usage(stdout, prog, name, extra);
		return BENCH_SETUP_HELP;
	}
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return BENCH_SETUP_USAGE;
	}
	/* A fault spec that does not parse would measure with no fault configured. */
	if (fault_init_from_env())
		return BENCH_SETUP_USAGE;
	rc = bench_run_init(r, name, &o);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, strerror(-rc));
		return rc;
	}
	for (i = 0; i < o.ncpus; i++) {
		if (o.cpus[i] >= CPU_SETSIZE || !CPU_ISSET(o.cpus[i], &r->priv->allowed)) {
			fprintf(stderr,
				"%s: --cpus: CPU %u is not one this process may run on (%u CPUs "
				"online)\n",
				prog, o.cpus[i], r->machine.pus);
			bench_run_fini(r);
			return BENCH_SETUP_USAGE;
		}
	}
	/* Before anything is measured: an unwritable output fails now, not after the run. */
	err[0] = '\0';
	rc = bench_output_prepare(r, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: --out: %s\n", prog, err[0] ? err : strerror(-rc));
		bench_run_fini(r);
		return rc;
	}
	return 0;
}

static void metric_free(struct bench_metric *m)
{
	free(m->name);
	free(m->unit);
	free(m->hist);
	free(m->round);
	free(m->samples);
	free(m->icount);
	kvs_fini(&m->labels);
	free(m);
}

static void series_free(struct bench_series *s)
{
	unsigned i;

	for (i = 0; i < s->ncols; i++)
		free(s->columns[i]);
	free(s->columns);
	free(s->rows);
	free(s->name);
	free(s);
}

void bench_run_fini(struct bench_run *r)
{
	struct bench_run_priv *p = r->priv;
	size_t i;

	if (p) {
		for (i = 0; i < p->nmetrics; i++)
			metric_free(p->metrics[i]);
		free(p->metrics);
		for (i = 0; i < p->nseries; i++)
			series_free(p->series[i]);
		free(p->series);
		kvs_fini(&p->params);
		kvs_fini(&p->backend_params);
		free(p->phase);
		bench_output_release(&p->out);
		free(p);
		r->priv = NULL;
	}
	bench_machine_fini(&r->machine);
}

int bench_run_param(struct bench_run *r, const char *key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = kvs_vsetf(&r->priv->params, key, fmt, ap);
	va_end(ap);
	return rc;
}

int bench_run_backend_param(struct bench_run *r, const char *key, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = kvs_vsetf(&r->priv->backend_params, key, fmt, ap);
	va_end(ap);
	return rc;
}

/* ------------------------------------------------------------ metrics */

struct bench_metric *bench_metric_add(struct bench_run *r, const char *name, const char *unit,
				      enum bench_direction dir)
{
	struct bench_run_priv *p = r->priv;
	struct bench_metric *m, **nv;

	if (!name || !*name || !unit || bench_metric_find(r, name))
		return NULL;
	nv = realloc(p->metrics, (p->nmetrics + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	p->metrics = nv;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->run = r;
	m->dir = dir;
	m->name = strdup(name);
	m->unit = strdup(unit);
	if (!m->name || !m->unit) {
		metric_free(m);
		return NULL;
	}
	p->metrics[p->nmetrics++] = m;
	return m;
}

struct bench_metric *bench_metric_find(struct bench_run *r, const char *name)
{
	struct bench_run_priv *p = r->priv;
	size_t i;

	for (i = 0; name && i < p->nmetrics; i++)
		if (!strcmp(p->metrics[i]->name, name))
			return p->metrics[i];
	return NULL;
}

int bench_metric_use_hist(struct bench_metric *m)
{
	if (m->hist)
		return 0;
	if (m->nsamples)
		return -EBUSY;
	m->hist = malloc(sizeof(*m->hist));
	m->round = malloc(sizeof(*m->round));
	if (!m->hist || !m->round) {
		free(m->hist);
		free(m->round);
		m->hist = m->round = NULL;
		return -ENOMEM;
	}
	bench_hist_init(m->hist);
	bench_hist_init(m->round);
	return 0;
}

int bench_push_double(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		double *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int metric_push(struct bench_metric *m, double v)
{
	return bench_push_double(&m->samples, &m->nsamples, &m->cap, v);
}

int bench_metric_sample(struct bench_metric *m, double v)
{
	if (m->hist || !isfinite(v))
		return -EINVAL;
	return metric_push(m, v);
}

int bench_metric_record(struct bench_metric *m, uint64_t v)
{
	if (m->hist) {
		bench_hist_record(m->hist, v);
		bench_hist_record(m->round, v);
		return 0;
	}
	return metric_push(m, (double)v);
}

int bench_metric_merge_hist(struct bench_metric *m, const struct bench_hist *h)
{
	if (!m->hist)
		return -EINVAL;
	bench_hist_merge(m->hist, h);
	bench_hist_merge(m->round, h);
	return 0;
}

/* A histogram metric's samples are its round medians (bench_metric_sample() refuses them). */
int bench_run_round_end(struct bench_run *r)
{
	struct bench_run_priv *p = r->priv;
	size_t i;

	for (i = 0; i < p->nmetrics; i++) {
		struct bench_metric *m = p->metrics[i];
		int rc;

		if (!m->hist || !m->round->n)
			continue;
		rc = metric_push(m, bench_hist_percentile(m->round, 0.5));
		if (rc)
			return rc;
		bench_hist_init(m->round);
	}
	return 0;
}

void bench_metric_reference(struct bench_metric *m, enum bench_ref_id ref,
			    enum bench_ratio_form form)
{
	if ((unsigned)ref >= BENCH_REF_COUNT)
		return;
	m->has_ref = true;
	m->ref = ref;
	m->form = form;
}

void bench_metric_target(struct bench_metric *m, double target, enum bench_target_cmp cmp)
{
	m->has_target = true;
	m->target = target;
	m->cmp = cmp;
}

void bench_metric_platform(struct bench_metric *m)
{
	m->platform = true;
}

void bench_metric_bound(struct bench_metric *m, const struct bench_metric *bound)
{
	m->bound = bound;
}

int bench_metric_label(struct bench_metric *m, const char *key, const char *value)
{
	char *v = strdup(value ? value : "");

	if (!v)
		return -ENOMEM;
	return kvs_set(&m->labels, key, v);
}

int bench_metric_stats(const struct bench_metric *m, struct bench_stats *out)
{
	if (m->hist)
		return bench_hist_stats(m->hist, out);
	return bench_stats_compute(m->samples, m->nsamples, m->run->opts.seed, out);
}

bool bench_metric_ratio(const struct bench_metric *m, double value, double *ratio)
{
	const struct bench_reference *ref;
	double rv;

	if (!m->has_ref)
		return false;
	ref = &m->run->refs[m->ref];
	rv = ref->stats.median;
	if (!ref->measured || !(rv > 0.0) || !(value > 0.0))
		return false;
	*ratio = m->form == BENCH_RATIO_VALUE_OVER_REF ? value / rv : rv / value;
	return true;
}

bool bench_metric_passes(const struct bench_metric *m, double value)
{
	return m->cmp == BENCH_TARGET_AT_MOST ? value <= m->target : value >= m->target;
}

int bench_repeat(struct bench_run *r, struct bench_metric *m, bench_rep_fn fn, void *ctx)
{
	int total = (int)r->opts.warmup + (int)r->opts.reps, i, rc;
	double v;

	for (i = -(int)r->opts.warmup; i < (int)r->opts.reps; i++) {
		v = NAN;
		rc = fn(ctx, i, &v);
		if (rc)
			goto out;
		if (i >= 0) {
			rc = bench_metric_sample(m, v);
			if (rc)
				goto out;
		}
		bench_progress(r, m->name, (double)(i + (int)r->opts.warmup + 1) / total);
	}
	rc = 0;
out:
	bench_progress_done(r);
	return rc;
}

/* ------------------------------------------------------------- series */

struct bench_series *bench_series_add(struct bench_run *r, const char *name,
				      const char *const *columns, unsigned ncols)
{
	struct bench_run_priv *p = r->priv;
	struct bench_series *s, **nv;
	unsigned i;

	if (!name || !*name || !ncols || !columns)
		return NULL;
	nv = realloc(p->series, (p->nseries + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	p->series = nv;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = strdup(name);
	s->columns = calloc(ncols, sizeof(*s->columns));
	if (!s->name || !s->columns)
		goto fail;
	/* ncols counts only the successful copies so series_free() stays exact. */
	for (i = 0; i < ncols; i++) {
		s->columns[i] = strdup(columns[i] ? columns[i] : "");
		if (!s->columns[i])
			goto fail;
		s->ncols = i + 1;
	}
	p->series[p->nseries++] = s;
	return s;
fail:
	series_free(s);
	return NULL;
}

int bench_series_append(struct bench_series *s, double t, const double *values)
{
	size_t w = 1 + s->ncols;

	if (s->nrows == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		double *nv = realloc(s->rows, cap * w * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->rows = nv;
		s->cap = cap;
	}
	s->rows[s->nrows * w] = t;
	memcpy(&s->rows[s->nrows * w + 1], values, s->ncols * sizeof(*values));
	s->nrows++;
	return 0;
}

/* ----------------------------------------------------------- progress */

void bench_progress(struct bench_run *r, const char *phase, double fraction)
{
	struct bench_run_priv *p = r->priv;
	uint64_t now = testlib_now_raw_ns();
	double el, eta;

	if (!isatty(STDERR_FILENO) || !phase)
		return;
	if (!p->phase || strcmp(p->phase, phase)) {
		char *c = strdup(phase);

		if (!c)
			return;
		free(p->phase);
		p->phase = c;
		p->phase_start_ns = now;
		p->last_progress_ns = 0;
	}
	if (p->last_progress_ns && now - p->last_progress_ns < 100000000ull)
		return;
	p->last_progress_ns = now;
	el = (double)(now - p->phase_start_ns) / 1e9;
	eta = fraction > 0.0 ? el * (1.0 - fraction) / fraction : 0.0;
	fprintf(stderr, "\r\033[K%s  %3.0f%%  ETA %.0fs", phase, fraction * 100.0, eta);
	p->progress_shown = true;
}

void bench_progress_done(struct bench_run *r)
{
	struct bench_run_priv *p = r->priv;

	if (p->progress_shown)
		fprintf(stderr, "\r\033[K");
	p->progress_shown = false;
	free(p->phase);
	p->phase = NULL;
}

/* ------------------------------------------------------------ summary */

void bench_summary_print(struct bench_run *r, FILE *f)
{
	struct bench_run_priv *p = r->priv;
	size_t i;
	int k;

	fprintf(f,
		"%s: median over repetitions, [min max] spread, 95%% CI of the median;"
		" ratio v/r = value/reference, r/v = reference/value\n",
		r->name);
	fprintf(f, "%-36s %24s %-6s %-30s %10s %-14s %s\n", "metric", "value", "unit", "reference",
		"ratio", "target", "result");
	for (i = 0; i < p->nmetrics; i++) {
		const struct bench_metric *m = p->metrics[i];
		char val[64], ref[64] = "-", ratio[32] = "-", tgt[32] = "-";
		const char *res = "-";
		struct bench_stats s;
		double rt;

		if (bench_metric_stats(m, &s)) {
			fprintf(f, "%-36s %24s %-6s (no samples)\n", m->name, "-", m->unit);
			continue;
		}
		if (m->hist)
			snprintf(val, sizeof(val), "%.4g p99 %.4g", s.median, s.p99);
		else
			snprintf(val, sizeof(val), "%.4g", s.median);
		if (m->has_ref) {
			const struct bench_reference *rf = &r->refs[m->ref];

			if (rf->measured)
				snprintf(ref, sizeof(ref), "%s %.4g %s", rf->name, rf->stats.median,
					 rf->unit);
			else
				snprintf(ref, sizeof(ref), "%s (not measured)", rf->name);
		}
		if (bench_metric_ratio(m, s.median, &rt))
			snprintf(ratio, sizeof(ratio), "%s%.3g",
				 m->form == BENCH_RATIO_VALUE_OVER_REF ? "v/r " : "r/v ", rt);
		if (m->has_target) {
			snprintf(tgt, sizeof(tgt), "%s %.4g",
				 m->cmp == BENCH_TARGET_AT_MOST ? "<=" : ">=", m->target);
			res = bench_metric_passes(m, s.median) ? "pass" : "MISS";
		}
		fprintf(f, "%-36s %24s %-6s %-30s %10s %-14s %s\n", m->name, val, m->unit, ref,
			ratio, tgt, res);
		fprintf(f, "%-36s   n=%llu [%.4g %.4g] CI [%.4g %.4g]\n", "",
			(unsigned long long)s.n, s.min, s.max, s.ci_lo, s.ci_hi);
	}
	fprintf(f, "machine %s (%s, %u cores / %u PUs, %s)\n", r->machine.id, r->machine.cpu_model,
		r->machine.cores, r->machine.pus, r->machine.kernel);
	for (k = 0; k < BENCH_REF_COUNT; k++) {
		const struct bench_reference *rf = &r->refs[k];

		if (rf->measured)
			fprintf(f, "  reference %-20s %10.4g %-5s [%.4g %.4g]\n", rf->name,
				rf->stats.median, rf->unit, rf->stats.min, rf->stats.max);
	}
}

int bench_run_finish(struct bench_run *r)
{
	char *path = NULL;
	int rc;

	rc = bench_run_write(r, NULL, &path);
	bench_summary_print(r, stdout);
	if (rc)
		fprintf(stderr, "%s: cannot write the results file: %s\n", r->name, strerror(-rc));
	else
		printf("results: %s\n", path);
	free(path);
	bench_run_fini(r);
	return rc ? 1 : 0;
}
