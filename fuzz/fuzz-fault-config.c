// SPDX-License-Identifier: MIT
/*
 * fuzz-fault-config - libFuzzer target for the TTM_FAULTS string parser
 * (fault_configure()).
 *
 * The input is the spec string itself. The target registers a few points of
 * its own (the names the seed corpus uses) so that valid specs reach the
 * apply step. Properties: the call returns 0 or -EINVAL (never crashes,
 * never reads past the string); the error message is always terminated
 * within the buffer, even a tiny one; a rejected spec changes no point at
 * all (the parser promises all-or-nothing); an accepted spec leaves every
 * setting inside the documented limits.
 */
#include <errno.h>
#include <string.h>

#include <fault_inject.h>

#include "fuzz_input.h"

DEFINE_FAULT_POINT(fuzz_fault_bo_alloc, "bo_alloc");
DEFINE_FAULT_POINT(fuzz_fault_pool_alloc, "pool_alloc");
DEFINE_FAULT_POINT(fuzz_fault_move_copy, "move_copy");

struct snapshot {
	unsigned long probability, interval, verbose, nth;
	long times, space;
};

static void take(struct fault_attr *a, void *data)
{
	struct snapshot *s = data;
	size_t i = 0;

	if (a == &fuzz_fault_pool_alloc)
		i = 1;
	else if (a == &fuzz_fault_move_copy)
		i = 2;
	s[i].probability = atomic_load(&a->probability);
	s[i].interval = atomic_load(&a->interval);
	s[i].verbose = atomic_load(&a->verbose);
	s[i].nth = atomic_load(&a->nth);
	s[i].times = atomic_load(&a->times);
	s[i].space = atomic_load(&a->space);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
FUZZ_DEFINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct snapshot before[3] = {0}, after[3] = {0};
	char *spec, err[128];
	size_t errlen;
	int ret;

	fuzz_check(fault_count() == 3);
	/* First byte: the error buffer size, so truncation paths are hit. */
	errlen = len ? (size_t)data[0] % sizeof(err) : sizeof(err);
	spec = malloc(len + 1);
	if (!spec)
		return 0;
	if (len)
		memcpy(spec, data + 1, len - 1);
	spec[len ? len - 1 : 0] = '\0';

	fault_reset_all();
	/* A known non-default state, to see whether a rejected spec moved it. */
	fault_set_nth(&fuzz_fault_pool_alloc, 7);
	fault_for_each(take, before);
	memset(err, 'x', sizeof(err));

	ret = fault_configure(spec, errlen ? err : NULL, errlen);
	fault_for_each(take, after);
	fuzz_check(ret == 0 || ret == -EINVAL);
	if (errlen)
		fuzz_check(memchr(err, '\0', errlen) != NULL);
	if (ret) {
		fuzz_check(memcmp(before, after, sizeof(before)) == 0);
	} else {
		for (int i = 0; i < 3; i++) {
			fuzz_check(after[i].probability <= 100);
			fuzz_check(after[i].interval >= 1);
			fuzz_check(after[i].verbose <= 2);
			fuzz_check(after[i].times >= -1);
			fuzz_check(after[i].space >= 0);
		}
	}
	/* Settings are state: leave none behind for the next input. */
	fault_reset_all();
	free(spec);
	return 0;
}
