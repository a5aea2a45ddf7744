// SPDX-License-Identifier: MIT
/*
 * ttm-history - the results history: every benchmark run recorded in one
 * database, queried per metric across commits.
 *
 *   ttm-history [--db FILE | --pg CONNINFO] import [--source NAME] PATH...
 *   ttm-history [--db FILE | --pg CONNINFO] runs [--last N]
 *   ttm-history [--db FILE | --pg CONNINFO] trend METRIC [FILTERS] [--ratio]
 *   ttm-history [--db FILE | --pg CONNINFO] plot METRIC -o OUT.png|OUT.svg [FILTERS] [--ratio]
 *
 * FILTERS: --machine ID, --benchmark NAME, --params K=V;K=V (the matching key
 * ttm-compare uses), --last N (the newest N runs), --threshold PCT (change
 * point size, default 5), --window N (runs on each side, default 3).
 *
 * The database is SQLite (default results/history.sqlite, or $TTM_HISTORY_DB)
 * or, for a farm of machines writing to one server, PostgreSQL (--pg or
 * $TTM_HISTORY_PG, a libpq connection string); the schema and every
 * statement are the same on both. A results file (results/README.md) is one
 * run: machine, commit, build options, parameters, the same-run references
 * and every metric's statistics. A file is recorded once: importing it again
 * (same bytes) is reported and skipped, so `import results/runs` can be
 * repeated.
 *
 * trend prints one row per run that has METRIC, oldest first: start time,
 * commit, median and its 95% interval (or, with --ratio, the ratio to the
 * same-run reference), and marks change points: a run where the median of
 * the next --window runs differs from the median of the previous --window by
 * more than --threshold percent and every one of those runs lies beyond every
 * previous one (the two groups do not overlap); of neighbouring candidates
 * the one where the group means differ most is kept. Each side needs at least two runs: one run
 * that differs from the one before is what noise looks like. The rule is deliberately blunt: it
 * names the run to look at, ttm-compare --run judges it.
 *
 * Exit status: 0; 1 for a runtime failure (database, file); 2 for bad usage
 * or input.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <testlib/checksum.h>
#include <sqlite3.h>
#include <ttm_config.h>
#if TTM_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

#include "bench.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define HISTORY_MAX_FILE (64u << 20)

static const char *prog = "ttm-history";

/* ------------------------------------------------------------ database */

/*
 * One statement with text parameters $1..$n, on either engine. Rows come
 * back as text; NULL columns as NULL pointers.
 */
struct db {
	sqlite3 *lite;
#if TTM_HAVE_LIBPQ
	PGconn *pg;
#endif
};

struct db_rows {
	unsigned nrows, ncols;
	char **cell; /* nrows * ncols, malloc()ed strings or NULL */
};

static void db_rows_free(struct db_rows *r)
{
	for (unsigned i = 0; i < r->nrows * r->ncols; i++)
		free(r->cell[i]);
	free(r->cell);
	memset(r, 0, sizeof(*r));
}

static const char *db_cell(const struct db_rows *r, unsigned row, unsigned col)
{
	return r->cell[row * r->ncols + col];
}

static int rows_push(struct db_rows *r, unsigned ncols, const char *const *vals)
{
	char **cell = realloc(r->cell, (size_t)(r->nrows + 1) * ncols * sizeof(*cell));

	if (!cell)
		return -ENOMEM;
	r->cell = cell;
	r->ncols = ncols;
	for (unsigned c = 0; c < ncols; c++) {
		char **dst = &cell[(size_t)r->nrows * ncols + c];

		*dst = vals[c] ? strdup(vals[c]) : NULL;
		if (vals[c] && !*dst) {
			while (c--)
				free(cell[(size_t)r->nrows * ncols + c]);
			return -ENOMEM;
		}
	}
	r->nrows++;
	return 0;
}

/*
 * db_exec() - run @sql with @n text parameters (NULL entries are SQL NULL).
 * Rows go to @out when non-NULL. Return: 0, or -1 with the engine's message
 * printed.
 */
static int db_exec(struct db *db, const char *sql, unsigned n, const char *const *params,
		   struct db_rows *out)
{
	if (out)
		memset(out, 0, sizeof(*out));
#if TTM_HAVE_LIBPQ
	if (db->pg) {
		PGresult *res = PQexecParams(db->pg, sql, (int)n, NULL, params, NULL, NULL, 0);
		ExecStatusType st = PQresultStatus(res);

		if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
			fprintf(stderr, "%s: postgresql: %s", prog, PQerrorMessage(db->pg));
			PQclear(res);
			return -1;
		}
		if (out && st == PGRES_TUPLES_OK) {
			unsigned ncols = (unsigned)PQnfields(res);
			const char *vals[32];

			if (ncols > 32)
				ncols = 32;
			for (int i = 0; i < PQntuples(res); i++) {
				for (unsigned c = 0; c < ncols; c++)
					vals[c] = PQgetisnull(res, i, (int)c)
						      ? NULL
						      : PQgetvalue(res, i, (int)c);
				if (rows_push(out, ncols, vals)) {
					PQclear(res);
					db_rows_free(out);
					fprintf(stderr, "%s: out of memory\n", prog);
					return -1;
				}
			}
		}
		PQclear(res);
		return 0;
	}
