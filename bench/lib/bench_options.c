// SPDX-License-Identifier: MIT
/*
 * bench_options.c - the command line every benchmark shares. Errors are one
 * line naming the option and the bad value, so a CI log shows the cause.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_priv.h"

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int bench_parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	unsigned v;

	if (parse_uint(s, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int bench_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int bench_parse_cpu_list(const char *s, unsigned *cpus, unsigned max)
{
	unsigned n = 0, lo, hi, c, j;
	const char *p = s;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		unsigned long v;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = strtoul(p, &end, 10);
		if (v >= 1u << 20)
			return -EINVAL;
		lo = hi = (unsigned)v;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			v = strtoul(p, &end, 10);
			if (v >= 1u << 20 || v < lo)
				return -EINVAL;
			hi = (unsigned)v;
			p = end;
		}
		for (c = lo; c <= hi; c++) {
			for (j = 0; j < n; j++)
				if (cpus[j] == c)
					return -EINVAL;
			if (n == max)
				return -EINVAL;
			cpus[n++] = c;
		}
		if (!*p)
			return (int)n;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

/* Format a one-line error into @err (may be NULL); shared through bench_priv.h. */
void bench_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

enum common_opt {
	OPT_REPS,
	OPT_WARMUP,
	OPT_DURATION,
	OPT_QUICK,
	OPT_OUT,
	OPT_CPUS,
	OPT_THREADS,
	OPT_BACKEND,
	OPT_SEED,
	OPT_HELP,
	OPT_COUNT,
};

static const struct {
	const char *name;
	const char *arg;
	const char *help;
} common_opts[OPT_COUNT] = {
    [OPT_REPS] = {"reps", "N", "measured repetitions (default 10, 3 with --quick)"},
    [OPT_WARMUP] = {"warmup", "N", "unmeasured repetitions first (default 2, 1 with --quick)"},
    [OPT_DURATION] = {"duration", "S", "seconds per time-bounded repetition (default 1.0)"},
    [OPT_QUICK] = {"quick", NULL, "CI smoke run: small sizes, short repetitions"},
    [OPT_OUT] = {"out", "FILE|DIR", "where the results JSON goes (default: .)"},
    [OPT_CPUS] = {"cpus", "LIST", "pin workers to these CPUs, e.g. 0,2,4-7"},
    [OPT_THREADS] = {"threads", "N", "worker threads (default 1)"},
    [OPT_BACKEND] = {"backend", "sim|hw|core", "GPU back end (default sim)"},
    [OPT_SEED] = {"seed", "N", "seed of workloads and bootstrap (default 1)"},
    [OPT_HELP] = {"help", NULL, "print this help"},
};

void bench_options_usage(FILE *f, const char *prog, const char *bench_name,
			 const struct bench_opt *extra)
{
	char lhs[64];
	unsigned i;

	fprintf(f, "usage: %s [options]\n", prog ? prog : "benchmark");
	if (bench_name)
		fprintf(f, "benchmark '%s'; results schema %s v%d\n", bench_name, BENCH_SCHEMA_NAME,
			BENCH_SCHEMA_VERSION);
	fprintf(f, "options:\n");
	for (i = 0; i < OPT_COUNT; i++) {
		snprintf(lhs, sizeof(lhs), "--%s%s%s", common_opts[i].name,
			 common_opts[i].arg ? " " : "",
			 common_opts[i].arg ? common_opts[i].arg : "");
		fprintf(f, "  %-24s %s\n", lhs, common_opts[i].help);
	}
	for (; extra && extra->name; extra++) {
		snprintf(lhs, sizeof(lhs), "--%s%s%s", extra->name, extra->arg ? " " : "",
			 extra->arg ? extra->arg : "");
		fprintf(f, "  %-24s %s\n", lhs, extra->help ? extra->help : "");
	}
}

