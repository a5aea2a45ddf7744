// SPDX-License-Identifier: MIT
/*
 * benchmark-fence: the core fence paths against references measured in the
 * same run.
 *
 *  create+signal+put   M fences/s, single thread; reference: an uncontended
 *                      pthread mutex lock+unlock (ns), ratio = fence ns / mutex ns
 *  wait on signalled   ns per dma_fence_wait_timeout() on a signalled fence;
 *                      ratio to the same mutex reference
 *  signal-to-wake      ns from dma_fence_signal() on one thread to the waiter
 *                      returning on another, per round trip of two fences;
 *                      reference: a bare futex ping-pong round trip between two
 *                      threads, ratio = fence / futex
 *
 *  callbacks          fence.callbacks.n1 / .n1000: ns per callback run inside
 *                      dma_fence_signal() with 1 or 1000 queued (vs mutex)
 *  waiters            fence.waiters.n1 / .n1000.last_wake: ns from the signal
 *                      to the last of 1 or 1000 blocked waiters running again,
 *                      and .per_waiter (divided by 1000) against 2x the
 *                      single-waiter figure (vs futex round trip); 100 with
 *                      --quick
 *  threads sweep      fence.<case>.t<N>.throughput: fences/s of create + signal
 *                      + wait (already signalled) + put summed over N pinned
 *                      threads, N = 1 .. --threads (default: one per logical
 *                      CPU), each on its own context (case many_ctx) or all on
 *                      one shared context (one_ctx); beside each, the same
 *                      figure as ns per fence per thread against a
 *                      clock_gettime(CLOCK_MONOTONIC): the signal's
 *                      timestamp is one, and on a paravirtual clock it is
 *                      the largest single cost of the cycle (28 of ~50 ns
 *                      on a PVM guest), so the ratio says how many clock
 *                      reads a fence costs where the rate alone cannot
 *  uAPI path          fence.uapi.t1.ns_per_fence: FENCE_CREATE with EMIT,
 *                      FENCE_FLUSH (the bench driver signals there),
 *                      FENCE_SIGNALED, FENCE_WAIT, FENCE_UNREFERENCE through
 *                      ttm_drm_ioctl() on a bench driver device, one thread
 *                      (vs mutex); fence.uapi.t1.over_core: the same divided
 *                      by the core path's emit+signal+wait+put measured in
 *                      the alternating repetition (the reference the issue
 *                      asks for, which the harness has no slot for)
 *
 * Every figure is sampled over --reps repetitions after one warm-up and
 * reported by the harness (median, spread, bootstrap CI, JSON results file,
 * summary with ratio and target). The two round trips are measured in
 * alternating repetitions.
 *
 * --backend=hw [--device PATH] replaces all of the above by a real Intel
 * GPU's fences (bench_hw.h; without an i915 render node, or built without
 * libdrm, it prints "SKIP: <reason>" and exits 77):
 *  fence.hw.nop.submit_to_signal  ns from hw_ttm_exec() of an empty batch
 *                      to dma_fence_wait_timeout() returning, one batch at a
 *                      time (histogram); reference: the futex round trip
 *  fence.hw.ioctl_getparam  ns per I915_GETPARAM, the floor of any i915
 *                      call, against a plain syscall
 *  fence.hw.nop.t<N>.throughput / .ns_per_fence  fences/s summed over N =
 *                      1 .. --threads threads, each submitting and waiting
 *                      for its own batch; per-thread ns against the futex
 * The machine block records the GPU (gpu.pci_id, gpu.driver, ...).
 */
#include <ttm/dma_fence.h>
#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

#include <testlib/fence_queue.h>

/*
 * The uAPI's request numbers, taken while ttm_drm.h's DRM_IO* macros are in
 * force: libdrm's drm.h (through i915_drm.h below) defines the same macros
 * differently, so they are dropped before it comes in.
 */
static const unsigned long ub_ioc_create = DRM_IOCTL_FENCE_CREATE;
static const unsigned long ub_ioc_flush = DRM_IOCTL_FENCE_FLUSH;
static const unsigned long ub_ioc_signaled = DRM_IOCTL_FENCE_SIGNALED;
static const unsigned long ub_ioc_wait = DRM_IOCTL_FENCE_WAIT;
static const unsigned long ub_ioc_unref = DRM_IOCTL_FENCE_UNREFERENCE;
#undef DRM_IO
#undef DRM_IOR
#undef DRM_IOW
#undef DRM_IOWR

#include <bench.h>
#include <bench_hw.h>

#include "ttm_config.h"

#if TTM_HAVE_LIBDRM
#include <i915_drm.h>

#include "hw_gpu.h"
#include "hw_ttm.h"
#endif

#include <errno.h>

#define BENCH_MAX_REPS_LOCAL 256
#include <stdatomic.h>
#include <stdbool.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *bname(struct dma_fence *f)
{
	(void)f;
	return "bench";
}

static const struct dma_fence_ops bops = {.get_driver_name = bname, .get_timeline_name = bname};

/* --- the measured operations, each returning ns per operation --- */

/*
 * ns per alloc+init+signal+put of one fence on one thread. @full adds what
 * the threads sweep and the uAPI path do: the signal takes its clock
 * reading (else it is given timestamp 0) and a wait on the signalled fence.
 */
