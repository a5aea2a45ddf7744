// SPDX-License-Identifier: MIT
/*
 * benchmark-exec-nop: empty batches (MI_BATCH_BUFFER_END), on the simulated
 * GPU (latency model off) or, with --backend=hw, on a real Intel GPU through
 * the hw back end. A submit+wait crosses several threads (client, command
 * streamer or kernel, interrupt handler or sync_file waiter), so each figure
 * is reported beside a futex round trip between two threads measured in the
 * same run, and as a ratio to it.
 *
 *   idle:      submit one batch, wait for its fence, repeat (ns per submit+wait)
 *   queued64:  submit 64 batches, wait for the last (submissions per second)
 *   execbuf:   sim only: the idle loop through i915_gem_execbuffer() with one
 *              object
 *
 * On hw the batch is a 4 KiB hw_ttm BO placed in TT, i.e. softpinned at the
 * address the TT range manager gave it, submitted with hw_ttm_exec(): the
 * reservation and validation this project does per submission are part of
 * the figure, as they are in the sim execbuffer figure.
 *
 * Options: --backend=sim|hw (default sim), --device PATH (hw; default
 * $TTM_HW_DEVICE, else the first i915 render node), --quick (3 short
 * repetitions), --reps N, --duration-ms N. Bad options: one line, exit 2.
 * Without a usable Intel render node --backend=hw prints
 * "benchmark-exec-nop: SKIP: <reason>" on stderr and exits 77.
 * The GPU is opened, described and skipped by bench_hw (bench/lib), as in
 * every benchmark with --backend=hw; the rest does not use the shared
 * harness: its own options, and median/min/max over repetitions from
 * i915_bench.h. Built in bench/meson.build's hw block, which links bench_hw.
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

#include <ttm_config.h>

#include <i915/i915_cmds.h>
#include <i915/i915_gem.h>

#if TTM_HAVE_LIBDRM
#include "hw/hw_gpu.h"
#include "hw/hw_ttm.h"
#endif

#include "bench_hw.h"
#include "i915_bench.h"

/* A fence not signalled after this long means a hung GPU: stop, do not hang. */
#define NOP_WAIT_TIMEOUT_NS (10ll * 1000000000ll)

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

static void pong_start(pthread_t *pong)
{
	atomic_store(&pong_stop, false);
	atomic_store(&ping, 0);
	pthread_create(pong, NULL, pong_thread, NULL);
}

static void pong_stop_join(pthread_t pong)
{
	atomic_store(&pong_stop, true);
	atomic_store(&ping, atomic_load(&ping) + 2);
	futex_wake(&ping);
	pthread_join(pong, NULL);
}

/* --- the measured loops --- */

/**
 * struct nop_target - how one back end submits an empty batch.
 * @submit: queue one batch; on success *@fence is its completion fence (one
 *	reference, the caller's). Return 0 or a negative errno, *@fence NULL.
 * @arg: handed to @submit.
 */
struct nop_target {
	int (*submit)(void *arg, struct dma_fence **fence);
	void *arg;
};

/*
 * Waits for @f and drops it. Return 0, the fence's error (-EIO for a batch
 * killed by a GPU reset) or -ETIME when it never signalled.
 */
static int nop_fence_wait_put(struct dma_fence *f)
{
	int64_t left = dma_fence_wait_timeout(f, false, NOP_WAIT_TIMEOUT_NS);
	int ret = left < 0 ? (int)left : left == 0 ? -ETIME : dma_fence_get_status(f);

	dma_fence_put(f);
	return ret < 0 ? ret : 0;
}

static int target_submit_wait(void *arg)
{
	const struct nop_target *t = arg;
	struct dma_fence *f;
	int ret = t->submit(t->arg, &f);

	return ret ? ret : nop_fence_wait_put(f);
}

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

static int idle_loop(const struct nop_target *t, uint64_t budget_ns, double *ns)
{
	return per_call_loop(target_submit_wait, (void *)t, budget_ns, ns);
}

