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
 * One code path on every back end: the driver over --backend's back end
 * (i915_device_create()), a context on a VM of its own, and the batch a
 * page of back-end memory at a fixed address, each submission one
 * i915_request_submit_objects(). The sim binds the page in its ppGTT and
 * writes the ring; hw softpins it in one execbuffer2 with an out-fence.
 * exec_nop.execbuf needs driver GEM objects in the VM, which only the sim
 * runs (hw: the kernel owns the page tables).
 *
 * Options: the harness's (bench/lib: --reps, --warmup, --quick, --out,
 * --cpus, --backend=sim|hw, --seed), --device PATH (hw; default
 * $TTM_HW_DEVICE, else the first i915 render node) and --duration-ms N, the
 * time budget of each loop in a repetition (default 200; 50 with --quick;
 * --duration S sets it in seconds). Without a usable Intel render node
 * --backend=hw prints "benchmark-exec-nop: SKIP: <reason>" and exits 77.
 * Links the harness and i915_device_dep.
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
#include <i915/i915_drv.h>
#include <i915/i915_gem.h>

#include <bench.h>

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
 * @device: the --device value, or NULL.
 * @duration_ms: --duration-ms, 0 when not given.
 */
struct nop_opts {
	const char *device;
	unsigned int duration_ms;
};

static int opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct nop_opts *o = ctx;

	/* Render node paths are short (/dev/dri/renderD128): refuse what cannot be one. */
	if (!arg || !*arg || strlen(arg) >= 64) {
		snprintf(err, errlen, "expected a render node path, got '%.64s'", arg ? arg : "");
		return -EINVAL;
	}
	o->device = arg;
	return 0;
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

/**
 * struct nop_dev - the device of a run: the same objects on every back end.
 * @i915: the driver, over --backend's back end.
 * @ctx: a context on a VM of its own, where the batch sits.
 * @batch: the batch memory (one page holding MI_BATCH_BUFFER_END).
 * @engine: the render engine.
 */
struct nop_dev {
	struct i915_device *i915;
	struct i915_context *ctx;
	struct i915_mem *batch;
	struct i915_engine *engine;
};

/* Where the batch sits in the VM: any page-aligned address will do. */
#define NOP_BATCH_ADDR 0x100000ull

static int nop_submit(void *arg, struct dma_fence **fence)
{
	struct nop_dev *d = arg;
	const struct i915_request_object obj = {.mem = d->batch, .gpu_addr = NOP_BATCH_ADDR};
	const struct i915_request_args args = {
	    .ctx = d->ctx, .batch = NOP_BATCH_ADDR, .objects = &obj, .nobjects = 1};

	return i915_request_submit_objects(d->engine, &args, fence);
}

static void nop_describe(void *data, const char *key, const char *value)
{
	char k[48];

	snprintf(k, sizeof(k), "gpu.%s", key);
	bench_run_backend_param(data, k, "%s", value);
}

static void nop_dev_fini(struct nop_dev *d)
{
	i915_mem_destroy(d->i915, d->batch);
	i915_context_put(d->ctx);
	if (d->i915) {
		i915_gem_fini(d->i915);
		i915_device_destroy(d->i915);
	}
}

/*
 * The device, GEM, a context on a VM of its own and the batch. Return 0 or a
 * negative errno (a skip reason for hw in @cfg->why).
 */
static int nop_dev_init(struct nop_dev *d, const struct i915_device_config *cfg)
{
	int ret;

	memset(d, 0, sizeof(*d));
	ret = i915_device_create(cfg, &d->i915);
	if (ret)
		return ret;
	ret = i915_gem_init(d->i915);
	if (!ret)
		ret = i915_context_create_vm(d->i915, &d->ctx);
	if (!ret)
		ret = i915_mem_create(d->i915, 4096, &d->batch);
	if (!ret) {
		i915_emit_bb_end(i915_mem_cpu(d->i915, d->batch));
		d->engine = i915_engine_get(d->i915, I915_ENGINE_RCS);
	}
	return ret;
}

/*
 * The loops on @d; with @execbuf also the GEM execbuffer loop (a driver GEM
 * object, which only a back end whose page tables the driver writes can
 * run). Return 0 or a negative errno.
 */
static int nop_measure(struct bench_run *run, struct nop_dev *d, struct nop_metrics *m,
		       bool execbuf)
{
	const struct nop_target t = {.submit = nop_submit, .arg = d};
	struct i915_gem_object *bobj = NULL;
	int ret = 0;

	if (execbuf) {
		uint32_t end = MI_BATCH_BUFFER_END;

		ret = i915_gem_object_create(d->i915, 4096, I915_GEM_REGION_SMEM, &bobj);
		if (!ret)
			ret = i915_gem_object_access(bobj, 0, &end, 4, true);
	}
	/* The warm-up also pays for binding and context setup. */
	if (!ret)
		ret = nop_loops(run, &t, m, d->i915, bobj);
	if (bobj)
		i915_gem_object_put(bobj);
	return ret;
}

int main(int argc, char **argv)
{
	struct nop_opts o = {0};
	struct i915_device_config cfg;
	struct nop_metrics m;
	struct bench_run run;
	struct nop_dev d;
	char why[160] = "";
	bool hw;
	int ret;

	ret = bench_setup(&run, "exec-nop", argc, argv, nop_extra, &o);
	if (ret)
		return bench_exit_code(ret);
	hw = run.opts.backend == BENCH_BACKEND_HW;
	if (o.device && !hw) {
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
	i915_device_config_init(&cfg, hw ? I915_BACKEND_HW : I915_BACKEND_SIM);
	cfg.ggtt_size = 256ull << 20;
	cfg.aperture_size = 64ull << 20;
	cfg.device = o.device;
	cfg.why = why;
	cfg.why_len = sizeof(why);
	ret = nop_dev_init(&d, &cfg);
	if (ret && !d.i915) {
		bool skip = ret == -ENODEV || ret == -EOPNOTSUPP || ret == -EACCES;

		fprintf(stderr, "benchmark-exec-nop: %s%s\n", skip ? "SKIP: " : "",
			why[0] ? why : strerror(-ret));
		bench_run_fini(&run);
		return skip ? 77 : 1;
	}
	bench_run_param(&run, "backend", "%s", hw ? "hw" : "sim");
	bench_run_param(&run, "engine", "%s", "rcs");
	bench_run_param(&run, "duration_ms", "%llu",
			(unsigned long long)(m.budget_ns / 1000000ull));
	if (d.i915)
		i915_device_describe(d.i915, nop_describe, &run);
	if (!ret) {
		ret = bench_references_measure(&run);
		if (ret)
			fprintf(stderr, "benchmark-exec-nop: a reference failed (%d)\n", ret);
		ret = nop_metrics_add(&run, !hw, &m);
	}
	if (!ret)
		ret = nop_measure(&run, &d, &m, !hw);
	nop_dev_fini(&d);
	if (ret) {
		fprintf(stderr, "benchmark-exec-nop: failed (%s)\n", strerror(-ret));
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
