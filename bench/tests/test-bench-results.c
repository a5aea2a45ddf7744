// SPDX-License-Identifier: MIT
/* Results files of the bench harness: JSON round trip, atomic write, load errors, plot data. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <ktest.h>

#include "bench.h"

static char *make_tmpdir(void)
{
	char *d = strdup("/tmp/bench-results-test.XXXXXX");

	if (d && !mkdtemp(d)) {
		free(d);
		return NULL;
	}
	return d;
}

static void rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static unsigned count_entries(const char *dir, const char *substr)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strstr(e->d_name, substr))
			n++;
	closedir(d);
	return n;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int init_run(struct bench_run *r)
{
	struct bench_options o;
	char err[128];
	char *argv[] = {"prog", "--quick", "--seed", "5", NULL};
	int rc = bench_options_parse(&o, 4, argv, NULL, NULL, err, sizeof(err));

	return rc ? rc : bench_run_init(r, "unittest", &o);
}

static json_object *find_metric(json_object *root, const char *name)
{
	json_object *ms, *m, *n;
	size_t i;

	if (!json_object_object_get_ex(root, "metrics", &ms))
		return NULL;
	for (i = 0; i < json_object_array_length(ms); i++) {
		m = json_object_array_get_idx(ms, i);
		if (json_object_object_get_ex(m, "name", &n) &&
		    !strcmp(json_object_get_string(n), name))
			return m;
	}
	return NULL;
}

/*
 * Rounds: each bench_run_round_end() turns what a histogram metric recorded
 * since the previous one into one round median; the histogram keeps every
 * value, an empty round adds nothing, sample metrics are untouched.
 */
KTEST(bench_run_round_end_round_medians)
{
	static const uint64_t centre[3] = {1000, 2000, 4000};
	char *dir = make_tmpdir(), *written = NULL, err[256];
	struct bench_metric *mh, *idle, *ms;
	struct bench_stats st;
	struct bench_run r;
	json_object *root, *m, *x;
	void *loaded;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(init_run(&r), 0);
	mh = bench_metric_add(&r, "unit.rounds", "ns", BENCH_LOWER_IS_BETTER);
	idle = bench_metric_add(&r, "unit.no_rounds", "ns", BENCH_LOWER_IS_BETTER);
	ms = bench_metric_add(&r, "unit.samples", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_TRUE(mh && idle && ms);
	EXPECT_TRUE(bench_metric_find(&r, "unit.rounds") == mh);
	EXPECT_NULL(bench_metric_find(&r, "unit.none"));
	ASSERT_EQ(bench_metric_use_hist(mh), 0);
	ASSERT_EQ(bench_metric_use_hist(idle), 0);
	EXPECT_EQ(bench_metric_sample(ms, 5.0), 0);
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned i = 0; i < 999; i++)
			EXPECT_EQ(bench_metric_record(mh, centre[k] - 10 + i % 21), 0);
		EXPECT_EQ(bench_run_round_end(&r), 0);
		/* Nothing recorded since: no round. */
		EXPECT_EQ(bench_run_round_end(&r), 0);
	}
	EXPECT_EQ(bench_metric_record(idle, 7), 0);
	ASSERT_EQ(bench_metric_stats(mh, &st), 0);
	EXPECT_EQ(st.n, 3 * 999);
	ASSERT_EQ(bench_run_write(&r, dir, &written), 0);
	ASSERT_EQ(bench_results_load(written, &loaded, err, sizeof(err)), 0);
	root = loaded;

	m = find_metric(root, "unit.rounds");
	ASSERT_NOT_NULL(m);
	ASSERT_TRUE(json_object_object_get_ex(m, "round_medians", &x));
	ASSERT_EQ(json_object_array_length(x), 3);
	for (unsigned k = 0; k < 3; k++) {
		double v = json_object_get_double(json_object_array_get_idx(x, k));

		/* A bucket's midpoint: within the histogram's 1/64 relative error. */
		EXPECT_TRUE(fabs(v - (double)centre[k]) <= (double)centre[k] / 64.0);
	}
	EXPECT_FALSE(json_object_object_get_ex(m, "samples", &x));
	/* Recorded without a round ever ending: no round medians. */
	m = find_metric(root, "unit.no_rounds");
	ASSERT_NOT_NULL(m);
	EXPECT_FALSE(json_object_object_get_ex(m, "round_medians", &x));
	m = find_metric(root, "unit.samples");
	ASSERT_NOT_NULL(m);
	ASSERT_TRUE(json_object_object_get_ex(m, "samples", &x));
	EXPECT_EQ(json_object_array_length(x), 1);
	EXPECT_FALSE(json_object_object_get_ex(m, "round_medians", &x));

	json_object_put(root);
	free(written);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

