// SPDX-License-Identifier: MIT
/*
 * benchmark-map-fault: the cost of the first CPU touch of a mapped BO, per
 * 4 KiB page, in both fault mechanisms (sigsegv and uffd; uffd is left out
 * when the kernel refuses userfaultfd and under valgrind, whose one-thread-at-a-time
 * scheduling a userfaultfd fault would deadlock). Under callgrind each case's
 * first touch of every page is a region of the instruction axis
 * (instructions per page).
 *
 *  map_fault.<mode>.sys.<order>      ns per page of the first write to every
 *                                    page of a SYSTEM BO through ttm_bo_mmap()
 *                                    (the fault populates the tt and maps a
 *                                    16-page window of the pool's memfd pages
 *                                    shared, no copy), order seq or random
 *  map_fault.<mode>.anon.<order>     the reference, measured in the same
 *                                    repetition: ns per page of the kernel's
 *                                    own first touch of a fresh anonymous
 *                                    mapping of the same size, same order
 *  map_fault.<mode>.sys.<order>.ratio  sys / anon of the same repetition
 *                                    (target for seq: <= 3)
 *  map_fault.<mode>.migrate.<order>  the same for a BO that sits in VRAM and
 *                                    whose CPU placement is SYSTEM, so the
 *                                    first fault moves all of it (one memcpy
 *                                    out of the VRAM host buffer) and maps
 *                                    all of it, in GB/s of BO size over the
 *                                    time to touch every page. Warm pool:
 *                                    the pool holds enough recycled pages
 *                                    (already faulted in) before every
 *                                    repetition, the steady state of a
 *                                    driver that migrates BOs again and
 *                                    again; a repetition that took a fresh
 *                                    OS page fails the run
 *  map_fault.<mode>.migrate.<order>.memcpy_bw_ratio  that bandwidth over
 *                                    the harness memcpy reference
 *                                    (memcpy_bw, warm buffers, same run):
 *                                    the target, >= 0.5, applies
 *                                    to this warm figure
 *  map_fault.<mode>.migrate.<order>.ratio  that bandwidth over a memcpy of
 *                                    the same size into a fresh anonymous
 *                                    buffer timed in the same repetition
 *                                    (map_fault.<mode>.memcpy.<order>)
 *  map_fault.<mode>.migrate_cold.<order>  the same with a cold pool: it is
 *                                    emptied to the OS before every
 *                                    repetition, so the migration lands in
 *                                    pages the kernel allocates and zeroes
 *                                    on first touch (every page taken fresh,
 *                                    checked); no target, shown so the cold
 *                                    cost is not hidden; with .ratio (over
 *                                    map_fault.<mode>.memcpy_cold.<order>,
 *                                    the fresh-page memcpy of the same
 *                                    repetition) and .memcpy_bw_ratio
 *
 * Breakdown of each migration (both kinds, <kind> migrate or migrate_cold),
 * same repetition, same BO:
 *  map_fault.<mode>.<kind>.<order>.fault_ns  the first touch alone (the one
 *                                    fault: trap, validate with its copy,
 *                                    install of the whole BO), in ns per BO
 *                                    page
 *  map_fault.<mode>.<kind>.<order>.touch_ns  ns per page of the touches of
 *                                    the other pages, already installed:
 *                                    the machine's first access to a new
 *                                    user PTE (no fault of ours in them)
 *  map_fault.<mode>.<kind>.<order>.touch_kfaults  kernel page faults the
 *                                    touching thread took during those
 *                                    touches (expected 0: a cost there is
 *                                    the hypervisor's, not the kernel's)
 *  map_fault.<mode>.<kind>.<order>.faults, .remaps  our faults per BO and
 *                                    the system calls (mmap of a memfd run)
 *                                    that installed its pages
 * The floor, the platform's bound for the same migration measured in the
 * same repetition, with memfd pages of the pool's kind (warm: resident
 * pages behind a standing mapping, as recycled pool pages are; cold: a new
 * memfd, its pages allocated and zeroed inside the copy as fresh pool
 * pages are) and no code of ours:
 *  map_fault.<mode>.<kind>.<order>.floor_copy  GB/s of the copy alone, from
 *                                    the VRAM host buffer into those pages
 *  map_fault.<mode>.<kind>.<order>.floor_remap_ns  ns per page to map the
 *                                    same pages at a new address with
 *                                    MAP_POPULATE (as a fault installs them)
 *                                    and write each once in the touch order
 *  map_fault.<mode>.<kind>.<order>.floor_remap_nopop_ns  the same without
 *                                    MAP_POPULATE (a kernel fault per page)
 *  map_fault.<mode>.<kind>.<order>.floor  GB/s of BO size over copy + the
 *                                    cheaper remap: what a migration that
 *                                    must copy the BO and hand the user new
 *                                    PTEs can reach here at best
 *  map_fault.<mode>.<kind>.<order>.floor_ratio  migration bandwidth over
 *                                    that floor (1 = no cost of ours beyond
 *                                    the copy and the remap)
 *  map_fault.<mode>.<kind>.<order>.floor_memcpy_bw_ratio  the floor over
 *                                    memcpy_bw: the most .memcpy_bw_ratio
 *                                    can be on this machine
 * On a machine whose first access to a new PTE costs microseconds (shadow
 * page tables of a PVM guest: 5-14 us a page), the remap term dominates
 * and the floor sits far below the 0.5 target; on bare metal it is the copy.
 *
 * For ttm-compare, the anon and memcpy references, .touch_ns,
 * .touch_kfaults and the floor figures but .floor_ratio are marked
 * platform figures (shown, never judged), and the floor bounds the
 * migration's bandwidth, .memcpy_bw_ratio and .fault_ns (the anon first
 * touch bounds sys.<order>): on this PVM guest the floor moved 2x between
 * two runs of one build, and those figures with it, .floor_ratio not.
 *
 * The mock device's VRAM is CPU-visible; the migration is forced by the CPU
 * placement given to ttm_bo_mmap(), which takes the same path a BO in
 * non-visible memory takes (validate to SYSTEM, then install).
 * BO size: 64 MiB, 16 MiB with --quick.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bench.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_pool.h>

#include "bench_mockdev.h"
#include "ttm_config.h"
#if TTM_HAVE_CALLGRIND_H
#include <valgrind/valgrind.h>
#endif

#define PG 4096ul

/**
 * struct mf_case - what one repetition measures.
 * @run: the run (for the harness memcpy reference).
 * @md: the mock device (VRAM big enough for one BO).
 * @num_pages: BO size in pages.
 * @order: the touch order (page indices), a permutation.
 * @migrate: the BO starts in VRAM and is mapped with a SYSTEM CPU placement.
 * @cold: (@migrate only) the pool is emptied before each repetition instead
 *	of holding enough recycled pages.
 * @floor_fd: (@migrate, warm only) the memfd whose resident pages stand for
 *	recycled pool pages in the floor measurement, -1 until made.
 * @floor_view: its standing mapping (the pool's own view of its pages).
 * @ref: the reference metric (anon ns/page or memcpy GB/s) of this case.
 * @ratio: the ratio metric of this case.
 * @bw_ratio: (@migrate only) bandwidth over the harness memcpy reference,
 *	NULL when that reference was not measured.
 * @fault_ns, @touch_ns, @touch_kfaults, @faults, @remaps: (@migrate only)
 *	the breakdown of one migration, see the header comment.
 * @floor_copy, @floor_remap, @floor_remap_nopop, @floor, @floor_ratio,
 * @floor_bw_ratio: (@migrate only) the platform floor, same repetition
 *	(@floor_bw_ratio NULL without the memcpy reference).
 */
