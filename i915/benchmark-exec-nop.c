// SPDX-License-Identifier: MIT
/*
 * benchmark-exec-nop: empty batches (MI_BATCH_BUFFER_END) on the simulated
 * GPU, latency model off. A submit+wait crosses three threads (client,
 * command streamer, interrupt handler), so each figure is reported beside a
 * futex round trip between two threads measured in the same run, and as a
 * ratio to it.
 *
 *   idle:      submit one batch, wait for its fence, repeat (ns per submit+wait)
 *   queued64:  submit 64 batches, wait for the last (submissions per second)
 *   execbuf:   the idle loop through i915_gem_execbuffer() with one object
 *
 * Options: --quick (3 short repetitions), --reps N, --duration-ms N.
 * Self-contained: i915/ is built before bench/lib, so the shared harness is
 * not available here; median/min/max over repetitions are computed below.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <i915/i915_cmds.h>
#include <i915/i915_gem.h>

#include "i915_bench.h"

/* --- reference: futex ping-pong between two threads --- */

static atomic_uint ping;
static atomic_bool pong_stop;

static void futex_wait(atomic_uint *w, unsigned int val)
{
	syscall(SYS_futex, (unsigned int *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *w)
{
	syscall(SYS_futex, (unsigned int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Odd values are the main thread's pings, even ones the partner's pongs. */
static void *pong_thread(void *arg)
{
	(void)arg;
	for (;;) {
		unsigned int v = atomic_load(&ping);

		if (atomic_load(&pong_stop))
			return NULL;
		if (v & 1) {
			atomic_store(&ping, v + 1);
			futex_wake(&ping);
		} else {
			futex_wait(&ping, v);
		}
	}
}

static double futex_round_trip_ns(uint64_t budget_ns)
{
	uint64_t t0 = i915_bench_now_ns(), n = 0;

	do {
		for (int i = 0; i < 256; i++) {
			unsigned int v = atomic_load(&ping) + 1;

			atomic_store(&ping, v);
			futex_wake(&ping);
			while (atomic_load(&ping) == v)
				futex_wait(&ping, v);
		}
		n += 256;
	} while (i915_bench_now_ns() - t0 < budget_ns);
	return (double)(i915_bench_now_ns() - t0) / (double)n;
}

/* --- the measured loops --- */

/*
 * Calls @submit_wait (one submission, waited for) in rounds of 64 until
 * @budget_ns passed; *@ns is the time per call. Return: 0 or its error.
 */
static int per_call_loop(int (*submit_wait)(void *arg), void *arg, uint64_t budget_ns, double *ns)
{
	uint64_t t0 = i915_bench_now_ns(), n = 0;

	do {
		for (int i = 0; i < 64; i++) {
			int ret = submit_wait(arg);

			if (ret)
				return ret;
		}
		n += 64;
	} while (i915_bench_now_ns() - t0 < budget_ns);
	*ns = (double)(i915_bench_now_ns() - t0) / (double)n;
	return 0;
}

struct idle_arg {
	struct i915_engine *e;
	uint64_t batch;
};

static int idle_submit_wait(void *arg)
{
	struct idle_arg *a = arg;
	struct dma_fence *f;
	int ret = i915_request_submit(a->e, NULL, NULL, 0, a->batch, &f);

	if (ret)
		return ret;
	dma_fence_wait(f, false);
	dma_fence_put(f);
	return 0;
}

static int idle_loop(struct i915_engine *e, uint64_t batch, uint64_t budget_ns, double *ns)
{
	struct idle_arg a = {.e = e, .batch = batch};

	return per_call_loop(idle_submit_wait, &a, budget_ns, ns);
}

static int queued_loop(struct i915_engine *e, uint64_t batch, uint64_t budget_ns, double *per_s)
{
	uint64_t t0 = i915_bench_now_ns(), n = 0;

	do {
		struct dma_fence *f = NULL;

		for (int i = 0; i < 64; i++) {
			int ret;

			dma_fence_put(f);
			ret = i915_request_submit(e, NULL, NULL, 0, batch, &f);
			if (ret)
				return ret;
		}
		dma_fence_wait(f, false);
		dma_fence_put(f);
		n += 64;
	} while (i915_bench_now_ns() - t0 < budget_ns);
	*per_s = (double)n * 1e9 / (double)(i915_bench_now_ns() - t0);
	return 0;
}

struct execbuf_arg {
	struct i915_device *i915;
	struct i915_gem_object *batch;
};

static int execbuf_submit_wait(void *arg)
{
	struct execbuf_arg *a = arg;
	struct i915_exec_object obj = {.obj = a->batch};
	struct i915_execbuffer eb = {.objects = &obj, .count = 1};
	int ret = i915_gem_execbuffer(a->i915, &eb);

	if (ret)
		return ret;
	dma_fence_wait(eb.out_fence, false);
	dma_fence_put(eb.out_fence);
	return 0;
}

static int execbuf_loop(struct i915_device *i915, struct i915_gem_object *batch, uint64_t budget_ns,
			double *ns)
{
	struct execbuf_arg a = {.i915 = i915, .batch = batch};

	return per_call_loop(execbuf_submit_wait, &a, budget_ns, ns);
}

static void print_series(const char *what, const char *unit, const struct i915_bench_series *s)
{
	printf("%-34s median %10.1f %-6s (min %.1f, max %.1f, %u reps)\n", what, s->median, unit,
	       s->min, s->max, s->n);
}

int main(int argc, char **argv)
{
	struct i915_bench_series futex = {0}, idle = {0}, queued = {0}, execbuf = {0};
	unsigned int reps = 7, duration_ms = 200;
	struct i915_gem_object *bobj = NULL;
	struct i915_device *i915 = NULL;
	struct ttm_resource *bres = NULL;
	struct sim_gpu_config cfg;
	void *page = NULL;
	pthread_t pong;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			reps = 3;
			duration_ms = 50;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--duration-ms") && i + 1 < argc) {
			duration_ms = (unsigned int)atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--quick] [--reps N] [--duration-ms N]\n",
				argv[0]);
			return 2;
		}
	}
	if (!reps || reps > I915_BENCH_MAX_REPS || !duration_ms) {
		fprintf(stderr, "--reps must be 1..%d, --duration-ms > 0\n", I915_BENCH_MAX_REPS);
		return 2;
	}

	sim_gpu_config_init(&cfg);
	cfg.ggtt_size = 256ull << 20;
	cfg.aperture_size = 64ull << 20;
	ret = i915_device_create_sim(&cfg, &i915);
	if (!ret)
		ret = i915_gem_init(i915);
	if (ret) {
		fprintf(stderr, "device: %s\n", strerror(-ret));
		return 1;
	}
	/* The ring-level batch: one host page mapped in the GGTT. */
	page = aligned_alloc(4096, 4096);
	{
		const struct ttm_place place = {.mem_type = TTM_PL_TT};

		ret = page ? ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place, 4096,
						0, &bres)
			   : -ENOMEM;
		if (!ret) {
			memset(page, 0, 4096);
			i915_emit_bb_end(page);
			ret = i915_ggtt_bind_host(&i915->ggtt, bres->start, &page, 1);
		}
	}
	if (!ret)
		ret = i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &bobj);
	if (!ret) {
		uint32_t end = MI_BATCH_BUFFER_END;

		ret = i915_gem_object_access(bobj, 0, &end, 4, true);
	}
	if (ret) {
		fprintf(stderr, "setup: %s\n", strerror(-ret));
		return 1;
	}

	atomic_store(&ping, 0);
	pthread_create(&pong, NULL, pong_thread, NULL);
	/* Warm-up of every loop, unmeasured. */
	futex_round_trip_ns(20000000);
	{
		struct i915_engine *rcs = i915_engine_get(i915, I915_ENGINE_RCS);
		uint64_t budget = (uint64_t)duration_ms * 1000000ull;
		uint64_t batch = i915_ggtt_offset(bres);
		double x;

		idle_loop(rcs, batch, 20000000, &x);
		queued_loop(rcs, batch, 20000000, &x);
		execbuf_loop(i915, bobj, 20000000, &x);
		/* Interleave the loops so drifts hit every figure alike. */
		for (unsigned int r = 0; r < reps && !ret; r++) {
			futex.v[futex.n++] = futex_round_trip_ns(budget);
			ret = idle_loop(rcs, batch, budget, &idle.v[idle.n++]);
			if (!ret)
				ret = queued_loop(rcs, batch, budget, &queued.v[queued.n++]);
			if (!ret)
				ret = execbuf_loop(i915, bobj, budget, &execbuf.v[execbuf.n++]);
		}
	}
	atomic_store(&pong_stop, true);
	atomic_store(&ping, atomic_load(&ping) + 2);
	futex_wake(&ping);
	pthread_join(pong, NULL);
	if (ret) {
		fprintf(stderr, "run: %s\n", strerror(-ret));
		return 1;
	}

	i915_bench_series_finish(&futex);
	i915_bench_series_finish(&idle);
	i915_bench_series_finish(&queued);
	i915_bench_series_finish(&execbuf);
	printf("benchmark-exec-nop: sim back end, latency model off, RCS, %u reps of %u ms\n", reps,
	       duration_ms);
	print_series("reference futex round trip", "ns", &futex);
	print_series("idle submit+wait", "ns", &idle);
	print_series("execbuffer(1 obj) submit+wait", "ns", &execbuf);
	print_series("queued 64 then wait", "subm/s", &queued);
	printf("ratios (medians): idle = %.2f futex round trips (target <= 4), "
	       "execbuffer = %.2f futex round trips\n",
	       idle.median / futex.median, execbuf.median / futex.median);
	printf("                  queued64 = %.0f ns/submission = %.2f futex round trips; "
	       "%.0f k subm/s (target >= 500 k/s)\n",
	       1e9 / queued.median, 1e9 / queued.median / futex.median, queued.median / 1000);

	i915_gem_object_put(bobj);
	i915_ggtt_unbind(&i915->ggtt, bres->start, 1);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &bres);
	free(page);
	i915_gem_fini(i915);
	i915_device_destroy(i915);
	return 0;
}
