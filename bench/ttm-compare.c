// SPDX-License-Identifier: MIT
/*
 * ttm-compare - compare two sets of benchmark results (files or directories
 * of *.json) metric by metric, with a confidence interval of each change.
 *
 * Results are matched by benchmark name + parameters + metric name. Several
 * files on one side with the same key (repeated runs) are pooled. The
 * change is (new - base) / base of the medians; its 95% interval comes from
 * a paired percentile bootstrap on the stored samples, or, for histogram
 * metrics, from the delta method on the stored order-statistic intervals.
 *
 * Exit: 0 no regression, 1 a regression beyond --threshold whose interval
 * excludes zero, 2 usage error or unreadable / malformed / schema-mismatched
 * input (one line naming the problem).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "bench.h"
#include "ttm-compare-run.h"

#define EXIT_REGRESSION 1
#define EXIT_BAD_INPUT 2

/**
 * struct cmp_entry - one metric of one side, pooled over that side's files.
 * @key: benchmark '\t' sorted parameters '\t' metric (owned).
 * @label: printable "benchmark[params] metric" (owned).
 * @name_off: where the metric's name starts in @label; what comes before
 *            it is the group ("benchmark[params] ") the table prints once.
 * @unit: unit (owned).
 * @higher_better: direction.
 * @samples: pooled raw samples (a histogram's round medians when it has
 *           three or more), already divided into ratios with --ratios.
 * @n: used samples.
 * @cap: allocated samples.
 * @ratio: the values are ratios to the same-run reference @ref, not absolute.
 * @ref: name of that reference ("" for an absolute entry).
 * @is_hist: the metric carries a histogram (no samples, fewer than three
 *           round medians): @median, @ci_lo
 *           and @ci_hi are taken from the (first) stored stats.
 * @platform: the metric measures the machine ("platform": true): shown,
 *            never a regression.
 * @bound_key: key of the platform metric bounding this one ("bound"), or
 *             NULL (owned).
 * @median: the median when @is_hist.
 * @ci_lo: lower end of the median's interval when @is_hist.
 * @ci_hi: upper end when @is_hist.
 */
struct cmp_entry {
	char *key;
	char *label;
	size_t name_off;
	char *unit;
	bool higher_better;
	bool ratio;
	char ref[32];
	double *samples;
	size_t n;
	size_t cap;
	bool is_hist;
	bool platform;
	char *bound_key;
	double median;
	double ci_lo;
	double ci_hi;
};

/**
 * struct cmp_side - every metric of one side.
 * @e: entries.
 * @n: used.
 * @cap: allocated.
 * @machine: machine id of the first file ("" until one is read).
 * @mixed_machines: files of this side come from different machines.
 * @ref_name: names of the references seen in this side's files.
 * @ref_logsum: sum of log(median) of each reference over the files.
 * @ref_count: files that carried each reference.
 * @nrefs: used slots of the three arrays above.
 */
#define CMP_MAX_REFS 16
struct cmp_side {
	struct cmp_entry *e;
	size_t n;
	size_t cap;
	char ref_name[CMP_MAX_REFS][32];
	double ref_logsum[CMP_MAX_REFS];
	double ref_logmin[CMP_MAX_REFS];
	double ref_logmax[CMP_MAX_REFS];
	unsigned ref_count[CMP_MAX_REFS];
	unsigned nrefs;
	char machine[64];
	bool mixed_machines;
};

/**
 * enum cmp_basis - what is compared.
 * @CMP_AUTO: the ratio to the same-run reference when the metric has one (a
 *            drift of the machine between the runs cancels), the absolute
 *            value otherwise.
 * @CMP_RATIOS: ratios only; metrics without a reference are left out.
 * @CMP_ABSOLUTE: absolute values only.
 */
enum cmp_basis {
	CMP_AUTO,
	CMP_RATIOS,
	CMP_ABSOLUTE,
};

/**
 * struct cmp_opts - command line.
 * @threshold_pct: --threshold.
 * @basis: --ratios, --absolute or the default.
 * @drift: widen the intervals by the references' drift (--no-drift clears).
 * @csv: --csv.
 * @seed: --seed.
 */
struct cmp_opts {
	double threshold_pct;
	enum cmp_basis basis;
	bool drift;
	bool csv;
	uint64_t seed;
};

