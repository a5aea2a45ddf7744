// SPDX-License-Identifier: MIT
/*
 * benchmark-kref: our TTM against Linux 6.12's own, in one process.
 *
 * The kernel side is kref.o (build-kref.sh: the kernel's TTM, drm_mm,
 * dma-fence, dma-resv and rbtree sources compiled unmodified over
 * bench/kref/shim, every kernel symbol local, entry points in kref.h). Our
 * side is libttm with the same mock driver (like the kernel's
 * ttm_kunit_helpers.c: TT a range manager, SYSTEM<->TT by
 * ttm_bo_move_null(), evictions to SYSTEM, BOs of ttm_bo_type_kernel).
 *
 * Each case runs the same loop on both sides: per repetition, n iterations
 * on one side then n on the other, the order alternating between
 * repetitions (even: ours first). Per case three sample metrics:
 *   kref.<case>.ours     ns per iteration, ours
 *   kref.<case>.kernel   ns per iteration, the kernel's
 *   kref.<case>.vs_kernel  ours / kernel of the same repetition (unit "x",
 *                        lower is better, target <= 1: "vs_kernel" label)
 * Cases (sizes as in the names):
 *   a.validate_idle.4k          reserve + validate into TT + unreserve, BO idle in TT
 *   b.pingpong.{4k,1m,64m}      validate SYSTEM->TT->SYSTEM (pages kept), per round trip
 *   c.thrash.{4k_in_1m,64k_in_4m}  2x the TT domain validated cyclically: one eviction each
 *   d.create.{4k,1m}            BO init + validate into SYSTEM + put
 *   e.resv_test.16_pending_{first,last}  dma_resv_test_signaled(READ), 16 fences, one pending
 *   e.fence_signaled            dma_fence_is_signaled() on a signalled fence
 *   f.pool.{1m,2m}.{warm,aligned}  ttm_pool alloc + free, write-back, under each
 *                               page-allocator model of the kernel's shim
 *   g.chain_find.{1000,4000}    dma_fence_chain_find_seqno() from the head of
 *                               an unsignalled chain to seqno 1 (a whole walk)
 *
 * --callgrind: instead of timing, run each case's loop once per side with
 * callgrind's instrumentation on and dump the counters after each
 * (CALLGRIND_DUMP_STATS_AT("kref <case> <side> <n>")); under
 * `valgrind --tool=callgrind --instr-atstart=no` that gives instructions per
 * iteration (scripts: bench/kref/kref-callgrind.sh). Without valgrind it
 * just runs the loops once.
 */
#include <ttm/dma_fence.h>
#include <ttm/dma_fence_chain.h>
#include <ttm/dma_resv.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_placement.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_range_manager.h>
#include <ttm/ttm_tt.h>

#include <bench.h>

#include "kref.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define KREF_HAVE_CALLGRIND 1
#else
#define KREF_HAVE_CALLGRIND 0
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ our side */
struct ours_dev {
	struct ttm_device bdev;
	struct ttm_range_manager tt;
	bool has_tt;
};

static const struct ttm_place ours_sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place ours_tt_place = {.mem_type = TTM_PL_TT};
static const struct ttm_placement ours_sys = {.num_placement = 1, .placement = &ours_sys_place};
static const struct ttm_placement ours_tt = {.num_placement = 1, .placement = &ours_tt_place};

static const struct ttm_placement *ours_placement(int domain)
{
	return domain == KREF_TT ? &ours_tt : &ours_sys;
}

static void ours_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	(void)bo;
	placement->num_placement = 1;
	placement->placement = &ours_sys_place;
}

static int ours_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		     struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old = bo->resource;
	uint32_t from = old ? old->mem_type : TTM_PL_SYSTEM;
	uint32_t to = new_mem->mem_type;

	(void)evict;
	(void)hop;
	if (!old || (from == TTM_PL_SYSTEM && !bo->ttm) ||
	    (from == TTM_PL_SYSTEM && to == TTM_PL_TT) ||
	    (from == TTM_PL_TT && to == TTM_PL_SYSTEM) || from == to) {
		ttm_bo_move_null(bo, new_mem);
		return 0;
	}
	return ttm_bo_move_memcpy(bo, ctx, new_mem);
}

