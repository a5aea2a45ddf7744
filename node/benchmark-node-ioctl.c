// SPDX-License-Identifier: MIT
/*
 * What the render node adds to an ioctl: DRM_IOCTL_I915_GEM_BUSY on an
 * idle object through the node (ioctl(2) on /dev/dri/renderD128, with the
 * node preloaded) against the same call made in-process
 * (i915_gem_ioctl() on a device of our own) and against a getppid()
 * system call, the cost of entering the kernel that a real i915 ioctl
 * pays at least. Goals (issue 28): node rate >= 0.8x in-process rate,
 * node BUSY <= 2x getppid.
 *
 * Rounds of the three are interleaved and each ratio is reported per round
 * (median and min..max), so that load on the machine hits all three alike.
 *
 * Usage: benchmark-node-ioctl [--quick]; exits 77 without the node.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include <i915_drm.h>

#include <testlib/clock.h>

#include <i915/i915_gem_uapi.h>

#define MAX_REPS 15

/* @n calls of @fn, in ns per call; negative when a call failed. */
static double round_ns(int (*fn)(void *), void *ctx, unsigned int n)
{
	double t0 = (double)testlib_thread_cpu_ns();

	for (unsigned int i = 0; i < n; i++)
		if (fn(ctx))
			return -1;
	return ((double)testlib_thread_cpu_ns() - t0) / n;
}

static void sort(double *v, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Median and spread (min..max) of @n values, sorted in place. */
static void print_stat(const char *what, double *v, unsigned int n, const char *unit)
{
	sort(v, n);
	printf("%s: %.2f%s median, %.2f..%.2f over %u rounds\n", what, v[n / 2], unit, v[0],
	       v[n - 1], n);
}

struct node_ctx {
	int fd;
	struct drm_i915_gem_busy busy;
};

static int busy_node(void *p)
{
	struct node_ctx *c = p;

	return ioctl(c->fd, DRM_IOCTL_I915_GEM_BUSY, &c->busy);
}

struct direct_ctx {
	struct i915_gem_file *file;
	struct drm_i915_gem_busy busy;
};

static int busy_direct(void *p)
{
	struct direct_ctx *c = p;

	return i915_gem_ioctl(c->file, DRM_IOCTL_I915_GEM_BUSY, &c->busy);
}

static int syscall_getppid(void *p)
{
	(void)p;
	return getppid() < 0;
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	unsigned int n = quick ? 2000 : 20000, reps = quick ? 5 : MAX_REPS;
	struct drm_i915_gem_create create = { .size = 4096 };
	struct node_ctx nc = { 0 };
	struct direct_ctx dc = { 0 };
	struct i915_device *i915;
	double t_node[MAX_REPS], t_direct[MAX_REPS], t_sys[MAX_REPS];
	double r_sys[MAX_REPS], r_direct[MAX_REPS];
	int ret;

	nc.fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	if (nc.fd < 0) {
		printf("SKIP: /dev/dri/renderD128: %s (run with the node in LD_PRELOAD)\n",
		       strerror(errno));
		return 77;
	}
	if (ioctl(nc.fd, DRM_IOCTL_I915_GEM_CREATE, &create)) {
		printf("FAIL: GEM_CREATE through the node: %s\n", strerror(errno));
		return 1;
	}
	nc.busy.handle = create.handle;

	ret = i915_gem_device_create(getenv("TTM_I915_PROFILE"), &i915);
	if (!ret)
		ret = i915_gem_file_open(i915, true, &dc.file);
	if (!ret) {
		create.handle = 0;
		ret = i915_gem_ioctl(dc.file, DRM_IOCTL_I915_GEM_CREATE, &create);
	}
	if (ret) {
		printf("FAIL: in-process device: %s\n", strerror(-ret));
		return 1;
	}
	dc.busy.handle = create.handle;

	/*
	 * Interleaved rounds: on a loaded machine each round's three figures
	 * see the same load, so the per-round ratios are what to compare.
	 */
	for (unsigned int r = 0; r < reps; r++) {
		t_node[r] = round_ns(busy_node, &nc, n);
		t_direct[r] = round_ns(busy_direct, &dc, n);
		t_sys[r] = round_ns(syscall_getppid, NULL, n);
		if (t_node[r] < 0 || t_direct[r] < 0 || t_sys[r] < 0) {
			printf("FAIL: a call failed while measuring\n");
			return 1;
		}
		r_sys[r] = t_node[r] / t_sys[r];
		r_direct[r] = t_direct[r] / t_node[r];
	}
	printf("%u interleaved rounds of %u calls each, thread CPU time\n", reps, n);
	print_stat("GEM_BUSY through the node", t_node, reps, " ns/call");
	print_stat("GEM_BUSY in-process (i915_gem_ioctl)", t_direct, reps, " ns/call");
	print_stat("getppid() system call", t_sys, reps, " ns/call");
	print_stat("node rate / in-process rate (goal >= 0.80x)", r_direct, reps, "x");
	print_stat("node BUSY / getppid (goal <= 2.00x)", r_sys, reps, "x");
	i915_gem_file_close(dc.file);
	i915_gem_device_destroy(i915);
	close(nc.fd);
	return 0;
}