static const char *prog = "ttm-compare";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--threshold PCT] [--ratios|--absolute] [--no-drift] [--csv] [--seed N]"
		" BASE NEW\n"
		"  BASE, NEW       results files or directories of *.json\n"
		"  --threshold PCT a regression smaller than this is noise (default 5)\n"
		"  (default)       a metric with a same-run reference is compared by its ratio\n"
		"                  to it, one without by its value (column 'basis')\n"
		"  --ratios        ratios only; metrics without a reference are left out\n"
		"                  (for results from different machines)\n"
		"  --absolute      absolute values only\n"
		"  --no-drift      do not widen the intervals by the references' run-to-run\n"
		"                  drift (column 'drift')\n"
		"  --csv           print CSV instead of the table\n"
		"  --seed N        bootstrap seed (default 1)\n"
		"exit: 0 no regression, 1 regression, 2 bad input\n",
		prog);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *x;

	if (!o || !json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

static bool jnum(json_object *o, const char *key, double *v)
{
	json_object *x;

	if (!o || !json_object_object_get_ex(o, key, &x) ||
	    !(json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int)))
		return false;
	*v = json_object_get_double(x);
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "k1=v1,k2=v2" with keys sorted: parameter order must not break matching. */
static char *params_string(json_object *params)
{
	size_t n = 0, i, len = 1;
	char **items, *out;

	if (!params || !json_object_is_type(params, json_type_object))
		return strdup("");
	items = calloc((size_t)json_object_object_length(params) + 1, sizeof(*items));
	if (!items)
		return NULL;
	json_object_object_foreach(params, k, v)
	{
		if (asprintf(&items[n], "%s=%s", k, json_object_get_string(v)) < 0)
			goto fail;
		len += strlen(items[n]) + 1;
		n++;
	}
	qsort(items, n, sizeof(*items), cmp_str);
	out = malloc(len);
	if (!out)
		goto fail;
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, items[i]);
		free(items[i]);
	}
	free(items);
	return out;
fail:
	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
	return NULL;
}

static struct cmp_entry *side_find(struct cmp_side *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].key, key))
			return &s->e[i];
	return NULL;
}

static int entry_push(struct cmp_entry *e, double v)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 32;
		double *nv = realloc(e->samples, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		e->samples = nv;
		e->cap = cap;
	}
	e->samples[e->n++] = v;
	return 0;
}

/*
 * With --ratios every value becomes its ratio to the reference measured in
 * the same file, and "better" follows the ratio's form: value/reference
 * keeps the metric's direction, reference/value inverts it.
 */
static bool ratio_transform(json_object *m, json_object *refs, bool *higher_better, double *refval,
			    bool *value_over_ref, const char **refname)
{
	json_object *ref, *rs, *st;
	const char *name, *form;

	if (!json_object_object_get_ex(m, "reference", &ref))
		return false;
	name = jstr(ref, "name");
	form = jstr(ref, "form");
	if (!name || !form || !refs || !json_object_object_get_ex(refs, name, &rs) ||
	    !json_object_object_get_ex(rs, "stats", &st) || !jnum(st, "median", refval) ||
	    !(*refval > 0.0))
		return false;
	*refname = name;
	*value_over_ref = !strcmp(form, "value/reference");
	if (!*value_over_ref)
		*higher_better = !*higher_better;
	return true;
}

/* Each side's reference medians, pooled geometrically over its files. */
static void side_add_refs(struct cmp_side *s, json_object *refs)
{
	if (!refs || !json_object_is_type(refs, json_type_object))
		return;
	json_object_object_foreach(refs, name, r)
	{
		json_object *st;
		double med;
		unsigned i;

		if (!json_object_object_get_ex(r, "stats", &st) || !jnum(st, "median", &med) ||
		    !(med > 0.0) || !isfinite(med))
			continue;
		for (i = 0; i < s->nrefs; i++)
			if (!strcmp(s->ref_name[i], name))
				break;
		if (i == s->nrefs) {
			if (s->nrefs == CMP_MAX_REFS)
				continue;
			snprintf(s->ref_name[i], sizeof(s->ref_name[i]), "%s", name);
			s->nrefs++;
		}
		s->ref_logsum[i] += log(med);
		if (!s->ref_count[i] || log(med) < s->ref_logmin[i])
			s->ref_logmin[i] = log(med);
		if (!s->ref_count[i] || log(med) > s->ref_logmax[i])
			s->ref_logmax[i] = log(med);
		s->ref_count[i]++;
	}
}