struct mf_case {
	struct bench_run *run;
	struct bench_metric *m; /* the case's own metric: its instructions per page */
	struct testlib_mock_device *md;
	unsigned long num_pages;
	const unsigned long *order;
	bool migrate;
	bool cold;
	int floor_fd;
	uint8_t *floor_view;
	struct bench_metric *ref;
	struct bench_metric *ratio;
	struct bench_metric *bw_ratio;
	struct bench_metric *fault_ns;
	struct bench_metric *touch_ns;
	struct bench_metric *touch_kfaults;
	struct bench_metric *faults;
	struct bench_metric *remaps;
	struct bench_metric *floor_copy;
	struct bench_metric *floor_remap;
	struct bench_metric *floor_remap_nopop;
	struct bench_metric *floor;
	struct bench_metric *floor_ratio;
	struct bench_metric *floor_bw_ratio;
};

/**
 * struct mf_times - one repetition's raw figures of a migration case.
 * @total_ns: first touch of every page of the BO, the migrating fault included.
 * @fault_ns: the first touch alone (the fault: move, install of the BO).
 * @touch_kfaults: kernel page faults the touching thread took after it.
 * @faults, @remaps: the BO mapping's counters (ttm_bo_vm_get_stats()).
 * @copy_ns: floor: the copy alone into memfd pages of the pool's kind.
 * @remap_ns: floor: those pages mapped anew (MAP_POPULATE), each written once.
 * @nopop_ns: floor: the same without MAP_POPULATE.
 */