KTEST(bench_run_write_round_trip)
{
	char *dir = make_tmpdir(), path[512], err[256], *written = NULL;
	struct bench_metric *ms, *mh;
	struct bench_hist *h = malloc(sizeof(*h)), *back = malloc(sizeof(*back));
	struct bench_stats s, sb;
	struct bench_run r;
	json_object *root, *m, *x, *y;
	void *loaded;
	unsigned i;

	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(h && back);
	ASSERT_EQ(init_run(&r), 0);
	EXPECT_EQ(strlen(r.machine.id), 16);
	EXPECT_EQ(bench_run_param(&r, "sizes", "%s", "4k,64k"), 0);
	EXPECT_EQ(bench_run_param(&r, "sizes", "%d", 4), 0);
	EXPECT_EQ(bench_run_param(&r, "", "%d", 4), -EINVAL);
	EXPECT_EQ(bench_run_backend_param(&r, "latency_ns", "%u", 500u), 0);
	ms = bench_metric_add(&r, "unit.samples", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_NOT_NULL(ms);
	EXPECT_NULL(bench_metric_add(&r, "unit.samples", "ns", BENCH_LOWER_IS_BETTER));
	for (i = 0; i < 7; i++)
		EXPECT_EQ(bench_metric_sample(ms, 100.0 + i / 3.0), 0);
	EXPECT_EQ(bench_metric_sample(ms, NAN), -EINVAL);
	EXPECT_EQ(bench_metric_use_hist(ms), -EBUSY);
	bench_metric_target(ms, 150.0, BENCH_TARGET_AT_MOST);
	EXPECT_EQ(bench_metric_label(ms, "threads", "4"), 0);
	mh = bench_metric_add(&r, "validate.unit.4k", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_NOT_NULL(mh);
	ASSERT_EQ(bench_metric_use_hist(mh), 0);
	EXPECT_EQ(bench_metric_sample(mh, 1.0), -EINVAL);
	bench_hist_init(h);
	for (i = 0; i < 5000; i++) {
		EXPECT_EQ(bench_metric_record(mh, 1000 + ktest_rand() % 100000), 0);
		bench_hist_record(h, 50 + i);
	}
	EXPECT_EQ(bench_metric_merge_hist(mh, h), 0);
	EXPECT_EQ(bench_metric_merge_hist(ms, h), -EINVAL);
	ASSERT_EQ(bench_metric_stats(mh, &s), 0);
	EXPECT_EQ(s.n, 10000);
	{
		const char *cols[] = {"pages", "rss"};
		struct bench_series *se = bench_series_add(&r, "pages", cols, 2);
		double row[2] = {1, 2};

		ASSERT_NOT_NULL(se);
		EXPECT_EQ(bench_series_append(se, 0.5, row), 0);
	}

	ASSERT_EQ(bench_run_write(&r, dir, &written), 0);
	ASSERT_NOT_NULL(written);
	EXPECT_TRUE(strstr(written, "unittest-") != NULL);
	EXPECT_TRUE(strstr(written, r.machine.id) != NULL);
	EXPECT_EQ(count_entries(dir, ".tmp."), 0);
	EXPECT_EQ(count_entries(dir, ".json"), 1);

	ASSERT_EQ(bench_results_load(written, &loaded, err, sizeof(err)), 0);
	root = loaded;
	ASSERT_TRUE(json_object_object_get_ex(root, "benchmark", &x));
	EXPECT_STREQ(json_object_get_string(x), "unittest");
	ASSERT_TRUE(json_object_object_get_ex(root, "parameters", &x));
	ASSERT_TRUE(json_object_object_get_ex(x, "sizes", &y));
	EXPECT_STREQ(json_object_get_string(y), "4");
	ASSERT_TRUE(json_object_object_get_ex(root, "machine", &x));
	ASSERT_TRUE(json_object_object_get_ex(x, "id", &y));
	EXPECT_STREQ(json_object_get_string(y), r.machine.id);
	ASSERT_TRUE(json_object_object_get_ex(x, "build", &y));
	ASSERT_TRUE(json_object_object_get_ex(x, "backend_params", &y));

	m = find_metric(root, "unit.samples");
	ASSERT_NOT_NULL(m);
	ASSERT_TRUE(json_object_object_get_ex(m, "samples", &x));
	ASSERT_EQ(json_object_array_length(x), 7);
	/* Doubles survive the text form exactly. */
	EXPECT_TRUE(json_object_get_double(json_object_array_get_idx(x, 1)) == 100.0 + 1 / 3.0);
	EXPECT_EQ(bench_results_metric_hist(m, back), -ENOENT);
	ASSERT_TRUE(json_object_object_get_ex(m, "target", &x));
	ASSERT_TRUE(json_object_object_get_ex(x, "pass", &y));
	EXPECT_TRUE(json_object_get_boolean(y));

	m = find_metric(root, "validate.unit.4k");
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(bench_results_metric_hist(m, back), 0);
	ASSERT_EQ(bench_hist_stats(back, &sb), 0);
	EXPECT_EQ(sb.n, s.n);
	EXPECT_TRUE(sb.median == s.median && sb.p99 == s.p99 && sb.min == s.min &&
		    sb.max == s.max && sb.mean == s.mean);
	json_object_put(root);

	/* Same file name on purpose: a second write never replaces the first. */
	snprintf(path, sizeof(path), "%s/fixed.json", dir);
	EXPECT_EQ(bench_run_write(&r, path, NULL), 0);
	EXPECT_EQ(bench_run_write(&r, path, NULL), -EEXIST);
	EXPECT_EQ(count_entries(dir, "fixed.json"), 1);
	EXPECT_EQ(count_entries(dir, ".tmp."), 0);

	free(written);
	free(h);
	free(back);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

KTEST(bench_run_write_failure_leaves_nothing)
{
	char *dir = make_tmpdir(), path[512];
	struct bench_run r;
	char *written = (char *)1;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(init_run(&r), 0);
	snprintf(path, sizeof(path), "%s/missing/x.json", dir);
	EXPECT_EQ(bench_run_write(&r, path, &written), -ENOENT);
	EXPECT_NULL(written);
	EXPECT_EQ(count_entries(dir, ""), 0);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

/* Write a minimal results document ending in @tail and check whether it loads. */
static void load_ok(const char *path, const char *tail, bool ok)
{
	char text[512], err[256];
	void *root = NULL;
	int rc;

	snprintf(text, sizeof(text),
		 "{\"schema\": \"ttm-bench-results\", \"schema_version\": 1,"
		 " \"benchmark\": \"x\", \"machine\": {}, %s",
		 tail);
	write_text(path, text);
	rc = bench_results_load(path, &root, err, sizeof(err));
	if (ok) {
		EXPECT_EQ(rc, 0);
	} else {
		EXPECT_EQ(rc, -EINVAL);
		EXPECT_TRUE(strchr(err, '\n') == NULL);
	}
	if (!rc) {
		json_object_put(root);
	} else if (ok) {
		fprintf(stderr, "# unexpected: %s\n", err);
	}
	EXPECT_TRUE(!rc == ok);
}

KTEST(bench_results_load_errors)
{
	char *dir = make_tmpdir(), path[512], err[256];
	void *root;

	ASSERT_NOT_NULL(dir);
	snprintf(path, sizeof(path), "%s/none.json", dir);
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -ENOENT);
	EXPECT_TRUE(strstr(err, "none.json") != NULL);

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	write_text(path, "{\"schema\": \"ttm-bench-results\", ");
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "malformed") != NULL);
	EXPECT_TRUE(strchr(err, '\n') == NULL);

	write_text(path, "{\"schema\": \"ttm-bench-results\", \"schema_version\": 2,"
			 " \"benchmark\": \"x\", \"machine\": {}, \"metrics\": []}");
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -EPROTO);
	EXPECT_TRUE(strstr(err, "schema_version") != NULL);

	write_text(path, "{\"schema\": \"other\", \"schema_version\": 1}");
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -EPROTO);

	write_text(path, "{\"schema\": \"ttm-bench-results\", \"schema_version\": 1,"
			 " \"benchmark\": \"x\", \"machine\": {}}");
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "metrics") != NULL);

	write_text(path, "[1, 2]");
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -EINVAL);

	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [1, 2.5]}]}", true);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"stats\": {\"median\": 3}}]}", true);
	/* A file with nothing to compare, or with impossible or non-finite values. */
	load_ok(path, "\"metrics\": []}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"stats\": null}]}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [-1e300]}]}", false);
	/* A time may be negative (an overhead), but not beyond any possible run. */
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", \"samples\": [-3]}]}",
		true);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", \"samples\": [-1e300]}]}",
		false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"unit\": \"GB/s\", \"samples\": [-3]}]}",
		false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [NaN]}]}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [1e999]}]}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [Infinity]}]}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"stats\": {\"median\": -5}}]}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [\"1\"]}]}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [1]}]} trailing", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [1]}]}{}", false);
	load_ok(path, "\"metrics\": [{\"name\": \"m\", \"samples\": [1]}]}\n\n", true);
	/* Not a regular file: a device would never end, a FIFO would block. */
	EXPECT_EQ(bench_results_load("/dev/zero", &root, err, sizeof(err)), -EINVAL);
	EXPECT_EQ(bench_results_load(dir, &root, err, sizeof(err)), -EINVAL);
	/* Larger than BENCH_RESULTS_MAX_BYTES: refused before reading. */
	ASSERT_EQ(truncate(path, (off_t)BENCH_RESULTS_MAX_BYTES + 1), 0);
	EXPECT_EQ(bench_results_load(path, &root, err, sizeof(err)), -EFBIG);
	EXPECT_TRUE(strstr(err, "too large") != NULL);
	rm_rf(dir);
	free(dir);
}