static const struct ttm_device_funcs ours_funcs = {
    .evict_flags = ours_evict_flags,
    .move = ours_move,
};

static struct ours_dev *ours_dev_create(unsigned long tt_pages)
{
	struct ours_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (ttm_device_init(&d->bdev, &ours_funcs, false))
		goto err;
	if (tt_pages) {
		if (ttm_range_manager_init(&d->tt, true, tt_pages))
			goto err_dev;
		ttm_set_driver_manager(&d->bdev, TTM_PL_TT, &d->tt.manager);
		d->has_tt = true;
	}
	return d;
err_dev:
	ttm_device_fini(&d->bdev);
err:
	free(d);
	return NULL;
}

static int ours_dev_destroy(struct ours_dev *d)
{
	int ret;

	if (!d)
		return 0;
	ttm_device_flush_delayed(&d->bdev, true);
	if (d->has_tt) {
		ret = ttm_range_manager_fini(&d->tt);
		if (ret)
			return ret;
		ttm_set_driver_manager(&d->bdev, TTM_PL_TT, NULL);
	}
	ret = ttm_device_fini(&d->bdev);
	free(d);
	return ret;
}

static void ours_bo_destroy(struct ttm_buffer_object *bo)
{
	free(bo);
}

static int ours_validate(struct ttm_buffer_object *bo, const struct ttm_placement *pl)
{
	struct ttm_operation_ctx ctx = {.interruptible = false, .no_wait_gpu = false};
	int ret = ttm_bo_reserve(bo, false, false, NULL);

	if (ret)
		return ret;
	ret = ttm_bo_validate(bo, pl, &ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

static int ours_bo_init(struct ours_dev *d, struct ttm_buffer_object *bo, unsigned long size,
			int domain)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};

	return ttm_bo_init_validate(&d->bdev, bo, size, ttm_bo_type_kernel, ours_placement(domain),
				    0, &ctx, NULL, ours_bo_destroy);
}

static struct ttm_buffer_object *ours_bo_create(struct ours_dev *d, unsigned long size, int domain,
						int populate)
{
	struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return NULL;
	if (ours_bo_init(d, bo, size, populate ? KREF_TT : domain))
		return NULL;
	if (populate && domain == KREF_SYSTEM && ours_validate(bo, &ours_sys))
		goto err;
	return bo;
err:
	ttm_bo_put(bo);
	return NULL;
}

static int ours_validate_loop(struct ttm_buffer_object *bo, int domain, unsigned long n)
{
	const struct ttm_placement *pl = ours_placement(domain);

	for (unsigned long i = 0; i < n; i++) {
		int ret = ours_validate(bo, pl);

		if (ret)
			return ret;
	}
	return 0;
}

static int ours_pingpong_loop(struct ttm_buffer_object *bo, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		int ret = ours_validate(bo, &ours_tt);

		if (!ret)
			ret = ours_validate(bo, &ours_sys);
		if (ret)
			return ret;
	}
	return 0;
}

static int ours_thrash_loop(struct ttm_buffer_object **bos, unsigned nbos, unsigned *next,
			    unsigned long n)
{
	unsigned k = *next;

	for (unsigned long i = 0; i < n; i++) {
		int ret = ours_validate(bos[k], &ours_tt);

		if (ret)
			return ret;
		if (++k == nbos)
			k = 0;
	}
	*next = k;
	return 0;
}

static int ours_create_loop(struct ours_dev *d, unsigned long size, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));
		int ret;

		if (!bo)
			return -ENOMEM;
		ret = ours_bo_init(d, bo, size, KREF_SYSTEM);
		if (ret)
			return ret;
		ttm_bo_put(bo);
	}
	return 0;
}

