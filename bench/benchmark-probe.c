// SPDX-License-Identifier: MIT
/*
 * benchmark-probe: what the USDT probes cost when nobody is tracing.
 *
 * The fence signal path of the core carries a TTM_PROBE2(fence_signal, ...)
 * site (a nop plus an ELF note). To show that it costs nothing measurable,
 * the same run measures, in ns per operation:
 *
 *  probe.signal_body.bare      the body of the core's fence_signal() (one
 *                              compare-and-swap setting SIGNALED, the
 *                              timestamp and its release flag, the test of
 *                              the replaced WAITERS/HAS_CB bits) re-enacted on
 *                              a local fence, no probe
 *  probe.signal_body.nop_site  the same body with a probe site where the core
 *                              has it: STAP_PROBE2 without a semaphore
 *  probe.signal_body.gated     the same body with the site behind a sys/sdt.h
 *                              semaphore, the variant that skips argument setup
 *                              with one load and a branch when not attached
 *  probe.fence_signal_path     dma_fence_init + dma_fence_signal_timestamp of
 *                              the real core (probe compiled in) on an
 *                              embedded fence
 *  probe.nop_site.overhead     nop_site - bare, per repetition
 *  probe.gated.overhead        gated - bare, per repetition
 *
 * and the other kind of site the fence path carries, a fault point:
 *
 *  probe.fault_site.disarmed.t1  one fault_should_fail() on the core's
 *                              fence_alloc point with nothing armed, as
 *                              dma_fence_alloc() calls it
 *  probe.fault_site.disarmed.t2  the same, two threads on two cores calling
 *                              it on the same point at once, ns per call of
 *                              one thread (a shared line written per call
 *                              shows here)
 *
 * every one against an uncontended pthread mutex lock+unlock measured in the
 * same run (ratio = value / mutex). The three bodies alternate inside each
 * repetition so drift on a shared machine weighs on all alike. With fault
 * points compiled out (-Dfault_inject=false) the fault-site metrics measure
 * an empty loop; the build options in the results say which it was.
 *
 * Without sys/sdt.h there is no probe to measure: the program says so and
 * exits 77.
 */
#include "ttm_config.h"

#include <ttm/dma_fence.h>
#include <ttm/ttm_faults.h>
#include <bench.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#if TTM_HAVE_SDT
/*
 * Semaphores are what sys/sdt.h tests before a gated site; the variable must
 * be named <provider>_<name>_semaphore and live in .probes so a tracer can
 * find and bump it.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

__extension__ unsigned short ttmbench_gated_signal_semaphore
    __attribute__((unused, section(".probes")));
/*
 * With semaphores on, every site of the file names one in its note; the nop
 * site's is never tested, so its code stays the core's: a nop, no branch.
 */
__extension__ unsigned short ttmbench_nop_signal_semaphore
    __attribute__((unused, section(".probes")));
#define GATED_ENABLED() __builtin_expect(ttmbench_gated_signal_semaphore, 0)
#endif

/* The slice of struct dma_fence that the signal path touches. */
struct body_fence {
	atomic_uint flags;
	uint64_t context;
	uint64_t seqno;
	atomic_bool timestamp_set;
	int64_t timestamp;
};

/* The bits of enum dma_fence_flag_bits the signal path looks at. */
#define F_SIGNALED DMA_FENCE_FLAG_SIGNALED
#define F_WAKE_OR_CB (DMA_FENCE_FLAG_WAITERS | DMA_FENCE_FLAG_HAS_CB)

enum variant { V_BARE, V_NOP, V_GATED, V_COUNT };

#if TTM_HAVE_SDT
/*
 * One signal as fence_signal() in ttm/dma_fence.c does it, then the variant's
 * probe where the core has its site. noinline and the fence behind a pointer
 * so that each variant keeps its loads and stores in the loop. Nobody waits
 * on or has a callback on these fences, so the futex wake and the callback
 * walk after the test are never taken, as on an unwatched fence of the core.
 */
