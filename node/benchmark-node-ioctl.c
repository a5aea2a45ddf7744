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

#include <i915/i915_gem_uapi.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Median of @reps rounds of @n calls of @fn, in ns per call. */
static double measure(int (*fn)(void *), void *ctx, unsigned int n, unsigned int reps)
{
	double best[16];

	for (unsigned int r = 0; r < reps; r++) {
		double t0 = now_ns();

		for (unsigned int i = 0; i < n; i++)
			if (fn(ctx))
				return -1;
		best[r] = (now_ns() - t0) / n;
	}
	for (unsigned int i = 1; i < reps; i++)
		for (unsigned int j = i; j > 0 && best[j] < best[j - 1]; j--) {
			double t = best[j];

			best[j] = best[j - 1];
			best[j - 1] = t;
		}
	return best[reps / 2];
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
	unsigned int n = quick ? 2000 : 20000, reps = quick ? 3 : 9;
	struct drm_i915_gem_create create = { .size = 4096 };
	struct node_ctx nc = { 0 };
	struct direct_ctx dc = { 0 };
	struct i915_device *i915;
	double t_node, t_direct, t_sys;
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

	t_node = measure(busy_node, &nc, n, reps);
	t_direct = measure(busy_direct, &dc, n, reps);
	t_sys = measure(syscall_getppid, NULL, n, reps);
	if (t_node < 0 || t_direct < 0 || t_sys < 0) {
		printf("FAIL: a call failed while measuring\n");
		return 1;
	}
	printf("GEM_BUSY through the node: %.1f ns/call (median of %u rounds of %u)\n", t_node, reps,
	       n);
	printf("GEM_BUSY in-process (i915_gem_ioctl): %.1f ns/call\n", t_direct);
	printf("getppid() system call: %.1f ns/call\n", t_sys);
	printf("node rate / in-process rate: %.2fx (goal >= 0.80x)\n", t_direct / t_node);
	printf("node BUSY / getppid: %.2fx (goal <= 2.00x)\n", t_node / t_sys);
	i915_gem_file_close(dc.file);
	i915_gem_device_destroy(i915);
	close(nc.fd);
	return 0;
}
