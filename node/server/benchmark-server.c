// SPDX-License-Identifier: MIT
/*
 * benchmark-server: the cost of an ioctl through the device server against
 * a futex round trip measured in the same run (issue goal: <= 3x), with the
 * direct in-process call for scale.
 *
 *   benchmark-server [--quick] [--iters N]
 *   benchmark-server --thrash SECONDS
 *
 * The server runs in this process (its threads); the client is a thread of
 * this process too, so both round trips cross the same two threads' wakeups:
 *   futex:  thread A wakes B through a futex word, B wakes A back;
 *   server: a client thread sends DRM_IOCTL_I915_GETPARAM on a connection,
 *           the server's connection thread runs it (copying in the client's
 *           memory) and replies.
 * Then gem_exec_nop's loop (execbuffers of one nop batch, a wait for the
 * last) direct and through the server: the submission rate ratio (issue
 * goal: >= 0.5x).
 * --thrash SECONDS: eviction thrash instead: 4 client processes of a dg2
 * device with 64 MiB of lmem, each keeping 32 MiB of lmem objects in every
 * execbuffer (2x over-subscribed) and waiting for each before the next;
 * bytes TTM moved per second against the memcpy bandwidth of the same run
 * (issue goal: >= 0.5x).
 * Prints one "name value unit" line per metric and the ratios.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <testlib/clock.h>

#include <i915/i915_drv.h>

#include "server.h"

static _Atomic uint32_t futex_word;
static long futex_iters;

static void futex_wait_for(uint32_t want)
{
	uint32_t v;

	while ((v = atomic_load(&futex_word)) != want)
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_set(uint32_t v)
{
	atomic_store(&futex_word, v);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *futex_peer(void *arg)
{
	(void)arg;
	for (long i = 0; i < futex_iters; i++) {
		futex_wait_for((uint32_t)(2 * i + 1));
		futex_set((uint32_t)(2 * i + 2));
	}
	return NULL;
}

/* ns per round trip: A sets odd values, B answers with the next even one. */
static double futex_roundtrip(long iters)
{
	pthread_t t;
	uint64_t t0;

	futex_iters = iters;
	atomic_store(&futex_word, 0);
	pthread_create(&t, NULL, futex_peer, NULL);
	t0 = testlib_now_ns();
	for (long i = 0; i < iters; i++) {
		futex_set((uint32_t)(2 * i + 1));
		futex_wait_for((uint32_t)(2 * i + 2));
	}
	t0 = testlib_now_ns() - t0;
	pthread_join(t, NULL);
	return (double)t0 / (double)iters;
}

/* A batch of MI_BATCH_BUFFER_END in a new object of @file (direct) or @fid (server). */
static int nop_batch(struct i915_gem_file *file, int conn, uint64_t fid, uint32_t *handle)
{
	uint32_t bbe[2] = {0x0a << 23, 0};
	struct drm_i915_gem_create c = {.size = 4096};
	struct drm_i915_gem_pwrite pw = {.size = sizeof(bbe), .data_ptr = (uint64_t)(uintptr_t)bbe};
	int ret;

	ret = file ? i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_CREATE, &c)
		   : srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_CREATE, &c, NULL);
	if (ret)
		return ret;
	pw.handle = c.handle;
	*handle = c.handle;
	return file ? i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_PWRITE, &pw)
		    : srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_PWRITE, &pw, NULL);
}

/*
 * gem_exec_nop's basic loop: @iters execbuffers of one nop batch, then a
 * wait for the last. Return: submissions per second, or a negative errno.
 */
static double nop_rate(struct i915_gem_file *file, int conn, uint64_t fid, long iters)
{
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {.buffers_ptr = (uint64_t)(uintptr_t)&obj,
					      .buffer_count = 1};
	struct drm_i915_gem_wait w = {.timeout_ns = -1};
	uint64_t t0;
	int ret = nop_batch(file, conn, fid, &obj.handle);

	if (ret)
		return ret;
	w.bo_handle = obj.handle;
	t0 = testlib_now_ns();
	for (long i = 0; i < iters; i++) {
		ret = file ? i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb)
			   : srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb,
					      NULL);
		if (ret)
			return ret;
	}
	ret = file ? i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_WAIT, &w)
		   : srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_WAIT, &w, NULL);
	if (ret)
		return ret;
	return (double)iters * 1e9 / (double)(testlib_now_ns() - t0);
}

/* ---- eviction thrash: 4 client processes over-subscribing lmem 2x ---- */

#define THRASH_PROCS 4
#define THRASH_LMEM_MIB 64
#define THRASH_BO_MIB 4