#endif
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db->lite, sql, -1, &st, NULL);

	if (rc != SQLITE_OK) {
		fprintf(stderr, "%s: sqlite: %s\n", prog, sqlite3_errmsg(db->lite));
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		rc = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, (int)i + 1);
		if (rc != SQLITE_OK)
			goto fail;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		unsigned ncols = (unsigned)sqlite3_column_count(st);
		const char *vals[32];

		if (!out)
			continue;
		if (ncols > 32)
			ncols = 32;
		for (unsigned c = 0; c < ncols; c++)
			vals[c] = (const char *)sqlite3_column_text(st, (int)c);
		if (rows_push(out, ncols, vals)) {
			sqlite3_finalize(st);
			db_rows_free(out);
			fprintf(stderr, "%s: out of memory\n", prog);
			return -1;
		}
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	fprintf(stderr, "%s: sqlite: %s\n", prog, sqlite3_errmsg(db->lite));
	sqlite3_finalize(st);
	if (out)
		db_rows_free(out);
	return -1;
}

/*
 * The schema, one statement per entry. Types are the ones both engines
 * read the same way; numbers are stored as numbers (the text parameters are
 * cast by the column's type on PostgreSQL and by its affinity on SQLite).
 * run.id is assigned by the engine: the two spellings differ only there.
 */
static const char *const schema_common[] = {
    "CREATE TABLE IF NOT EXISTS machine (id TEXT PRIMARY KEY, cpu_model TEXT, "
    "cpu_signature TEXT, cores INTEGER, pus INTEGER, ram_bytes BIGINT, arch TEXT)",
    "CREATE TABLE IF NOT EXISTS metric (run_id BIGINT NOT NULL REFERENCES run(id), "
    "name TEXT NOT NULL, unit TEXT, direction TEXT, kind TEXT, n BIGINT, "
    "median DOUBLE PRECISION, ci_lo DOUBLE PRECISION, ci_hi DOUBLE PRECISION, "
    "min DOUBLE PRECISION, max DOUBLE PRECISION, mean DOUBLE PRECISION, "
    "stddev DOUBLE PRECISION, p90 DOUBLE PRECISION, p99 DOUBLE PRECISION, "
    "ref_name TEXT, ref_value DOUBLE PRECISION, ref_ratio DOUBLE PRECISION, "
    "target_value DOUBLE PRECISION, target_cmp TEXT, target_pass INTEGER, "
    "platform INTEGER, PRIMARY KEY (run_id, name))",
    "CREATE TABLE IF NOT EXISTS reference (run_id BIGINT NOT NULL REFERENCES run(id), "
    "name TEXT NOT NULL, unit TEXT, median DOUBLE PRECISION, ci_lo DOUBLE PRECISION, "
    "ci_hi DOUBLE PRECISION, PRIMARY KEY (run_id, name))",
    "CREATE INDEX IF NOT EXISTS metric_name ON metric (name)",
    "CREATE INDEX IF NOT EXISTS run_started ON run (started_utc)",
};

#define RUN_COLUMNS                                                                                \
	"file_hash TEXT NOT NULL UNIQUE, path TEXT, source TEXT, machine_id TEXT NOT NULL, "       \
	"hostname TEXT, kernel TEXT, benchmark TEXT NOT NULL, started_utc TEXT NOT NULL, "         \
	"elapsed_s DOUBLE PRECISION, git_rev TEXT, build_type TEXT, compiler TEXT, "               \
	"sanitize TEXT, fault_inject INTEGER, validate_delay_ns DOUBLE PRECISION, backend TEXT, "  \
	"quick INTEGER, reps BIGINT, seed BIGINT, params TEXT NOT NULL"

