// SPDX-License-Identifier: MIT
/*
 * i915-hw-exec-nop - empty batches through the hw back end on a real GPU:
 * what igt's gem_exec_nop measures, submitted the way this project submits
 * (a context with its own ppGTT, the batch softpinned, no relocations).
 *
 *   i915-hw-exec-nop [--device PATH] [--engine rcs|bcs] [--reps N]
 *                    [--batches N] [--quick]
 *
 * Per repetition it measures
 *   exec_nop.<engine>.throughput: ns per batch, @batches submitted back to
 *	back and one GEM_WAIT at the end (the kernel's submission cost);
 *   exec_nop.<engine>.latency: ns per batch, each submitted with an out-
 *	fence and waited for through its dma_fence (submit + execute + the
 *	sync_file bridge's wake-up);
 * and, in the same run, the reference ioctl_getparam: ns per
 * I915_GETPARAM round trip on the same fd (the floor of any ioctl into
 * i915). It prints median / min / max over the repetitions, each metric's
 * ratio to the reference, and "sample" lines (every repetition's figure)
 * that scripts/compare-igt.sh turns into results files. Without an Intel
 * render node it prints "SKIP: <reason>" and exits 77.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <i915_drm.h>
#include <testlib/clock.h>

#include "hw_gpu.h"

#define MAX_REPS 100

struct opts {
	const char *device;
	enum hw_engine engine;
	unsigned int reps;
	unsigned int batches;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned int n)
{
	double s[MAX_REPS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void report(const char *name, const char *what, const double *v, unsigned int n, double ref)
{
	double lo = v[0], hi = v[0], med = median(v, n);
	unsigned int i;

	for (i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	printf("%-28s median %10.1f ns  min %10.1f  max %10.1f  (%u reps; %s)\n", name, med, lo, hi,
	       n, what);
	if (ref > 0)
		printf("%-28s ratio to ioctl_getparam: %.2fx\n", "", med / ref);
}

static void samples(const char *kind, const char *name, const double *v, unsigned int n)
{
	unsigned int i;

	printf("%s %s ns lower_is_better", kind, name);
	for (i = 0; i < n; i++)
		printf(" %.1f", v[i]);
	printf("\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	int i;

	o->engine = HW_ENGINE_RENDER;
	o->reps = 5;
	o->batches = 20000;
	if (hw_device_select(argc, argv, &o->device))
		return -EINVAL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--device")) {
			i++; /* taken by hw_device_select() */
		} else if (!strncmp(a, "--device=", 9)) {
			continue;
		} else if (!strcmp(a, "--engine") && i + 1 < argc) {
			a = argv[++i];
			if (!strcmp(a, "rcs"))
				o->engine = HW_ENGINE_RENDER;
			else if (!strcmp(a, "bcs"))
				o->engine = HW_ENGINE_BLT;
			else
				return -EINVAL;
		} else if (!strcmp(a, "--reps") && i + 1 < argc) {
			if (hw_parse_uint(argv[++i], 1, MAX_REPS, &o->reps))
				return -EINVAL;
		} else if (!strcmp(a, "--batches") && i + 1 < argc) {
			if (hw_parse_uint(argv[++i], 10, 100000000, &o->batches))
				return -EINVAL;
		} else if (!strcmp(a, "--quick")) {
			o->reps = 3;
			o->batches = 2000;
		} else {
			return -EINVAL;
		}
	}
	if (o->reps < 1 || o->reps > MAX_REPS || o->batches < 10)
		return -EINVAL;
	return 0;
}

/* One repetition of the three measurements. */
static int measure(struct hw_gpu *gpu, const struct opts *o, struct hw_exec *eb,
		   struct hw_bo *batch, double *thr, double *lat, double *ref)
{
	unsigned int i, nlat = o->batches / 10;
	uint64_t t0;
	int ret, v;

	t0 = testlib_now_ns();
	for (i = 0; i < o->batches; i++) {
		ret = hw_gpu_getparam(gpu, I915_PARAM_CHIPSET_ID, &v);
		if (ret)
			return ret;
	}
	*ref = (double)(testlib_now_ns() - t0) / o->batches;

	t0 = testlib_now_ns();
	for (i = 0; i < o->batches; i++) {
		ret = hw_exec_submit(gpu, eb, NULL);
		if (ret)
			return ret;
	}
	ret = hw_bo_wait(gpu, batch, -1);
	if (ret)
		return ret;
	*thr = (double)(testlib_now_ns() - t0) / o->batches;

