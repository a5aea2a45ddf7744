// SPDX-License-Identifier: MIT
/*
 * benchmark-pagelimit: the global page cap under pressure (issue 7, item 4).
 *
 * Buffers are ttm_tt page sets from one ttm_pool, charged to ttm_global with
 * the cap set to --cap-mib. A swapping shrinker in this program plays the
 * device's part: it swaps the least recently used populated buffer out to
 * its memfd when a reservation hits the cap. (The layer is recorded as
 * parameter layer=tt: this measures the core's pool, accounting and swap
 * paths, not a driver.)
 *
 * For 1 and N threads (N = --threads, default one per logical CPU), each
 * repetition:
 *   1. fill: populate and touch (one write per page) buffers up to
 *      --overcommit x the cap; before the first shrink this is the
 *      allocation rate, after it every populate swaps something out;
 *   2. revisit: touch every buffer again in the same order, so each one was
 *      swapped out and comes back in (the LRU-hostile order).
 * Figures: allocation bandwidth before the cap (vs memcpy), swap-out bandwidth
 * (vs raw memfd write), swap-in bandwidth (vs memcpy), the peak accounted
 * pages and the peak RSS growth as fractions of the cap, and a time series of
 * accounted pages, RSS, cap and swap-outs (series pagelimit-t<N>).
 * Then once with swap disabled: time to the first -ENOMEM and how full the
 * cap was at that point.
 *
 * What the swap-out figure includes: the whole ttm_tt_swapout() of each
 * victim, timed inside the shrinker: taking a swap memfd, copying every
 * byte into it, and giving the pages up (under a reservation of the same
 * pool that is handing the blocks to the waiting allocation, still charged;
 * otherwise unmapping them and punching them out of the arena). It is what a
 * user of a kernel memory manager pays per swapped buffer. Pages fresh from
 * the OS are a platform cost outside it: on a shadow-paging guest the first
 * touch of each one costs 5-14 us, which shows in alloc_bw (before the cap)
 * and in a swap-in that could not be served from recycled blocks.
 *
 * --backend=hw is not applicable and exits 77 saying so: the hw back end's
 * BOs keep their pages in GEM objects (EXTERNAL tts) that the kernel
 * allocates, accounts and swaps, so they never pass through ttm_pool, the
 * cap is never charged and our shrinker can swap none of them; a run would
 * measure an empty cap. (--device is accepted and ignored, so a script can
 * hand every benchmark the same arguments.)
 */
#include <ttm/list.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_tt.h>
#include <bench.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ull * 1024ull)

struct pl_opts {
	uint64_t cap_mib;
	uint64_t bo_kib;
	double overcommit;
};

/*
 * One buffer. @lock serialises every call on @tt (the tt contract); @lru is
 * protected by pl_dev.lru_lock and linked only while @tt is populated.
 */
struct pl_bo {
	struct ttm_tt tt;
	pthread_mutex_t lock;
	struct list_head lru;
	bool on_lru;
};

/*
 * The stand-in device: pool, LRU of populated buffers and the swap shrinker.
 * Lock order: pl_bo.lock, then lru_lock; the shrinker holds lru_lock only to
 * pick a victim it could trylock, never across the swap-out.
 */
struct pl_dev {
	struct ttm_pool pool;
	struct ttm_global_shrinker shrinker;
	pthread_mutex_t lru_lock;
	struct list_head lru;
	struct pl_bo *bos;
	unsigned nbos;
	uint64_t bo_size;
	atomic_ulong swapouts;
	atomic_ullong swapout_bytes;
	atomic_ullong swapout_ns;
};

/* Swap-out time spent by the calling thread's own reservations. */
static _Thread_local uint64_t tls_swapout_ns;

static unsigned long pl_scan(struct ttm_global_shrinker *s, unsigned long nr_pages,
			     struct ttm_operation_ctx *ctx)
{
	struct pl_dev *d = container_of(s, struct pl_dev, shrinker);
	unsigned long freed = 0;