static int add_file(struct cmp_side *side, const char *path, const struct cmp_opts *o, char *err,
		    size_t errlen)
{
	json_object *root, *metrics, *machine, *pobj, *refs = NULL;
	const char *bench, *mid;
	char *params;
	void *loaded;
	size_t i, n;
	int rc;

	rc = bench_results_load(path, &loaded, err, errlen);
	if (rc)
		return rc;
	root = loaded;
	bench = jstr(root, "benchmark");
	json_object_object_get_ex(root, "machine", &machine);
	json_object_object_get_ex(root, "metrics", &metrics);
	json_object_object_get_ex(root, "references", &refs);
	mid = jstr(machine, "id");
	if (!mid)
		mid = "unknown";
	if (!side->machine[0])
		snprintf(side->machine, sizeof(side->machine), "%s", mid);
	else if (strcmp(side->machine, mid))
		side->mixed_machines = true;
	side_add_refs(side, refs);
	params = params_string(json_object_object_get_ex(root, "parameters", &pobj) ? pobj : NULL);
	if (!params) {
		rc = -ENOMEM;
		goto out;
	}
	n = json_object_array_length(metrics);
	for (i = 0; i < n && !rc; i++) {
		json_object *m = json_object_array_get_idx(metrics, i), *samples, *st;
		const char *name = jstr(m, "name"), *unit = jstr(m, "unit"),
			   *dir = jstr(m, "direction");
		bool higher, vor = true, ratio = false;
		const char *refname = "";
		double refval = 1.0, v;
		struct cmp_entry *e;
		char *key;
		size_t k, ns;

		if (!name || !unit || !dir) {
			snprintf(err, errlen,
				 "%s: malformed: metric %zu lacks name, unit or direction", path,
				 i);
			rc = -EINVAL;
			break;
		}
		higher = !strcmp(dir, "higher_is_better");
		if (o->basis != CMP_ABSOLUTE)
			ratio = ratio_transform(m, refs, &higher, &refval, &vor, &refname);
		if (o->basis == CMP_RATIOS && !ratio)
			continue; /* no reference: nothing to compare in ratio mode */
		if (asprintf(&key, "%s\t%s\t%s", bench, params, name) < 0) {
			rc = -ENOMEM;
			break;
		}
		e = side_find(side, key);
		if (e) {
			free(key);
			if (e->ratio != ratio || strcmp(e->ref, refname)) {
				snprintf(err, errlen,
					 "%s: %s has a different reference than in the other files "
					 "of the same side",
					 path, name);
				rc = -EINVAL;
				break;
			}
		} else {
			struct cmp_entry *ne;

			if (side->n == side->cap) {
				size_t cap = side->cap ? 2 * side->cap : 32;

				ne = realloc(side->e, cap * sizeof(*ne));
				if (!ne) {
					free(key);
					rc = -ENOMEM;
					break;
				}
				side->e = ne;
				side->cap = cap;
			}
			e = &side->e[side->n];
			memset(e, 0, sizeof(*e));
			e->key = key;
			{
				json_object *pf, *bd;

				e->platform = json_object_object_get_ex(m, "platform", &pf) &&
					      json_object_get_boolean(pf);
				if (json_object_object_get_ex(m, "bound", &bd) &&
				    json_object_is_type(bd, json_type_string) &&
				    asprintf(&e->bound_key, "%s\t%s\t%s", bench, params,
					     json_object_get_string(bd)) < 0)
					e->bound_key = NULL;
			}
			e->higher_better = higher;
			e->ratio = ratio;
			snprintf(e->ref, sizeof(e->ref), "%s", refname);
			e->unit = strdup(ratio ? "ratio" : unit);
			if (asprintf(&e->label, "%s%s%s%s %s", bench, params[0] ? "[" : "", params,
				     params[0] ? "]" : "", name) < 0)
				e->label = NULL;
			else
				e->name_off = strlen(e->label) - strlen(name);
			if (!e->unit || !e->label) {
				free(e->key);
				free(e->bound_key);
				free(e->unit);
				free(e->label);
				rc = -ENOMEM;
				break;
			}
			side->n++;
		}
		/*
		 * A histogram measured in rounds is judged by its round medians,
		 * like a metric of repetitions: its order-statistics interval
		 * only says how well one run's median is known. Fewer than three
		 * rounds give no usable bootstrap; the stats stand then.
		 */
		if ((json_object_object_get_ex(m, "samples", &samples) ||
		     (json_object_object_get_ex(m, "round_medians", &samples) &&
		      json_object_is_type(samples, json_type_array) &&
		      json_object_array_length(samples) >= 3))) {
			if (!json_object_is_type(samples, json_type_array)) {
				snprintf(err, errlen, "%s: malformed: samples of %s", path, name);
				rc = -EINVAL;
				break;
			}
			ns = json_object_array_length(samples);
			for (k = 0; k < ns && !rc; k++) {
				json_object *x = json_object_array_get_idx(samples, k);

				if (!json_object_is_type(x, json_type_double) &&
				    !json_object_is_type(x, json_type_int))
					continue;
				v = json_object_get_double(x);
				if (ratio)
					v = vor ? v / refval : (v > 0.0 ? refval / v : NAN);
				if (isfinite(v))
					rc = entry_push(e, v);
			}
		} else if (json_object_object_get_ex(m, "stats", &st) &&
			   json_object_is_type(st, json_type_object)) {
			double med, lo, hi;

			if (!jnum(st, "median", &med) || !jnum(st, "ci_lo", &lo) ||
			    !jnum(st, "ci_hi", &hi)) {
				snprintf(err, errlen, "%s: malformed: stats of %s", path, name);
				rc = -EINVAL;
				break;
			}
			if (ratio) {
				med = vor ? med / refval : refval / med;
				lo = vor ? lo / refval : refval / lo;
				hi = vor ? hi / refval : refval / hi;
				if (lo > hi) {
					double t = lo;

					lo = hi;
					hi = t;
				}
			}
			/* Pooling histograms would need the buckets; the first one stands. */
			if (!e->is_hist) {
				e->is_hist = true;
				e->median = med;
				e->ci_lo = lo;
				e->ci_hi = hi;
			}
		}
	}
	free(params);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
out:
	json_object_put(root);
	return rc;
}

