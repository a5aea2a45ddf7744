// SPDX-License-Identifier: MIT
/*
 * benchmark-evict: eviction thrash (issue 7, item 2).
 *
 * A working set of BOs from 0.5x to 4x the capacity of device-local memory
 * (VRAM of bench_mockdev: every move in or out is a copy) is validated into
 * VRAM in one of three orders, by 1 and by N clients (threads):
 *   cyclic   every BO in turn (LRU-hostile: above capacity each validate
 *            evicts exactly the BO needed soonest)
 *   random   uniform
 *   zipf     Zipfian, s = 0.99, hot BOs scattered over the set
 * Per pattern and working-set ratio (metric prefix evict.<pattern>.ws<pct>,
 * <pattern> suffixed _c<N> for N clients):
 *   .throughput                validated bytes per second (BO size per
 *                              validate), vs memcpy bandwidth
 *   .evictions_per_validate    evictions per validate
 *   .bytes_moved_per_validate  bytes moved per validate (out and in)
 *   .copy_bw                   bytes moved per second of the validates that
 *                              moved something, vs memcpy (copy efficiency)
 * each sampled over --reps time-bounded repetitions. Targets: cyclic above
 * capacity at most one eviction per validate; copy efficiency >= 0.8 of
 * memcpy for BOs of 1 MiB and more; Zipfian at 2x at least 0.25 of its
 * in-capacity (0.5x) throughput.
 *
 * Back ends (parameter "backend"):
 *  sim   (default) the i915 driver on the simulated GPU: the BOs are SMEM
 *        objects validated into lmem of --capacity-mib (not CPU-visible), so
 *        evictions and moves in are blits through a GGTT hop, pipelined
 *        behind fences. A validate is timed until the BO is idle (its blit
 *        done), which the core's synchronous memcpy is by construction.
 *  core  the TTM core over bench_mockdev (host-memory VRAM, memcpy moves).
 *  hw    a real Intel GPU under hw_ttm (bench_hw.h, --device PATH). On a
 *        discrete part the BOs are validated into VRAM of --capacity-mib
 *        (moves are blitter copies, timed until the BO is idle, as on sim).
 *        An integrated part has no VRAM: the same patterns then thrash TT,
 *        a GPU address range of --capacity-mib (tt_size), where an eviction
 *        takes a BO's address away and nothing is copied (bytes_moved only
 *        counts the binds). Parameter "target" says which one ran. Without
 *        an i915 render node (or libdrm) it prints SKIP and exits 77.
 */
#include "bench_mockdev.h"
#include "bench_simdev.h"

#include <bench.h>
#include <bench_hw.h>

#include "ttm_config.h"

#if TTM_HAVE_LIBDRM
#include "hw_ttm.h"
#endif

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1024ull * 1024ull)

enum pattern { P_CYCLIC, P_RANDOM, P_ZIPF, P_COUNT };
static const char *const pattern_names[P_COUNT] = { "cyclic", "random", "zipf" };

struct ev_opts {
	uint64_t capacity_mib;
	uint64_t bo_kib;
	struct bench_hw hw; /* --device, and the GPU of --backend=hw */
};

/* The BOs of one working set and the order they are drawn in. */
struct ev_set {
	struct bench_mockdev *md;
	struct i915_device *i915; /* sim back end, else NULL */
	struct hw_ttm_device *hwdev; /* hw back end, else NULL */
	bool wait_idle; /* moves are pipelined: time a validate until the BO is idle */
	struct ttm_buffer_object **bos;
	unsigned n;
	uint64_t bo_size;
	double *zipf_cdf; /* cumulative probability by rank */
	unsigned *zipf_perm; /* rank -> BO index */
	struct ttm_placement vram;
	struct ttm_place vram_place;
};

struct ev_worker {
	struct ev_set *set;
	struct bench_run *run;
	enum pattern pat;
	unsigned index, nclients;
	atomic_bool *stop;
	uint64_t rng;
	unsigned long validates, evictions;
	uint64_t bytes_moved, move_ns;
	int err;
	pthread_t thread;
};