static int queued_loop(const struct nop_target *t, uint64_t budget_ns, double *per_s)
{
	uint64_t t0 = i915_bench_now_ns(), n = 0;

	do {
		struct dma_fence *f = NULL;
		int ret;

		for (int i = 0; i < 64; i++) {
			struct dma_fence *next;

			ret = t->submit(t->arg, &next);
			if (ret) {
				/* Drain what was queued before reporting. */
				if (f)
					nop_fence_wait_put(f);
				return ret;
			}
			if (f)
				dma_fence_put(f);
			f = next;
		}
		ret = nop_fence_wait_put(f);
		if (ret)
			return ret;
		n += 64;
	} while (i915_bench_now_ns() - t0 < budget_ns);
	*per_s = (double)n * 1e9 / (double)(i915_bench_now_ns() - t0);
	return 0;
}

struct sim_arg {
	struct i915_engine *e;
	uint64_t batch;
};

static int sim_submit(void *arg, struct dma_fence **fence)
{
	struct sim_arg *a = arg;

	return i915_request_submit(a->e, NULL, NULL, 0, a->batch, fence);
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

	return ret ? ret : nop_fence_wait_put(eb.out_fence);
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


/**
 * struct nop_opts - the command line.
 * @hw: --backend=hw.
 * @gpu: the GPU handle of --backend=hw; its @device is the --device value,
 *	or NULL.
 * @reps: repetitions, 1..I915_BENCH_MAX_REPS.
 * @duration_ms: time budget of each loop in one repetition.
 */
struct nop_opts {
	bool hw;
	struct bench_hw gpu;
	unsigned int reps;
	unsigned int duration_ms;
};

/* Return 0, 1 for --help, or -EINVAL with a one-line reason in @err. */
static int parse_opts(int argc, char **argv, struct nop_opts *o, char *err, size_t errlen)
{
	*o = (struct nop_opts){.reps = 7, .duration_ms = 200};
	bench_hw_init(&o->gpu);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;

		if (!strncmp(a, "--backend", 9) && (a[9] == '=' || !a[9])) {
			val = a[9] ? a + 10 : i + 1 < argc ? argv[++i] : NULL;
			if (val && !strcmp(val, "sim")) {
				o->hw = false;
			} else if (val && !strcmp(val, "hw")) {
				o->hw = true;
			} else {
				snprintf(err, errlen, "--backend takes sim or hw, not '%s'",
					 val ? val : "");
				return -EINVAL;
			}
		} else if (!strncmp(a, "--device", 8) && (a[8] == '=' || !a[8])) {
			char why[128];

			val = a[8] ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
			if (bench_hw_opt_device(&o->gpu, val, why, sizeof(why))) {
				snprintf(err, errlen, "--device: %s", why);
				return -EINVAL;
			}
		} else if (!strcmp(a, "--quick")) {
			o->reps = 3;
			o->duration_ms = 50;
		} else if (!strcmp(a, "--reps") || !strcmp(a, "--duration-ms")) {
			bool reps = a[2] == 'r';

			val = i + 1 < argc ? argv[++i] : "";
			if (bench_parse_uint(val, 1, reps ? I915_BENCH_MAX_REPS : 60000,
					     reps ? &o->reps : &o->duration_ms)) {
				snprintf(err, errlen, "%s: expected an integer in 1..%d, got '%s'", a,
					 reps ? I915_BENCH_MAX_REPS : 60000, val);
				return -EINVAL;
			}
		} else if (!strcmp(a, "--help")) {
			return 1;
		} else {
			snprintf(err, errlen,
				 "unknown option '%s'; usage: [--backend=sim|hw] [--device PATH] "
				 "[--quick] [--reps N] [--duration-ms N]",
				 a);
			return -EINVAL;
		}
	}
	if (!o->reps || o->reps > I915_BENCH_MAX_REPS || !o->duration_ms) {
		snprintf(err, errlen, "--reps must be 1..%d, --duration-ms > 0",
			 I915_BENCH_MAX_REPS);
		return -EINVAL;
	}
	return 0;
}