static int add_path(struct cmp_side *side, const char *path, const struct cmp_opts *o, char *err,
		    size_t errlen)
{
	struct dirent **list;
	struct stat st;
	int i, n, rc = 0, files = 0;

	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(side, path, o, err, errlen);
	/* Sorted so that the pooled order, and so the bootstrap, is reproducible. */
	n = scandir(path, &list, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "%s: cannot read directory: %s", path, strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(list[i]->d_name);
		char *p;

		if (!rc && len > 5 && !strcmp(list[i]->d_name + len - 5, ".json") &&
		    list[i]->d_name[0] != '.') {
			if (asprintf(&p, "%s/%s", path, list[i]->d_name) < 0) {
				rc = -ENOMEM;
			} else {
				rc = add_file(side, p, o, err, errlen);
				free(p);
				files++;
			}
		}
		free(list[i]);
	}
	free(list);
	if (!rc && !files) {
		snprintf(err, errlen, "%s: no *.json results files", path);
		rc = -ENOENT;
	}
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/**
 * struct cmp_result - the comparison of one metric.
 * @base: base median.
 * @new: new median.
 * @change: (new - base) / base, percent.
 * @lo: lower end of the change's 95% interval, percent.
 * @hi: upper end, percent.
 * @drift: how far @lo and @hi were widened for the machine's run-to-run
 *         drift: a factor exp(w) on each side, shown as (exp(w) - 1) percent.
 */
struct cmp_result {
	double base, new, change, lo, hi, drift;
};

/**
 * struct cmp_drift - how far the machine moved between BASE and NEW, judged
 * by the references both sides measured.
 * @name: reference names.
 * @d: log(new median / base median) of each (positive: the figure grew).
 * @u: how unsteady the machine was within a run, by this reference: half
 *     the log range of its medians over one side's files (each benchmark
 *     program measures it when it starts), the larger of the two sides; 0
 *     for a side of one file.
 * @n: used slots.
 */
struct cmp_drift {
	char name[CMP_MAX_REFS][32];
	double d[CMP_MAX_REFS];
	double u[CMP_MAX_REFS];
	unsigned n;
};

static void drift_compute(const struct cmp_side *b, const struct cmp_side *c, struct cmp_drift *dr)
{
	unsigned i, j;

	dr->n = 0;
	for (i = 0; i < b->nrefs; i++)
		for (j = 0; j < c->nrefs; j++)
			if (!strcmp(b->ref_name[i], c->ref_name[j]) && b->ref_count[i] &&
			    c->ref_count[j]) {
				snprintf(dr->name[dr->n], sizeof(dr->name[0]), "%s",
					 b->ref_name[i]);
				dr->u[dr->n] = fmax(b->ref_logmax[i] - b->ref_logmin[i],
						    c->ref_logmax[j] - c->ref_logmin[j]) /
					       2.0;
				dr->d[dr->n++] = c->ref_logsum[j] / c->ref_count[j] -
						 b->ref_logsum[i] / b->ref_count[i];
			}
}

/*
 * The run-to-run noise a within-run interval cannot see, as a half-width in
 * log units. An absolute figure may move as far as the reference that moved
 * most: the machine was that much slower or faster, for everything. A ratio
 * cancels its own reference's drift, but not the part of the machine's drift
 * that hit the metric differently: estimated as the median distance of the
 * other references' drifts from the own one (the median so that one wild
 * reference, typically memcpy bandwidth under a neighbour's compile, does
 * not decide alone).
 *
 * Each is widened again by how unsteady the machine was within the runs
 * (cmp_drift.u): a reference taken when a program started says nothing of
 * a load that came during it, but the next program's reference does, and
 * a figure measured in between may have moved that far. An absolute figure
 * takes the median unsteadiness of the references (the futex round trip
 * alone moves 2-3x between the programs of one run on a PVM guest, as its
 * threads find their vCPUs halted or not); a ratio its own reference's,
 * since a reference that moved that far cannot be divided out.
 */
static double drift_halfwidth(const struct cmp_drift *dr, const struct cmp_entry *e)
{
	double v[CMP_MAX_REFS], own = 0.0, own_u = 0.0, m = 0.0;
	unsigned i, n = 0;
	bool found = false;

	if (!e->ratio) {
		for (i = 0; i < dr->n; i++) {
			m = fmax(m, fabs(dr->d[i]));
			v[i] = dr->u[i];
		}
		if (!dr->n)
			return 0.0;
		qsort(v, dr->n, sizeof(v[0]), cmp_double);
		return m + bench_percentile_sorted(v, dr->n, 0.5);
	}
	for (i = 0; i < dr->n; i++)
		if (!strcmp(dr->name[i], e->ref)) {
			own = dr->d[i];
			own_u = dr->u[i];
			found = true;
		}
	for (i = 0; i < dr->n; i++)
		if (strcmp(dr->name[i], e->ref))
			v[n++] = fabs(dr->d[i] - own);
	if (!found)
		return 0.0;
	if (!n)
		return own_u;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return own_u + bench_percentile_sorted(v, n, 0.5);
}

/* Widen [lo, hi] (percent changes) by @w in log units on both sides. */
static void widen(struct cmp_result *r, double w)
{
	r->drift = (exp(w) - 1.0) * 100.0;
	if (w <= 0.0)
		return;
	r->lo = r->lo > -100.0 ? (exp(log1p(r->lo / 100.0) - w) - 1.0) * 100.0 : -100.0;
	r->hi = r->hi > -100.0 ? (exp(log1p(r->hi / 100.0) + w) - 1.0) * 100.0 : r->hi;
}

static int compare_entry(const struct cmp_entry *b, const struct cmp_entry *n, uint64_t seed,
			 struct cmp_result *r)
{
	if (b->ratio != n->ratio || strcmp(b->ref, n->ref))
		return -EXDEV;
	r->drift = 0.0;
	if (b->n && n->n) {
		double *bs = malloc(b->n * sizeof(*bs)), *ns = malloc(n->n * sizeof(*ns));
		double *mb = malloc(BENCH_BOOTSTRAP_RESAMPLES * sizeof(*mb));
		double *mn = malloc(BENCH_BOOTSTRAP_RESAMPLES * sizeof(*mn));
		uint64_t rng = prng_mix64(seed);
		int rc = -ENOMEM;
		size_t i;

		if (!bs || !ns || !mb || !mn)
			goto out;
		memcpy(bs, b->samples, b->n * sizeof(*bs));
		memcpy(ns, n->samples, n->n * sizeof(*ns));
		qsort(bs, b->n, sizeof(*bs), cmp_double);
		qsort(ns, n->n, sizeof(*ns), cmp_double);
		r->base = bench_percentile_sorted(bs, b->n, 0.5);
		r->new = bench_percentile_sorted(ns, n->n, 0.5);
		rc = bench_bootstrap_medians(bs, b->n, &rng, mb, BENCH_BOOTSTRAP_RESAMPLES);
		if (!rc)
			rc = bench_bootstrap_medians(ns, n->n, &rng, mn, BENCH_BOOTSTRAP_RESAMPLES);
		if (rc)
			goto out;
		/* Independent resamples of each side; the change of each pair. */
		for (i = 0; i < BENCH_BOOTSTRAP_RESAMPLES; i++)
			mb[i] = mb[i] != 0.0 ? (mn[i] - mb[i]) / fabs(mb[i]) * 100.0 : 0.0;
		qsort(mb, BENCH_BOOTSTRAP_RESAMPLES, sizeof(*mb), cmp_double);
		r->lo = bench_percentile_sorted(mb, BENCH_BOOTSTRAP_RESAMPLES, 0.025);
		r->hi = bench_percentile_sorted(mb, BENCH_BOOTSTRAP_RESAMPLES, 0.975);
	out:
		free(bs);
		free(ns);
		free(mb);
		free(mn);
		if (rc)
			return rc;
	} else {
		/* Delta method on log(new/base) with each side's interval as +-1.96 se. */
		double sb, sn, se, lr;

		r->base = b->is_hist ? b->median : NAN;
		r->new = n->is_hist ? n->median : NAN;
		if (!(r->base > 0.0) || !(r->new > 0.0))
			return -EDOM;
		sb = (b->ci_hi - b->ci_lo) / (2 * 1.96) / r->base;
		sn = (n->ci_hi - n->ci_lo) / (2 * 1.96) / r->new;
		se = sqrt(sb * sb + sn * sn);
		lr = log(r->new / r->base);
		r->lo = (exp(lr - 1.96 * se) - 1.0) * 100.0;
		r->hi = (exp(lr + 1.96 * se) - 1.0) * 100.0;
	}
	r->change = r->base != 0.0 ? (r->new - r->base) / fabs(r->base) * 100.0 : 0.0;
	return 0;
}

/*
 * How far @e's platform bound moved between the sides, in log units (0
 * without a bound, or when it is not in both). The bound is a floor the
 * machine set in the same repetitions: @e may have moved as far with it.
 */
static double bound_drift(struct cmp_side *bs, struct cmp_side *cs, const struct cmp_entry *e,
			  uint64_t seed)
{
	const struct cmp_entry *bb, *cb;
	struct cmp_result r;

	if (!e->bound_key)
		return 0.0;
	bb = side_find(bs, e->bound_key);
	cb = side_find(cs, e->bound_key);
	if (!bb || !cb || compare_entry(bb, cb, seed, &r) || !(r.base > 0.0) || !(r.new > 0.0))
		return 0.0;
	return fabs(log(r.new / r.base));
}

/*
 * The table's rows name only the metric; its benchmark and parameters (a
 * long string: the eviction benchmark's alone is over 150 characters) head
 * each run of rows that share them. @last is the entry of the previous row.
 */
static void print_group(const struct cmp_entry *e, const struct cmp_entry **last)
{
	if (*last && (*last)->name_off == e->name_off &&
	    !memcmp((*last)->label, e->label, e->name_off))
		return;
	printf("%s%.*s\n", *last ? "\n" : "", (int)(e->name_off ? e->name_off - 1 : 0), e->label);
	*last = e;
}

static const char *row_name(const struct cmp_entry *e)
{
	return e->label + e->name_off;
}

static void side_fini(struct cmp_side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->e[i].key);
		free(s->e[i].bound_key);
		free(s->e[i].label);
		free(s->e[i].unit);
		free(s->e[i].samples);
	}
	free(s->e);
}