static unsigned next_index(struct ev_worker *w, unsigned long i)
{
	struct ev_set *s = w->set;

	switch (w->pat) {
	case P_CYCLIC:
		/* Each client walks the whole set, starting a share apart. */
		return (unsigned)((i + (unsigned long)w->index * s->n / w->nclients) % s->n);
	case P_RANDOM:
		return (unsigned)(bench_rng_next(&w->rng) % s->n);
	default: {
		double u = (double)(bench_rng_next(&w->rng) >> 11) * 0x1.0p-53;
		unsigned lo = 0, hi = s->n - 1;

		while (lo < hi) {
			unsigned mid = (lo + hi) / 2;

			if (s->zipf_cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		return s->zipf_perm[lo];
	}
	}
}

static int validate_one(struct ev_worker *w, struct ttm_buffer_object *bo)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	uint64_t t0;
	int ret;

	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	t0 = bench_now_ns();
	ret = ttm_bo_validate(bo, &w->set->vram, &ctx);
	/* The blits are pipelined: the BO is usable once they are done. */
	if (!ret && w->set->wait_idle)
		ret = ttm_bo_wait_ctx(bo, &ctx);
	t0 = bench_now_ns() - t0;
	ttm_bo_unreserve(bo);
	if (ret)
		return ret;
	w->validates++;
	w->evictions += ctx.evictions;
	if (ctx.bytes_moved) {
		w->bytes_moved += ctx.bytes_moved;
		w->move_ns += t0;
	}
	return 0;
}

static void *ev_thread(void *p)
{
	struct ev_worker *w = p;

	bench_pin_thread(w->run, w->index);
	for (unsigned long i = 0; !w->err; i++) {
		/*
		 * Check the shared flag only now and then, and not before a few
		 * validates: one stall of a loaded machine must not leave a
		 * repetition without a figure.
		 */
		if (i >= 8 && !(i & 7) && atomic_load_explicit(w->stop, memory_order_relaxed))
			break;
		w->err = validate_one(w, w->set->bos[next_index(w, i)]);
		/*
		 * With several clients every other BO may be reserved by them
		 * for a moment: that validate found nothing to evict; go on.
		 */
		if (w->nclients > 1 &&
		    (w->err == -ENOMEM || w->err == -EBUSY || w->err == -ENOSPC))
			w->err = 0;
	}
	return NULL;
}

struct ev_figures {
	double throughput, evictions, moved, copy_bw;
};

static int ev_rep(struct bench_run *run, struct ev_set *s, enum pattern pat, unsigned nclients,
		  double secs, uint64_t seed, struct ev_figures *fig)
{
	struct ev_worker *w = calloc(nclients, sizeof(*w));
	atomic_bool stop;
	unsigned long validates = 0, evictions = 0;
	uint64_t moved = 0, move_ns = 0, t0, t1;
	unsigned started;
	int rc = 0;

	if (!w)
		return -ENOMEM;
	atomic_init(&stop, false);
	t0 = bench_now_ns();
	for (started = 0; started < nclients; started++) {
		w[started] = (struct ev_worker){ .set = s, .run = run, .pat = pat,
						 .index = started, .nclients = nclients,
						 .stop = &stop,
						 .rng = seed * 0x9e3779b97f4a7c15ull + started + 1 };
		if (pthread_create(&w[started].thread, NULL, ev_thread, &w[started])) {
			rc = -EAGAIN;
			break;
		}
	}
	while (!rc && bench_now_ns() - t0 < (uint64_t)(secs * 1e9)) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, true);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err && !rc)
			rc = w[i].err;
		validates += w[i].validates;
		evictions += w[i].evictions;
		moved += w[i].bytes_moved;
		move_ns += w[i].move_ns;
	}
	t1 = bench_now_ns();
	free(w);
	if (rc)
		return rc;
	if (!validates)
		return -EIO;
	fig->throughput = (double)validates * (double)s->bo_size / (double)(t1 - t0); /* GB/s */
	fig->evictions = (double)evictions / (double)validates;
	fig->moved = (double)moved / (double)validates;
	/* Per-thread move times are summed: this is a per-client copy rate. */
	fig->copy_bw = move_ns ? (double)moved / (double)move_ns : NAN;
	return 0;
}