	(void)ctx;
	while (freed < nr_pages) {
		struct pl_bo *victim = NULL, *bo;
		uint64_t t0;
		long n;

		pthread_mutex_lock(&d->lru_lock);
		list_for_each_entry (bo, &d->lru, struct pl_bo, lru) {
			if (!pthread_mutex_trylock(&bo->lock)) {
				victim = bo;
				list_del_init(&bo->lru);
				bo->on_lru = false;
				break;
			}
		}
		pthread_mutex_unlock(&d->lru_lock);
		if (!victim)
			break;
		t0 = testlib_now_raw_ns();
		n = ttm_tt_swapout(&d->pool, &victim->tt);
		t0 = testlib_now_raw_ns() - t0;
		if (n > 0) {
			freed += (unsigned long)n;
			tls_swapout_ns += t0;
			atomic_fetch_add(&d->swapouts, 1);
			atomic_fetch_add(&d->swapout_bytes, (uint64_t)n * TTM_PAGE_SIZE);
			atomic_fetch_add(&d->swapout_ns, t0);
		} else {
			/* Still populated: back where it was, and stop trying. */
			pthread_mutex_lock(&d->lru_lock);
			list_add(&victim->lru, &d->lru);
			victim->on_lru = true;
			pthread_mutex_unlock(&d->lru_lock);
			pthread_mutex_unlock(&victim->lock);
			break;
		}
		pthread_mutex_unlock(&victim->lock);
	}
	return freed;
}

static uint64_t rss_pages(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%lu %lu", &size, &resident) == 2;
	fclose(f);
	return ok ? resident * (uint64_t)sysconf(_SC_PAGESIZE) / TTM_PAGE_SIZE : 0;
}

/* The sampler keeps its rows itself; the main thread appends them after join. */
struct sampler {
	struct pl_dev *d;
	atomic_bool stop;
	uint64_t t0, rss_base, cap_pages, swapouts0;
	double (*rows)[5];
	size_t n, cap;
	uint64_t peak_rss;
	pthread_t thread;
};