static __attribute__((noinline)) int body(struct body_fence *f, int64_t ts, enum variant v)
{
	unsigned old = atomic_load_explicit(&f->flags, memory_order_relaxed);

	do {
		if (old & F_SIGNALED)
			return -EINVAL;
	} while (!atomic_compare_exchange_weak_explicit(
	    &f->flags, &old, old | F_SIGNALED, memory_order_acq_rel, memory_order_relaxed));
	f->timestamp = ts;
	atomic_store_explicit(&f->timestamp_set, true, memory_order_release);
	if (v == V_NOP) {
		STAP_PROBE2(ttmbench, nop_signal, f->context, f->seqno);
	} else if (v == V_GATED) {
		if (GATED_ENABLED())
			STAP_PROBE2(ttmbench, gated_signal, f->context, f->seqno);
	}
	return old & F_WAKE_OR_CB ? -EBUSY : 0;
}

static double rep_body(enum variant v, unsigned long iters)
{
	struct body_fence f = {.context = 7};
	uint64_t t0 = testlib_now_raw_ns();
	long bad = 0;

	for (unsigned long i = 0; i < iters; i++) {
		atomic_store_explicit(&f.flags, 0, memory_order_relaxed);
		atomic_store_explicit(&f.timestamp_set, false, memory_order_relaxed);
		f.seqno = i;
		bad += body(&f, (int64_t)i, v);
	}
	t0 = testlib_now_raw_ns() - t0;
	return bad ? -1 : (double)t0 / (double)iters;
}

static const char *pname(struct dma_fence *f)
{
	(void)f;
	return "probe";
}

static const struct dma_fence_ops pops = {.get_driver_name = pname, .get_timeline_name = pname};

static double rep_fence(unsigned long iters)
{
	uint64_t ctx = dma_fence_context_alloc(1);
	struct dma_fence f;
	uint64_t t0 = testlib_now_raw_ns();
	long bad = 0;

	for (unsigned long i = 0; i < iters; i++) {
		dma_fence_init(&f, &pops, ctx, i + 1);
		bad += dma_fence_signal_timestamp(&f, (int64_t)i);
	}
	t0 = testlib_now_raw_ns() - t0;
	return bad ? -1 : (double)t0 / (double)iters;
}

/*
 * A disarmed fault site. Its result is summed so that the calls stay in the
 * loop; a non-zero sum means somebody armed the point and the number is not
 * the disarmed cost.
 */
static unsigned long fault_site_loop(unsigned long iters)
{
	unsigned long fired = 0;

	for (unsigned long i = 0; i < iters; i++)
		fired += fault_should_fail(&ttm_fault_fence_alloc, sizeof(struct dma_fence));
	return fired;
}

struct site_worker {
	struct bench_run *run;
	unsigned index;
	unsigned long iters;
	atomic_bool *go;
	double ns;
	unsigned long fired;
};

static void *site_worker(void *p)
{
	struct site_worker *w = p;
	uint64_t t0;

	bench_pin_thread(w->run, w->index);
	/* The first call of a thread takes the slow path; not in the time. */
	w->fired = fault_site_loop(1);
	while (!atomic_load_explicit(w->go, memory_order_acquire))
		;
	t0 = testlib_now_raw_ns();
	w->fired += fault_site_loop(w->iters);
	w->ns = (double)(testlib_now_raw_ns() - t0) / (double)w->iters;
	return NULL;
}

/*
 * ns per call with @nthreads (at most 2) threads calling at once, the slowest
 * thread's; -1 when a thread could not start or the point fired.
 */
static double rep_fault_site(struct bench_run *run, unsigned nthreads, unsigned long iters)
{
	struct site_worker w[2];
	atomic_bool go = false;
	pthread_t t[2];
	unsigned started = 0;
	double worst = 0;
	bool bad = false;

	for (unsigned i = 0; i < nthreads && i < 2; i++) {
		w[i] = (struct site_worker){run, i, iters, &go, 0, 0};
		if (pthread_create(&t[i], NULL, site_worker, &w[i]))
			break;
		started++;
	}
	atomic_store_explicit(&go, true, memory_order_release);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		bad |= w[i].fired != 0;
		if (w[i].ns > worst)
			worst = w[i].ns;
	}
	return bad || started < nthreads ? -1 : worst;
}
#endif

