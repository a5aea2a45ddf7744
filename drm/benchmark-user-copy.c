// SPDX-License-Identifier: MIT
/*
 * benchmark-user-copy: what a checked user copy costs against the memcpy
 * it replaces, per copy size and per mechanism (process_vm_readv, the pipe
 * fallback). Prints one line per case: the measured ns per copy, the
 * reference (memcpy of the same size) and the ratio.
 *
 * Usage: benchmark-user-copy [--quick]
 */
#include <drmcore/drm_user.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <testlib/clock.h>

/* Best of @rounds rounds of @iters copies: the machine's noise only adds. */
static double measure(bool checked, char *dst, const char *src, size_t n, int iters, int rounds)
{
	double best = 1e30;

	for (int r = 0; r < rounds; r++) {
		double t0 = (double)testlib_now_ns();

		for (int i = 0; i < iters; i++) {
			if (checked) {
				if (drm_copy_from_user(dst, src, n))
					return -1;
			} else {
				memcpy(dst, src, n);
				__asm__ volatile("" : : "r"(dst) : "memory");
			}
		}
		double per = ((double)testlib_now_ns() - t0) / iters;

		if (per < best)
			best = per;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {8, 64, 256, 4096, 65536};
	static const struct {
		enum drm_user_copy_mode mode;
		const char *name;
	} modes[] = {{DRM_USER_COPY_VM, "process_vm_readv"}, {DRM_USER_COPY_PIPE, "pipe"}};
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	int iters = quick ? 2000 : 50000, rounds = quick ? 3 : 7;
	char *src = malloc(65536), *dst = malloc(65536);

	if (!src || !dst)
		return 1;
	memset(src, 1, 65536);
	printf("# drm_copy_from_user cost, ns per copy (best of %d rounds of %d)\n", rounds, iters);
	printf("%-18s %8s %12s %12s %10s\n", "mechanism", "bytes", "checked_ns", "memcpy_ns",
	       "ratio");
	for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		if (drm_user_set_copy_mode(modes[m].mode)) {
			printf("%-18s unavailable here\n", modes[m].name);
			continue;
		}
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			double c = measure(true, dst, src, sizes[s], iters, rounds);
			double r = measure(false, dst, src, sizes[s], iters, rounds);

			if (c < 0) {
				fprintf(stderr, "copy of valid memory failed\n");
				return 1;
			}
			printf("%-18s %8zu %12.1f %12.1f %10.0f\n", modes[m].name, sizes[s], c, r,
			       r > 0 ? c / r : 0);
		}
	}
	free(src);
	free(dst);
	return 0;
}