struct mf_times {
	uint64_t total_ns;
	uint64_t fault_ns;
	uint64_t touch_kfaults;
	uint64_t faults;
	uint64_t remaps;
	uint64_t copy_ns;
	uint64_t remap_ns;
	uint64_t nopop_ns;
};

/* Every page written once in @order; the mapping must be fresh. */
static void touch(volatile uint8_t *p, const unsigned long *order, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		p[order[i] * PG] = (uint8_t)i;
}

static int anon_ns_per_page(const struct mf_case *c, double *ns)
{
	size_t size = c->num_pages * PG;
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0;

	if (p == MAP_FAILED)
		return -errno;
	t0 = testlib_now_raw_ns();
	touch(p, c->order, c->num_pages);
	*ns = (double)(testlib_now_raw_ns() - t0) / (double)c->num_pages;
	munmap(p, size);
	return 0;
}

/* GB/s of a memcpy of the BO's size into a buffer the kernel has to fault in. */
static int memcpy_gbps(const struct mf_case *c, double *gbps)
{
	size_t size = c->num_pages * PG;
	uint8_t *src = c->md->vram_mem;
	uint8_t *dst = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0;

	if (dst == MAP_FAILED)
		return -errno;
	t0 = testlib_now_raw_ns();
	memcpy(dst, src, size);
	*gbps = (double)size / (double)(testlib_now_raw_ns() - t0);
	munmap(dst, size);
	return 0;
}

static unsigned long pool_free_pages(struct ttm_pool *pool)
{
	unsigned long n = 0;

	for (unsigned int o = 0; o <= TTM_POOL_MAX_ORDER; o++)
		n += ttm_pool_nr_free(pool, ttm_cached, o) << o;
	return n;
}

/*
 * Leaves @c's pool warm (at least a BO's worth of recycled cached pages,
 * faulted in) or cold (no free page: everything went back to the OS).
 */
static int pool_prepare(const struct mf_case *c)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_pool *pool = &c->md->bdev.pool;
	struct ttm_buffer_object *bo;
	struct ttm_placement placement;
	struct ttm_place place;
	int ret;

	if (c->cold) {
		ttm_pool_shrink(pool, ULONG_MAX);
		return 0;
	}
	if (pool_free_pages(pool) >= c->num_pages)
		return 0;
	/* A SYSTEM BO populated and freed leaves its pages on the free lists. */
	bench_mockdev_place(&placement, &place, TTM_PL_SYSTEM);
	bo = bench_mockdev_bo_create(c->md, c->num_pages * PG, &placement);
	if (!bo)
		return -ENOMEM;
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (!ret) {
		ret = ttm_bo_populate(bo, &ctx);
		ttm_bo_unreserve(bo);
	}
	ttm_bo_put(bo);
	if (!ret && pool_free_pages(pool) < c->num_pages)
		ret = -ENOMEM;
	return ret;
}

/* Kernel page faults the calling thread took so far. */
static uint64_t thread_kfaults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
}

/*
 * Times the first touch of every page of a fresh mapping of a new BO; for a
 * migration case also the first touch alone (the fault that moves and
 * installs the BO) and the kernel faults taken by the touches after it.
 */