static int ours_pool_loop(struct ours_dev *d, unsigned long size, unsigned long n)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	struct ttm_tt tt;
	int ret = ttm_tt_init(&tt, size, 0, ttm_cached, 0);

	if (ret)
		return ret;
	for (unsigned long i = 0; i < n && !ret; i++) {
		ret = ttm_pool_alloc(&d->bdev.pool, &tt, &ctx);
		if (!ret)
			ttm_pool_free(&d->bdev.pool, &tt, false);
	}
	ttm_tt_fini(&d->bdev.pool, &tt);
	return ret;
}

static const char *ours_fence_name(struct dma_fence *f)
{
	(void)f;
	return "kref";
}

static const struct dma_fence_ops ours_fence_ops = {
    .get_driver_name = ours_fence_name,
    .get_timeline_name = ours_fence_name,
};

static struct dma_fence *ours_fence(uint64_t context, uint64_t seqno)
{
	struct dma_fence *f = calloc(1, sizeof(*f));

	if (f)
		dma_fence_init(f, &ours_fence_ops, context, seqno);
	return f;
}

struct ours_resv {
	struct dma_resv resv;
	struct dma_fence *pending;
	struct dma_fence *fences[16];
};

static void ours_resv_destroy(struct ours_resv *r)
{
	if (!r)
		return;
	if (r->pending) {
		dma_fence_signal(r->pending);
		dma_fence_put(r->pending);
	}
	dma_resv_fini(&r->resv);
	free(r);
}

static struct ours_resv *ours_resv_create(unsigned nfences, int pending_index)
{
	struct ours_resv *r;
	uint64_t ctx;
	int ret;

	if (nfences > sizeof(r->fences) / sizeof(r->fences[0]))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	ctx = dma_fence_context_alloc(nfences);
	dma_resv_init(&r->resv);
	dma_resv_lock(&r->resv, NULL);
	ret = dma_resv_reserve_fences(&r->resv, nfences);
	for (unsigned i = 0; i < nfences && !ret; i++) {
		struct dma_fence *f = ours_fence(ctx + i, 1);

		if (!f) {
			ret = -ENOMEM;
			break;
		}
		r->fences[i] = f;
		ret = dma_resv_add_fence(&r->resv, f, DMA_RESV_USAGE_READ);
	}
	dma_resv_unlock(&r->resv);
	/* As on the kernel side: signalled after all were added (see kdrv.c). */
	for (unsigned i = 0; i < nfences; i++) {
		if (!r->fences[i])
			continue;
		if ((int)i == pending_index) {
			r->pending = r->fences[i];
		} else {
			dma_fence_signal(r->fences[i]);
			dma_fence_put(r->fences[i]);
		}
		r->fences[i] = NULL;
	}
	if (ret) {
		ours_resv_destroy(r);
		return NULL;
	}
	return r;
}

static int ours_resv_test_loop(struct ours_resv *r, unsigned long n, int *signaled)
{
	bool s = false;

	for (unsigned long i = 0; i < n; i++) {
		s = dma_resv_test_signaled(&r->resv, DMA_RESV_USAGE_READ);
		__asm__ __volatile__("" ::: "memory");
	}
	*signaled = s;
	return 0;
}

static struct dma_fence *volatile ours_signalled_fence;

static int ours_fence_signaled_loop(unsigned long n, unsigned long *count)
{
	struct dma_fence *f = ours_fence(dma_fence_context_alloc(1), 1);
	unsigned long c = 0;

	if (!f)
		return -ENOMEM;
	dma_fence_signal(f);
	ours_signalled_fence = f;
	for (unsigned long i = 0; i < n; i++)
		c += dma_fence_is_signaled(ours_signalled_fence);
	ours_signalled_fence = NULL;
	dma_fence_put(f);
	*count = c;
	return 0;
}

struct ours_chain {
	struct dma_fence *head;
	struct dma_fence **fences;
	unsigned links;
};