/* One client process: its objects (half of lmem) in every execbuffer until @deadline. */
static int thrash_client(const char *path, int batch_fd, uint64_t deadline_ns)
{
	struct drm_i915_gem_memory_class_instance lmem = {.memory_class = I915_MEMORY_CLASS_DEVICE};
	struct drm_i915_gem_create_ext_memory_regions ext = {
	    .base.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS,
	    .num_regions = 1,
	    .regions = (uint64_t)(uintptr_t)&lmem,
	};
	enum { NBO = THRASH_LMEM_MIB / 2 / THRASH_BO_MIB };
	struct drm_i915_gem_exec_object2 obj[NBO + 1];
	struct drm_i915_gem_execbuffer2 eb = {.buffers_ptr = (uint64_t)(uintptr_t)obj,
					      .buffer_count = NBO + 1};
	struct drm_prime_handle ph = {.fd = batch_fd};
	int conn = srv_connect(path), anchor;
	uint64_t fid;

	memset(obj, 0, sizeof(obj));
	if (conn < 0 || srv_client_open(conn, 128, 1, &anchor, &fid))
		return 1;
	for (int i = 0; i < NBO; i++) {
		struct drm_i915_gem_create_ext c = {.size = (uint64_t)THRASH_BO_MIB << 20,
						    .extensions = (uint64_t)(uintptr_t)&ext};

		if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_CREATE_EXT, &c, NULL))
			return 2;
		obj[i].handle = c.handle;
	}
	if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph, NULL))
		return 3;
	obj[NBO].handle = ph.handle;
	/*
	 * One batch in flight, as a client that throttles on its last frame:
	 * when implicit dependencies queue a batch, the execbuffer returns at
	 * once, and a loop that never waits leaves a backlog the clock does
	 * not see (the device drained it for minutes after the deadline).
	 */
	while (testlib_now_ns() < deadline_ns) {
		struct drm_i915_gem_wait w = {.bo_handle = obj[0].handle, .timeout_ns = -1};

		if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb, NULL))
			return 4;
		if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_WAIT, &w, NULL))
			return 5;
	}
	return 0;
}

/* bytes/s of memcpy over a buffer as large as lmem, the reference. */
static double memcpy_bw(void)
{
	size_t n = (size_t)THRASH_LMEM_MIB << 20;
	char *a = malloc(n), *b = malloc(n);
	uint64_t t0;
	double bw = 0;

	if (a && b) {
		memset(a, 1, n);
		memcpy(b, a, n);
		t0 = testlib_now_ns();
		for (int i = 0; i < 4; i++) {
			memcpy(i & 1 ? a : b, i & 1 ? b : a, n);
			/* The copies are never read: without this GCC -O3 drops them. */
			__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
		}
		bw = 4.0 * (double)n * 1e9 / (double)(testlib_now_ns() - t0);
	}
	free(a);
	free(b);
	return bw;
}