static int db_open(struct db *db, const char *path, const char *conninfo)
{
	memset(db, 0, sizeof(*db));
	if (conninfo) {
#if TTM_HAVE_LIBPQ
		db->pg = PQconnectdb(conninfo);
		if (PQstatus(db->pg) != CONNECTION_OK) {
			fprintf(stderr, "%s: postgresql: %s", prog, PQerrorMessage(db->pg));
			PQfinish(db->pg);
			db->pg = NULL;
			return -1;
		}
		/* Notices such as "relation already exists, skipping" are noise here. */
		db_exec(db, "SET client_min_messages TO WARNING", 0, NULL, NULL);
		if (db_exec(db,
			    "CREATE TABLE IF NOT EXISTS run (id BIGSERIAL PRIMARY KEY, " RUN_COLUMNS
			    ")",
			    0, NULL, NULL) ||
		    /* Delays became fractional (0.75 ns): widen a database made before. */
		    db_exec(db,
			    "ALTER TABLE run ALTER COLUMN validate_delay_ns TYPE DOUBLE PRECISION",
			    0, NULL, NULL))
			return -1;
#else
		fprintf(stderr, "%s: built without libpq: --pg is not available\n", prog);
		return -1;
#endif
	} else {
		if (sqlite3_open_v2(path, &db->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				    NULL) != SQLITE_OK) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				db->lite ? sqlite3_errmsg(db->lite) : "cannot open");
			sqlite3_close(db->lite);
			db->lite = NULL;
			return -1;
		}
		sqlite3_busy_timeout(db->lite, 10000);
		if (db_exec(db, "PRAGMA foreign_keys = ON", 0, NULL, NULL) ||
		    db_exec(db,
			    "CREATE TABLE IF NOT EXISTS run (id INTEGER PRIMARY KEY, " RUN_COLUMNS
			    ")",
			    0, NULL, NULL))
			return -1;
	}
	for (size_t i = 0; i < sizeof(schema_common) / sizeof(schema_common[0]); i++)
		if (db_exec(db, schema_common[i], 0, NULL, NULL))
			return -1;
	return 0;
}

static void db_close(struct db *db)
{
#if TTM_HAVE_LIBPQ
	if (db->pg)
		PQfinish(db->pg);
#endif
	if (db->lite)
		sqlite3_close(db->lite);
}

/* ------------------------------------------------------------- import */

/* Text of a JSON value for a parameter: NULL for missing/null, numbers exact. */
struct txt {
	char buf[64];
	const char *s;
};

static const char *jtext(struct txt *t, json_object *o, const char *key)
{
	json_object *v;

	t->s = NULL;
	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	switch (json_object_get_type(v)) {
	case json_type_string:
		t->s = json_object_get_string(v);
		break;
	case json_type_int:
		snprintf(t->buf, sizeof(t->buf), "%lld", (long long)json_object_get_int64(v));
		t->s = t->buf;
		break;
	case json_type_double: {
		double d = json_object_get_double(v);

		if (isfinite(d)) {
			snprintf(t->buf, sizeof(t->buf), "%.17g", d);
			t->s = t->buf;
		}
		break;
	}
	case json_type_boolean:
		t->s = json_object_get_boolean(v) ? "1" : "0";
		break;
	default:
		break;
	}
	return t->s;
}

static json_object *jobj(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* FNV-1a over the file's bytes: a run's identity in the history. */
static int file_hash(const char *path, char out[17])
{
	FILE *f = fopen(path, "rb");
	uint64_t h = TESTLIB_CHECKSUM_INIT;
	unsigned char buf[65536];
	size_t n, total = 0;

	if (!f)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		total += n;
		if (total > HISTORY_MAX_FILE) {
			fclose(f);
			return -EFBIG;
		}
		h = testlib_checksum_update(h, buf, n);
	}
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	return 0;
}

/* The matching key's parameters, "k=v;k=v" in the file's order. */
static char *params_text(json_object *params)
{
	size_t len = 1;
	char *s;

	if (!params)
		return strdup("");
	json_object_object_foreach(params, k, v) len +=
	    strlen(k) + strlen(json_object_get_string(v)) + 2;
	s = calloc(1, len);
	if (!s)
		return NULL;
	json_object_object_foreach(params, k2, v2)
	{
		if (*s)
			strcat(s, ";");
		strcat(s, k2);
		strcat(s, "=");
		strcat(s, json_object_get_string(v2));
	}
	return s;
}

enum import_result { IMPORTED, ALREADY, FAILED, BAD_INPUT };

static enum import_result import_file(struct db *db, const char *path, const char *source)
{
	json_object *root = NULL, *machine, *build, *options, *refs, *metrics;
	struct db_rows rows;
	struct txt t[24];
	char hash[17], err[256], *params = NULL;
	enum import_result ret = FAILED;
	int rc;