/* The two loops every back end has, interleaved with the reference. */
static int run_common(const struct nop_target *t, const struct nop_opts *o,
		      struct i915_bench_series *futex, struct i915_bench_series *idle,
		      struct i915_bench_series *queued)
{
	uint64_t budget = (uint64_t)o->duration_ms * 1000000ull;
	int ret;

	futex->v[futex->n++] = futex_round_trip_ns(budget);
	ret = idle_loop(t, budget, &idle->v[idle->n++]);
	if (!ret)
		ret = queued_loop(t, budget, &queued->v[queued->n++]);
	return ret;
}

static int run_sim(const struct nop_opts *o)
{
	struct i915_bench_series futex = {0}, idle = {0}, queued = {0}, execbuf = {0};
	struct i915_gem_object *bobj = NULL;
	struct i915_device *i915 = NULL;
	struct ttm_resource *bres = NULL;
	struct sim_gpu_config cfg;
	void *page = NULL;
	pthread_t pong;
	int ret;

	sim_gpu_config_init(&cfg);
	cfg.ggtt_size = 256ull << 20;
	cfg.aperture_size = 64ull << 20;
	ret = i915_device_create_sim(&cfg, &i915);
	if (ret) {
		fprintf(stderr, "device: %s\n", strerror(-ret));
		return 1;
	}
	ret = i915_gem_init(i915);
	if (ret) {
		fprintf(stderr, "gem init: %s\n", strerror(-ret));
		i915_device_destroy(i915);
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
		goto out;
	}

	pong_start(&pong);
	/* Warm-up of every loop, unmeasured. */
	futex_round_trip_ns(20000000);
	{
		struct sim_arg sa = {.e = i915_engine_get(i915, I915_ENGINE_RCS),
				     .batch = i915_ggtt_offset(bres)};
		const struct nop_target t = {.submit = sim_submit, .arg = &sa};
		uint64_t budget = (uint64_t)o->duration_ms * 1000000ull;
		double x;

		ret = idle_loop(&t, 20000000, &x);
		if (!ret)
			ret = queued_loop(&t, 20000000, &x);
		if (!ret)
			ret = execbuf_loop(i915, bobj, 20000000, &x);
		/* Interleave the loops so drifts hit every figure alike. */
		for (unsigned int r = 0; r < o->reps && !ret; r++) {
			ret = run_common(&t, o, &futex, &idle, &queued);
			if (!ret)
				ret = execbuf_loop(i915, bobj, budget, &execbuf.v[execbuf.n++]);
		}
	}
	pong_stop_join(pong);
	if (ret) {
		fprintf(stderr, "run: %s\n", strerror(-ret));
		goto out;
	}

	i915_bench_series_finish(&futex);
	i915_bench_series_finish(&idle);
	i915_bench_series_finish(&queued);
	i915_bench_series_finish(&execbuf);
	printf("benchmark-exec-nop: sim back end, latency model off, RCS, %u reps of %u ms\n",
	       o->reps, o->duration_ms);
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

out:
	if (bobj)
		i915_gem_object_put(bobj);
	if (bres) {
		i915_ggtt_unbind(&i915->ggtt, bres->start, 1);
		ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &bres);
	}
	free(page);
	i915_gem_fini(i915);
	i915_device_destroy(i915);
	return ret ? 1 : 0;
}

#if TTM_HAVE_LIBDRM

struct hw_arg {
	struct hw_ttm_device *dev;
	struct hw_ttm_bo *batch;
};

static int hw_submit(void *arg, struct dma_fence **fence)
{
	struct hw_arg *a = arg;

	return hw_ttm_exec(a->dev, NULL, 0, a->batch, fence);
}

static void describe_line(void *data, const char *key, const char *value)
{
	(void)data;
	printf("gpu.%s: %s\n", key, value);
}