static double fence_cycle(unsigned long iters, bool full)
{
	uint64_t ctx = dma_fence_context_alloc(1);
	uint64_t t0 = testlib_now_raw_ns();

	for (unsigned long i = 0; i < iters; i++) {
		struct dma_fence *f = dma_fence_alloc(sizeof(*f));

		if (!f)
			return -1;
		dma_fence_init(f, &bops, ctx, i + 1);
		if (!full) {
			dma_fence_signal_timestamp(f, 0);
		} else {
			dma_fence_signal(f);
			if (dma_fence_wait_timeout(f, false, 1000) <= 0) {
				dma_fence_put(f);
				return -1;
			}
		}
		dma_fence_put(f);
	}
	return (double)(testlib_now_raw_ns() - t0) / (double)iters;
}

static double rep_create_signal_put(unsigned long iters)
{
	return fence_cycle(iters, false);
}

static double rep_wait_signaled(unsigned long iters)
{
	struct dma_fence *f = dma_fence_allocate_private_stub(0);
	int64_t sum = 0;
	uint64_t t0;

	if (!f)
		return -1;
	t0 = testlib_now_raw_ns();
	for (unsigned long i = 0; i < iters; i++)
		sum += dma_fence_wait_timeout(f, false, 1000);
	t0 = testlib_now_raw_ns() - t0;
	dma_fence_put(f);
	return sum > 0 ? (double)t0 / (double)iters : -1;
}

/* Futex ping-pong: the bare kernel round trip the fence wake is built on. */
struct pingpong {
	atomic_uint word;
	unsigned long iters;
};