	rc = file_hash(path, hash);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(-rc));
		return rc == -EFBIG ? BAD_INPUT : FAILED;
	}
	{
		const char *p[] = {hash};

		if (db_exec(db, "SELECT id FROM run WHERE file_hash = $1", 1, p, &rows))
			return FAILED;
		if (rows.nrows) {
			db_rows_free(&rows);
			return ALREADY;
		}
		db_rows_free(&rows);
	}
	rc = bench_results_load(path, (void **)&root, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return rc == -ENOENT || rc == -EACCES ? FAILED : BAD_INPUT;
	}
	machine = jobj(root, "machine");
	build = jobj(machine, "build");
	options = jobj(root, "options");
	refs = jobj(root, "references");
	metrics = jobj(root, "metrics");
	params = params_text(jobj(root, "parameters"));
	if (!params || !jtext(&t[0], machine, "id") || !jtext(&t[1], root, "started_utc")) {
		fprintf(stderr, "%s: %s: malformed: machine.id or started_utc missing\n", prog,
			path);
		ret = params ? BAD_INPUT : FAILED;
		goto out;
	}
	if (db_exec(db, "BEGIN", 0, NULL, NULL))
		goto out;
	{
		const char *p[] = {jtext(&t[0], machine, "id"),
				   jtext(&t[2], machine, "cpu_model"),
				   jtext(&t[3], machine, "cpu_signature"),
				   jtext(&t[4], machine, "cores"),
				   jtext(&t[5], machine, "pus"),
				   jtext(&t[6], machine, "ram_bytes"),
				   jtext(&t[7], machine, "arch")};

		if (db_exec(
			db,
			"INSERT INTO machine (id, cpu_model, cpu_signature, cores, pus, ram_bytes, "
			"arch) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
			7, p, NULL))
			goto rollback;
	}
	{
		const char *p[] = {hash,
				   path,
				   source,
				   jtext(&t[0], machine, "id"),
				   jtext(&t[2], machine, "hostname"),
				   jtext(&t[3], machine, "kernel"),
				   jtext(&t[4], root, "benchmark"),
				   jtext(&t[1], root, "started_utc"),
				   jtext(&t[5], root, "elapsed_s"),
				   jtext(&t[6], build, "git_rev"),
				   jtext(&t[7], build, "build_type"),
				   jtext(&t[8], build, "compiler"),
				   jtext(&t[9], build, "sanitize"),
				   jtext(&t[10], build, "fault_inject"),
				   jtext(&t[11], build, "validate_delay_ns"),
				   jtext(&t[12], machine, "backend"),
				   jtext(&t[13], options, "quick"),
				   jtext(&t[14], options, "reps"),
				   jtext(&t[15], options, "seed"),
				   params};

		if (db_exec(
			db,
			"INSERT INTO run (file_hash, path, source, machine_id, hostname, kernel, "
			"benchmark, started_utc, elapsed_s, git_rev, build_type, compiler, "
			"sanitize, "
			"fault_inject, validate_delay_ns, backend, quick, reps, seed, params) "
			"VALUES "
			"($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, "
			"$17, $18, $19, $20) RETURNING id",
			20, p, &rows))
			goto rollback;
	}
	if (rows.nrows != 1 || !db_cell(&rows, 0, 0)) {
		db_rows_free(&rows);
		goto rollback;
	}
	snprintf(t[23].buf, sizeof(t[23].buf), "%s", db_cell(&rows, 0, 0));
	db_rows_free(&rows);
	if (refs) {
		json_object_object_foreach(refs, name, ref)
		{
			json_object *st = jobj(ref, "stats");
			const char *p[] = {t[23].buf,
					   name,
					   jtext(&t[0], ref, "unit"),
					   jtext(&t[1], st, "median"),
					   jtext(&t[2], st, "ci_lo"),
					   jtext(&t[3], st, "ci_hi")};

			if (db_exec(
				db,
				"INSERT INTO reference (run_id, name, unit, median, ci_lo, ci_hi) "
				"VALUES ($1, $2, $3, $4, $5, $6)",
				6, p, NULL))
				goto rollback;
		}
	}
	for (size_t i = 0; i < json_object_array_length(metrics); i++) {
		json_object *m = json_object_array_get_idx(metrics, i);
		json_object *st = jobj(m, "stats"), *ref = jobj(m, "reference"),
			    *tg = jobj(m, "target");
		const char *p[] = {t[23].buf,
				   jtext(&t[0], m, "name"),
				   jtext(&t[1], m, "unit"),
				   jtext(&t[2], m, "direction"),
				   jtext(&t[3], m, "kind"),
				   jtext(&t[4], st, "n"),
				   jtext(&t[5], st, "median"),
				   jtext(&t[6], st, "ci_lo"),
				   jtext(&t[7], st, "ci_hi"),
				   jtext(&t[8], st, "min"),
				   jtext(&t[9], st, "max"),
				   jtext(&t[10], st, "mean"),
				   jtext(&t[11], st, "stddev"),
				   jtext(&t[12], st, "p90"),
				   jtext(&t[13], st, "p99"),
				   jtext(&t[14], ref, "name"),
				   jtext(&t[15], ref, "value"),
				   jtext(&t[16], ref, "ratio"),
				   jtext(&t[17], tg, "value"),
				   jtext(&t[18], tg, "cmp"),
				   jtext(&t[19], tg, "pass"),
				   jtext(&t[20], m, "platform")};

		if (!p[1]) {
			fprintf(stderr, "%s: %s: malformed: metric %zu has no name\n", prog, path,
				i);
			ret = BAD_INPUT;
			goto rollback;
		}
		if (db_exec(
			db,
			"INSERT INTO metric (run_id, name, unit, direction, kind, n, median, "
			"ci_lo, "
			"ci_hi, min, max, mean, stddev, p90, p99, ref_name, ref_value, ref_ratio, "
			"target_value, target_cmp, target_pass, platform) VALUES ($1, $2, $3, $4, "
			"$5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, "
			"$20, "
			"$21, $22) ON CONFLICT (run_id, name) DO NOTHING",
			22, p, NULL))
			goto rollback;
	}
	if (db_exec(db, "COMMIT", 0, NULL, NULL))
		goto rollback;
	ret = IMPORTED;
	goto out;