static void set_free(struct ev_set *s)
{
	for (unsigned k = 0; k < s->n; k++)
		if (s->bos[k])
			ttm_bo_put(s->bos[k]);
	free(s->bos);
	free(s->zipf_cdf);
	free(s->zipf_perm);
	s->bos = NULL;
	s->zipf_cdf = NULL;
	s->zipf_perm = NULL;
}

/*
 * One BO of the hw back end, starting in SYSTEM like the others. Without
 * libdrm there is no device to get here with.
 */
static int hw_bo_make(struct hw_ttm_device *dev, uint64_t size, struct ttm_buffer_object **out)
{
#if TTM_HAVE_LIBDRM
	struct hw_ttm_bo *bo = NULL;
	int ret = hw_ttm_bo_create(dev, size, &hw_ttm_placement_system, &bo);

	*out = ret ? NULL : &bo->tbo;
	return ret;
#else
	(void)dev;
	(void)size;
	*out = NULL;
	return -ENODEV;
#endif
}

static int set_make(struct ev_set *s, struct bench_mockdev *md, struct i915_device *i915,
		    struct hw_ttm_device *hwdev, const struct ttm_placement *target, unsigned n,
		    uint64_t bo_size, uint64_t seed)
{
	struct ttm_placement sys;
	struct ttm_place psys;
	double sum = 0, acc = 0;
	uint64_t rng = seed | 1;

	memset(s, 0, sizeof(*s));
	s->md = md;
	s->i915 = i915;
	s->hwdev = hwdev;
	s->n = n;
	s->bo_size = bo_size;
	s->bos = calloc(n, sizeof(*s->bos));
	s->zipf_cdf = calloc(n, sizeof(*s->zipf_cdf));
	s->zipf_perm = calloc(n, sizeof(*s->zipf_perm));
	if (!s->bos || !s->zipf_cdf || !s->zipf_perm) {
		set_free(s);
		return -ENOMEM;
	}
	bench_mockdev_place(&s->vram, &s->vram_place, TTM_PL_VRAM);
	if (target)
		s->vram = *target;
	s->wait_idle = i915 || (hwdev && s->vram.placement[0].mem_type == TTM_PL_VRAM);
	bench_mockdev_place(&sys, &psys, TTM_PL_SYSTEM);
	for (unsigned k = 0; k < n; k++) {
		struct i915_gem_object *obj = NULL;
		int ret = 0;

		/* SMEM objects start in SYSTEM, as the mock's BOs do. */
		if (i915) {
			ret = i915_gem_object_create(i915, bo_size, I915_GEM_REGION_SMEM, &obj);
			s->bos[k] = obj ? &obj->base : NULL;
		} else if (hwdev) {
			ret = hw_bo_make(hwdev, bo_size, &s->bos[k]);
		} else {
			s->bos[k] = bench_mockdev_bo_create(md, bo_size, &sys);
		}
		if (!s->bos[k]) {
			set_free(s);
			return ret ? ret : -ENOMEM;
		}
	}
	for (unsigned k = 0; k < n; k++)
		sum += 1.0 / pow(k + 1, 0.99);
	for (unsigned k = 0; k < n; k++) {
		acc += 1.0 / pow(k + 1, 0.99) / sum;
		s->zipf_cdf[k] = acc;
		s->zipf_perm[k] = k;
	}
	s->zipf_cdf[n - 1] = 1.0;
	/* Fisher-Yates: the hot ranks land anywhere in the set. */
	for (unsigned k = n - 1; k > 0; k--) {
		unsigned j = (unsigned)(bench_rng_next(&rng) % (k + 1)), t = s->zipf_perm[k];

		s->zipf_perm[k] = s->zipf_perm[j];
		s->zipf_perm[j] = t;
	}
	return 0;
}

