// SPDX-License-Identifier: MIT
/*
 * benchmark-probe: what the USDT probes cost when nobody is tracing.
 *
 * The fence signal path of the core carries a TTM_PROBE2(fence_signal, ...)
 * site (a nop plus an ELF note). To show that it costs nothing measurable,
 * the same run measures, in ns per operation:
 *
 *  probe.signal_body.bare      the body of dma_fence_signal_timestamp() (flag
 *                              check, SIGNALED fetch-or, timestamp, TIMESTAMP
 *                              fetch-or) re-enacted on a local fence, no probe
 *  probe.signal_body.nop_site  the same body followed by a probe site as the
 *                              core has it: STAP_PROBE2 without a semaphore
 *  probe.signal_body.gated     the same body with the site behind a sys/sdt.h
 *                              semaphore, the variant that skips argument setup
 *                              with one load and a branch when not attached
 *  probe.fence_signal_path     dma_fence_init + dma_fence_signal_timestamp of
 *                              the real core (probe compiled in) on an
 *                              embedded fence
 *  probe.nop_site.overhead     nop_site - bare, per repetition
 *  probe.gated.overhead        gated - bare, per repetition
 *
 * every one against an uncontended pthread mutex lock+unlock measured in the
 * same run (ratio = value / mutex). The three bodies alternate inside each
 * repetition so drift on a shared machine weighs on all alike.
 *
 * Without sys/sdt.h there is no probe to measure: the program says so and
 * exits 77.
 */
#include "ttm_config.h"

#include <ttm/dma_fence.h>
#include <bench.h>

#include <errno.h>
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
	int64_t timestamp;
};

#define F_SIGNALED 1u
#define F_TIMESTAMP 2u

enum variant { V_BARE, V_NOP, V_GATED, V_COUNT };

#if TTM_HAVE_SDT
/*
 * One signal, then the variant's probe. noinline and the fence behind a
 * pointer so that each variant keeps its loads and stores in the loop.
 */
static __attribute__((noinline)) int body(struct body_fence *f, int64_t ts, enum variant v)
{
	unsigned old;

	if (atomic_load_explicit(&f->flags, memory_order_acquire) & F_SIGNALED)
		return -EINVAL;
	old = atomic_fetch_or_explicit(&f->flags, F_SIGNALED, memory_order_acq_rel);
	if (old & F_SIGNALED)
		return -EINVAL;
	f->timestamp = ts;
	atomic_fetch_or_explicit(&f->flags, F_TIMESTAMP, memory_order_release);
	if (v == V_NOP) {
		STAP_PROBE2(ttmbench, nop_signal, f->context, f->seqno);
	} else if (v == V_GATED) {
		if (GATED_ENABLED())
			STAP_PROBE2(ttmbench, gated_signal, f->context, f->seqno);
	}
	return 0;
}

static double rep_body(enum variant v, unsigned long iters)
{
	struct body_fence f = { .context = 7 };
	uint64_t t0 = bench_now_ns();
	long bad = 0;

	for (unsigned long i = 0; i < iters; i++) {
		atomic_store_explicit(&f.flags, 0, memory_order_relaxed);
		f.seqno = i;
		bad += body(&f, (int64_t)i, v);
	}
	t0 = bench_now_ns() - t0;
	return bad ? -1 : (double)t0 / (double)iters;
}

static const char *pname(struct dma_fence *f)
{
	(void)f;
	return "probe";
}

static const struct dma_fence_ops pops = { .get_driver_name = pname, .get_timeline_name = pname };

static double rep_fence(unsigned long iters)
{
	uint64_t ctx = dma_fence_context_alloc(1);
	struct dma_fence f;
	uint64_t t0 = bench_now_ns();
	long bad = 0;

	for (unsigned long i = 0; i < iters; i++) {
		dma_fence_init(&f, &pops, ctx, i + 1);
		bad += dma_fence_signal_timestamp(&f, (int64_t)i);
	}
	t0 = bench_now_ns() - t0;
	return bad ? -1 : (double)t0 / (double)iters;
}
#endif

int main(int argc, char **argv)
{
#if TTM_HAVE_SDT
	static const char *const names[V_COUNT] = { "probe.signal_body.bare",
						     "probe.signal_body.nop_site",
						     "probe.signal_body.gated" };
	struct bench_metric *m[V_COUNT], *fence, *nop_over, *gated_over;
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
	bench_pin_thread(&run, 0);
	for (int v = 0; v < V_COUNT; v++)
		m[v] = bench_metric_add(&run, names[v], "ns", BENCH_LOWER_IS_BETTER);
	fence = bench_metric_add(&run, "probe.fence_signal_path", "ns", BENCH_LOWER_IS_BETTER);
	nop_over = bench_metric_add(&run, "probe.nop_site.overhead", "ns", BENCH_LOWER_IS_BETTER);
	gated_over = bench_metric_add(&run, "probe.gated.overhead", "ns", BENCH_LOWER_IS_BETTER);
	if (!m[V_BARE] || !m[V_NOP] || !m[V_GATED] || !fence || !nop_over || !gated_over) {
		bench_run_fini(&run);
		return 1;
	}
	for (int v = 0; v < V_COUNT; v++)
		bench_metric_reference(m[v], BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(fence, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(nop_over, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(gated_over, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	/* "Nothing measurable": below a tenth of a lock round trip. */
	bench_metric_label(nop_over, "target", "< 0.1x mutex lock+unlock");

	for (int r = -(int)run.opts.warmup; r < (int)run.opts.reps; r++) {
		double t[V_COUNT], tf;

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
		if (r < 0)
			continue;
		for (int v = 0; v < V_COUNT; v++)
			rc |= bench_metric_sample(m[v], t[v]);
		rc |= bench_metric_sample(fence, tf);
		rc |= bench_metric_sample(nop_over, t[V_NOP] - t[V_BARE]);
		rc |= bench_metric_sample(gated_over, t[V_GATED] - t[V_BARE]);
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
