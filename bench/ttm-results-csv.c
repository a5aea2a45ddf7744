// SPDX-License-Identifier: MIT
/*
 * ttm-results-csv: derive the gnuplot inputs (results/README.md, "Plot
 * inputs") from results files, for scripts/plot.sh.
 *
 *	ttm-results-csv OUTDIR FILE|DIR...
 *
 * A DIR contributes every *.json directly inside it, in name order, so the
 * series blocks come out in run order. Exit 0; 2 on bad usage or a file that
 * does not load (one line on stderr naming it).
 */
#include <bench.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct path_list {
	char **v;
	unsigned n, cap;
};

static int path_push(struct path_list *l, char *p)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = p;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add @arg (a file, or the *.json files of a directory) to @l. */
static int collect(struct path_list *l, const char *arg)
{
	struct stat st;
	struct dirent *e;
	unsigned first = l->n;
	DIR *d;
	int rc = 0;

	if (stat(arg, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		char *p = strdup(arg);

		if (!p)
			return -ENOMEM;
		rc = path_push(l, p);
		if (rc)
			free(p);
		return rc;
	}
	d = opendir(arg);
	if (!d)
		return -errno;
	while (!rc && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *p;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (asprintf(&p, "%s/%s", arg, e->d_name) < 0) {
			rc = -ENOMEM;
			break;
		}
		rc = path_push(l, p);
		if (rc)
			free(p);
	}
	closedir(d);
	/* A directory without results is a mistake, even beside other inputs. */
	if (!rc && l->n == first)
		rc = -ENOENT;
	if (!rc)
		qsort(l->v + first, l->n - first, sizeof(*l->v), cmp_str);
	return rc;
}

int main(int argc, char **argv)
{
	struct path_list l = {0};
	char err[512];
	int rc = 0, i;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: ttm-results-csv OUTDIR FILE|DIR...\n");
		return 0;
	}
	if (argc < 3 || argv[1][0] == '-' || !argv[1][0]) {
		fprintf(stderr, "usage: ttm-results-csv OUTDIR FILE|DIR...\n");
		return 2;
	}
	for (i = 2; i < argc && !rc; i++) {
		rc = collect(&l, argv[i]);
		if (rc)
			fprintf(stderr, "ttm-results-csv: %s: %s\n", argv[i], strerror(-rc));
	}
	if (!rc && !l.n) {
		fprintf(stderr, "ttm-results-csv: no results files in the arguments\n");
		rc = -ENOENT;
	}
	if (!rc) {
		rc = bench_results_to_csv((const char *const *)l.v, l.n, argv[1], err, sizeof(err));
		if (rc)
			fprintf(stderr, "ttm-results-csv: %s\n", err);
	}
	for (unsigned k = 0; k < l.n; k++)
		free(l.v[k]);
	free(l.v);
	return rc ? 2 : 0;
}