static int opt_u64(const char *arg, uint64_t *v, char *err, size_t errlen)
{
	char *end;
	unsigned long long x = strtoull(arg, &end, 10);

	if (!*arg || *end || !x) {
		snprintf(err, errlen, "expected a positive integer, got '%s'", arg);
		return -EINVAL;
	}
	*v = x;
	return 0;
}

static int opt_cap(void *ctx, const char *arg, char *err, size_t errlen)
{
	return opt_u64(arg, &((struct ev_opts *)ctx)->capacity_mib, err, errlen);
}

static int opt_bo(void *ctx, const char *arg, char *err, size_t errlen)
{
	return opt_u64(arg, &((struct ev_opts *)ctx)->bo_kib, err, errlen);
}

static int opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	return bench_hw_opt_device(&((struct ev_opts *)ctx)->hw, arg, err, errlen);
}

static const struct bench_opt ev_extra[] = {
	{ "capacity-mib", "MIB", "device-local memory (default 64, 16 with --quick)", opt_cap },
	{ "bo-kib", "KIB", "BO size, a multiple of 4 (default 1024)", opt_bo },
	{ "device", "PATH",
	  "render node for --backend=hw (default: $TTM_HW_DEVICE, else the first i915 one)",
	  opt_device },
	{ NULL, NULL, NULL, NULL },
};

struct point_metrics {
	struct bench_metric *tp, *ev, *mv, *cb;
};

static int point_add(struct bench_run *run, const char *pat, unsigned pct, unsigned nclients,
		     struct point_metrics *pm)
{
	char name[128], lbl[16];