rollback:
	db_exec(db, "ROLLBACK", 0, NULL, NULL);
out:
	free(params);
	json_object_put(root);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

struct import_counts {
	unsigned imported, already, failed, bad;
};

static void import_path(struct db *db, const char *path, const char *source,
			struct import_counts *c, unsigned depth)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		c->failed++;
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int n;

		if (depth > 8) /* results/runs/<stamp>/ is two deep; a cycle is not. */
			return;
		n = scandir(path, &names, NULL, alphasort);
		if (n < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
			c->failed++;
			return;
		}
		for (int i = 0; i < n; i++) {
			const char *name = names[i]->d_name;
			char sub[PATH_MAX];

			if (name[0] != '.' &&
			    (size_t)snprintf(sub, sizeof(sub), "%s/%s", path, name) < sizeof(sub)) {
				struct stat s2;

				if (!stat(sub, &s2) &&
				    (S_ISDIR(s2.st_mode) || ends_with(name, ".json")))
					import_path(db, sub, source, c, depth + 1);
			}
			free(names[i]);
		}
		free(names);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s: not a regular file\n", prog, path);
		c->bad++;
		return;
	}
	switch (import_file(db, path, source)) {
	case IMPORTED:
		c->imported++;
		break;
	case ALREADY:
		c->already++;
		break;
	case BAD_INPUT:
		c->bad++;
		break;
	case FAILED:
		c->failed++;
		break;
	}
}

/* -------------------------------------------------------------- queries */

struct filters {
	const char *machine, *benchmark, *params;
	unsigned last, window;
	double threshold_pct;
	bool ratio;
	const char *out;
};

static int query_trend(struct db *db, const char *metric, const struct filters *f,
		       struct db_rows *rows)
{
	char last[24];
	const char *p[] = {metric, f->machine, f->benchmark, f->params, last};