static void ours_chain_destroy(struct ours_chain *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->links; i++) {
		dma_fence_signal(c->fences[i]);
		dma_fence_put(c->fences[i]);
	}
	if (c->head)
		dma_fence_put(c->head);
	free(c->fences);
	free(c);
}

static struct ours_chain *ours_chain_create(unsigned links)
{
	struct ours_chain *c = calloc(1, sizeof(*c));
	uint64_t fctx = dma_fence_context_alloc(1);

	if (!c)
		return NULL;
	c->fences = calloc(links, sizeof(*c->fences));
	if (!c->fences) {
		free(c);
		return NULL;
	}
	for (unsigned i = 0; i < links; i++) {
		struct dma_fence_chain *link = dma_fence_chain_alloc();
		struct dma_fence *f = ours_fence(fctx, i + 1);

		if (!link || !f) {
			dma_fence_chain_free(link);
			if (f)
				dma_fence_put(f);
			c->links = i;
			ours_chain_destroy(c);
			return NULL;
		}
		c->fences[i] = dma_fence_get(f);
		dma_fence_chain_init(link, c->head, f, i + 1);
		c->head = &link->base;
	}
	c->links = links;
	return c;
}

static int ours_chain_find_loop(struct ours_chain *c, unsigned long seqno, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		struct dma_fence *f = dma_fence_get(c->head);
		int ret = dma_fence_chain_find_seqno(&f, seqno);

		if (f)
			dma_fence_put(f);
		if (ret)
			return ret;
	}
	return 0;
}

/* --------------------------------------------------------------- cases */
enum kind { K_VALIDATE, K_PINGPONG, K_THRASH, K_CREATE, K_RESV, K_SIGNALED, K_POOL, K_CHAIN };

struct kcase {
	const char *name;
	enum kind kind;
	unsigned long size;  /* BO / tt bytes */
	unsigned long tt;    /* TT domain bytes (0: none needed) */
	int param;	     /* pending index, page model, chain links */
	unsigned long iters; /* per side per repetition (full budget) */
};