	snprintf(name, sizeof(name), "evict.%s.ws%u.throughput", pat, pct);
	pm->tp = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.evictions_per_validate", pat, pct);
	pm->ev = bench_metric_add(run, name, "evictions", BENCH_LOWER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.bytes_moved_per_validate", pat, pct);
	pm->mv = bench_metric_add(run, name, "bytes", BENCH_LOWER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.copy_bw", pat, pct);
	pm->cb = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
	if (!pm->tp || !pm->ev || !pm->mv || !pm->cb)
		return -ENOMEM;
	snprintf(lbl, sizeof(lbl), "%u", nclients);
	bench_metric_label(pm->tp, "clients", lbl);
	bench_metric_label(pm->ev, "reference", "one eviction per validate");
	bench_metric_label(pm->mv, "reference", "the BO size");
	/* The core counts every hop: on sim, the binds into and out of the GGTT hop too. */
	bench_metric_label(pm->mv, "counted", "per hop of each move");
	bench_metric_label(pm->cb, "counted", "bytes moved per hop over the validate time");
	bench_metric_reference(pm->tp, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(pm->cb, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	return 0;
}

/*
 * --backend=hw: open the GPU with VRAM (discrete) or TT (integrated) of
 * --capacity-mib and pick the placement the patterns validate into.
 */
static int hw_open(struct bench_run *run, struct ev_opts *eo, struct ttm_placement *target)
{
	struct bench_hw_args args = { .vram_size = eo->capacity_mib * MIB, .need_exec_fence = true };
	int rc = bench_hw_open(run, &eo->hw, &args);

#if TTM_HAVE_LIBDRM
	if (!rc && !eo->hw.dev->has_vram) {
		/*
		 * No device-local memory: reopen with a TT range of the capacity,
		 * so the thrash is of GPU addresses instead.
		 */
		bench_hw_close(&eo->hw);
		args = (struct bench_hw_args){ .tt_size = eo->capacity_mib * MIB, .no_vram = true,
					       .need_exec_fence = true };
		rc = bench_hw_open(run, &eo->hw, &args);
	}
	if (rc)
		return rc;
	*target = eo->hw.dev->has_vram ? hw_ttm_placement_vram : hw_ttm_placement_tt;
	bench_run_param(run, "target", "%s",
			eo->hw.dev->has_vram ? "VRAM (blitter moves)"
					     : "TT, a GPU address range (unbind evictions; "
					       "integrated part, no VRAM)");
	if (!eo->hw.dev->has_vram)
		fprintf(stderr, "benchmark-evict: integrated GPU without VRAM: thrashing TT "
				"(address reassignment) instead\n");
#else
	(void)target;
#endif
	return rc;
}

int main(int argc, char **argv)
{
	static const unsigned ws_full[] = { 50, 75, 100, 150, 200, 300, 400 };
	static const unsigned ws_quick[] = { 50, 100, 200, 400 };
	struct bench_metric *zipf_lo = NULL, *zipf_hi = NULL;
	struct ev_opts eo = { 0 };
	struct ttm_placement hw_target = { 0 };
	struct hw_ttm_device *hwdev = NULL;
	struct bench_mockdev md;
	struct i915_device *i915 = NULL;
	struct bench_run run;
	const unsigned *ws;
	bool sim, hw;
	unsigned nws, nclients_max, cfgs, steps, step = 0;
	uint64_t cap_pages;
	double secs;
	int rc;

	bench_hw_init(&eo.hw);
	rc = bench_setup(&run, "eviction", argc, argv, ev_extra, &eo);
	if (rc)
		return bench_exit_code(rc);
	if (!eo.capacity_mib)
		eo.capacity_mib = run.opts.quick ? 16 : 64;
	if (!eo.bo_kib)
		eo.bo_kib = 1024;
	if (eo.bo_kib % 4 || eo.bo_kib * 1024 > eo.capacity_mib * MIB / 4) {
		fprintf(stderr, "benchmark-evict: --bo-kib must be a multiple of 4 and at most a "
				"quarter of --capacity-mib\n");
		bench_run_fini(&run);
		return 2;
	}
	if (eo.capacity_mib * MIB * 5 > run.machine.ram_bytes / 2) {
		fprintf(stderr, "benchmark-evict: --capacity-mib %llu needs 5x that in RAM "
				"(VRAM stand-in plus a 4x working set), more than half of RAM\n",
			(unsigned long long)eo.capacity_mib);
		bench_run_fini(&run);
		return 2;
	}
	if (!run.opts.reps_set)
		run.opts.reps = run.opts.quick ? 3 : 5;
	ws = run.opts.quick ? ws_quick : ws_full;
	nws = run.opts.quick ? 4 : 7;
	nclients_max = run.opts.threads_set ? run.opts.threads : run.machine.pus;
	cfgs = nclients_max > 1 ? 2 : 1;
	/* Each point: --reps repetitions of a fifth of --duration (0.04 s quick). */
	secs = run.opts.duration_s / 5;
	cap_pages = eo.capacity_mib * MIB / TTM_PAGE_SIZE;
	sim = run.opts.backend == BENCH_BACKEND_SIM;
	hw = run.opts.backend == BENCH_BACKEND_HW;
	if (hw) {
		rc = hw_open(&run, &eo, &hw_target);
		if (rc)
			return bench_hw_exit(&run, &eo.hw, "benchmark-evict", rc);
		hwdev = eo.hw.dev;
	}
	bench_run_param(&run, "backend", "%s", hw ? "hw" : sim ? "sim" : "core");
	bench_run_param(&run, "capacity_mib", "%llu", (unsigned long long)eo.capacity_mib);
	bench_run_param(&run, "bo_kib", "%llu", (unsigned long long)eo.bo_kib);
	bench_run_param(&run, "clients", "1,%u", nclients_max);
	if (sim) {
		bench_run_backend_param(&run, "device", "%s",
					"i915 on the simulated GPU, gen 12, 1 GiB GGTT");
		bench_run_backend_param(&run, "latency_model", "%s", "off");
		bench_run_backend_param(&run, "lmem_mib", "%llu",
					(unsigned long long)eo.capacity_mib);
		bench_run_backend_param(&run, "lmem_visible_mib", "%u", 0u);
		bench_run_backend_param(&run, "moves", "%s",
					"blitter through a GGTT hop, evicted to SYSTEM");
	} else if (!hw) {
		bench_run_backend_param(&run, "device", "%s",
					"bench_mockdev: host-memory VRAM, evicted to SYSTEM, "
					"memcpy moves");
	}
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-evict: a reference failed (%d)\n", rc);
	rc = hw    ? 0
	     : sim ? bench_simdev_open(0, eo.capacity_mib * MIB, &i915)
		   : bench_mockdev_init(&md, 0, cap_pages);
	if (rc) {
		fprintf(stderr, "benchmark-evict: device: %s\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	steps = nws * P_COUNT * cfgs;
	for (unsigned wi = 0; wi < nws && !rc; wi++) {
		unsigned n = (unsigned)(eo.capacity_mib * 1024 * ws[wi] / 100 / eo.bo_kib);
		struct ev_set set;

		rc = set_make(&set, sim || hw ? NULL : &md, i915, hwdev, hw ? &hw_target : NULL, n,
			      eo.bo_kib * 1024, run.opts.seed + wi);
		for (unsigned c = 0; c < cfgs && !rc; c++) {
			unsigned nclients = c ? nclients_max : 1;

			for (int p = 0; p < P_COUNT && !rc; p++) {
				struct point_metrics pm;
				struct ev_figures fig;
				char pat[32];

				snprintf(pat, sizeof(pat), nclients > 1 ? "%s_c%u" : "%s",
					 pattern_names[p], nclients);
				bench_progress(&run, "eviction", (double)step++ / steps);
				rc = point_add(&run, pat, ws[wi], nclients, &pm);
				if (rc)
					break;
				if (p == P_ZIPF && nclients == 1 && ws[wi] == 50)
					zipf_lo = pm.tp;
				if (p == P_ZIPF && nclients == 1 && ws[wi] == 200)
					zipf_hi = pm.tp;
				if (p == P_CYCLIC && ws[wi] > 100)
					bench_metric_target(pm.ev, 1.0, BENCH_TARGET_AT_MOST);
				/* One warm-up repetition: fills VRAM in this order. */
				rc = ev_rep(&run, &set, (enum pattern)p, nclients, secs,
					    run.opts.seed, &fig);
				for (unsigned r = 0; !rc && r < run.opts.reps; r++) {
					rc = ev_rep(&run, &set, (enum pattern)p, nclients, secs,
						    run.opts.seed + r + 1, &fig);
					rc = rc ? rc : bench_metric_sample(pm.tp, fig.throughput);
					rc = rc ? rc : bench_metric_sample(pm.ev, fig.evictions);
					rc = rc ? rc : bench_metric_sample(pm.mv, fig.moved);
					if (!rc && isfinite(fig.copy_bw))
						rc = bench_metric_sample(pm.cb, fig.copy_bw);
				}
				if (!rc && eo.bo_kib >= 1024 && ws[wi] > 100 &&
				    run.refs[BENCH_REF_MEMCPY_BW].measured)
					bench_metric_target(
					    pm.cb, 0.8 * run.refs[BENCH_REF_MEMCPY_BW].stats.median,
					    BENCH_TARGET_AT_LEAST);
			}
		}
		if (set.bos)
			set_free(&set);
	}
	bench_progress_done(&run);
	if ((hw ? bench_hw_close(&eo.hw) : sim ? bench_simdev_close(i915) : bench_mockdev_fini(&md)) &&
	    !rc)
		rc = -EBUSY;
	if (rc) {
		fprintf(stderr, "benchmark-evict: failed (%s)\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	if (zipf_lo && zipf_hi) {
		/* Smooth degradation: zipf at 2x keeps a quarter of its 0.5x rate. */
		struct bench_stats st;

		if (!bench_metric_stats(zipf_lo, &st)) {
			bench_metric_target(zipf_hi, 0.25 * st.median, BENCH_TARGET_AT_LEAST);
			bench_metric_label(zipf_hi, "target", ">= 0.25x evict.zipf.ws50.throughput");
		}
	}
	return bench_run_finish(&run);
}