	snprintf(last, sizeof(last), "%u", f->last ? f->last : UINT_MAX);
	/* Newest N first in the inner query, then oldest first for the reader. */
	return db_exec(
	    db,
	    "SELECT started_utc, git_rev, median, ci_lo, ci_hi, ref_ratio, machine_id, "
	    "benchmark, params, unit FROM (SELECT r.started_utc, r.git_rev, m.median, "
	    "m.ci_lo, m.ci_hi, m.ref_ratio, r.machine_id, r.benchmark, r.params, m.unit, "
	    "r.id FROM metric m JOIN run r ON r.id = m.run_id WHERE m.name = $1 AND "
	    "(CAST($2 AS TEXT) IS NULL OR r.machine_id = $2) AND (CAST($3 AS TEXT) IS NULL OR "
	    "r.benchmark = $3) AND (CAST($4 AS TEXT) IS NULL OR r.params = $4) ORDER BY "
	    "r.started_utc DESC, r.id "
	    "DESC LIMIT CAST($5 AS BIGINT)) AS t ORDER BY started_utc, id",
	    5, p, rows);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const double *v, unsigned n, double *tmp)
{
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/*
 * change_points() - mark[i] = the relative step (percent) at run i when it
 * is a change point (see the file comment), else 0. Values that are not
 * finite never take part.
 */
static void change_points(const double *v, unsigned n, const struct filters *f, double *mark)
{
	double *tmp = calloc(n ? n : 1, sizeof(*tmp));
	double *score = calloc(n ? n : 1, sizeof(*score));
	unsigned w = f->window ? f->window : 3;

	memset(mark, 0, n * sizeof(*mark));
	if (!tmp || !score)
		goto out;
	for (unsigned i = 1; i < n; i++) {
		unsigned b0 = i > w ? i - w : 0, a1 = i + w < n ? i + w : n;
		double bmin = INFINITY, bmax = -INFINITY, amin = INFINITY, amax = -INFINITY;
		double mb, ma, sb = 0, sa = 0, step;
		bool ok = true;

		for (unsigned j = b0; j < a1; j++) {
			if (!isfinite(v[j])) {
				ok = false;
				break;
			}
			if (j < i) {
				bmin = fmin(bmin, v[j]);
				bmax = fmax(bmax, v[j]);
				sb += v[j];
			} else {
				amin = fmin(amin, v[j]);
				amax = fmax(amax, v[j]);
				sa += v[j];
			}
		}
		/* One run on either side is noise, not a step. */
		if (!ok || i - b0 < 2 || a1 - i < 2 || !(amin > bmax || amax < bmin))
			continue;
		mb = median_of(v + b0, i - b0, tmp);
		ma = median_of(v + i, a1 - i, tmp);
		if (mb == 0)
			continue;
		step = 100.0 * (ma - mb) / fabs(mb);
		if (fabs(step) <= f->threshold_pct)
			continue;
		mark[i] = step;
		/*
		 * Where the step is: a run next to the true one also separates
		 * the groups (one group then holds a run of the other level), but
		 * the difference of the group means is largest at the step itself.
		 */
		score[i] = fabs(sa / (a1 - i) - sb / (i - b0));
	}
	/* Of neighbouring candidates keep the one the means place the step at. */
	for (unsigned i = 1; i < n; i++) {
		unsigned best = i, j;

		if (!mark[i])
			continue;
		for (j = i + 1; j < n && mark[j]; j++)
			if (score[j] > score[best])
				best = j;
		for (unsigned k = i; k < j; k++)
			if (k != best)
				mark[k] = 0;
		i = j;
	}
out:
	free(score);
	free(tmp);
}

static double cell_num(const char *s)
{
	char *end;
	double d;

	if (!s)
		return NAN;
	d = strtod(s, &end);
	return end != s && !*end ? d : NAN;
}

static int trend_series(struct db *db, const char *metric, const struct filters *f,
			struct db_rows *rows, double **vals, double **marks)
{
	if (query_trend(db, metric, f, rows))
		return EXIT_FAIL;
	if (!rows->nrows) {
		fprintf(stderr, "%s: no run records metric %s%s\n", prog, metric,
			f->machine || f->benchmark || f->params ? " with these filters" : "");
		return EXIT_USAGE;
	}
	*vals = calloc(rows->nrows, sizeof(**vals));
	*marks = calloc(rows->nrows, sizeof(**marks));
	if (!*vals || !*marks) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAIL;
	}
	for (unsigned i = 0; i < rows->nrows; i++)
		(*vals)[i] = cell_num(db_cell(rows, i, f->ratio ? 5 : 2));
	change_points(*vals, rows->nrows, f, *marks);
	return 0;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static int cmd_trend(struct db *db, const char *metric, const struct filters *f)
{
	struct db_rows rows;
	double *v = NULL, *mark = NULL;
	unsigned changes = 0;
	int rc = trend_series(db, metric, f, &rows, &v, &mark);

	if (!rc) {
		printf("%-20s %-14s %12s %12s %12s  %s\n", "started_utc", "commit",
		       f->ratio ? "ratio" : "median", "ci_lo", "ci_hi", "change point");
		for (unsigned i = 0; i < rows.nrows; i++) {
			char step[48] = "";

			if (mark[i]) {
				snprintf(step, sizeof(step), "<- %+.1f%%", mark[i]);
				changes++;
			}
			/* Both engines' numbers go through one format. */
			printf("%-20s %-14.14s %12.5g %12.5g %12.5g  %s\n",
			       or_dash(db_cell(&rows, i, 0)), or_dash(db_cell(&rows, i, 1)), v[i],
			       f->ratio ? NAN : cell_num(db_cell(&rows, i, 3)),
			       f->ratio ? NAN : cell_num(db_cell(&rows, i, 4)), step);
		}
		printf("%s: %u runs, %u change points (step > %.3g%% between groups of %u runs "
		       "that do "
		       "not overlap)\n",
		       metric, rows.nrows, changes, f->threshold_pct, f->window ? f->window : 3);
	}
	free(v);
	free(mark);
	db_rows_free(&rows);
	return rc;
}

/* gnuplot writes the picture; the data goes through a temporary file. */
static int cmd_plot(struct db *db, const char *metric, const struct filters *f)
{
	struct db_rows rows;
	double *v = NULL, *mark = NULL;
	char data[] = "/tmp/ttm-history.XXXXXX";
	const char *term;
	FILE *d = NULL, *gp = NULL;
	int fd = -1, rc, st;

	if (!f->out) {
		fprintf(stderr, "%s: plot needs -o OUT.png or OUT.svg\n", prog);
		return EXIT_USAGE;
	}
	if (ends_with(f->out, ".png")) {
		term = "pngcairo size 1000,500";
	} else if (ends_with(f->out, ".svg")) {
		term = "svg size 1000,500";
	} else {
		fprintf(stderr, "%s: %s: the plot's name must end in .png or .svg\n", prog, f->out);
		return EXIT_USAGE;
	}
	rc = trend_series(db, metric, f, &rows, &v, &mark);
	if (rc)
		goto out;
	rc = EXIT_FAIL;
	fd = mkstemp(data);
	if (fd < 0 || !(d = fdopen(fd, "w"))) {
		fprintf(stderr, "%s: %s: %s\n", prog, data, strerror(errno));
		goto out;
	}
	fd = -1;
	for (unsigned i = 0; i < rows.nrows; i++) {
		double lo = f->ratio ? v[i] : cell_num(db_cell(&rows, i, 3));
		double hi = f->ratio ? v[i] : cell_num(db_cell(&rows, i, 4));
		const char *rev = db_cell(&rows, i, 1);

		fprintf(d, "%u %.17g %.17g %.17g %.8s %d\n", i, v[i], isfinite(lo) ? lo : v[i],
			isfinite(hi) ? hi : v[i], rev && *rev ? rev : "?", mark[i] != 0);
	}
	if (fclose(d)) {
		d = NULL;
		fprintf(stderr, "%s: %s: %s\n", prog, data, strerror(errno));
		goto out;
	}
	d = NULL;
	gp = popen("gnuplot", "w");
	if (!gp) {
		fprintf(stderr, "%s: gnuplot: %s\n", prog, strerror(errno));
		goto out;
	}
	fprintf(gp, "set terminal %s\nset output '%s'\n", term, f->out);
	fprintf(gp, "set title '%s%s across %u runs (change points in red)' noenhanced\n", metric,
		f->ratio ? " (ratio to its same-run reference)" : "", rows.nrows);
	fprintf(gp, "set ylabel '%s' noenhanced\nset xlabel 'commit (oldest first)'\n",
		f->ratio ? "ratio" : or_dash(db_cell(&rows, 0, 9)));
	fprintf(gp, "set xtics rotate by -45 noenhanced\nset grid ytics\nset key off\n");
	fprintf(gp, "set offsets 0.5, 0.5, graph 0.05, graph 0.05\n");
	for (unsigned i = 0; i < rows.nrows; i++)
		if (mark[i])
			fprintf(
			    gp,
			    "set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb 'red' dt 2\n",
			    i - 0.5, i - 0.5);
	fprintf(gp,
		"plot '%s' using 1:2:3:4:xticlabels(5) with yerrorbars pt 7 lc rgb '#1f4e9a', "
		"'' using 1:($6 > 0 ? $2 : 1/0) with points pt 7 ps 2 lc rgb 'red'\n",
		data);
	st = pclose(gp);
	gp = NULL;
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: gnuplot failed on %s\n", prog, f->out);
		goto out;
	}
	printf("%s: %u runs plotted to %s\n", metric, rows.nrows, f->out);
	rc = 0;
out:
	if (d)
		fclose(d);
	if (fd >= 0)
		close(fd);
	unlink(data);
	free(v);
	free(mark);
	db_rows_free(&rows);
	return rc;
}