static const struct kcase cases[] = {
    {"a.validate_idle.4k", K_VALIDATE, 4096, 1u << 20, 0, 20000},
    {"b.pingpong.4k", K_PINGPONG, 4096, 1u << 20, 0, 10000},
    {"b.pingpong.1m", K_PINGPONG, 1u << 20, 4u << 20, 0, 10000},
    {"b.pingpong.64m", K_PINGPONG, 64u << 20, 128u << 20, 0, 2000},
    {"c.thrash.4k_in_1m", K_THRASH, 4096, 1u << 20, 0, 20000},
    {"c.thrash.64k_in_4m", K_THRASH, 64u << 10, 4u << 20, 0, 10000},
    {"d.create.4k", K_CREATE, 4096, 0, 0, 10000},
    {"d.create.1m", K_CREATE, 1u << 20, 0, 0, 5000},
    {"e.resv_test.16_pending_first", K_RESV, 0, 0, 0, 200000},
    {"e.resv_test.16_pending_last", K_RESV, 0, 0, 15, 200000},
    {"e.fence_signaled", K_SIGNALED, 0, 0, 0, 2000000},
    {"f.pool.1m.warm", K_POOL, 1u << 20, 0, KREF_PAGES_WARM, 5000},
    {"f.pool.2m.warm", K_POOL, 2u << 20, 0, KREF_PAGES_WARM, 5000},
    {"f.pool.1m.aligned", K_POOL, 1u << 20, 0, KREF_PAGES_ALIGNED, 500},
    {"f.pool.2m.aligned", K_POOL, 2u << 20, 0, KREF_PAGES_ALIGNED, 500},
    {"g.chain_find.1000", K_CHAIN, 0, 0, 1000, 200},
    {"g.chain_find.4000", K_CHAIN, 0, 0, 4000, 50},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Both sides' state for one case. */
struct kstate {
	const struct kcase *c;
	struct ours_dev *od;
	struct kref_dev *kd;
	struct ttm_buffer_object **obos;
	struct kref_bo **kbos;
	unsigned nbos, onext, knext;
	struct ours_resv *ores;
	struct kref_resv *kres;
	struct ours_chain *ochain;
	struct kref_chain *kchain;
};

static void state_fini(struct kstate *s)
{
	for (unsigned i = 0; i < s->nbos; i++) {
		if (s->obos && s->obos[i])
			ttm_bo_put(s->obos[i]);
		if (s->kbos && s->kbos[i])
			kref_bo_put(s->kbos[i]);
	}
	free(s->obos);
	free(s->kbos);
	ours_resv_destroy(s->ores);
	kref_resv_destroy(s->kres);
	ours_chain_destroy(s->ochain);
	kref_chain_destroy(s->kchain);
	if (s->od && ours_dev_destroy(s->od))
		fprintf(stderr, "kref: our device not torn down cleanly\n");
	if (s->kd && kref_dev_destroy(s->kd))
		fprintf(stderr, "kref: the kernel device not torn down cleanly\n");
	memset(s, 0, sizeof(*s));
}

static int state_init(struct kstate *s, const struct kcase *c)
{
	unsigned long tt_pages = c->tt / TTM_PAGE_SIZE;

	memset(s, 0, sizeof(*s));
	s->c = c;
	if (c->kind == K_RESV) {
		s->ores = ours_resv_create(16, c->param);
		s->kres = kref_resv_create(16, c->param);
		return s->ores && s->kres ? 0 : -ENOMEM;
	}
	if (c->kind == K_SIGNALED)
		return 0;
	if (c->kind == K_CHAIN) {
		s->ochain = ours_chain_create((unsigned)c->param);
		s->kchain = kref_chain_create((unsigned)c->param);
		return s->ochain && s->kchain ? 0 : -ENOMEM;
	}
	s->od = ours_dev_create(tt_pages);
	s->kd = kref_dev_create(tt_pages);
	if (!s->od || !s->kd)
		return -ENOMEM;
	switch (c->kind) {
	case K_VALIDATE:
	case K_PINGPONG:
		s->nbos = 1;
		break;
	case K_THRASH:
		s->nbos = (unsigned)(2 * c->tt / c->size);
		break;
	default:
		s->nbos = 0;
		break;
	}
	if (!s->nbos)
		return 0;
	s->obos = calloc(s->nbos, sizeof(*s->obos));
	s->kbos = calloc(s->nbos, sizeof(*s->kbos));
	if (!s->obos || !s->kbos)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nbos; i++) {
		/* a: idle in TT; b, c: populated, in SYSTEM. */
		int domain = c->kind == K_VALIDATE ? KREF_TT : KREF_SYSTEM;
		int populate = c->kind != K_VALIDATE;

		s->obos[i] = ours_bo_create(s->od, c->size, domain, populate);
		s->kbos[i] = kref_bo_create(s->kd, c->size, domain, populate);
		if (!s->obos[i] || !s->kbos[i])
			return -ENOMEM;
	}
	return 0;
}

/* One side's loop of @n iterations. */
static int run_side(struct kstate *s, bool kernel, unsigned long n)
{
	const struct kcase *c = s->c;
	unsigned long cnt;
	int sig;

	switch (c->kind) {
	case K_VALIDATE:
		return kernel ? kref_validate_loop(s->kbos[0], KREF_TT, n)
			      : ours_validate_loop(s->obos[0], KREF_TT, n);
	case K_PINGPONG:
		return kernel ? kref_pingpong_loop(s->kbos[0], n)
			      : ours_pingpong_loop(s->obos[0], n);
	case K_THRASH:
		return kernel ? kref_thrash_loop(s->kbos, s->nbos, &s->knext, n)
			      : ours_thrash_loop(s->obos, s->nbos, &s->onext, n);
	case K_CREATE:
		return kernel ? kref_create_loop(s->kd, c->size, n)
			      : ours_create_loop(s->od, c->size, n);
	case K_RESV:
		return kernel ? kref_resv_test_loop(s->kres, n, &sig)
			      : ours_resv_test_loop(s->ores, n, &sig);
	case K_SIGNALED:
		return kernel ? kref_fence_signaled_loop(n, &cnt)
			      : ours_fence_signaled_loop(n, &cnt);
	case K_POOL:
		kref_set_page_model(c->param);
		return kernel ? kref_pool_loop(s->kd, c->size, n)
			      : ours_pool_loop(s->od, c->size, n);
	case K_CHAIN:
		return kernel ? kref_chain_find_loop(s->kchain, 1, n)
			      : ours_chain_find_loop(s->ochain, 1, n);
	}
	return -EINVAL;
}