int main(int argc, char **argv)
{
#if TTM_HAVE_SDT
	static const char *const names[V_COUNT] = {
	    "probe.signal_body.bare", "probe.signal_body.nop_site", "probe.signal_body.gated"};
	struct bench_metric *m[V_COUNT], *fence, *nop_over, *gated_over, *site[2];
	unsigned long iters;
	struct bench_run run;
	int rc;

	rc = bench_setup(&run, "probe", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	iters = run.opts.quick ? 2000000 : 20000000;
	bench_run_param(&run, "probe_kind", "%s", "sys/sdt.h, not attached");
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-probe: a reference failed (%d), ratios may be missing\n",
			rc);
	rc = 0;
	bench_pin_thread(&run, 0);
	for (int v = 0; v < V_COUNT; v++)
		m[v] = bench_metric_add(&run, names[v], "ns", BENCH_LOWER_IS_BETTER);
	fence = bench_metric_add(&run, "probe.fence_signal_path", "ns", BENCH_LOWER_IS_BETTER);
	nop_over = bench_metric_add(&run, "probe.nop_site.overhead", "ns", BENCH_LOWER_IS_BETTER);
	gated_over = bench_metric_add(&run, "probe.gated.overhead", "ns", BENCH_LOWER_IS_BETTER);
	site[0] =
	    bench_metric_add(&run, "probe.fault_site.disarmed.t1", "ns", BENCH_LOWER_IS_BETTER);
	site[1] =
	    bench_metric_add(&run, "probe.fault_site.disarmed.t2", "ns", BENCH_LOWER_IS_BETTER);
	if (!m[V_BARE] || !m[V_NOP] || !m[V_GATED] || !fence || !nop_over || !gated_over ||
	    !site[0] || !site[1]) {
		bench_run_fini(&run);
		return 1;
	}
	for (int v = 0; v < V_COUNT; v++)
		bench_metric_reference(m[v], BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(fence, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(nop_over, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(gated_over, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	for (int i = 0; i < 2; i++)
		bench_metric_reference(site[i], BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	/* "Nothing measurable": below a tenth of a lock round trip. */
	bench_metric_label(nop_over, "target", "< 0.1x mutex lock+unlock");

	for (int r = -(int)run.opts.warmup; r < (int)run.opts.reps; r++) {
		double t[V_COUNT], tf, ts[2];

		bench_progress(&run, "probe cost",
			       (double)(r + (int)run.opts.warmup) /
				   (double)(run.opts.reps + run.opts.warmup));
		for (int v = 0; v < V_COUNT; v++)
			t[v] = rep_body((enum variant)v, iters);
		tf = rep_fence(iters);
		if (t[V_BARE] < 0 || t[V_NOP] < 0 || t[V_GATED] < 0 || tf < 0) {
			fprintf(stderr, "benchmark-probe: a signal failed\n");
			bench_run_fini(&run);
			return 1;
		}
		for (int i = 0; i < 2; i++)
			ts[i] = rep_fault_site(&run, (unsigned)i + 1, iters);
		if (ts[0] < 0 || ts[1] < 0) {
			fprintf(stderr, "benchmark-probe: fence_alloc fired (armed by TTM_FAULTS?) "
					"or a thread did not start\n");
			bench_run_fini(&run);
			return 1;
		}
		if (r < 0)
			continue;
		for (int v = 0; v < V_COUNT; v++)
			rc |= bench_metric_sample(m[v], t[v]);
		rc |= bench_metric_sample(fence, tf);
		rc |= bench_metric_sample(nop_over, t[V_NOP] - t[V_BARE]);
		rc |= bench_metric_sample(gated_over, t[V_GATED] - t[V_BARE]);
		for (int i = 0; i < 2; i++)
			rc |= bench_metric_sample(site[i], ts[i]);
		if (rc) {
			bench_run_fini(&run);
			return 1;
		}
	}
	bench_progress_done(&run);
	if (run.refs[BENCH_REF_MUTEX].measured)
		bench_metric_target(nop_over, 0.1 * run.refs[BENCH_REF_MUTEX].stats.median,
				    BENCH_TARGET_AT_MOST);
	return bench_run_finish(&run);
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "benchmark-probe: SKIP: built without sys/sdt.h, there are no probes to "
			"measure\n");
	return 77;
#endif
}
