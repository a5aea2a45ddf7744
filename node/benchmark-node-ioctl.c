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
 * The same for igt gem_exec_nop's loop: an empty batch (one
 * MI_BATCH_BUFFER_END) submitted with EXECBUFFER2 and waited for with
 * GEM_WAIT, through the node and in-process, in wall-clock time (the
 * simulated GPU runs on threads of its own). igt's own benchmarks under
 * the node (gem_exec_nop, gem_busy) are the other half of the comparison:
 * node/shim-cost.sh runs them beside this program.
 *
 * Rounds are interleaved and each ratio is reported per round (median and
 * min..max), so that load on the machine hits all of them alike.
 *
 * Usage: benchmark-node-ioctl [--quick]; exits 77 without the node.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/* An empty batch on the render engine, waited for (igt gem_exec_nop's loop). */
struct nop_ctx {
	int (*call)(void *ctx, unsigned long request, void *arg);
	void *ctx;
	uint32_t handle;
};

static int nop_ioctl_node(void *ctx, unsigned long request, void *arg)
{
	return ioctl(*(int *)ctx, request, arg) ? -errno : 0;
}

static int nop_ioctl_direct(void *ctx, unsigned long request, void *arg)
{
	return i915_gem_ioctl(ctx, request, arg);
}

static int exec_nop(void *p)
{
	struct nop_ctx *c = p;
	struct drm_i915_gem_exec_object2 obj = {.handle = c->handle};
	struct drm_i915_gem_execbuffer2 eb = {
	    .buffers_ptr = (uintptr_t)&obj,
	    .buffer_count = 1,
	    .flags = I915_EXEC_RENDER | I915_EXEC_NO_RELOC,
	};
	struct drm_i915_gem_wait wait = {.bo_handle = c->handle, .timeout_ns = -1};

	return c->call(c->ctx, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb) ||
	       c->call(c->ctx, DRM_IOCTL_I915_GEM_WAIT, &wait);
}

/* A 4 KiB batch holding MI_BATCH_BUFFER_END, written through a CPU mapping. */
static int nop_batch(struct nop_ctx *c, void *(*map)(void *, uint64_t), void (*unmap)(void *))
{
	struct drm_i915_gem_create create = {.size = 4096};
	struct drm_i915_gem_mmap_offset mmo = {0};
	uint32_t *cmd;
	int ret;

	ret = c->call(c->ctx, DRM_IOCTL_I915_GEM_CREATE, &create);
	if (ret)
		return ret;
	mmo.handle = create.handle;
	mmo.flags = I915_MMAP_OFFSET_WC;
	ret = c->call(c->ctx, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mmo);
	if (ret == -ENODEV) {
		mmo.flags = I915_MMAP_OFFSET_FIXED; /* discrete parts */
		ret = c->call(c->ctx, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mmo);
	}
	if (ret)
		return ret;
	cmd = map(c->ctx, mmo.offset);
	if (!cmd)
		return -ENOMEM;
	cmd[0] = 0xa << 23; /* MI_BATCH_BUFFER_END */
	cmd[1] = 0;
	unmap(cmd);
	c->handle = create.handle;
	return 0;
}

static void *map_node(void *ctx, uint64_t offset)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, *(int *)ctx, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap_node(void *p)
{
	munmap(p, 4096);
}

static struct i915_device *direct_i915;

static void *map_direct(void *ctx, uint64_t offset)
{
	void *p = NULL;

	return i915_gem_mmap(ctx, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (off_t)offset, &p)
		   ? NULL
		   : p;
}

static void unmap_direct(void *p)
{
	i915_gem_munmap(direct_i915, p, 4096);
}

/* @n calls of @fn, in wall-clock ns per call; negative when a call failed. */
static double round_wall_ns(int (*fn)(void *), void *ctx, unsigned int n)
{
	double t0 = (double)testlib_now_ns();

	for (unsigned int i = 0; i < n; i++)
		if (fn(ctx))
			return -1;
	return ((double)testlib_now_ns() - t0) / n;
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
	struct drm_i915_gem_create create = {.size = 4096};
	struct node_ctx nc = {0};
	struct direct_ctx dc = {0};
	struct i915_device *i915;
	double t_node[MAX_REPS], t_direct[MAX_REPS], t_sys[MAX_REPS];
	double r_sys[MAX_REPS], r_direct[MAX_REPS];
	double x_node[MAX_REPS], x_direct[MAX_REPS], r_exec[MAX_REPS];
	unsigned int nx = quick ? 50 : 500;
	struct nop_ctx xn = {.call = nop_ioctl_node}, xd = {.call = nop_ioctl_direct};
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
	direct_i915 = i915;
	xn.ctx = &nc.fd;
	xd.ctx = dc.file;
	ret = nop_batch(&xn, map_node, unmap_node);
	if (!ret)
		ret = nop_batch(&xd, map_direct, unmap_direct);
	if (ret) {
		printf("FAIL: nop batch: %s\n", strerror(-ret));
		return 1;
	}

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
		x_node[r] = round_wall_ns(exec_nop, &xn, nx);
		x_direct[r] = round_wall_ns(exec_nop, &xd, nx);
		if (x_node[r] < 0 || x_direct[r] < 0) {
			printf("FAIL: an execbuffer failed while measuring\n");
			return 1;
		}
		r_exec[r] = x_direct[r] / x_node[r];
	}
	printf("%u interleaved rounds of %u calls each, thread CPU time\n", reps, n);
	print_stat("GEM_BUSY through the node", t_node, reps, " ns/call");
	print_stat("GEM_BUSY in-process (i915_gem_ioctl)", t_direct, reps, " ns/call");
	print_stat("getppid() system call", t_sys, reps, " ns/call");
	print_stat("node rate / in-process rate (goal >= 0.80x)", r_direct, reps, "x");
	print_stat("node BUSY / getppid (goal <= 2.00x)", r_sys, reps, "x");
	printf(
	    "%u interleaved rounds of %u empty batches each (EXECBUFFER2 + GEM_WAIT), wall clock\n",
	    reps, nx);
	print_stat("exec nop through the node", x_node, reps, " ns/batch");
	print_stat("exec nop in-process (i915_gem_ioctl)", x_direct, reps, " ns/batch");
	print_stat("exec nop node rate / in-process rate (goal >= 0.80x)", r_exec, reps, "x");
	i915_gem_file_close(dc.file);
	i915_gem_device_destroy(i915);
	close(nc.fd);
	return 0;
}
