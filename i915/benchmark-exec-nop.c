// SPDX-License-Identifier: MIT
/*
 * benchmark-exec-nop: empty batches (MI_BATCH_BUFFER_END), on the simulated
 * GPU (latency model off) or, with --backend=hw, on a real Intel GPU through
 * the hw back end. A submit+wait crosses several threads (client, command
 * streamer or kernel, interrupt handler or sync_file waiter), so each figure
 * is related to a futex round trip between two threads measured in the same
 * repetitions (exec_nop.futex_rtt, interleaved with the loops so drift on a
 * shared machine weighs on all of them) and to the harness's futex_rtt
 * reference.
 *
 *   exec_nop.idle:      submit one batch, wait for its fence, repeat (ns per
 *                       submit+wait)
 *   exec_nop.queued64:  submit 64 batches, wait for the last (submissions per
 *                       second)
 *   exec_nop.execbuf:   sim only: the idle loop through i915_gem_execbuffer()
 *                       with one object
 *
 * On hw the batch is a 4 KiB hw_ttm BO placed in TT, i.e. softpinned at the
 * address the TT range manager gave it, submitted with hw_ttm_exec(): the
 * reservation and validation this project does per submission are part of
 * the figure, as they are in the sim execbuffer figure.
 *
 * Options: the harness's (bench/lib: --reps, --warmup, --quick, --out,
 * --cpus, --backend=sim|hw, --seed), --device PATH (hw; default
 * $TTM_HW_DEVICE, else the first i915 render node) and --duration-ms N, the
 * time budget of each loop in a repetition (default 200; 50 with --quick;
 * --duration S sets it in seconds). Without a usable Intel render node
 * --backend=hw prints "benchmark-exec-nop: SKIP: <reason>" and exits 77.
 * Built in bench/meson.build's hw block, which links the harness and bench_hw.
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

#include <sim_gpu.h>

#include <i915/i915_cmds.h>
#include <i915/i915_gem.h>

#if TTM_HAVE_LIBDRM
#include "hw/hw_gpu.h"
#include "hw/hw_ttm.h"
#endif

#include <bench.h>
#include <bench_hw.h>

/* A fence not signalled after this long means a hung GPU: stop, do not hang. */
#define NOP_WAIT_TIMEOUT_NS (10ll * 1000000000ll)

/* The unmeasured warm-up of every loop, per --warmup repetition. */
#define NOP_WARMUP_NS 20000000ull

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
	uint64_t t0 = testlib_now_raw_ns(), n = 0;

	do {
		for (int i = 0; i < 256; i++) {
			unsigned int v = atomic_load(&ping) + 1;

			atomic_store(&ping, v);
			futex_wake(&ping);
			while (atomic_load(&ping) == v)
				futex_wait(&ping, v);
		}
		n += 256;
	} while (testlib_now_raw_ns() - t0 < budget_ns);
	return (double)(testlib_now_raw_ns() - t0) / (double)n;
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
	uint64_t t0 = testlib_now_raw_ns(), n = 0;

	do {
		for (int i = 0; i < 64; i++) {
			int ret = submit_wait(arg);

			if (ret)
				return ret;
		}
		n += 64;
	} while (testlib_now_raw_ns() - t0 < budget_ns);
	*ns = (double)(testlib_now_raw_ns() - t0) / (double)n;
	return 0;
}

static int idle_loop(const struct nop_target *t, uint64_t budget_ns, double *ns)
{
	return per_call_loop(target_submit_wait, (void *)t, budget_ns, ns);
}

static int queued_loop(const struct nop_target *t, uint64_t budget_ns, double *per_s)
{
	uint64_t t0 = testlib_now_raw_ns(), n = 0;

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
	} while (testlib_now_raw_ns() - t0 < budget_ns);
	*per_s = (double)n * 1e9 / (double)(testlib_now_raw_ns() - t0);
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

/**
 * struct nop_opts - the options of this program beside the harness's.
 * @gpu: the GPU handle of --backend=hw; its @device is the --device value,
 *	or NULL.
 * @duration_ms: --duration-ms, 0 when not given.
 */
struct nop_opts {
	struct bench_hw gpu;
	unsigned int duration_ms;
};

static int opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	return bench_hw_opt_device(&((struct nop_opts *)ctx)->gpu, arg, err, errlen);
}

static int opt_duration_ms(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct nop_opts *o = ctx;

	if (bench_parse_uint(arg ? arg : "", 1, 60000, &o->duration_ms)) {
		snprintf(err, errlen, "expected an integer in 1..60000, got '%s'", arg ? arg : "");
		return -EINVAL;
	}
	return 0;
}