/*
 * ns per iteration of one side's loop into *@ns; under callgrind (the
 * harness's instruction axis, TTM_BENCH_CALLGRIND_OUT) the loop's
 * instructions per iteration also become a sample of @m's "instructions"
 * (@m NULL: a warm-up repetition, not counted).
 */
static int time_side(struct kstate *s, bool kernel, unsigned long n, double *ns,
		     struct bench_metric *m)
{
	uint64_t t0;
	int ret;

	if (m)
		bench_icount_start();
	t0 = testlib_now_raw_ns();
	ret = run_side(s, kernel, n);
	*ns = (double)(testlib_now_raw_ns() - t0) / (double)n;
	if (!ret && m)
		ret = bench_icount_stop(m, n);
	return ret;
}

struct kref_opts {
	bool callgrind;
	const char *only;
	int side; /* 0: both, 1: ours only, 2: the kernel's only (for profiling) */
};

static int opt_callgrind(void *ctx, const char *arg, char *err, size_t errlen)
{
	(void)arg;
	(void)err;
	(void)errlen;
	((struct kref_opts *)ctx)->callgrind = true;
	return 0;
}

static int opt_only(void *ctx, const char *arg, char *err, size_t errlen)
{
	for (unsigned i = 0; i < NCASES; i++)
		if (strstr(cases[i].name, arg)) {
			((struct kref_opts *)ctx)->only = arg;
			return 0;
		}
	snprintf(err, errlen, "'%s' matches no case", arg);
	return -EINVAL;
}

static int opt_side(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct kref_opts *o = ctx;

	if (!strcmp(arg, "ours"))
		o->side = 1;
	else if (!strcmp(arg, "kernel"))
		o->side = 2;
	else {
		snprintf(err, errlen, "'%s': ours or kernel", arg);
		return -EINVAL;
	}
	return 0;
}

static const struct bench_opt kref_extra[] = {
    {"callgrind", NULL, "count instructions under valgrind --tool=callgrind --instr-atstart=no",
     opt_callgrind},
    {"only", "TEXT", "run only the cases whose name contains TEXT", opt_only},
    {"side", "ours|kernel", "run one side only (to profile it with perf; no vs_kernel ratios then)",
     opt_side},
    {NULL, NULL, NULL, NULL},
};

static int run_callgrind(const struct kcase *c, unsigned long n)
{
	struct kstate s;
	char label[128];
	int ret = state_init(&s, c);

	/* One unmeasured pass each, so first-touch costs are not counted. */
	if (!ret)
		ret = run_side(&s, false, n / 10 + 1);
	if (!ret)
		ret = run_side(&s, true, n / 10 + 1);
	for (int k = 0; k < 2 && !ret; k++) {
		bool kernel = k == 1;

		snprintf(label, sizeof(label), "kref %s %s %lu", c->name,
			 kernel ? "kernel" : "ours", n);
#if KREF_HAVE_CALLGRIND
		CALLGRIND_START_INSTRUMENTATION;
		CALLGRIND_ZERO_STATS;
#endif
		ret = run_side(&s, kernel, n);
#if KREF_HAVE_CALLGRIND
		CALLGRIND_DUMP_STATS_AT(label);
		CALLGRIND_STOP_INSTRUMENTATION;
#endif
		printf("%s done\n", label);
	}
	state_fini(&s);
	return ret;
}