static int bo_touch_ns(const struct mf_case *c, struct mf_times *t)
{
	static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
	static const struct ttm_placement sys = {1, &sys_place};
	struct ttm_operation_ctx ctx = {0};
	struct ttm_placement placement;
	struct ttm_buffer_object *bo;
	struct ttm_bo_vm_stats st;
	unsigned long fresh = 0;
	struct ttm_place place;
	uint64_t t0, t1, kf;
	volatile uint8_t *p;
	void *addr;
	int ret;

	if (c->migrate) {
		ret = pool_prepare(c);
		if (ret)
			return ret;
	}
	bench_mockdev_place(&placement, &place, c->migrate ? TTM_PL_VRAM : TTM_PL_SYSTEM);
	bo = bench_mockdev_bo_create(c->md, c->num_pages * PG, &placement);
	if (!bo)
		return -ENOMEM;
	ret = ttm_bo_mmap(bo, c->migrate ? &sys : NULL, &ctx, &addr);
	if (ret) {
		ttm_bo_put(bo);
		return ret;
	}
	p = addr;
	fresh = ttm_pool_os_pages(&c->md->bdev.pool);
	bench_icount_start();
	t0 = testlib_now_raw_ns();
	p[c->order[0] * PG] = 0;
	t1 = testlib_now_raw_ns();
	kf = thread_kfaults();
	touch(p, c->order + 1, c->num_pages - 1);
	t->total_ns = testlib_now_raw_ns() - t0;
	t->touch_kfaults = thread_kfaults() - kf;
	t->fault_ns = t1 - t0;
	if (bench_icount_stop(c->m, c->num_pages))
		ret = -EIO;
	fresh = ttm_pool_os_pages(&c->md->bdev.pool) - fresh;
	/* A migration case that did not migrate would measure the wrong thing. */
	if (ttm_bo_vm_get_stats(bo, &st) || st.migrations != (c->migrate ? 1u : 0u))
		ret = -EIO;
	t->faults = st.faults;
	t->remaps = st.remaps;
	/* Nor would a warm case that got fresh pages, or a cold one recycled ones. */
	if (c->migrate && fresh != (c->cold ? c->num_pages : 0)) {
		fprintf(stderr, "map_fault: %s migration took %lu fresh pages of %lu\n",
			c->cold ? "cold" : "warm", fresh, c->num_pages);
		ret = -EIO;
	}
	ttm_bo_munmap(bo);
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	return ret;
}

/* Maps @fd's first BO-size bytes anew and writes each page once in @c's order. */
static int floor_remap_ns(const struct mf_case *c, int fd, bool populate, uint64_t *ns)
{
	size_t size = c->num_pages * PG;
	uint64_t t0 = testlib_now_raw_ns();
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	touch(p, c->order, c->num_pages);
	*ns = testlib_now_raw_ns() - t0;
	munmap(p, size);
	return 0;
}

/*
 * The floor of a migration on this machine, measured in the same
 * repetition: the copy alone out of the VRAM host buffer into memfd pages of
 * the pool's kind (warm: resident pages behind a standing view, as recycled
 * pool pages are; cold: a new memfd, so the kernel allocates and zeroes its
 * pages inside the copy, as with fresh pool pages), then the same pages
 * mapped at a new address and each written once in the touch order, with
 * MAP_POPULATE (what a fault does) and without.
 */