static const struct bench_opt nop_extra[] = {
    {"device", "PATH",
     "render node for --backend=hw (default: $TTM_HW_DEVICE, else the first i915 one)", opt_device},
    {"duration-ms", "N", "time budget of each loop per repetition, ms (default 200; 50 quick)",
     opt_duration_ms},
    {0},
};

/**
 * struct nop_metrics - the figures of one run.
 * @futex: exec_nop.futex_rtt, the same-run futex round trip.
 * @idle: exec_nop.idle.
 * @queued: exec_nop.queued64.
 * @execbuf: exec_nop.execbuf, NULL on hw.
 * @budget_ns: time budget of each loop in one repetition.
 */
struct nop_metrics {
	struct bench_metric *futex, *idle, *queued, *execbuf;
	uint64_t budget_ns;
};

static int nop_metrics_add(struct bench_run *run, bool execbuf, struct nop_metrics *m)
{
	m->futex = bench_metric_add(run, "exec_nop.futex_rtt", "ns", BENCH_LOWER_IS_BETTER);
	m->idle = bench_metric_add(run, "exec_nop.idle", "ns", BENCH_LOWER_IS_BETTER);
	m->queued = bench_metric_add(run, "exec_nop.queued64", "subm/s", BENCH_HIGHER_IS_BETTER);
	m->execbuf =
	    execbuf ? bench_metric_add(run, "exec_nop.execbuf", "ns", BENCH_LOWER_IS_BETTER) : NULL;
	if (!m->futex || !m->idle || !m->queued || (execbuf && !m->execbuf))
		return -ENOMEM;
	bench_metric_platform(m->futex);
	bench_metric_reference(m->futex, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(m->idle, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
	/* At most four futex round trips per submit+wait. */
	if (run->refs[BENCH_REF_FUTEX_RTT].measured)
		bench_metric_target(m->idle, 4 * run->refs[BENCH_REF_FUTEX_RTT].stats.median,
				    BENCH_TARGET_AT_MOST);
	bench_metric_target(m->queued, 500000.0, BENCH_TARGET_AT_LEAST);
	if (m->execbuf)
		bench_metric_reference(m->execbuf, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
	return 0;
}

/*
 * The loops of every back end (and the sim's execbuffer loop when
 * @execbuf_arg is set): --warmup unmeasured rounds of NOP_WARMUP_NS each,
 * then --reps measured ones, interleaved so drifts hit every figure alike.
 */
static int nop_loops(struct bench_run *run, const struct nop_target *t, struct nop_metrics *m,
		     struct i915_device *i915, struct i915_gem_object *bobj)
{
	pthread_t pong;
	double x;
	int ret = 0;

	pong_start(&pong);
	for (unsigned int w = 0; w < run->opts.warmup && !ret; w++) {
		futex_round_trip_ns(NOP_WARMUP_NS);
		ret = idle_loop(t, NOP_WARMUP_NS, &x);
		if (!ret)
			ret = queued_loop(t, NOP_WARMUP_NS, &x);
		if (!ret && bobj)
			ret = execbuf_loop(i915, bobj, NOP_WARMUP_NS, &x);
	}
	for (unsigned int r = 0; r < run->opts.reps && !ret; r++) {
		bench_progress(run, "empty batches", (double)r / run->opts.reps);
		ret = bench_metric_sample(m->futex, futex_round_trip_ns(m->budget_ns));
		if (!ret)
			ret = idle_loop(t, m->budget_ns, &x);
		if (!ret)
			ret = bench_metric_sample(m->idle, x);
		if (!ret)
			ret = queued_loop(t, m->budget_ns, &x);
		if (!ret)
			ret = bench_metric_sample(m->queued, x);
		if (!ret && bobj)
			ret = execbuf_loop(i915, bobj, m->budget_ns, &x);
		if (!ret && bobj)
			ret = bench_metric_sample(m->execbuf, x);
	}
	bench_progress_done(run);
	pong_stop_join(pong);
	return ret;
}

/* The ring-level batch: one host page mapped in the GGTT, ending at once. */
static int sim_batch_page(struct i915_device *i915, void **page, struct ttm_resource **res)
{
	const struct ttm_place place = {.mem_type = TTM_PL_TT};
	int ret;

	*page = aligned_alloc(4096, 4096);
	if (!*page)
		return -ENOMEM;
	memset(*page, 0, 4096);
	i915_emit_bb_end(*page);
	ret = ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place, 4096, 0, res);
	if (!ret) {
		ret = i915_ggtt_bind_host(&i915->ggtt, (*res)->start, page, 1);
		if (ret)
			ttm_resource_free(i915_ggtt_manager(&i915->ggtt), res);
	}
	return ret;
}

static int sim_measure(struct bench_run *run, struct nop_metrics *m)
{
	struct i915_gem_object *bobj = NULL;
	struct i915_device *i915 = NULL;
	struct ttm_resource *bres = NULL;
	struct sim_gpu_config cfg;
	void *page = NULL;
	int ret;

	sim_gpu_config_init(&cfg);
	cfg.ggtt_size = 256ull << 20;
	cfg.aperture_size = 64ull << 20;
	ret = i915_device_create_sim(&cfg, &i915);
	if (ret)
		return ret;
	ret = i915_gem_init(i915);
	if (ret) {
		i915_device_destroy(i915);
		return ret;
	}
	ret = sim_batch_page(i915, &page, &bres);
	if (!ret)
		ret = i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &bobj);
	if (!ret) {
		uint32_t end = MI_BATCH_BUFFER_END;

		ret = i915_gem_object_access(bobj, 0, &end, 4, true);
	}
	if (!ret) {
		struct sim_arg sa = {.e = i915_engine_get(i915, I915_ENGINE_RCS),
				     .batch = i915_ggtt_offset(bres)};
		const struct nop_target t = {.submit = sim_submit, .arg = &sa};

		ret = nop_loops(run, &t, m, i915, bobj);
	}
	if (bobj)
		i915_gem_object_put(bobj);
	if (bres) {
		i915_ggtt_unbind(&i915->ggtt, bres->start, 1);
		ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &bres);
	}
	free(page);
	i915_gem_fini(i915);
	i915_device_destroy(i915);
	return ret;
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

/* The loops on the GPU bench_hw_open() gave @hw. Return 0 or a negative errno. */
static int hw_measure(struct bench_run *run, struct bench_hw *hw, struct nop_metrics *m)
{
	struct hw_ttm_bo *batch = NULL;
	int ret;

	ret = bench_hw_nop_batch(hw, &batch);
	if (ret)
		return ret;
	{
		struct hw_arg ha = {.dev = hw->dev, .batch = batch};
		const struct nop_target t = {.submit = hw_submit, .arg = &ha};

		/* The warm-up also pays for binding and context setup. */
		ret = nop_loops(run, &t, m, NULL, NULL);
	}
	ttm_bo_put(&batch->tbo);
	if (ret && hw_gpu_is_wedged(hw->gpu))
		fprintf(stderr, "benchmark-exec-nop: the GPU is wedged\n");
	return ret;
}

#endif /* TTM_HAVE_LIBDRM */

int main(int argc, char **argv)
{
	struct nop_opts o = {0};
	struct nop_metrics m;
	struct bench_run run;
	bool hw;
	int ret;

	bench_hw_init(&o.gpu);
	ret = bench_setup(&run, "exec-nop", argc, argv, nop_extra, &o);
	if (ret)
		return bench_exit_code(ret);
	hw = run.opts.backend == BENCH_BACKEND_HW;
	if (o.gpu.device && !hw) {
		fprintf(stderr, "%s: --device needs --backend=hw\n", argv[0]);
		bench_run_fini(&run);
		return 2;
	}
	if (o.duration_ms)
		m.budget_ns = (uint64_t)o.duration_ms * 1000000ull;
	else if (run.opts.duration_set)
		m.budget_ns = (uint64_t)(run.opts.duration_s * 1e9);
	else
		m.budget_ns = (run.opts.quick ? 50ull : 200ull) * 1000000ull;
	if (hw) {
		ret = bench_hw_open(&run, &o.gpu, NULL);
		if (ret)
			return bench_hw_exit(&run, &o.gpu, "benchmark-exec-nop", ret);
	}
	bench_run_param(&run, "backend", "%s", hw ? "hw" : "sim");
	bench_run_param(&run, "engine", "%s", "rcs");
	bench_run_param(&run, "duration_ms", "%llu",
			(unsigned long long)(m.budget_ns / 1000000ull));
	if (!hw)
		bench_run_backend_param(&run, "latency_model", "%s", "off");
	ret = bench_references_measure(&run);
	if (ret)
		fprintf(stderr, "benchmark-exec-nop: a reference failed (%d)\n", ret);
	ret = nop_metrics_add(&run, !hw, &m);
	if (!ret && !hw)
		ret = sim_measure(&run, &m);
#if TTM_HAVE_LIBDRM
	if (!ret && hw)
		ret = hw_measure(&run, &o.gpu, &m);
#endif
	/* -EBUSY would mean a BO outlived us; bench_hw then leaves the GPU open. */
	if (hw && bench_hw_close(&o.gpu) && !ret)
		ret = -EBUSY;
	if (ret) {
		fprintf(stderr, "benchmark-exec-nop: failed (%s)\n", strerror(-ret));
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