/* Apply @val to common option @id. Return 0 or -EINVAL with @err filled. */
static int set_common(struct bench_options *o, int id, const char *val, char *err, size_t errlen)
{
	const char *name = common_opts[id].name;
	char *end;
	int n;

	switch (id) {
	case OPT_REPS:
	case OPT_WARMUP:
	case OPT_THREADS: {
		unsigned v, max = id == OPT_THREADS ? BENCH_MAX_THREADS : BENCH_MAX_REPS;

		if (parse_uint(val, &v) || (id != OPT_WARMUP && v == 0) || v > max) {
			bench_set_err(err, errlen, "--%s: expected an integer in %u..%u, got '%s'",
				      name, id == OPT_WARMUP ? 0 : 1, max, val);
			return -EINVAL;
		}
		if (id == OPT_REPS) {
			o->reps = v;
			o->reps_set = true;
		} else if (id == OPT_WARMUP) {
			o->warmup = v;
			o->warmup_set = true;
		} else {
			o->threads = v;
			o->threads_set = true;
		}
		return 0;
	}
	case OPT_DURATION:
		errno = 0;
		o->duration_s = strtod(val, &end);
		if (!*val || *end || errno || !isfinite(o->duration_s) || o->duration_s <= 0.0 ||
		    o->duration_s > BENCH_MAX_DURATION_S ||
		    ((*val < '0' || *val > '9') && *val != '.') ||
		    val[strspn(val, "0123456789.eE+-")]) {
			bench_set_err(err, errlen,
				      "--duration: expected seconds in (0, %d], got '%s'",
				      BENCH_MAX_DURATION_S, val);
			return -EINVAL;
		}
		o->duration_set = true;
		return 0;
	case OPT_OUT:
		if (!*val) {
			bench_set_err(err, errlen, "--out: empty path");
			return -EINVAL;
		}
		o->out = val;
		return 0;
	case OPT_CPUS:
		n = bench_parse_cpu_list(val, o->cpus, BENCH_MAX_CPUS);
		if (n < 0) {
			bench_set_err(
			    err, errlen,
			    "--cpus: bad CPU list '%s' (expected e.g. 0,2,4-7; no duplicates)",
			    val);
			return -EINVAL;
		}
		o->ncpus = (unsigned)n;
		return 0;
	case OPT_BACKEND:
		if (!strcmp(val, "sim")) {
			o->backend = BENCH_BACKEND_SIM;
		} else if (!strcmp(val, "hw")) {
			o->backend = BENCH_BACKEND_HW;
		} else if (!strcmp(val, "core")) {
			o->backend = BENCH_BACKEND_CORE;
		} else {
			bench_set_err(err, errlen, "--backend: expected sim, hw or core, got '%s'",
				      val);
			return -EINVAL;
		}
		return 0;
	case OPT_SEED:
		if (parse_u64(val, &o->seed)) {
			bench_set_err(err, errlen,
				      "--seed: expected a non-negative integer, got '%s'", val);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

int bench_options_parse(struct bench_options *o, int argc, char **argv,
			const struct bench_opt *extra, void *ctx, char *err, size_t errlen)
{
	bool help = false;
	int i;

	memset(o, 0, sizeof(*o));
	o->threads = 1;
	o->backend = BENCH_BACKEND_SIM;
	o->seed = 1;
	if (err && errlen)
		err[0] = '\0';

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		const struct bench_opt *x = NULL;
		bool takes_arg;
		size_t len;
		int id = -1, k;

		if (strncmp(a, "--", 2) || !a[2]) {
			bench_set_err(err, errlen, "unexpected argument '%s' (see --help)", a);
			return -EINVAL;
		}
		a += 2;
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a) : strlen(a);
		for (k = 0; k < OPT_COUNT; k++)
			if (strlen(common_opts[k].name) == len &&
			    !strncmp(common_opts[k].name, a, len))
				id = k;
		if (id < 0)
			for (x = extra; x && x->name; x++)
				if (strlen(x->name) == len && !strncmp(x->name, a, len))
					break;
		if (id < 0 && (!x || !x->name)) {
			bench_set_err(err, errlen, "unknown option '--%.*s' (see --help)", (int)len,
				      a);
			return -EINVAL;
		}
		takes_arg = id >= 0 ? common_opts[id].arg != NULL : x->arg != NULL;
		if (takes_arg) {
			if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				bench_set_err(err, errlen, "--%.*s: missing value", (int)len, a);
				return -EINVAL;
			}
		} else if (eq) {
			bench_set_err(err, errlen, "--%.*s takes no value", (int)len, a);
			return -EINVAL;
		}

		if (id == OPT_HELP) {
			help = true;
		} else if (id == OPT_QUICK) {
			o->quick = true;
		} else if (id >= 0) {
			if (set_common(o, id, val, err, errlen))
				return -EINVAL;
		} else {
			char why[160] = "";

			if (x->set && x->set(ctx, val, why, sizeof(why))) {
				bench_set_err(err, errlen, "--%s: %s", x->name,
					      why[0] ? why : "bad value");
				return -EINVAL;
			}
		}
	}
	if (help)
		return BENCH_SETUP_HELP;

	if (!o->reps_set)
		o->reps = o->quick ? 3 : 10;
	if (!o->warmup_set)
		o->warmup = o->quick ? 1 : 2;
	if (!o->duration_set)
		o->duration_s = o->quick ? 0.2 : 1.0;
	if (o->ncpus && o->threads > o->ncpus) {
		bench_set_err(err, errlen, "--threads %u exceeds the %u CPUs given with --cpus",
			      o->threads, o->ncpus);
		return -EINVAL;
	}
	return 0;
}