KTEST(bench_results_to_csv_writes_plot_inputs)
{
	char *dir = make_tmpdir(), out[512], err[256], *written = NULL;
	struct bench_metric *m;
	struct bench_run r;
	unsigned i;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(init_run(&r), 0);
	m = bench_metric_add(&r, "validate.hit.4k", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(bench_metric_use_hist(m), 0);
	for (i = 0; i < 100; i++)
		bench_metric_record(m, 100 + i);
	m = bench_metric_add(&r, "evict.lru.ws150.throughput", "GB/s", BENCH_HIGHER_IS_BETTER);
	ASSERT_NOT_NULL(m);
	bench_metric_sample(m, 1.5);
	m = bench_metric_add(&r, "fence.signal.t4.throughput", "ops/s", BENCH_HIGHER_IS_BETTER);
	ASSERT_NOT_NULL(m);
	bench_metric_sample(m, 1e6);
	{
		const char *cols[] = {"pages"};
		struct bench_series *se = bench_series_add(&r, "pool", cols, 1);
		double v = 3;

		ASSERT_NOT_NULL(se);
		EXPECT_EQ(bench_series_append(se, 0.1, &v), 0);
		EXPECT_NULL(bench_series_add(&r, "bad", cols, 0));
	}
	ASSERT_EQ(bench_run_write(&r, dir, &written), 0);
	snprintf(out, sizeof(out), "%s/plots", dir);
	{
		const char *missing[] = {"/nonexistent/x.json"};

		EXPECT_EQ(bench_results_to_csv(missing, 1, out, err, sizeof(err)), -ENOENT);
		EXPECT_TRUE(strstr(err, "/nonexistent/x.json") != NULL);
	}
	{
		const char *paths[] = {written};

		ASSERT_EQ(bench_results_to_csv(paths, 1, out, err, sizeof(err)), 0);
	}
	EXPECT_EQ(count_entries(out, "metrics.dat"), 1);
	EXPECT_EQ(count_entries(out, "validate-cdf.dat"), 1);
	EXPECT_EQ(count_entries(out, "eviction.dat"), 1);
	EXPECT_EQ(count_entries(out, "fence.dat"), 1);
	EXPECT_EQ(count_entries(out, "series-pool.dat"), 1);
	rm_rf(out);
	free(written);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

/* Lines of @path (0 when it does not exist). */
static unsigned count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

KTEST(bench_results_nulls_and_name_suffixes)
{
	char *dir = make_tmpdir(), out[512], p[600], err[256], *written = NULL;
	struct bench_metric *m;
	struct bench_run r;
	json_object *root, *ref, *ratio;
	void *loaded;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(init_run(&r), 0);
	/* Measured reference, but a negative figure has no ratio: written as null. */
	r.refs[BENCH_REF_MUTEX].measured = true;
	r.refs[BENCH_REF_MUTEX].stats.median = 10.0;
	m = bench_metric_add(&r, "probe.overhead", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_NOT_NULL(m);
	bench_metric_reference(m, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_sample(m, -0.5);
	/* No samples at all: stats null. */
	ASSERT_NOT_NULL(
	    bench_metric_add(&r, "evict.x.ws50.copy_bw", "GB/s", BENCH_HIGHER_IS_BETTER));
	/* Same prefix as a throughput metric, other suffix: not a plot row. */
	m = bench_metric_add(&r, "fence.c.t1.throughput", "fences/s", BENCH_HIGHER_IS_BETTER);
	bench_metric_sample(m, 5.0);
	m = bench_metric_add(&r, "fence.c.t1.ns_per_fence", "ns", BENCH_LOWER_IS_BETTER);
	bench_metric_sample(m, 200.0);
	m = bench_metric_add(&r, "evict.x.ws200.throughput_extra", "GB/s", BENCH_HIGHER_IS_BETTER);
	bench_metric_sample(m, 1.0);
	ASSERT_EQ(bench_run_write(&r, dir, &written), 0);
	ASSERT_EQ(bench_results_load(written, &loaded, err, sizeof(err)), 0);
	root = loaded;
	ASSERT_TRUE(
	    json_object_object_get_ex(find_metric(root, "probe.overhead"), "reference", &ref));
	EXPECT_TRUE(json_object_object_get_ex(ref, "ratio", &ratio));
	EXPECT_NULL(ratio);
	EXPECT_TRUE(
	    json_object_object_get_ex(find_metric(root, "evict.x.ws50.copy_bw"), "stats", &ratio));
	EXPECT_NULL(ratio);
	json_object_put(root);
	snprintf(out, sizeof(out), "%s/plots", dir);
	{
		const char *paths[] = {written};

		ASSERT_EQ(bench_results_to_csv(paths, 1, out, err, sizeof(err)), 0);
	}
	snprintf(p, sizeof(p), "%s/fence.dat", out);
	EXPECT_EQ(count_lines(p), 2); /* header + the throughput row only */
	EXPECT_EQ(count_entries(out, "eviction.dat"), 0);
	rm_rf(out);
	free(written);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

struct rep_ctx {
	int calls;
	int negative;
	int fail_at;
};

static int rep_fn(void *ctx, int rep, double *value)
{
	struct rep_ctx *c = ctx;

	c->calls++;
	if (rep < 0)
		c->negative++;
	if (rep == c->fail_at)
		return -EIO;
	*value = 10.0 + rep;
	return 0;
}

KTEST(bench_repeat_warmup_then_samples)
{
	struct rep_ctx c = {.fail_at = 1000};
	struct bench_metric *m;
	struct bench_stats s;
	struct bench_run r;

	ASSERT_EQ(init_run(&r), 0); /* --quick: 1 warm-up, 3 reps */
	m = bench_metric_add(&r, "rep", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_NOT_NULL(m);
	EXPECT_EQ(bench_repeat(&r, m, rep_fn, &c), 0);
	EXPECT_EQ(c.calls, 4);
	EXPECT_EQ(c.negative, 1);
	ASSERT_EQ(bench_metric_stats(m, &s), 0);
	EXPECT_EQ(s.n, 3);
	EXPECT_TRUE(s.median == 11.0);
	m = bench_metric_add(&r, "rep.fail", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_NOT_NULL(m);
	c = (struct rep_ctx){.fail_at = 1};
	EXPECT_EQ(bench_repeat(&r, m, rep_fn, &c), -EIO);
	bench_run_fini(&r);
}

KTEST(bench_summary_print_columns)
{
	struct bench_metric *a, *b;
	struct bench_run r;
	char buf[8192];
	size_t n;
	FILE *f;

	ASSERT_EQ(init_run(&r), 0);
	r.refs[BENCH_REF_SYSCALL].measured = true;
	r.refs[BENCH_REF_SYSCALL].stats.median = 50.0;
	a = bench_metric_add(&r, "sum.pass", "ns", BENCH_LOWER_IS_BETTER);
	b = bench_metric_add(&r, "sum.miss", "ns", BENCH_LOWER_IS_BETTER);
	ASSERT_TRUE(a && b);
	bench_metric_sample(a, 100.0);
	bench_metric_sample(b, 300.0);
	bench_metric_reference(a, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(a, 200.0, BENCH_TARGET_AT_MOST);
	bench_metric_target(b, 200.0, BENCH_TARGET_AT_MOST);
	f = tmpfile();
	ASSERT_NOT_NULL(f);
	bench_summary_print(&r, f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	EXPECT_TRUE(strstr(buf, "syscall_getppid 50 ns") != NULL);
	EXPECT_TRUE(strstr(buf, "v/r 2 ") != NULL);
	EXPECT_TRUE(strstr(buf, "pass") != NULL);
	EXPECT_TRUE(strstr(buf, "MISS") != NULL);
	EXPECT_TRUE(strstr(buf, r.machine.id) != NULL);
	bench_run_fini(&r);
}

KTEST(bench_setup_help_and_usage)
{
	struct bench_run r;
	char *bad[] = {"prog", "--nope", NULL};

	EXPECT_EQ(bench_setup(&r, "x", 2, bad, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_exit_code(BENCH_SETUP_USAGE), 2);
	ASSERT_EQ(bench_setup(&r, "x", 1, (char *[]){"prog", NULL}, NULL, NULL), 0);
	bench_run_fini(&r);
}

static int file_text_is(const char *path, const char *text)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, text);
}

/* A pid that is certainly not running: a child that has been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/*
 * A results file is never written over anything: not over an existing
 * file (its content stays), not over a device node, a FIFO or a dangling
 * symbolic link; the attempt leaves no temporary file behind.
 */
KTEST(bench_run_write_never_replaces)
{
	char *dir = make_tmpdir(), path[512], link_path[512];
	struct bench_run r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(init_run(&r), 0);
	snprintf(path, sizeof(path), "%s/old.json", dir);
	write_text(path, "precious");
	EXPECT_EQ(bench_run_write(&r, path, NULL), -EEXIST);
	EXPECT_TRUE(file_text_is(path, "precious"));
	/*
	 * A device node of our own (a copy of /dev/null's numbers): a
	 * regression would replace this one, not the system's. Needs root.
	 */
	snprintf(path, sizeof(path), "%s/null", dir);
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
		struct stat st;

		EXPECT_EQ(bench_run_write(&r, path, NULL), -EEXIST);
		EXPECT_TRUE(!lstat(path, &st) && S_ISCHR(st.st_mode));
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ASSERT_EQ(mkfifo(path, 0600), 0);
	EXPECT_EQ(bench_run_write(&r, path, NULL), -EEXIST);
	snprintf(link_path, sizeof(link_path), "%s/dangling", dir);
	ASSERT_EQ(symlink("/nonexistent/target", link_path), 0);
	EXPECT_EQ(bench_run_write(&r, link_path, NULL), -EEXIST);
	EXPECT_EQ(count_entries(dir, ".tmp."), 0);
	EXPECT_EQ(count_entries(dir, ""), 3);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

/* Two runs of one benchmark writing into one directory in the same second both keep their file. */
KTEST(bench_run_write_same_second_keeps_both)
{
	char *dir = make_tmpdir(), *w1 = NULL, *w2 = NULL;
	struct bench_run a, b;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(init_run(&a), 0);
	ASSERT_EQ(init_run(&b), 0);
	b.started_unix = a.started_unix;
	ASSERT_EQ(bench_run_write(&a, dir, &w1), 0);
	ASSERT_EQ(bench_run_write(&b, dir, &w2), 0);
	EXPECT_TRUE(strcmp(w1, w2) != 0);
	EXPECT_EQ(count_entries(dir, ".json"), 2);
	EXPECT_EQ(count_entries(dir, ".tmp."), 0);
	free(w1);
	free(w2);
	bench_run_fini(&a);
	bench_run_fini(&b);
	rm_rf(dir);
	free(dir);
}

/*
 * bench_setup() finds an output it cannot use before anything is measured,
 * and holds this run's temporary file from then on; the finished run
 * publishes it and leaves no temporary file.
 */
KTEST(bench_setup_checks_out_before_measuring)
{
	char *dir = make_tmpdir(), path[512], *written = NULL;
	char *argv[] = {"prog", "--quick", "--out", path, NULL};
	struct bench_run r;

	ASSERT_NOT_NULL(dir);
	snprintf(path, sizeof(path), "%s/missing/x.json", dir);
	EXPECT_EQ(bench_setup(&r, "x", 4, argv, NULL, NULL), -ENOENT);
	snprintf(path, sizeof(path), "%s/old.json", dir);
	write_text(path, "precious");
	EXPECT_EQ(bench_setup(&r, "x", 4, argv, NULL, NULL), -EEXIST);
	EXPECT_TRUE(file_text_is(path, "precious"));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ASSERT_EQ(mkfifo(path, 0600), 0);
	EXPECT_EQ(bench_setup(&r, "x", 4, argv, NULL, NULL), -EEXIST);
	unlink(path);
	snprintf(path, sizeof(path), "%s", dir);
	ASSERT_EQ(bench_setup(&r, "x", 4, argv, NULL, NULL), 0);
	EXPECT_EQ(count_entries(dir, ".json.tmp."), 1);
	ASSERT_EQ(bench_run_write(&r, NULL, &written), 0);
	EXPECT_EQ(count_entries(dir, ".tmp."), 0);
	EXPECT_EQ(count_entries(dir, "x-"), 1);
	bench_run_fini(&r);
	/* A run given up without writing leaves nothing either. */
	ASSERT_EQ(bench_setup(&r, "x", 4, argv, NULL, NULL), 0);
	bench_run_fini(&r);
	EXPECT_EQ(count_entries(dir, ".tmp."), 0);
	free(written);
	rm_rf(dir);
	free(dir);
}

/* A killed run's temporary file is swept by the next run; a live process's, or another kind of
 * file, is not. */
KTEST(bench_setup_sweeps_stale_temporaries)
{
	char *dir = make_tmpdir(), stale[512], live[512], other[512];
	char *argv[] = {"prog", "--quick", "--out", NULL, NULL};
	struct bench_run r;
	pid_t gone = dead_pid();

	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(gone > 0);
	argv[3] = dir;
	snprintf(stale, sizeof(stale), "%s/y-1-2.json.tmp.%ld", dir, (long)gone);
	snprintf(live, sizeof(live), "%s/y-1-3.json.tmp.%ld", dir, (long)getppid());
	snprintf(other, sizeof(other), "%s/notes.txt.tmp.%ld", dir, (long)gone);
	write_text(stale, "{");
	write_text(live, "{");
	write_text(other, "keep");
	ASSERT_EQ(bench_setup(&r, "x", 4, argv, NULL, NULL), 0);
	EXPECT_EQ(access(stale, F_OK), -1);
	EXPECT_EQ(access(live, F_OK), 0);
	EXPECT_EQ(access(other, F_OK), 0);
	bench_run_fini(&r);
	rm_rf(dir);
	free(dir);
}

/* --cpus names only CPUs this process may run on; --threads, --reps and --duration are bounded. */
KTEST(bench_setup_rejects_unusable_numbers)
{
	char *cpus[] = {"prog", "--cpus", "999999", NULL};
	char *threads[] = {"prog", "--threads", "4294967295", NULL};
	char *reps[] = {"prog", "--reps", "3abc", NULL};
	char *dur[] = {"prog", "--duration", "nan", NULL};
	char *seed[] = {"prog", "--seed", "-1", NULL};
	char *space[] = {"prog", "--seed", " 1", NULL};
	char *big[] = {"prog", "--reps", "1000000000", NULL};
	struct bench_run r;

	EXPECT_EQ(bench_setup(&r, "x", 3, cpus, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_setup(&r, "x", 3, threads, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_setup(&r, "x", 3, reps, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_setup(&r, "x", 3, dur, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_setup(&r, "x", 3, seed, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_setup(&r, "x", 3, space, NULL, NULL), BENCH_SETUP_USAGE);
	EXPECT_EQ(bench_setup(&r, "x", 3, big, NULL, NULL), BENCH_SETUP_USAGE);
}