int main(int argc, char **argv)
{
	struct kref_opts ko = {0};
	struct bench_run run;
	int rc = bench_setup(&run, "kref", argc, argv, kref_extra, &ko);
	int ret = 0;

	if (rc)
		return bench_exit_code(rc);
	bench_run_param(&run, "backend", "core");
	bench_run_param(&run, "kernel", "linux-6.12 ttm (bench/kref)");
	if (ko.only)
		bench_run_param(&run, "only", "%s", ko.only);
	if (ko.side)
		bench_run_param(&run, "side", "%s", ko.side == 1 ? "ours" : "kernel");
	if (!ko.callgrind)
		bench_references_measure(&run);
	bench_pin_thread(&run, 0);

	for (unsigned ci = 0; ci < NCASES && !ret; ci++) {
		const struct kcase *c = &cases[ci];
		unsigned long n = run.opts.quick ? c->iters / 5 + 1 : c->iters;
		struct bench_metric *mo, *mk, *mr;
		char name[160];
		struct kstate s;

		if (ko.only && !strstr(c->name, ko.only))
			continue;
		if (ko.callgrind) {
			ret = run_callgrind(c, run.opts.quick ? n / 10 + 1 : n / 4 + 1);
			continue;
		}
		snprintf(name, sizeof(name), "kref.%s.ours", c->name);
		mo = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "kref.%s.kernel", c->name);
		mk = bench_metric_add(&run, name, "ns", BENCH_LOWER_IS_BETTER);
		snprintf(name, sizeof(name), "kref.%s.vs_kernel", c->name);
		mr = bench_metric_add(&run, name, "x", BENCH_LOWER_IS_BETTER);
		if (!mo || !mk || !mr) {
			ret = -ENOMEM;
			break;
		}
		bench_metric_label(mr, "vs_kernel", "ours/kernel");
		bench_metric_target(mr, 1.0, BENCH_TARGET_AT_MOST);
		if (c->kind == K_POOL)
			bench_metric_label(mr, "page_model",
					   c->param == KREF_PAGES_WARM ? "warm" : "aligned");
		ret = state_init(&s, c);
		for (int rep = -(int)run.opts.warmup; rep < (int)run.opts.reps && !ret; rep++) {
			/* Even repetitions start with ours, odd ones with the kernel's. */
			bool kernel_first = (rep & 1) != 0;
			double t[2] = {0, 0};

			for (int k = 0; k < 2 && !ret; k++) {
				bool kernel = kernel_first ? k == 0 : k == 1;

				if (ko.side == (kernel ? 1 : 2))
					continue;
				ret = time_side(&s, kernel, n, &t[kernel],
						rep < 0	 ? NULL
						: kernel ? mk
							 : mo);
			}
			bench_progress(&run, c->name,
				       (double)(rep + (int)run.opts.warmup + 1) /
					   (double)(run.opts.reps + run.opts.warmup));
			if (ret || rep < 0)
				continue;
			if (ko.side != 2)
				bench_metric_sample(mo, t[0]);
			if (ko.side != 1)
				bench_metric_sample(mk, t[1]);
			if (!ko.side && t[1] > 0)
				bench_metric_sample(mr, t[0] / t[1]);
		}
		state_fini(&s);
		if (ret)
			fprintf(stderr, "kref: case %s failed: %s\n", c->name, strerror(-ret));
	}
	bench_progress_done(&run);
	kref_page_cache_drain();
	if (kref_warnings())
		fprintf(stderr, "kref: the kernel side hit %lu WARN_ON()s\n", kref_warnings());
	if (ko.callgrind) {
		bench_run_fini(&run);
		return ret ? 1 : 0;
	}
	if (ret) {
		bench_run_fini(&run);
		return 1;
	}
	return bench_run_finish(&run);
}