static int thrash(double seconds)
{
	char dir[] = "/tmp/ttm-srv-thrash.XXXXXX", path[96], params[32];
	uint32_t bbe[2] = {0x0a << 23, 0};
	struct drm_i915_gem_create c = {.size = 4096};
	struct i915_device *i915;
	struct i915_gem_file *file;
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	struct drm_prime_handle ph = {.flags = DRM_CLOEXEC};
	pid_t pids[THRASH_PROCS];
	uint64_t moved, t0, deadline;
	struct srv *s;
	void *p;
	int bad = 0;
	double bw, rate;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	snprintf(params, sizeof(params), "lmem_size=%d", THRASH_LMEM_MIB);
	if (i915_gem_device_create_params("dg2", params, &i915) ||
	    srv_create(i915, path, NULL, &s) || i915_gem_file_open(i915, true, &file)) {
		fprintf(stderr, "benchmark-server: thrash setup failed\n");
		return 1;
	}
	/* The shared nop batch: written through a CPU mapping, passed by PRIME. */
	if (i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_CREATE, &c))
		return 1;
	mo.handle = c.handle;
	ph.handle = c.handle;
	if (i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo) ||
	    i915_gem_mmap(file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (off_t)mo.offset,
			  &p) ||
	    i915_gem_ioctl(file, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph)) {
		fprintf(stderr, "benchmark-server: thrash batch failed\n");
		return 1;
	}
	memcpy(p, bbe, sizeof(bbe));
	i915_gem_munmap(i915, p, 4096);
	bw = memcpy_bw();
	moved = atomic_load(&i915->drm.bdev.stats.bytes_moved);
	t0 = testlib_now_ns();
	deadline = t0 + (uint64_t)(seconds * 1e9);
	for (int i = 0; i < THRASH_PROCS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(thrash_client(path, ph.fd, deadline));
	}
	for (int i = 0; i < THRASH_PROCS; i++) {
		int st;

		if (pids[i] < 0 || waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad++;
	}
	rate = (double)(atomic_load(&i915->drm.bdev.stats.bytes_moved) - moved) * 1e9 /
	       (double)(testlib_now_ns() - t0);
	printf("memcpy-bandwidth %.0f MB/s\n", bw / 1e6);
	printf("thrash-moved %.0f MB/s (%d processes, lmem %d MiB, 2x over-subscribed)\n",
	       rate / 1e6, THRASH_PROCS, THRASH_LMEM_MIB);
	printf("thrash/memcpy %.2f x (goal >= 0.5)\n", bw > 0 ? rate / bw : 0.0);
	close(ph.fd);
	i915_gem_file_close(file);
	srv_destroy(s);
	i915_gem_device_destroy(i915);
	unlink(path);
	rmdir(dir);
	if (bad)
		fprintf(stderr, "benchmark-server: %d thrash clients failed\n", bad);
	return bad ? 1 : 0;
}
int main(int argc, char **argv)
{
	char dir[] = "/tmp/ttm-srv-bench.XXXXXX", path[96];
	long iters = 200000;
	struct i915_device *i915;
	struct i915_gem_file *file;
	struct srv *s;
	int value, conn, anchor, ret;
	struct drm_i915_getparam gp = {.param = I915_PARAM_CHIPSET_ID, .value = &value};
	uint64_t fid, t0;
	double fx, direct, server;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			iters = 20000;
		else if (!strcmp(argv[i], "--thrash") && i + 1 < argc) {
			char *end;
			double sec = strtod(argv[++i], &end);

			if (*end || !(sec > 0 && sec <= 86400)) {
				fprintf(stderr,
					"benchmark-server: --thrash needs seconds in (0, 86400]\n");
				return 2;
			}
			return thrash(sec);
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = strtol(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: %s [--quick] [--iters N] | --thrash SECONDS\n",
				argv[0]);
			return 2;
		}
	}
	if (iters <= 0) {
		fprintf(stderr, "benchmark-server: --iters must be positive\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	ret = i915_gem_device_create(NULL, &i915);
	if (!ret)
		ret = srv_create(i915, path, NULL, &s);
	if (ret) {
		fprintf(stderr, "benchmark-server: setup: %s\n", strerror(-ret));
		return 1;
	}
	conn = srv_connect(path);
	if (conn < 0 || srv_client_open(conn, 128, 1, &anchor, &fid) ||
	    i915_gem_file_open(i915, true, &file)) {
		fprintf(stderr, "benchmark-server: cannot open a file\n");
		return 1;
	}
	/* Warm up each path, then time it. */
	futex_roundtrip(iters / 10 + 1);
	fx = futex_roundtrip(iters);

	for (long i = 0; i < iters / 10 + 1; i++)
		i915_gem_ioctl(file, DRM_IOCTL_I915_GETPARAM, &gp);
	t0 = testlib_now_ns();
	for (long i = 0; i < iters; i++)
		if (i915_gem_ioctl(file, DRM_IOCTL_I915_GETPARAM, &gp))
			return 1;
	direct = (double)(testlib_now_ns() - t0) / (double)iters;

	for (long i = 0; i < iters / 10 + 1; i++)
		srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GETPARAM, &gp, NULL);
	t0 = testlib_now_ns();
	for (long i = 0; i < iters; i++)
		if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GETPARAM, &gp, NULL))
			return 1;
	server = (double)(testlib_now_ns() - t0) / (double)iters;

	printf("futex-roundtrip %.0f ns\n", fx);
	printf("direct-ioctl %.0f ns\n", direct);
	printf("server-ioctl %.0f ns\n", server);
	printf("server/futex %.2f x (goal <= 3)\n", server / fx);
	{
		/* The execbuffer rate of gem_exec_nop's loop, through the server and direct. */
		long n = iters / 10 + 1;
		double nd = nop_rate(file, -1, 0, n / 10 + 1), ns;

		nd = nop_rate(file, -1, 0, n);
		ns = nop_rate(NULL, conn, fid, n / 10 + 1);
		ns = nop_rate(NULL, conn, fid, n);
		if (nd <= 0 || ns <= 0) {
			fprintf(stderr, "benchmark-server: nop execbuffer failed\n");
			return 1;
		}
		printf("direct-exec-nop %.0f /s\n", nd);
		printf("server-exec-nop %.0f /s\n", ns);
		printf("server/direct exec-nop %.2f x (goal >= 0.5)\n", ns / nd);
	}
	close(anchor);
	close(conn);
	i915_gem_file_close(file);
	srv_destroy(s);
	i915_gem_device_destroy(i915);
	unlink(path);
	rmdir(dir);
	return 0;
}