static void futex_wait(atomic_uint *w, unsigned v)
{
	syscall(SYS_futex, (unsigned *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *w)
{
	syscall(SYS_futex, (unsigned *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *pong_thread(void *p)
{
	struct pingpong *pp = p;

	for (unsigned long i = 0; i < pp->iters; i++) {
		unsigned want = 2 * (unsigned)i + 1;

		while (atomic_load(&pp->word) != want)
			futex_wait(&pp->word, want - 1);
		atomic_store(&pp->word, want + 1);
		futex_wake(&pp->word);
	}
	return NULL;
}

static double rep_futex_rtt(unsigned long iters)
{
	struct pingpong pp = {.word = 0, .iters = iters};
	pthread_t t;
	uint64_t t0;

	pthread_create(&t, NULL, pong_thread, &pp);
	t0 = testlib_now_raw_ns();
	for (unsigned long i = 0; i < iters; i++) {
		unsigned v = 2 * (unsigned)i;

		atomic_store(&pp.word, v + 1);
		futex_wake(&pp.word);
		while (atomic_load(&pp.word) != v + 2)
			futex_wait(&pp.word, v + 1);
	}
	t0 = testlib_now_raw_ns() - t0;
	pthread_join(t, NULL);
	return (double)t0 / (double)iters;
}

/* Fence ping-pong: signal a fence the other thread waits on, and back. */
struct fence_pp {
	struct dma_fence **ping, **pong;
	unsigned long iters;
};

static void *fence_pong(void *p)
{
	struct fence_pp *pp = p;

	for (unsigned long i = 0; i < pp->iters; i++) {
		dma_fence_wait_timeout(pp->ping[i], false, MAX_SCHEDULE_TIMEOUT);
		dma_fence_signal(pp->pong[i]);
	}
	return NULL;
}

static double rep_fence_rtt(unsigned long iters)
{
	struct fence_pp pp = {.iters = iters};
	uint64_t ctx = dma_fence_context_alloc(2);
	pthread_t t;
	uint64_t t0;

	pp.ping = calloc(iters, sizeof(*pp.ping));
	pp.pong = calloc(iters, sizeof(*pp.pong));
	for (unsigned long i = 0; i < iters; i++) {
		pp.ping[i] = dma_fence_alloc(sizeof(struct dma_fence));
		pp.pong[i] = dma_fence_alloc(sizeof(struct dma_fence));
		dma_fence_init(pp.ping[i], &bops, ctx, i + 1);
		dma_fence_init(pp.pong[i], &bops, ctx + 1, i + 1);
	}
	pthread_create(&t, NULL, fence_pong, &pp);
	t0 = testlib_now_raw_ns();
	for (unsigned long i = 0; i < iters; i++) {
		dma_fence_signal(pp.ping[i]);
		dma_fence_wait_timeout(pp.pong[i], false, MAX_SCHEDULE_TIMEOUT);
	}
	t0 = testlib_now_raw_ns() - t0;
	pthread_join(t, NULL);
	for (unsigned long i = 0; i < iters; i++) {
		dma_fence_put(pp.ping[i]);
		dma_fence_put(pp.pong[i]);
	}
	free(pp.ping);
	free(pp.pong);
	return (double)t0 / (double)iters;
}

/*
 * Threads sweep, shared by the core and the hw cases. Workers run for a
 * fixed time rather than a fixed count, so a slow thread cannot stretch the
 * window of the others and the sum of their counts is a rate over one
 * interval. They start together at a gate: each checks in, and the main
 * thread opens the gate once every thread that it could create has checked
 * in. A gate counts the threads that exist, where a barrier needs the number
 * fixed beforehand and blocks forever when fewer threads started.
 */
struct sweep;

/*
 * One worker's timed loop: runs until sw->stop, sets *@ops to the operations
 * it completed; returns 0 or a negative errno (the repetition then fails).
 */
typedef int (*sweep_body_fn)(struct sweep *sw, unsigned index, unsigned long *ops);

struct sweep {
	struct bench_run *run;
	sweep_body_fn body;
	void *arg; /* the case's own state, for @body */
	atomic_bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* @ready went up, or @open was set */
	unsigned ready;	     /* workers at the gate; protected by @lock */
	bool open;	     /* protected by @lock */
};

struct sweep_worker {
	struct sweep *sw;
	unsigned index;
	unsigned long ops;
	int err;
	pthread_t thread;
};

static void *sweep_thread(void *p)
{
	struct sweep_worker *w = p;
	struct sweep *sw = w->sw;

	bench_pin_thread(sw->run, w->index);
	pthread_mutex_lock(&sw->lock);
	sw->ready++;
	pthread_cond_broadcast(&sw->cond);
	while (!sw->open)
		pthread_cond_wait(&sw->cond, &sw->lock);
	pthread_mutex_unlock(&sw->lock);
	w->err = sw->body(sw, w->index, &w->ops);
	return NULL;
}

/*
 * One repetition: @body on @nthreads threads for @secs; *@rate is the sum of
 * their operations per second. -EAGAIN when not every thread could be
 * created (those that were are released at once and joined).
 */
static int sweep_rep(struct bench_run *run, sweep_body_fn body, void *arg, unsigned nthreads,
		     double secs, double *rate)
{
	struct sweep sw = {.run = run, .body = body, .arg = arg};
	struct sweep_worker *w = calloc(nthreads, sizeof(*w));
	unsigned long total = 0;
	unsigned started = 0;
	uint64_t t0, t1;
	int rc = 0;

	if (!w)
		return -ENOMEM;
	atomic_init(&sw.stop, false);
	pthread_mutex_init(&sw.lock, NULL);
	pthread_cond_init(&sw.cond, NULL);
	for (; started < nthreads; started++) {
		w[started].sw = &sw;
		w[started].index = started;
		if (pthread_create(&w[started].thread, NULL, sweep_thread, &w[started]))
			break;
	}
	if (started < nthreads) {
		/* The ones that started find the stop flag set and return. */
		atomic_store(&sw.stop, true);
		rc = -EAGAIN;
	}
	pthread_mutex_lock(&sw.lock);
	while (sw.ready < started)
		pthread_cond_wait(&sw.cond, &sw.lock);
	sw.open = true;
	pthread_cond_broadcast(&sw.cond);
	pthread_mutex_unlock(&sw.lock);
	t0 = testlib_now_raw_ns();
	while (!rc && testlib_now_raw_ns() - t0 < (uint64_t)(secs * 1e9)) {
		struct timespec ts = {0, 2000000};

		nanosleep(&ts, NULL);
	}
	atomic_store(&sw.stop, true);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].ops;
		if (w[i].err && !rc)
			rc = w[i].err;
	}
	t1 = testlib_now_raw_ns();
	pthread_cond_destroy(&sw.cond);
	pthread_mutex_destroy(&sw.lock);
	free(w);
	if (!rc)
		*rate = (double)total / ((double)(t1 - t0) * 1e-9);
	return rc;
}

static bool sweep_stopped(struct sweep *sw)
{
	return atomic_load_explicit(&sw->stop, memory_order_relaxed);
}

/* The core case: every thread on its own context (many_ctx) or on one shared. */
struct core_sweep {
	bool shared_ctx;
	uint64_t ctx;	    /* the shared context (one_ctx) */
	atomic_ulong seqno; /* next seqno on the shared context */
};

static int core_sweep_body(struct sweep *sw, unsigned index, unsigned long *ops)
{
	struct core_sweep *cs = sw->arg;
	uint64_t ctx = cs->shared_ctx ? cs->ctx : dma_fence_context_alloc(1);
	unsigned long n = 0;
	int err = 0;

	(void)index;
	while (!sweep_stopped(sw)) {
		/* Check the stop flag only every 256 fences: it is a shared line. */
		for (unsigned k = 0; k < 256; k++) {
			struct dma_fence *f = dma_fence_alloc(sizeof(*f));
			uint64_t seq = cs->shared_ctx ? atomic_fetch_add(&cs->seqno, 1) + 1 : n + 1;

			if (!f) {
				*ops = n;
				return -ENOMEM;
			}
			dma_fence_init(f, &bops, ctx, seq);
			dma_fence_signal(f);
			if (dma_fence_wait_timeout(f, false, 1000) <= 0)
				err = -EIO;
			dma_fence_put(f);
			n++;
		}
	}
	*ops = n;
	return err;
}

/**
 * sweep_point - one point of a threads sweep: two metrics, sampled.
 * @name: the case, as in fence.<name>.t<threads>.throughput.
 * @ref: the reference of the per-thread cost (a rate has no same-unit
 *	reference of its own; threads / rate, ns per fence per thread, has).
 * @warmup_secs: one unmeasured repetition this long first, or 0 for none.
 * @tp: if not NULL, set to the throughput metric (for a target).
 *
 * Returns 0 or a negative errno from sweep_rep() or the harness.
 */
static int sweep_point(struct bench_run *run, const char *name, unsigned threads,
		       enum bench_ref_id ref, sweep_body_fn body, void *arg, double secs,
		       double warmup_secs, struct bench_metric **tp_out)
{
	struct bench_metric *tp, *per;
	char mname[96], lbl[16];
	double rate = 0;
	int rc = 0;

	snprintf(mname, sizeof(mname), "fence.%s.t%u.throughput", name, threads);
	tp = bench_metric_add(run, mname, "fences/s", BENCH_HIGHER_IS_BETTER);
	snprintf(mname, sizeof(mname), "fence.%s.t%u.ns_per_fence", name, threads);
	per = bench_metric_add(run, mname, "ns", BENCH_LOWER_IS_BETTER);
	if (!tp || !per)
		return -ENOMEM;
	snprintf(lbl, sizeof(lbl), "%u", threads);
	bench_metric_label(tp, "threads", lbl);
	bench_metric_label(per, "threads", lbl);
	bench_metric_label(per, "unit", "threads / throughput: ns per fence per thread");
	bench_metric_reference(per, ref, BENCH_RATIO_VALUE_OVER_REF);
	if (tp_out)
		*tp_out = tp;
	if (warmup_secs > 0)
		rc = sweep_rep(run, body, arg, threads, warmup_secs, &rate);
	for (unsigned r = 0; !rc && r < run->opts.reps; r++) {
		rc = sweep_rep(run, body, arg, threads, secs, &rate);
		if (!rc && rate <= 0)
			rc = -EIO;
		if (!rc)
			rc = bench_metric_sample(tp, rate);
		if (!rc)
			rc = bench_metric_sample(per, 1e9 * (double)threads / rate);
	}
	return rc;
}

/* Both core cases at 1 .. @max_threads threads, against the clock read. */
static int sweep_all(struct bench_run *run, unsigned max_threads, double secs)
{
	static const char *const cases[] = {"many_ctx", "one_ctx"};

	for (unsigned c = 0; c < 2; c++) {
		for (unsigned t = 1; t <= max_threads; t++) {
			struct core_sweep cs = {.shared_ctx = c == 1};
			struct bench_metric *tp;
			int rc;

			cs.ctx = dma_fence_context_alloc(1);
			atomic_init(&cs.seqno, 0);
			bench_progress(run, "threads sweep",
				       (double)(c * max_threads + t - 1) /
					   (double)(2 * max_threads));
			rc = sweep_point(run, cases[c], t, BENCH_REF_CLOCK, core_sweep_body, &cs,
					 secs, secs / 4, &tp);
			if (rc)
				return rc;
			if (t == 1)
				bench_metric_target(tp, 20e6, BENCH_TARGET_AT_LEAST);
		}
	}
	bench_progress_done(run);
	return 0;
}

/*
 * Callbacks against blocking waiters on one fence. Callbacks: ns from the
 * start of dma_fence_signal() to its return with @n callbacks queued (they
 * all run inside it), per callback. Waiters: @n threads block in
 * dma_fence_wait_timeout() on the same fence; ns from the signal to the last
 * one running again, the wake-up storm the 1000-waiter target is about.
 */
static atomic_ulong cb_count;

static void count_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	(void)f;
	(void)cb;
	atomic_fetch_add_explicit(&cb_count, 1, memory_order_relaxed);
}

static double rep_callbacks(unsigned n, unsigned rounds)
{
	struct dma_fence_cb *cbs = calloc(n, sizeof(*cbs));
	uint64_t ctx = dma_fence_context_alloc(1), total = 0;

	if (!cbs)
		return -1;
	for (unsigned r = 0; r < rounds; r++) {
		struct dma_fence f;
		uint64_t t0;

		dma_fence_init(&f, &bops, ctx, r + 1);
		for (unsigned k = 0; k < n; k++)
			dma_fence_add_callback(&f, &cbs[k], count_cb);
		t0 = testlib_now_raw_ns();
		dma_fence_signal(&f);
		total += testlib_now_raw_ns() - t0;
	}
	free(cbs);
	return (double)total / ((double)rounds * n);
}

/*
 * @done is also a futex word: the waiter whose count reaches @want wakes the
 * main thread, which sleeps on it rather than polling with sched_yield(),
 * since a poller takes one of the two CPUs from the waiters it is timing.
 */
struct storm {
	struct dma_fence **fences;
	unsigned rounds;
	atomic_uint arrived, done, want;
	_Atomic uint64_t last_wake;
};

static void *storm_waiter(void *p)
{
	struct storm *st = p;

	for (unsigned r = 0; r < st->rounds; r++) {
		uint64_t now, prev;

		atomic_fetch_add(&st->arrived, 1);
		dma_fence_wait_timeout(st->fences[r], false, MAX_SCHEDULE_TIMEOUT);
		now = testlib_now_raw_ns();
		prev = atomic_load(&st->last_wake);
		while (now > prev && !atomic_compare_exchange_weak(&st->last_wake, &prev, now))
			;
		if (atomic_fetch_add(&st->done, 1) + 1 == atomic_load(&st->want))
			futex_wake(&st->done);
	}
	return NULL;
}

/* ns from signal to the last of @n waiters awake, median-free mean over @rounds. */
static double rep_waiters(unsigned n, unsigned rounds)
{
	struct storm st = {.rounds = rounds};
	pthread_t *t = calloc(n, sizeof(*t));
	uint64_t ctx = dma_fence_context_alloc(1), total = 0;
	unsigned started = 0;
	bool ok = true;

	st.fences = calloc(rounds, sizeof(*st.fences));
	if (!t || !st.fences) {
		free(t);
		free(st.fences);
		return -1;
	}
	atomic_init(&st.arrived, 0);
	atomic_init(&st.done, 0);
	atomic_init(&st.want, 0);
	atomic_init(&st.last_wake, 0);
	for (unsigned r = 0; r < rounds; r++) {
		st.fences[r] = dma_fence_alloc(sizeof(struct dma_fence));
		if (!st.fences[r]) {
			ok = false;
			rounds = st.rounds = r;
			break;
		}
		dma_fence_init(st.fences[r], &bops, ctx, r + 1);
	}
	for (; ok && started < n; started++)
		if (pthread_create(&t[started], NULL, storm_waiter, &st))
			break;
	if (started < n) {
		/* Too few threads: let the ones running finish, report a failure. */
		ok = false;
		n = started;
	}
	for (unsigned r = 0; r < rounds; r++) {
		struct timespec ts = {0, 200000};
		uint64_t t0;

		/* Every waiter has called wait; give the last ones time to sleep. */
		while (atomic_load(&st.arrived) < (r + 1) * n)
			sched_yield();
		nanosleep(&ts, NULL);
		/* Before the signal: no waiter counts this round until then. */
		atomic_store(&st.want, (r + 1) * n);
		t0 = testlib_now_raw_ns();
		dma_fence_signal(st.fences[r]);
		for (unsigned v; (v = atomic_load(&st.done)) < (r + 1) * n;)
			futex_wait(&st.done, v);
		total += atomic_load(&st.last_wake) - t0;
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (unsigned r = 0; r < rounds; r++)
		dma_fence_put(st.fences[r]);
	free(st.fences);
	free(t);
	return ok && rounds ? (double)total / rounds : -1;
}

#if TTM_HAVE_LIBDRM
/*
 * --backend=hw: fences of a real GPU. Every figure comes from empty batches
 * (MI_BATCH_BUFFER_END) submitted through hw_ttm_exec(), so a fence here is
 * the whole path a driver's fence takes: reserve + validate into TT,
 * execbuffer2 with an out-fence, the GPU running the batch, the sync_file
 * polling readable and the waiter thread signalling our dma_fence.
 */

/* A GPU fence that takes longer than this is a hung GPU, not a figure. */
#define HW_FENCE_TIMEOUT_NS 2000000000LL

/* One empty batch submitted and waited for. */
static int hw_nop_once(struct bench_hw *hw, struct hw_ttm_bo *batch)
{
	return bench_hw_exec_wait(hw, NULL, 0, batch, HW_FENCE_TIMEOUT_NS);
}

/* The hw case's state: one batch BO per submitting thread. */
struct hw_sweep {
	struct bench_hw *hw;
	struct hw_ttm_bo **batches; /* one per thread */
};

static int hw_sweep_body(struct sweep *sw, unsigned index, unsigned long *ops)
{
	struct hw_sweep *hs = sw->arg;
	unsigned long n = 0;
	int err = 0;

	while (!err && !sweep_stopped(sw)) {
		err = hw_nop_once(hs->hw, hs->batches[index]);
		n++;
	}
	*ops = err ? 0 : n;
	return err;
}

static int hw_figures(struct bench_run *run, struct bench_hw *hw, struct hw_ttm_bo **batches,
		      unsigned max_threads)
{
	unsigned reps = run->opts.reps, per_rep = run->opts.quick ? 200 : 2000;
	struct bench_metric *lat, *ioctl_rtt;
	int rc, v;

	/*
	 * Latency: one batch at a time from submission to our fence waking
	 * the waiter, each batch a histogram value; against the futex round
	 * trip (the floor of any cross-thread wake-up, which the sync_file
	 * waiter adds) and beside it the bare I915_GETPARAM ioctl (the floor
	 * of any call into i915) against a plain syscall.
	 */
	lat = bench_metric_add(run, "fence.hw.nop.submit_to_signal", "ns", BENCH_LOWER_IS_BETTER);
	ioctl_rtt = bench_metric_add(run, "fence.hw.ioctl_getparam", "ns", BENCH_LOWER_IS_BETTER);
	if (!lat || !ioctl_rtt || bench_metric_use_hist(lat))
		return -ENOMEM;
	bench_metric_reference(lat, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(ioctl_rtt, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	for (unsigned i = 0; i < per_rep / 4; i++) {
		rc = hw_nop_once(hw, batches[0]);
		if (rc)
			return rc;
	}
	for (unsigned r = 0; r < reps; r++) {
		uint64_t t0 = testlib_now_raw_ns(), t1;

		for (unsigned i = 0; i < per_rep; i++) {
			rc = hw_gpu_getparam(hw->gpu, I915_PARAM_CHIPSET_ID, &v);
			if (rc)
				return rc;
		}
		t1 = testlib_now_raw_ns();
		if (bench_metric_sample(ioctl_rtt, (double)(t1 - t0) / per_rep))
			return -ENOMEM;
		for (unsigned i = 0; i < per_rep; i++) {
			t0 = testlib_now_raw_ns();
			rc = hw_nop_once(hw, batches[0]);
			if (rc)
				return rc;
			if (bench_metric_record(lat, testlib_now_raw_ns() - t0))
				return -ENOMEM;
		}
		bench_progress(run, "hw latency", (double)(r + 1) / reps);
	}
	bench_progress_done(run);

	/* Throughput against the number of submitting threads. */
	bench_run_param(run, "sweep_threads", "1-%u", max_threads);
	for (unsigned t = 1; t <= max_threads; t++) {
		/*
		 * Each thread submits its own batch BO and waits for it before
		 * the next, so the rate is what concurrent submit-and-wait
		 * clients get, not queue depth.
		 */
		struct hw_sweep hs = {.hw = hw, .batches = batches};

		rc = sweep_point(run, "hw.nop", t, BENCH_REF_FUTEX_RTT, hw_sweep_body, &hs,
				 run->opts.duration_s / 5, 0, NULL);
		if (rc)
			return rc;
		bench_progress(run, "hw threads sweep", (double)t / max_threads);
	}
	bench_progress_done(run);
	return 0;
}

/* The whole --backend=hw run; returns main()'s exit status. */
static int hw_main(struct bench_run *run, struct bench_hw *hw)
{
	struct hw_ttm_bo **batches;
	unsigned max_threads, made = 0;
	int rc;

	rc = bench_hw_open(run, hw, NULL);
	if (rc)
		return bench_hw_exit(run, hw, "benchmark-fence", rc);
	max_threads = run->opts.threads_set ? run->opts.threads : run->machine.pus;
	if (max_threads < 1)
		max_threads = 1;
	bench_run_param(run, "path", "%s", "hw");
	bench_run_param(run, "batch", "%s", "nop");
	batches = calloc(max_threads, sizeof(*batches));
	rc = batches ? 0 : -ENOMEM;
	for (; !rc && made < max_threads; made++) {
		rc = bench_hw_nop_batch(hw, &batches[made]);
		if (rc)
			break;
	}
	if (!rc)
		rc = bench_references_measure(run);
	if (!rc) {
		bench_pin_thread(run, 0);
		rc = hw_figures(run, hw, batches, max_threads);
	}
	for (unsigned i = 0; i < made; i++)
		ttm_bo_put(&batches[i]->tbo);
	free(batches);
	if (bench_hw_close(hw))
		fprintf(stderr, "benchmark-fence: the TTM device still had BOs at close\n");
	if (rc) {
		fprintf(stderr, "benchmark-fence: --backend=hw: %s%s\n", strerror(-rc),
			rc == -EIO ? " (GPU wedged or batch killed by a reset)" : "");
		bench_run_fini(run);
		return 1;
	}
	return bench_run_finish(run);
}
#endif /* TTM_HAVE_LIBDRM */

/*
 * The uAPI path. A minimal driver under ttm_drm_device: fence_emit queues a
 * plain fence on the class's timeline, fence_flush signals what is queued,
 * which is where a 2008 driver would have asked the GPU for an interrupt.
 */
struct ub_dev {
	struct ttm_drm_device ddev;
	struct testlib_fence_queue fences;
};

static struct dma_fence *ub_fence_emit(struct ttm_drm_device *ddev, uint32_t fence_class,
				       uint32_t type, uint32_t *sequence)
{
	(void)type;
	return testlib_fence_queue_emit(&container_of(ddev, struct ub_dev, ddev)->fences,
					fence_class, sequence);
}

static void ub_fence_flush(struct ttm_drm_device *ddev, uint32_t fence_class, uint32_t type)
{
	(void)fence_class;
	(void)type;
	testlib_fence_queue_signal(&container_of(ddev, struct ub_dev, ddev)->fences, UINT32_MAX);
}

static const struct ttm_place ub_place_sys = {.mem_type = TTM_PL_SYSTEM};

static void ub_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	(void)bo;
	placement->num_placement = 1;
	placement->placement = &ub_place_sys;
}

static const struct ttm_device_funcs ub_funcs = {.evict_flags = ub_evict_flags};

static const struct ttm_drm_driver ub_driver = {
    .num_fence_classes = 1,
    .fence_emit = ub_fence_emit,
    .fence_flush = ub_fence_flush,
};

static struct ub_dev *ub_start(void)
{
	struct ub_dev *u = calloc(1, sizeof(*u));
	char name[48];

	if (!u)
		return NULL;
	testlib_fence_queue_init(&u->fences, ub_driver.num_fence_classes, &bops);
	/* The name registry is process wide: make ours unique. */
	snprintf(name, sizeof(name), "bench-fence-%ld", (long)getpid());
	if (ttm_drm_device_init(&u->ddev, &ub_funcs, &ub_driver, name, false)) {
		testlib_fence_queue_fini(&u->fences);
		free(u);
		return NULL;
	}
	return u;
}

static void ub_stop(struct ub_dev *u)
{
	testlib_fence_queue_signal(&u->fences, UINT32_MAX);
	if (ttm_drm_device_fini(&u->ddev))
		return; /* still referenced: leaking beats a use after free */
	testlib_fence_queue_fini(&u->fences);
	free(u);
}

/* ns per uAPI emit+signal+wait+unreference, or -1 on any failed ioctl. */
static double rep_uapi(int fd, unsigned long iters)
{
	uint64_t t0 = testlib_now_raw_ns();

	for (unsigned long i = 0; i < iters; i++) {
		struct drm_fence_arg a = {.type = DRM_FENCE_TYPE_EXE, .flags = DRM_FENCE_FLAG_EMIT};
		struct drm_fence_arg q;

		if (ttm_drm_ioctl(fd, ub_ioc_create, &a))
			return -1;
		q = (struct drm_fence_arg){.handle = a.handle, .type = DRM_FENCE_TYPE_EXE};
		if (ttm_drm_ioctl(fd, ub_ioc_flush, &q))
			return -1;
		q = (struct drm_fence_arg){.handle = a.handle, .type = DRM_FENCE_TYPE_EXE};
		if (ttm_drm_ioctl(fd, ub_ioc_signaled, &q) || !(q.signaled & DRM_FENCE_TYPE_EXE))
			return -1;
		q = (struct drm_fence_arg){.handle = a.handle, .type = DRM_FENCE_TYPE_EXE};
		if (ttm_drm_ioctl(fd, ub_ioc_wait, &q))
			return -1;
		q = (struct drm_fence_arg){.handle = a.handle};
		if (ttm_drm_ioctl(fd, ub_ioc_unref, &q))
			return -1;
	}
	return (double)(testlib_now_raw_ns() - t0) / (double)iters;
}

/* The core path the uAPI wraps, as in the threads sweep, ns per fence. */
static double rep_core_cycle(unsigned long iters)
{
	return fence_cycle(iters, true);
}

static int uapi_figures(struct bench_run *run, unsigned long iters, unsigned reps)
{
	struct bench_metric *ns, *over;
	struct ub_dev *u = ub_start();
	int fd, rc = 0;

	if (!u)
		return -ENOMEM;
	fd = ttm_drm_open(&u->ddev);
	if (fd < 0) {
		ub_stop(u);
		return fd;
	}
	ns = bench_metric_add(run, "fence.uapi.t1.ns_per_fence", "ns", BENCH_LOWER_IS_BETTER);
	over = bench_metric_add(run, "fence.uapi.t1.over_core", "x", BENCH_LOWER_IS_BETTER);
	if (!ns || !over) {
		rc = -ENOMEM;
		goto out;
	}
	bench_metric_reference(ns, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_label(ns, "path", "FENCE_CREATE(EMIT)+FLUSH+SIGNALED+WAIT+UNREFERENCE");
	bench_metric_label(over, "reference",
			   "core alloc+init+signal+wait+put, alternating repetitions");
	if (rep_uapi(fd, iters / 4 + 1) < 0 || rep_core_cycle(iters / 4 + 1) < 0) {
		rc = -EIO;
		goto out;
	}
	for (unsigned r = 0; r < reps && !rc; r++) {
		double core = rep_core_cycle(iters), v = rep_uapi(fd, iters);

		bench_progress(run, "uapi", (double)r / reps);
		if (core <= 0 || v < 0)
			rc = -EIO;
		if (!rc)
			rc = bench_metric_sample(ns, v);
		if (!rc)
			rc = bench_metric_sample(over, v / core);
	}
	bench_progress_done(run);
out:
	ttm_drm_close(fd);
	ub_stop(u);
	return rc;
}

/*
 * Samples of one figure, in ns per operation: @reps repetitions of @fn after
 * one warm-up, each a region of the instruction axis too.
 */
static int sample(struct bench_metric *m, double (*fn)(unsigned long), unsigned long iters,
		  unsigned reps)
{
	fn(iters / 4 + 1);
	for (unsigned r = 0; r < reps; r++) {
		double v;

		bench_icount_start();
		v = fn(iters);
		if (v < 0 || bench_metric_sample(m, v) || bench_icount_stop(m, iters))
			return -ENOMEM;
	}
	return 0;
}

static const struct bench_opt fence_opts[] = {
    BENCH_HW_OPT_DEVICE,
    {NULL, NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
	struct bench_hw hw;
	struct bench_run run;
	struct bench_metric *csp, *wait, *rtt;
	struct bench_reference *futex_ref;
	double futex_samples[BENCH_MAX_REPS_LOCAL];
	unsigned long scale;
	unsigned reps, max_threads;
	int rc;

	bench_hw_init(&hw);
	rc = bench_setup(&run, "fence", argc, argv, fence_opts, &hw);
	if (rc)
		return bench_exit_code(rc);
	reps = run.opts.reps;
	if (reps > BENCH_MAX_REPS_LOCAL) {
		fprintf(stderr, "benchmark-fence: --reps must be at most %d\n",
			BENCH_MAX_REPS_LOCAL);
		bench_run_fini(&run);
		return 2;
	}
	if (run.opts.backend == BENCH_BACKEND_HW) {
#if TTM_HAVE_LIBDRM
		return hw_main(&run, &hw);
#else
		return bench_hw_exit(&run, &hw, "benchmark-fence", bench_hw_open(&run, &hw, NULL));
#endif
	}
	scale = run.opts.quick ? 10 : 1;
	bench_run_param(&run, "path", "%s", "core");
	bench_run_param(&run, "threads", "%s", "1");
	rc = bench_references_measure(&run);
	if (rc) {
		fprintf(stderr, "benchmark-fence: measuring references failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	bench_pin_thread(&run, 0);

	/* 20 M/s is 50 ns per create+signal+put. */
	csp = bench_metric_add(&run, "fence.create_signal_put", "ns", BENCH_LOWER_IS_BETTER);
	wait = bench_metric_add(&run, "fence.wait_signalled", "ns", BENCH_LOWER_IS_BETTER);
	rtt = bench_metric_add(&run, "fence.signal_to_wake_rtt", "ns", BENCH_LOWER_IS_BETTER);
	if (!csp || !wait || !rtt) {
		bench_run_fini(&run);
		return 1;
	}
	if (sample(csp, rep_create_signal_put, 4000000 / scale, reps) ||
	    sample(wait, rep_wait_signaled, 10000000 / scale, reps)) {
		bench_run_fini(&run);
		return 1;
	}
	bench_metric_reference(csp, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(csp, 50.0, BENCH_TARGET_AT_MOST);
	bench_metric_reference(wait, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(wait, 20.0, BENCH_TARGET_AT_MOST);

	/*
	 * The round trip and its futex reference alternate repetitions, so
	 * whatever else the machine does weighs on both alike; the futex
	 * figures measured here replace the harness's own futex reference.
	 */
	rep_fence_rtt(50000 / scale / 4 + 1);
	rep_futex_rtt(50000 / scale / 4 + 1);
	for (unsigned r = 0; r < reps; r++) {
		futex_samples[r] = rep_futex_rtt(50000 / scale);
		if (bench_metric_sample(rtt, rep_fence_rtt(50000 / scale))) {
			bench_run_fini(&run);
			return 1;
		}
	}
	futex_ref = &run.refs[BENCH_REF_FUTEX_RTT];
	if (bench_stats_compute(futex_samples, reps, run.opts.seed, &futex_ref->stats) == 0)
		futex_ref->measured = true;
	bench_metric_reference(rtt, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(rtt, 1.5 * futex_ref->stats.median, BENCH_TARGET_AT_MOST);
	bench_metric_label(rtt, "target", "<= 1.5x futex round trip");

	{
		unsigned many = run.opts.quick ? 100 : 1000, rounds = run.opts.quick ? 5 : 20;
		struct bench_metric *cb1, *cbn, *w1, *wn, *wper;
		char name[64];

		cb1 = bench_metric_add(&run, "fence.callbacks.n1", "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "fence.callbacks.n%u", many);
		cbn = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		w1 = bench_metric_add(&run, "fence.waiters.n1.last_wake", "ns",
				      BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "fence.waiters.n%u.last_wake", many);
		wn = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "fence.waiters.n%u.per_waiter", many);
		wper = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		if (!cb1 || !cbn || !w1 || !wn || !wper) {
			bench_run_fini(&run);
			return 1;
		}
		bench_metric_label(cb1, "unit", "ns per callback, inside dma_fence_signal()");
		bench_metric_label(cbn, "unit", "ns per callback, inside dma_fence_signal()");
		bench_metric_reference(cb1, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(cbn, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(w1, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(wn, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(wper, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
		for (unsigned r = 0; r < reps; r++) {
			double a = rep_callbacks(1, 20000 / (unsigned)scale);
			double b = rep_callbacks(many, 200 / (unsigned)scale);
			double c = rep_waiters(1, rounds * 10);
			double d = rep_waiters(many, rounds);

			bench_progress(&run, "callbacks and waiters", (double)r / reps);
			if (a < 0 || b < 0 || c < 0 || d < 0 || bench_metric_sample(cb1, a) ||
			    bench_metric_sample(cbn, b) || bench_metric_sample(w1, c) ||
			    bench_metric_sample(wn, d) || bench_metric_sample(wper, d / many)) {
				fprintf(stderr, "benchmark-fence: callbacks/waiters failed\n");
				bench_run_fini(&run);
				return 1;
			}
		}
		bench_progress_done(&run);
		{
			struct bench_stats st;

			/* 1000 waiters woken within 2x the single-waiter latency, per waiter. */
			if (!bench_metric_stats(w1, &st)) {
				bench_metric_target(wper, 2.0 * st.median, BENCH_TARGET_AT_MOST);
				bench_metric_label(wper, "target",
						   "<= 2x fence.waiters.n1.last_wake");
			}
		}
	}

	rc = uapi_figures(&run, 200000 / scale, reps);
	if (rc) {
		fprintf(stderr, "benchmark-fence: uapi path failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}

	max_threads = run.opts.threads_set ? run.opts.threads : run.machine.pus;
	if (max_threads < 1)
		max_threads = 1;
	bench_run_param(&run, "sweep_threads", "1-%u", max_threads);
	/* A fifth of the time budget per repetition keeps the sweep to seconds. */
	rc = sweep_all(&run, max_threads, run.opts.duration_s / 5);
	if (rc) {
		fprintf(stderr, "benchmark-fence: threads sweep failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