static int floor_measure(struct mf_case *c, struct mf_times *t)
{
	size_t size = c->num_pages * PG;
	uint8_t *view = c->floor_view;
	int fd = c->floor_fd, ret;
	uint64_t t0;

	if (fd < 0) {
		fd = memfd_create("map-fault-floor", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		view = MAP_FAILED;
		if (!ftruncate(fd, (off_t)size))
			view = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (view == MAP_FAILED) {
			ret = -errno;
			close(fd);
			return ret;
		}
		if (!c->cold) {
			memset(view, 0, size);
			c->floor_fd = fd;
			c->floor_view = view;
		}
	}
	t0 = testlib_now_raw_ns();
	memcpy(view, c->md->vram_mem, size);
	t->copy_ns = testlib_now_raw_ns() - t0;
	ret = floor_remap_ns(c, fd, true, &t->remap_ns);
	if (!ret)
		ret = floor_remap_ns(c, fd, false, &t->nopop_ns);
	if (c->cold) {
		munmap(view, size);
		close(fd);
	}
	return ret;
}

static void floor_release(struct mf_case *c)
{
	if (c->floor_fd < 0)
		return;
	munmap(c->floor_view, c->num_pages * PG);
	close(c->floor_fd);
	c->floor_fd = -1;
	c->floor_view = NULL;
}

static int mf_sample(struct bench_metric *m, double v, int ret)
{
	return ret || !m ? ret : bench_metric_sample(m, v);
}

/* Records the breakdown and the floor of one migration repetition. */
static int migrate_samples(struct mf_case *c, const struct mf_times *t, double gbps)
{
	double n = (double)c->num_pages, size = n * (double)PG;
	uint64_t remap = t->remap_ns < t->nopop_ns ? t->remap_ns : t->nopop_ns;
	double floor = size / (double)(t->copy_ns + remap);
	int ret = 0;

	ret = mf_sample(c->fault_ns, (double)t->fault_ns / n, ret);
	ret = mf_sample(c->touch_ns, (double)(t->total_ns - t->fault_ns) / (n - 1), ret);
	ret = mf_sample(c->touch_kfaults, (double)t->touch_kfaults, ret);
	ret = mf_sample(c->faults, (double)t->faults, ret);
	ret = mf_sample(c->remaps, (double)t->remaps, ret);
	ret = mf_sample(c->floor_copy, size / (double)t->copy_ns, ret);
	ret = mf_sample(c->floor_remap, (double)t->remap_ns / n, ret);
	ret = mf_sample(c->floor_remap_nopop, (double)t->nopop_ns / n, ret);
	ret = mf_sample(c->floor, floor, ret);
	ret = mf_sample(c->floor_ratio, gbps / floor, ret);
	if (c->floor_bw_ratio)
		ret = mf_sample(c->floor_bw_ratio,
				floor / c->run->refs[BENCH_REF_MEMCPY_BW].stats.median, ret);
	return ret;
}

static int mf_rep(void *ctx, int rep, double *value)
{
	struct mf_case *c = ctx;
	struct mf_times t = {0};
	double ref = 0;
	int ret;

	ret = c->migrate ? memcpy_gbps(c, &ref) : anon_ns_per_page(c, &ref);
	if (!ret)
		ret = bo_touch_ns(c, &t);
	if (!ret && c->migrate)
		ret = floor_measure(c, &t);
	if (ret)
		return ret;
	if (c->migrate)
		*value = (double)(c->num_pages * PG) / (double)t.total_ns;
	else
		*value = (double)t.total_ns / (double)c->num_pages;
	/* Warm-up repetitions are not recorded, so neither are their ratios. */
	if (rep < 0)
		return 0;
	ret = bench_metric_sample(c->ref, ref);
	if (!ret)
		ret = bench_metric_sample(c->ratio, *value / ref);
	if (!ret && c->bw_ratio)
		ret = bench_metric_sample(c->bw_ratio,
					  *value / c->run->refs[BENCH_REF_MEMCPY_BW].stats.median);
	if (!ret && c->migrate)
		ret = migrate_samples(c, &t, *value);
	return ret;
}

/* Adds metric map_fault.<mode>.<kind>.<order>.<what>, labelled like the case. */
static struct bench_metric *mf_metric(struct bench_run *run, const struct mf_case *c,
				      const char *mode, const char *kind, const char *order,
				      const char *what, const char *unit, enum bench_direction dir)
{
	struct bench_metric *m;
	char name[128];

	snprintf(name, sizeof(name), "map_fault.%s.%s.%s.%s", mode, kind, order, what);
	m = bench_metric_add(run, name, unit, dir);
	if (m) {
		bench_metric_label(m, "mode", mode);
		bench_metric_label(m, "pool", c->cold ? "cold" : "warm");
	}
	return m;
}

/* The breakdown and floor metrics of a migration case. */
static int migrate_metrics(struct bench_run *run, struct mf_case *c, const char *mode,
			   const char *kind, const char *order, bool have_mref)
{
	const enum bench_direction lo = BENCH_LOWER_IS_BETTER, hi = BENCH_HIGHER_IS_BETTER;

	c->fault_ns = mf_metric(run, c, mode, kind, order, "fault_ns", "ns", lo);
	c->touch_ns = mf_metric(run, c, mode, kind, order, "touch_ns", "ns", lo);
	c->touch_kfaults = mf_metric(run, c, mode, kind, order, "touch_kfaults", "faults", lo);
	c->faults = mf_metric(run, c, mode, kind, order, "faults", "faults", lo);
	c->remaps = mf_metric(run, c, mode, kind, order, "remaps", "calls", lo);
	c->floor_copy = mf_metric(run, c, mode, kind, order, "floor_copy", "GB/s", hi);
	c->floor_remap = mf_metric(run, c, mode, kind, order, "floor_remap_ns", "ns", lo);
	c->floor_remap_nopop =
	    mf_metric(run, c, mode, kind, order, "floor_remap_nopop_ns", "ns", lo);
	c->floor = mf_metric(run, c, mode, kind, order, "floor", "GB/s", hi);
	c->floor_ratio = mf_metric(run, c, mode, kind, order, "floor_ratio", "x", hi);
	if (!c->fault_ns || !c->touch_ns || !c->touch_kfaults || !c->faults || !c->remaps ||
	    !c->floor_copy || !c->floor_remap || !c->floor_remap_nopop || !c->floor ||
	    !c->floor_ratio)
		return -ENOMEM;
	/*
	 * The machine's figures (ttm-compare shows them, never calls them a
	 * regression), and the floor as the bound of the figures of ours it
	 * caps, so a platform whose floor moved does not read as our change.
	 */
	bench_metric_platform(c->touch_ns);
	bench_metric_platform(c->touch_kfaults);
	bench_metric_platform(c->floor_copy);
	bench_metric_platform(c->floor_remap);
	bench_metric_platform(c->floor_remap_nopop);
	bench_metric_platform(c->floor);
	bench_metric_bound(c->fault_ns, c->floor);
	if (!have_mref)
		return 0;
	c->floor_bw_ratio = mf_metric(run, c, mode, kind, order, "floor_memcpy_bw_ratio", "x", hi);
	if (!c->floor_bw_ratio)
		return -ENOMEM;
	bench_metric_platform(c->floor_bw_ratio);
	return 0;
}

static int run_case(struct bench_run *run, struct mf_case *c, const char *mode, const char *order)
{
	const char *kind = !c->migrate ? "sys" : c->cold ? "migrate_cold" : "migrate";
	const struct bench_reference *mref = &run->refs[BENCH_REF_MEMCPY_BW];
	bool have_mref = mref->measured && mref->stats.median > 0;
	char name[96];
	struct bench_metric *m;
	int ret;

	c->run = run;
	snprintf(name, sizeof(name), "map_fault.%s.%s.%s", mode, kind, order);
	m = bench_metric_add(run, name, c->migrate ? "GB/s" : "ns",
			     c->migrate ? BENCH_HIGHER_IS_BETTER : BENCH_LOWER_IS_BETTER);
	if (c->migrate) {
		snprintf(name, sizeof(name), "map_fault.%s.%s.%s", mode,
			 c->cold ? "memcpy_cold" : "memcpy", order);
		c->ref = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
	} else {
		snprintf(name, sizeof(name), "map_fault.%s.anon.%s", mode, order);
		c->ref = bench_metric_add(run, name, "ns", BENCH_LOWER_IS_BETTER);
	}
	snprintf(name, sizeof(name), "map_fault.%s.%s.%s.ratio", mode, kind, order);
	c->ratio = bench_metric_add(run, name, "x",
				    c->migrate ? BENCH_HIGHER_IS_BETTER : BENCH_LOWER_IS_BETTER);
	if (!m || !c->ref || !c->ratio)
		return -ENOMEM;
	/* Without the reference there is nothing to divide by: no metric. */
	if (c->migrate && have_mref) {
		snprintf(name, sizeof(name), "map_fault.%s.%s.%s.memcpy_bw_ratio", mode, kind,
			 order);
		c->bw_ratio = bench_metric_add(run, name, "x", BENCH_HIGHER_IS_BETTER);
		if (!c->bw_ratio)
			return -ENOMEM;
		bench_metric_label(c->bw_ratio, "mode", mode);
		bench_metric_label(c->bw_ratio, "pool", c->cold ? "cold" : "warm");
		if (!c->cold)
			bench_metric_target(c->bw_ratio, 0.5, BENCH_TARGET_AT_LEAST);
	}
	bench_metric_platform(c->ref);
	if (c->migrate) {
		ret = migrate_metrics(run, c, mode, kind, order, have_mref);
		if (ret)
			return ret;
		bench_metric_bound(m, c->floor);
		if (c->bw_ratio)
			bench_metric_bound(c->bw_ratio, c->floor_bw_ratio);
	} else {
		bench_metric_bound(m, c->ref);
	}
	bench_metric_label(m, "mode", mode);
	bench_metric_label(c->ratio, "mode", mode);
	if (c->migrate) {
		bench_metric_label(m, "pool", c->cold ? "cold" : "warm");
		bench_metric_reference(m, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	} else if (!strcmp(order, "seq")) {
		bench_metric_target(c->ratio, 3.0, BENCH_TARGET_AT_MOST);
	}
	c->m = m;
	ret = bench_repeat(run, m, mf_rep, c);
	floor_release(c);
	return ret;
}

static int run_mode(struct bench_run *run, struct testlib_mock_device *md,
		    enum ttm_vm_fault_mode mode, unsigned long num_pages,
		    unsigned long *const orders[2])
{
	static const char *const order_names[2] = {"seq", "random"};
	const char *mname = ttm_vm_fault_mode_name(mode);
	int ret;

#if TTM_HAVE_CALLGRIND_H
	/*
	 * valgrind runs one thread at a time: a userfaultfd fault would wait
	 * for the handler thread while holding the only turn to run.
	 */
	if (mode == TTM_VM_FAULT_UFFD && RUNNING_ON_VALGRIND) {
		printf("map_fault: under valgrind, uffd mode skipped\n");
		return 0;
	}
#endif
	ret = ttm_bo_vm_set_mode(mode);

	if (mode == TTM_VM_FAULT_UFFD && (ret == -EPERM || ret == -ENOSYS)) {
		printf("map_fault: userfaultfd refused by this kernel (%d), uffd mode skipped\n",
		       ret);
		return 0;
	}
	if (ret)
		return ret;
	/* sys, migrate (warm pool), migrate_cold. */
	for (unsigned kind = 0; kind < 3 && !ret; kind++) {
		for (unsigned o = 0; o < 2 && !ret; o++) {
			struct mf_case c = {
			    .md = md,
			    .num_pages = num_pages,
			    .order = orders[o],
			    .migrate = kind > 0,
			    .cold = kind == 2,
			    .floor_fd = -1,
			};

			ret = run_case(run, &c, mname, order_names[o]);
		}
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const enum ttm_vm_fault_mode modes[] = {TTM_VM_FAULT_SIGSEGV, TTM_VM_FAULT_UFFD};
	unsigned long *orders[2] = {NULL, NULL};
	struct testlib_mock_device md;
	struct bench_run run;
	unsigned long num_pages;
	uint64_t rng;
	int rc;

	rc = bench_setup(&run, "map-fault", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	if (run.opts.backend == BENCH_BACKEND_HW) {
		fprintf(stderr,
			"benchmark-map-fault: SKIP: not applicable to hw (a GEM buffer's CPU "
			"faults are the kernel's, not this fault engine's)\n");
		bench_run_fini(&run);
		return 77;
	}
	num_pages = (run.opts.quick ? 16ul : 64ul) << 20 >> 12;
	bench_run_param(&run, "bo_size_mib", "%lu", num_pages * PG >> 20);
	bench_run_param(&run, "prefault_pages", "%d", TTM_VM_FAULT_PREFAULT);
	bench_run_backend_param(&run, "device", "%s", "core mock (VRAM over host memory)");
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "map_fault: a reference failed (%d), ratios to it are missing\n",
			rc);
	bench_pin_thread(&run, 0);

	orders[0] = calloc(num_pages, sizeof(**orders));
	orders[1] = calloc(num_pages, sizeof(**orders));
	if (!orders[0] || !orders[1]) {
		rc = -ENOMEM;
		goto out;
	}
	rng = run.opts.seed ? run.opts.seed : 1;
	for (unsigned long i = 0; i < num_pages; i++)
		orders[0][i] = orders[1][i] = i;
	for (unsigned long i = num_pages - 1; i > 0; i--) {
		unsigned long j = prng_step(&rng) % (i + 1), t = orders[1][i];

		orders[1][i] = orders[1][j];
		orders[1][j] = t;
	}
	rc = bench_mockdev_init(&md, 0, num_pages);
	if (rc)
		goto out;
	ttm_bo_vm_init_device(&md.bdev);
	for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]) && !rc; i++)
		rc = run_mode(&run, &md, modes[i], num_pages, orders);
	if (testlib_mock_device_fini(&md) && !rc)
		rc = -EBUSY;
out:
	free(orders[0]);
	free(orders[1]);
	if (rc) {
		fprintf(stderr, "map_fault: %s\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