static int parse_args(int argc, char **argv, struct cmp_opts *o, const char **paths)
{
	int i, npaths = 0;

	o->threshold_pct = 5.0;
	o->seed = 1;
	o->drift = true;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char *end;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--ratios")) {
			o->basis = CMP_RATIOS;
		} else if (!strcmp(a, "--absolute")) {
			o->basis = CMP_ABSOLUTE;
		} else if (!strcmp(a, "--no-drift")) {
			o->drift = false;
		} else if (!strcmp(a, "--csv")) {
			o->csv = true;
		} else if (!strncmp(a, "--threshold", 11) || !strncmp(a, "--seed", 6)) {
			bool thr = a[2] == 't';
			size_t nl = thr ? 11 : 6;

			if (a[nl] == '=')
				val = a + nl + 1;
			else if (!a[nl] && i + 1 < argc)
				val = argv[++i];
			else if (!a[nl]) {
				fprintf(stderr, "%s: %s: missing value\n", prog, a);
				return -EINVAL;
			} else {
				goto unknown;
			}
			errno = 0;
			if (thr) {
				o->threshold_pct = strtod(val, &end);
				if (!*val || *end || errno || !isfinite(o->threshold_pct) ||
				    o->threshold_pct < 0 ||
				    ((*val < '0' || *val > '9') && *val != '.')) {
					fprintf(stderr,
						"%s: --threshold: expected a percentage >= 0, got "
						"'%s'\n",
						prog, val);
					return -EINVAL;
				}
			} else {
				o->seed = strtoull(val, &end, 10);
				if (*val < '0' || *val > '9' || *end || errno) {
					fprintf(stderr,
						"%s: --seed: expected a non-negative integer, got "
						"'%s'\n",
						prog, val);
					return -EINVAL;
				}
			}
		} else if (a[0] == '-' && a[1]) {
			goto unknown;
		} else {
			if (npaths == 2) {
				fprintf(stderr, "%s: more than two inputs ('%s'); see --help\n",
					prog, a);
				return -EINVAL;
			}
			paths[npaths++] = a;
		}
		continue;
	unknown:
		fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
		return -EINVAL;
	}
	if (npaths != 2) {
		fprintf(stderr, "%s: expected BASE and NEW (see --help)\n", prog);
		return -EINVAL;
	}
	return 0;
}