	t0 = testlib_now_ns();
	for (i = 0; i < nlat; i++) {
		struct dma_fence *f;

		ret = hw_exec_submit(gpu, eb, &f);
		if (ret)
			return ret;
		ret = dma_fence_wait(f, false);
		if (!ret && dma_fence_get_status(f) < 0)
			ret = dma_fence_get_status(f);
		dma_fence_put(f);
		if (ret)
			return ret;
	}
	*lat = (double)(testlib_now_ns() - t0) / nlat;
	return 0;
}

int main(int argc, char **argv)
{
	double thr[MAX_REPS], lat[MAX_REPS], ref[MAX_REPS];
	struct hw_open_args args = {.need = HW_NEED_EXEC_FENCE};
	const char *eng;
	const struct hw_gpu_info *info;
	struct hw_exec_obj obj;
	struct hw_context ctx;
	struct hw_exec eb;
	struct hw_bo batch;
	struct hw_gpu *gpu;
	char why[256], name[64];
	struct opts o;
	unsigned int r;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s [--device PATH] [--engine rcs|bcs] [--reps 1..%d] "
		       "[--batches 10..100000000] [--quick]   (or %s=PATH)\n",
		       argv[0], MAX_REPS, HW_DEVICE_ENV);
		return 0;
	}
	if (parse(argc, argv, &o)) {
		fprintf(stderr,
			"usage: %s [--device PATH] [--engine rcs|bcs] [--reps 1..%d] "
			"[--batches 10..100000000] [--quick]\n",
			argv[0], MAX_REPS);
		return 79;
	}
	if (hw_device_check(o.device, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", argv[0], why);
		return 79;
	}
	eng = o.engine == HW_ENGINE_BLT ? "bcs" : "rcs";
	args.device = o.device;
	args.why = why;
	args.why_len = sizeof(why);
	ret = hw_gpu_open(&args, &gpu);
	if (ret) {
		printf("%s: %s\n", hw_err_is_skip(ret) ? "SKIP" : "FAIL",
		       why[0] ? why : strerror(-ret));
		return hw_exit_status(ret);
	}
	info = hw_gpu_info(gpu);
	ret = hw_context_init(gpu, &ctx);
	if (ret) {
		printf("%s: context with its own ppGTT: %s\n",
		       hw_err_is_skip(ret) ? "SKIP" : "FAIL", strerror(-ret));
		hw_gpu_close(gpu);
		return hw_exit_status(ret);
	}
	ret = hw_bo_init(gpu, &batch, 4096, NULL, 0, 0);
	if (!ret)
		ret = hw_bo_mmap(gpu, &batch, info->discrete ? HW_MMAP_FIXED : HW_MMAP_WC);
	if (!ret)
		ret = hw_batch_nop(batch.map, 1024) == 2 ? 0 : -EINVAL;
	if (ret)
		goto out;
	/* Any page-aligned address our range manager could pick. */
	obj = (struct hw_exec_obj){&batch, 1ull << 32, 0};
	eb = (struct hw_exec){
	    .ctx = &ctx, .engine = o.engine, .objs = &obj, .count = 1, .batch_len = 8};

	printf("exec-nop on %s (pci 8086:%04x, %s %d.%d.%d), engine %s, %u reps x %u batches\n",
	       info->path, info->chipset_id, info->driver, info->drv_major, info->drv_minor,
	       info->drv_patch, eng, o.reps, o.batches);
	/* Warm-up: first submissions pay for binding and context setup. */
	ret = measure(gpu, &(struct opts){.engine = o.engine, .reps = 1, .batches = 100}, &eb,
		      &batch, &thr[0], &lat[0], &ref[0]);
	for (r = 0; r < o.reps && !ret; r++)
		ret = measure(gpu, &o, &eb, &batch, &thr[r], &lat[r], &ref[r]);
	if (ret) {
		printf("FAIL: submission: %s%s\n", strerror(-ret),
		       hw_gpu_is_wedged(gpu) ? " (GPU wedged)" : "");
		goto out;
	}
	report("ioctl_getparam (reference)", "one I915_GETPARAM round trip", ref, o.reps, 0);
	snprintf(name, sizeof(name), "exec_nop.%s.throughput", eng);
	report(name, "per batch, back to back", thr, o.reps, median(ref, o.reps));
	snprintf(name, sizeof(name), "exec_nop.%s.latency", eng);
	report(name, "per batch, submit + fence wait", lat, o.reps, median(ref, o.reps));
	samples("reference", "ioctl_getparam", ref, o.reps);
	snprintf(name, sizeof(name), "exec_nop.%s.throughput", eng);
	samples("sample", name, thr, o.reps);
	snprintf(name, sizeof(name), "exec_nop.%s.latency", eng);
	samples("sample", name, lat, o.reps);
out:
	hw_bo_fini(gpu, &batch);
	hw_context_fini(gpu, &ctx);
	hw_gpu_close(gpu);
	return ret ? 1 : 0;
}
