// SPDX-License-Identifier: MIT
/*
 * ttm-faults: list every fault point linked into this binary (the core's and
 * the drivers'), with its configuration and counters, or check a TTM_FAULTS
 * specification without running anything.
 */
#include <fault_inject.h>

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: ttm-faults [--list | --names | --check SPEC]\n"
		     "  --list        every point with its settings and counters (default)\n"
		     "  --names       point names only, one per line\n"
		     "  --check SPEC  validate a TTM_FAULTS string; exit 2 when it is bad\n");
}

static void print_name(struct fault_attr *a, void *data)
{
	(void)data;
	printf("%s\n", a->name);
}

int main(int argc, char **argv)
{
	char err[256];

	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "--list"))) {
		if (fault_init_from_env())
			return 2;
		printf("fault points compiled in: %s, %zu registered\n",
		       FAULT_INJECT_ENABLED ? "yes" : "no", fault_count());
		fault_print(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--names")) {
		fault_for_each(print_name, NULL);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--check")) {
		int ret = fault_configure(argv[2], err, sizeof(err));

		if (ret) {
			fprintf(stderr, "ttm-faults: %s\n", err);
			return 2;
		}
		printf("ok\n");
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "ttm-faults: %s (see --help)\n",
		argc == 2 && !strcmp(argv[1], "--check") ? "--check needs a SPEC"
							 : "bad arguments");
	return 2;
}