/* The loops on the GPU bench_hw_open() gave @hw. Return 0 or a negative errno. */
static int hw_measure(struct bench_hw *hw, const struct nop_opts *o)
{
	struct i915_bench_series futex = {0}, idle = {0}, queued = {0};
	struct hw_ttm_bo *batch = NULL;
	pthread_t pong;
	int ret;

	ret = bench_hw_nop_batch(hw, &batch);
	if (ret) {
		printf("FAIL: nop batch: %s\n", strerror(-ret));
		return ret;
	}

	printf("benchmark-exec-nop: hw back end, RCS, batch softpinned in TT via hw_ttm_exec, "
	       "%u reps of %u ms\n",
	       o->reps, o->duration_ms);
	hw_gpu_describe(hw_gpu_info(hw->gpu), describe_line, NULL);
	fflush(stdout);

	pong_start(&pong);
	futex_round_trip_ns(20000000);
	{
		struct hw_arg ha = {.dev = hw->dev, .batch = batch};
		const struct nop_target t = {.submit = hw_submit, .arg = &ha};
		double x;

		/* Warm-up: the first submissions pay for binding and context setup. */
		ret = idle_loop(&t, 20000000, &x);
		if (!ret)
			ret = queued_loop(&t, 20000000, &x);
		for (unsigned int r = 0; r < o->reps && !ret; r++)
			ret = run_common(&t, o, &futex, &idle, &queued);
	}
	pong_stop_join(pong);
	ttm_bo_put(&batch->tbo);
	if (ret) {
		printf("FAIL: submission: %s%s\n", strerror(-ret),
		       hw_gpu_is_wedged(hw->gpu) ? " (GPU wedged)" : "");
		return ret;
	}

	i915_bench_series_finish(&futex);
	i915_bench_series_finish(&idle);
	i915_bench_series_finish(&queued);
	print_series("reference futex round trip", "ns", &futex);
	print_series("idle submit+wait", "ns", &idle);
	print_series("queued 64 then wait", "subm/s", &queued);
	printf("ratios (medians): idle = %.2f futex round trips; queued64 = %.0f ns/submission "
	       "= %.2f futex round trips (%.0f k subm/s)\n",
	       idle.median / futex.median, 1e9 / queued.median,
	       1e9 / queued.median / futex.median, queued.median / 1000);
	return 0;
}

#endif /* TTM_HAVE_LIBDRM */

/*
 * --backend=hw: bench_hw opens the GPU (or says why not: exit 77 for a
 * machine without a usable Intel render node, as every benchmark does).
 * The run only carries the GPU's description; nothing is written from it.
 */
static int run_hw(struct nop_opts *o)
{
	const struct bench_options bo = {.threads = 1, .backend = BENCH_BACKEND_HW, .seed = 1};
	struct bench_run run;
	int ret;

	ret = bench_run_init(&run, "exec-nop", &bo);
	if (ret) {
		fprintf(stderr, "benchmark-exec-nop: %s\n", strerror(-ret));
		return 1;
	}
	ret = bench_hw_open(&run, &o->gpu, NULL);
	if (ret)
		return bench_hw_exit(&run, &o->gpu, "benchmark-exec-nop", ret);
#if TTM_HAVE_LIBDRM
	ret = hw_measure(&o->gpu, o);
#endif
	/* -EBUSY would mean a BO outlived us; bench_hw then leaves the GPU open. */
	if (bench_hw_close(&o->gpu) && !ret)
		ret = -EBUSY;
	bench_run_fini(&run);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nop_opts o;
	char err[256];

	int rc = parse_opts(argc, argv, &o, err, sizeof(err));

	if (rc > 0) {
		printf("usage: %s [--backend=sim|hw] [--device PATH] [--quick] [--reps N] "
		       "[--duration-ms N]\n",
		       argv[0]);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 2;
	}
	if (o.gpu.device && !o.hw) {
		fprintf(stderr, "%s: --device needs --backend=hw\n", argv[0]);
		return 2;
	}
	return o.hw ? run_hw(&o) : run_sim(&o);
}