static int cmd_runs(struct db *db, const struct filters *f)
{
	struct db_rows rows;
	char last[24];
	const char *p[] = {last};

	snprintf(last, sizeof(last), "%u", f->last ? f->last : UINT_MAX);
	if (db_exec(db,
		    "SELECT r.id, r.started_utc, r.benchmark, r.machine_id, r.git_rev, r.source, "
		    "(SELECT COUNT(*) FROM metric m WHERE m.run_id = r.id) FROM run r ORDER BY "
		    "r.started_utc DESC, r.id DESC LIMIT CAST($1 AS BIGINT)",
		    1, p, &rows))
		return EXIT_FAIL;
	printf("%6s %-20s %-14s %-16s %-14s %-10s %s\n", "id", "started_utc", "benchmark",
	       "machine", "commit", "source", "metrics");
	for (unsigned i = 0; i < rows.nrows; i++)
		printf("%6s %-20s %-14s %-16s %-14.14s %-10s %s\n", or_dash(db_cell(&rows, i, 0)),
		       or_dash(db_cell(&rows, i, 1)), or_dash(db_cell(&rows, i, 2)),
		       or_dash(db_cell(&rows, i, 3)), or_dash(db_cell(&rows, i, 4)),
		       or_dash(db_cell(&rows, i, 5)), or_dash(db_cell(&rows, i, 6)));
	printf("%u runs\n", rows.nrows);
	db_rows_free(&rows);
	return 0;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *to)
{
	fprintf(
	    to,
	    "usage: %s [--db FILE | --pg CONNINFO] COMMAND ...\n"
	    "  import [--source NAME] PATH...      record results files (directories: every "
	    "*.json)\n"
	    "  runs [--last N]                     list recorded runs, newest first\n"
	    "  trend METRIC [filters] [--ratio]    the metric across runs, change points marked\n"
	    "  plot METRIC -o OUT.png|.svg [filters] [--ratio]\n"
	    "filters: --machine ID --benchmark NAME --params K=V;... --last N --threshold PCT "
	    "--window N\n"
	    "database: --db (default $TTM_HISTORY_DB or results/history.sqlite), --pg (libpq "
	    "connection string, or $TTM_HISTORY_PG)\n",
	    prog);
}