static void *sampler_thread(void *p)
{
	struct sampler *s = p;

	while (!atomic_load(&s->stop)) {
		struct timespec ts = {0, 5000000};
		struct ttm_global_stats st;
		uint64_t rss = rss_pages();

		ttm_global_get_stats(&st);
		if (rss > s->peak_rss)
			s->peak_rss = rss;
		if (s->n < s->cap) {
			double *r = s->rows[s->n++];

			r[0] = (double)(testlib_now_raw_ns() - s->t0) * 1e-9;
			r[1] = (double)st.pages;
			r[2] = rss > s->rss_base ? (double)(rss - s->rss_base) : 0.0;
			r[3] = (double)s->cap_pages;
			r[4] = (double)(atomic_load(&s->d->swapouts) - s->swapouts0);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Per-thread result of one repetition. */
struct pl_worker {
	struct pl_dev *d;
	struct bench_run *run;
	unsigned index, nthreads;
	uint64_t alloc_bytes, alloc_ns;	  /* populates that did not reach the cap */
	uint64_t swapin_bytes, swapin_ns; /* populates of swapped buffers, own swap-outs excluded */
	int err;
	pthread_t thread;
};

/* Populate @bo if needed, touch a word per page, make it most recently used. */
static int pl_touch(struct pl_dev *d, struct pl_bo *bo, struct pl_worker *w, bool fill)
{
	struct ttm_global_stats before, after;
	bool was_swapped;
	uint64_t t0, own0;
	int rc;

	pthread_mutex_lock(&bo->lock);
	was_swapped = ttm_tt_is_swapped(&bo->tt);
	ttm_global_get_stats(&before);
	own0 = tls_swapout_ns;
	t0 = testlib_now_raw_ns();
	rc = ttm_tt_populate(&d->pool, &bo->tt, NULL);
	if (!rc) {
		for (uint32_t i = 0; i < bo->tt.num_pages; i++)
			*(volatile uint64_t *)bo->tt.pages[i] = ((uint64_t)i << 20) ^ (uintptr_t)bo;
	}
	t0 = testlib_now_raw_ns() - t0;
	ttm_global_get_stats(&after);
	if (!rc) {
		if (fill && !was_swapped && after.shrink_calls == before.shrink_calls) {
			w->alloc_bytes += d->bo_size;
			w->alloc_ns += t0;
		} else if (was_swapped) {
			uint64_t own = tls_swapout_ns - own0;

			w->swapin_bytes += d->bo_size;
			w->swapin_ns += t0 > own ? t0 - own : 0;
		}
		pthread_mutex_lock(&d->lru_lock);
		if (bo->on_lru)
			list_move_tail(&bo->lru, &d->lru);
		else
			list_add_tail(&bo->lru, &d->lru);
		bo->on_lru = true;
		pthread_mutex_unlock(&d->lru_lock);
	}
	pthread_mutex_unlock(&bo->lock);
	return rc;
}

static void *pl_worker_thread(void *p)
{
	struct pl_worker *w = p;
	struct pl_dev *d = w->d;

	bench_pin_thread(w->run, w->index);
	for (int pass = 0; pass < 2 && !w->err; pass++)
		for (unsigned k = w->index; k < d->nbos && !w->err; k += w->nthreads)
			w->err = pl_touch(d, &d->bos[k], w, pass == 0);
	return NULL;
}

/* Every buffer back to unpopulated (pages to the pool, swap copies closed). */
static void pl_release_all(struct pl_dev *d)
{
	for (unsigned k = 0; k < d->nbos; k++) {
		struct pl_bo *bo = &d->bos[k];

		pthread_mutex_lock(&d->lru_lock);
		if (bo->on_lru)
			list_del_init(&bo->lru);
		bo->on_lru = false;
		pthread_mutex_unlock(&d->lru_lock);
		ttm_tt_fini(&d->pool, &bo->tt);
		ttm_tt_init(&bo->tt, d->bo_size, 0, ttm_cached, 0);
	}
}

struct pl_figures {
	double alloc_bw, swapout_bw, swapin_bw, accounted_peak, rss_peak;
};

static int pl_rep(struct bench_run *run, struct pl_dev *d, unsigned nthreads, uint64_t cap_pages,
		  uint64_t rss_base, struct bench_series *series, struct pl_figures *fig)
{
	struct pl_worker *w = calloc(nthreads, sizeof(*w));
	struct sampler s = {.d = d, .rss_base = rss_base, .cap_pages = cap_pages};
	struct ttm_global_config cfg = {.limit_pages = cap_pages};
	uint64_t ab = 0, an = 0, ib = 0, in = 0, ob0, on0;
	struct ttm_global_stats st;
	unsigned started;
	int rc = 0;

	s.cap = 20000;
	s.rows = calloc(s.cap, sizeof(*s.rows));
	if (!w || !s.rows) {
		free(w);
		free(s.rows);
		return -ENOMEM;
	}
	/*
	 * Start from an empty pool, so "before the cap" means pages from the
	 * OS (as a fresh process sees them), not the free lists the previous
	 * repetition left charged.
	 */
	ttm_pool_shrink(&d->pool, ~0ul);
	ttm_global_config(&cfg);
	ttm_global_reset_high_water();
	ob0 = atomic_load(&d->swapout_bytes);
	on0 = atomic_load(&d->swapout_ns);
	atomic_init(&s.stop, false);
	s.swapouts0 = atomic_load(&d->swapouts);
	s.t0 = testlib_now_raw_ns();
	if (pthread_create(&s.thread, NULL, sampler_thread, &s)) {
		free(w);
		free(s.rows);
		return -EAGAIN;
	}
	for (started = 0; started < nthreads; started++) {
		w[started] =
		    (struct pl_worker){.d = d, .run = run, .index = started, .nthreads = nthreads};
		if (pthread_create(&w[started].thread, NULL, pl_worker_thread, &w[started])) {
			rc = -EAGAIN;
			break;
		}
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err && !rc)
			rc = w[i].err;
		ab += w[i].alloc_bytes;
		an += w[i].alloc_ns;
		ib += w[i].swapin_bytes;
		in += w[i].swapin_ns;
	}
	atomic_store(&s.stop, true);
	pthread_join(s.thread, NULL);
	ttm_global_get_stats(&st);
	if (series)
		for (size_t i = 0; i < s.n; i++)
			bench_series_append(series, s.rows[i][0], &s.rows[i][1]);
	/* Per-thread times summed: bandwidths are per thread, not aggregate. */
	fig->alloc_bw = an ? (double)ab / (double)an : 0.0;
	fig->swapin_bw = in ? (double)ib / (double)in : 0.0;
	on0 = atomic_load(&d->swapout_ns) - on0;
	fig->swapout_bw = on0 ? (double)(atomic_load(&d->swapout_bytes) - ob0) / (double)on0 : 0.0;
	fig->accounted_peak = (double)st.high_water / (double)cap_pages;
	fig->rss_peak =
	    s.peak_rss > rss_base ? (double)(s.peak_rss - rss_base) / (double)cap_pages : 0.0;
	free(w);
	free(s.rows);
	pl_release_all(d);
	return rc;
}

/* Swap disabled: populate until the first -ENOMEM. */
static int pl_nosw(struct pl_dev *d, uint64_t cap_pages, double *ms, double *fill)
{
	struct ttm_global_config cfg = {.limit_pages = cap_pages, .swap_disabled = true};
	struct ttm_global_stats st;
	uint64_t t0;
	int rc = 0;

	ttm_pool_shrink(&d->pool, ~0ul);
	ttm_global_config(&cfg);
	t0 = testlib_now_raw_ns();
	for (unsigned k = 0; k < d->nbos; k++) {
		rc = ttm_tt_populate(&d->pool, &d->bos[k].tt, NULL);
		if (rc)
			break;
		for (uint32_t i = 0; i < d->bos[k].tt.num_pages; i++)
			*(volatile uint64_t *)d->bos[k].tt.pages[i] = i;
	}
	*ms = (double)(testlib_now_raw_ns() - t0) * 1e-6;
	ttm_global_get_stats(&st);
	*fill = (double)st.pages / (double)cap_pages;
	pl_release_all(d);
	cfg.swap_disabled = false;
	ttm_global_config(&cfg);
	return rc == -ENOMEM ? 0 : (rc ? rc : -ENOSPC);
}

static int set_u64(const char *arg, uint64_t *v, uint64_t min, char *err, size_t errlen)
{
	/* At most 2^24: MiB and KiB values become byte counts without overflow. */
	if (bench_parse_u64(arg, min, 1ull << 24, v)) {
		snprintf(err, errlen, "expected an integer in %llu..%llu, got '%s'",
			 (unsigned long long)min, 1ull << 24, arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_cap(void *ctx, const char *arg, char *err, size_t errlen)
{
	return set_u64(arg, &((struct pl_opts *)ctx)->cap_mib, 1, err, errlen);
}

static int opt_bo(void *ctx, const char *arg, char *err, size_t errlen)
{
	return set_u64(arg, &((struct pl_opts *)ctx)->bo_kib, 4, err, errlen);
}

static int opt_over(void *ctx, const char *arg, char *err, size_t errlen)
{
	char *end;
	double x = strtod(arg, &end);

	if (!*arg || *end || !(x >= 1.0 && x <= 16.0) || *arg < '0' || *arg > '9' ||
	    arg[strspn(arg, "0123456789.")]) {
		snprintf(err, errlen, "expected a factor from 1 to 16, got '%s'", arg);
		return -EINVAL;
	}
	((struct pl_opts *)ctx)->overcommit = x;
	return 0;
}

static int opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	(void)ctx;
	(void)arg;
	(void)err;
	(void)errlen;
	return 0;
}

static const struct bench_opt pl_extra[] = {
    {"cap-mib", "MIB", "page cap (default 256, 32 with --quick; at most RAM/2)", opt_cap},
    {"bo-kib", "KIB", "buffer size (default 1024, 256 with --quick)", opt_bo},
    {"overcommit", "X", "allocate X times the cap (default 2)", opt_over},
    {"device", "PATH", "ignored (--backend=hw does not apply to this benchmark)", opt_device},
    {NULL, NULL, NULL, NULL},
};

static struct bench_metric *metric(struct bench_run *run, unsigned t, const char *what,
				   const char *unit, enum bench_direction dir)
{
	char name[96], lbl[16];
	struct bench_metric *m;

	snprintf(name, sizeof(name), "pagelimit.t%u.%s", t, what);
	m = bench_metric_add(run, name, unit, dir);
	snprintf(lbl, sizeof(lbl), "%u", t);
	if (m)
		bench_metric_label(m, "threads", lbl);
	return m;
}

int main(int argc, char **argv)
{
	struct pl_opts po = {0};
	struct pl_dev d = {0};
	struct bench_run run;
	uint64_t cap_pages, rss_base;
	unsigned tcounts[2], ntc;
	int rc;

	rc = bench_setup(&run, "pagelimit", argc, argv, pl_extra, &po);
	if (rc)
		return bench_exit_code(rc);
	if (run.opts.backend == BENCH_BACKEND_HW) {
		fprintf(stderr, "benchmark-pagelimit: SKIP: not applicable to hw (GEM-backed pages "
				"are the kernel's: the TTM page cap never sees them)\n");
		bench_run_fini(&run);
		return 77;
	}
	if (!po.cap_mib)
		po.cap_mib = run.opts.quick ? 32 : 256;
	if (!po.bo_kib)
		po.bo_kib = run.opts.quick ? 256 : 1024;
	if (po.overcommit == 0.0)
		po.overcommit = 2.0;
	if (po.cap_mib * MIB > run.machine.ram_bytes / 2) {
		fprintf(stderr,
			"benchmark-pagelimit: --cap-mib %llu is more than half of RAM (RAM: %llu "
			"MiB)\n",
			(unsigned long long)po.cap_mib,
			(unsigned long long)(run.machine.ram_bytes / MIB));
		bench_run_fini(&run);
		return 2;
	}
	if (po.bo_kib * 1024 > po.cap_mib * MIB) {
		fprintf(stderr, "benchmark-pagelimit: --bo-kib %llu is larger than the cap\n",
			(unsigned long long)po.bo_kib);
		bench_run_fini(&run);
		return 2;
	}
	if (!run.opts.reps_set)
		run.opts.reps = run.opts.quick ? 2 : 3;
	cap_pages = po.cap_mib * MIB / TTM_PAGE_SIZE;
	d.bo_size = po.bo_kib * 1024;
	d.nbos = (unsigned)((double)(po.cap_mib * MIB) * po.overcommit / (double)d.bo_size);
	tcounts[0] = 1;
	tcounts[1] = run.opts.threads_set ? run.opts.threads : run.machine.pus;
	ntc = tcounts[1] > 1 ? 2 : 1;
	bench_run_param(&run, "layer", "%s", "tt");
	bench_run_param(&run, "cap_mib", "%llu", (unsigned long long)po.cap_mib);
	bench_run_param(&run, "bo_kib", "%llu", (unsigned long long)po.bo_kib);
	bench_run_param(&run, "overcommit", "%g", po.overcommit);
	bench_run_param(&run, "threads", "1,%u", tcounts[ntc - 1]);
	bench_run_backend_param(&run, "backend", "%s", "core (no driver: pool, accounting, swap)");

	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-pagelimit: a reference failed (%d)\n", rc);

	d.bos = calloc(d.nbos, sizeof(*d.bos));
	if (!d.bos || ttm_pool_init(&d.pool, false) || pthread_mutex_init(&d.lru_lock, NULL)) {
		fprintf(stderr, "benchmark-pagelimit: out of memory\n");
		free(d.bos);
		bench_run_fini(&run);
		return 1;
	}
	INIT_LIST_HEAD(&d.lru);
	for (unsigned k = 0; k < d.nbos; k++) {
		pthread_mutex_init(&d.bos[k].lock, NULL);
		INIT_LIST_HEAD(&d.bos[k].lru);
		ttm_tt_init(&d.bos[k].tt, d.bo_size, 0, ttm_cached, 0);
	}
	d.shrinker.scan = pl_scan;
	d.shrinker.swaps = true;
	ttm_global_register_shrinker(&d.shrinker);
	rss_base = rss_pages();

	for (unsigned c = 0; c < ntc && !rc; c++) {
		unsigned t = tcounts[c];
		static const char *const cols[] = {"accounted_pages", "rss_pages", "cap_pages",
						   "swapouts"};
		struct bench_metric *alloc, *sout, *sin, *acc, *rss;
		struct bench_series *series;
		char sname[32];

		snprintf(sname, sizeof(sname), "pagelimit-t%u", t);
		series = bench_series_add(&run, sname, cols, 4);
		alloc = metric(&run, t, "alloc_bw", "GB/s", BENCH_HIGHER_IS_BETTER);
		sout = metric(&run, t, "swapout_bw", "GB/s", BENCH_HIGHER_IS_BETTER);
		sin = metric(&run, t, "swapin_bw", "GB/s", BENCH_HIGHER_IS_BETTER);
		acc = metric(&run, t, "accounted_peak_of_cap", "x cap", BENCH_LOWER_IS_BETTER);
		rss = metric(&run, t, "rss_peak_of_cap", "x cap", BENCH_LOWER_IS_BETTER);
		if (!series || !alloc || !sout || !sin || !acc || !rss) {
			rc = -ENOMEM;
			break;
		}
		bench_metric_reference(alloc, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(sout, BENCH_REF_MEMFD_WRITE_BW, BENCH_RATIO_VALUE_OVER_REF);
		bench_metric_reference(sin, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
		if (run.refs[BENCH_REF_MEMFD_WRITE_BW].measured)
			bench_metric_target(sout,
					    0.5 * run.refs[BENCH_REF_MEMFD_WRITE_BW].stats.median,
					    BENCH_TARGET_AT_LEAST);
		bench_metric_target(acc, 1.0, BENCH_TARGET_AT_MOST);
		bench_metric_target(rss, 1.05, BENCH_TARGET_AT_MOST);
		bench_metric_label(acc, "reference", "the cap itself");
		bench_metric_label(rss, "reference", "the cap itself (RSS growth over the start)");
		for (int r = -(int)run.opts.warmup; r < (int)run.opts.reps && !rc; r++) {
			struct pl_figures fig;

			bench_progress(&run, sname,
				       (double)(r + (int)run.opts.warmup) /
					   (double)(run.opts.reps + run.opts.warmup));
			/* The series shows the first measured repetition. */
			rc = pl_rep(&run, &d, t, cap_pages, rss_base, r == 0 ? series : NULL, &fig);
			if (rc || r < 0)
				continue;
			rc = bench_metric_sample(alloc, fig.alloc_bw);
			rc = rc ? rc : bench_metric_sample(sout, fig.swapout_bw);
			rc = rc ? rc : bench_metric_sample(sin, fig.swapin_bw);
			rc = rc ? rc : bench_metric_sample(acc, fig.accounted_peak);
			rc = rc ? rc : bench_metric_sample(rss, fig.rss_peak);
		}
	}
	if (!rc) {
		struct bench_metric *tm = bench_metric_add(&run, "pagelimit.noswap.time_to_enomem",
							   "ms", BENCH_LOWER_IS_BETTER);
		struct bench_metric *fl = bench_metric_add(&run, "pagelimit.noswap.fill_at_enomem",
							   "x cap", BENCH_HIGHER_IS_BETTER);

		if (!tm || !fl)
			rc = -ENOMEM;
		for (unsigned r = 0; !rc && r < run.opts.reps; r++) {
			double ms, fill;

			bench_progress(&run, "swap disabled", (double)r / (double)run.opts.reps);
			rc = pl_nosw(&d, cap_pages, &ms, &fill);
			rc = rc ? rc : bench_metric_sample(tm, ms);
			rc = rc ? rc : bench_metric_sample(fl, fill);
		}
		if (!rc) {
			bench_metric_label(fl, "reference", "the cap itself");
			bench_metric_target(fl, 0.95, BENCH_TARGET_AT_LEAST);
		}
	}
	bench_progress_done(&run);
	ttm_global_unregister_shrinker(&d.shrinker);
	for (unsigned k = 0; k < d.nbos; k++) {
		ttm_tt_fini(&d.pool, &d.bos[k].tt);
		pthread_mutex_destroy(&d.bos[k].lock);
	}
	ttm_pool_fini(&d.pool);
	pthread_mutex_destroy(&d.lru_lock);
	free(d.bos);
	if (rc) {
		fprintf(stderr, "benchmark-pagelimit: failed (%s)\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