static const char *verdict(const struct cmp_entry *e, const struct cmp_result *r, double thr,
			   bool *regressed)
{
	bool worse = e->higher_better ? r->change < 0 : r->change > 0;
	bool excludes_zero = r->lo > 0.0 || r->hi < 0.0;

	*regressed = false;
	if (!excludes_zero || fabs(r->change) < thr)
		return "within noise";
	*regressed = worse;
	return worse ? "REGRESSED" : "improved";
}

int main(int argc, char **argv)
{
	struct cmp_side base = {0}, cur = {0}, base_abs = {0}, cur_abs = {0};
	struct cmp_opts oabs;
	struct cmp_drift dr;
	const char *paths[2] = {NULL, NULL};
	unsigned matched = 0, regressions = 0;
	const struct cmp_entry *group = NULL;
	struct cmp_opts o = {0};
	char err[512] = "";
	size_t i;
	int rc;

	/* The paired A/B mode runs benchmarks itself (ttm-compare-run.c). */
	if (argc > 1 && !strcmp(argv[1], "--run"))
		return ttm_compare_run(argc - 1, argv + 1);
	rc = parse_args(argc, argv, &o, paths);
	if (rc)
		return rc > 0 ? 0 : EXIT_BAD_INPUT;
	rc = add_path(&base, paths[0], &o, err, sizeof(err));
	if (!rc)
		rc = add_path(&cur, paths[1], &o, err, sizeof(err));
	/*
	 * By default a ratio metric must also have regressed in absolute terms:
	 * the ratio cancels the machine's drift, but adds its reference's own
	 * noise; a real regression shows in both, a phantom from either source
	 * in one only.
	 */
	oabs = o;
	oabs.basis = CMP_ABSOLUTE;
	if (!rc && o.basis == CMP_AUTO)
		rc = add_path(&base_abs, paths[0], &oabs, err, sizeof(err));
	if (!rc && o.basis == CMP_AUTO)
		rc = add_path(&cur_abs, paths[1], &oabs, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err[0] ? err : strerror(-rc));
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if (strcmp(base.machine, cur.machine) || base.mixed_machines || cur.mixed_machines)
		fprintf(stderr,
			"%s: warning: machine ids differ (%s%s vs %s%s): absolute figures are not "
			"comparable%s\n",
			prog, base.machine, base.mixed_machines ? "+others" : "", cur.machine,
			cur.mixed_machines ? "+others" : "",
			o.basis != CMP_ABSOLUTE ? "; comparing ratios to same-run references"
						: "; consider the default or --ratios");
	drift_compute(&base, &cur, &dr);
	if (!o.csv) {
		printf("machine drift NEW vs BASE (same-run references):");
		for (i = 0; i < dr.n; i++) {
			printf(" %s %+.1f%%", dr.name[i], (exp(dr.d[i]) - 1.0) * 100.0);
			if (dr.u[i] > 0.0)
				printf(" (+-%.1f%% within a run)", (exp(dr.u[i]) - 1.0) * 100.0);
		}
		printf("%s\n",
		       dr.n ? (o.drift ? "" : " (ignored: --no-drift)") : " none in common");
	}

	if (o.csv)
		printf("benchmark_metric,unit,basis,base,new,change_pct,ci_lo_pct,ci_hi_pct,"
		       "drift_pct,abs_change,verdict\n");
	else
		printf("%-56s %-11s %-5s %12s %12s %9s %21s %7s %9s  %s\n", "metric", "unit",
		       "basis", "base", "new", "change", "noise interval", "drift", "abs",
		       "verdict");
	for (i = 0; i < base.n; i++) {
		const struct cmp_entry *b = &base.e[i], *n = side_find(&cur, b->key);
		struct cmp_result r;
		const char *v;
		bool reg;
		char abs_col[16] = "";

		if (!o.csv)
			print_group(b, &group);
		if (!n) {
			if (!o.csv)
				printf("%-56s only in %s\n", row_name(b), paths[0]);
			continue;
		}
		rc = compare_entry(b, n, o.seed, &r);
		if (rc) {
			if (!o.csv)
				printf("%-56s not comparable (%s)\n", row_name(b),
				       rc == -EXDEV ? "reference on one side only"
						    : "no usable values");
			rc = 0;
			continue;
		}
		if (o.drift)
			widen(&r,
			      drift_halfwidth(&dr, b) +
				  bound_drift(o.basis == CMP_AUTO ? &base_abs : &base,
					      o.basis == CMP_AUTO ? &cur_abs : &cur, b, o.seed));
		matched++;
		v = verdict(b, &r, o.threshold_pct, &reg);
		if (b->ratio && o.basis == CMP_AUTO) {
			const struct cmp_entry *ba = side_find(&base_abs, b->key),
					       *na = side_find(&cur_abs, b->key);
			struct cmp_result ra;
			const char *av = "";
			bool areg = false;

			if (ba && na && !compare_entry(ba, na, o.seed, &ra)) {
				if (o.drift)
					widen(&ra,
					      drift_halfwidth(&dr, ba) +
						  bound_drift(&base_abs, &cur_abs, ba, o.seed));
				av = verdict(ba, &ra, o.threshold_pct, &areg);
				snprintf(abs_col, sizeof(abs_col), "%+.1f%%%s", ra.change,
					 areg ? "!" : "");
			}
			if (reg && !areg)
				v = "noise (abs ok)";
			/* Improvements are held to the same standard. */
			if (!strcmp(v, "improved") && strcmp(av, "improved"))
				v = "within noise";
			reg = reg && areg;
		}
		if (b->platform || n->platform) {
			/* The machine's figure: its change is shown, not judged. */
			v = "platform";
			reg = false;
		}
		regressions += reg;
		if (o.csv)
			printf("\"%s\",%s,%s,%.17g,%.17g,%.4f,%.4f,%.4f,%.4f,%s,%s\n", b->label,
			       b->unit, b->ratio ? "ratio" : "abs", r.base, r.new, r.change, r.lo,
			       r.hi, r.drift, abs_col, v);
		else
			printf("%-56s %-11s %-5s %12.5g %12.5g %+8.2f%% [%+8.2f%% %+8.2f%%] "
			       "%6.1f%% %9s  %s\n",
			       row_name(b), b->unit, b->ratio ? "ratio" : "abs", r.base, r.new,
			       r.change, r.lo, r.hi, r.drift, abs_col, v);
	}
	for (i = 0; i < cur.n; i++) {
		if (!side_find(&base, cur.e[i].key) && !o.csv) {
			print_group(&cur.e[i], &group);
			printf("%-56s only in %s\n", row_name(&cur.e[i]), paths[1]);
		}
	}
	if (!matched) {
		fprintf(stderr, "%s: no metric in common between %s and %s\n", prog, paths[0],
			paths[1]);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if (!o.csv)
		printf("%u metrics compared, %u regressed (worse by more than %.3g%% and outside "
		       "the noise interval: 95%% CI of the change%s)\n",
		       matched, regressions, o.threshold_pct,
		       o.drift ? " widened by the drift" : "");
	rc = regressions ? EXIT_REGRESSION : 0;
out:
	side_fini(&base);
	side_fini(&cur);
	side_fini(&base_abs);
	side_fini(&cur_abs);
	return rc;
}