int main(int argc, char **argv)
{
	struct filters f = {.threshold_pct = 5.0, .window = 3};
	const char *dbpath = getenv("TTM_HISTORY_DB"), *pg = getenv("TTM_HISTORY_PG");
	const char *cmd = NULL, *metric = NULL, *source = "import";
	const char **paths = NULL;
	unsigned npaths = 0;
	struct db db;
	int i, rc;

	if (!dbpath || !*dbpath)
		dbpath = "results/history.sqlite";
	if (pg && !*pg)
		pg = NULL;
	paths = calloc((size_t)argc, sizeof(*paths));
	if (!paths) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_FAIL;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(paths);
			return 0;
		}
		if (!strcmp(a, "--db"))
			dbpath = val, pg = NULL;
		else if (!strcmp(a, "--pg"))
			pg = val;
		else if (!strcmp(a, "--source"))
			source = val;
		else if (!strcmp(a, "--machine"))
			f.machine = val;
		else if (!strcmp(a, "--benchmark"))
			f.benchmark = val;
		else if (!strcmp(a, "--params"))
			f.params = val;
		else if (!strcmp(a, "-o"))
			f.out = val;
		else if (!strcmp(a, "--last") || !strcmp(a, "--window")) {
			if (bench_parse_uint(val, 0, 1000000,
					     !strcmp(a, "--last") ? &f.last : &f.window) ||
			    (!strcmp(a, "--window") && !f.window)) {
				fprintf(stderr, "%s: %s takes a whole number from 1, not '%s'\n",
					prog, a, val ? val : "");
				free(paths);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--threshold")) {
			char *end;

			f.threshold_pct = val ? strtod(val, &end) : NAN;
			if (!val || !*val || *end || !isfinite(f.threshold_pct) ||
			    f.threshold_pct <= 0 || f.threshold_pct > 1000) {
				fprintf(
				    stderr,
				    "%s: --threshold takes a percentage in (0, 1000], not '%s'\n",
				    prog, val ? val : "");
				free(paths);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--ratio")) {
			f.ratio = true;
			takes = false;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			usage(stderr);
			free(paths);
			return EXIT_USAGE;
		} else {
			takes = false;
			if (!cmd)
				cmd = a;
			else if (!strcmp(cmd, "import"))
				paths[npaths++] = a;
			else if (!metric && (!strcmp(cmd, "trend") || !strcmp(cmd, "plot")))
				metric = a;
			else {
				fprintf(stderr, "%s: unexpected argument '%s'\n", prog, a);
				free(paths);
				return EXIT_USAGE;
			}
		}
		if (takes) {
			if (!val || !*val) {
				fprintf(stderr, "%s: %s needs a value\n", prog, a);
				free(paths);
				return EXIT_USAGE;
			}
			i++;
		}
	}
	if (!cmd || (strcmp(cmd, "import") && strcmp(cmd, "runs") && strcmp(cmd, "trend") &&
		     strcmp(cmd, "plot"))) {
		fprintf(stderr, "%s: %s\n", prog, cmd ? "unknown command" : "no command");
		usage(stderr);
		free(paths);
		return EXIT_USAGE;
	}
	if ((!strcmp(cmd, "import") && !npaths) ||
	    ((!strcmp(cmd, "trend") || !strcmp(cmd, "plot")) && !metric)) {
		fprintf(stderr, "%s: %s needs %s\n", prog, cmd,
			!strcmp(cmd, "import") ? "at least one path" : "a metric name");
		free(paths);
		return EXIT_USAGE;
	}
	if (db_open(&db, dbpath, pg)) {
		db_close(&db);
		free(paths);
		return EXIT_FAIL;
	}
	if (!strcmp(cmd, "import")) {
		struct import_counts c = {0};

		for (unsigned k = 0; k < npaths; k++)
			import_path(&db, paths[k], source, &c, 0);
		printf("%u runs recorded, %u already in the history, %u refused, %u failed\n",
		       c.imported, c.already, c.bad, c.failed);
		rc = c.failed ? EXIT_FAIL : c.bad ? EXIT_USAGE : 0;
	} else if (!strcmp(cmd, "runs")) {
		rc = cmd_runs(&db, &f);
	} else if (!strcmp(cmd, "trend")) {
		rc = cmd_trend(&db, metric, &f);
	} else {
		rc = cmd_plot(&db, metric, &f);
	}
	db_close(&db);
	free(paths);
	return rc;
}
