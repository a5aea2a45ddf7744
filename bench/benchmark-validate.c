// SPDX-License-Identifier: MIT
/*
 * benchmark-validate: distributions of ttm_bo_validate() cost (issue 7,
 * item 1), one latency histogram per case and BO size:
 *
 *  validate.in_place.<size>      already in TT and idle: the no-op path
 *  validate.bind.<size>          populated BO from SYSTEM into TT (a bind:
 *                                the pages stay, nothing is copied, though
 *                                the core counts the size in bytes_moved)
 *  validate.evict_unbind.<size>  into a TT aperture that holds exactly one
 *                                BO of the size, so another must be evicted
 *                                to SYSTEM (an unbind) first
 *  validate.evict_copy.<size>    into device-local memory holding exactly one
 *                                BO: the resident one is copied out to SYSTEM
 *                                and the new one copied in
 *  validate.execbuf.n<N>         a 2007-style execbuffer list of N 4 KiB BOs:
 *                                reserve all under one ww ticket (backing off
 *                                on -EDEADLK), validate each, unreserve
 *
 * plus, per execbuf list, execbuf.per_bo.n<N> (list time / N) and, per copy
 * size, evict_copy_bw.<size> (bytes copied / validate time, vs memcpy).
 * Latencies are against a bare system call measured in the same run.
 * Reservation is outside the timed region except for the execbuf lists.
 * On sim and core every case runs once per round, --reps rounds (parameter
 * "rounds"), each on a fresh device with 1/rounds of the case's budget; the
 * histograms keep every value and also carry one median per round, which
 * is what ttm-compare judges a change against (the run-to-run spread of
 * these figures on a shared machine is 10-30%, far more than one
 * histogram's median interval). The hw back end measures in one round.
 *
 * The cases run one code path on every back end; a back end (struct
 * val_backend) supplies only its device and BOs for a case, how its moves
 * are waited for and how it submits an execbuffer list.
 *
 * Back ends (parameter "backend"):
 *  sim   (default) the i915 driver on the simulated GPU, latency model off.
 *        TT is the GGTT: bind = PTE writes over the tt pages, evict_unbind
 *        runs under an aperture of one BO plus the guard page (MAPPABLE
 *        placements), evict_copy in lmem of exactly one BO, not CPU-visible,
 *        so both copies are blits through a GGTT hop; its latency is the
 *        validate plus the wait for both objects to go idle (the blits are
 *        pipelined, the core's memcpy is not). execbuf lists go through
 *        i915_gem_execbuffer() with N-1 4 KiB objects and a batch object,
 *        timed over the whole call (reservation, validation, submission,
 *        fence attachment); the wait for the batch is outside it.
 *        evict_copy_bw divides the bytes copied (ctx.bytes_copied: the two
 *        blits, not the bind and unbind hops that bytes_moved also counts)
 *        by that latency.
 *  core  the TTM core over bench_mockdev (memcpy moves, no GPU).
 *  hw    a real Intel GPU under hw_ttm (bench_hw.h, --device PATH; the
 *        machine block records gpu.*). TT is a range manager over the
 *        ppGTT: bind = a GPU address assigned, evict_unbind runs under a TT
 *        range (tt_size) of one BO, so the resident BO loses its address;
 *        evict_copy needs VRAM of one BO and is skipped with a note on
 *        integrated parts; execbuf lists go through hw_ttm_exec() (every
 *        object softpinned, the batch an empty one) and are capped at its
 *        64 objects, so the lists are 1, 16 and 64. Without an i915 render
 *        node (or libdrm) it prints "SKIP: <reason>" and exits 77.
 */
#include "bench_mockdev.h"
#include "bench_simdev.h"

#include <i915/i915_cmds.h>

#include <ttm/dma_resv.h>
#include <ttm/ww_mutex.h>
#include <bench.h>
#include <bench_hw.h>

#include "ttm_config.h"

#if TTM_HAVE_LIBDRM
#include "hw_ttm.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16

struct val_opts {
	uint64_t sizes[MAX_SIZES];
	unsigned nsizes;
	struct bench_hw hw; /* --device, and the GPU of --backend=hw */
};

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno || v > (256ull << 20))
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mul = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1024 * 1024, end++;
	if (*end || !v || v * mul % TTM_PAGE_SIZE || v * mul > (256ull << 20))
		return -EINVAL;
	*out = v * mul;
	return 0;
}

static int opt_sizes(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct val_opts *o = ctx;
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	o->nsizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nsizes == MAX_SIZES || parse_size(tok, &o->sizes[o->nsizes])) {
			snprintf(err, errlen,
				 "'%s': sizes are page multiples from 4k to 256m (k/m suffixes), "
				 "at most %d",
				 tok, MAX_SIZES);
			return -EINVAL;
		}
		o->nsizes++;
	}
	if (!o->nsizes) {
		snprintf(err, errlen, "empty size list");
		return -EINVAL;
	}
	return 0;
}

static int opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	return bench_hw_opt_device(&((struct val_opts *)ctx)->hw, arg, err, errlen);
}

static const struct bench_opt val_extra[] = {
    {"sizes", "LIST", "BO sizes, e.g. 4k,64k,1m,16m,64m (default; 4k,64k,1m with --quick)",
     opt_sizes},
    {"device", "PATH",
     "render node for --backend=hw (default: $TTM_HW_DEVICE, else the first i915 one)", opt_device},
    {NULL, NULL, NULL, NULL},
};

static void size_name(uint64_t size, char *buf, size_t len)
{
	if (size >= (1u << 20) && !(size % (1u << 20)))
		snprintf(buf, len, "%" PRIu64 "m", size >> 20);
	else
		snprintf(buf, len, "%" PRIu64 "k", size >> 10);
}

/* Time budget and bounds on the iterations of one case at one size. */
struct budget {
	uint64_t ns;
	unsigned min_iters, max_iters, warmup;
};

static bool budget_more(const struct budget *b, unsigned i, uint64_t t0)
{
	if (i < b->min_iters)
		return true;
	return i < b->max_iters && testlib_now_raw_ns() - t0 < b->ns;
}

/*
 * Reserve, validate into @pl, unreserve; *@ns gets the validate call alone,
 * and so does the instruction count of a region in progress (paused between
 * calls, see bench_icount_pause()).
 */
static int timed_validate_counted(struct ttm_buffer_object *bo, const struct ttm_placement *pl,
				  uint64_t *ns, struct ttm_operation_ctx *ctx, bool counted)
{
	uint64_t t0;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	t0 = testlib_now_raw_ns();
	if (counted)
		bench_icount_resume();
	ret = ttm_bo_validate(bo, pl, ctx);
	if (counted)
		bench_icount_pause();
	*ns = testlib_now_raw_ns() - t0;
	ttm_bo_unreserve(bo);
	return ret;
}

static int timed_validate(struct ttm_buffer_object *bo, const struct ttm_placement *pl,
			  uint64_t *ns, struct ttm_operation_ctx *ctx)
{
	return timed_validate_counted(bo, pl, ns, ctx, true);
}

/* The cases run once per round: a metric is made by the first round. */
static struct bench_metric *lat_metric(struct bench_run *run, const char *name)
{
	struct bench_metric *m = bench_metric_find(run, name);

	if (m)
		return m;
	m = bench_metric_add(run, name, "ns", BENCH_LOWER_IS_BETTER);
	if (m && bench_metric_use_hist(m))
		return NULL;
	if (m)
		bench_metric_reference(m, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	return m;
}

/*
 * The metrics of case (e) with @n objects, as every back end names them:
 * the latency of one execbuffer and its share per object (a histogram too:
 * per-iteration samples would make the bootstrap slow). -ENOMEM when
 * either could not be added.
 */
static int execbuf_metrics(struct bench_run *run, unsigned n, struct bench_metric **lat,
			   struct bench_metric **per)
{
	char name[64];

	snprintf(name, sizeof(name), "validate.execbuf.n%u", n);
	*lat = lat_metric(run, name);
	snprintf(name, sizeof(name), "execbuf.per_bo.n%u", n);
	*per = lat_metric(run, name);
	return *lat && *per ? 0 : -ENOMEM;
}

/* The metrics of cases (a) and (b) at @size, as every back end names them. */
static int in_place_and_bind_metrics(struct bench_run *run, uint64_t size,
				     struct bench_metric **inpl, struct bench_metric **bind)
{
	char name[64], sz[24];

	size_name(size, sz, sizeof(sz));
	snprintf(name, sizeof(name), "validate.in_place.%s", sz);
	*inpl = lat_metric(run, name);
	snprintf(name, sizeof(name), "validate.bind.%s", sz);
	*bind = lat_metric(run, name);
	return *inpl && *bind ? 0 : -ENOMEM;
}

/*
 * The timed part of cases (a) and (b), the same on every back end: @bo
 * already sits in @tt; (a) validates it there again (any move is -EPROTO:
 * "in place" moved something, not this case), (b) sends it to @sys
 * untimed and times its way back into @tt.
 */
static int measure_in_place_and_bind(struct ttm_buffer_object *bo, const struct ttm_placement *tt,
				     const struct ttm_placement *sys, struct bench_metric *inpl,
				     struct bench_metric *bind, const struct budget *b)
{
	struct ttm_operation_ctx ctx;
	uint64_t t0, ns;
	unsigned i;
	int ret = 0;

	bench_icount_start();
	bench_icount_pause();
	t0 = testlib_now_raw_ns();
	for (i = 0; !ret && budget_more(b, i, t0); i++) {
		ret = timed_validate(bo, tt, &ns, &ctx);
		if (!ret && ctx.moves)
			ret = -EPROTO;
		if (!ret && i >= b->warmup)
			ret = bench_metric_record(inpl, ns);
	}
	if (!ret)
		ret = bench_icount_stop(inpl, i);
	t0 = testlib_now_raw_ns();
	for (i = 0; !ret && budget_more(b, i, t0); i++) {
		uint64_t back;

		/* Only the timed way back into TT is the bind's region. */
		ret = timed_validate_counted(bo, sys, &back, &ctx, false);
		if (!i) {
			bench_icount_start();
			bench_icount_pause();
		}
		if (!ret)
			ret = timed_validate(bo, tt, &ns, &ctx);
		if (!ret && i >= b->warmup)
			ret = bench_metric_record(bind, ns);
	}
	if (!ret)
		ret = bench_icount_stop(bind, i);
	return ret;
}

/*
 * The metrics of cases (c) and (d): the latency of one eviction and, with
 * @copy, the bandwidth of the copies. *@bw_out stays NULL without @copy.
 */
static int evict_metrics_add(struct bench_run *run, uint64_t size, bool copy,
			     struct bench_metric **lat_out, struct bench_metric **bw_out)
{
	struct bench_metric *lat, *bw = NULL;
	char name[64], sz[24];

	*bw_out = NULL;
	size_name(size, sz, sizeof(sz));
	snprintf(name, sizeof(name), "validate.%s.%s", copy ? "evict_copy" : "evict_unbind", sz);
	lat = lat_metric(run, name);
	if (!lat)
		return -ENOMEM;
	if (copy) {
		snprintf(name, sizeof(name), "evict_copy_bw.%s", sz);
		bw = bench_metric_find(run, name);
		if (!bw)
			bw = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
		if (!bw)
			return -ENOMEM;
		bench_metric_reference(bw, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	}
	*lat_out = lat;
	*bw_out = bw;
	return 0;
}

/*
 * The timed loop of cases (c) and (d): @bo[0] and @bo[1] validated into
 * @target in turn, @bo[0] first, each validate evicting the other one
 * (anything but exactly one eviction is -EPROTO). With @idle (the GPU back
 * ends, whose moves are asynchronous) both are first made resident once
 * and waited for, so every timed validate moves populated pages; with
 * @wait_timed too, each sample runs until both are idle again.
 */
static int evict_alternate(struct ttm_buffer_object *const bo[2],
			   const struct ttm_placement *target,
			   int (*idle)(struct ttm_buffer_object *bo), bool wait_timed,
			   const struct budget *b, struct bench_metric *lat,
			   struct bench_metric *bw)
{
	struct ttm_operation_ctx ctx;
	uint64_t t0, ns;
	int ret = 0;

	for (unsigned k = 0; idle && k < 2 && !ret; k++)
		ret = timed_validate(bo[k], target, &ns, &ctx);
	for (unsigned k = 0; idle && k < 2 && !ret; k++)
		ret = idle(bo[k]);
	t0 = testlib_now_raw_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		uint64_t s = wait_timed ? testlib_now_raw_ns() : 0;

		ret = timed_validate(bo[i & 1], target, &ns, &ctx);
		if (!ret && wait_timed) {
			ret = idle(bo[0]);
			ret = ret ? ret : idle(bo[1]);
			ns = testlib_now_raw_ns() - s;
		}
		if (!ret && ctx.evictions != 1)
			ret = -EPROTO; /* exactly one eviction is the case measured */
		if (!ret && i >= b->warmup) {
			ret = bench_metric_record(lat, ns);
			if (!ret && bw && ns)
				ret =
				    bench_metric_sample(bw, (double)ctx.bytes_copied / (double)ns);
		}
	}
	return ret;
}

static void unreserve_all(struct ttm_buffer_object **bos, bool *held, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (held[k])
			ttm_bo_unreserve(bos[k]);
		held[k] = false;
	}
}

/* One execbuffer: reserve all under a ticket, validate each, unreserve. */
static int execbuf_once(struct ttm_buffer_object **bos, bool *held, unsigned n,
			const struct ttm_placement *pl)
{
	struct ww_acquire_ctx ticket;
	struct ttm_operation_ctx ctx;
	int ret = 0;

	ww_acquire_init(&ticket, &reservation_ww_class);
	for (unsigned k = 0; k < n; k++) {
		if (held[k])
			continue;
		ret = ttm_bo_reserve(bos[k], false, false, &ticket);
		if (ret == -EDEADLK) {
			/* Wait-die: drop everything, sleep on the contended one, retry. */
			unreserve_all(bos, held, n);
			ret = ttm_bo_reserve_slowpath(bos[k], false, &ticket);
			if (ret)
				break;
			held[k] = true;
			k = (unsigned)-1;
			continue;
		}
		if (ret)
			break;
		held[k] = true;
	}
	if (!ret) {
		ww_acquire_done(&ticket);
		memset(&ctx, 0, sizeof(ctx));
		ctx.ticket = &ticket;
		for (unsigned k = 0; k < n && !ret; k++)
			ret = ttm_bo_validate(bos[k], pl, &ctx);
	}
	unreserve_all(bos, held, n);
	ww_acquire_fini(&ticket);
	return ret;
}

/* ------------------------------------------- the back ends' devices */

/* A hung GPU must end the run, not block it. */
#define HW_WAIT_NS 2000000000LL

/* The case a device is opened for. */
enum val_case {
	VAL_BIND,	  /* (a) and (b): one BO, room to spare in TT */
	VAL_EVICT_UNBIND, /* (c): two BOs, TT room for one */
	VAL_EVICT_COPY,	  /* (d): two BOs, device-local room for one */
	VAL_EXECBUF,	  /* (e): a list of 4 KiB BOs */
};

struct val_backend;

/*
 * One case's device and BOs, as a back end made them: the cases run one
 * code path over it. @tt and @sys are the placements of (a) and (b),
 * @target the one (c) and (d) evict into (SYSTEM is where evicted BOs go).
 */
struct val_dev {
	const struct val_backend *be;
	struct bench_run *run;
	struct bench_hw *hw;
	struct testlib_mock_device md;
	struct i915_device *i915;
	struct ttm_placement tt, sys, target;
	struct ttm_place ptt, psys, ptarget;
	/* (e): the back end's view of the list, made by bos_create(). */
	bool *held;
	struct i915_exec_object *eo;
	struct hw_ttm_bo **hw_bos;
};

/*
 * struct val_backend - what differs between back ends: how a case's
 * device and BOs are made (and in which state the case starts), how the
 * end of asynchronous moves is waited for, how an execbuffer list runs.
 * @open: a device for @c with BOs of @size (@size = the list length for
 *	VAL_EXECBUF); placements set. 0; 1 (the device cannot run @c: the
 *	case is skipped; call @close); a negative errno (nothing to close).
 * @bos_create: the @n BOs of @c, each of @size: in TT for VAL_BIND, one
 *	resident in @target and one not for the evictions, the list for
 *	VAL_EXECBUF (its last BO the batch). 0 or a negative errno; what was
 *	made is in @bos (NULL elsewhere).
 * @bos_put: release @bos (NULL entries skipped).
 * @close: release the device; 0 or -EBUSY (BOs left).
 * @idle: wait for @bo's moves; NULL where moves are synchronous.
 * @exec: one execbuffer of the list, timed by the caller; *@fence gets
 *	what to wait for outside the timed region (NULL: nothing).
 * @wait_ns: how long to wait for that fence (0: without limit).
 * @bind_first: the BO of VAL_BIND starts in SYSTEM: an untimed validate
 *	into TT populates it before the cases.
 * @targets: cases (a) and (b) carry their targets.
 * @gpu_labels: evict_copy says its samples also wait for the blits.
 * @bind_label, @unbind_label, @exec_label: what a bind, an eviction of
 *	(c) and an execbuffer are on this back end (NULL: no label).
 */
struct val_backend {
	int (*open)(struct val_dev *d, enum val_case c, uint64_t size);
	int (*bos_create)(struct val_dev *d, enum val_case c, uint64_t size, unsigned n,
			  struct ttm_buffer_object **bos);
	void (*bos_put)(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n);
	int (*close)(struct val_dev *d);
	int (*idle)(struct ttm_buffer_object *bo);
	int (*exec)(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n,
		    struct dma_fence **fence);
	int64_t wait_ns;
	bool bind_first, targets, gpu_labels;
	const char *bind_label, *unbind_label, *exec_label;
};

/* core: the TTM core over testlib's mock device (memcpy moves, no GPU). */
static int core_open(struct val_dev *d, enum val_case c, uint64_t size)
{
	uint64_t pages = size / TTM_PAGE_SIZE;
	int ret;

	switch (c) {
	case VAL_BIND:
		ret = bench_mockdev_init(&d->md, 2 * pages, 0);
		break;
	case VAL_EVICT_UNBIND:
		ret = bench_mockdev_init(&d->md, pages, 0);
		break;
	case VAL_EVICT_COPY:
		ret = bench_mockdev_init(&d->md, 0, pages);
		break;
	default:
		/* The list of @size BOs of one page each, twice over in TT. */
		d->held = calloc(size, sizeof(*d->held));
		ret = d->held ? bench_mockdev_init(&d->md, 2 * size, 0) : -ENOMEM;
		break;
	}
	if (ret) {
		free(d->held);
		d->held = NULL;
		return ret;
	}
	bench_mockdev_place(&d->tt, &d->ptt, TTM_PL_TT);
	bench_mockdev_place(&d->sys, &d->psys, TTM_PL_SYSTEM);
	bench_mockdev_place(&d->target, &d->ptarget, c == VAL_EVICT_COPY ? TTM_PL_VRAM : TTM_PL_TT);
	return 0;
}

static int core_bos_create(struct val_dev *d, enum val_case c, uint64_t size, unsigned n,
			   struct ttm_buffer_object **bos)
{
	if (c == VAL_EVICT_UNBIND || c == VAL_EVICT_COPY) {
		/* bos[1] is resident first: the loop starts with bos[0] evicting it. */
		bos[1] = bench_mockdev_bo_create(&d->md, size, &d->target);
		bos[0] = bos[1] ? bench_mockdev_bo_create(&d->md, size, &d->sys) : NULL;
		return bos[0] ? 0 : -ENOMEM;
	}
	for (unsigned k = 0; k < n; k++) {
		bos[k] = bench_mockdev_bo_create(&d->md, size, &d->tt);
		if (!bos[k])
			return -ENOMEM;
	}
	return 0;
}

static void ttm_bos_put(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n)
{
	(void)d;
	for (unsigned k = 0; k < n; k++)
		if (bos[k])
			ttm_bo_put(bos[k]);
}

static int core_close(struct val_dev *d)
{
	free(d->held);
	d->held = NULL;
	return testlib_mock_device_fini(&d->md) ? -EBUSY : 0;
}

/* A 2007-style execbuffer: reserve all under one ticket, validate each, unreserve. */
static int core_exec(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n,
		     struct dma_fence **fence)
{
	*fence = NULL;
	return execbuf_once(bos, d->held, n, &d->tt);
}

static const struct val_backend val_core = {
    .open = core_open,
    .bos_create = core_bos_create,
    .bos_put = ttm_bos_put,
    .close = core_close,
    .exec = core_exec,
    .targets = true,
};

/* sim: the i915 driver on the simulated GPU. */
static void sim_place(struct ttm_placement *pl, struct ttm_place *p, uint32_t mem_type,
		      uint32_t flags)
{
	*p = (struct ttm_place){.mem_type = mem_type, .flags = flags};
	*pl = (struct ttm_placement){.num_placement = 1, .placement = p};
}

/*
 * (a), (b) and (e): a GGTT with room; (c) an aperture of one BO above the
 * guard page (MAPPABLE placements); (d) lmem of exactly one BO.
 */
static int sim_open(struct val_dev *d, enum val_case c, uint64_t size)
{
	int ret;

	if (c == VAL_EXECBUF) {
		d->eo = calloc(size, sizeof(*d->eo));
		if (!d->eo)
			return -ENOMEM;
	}
	if (c == VAL_EVICT_COPY)
		ret = bench_simdev_open(d->run, 1, 0, size, &d->i915);
	else if (c == VAL_EVICT_UNBIND)
		ret = bench_simdev_open(d->run, 1, size + TTM_PAGE_SIZE, 0, &d->i915);
	else
		ret = bench_simdev_open(d->run, 1, 0, 0, &d->i915);
	if (ret) {
		free(d->eo);
		d->eo = NULL;
		d->i915 = NULL;
		return ret;
	}
	sim_place(&d->tt, &d->ptt, TTM_PL_TT, 0);
	sim_place(&d->sys, &d->psys, TTM_PL_SYSTEM, 0);
	if (c == VAL_EVICT_COPY)
		sim_place(&d->target, &d->ptarget, TTM_PL_VRAM, 0);
	else
		sim_place(&d->target, &d->ptarget, TTM_PL_TT, TTM_PL_FLAG_MAPPABLE);
	return 0;
}

static int sim_bos_create(struct val_dev *d, enum val_case c, uint64_t size, unsigned n,
			  struct ttm_buffer_object **bos)
{
	enum i915_gem_region region =
	    c == VAL_EVICT_COPY ? I915_GEM_REGION_LMEM : I915_GEM_REGION_SMEM;
	struct i915_gem_object *obj = NULL;
	int ret = 0;

	for (unsigned k = 0; k < n && !ret; k++) {
		obj = NULL;
		ret = i915_gem_object_create(d->i915, size, region, &obj);
		bos[k] = ret ? NULL : &obj->base;
		if (d->eo)
			d->eo[k].obj = bos[k] ? obj : NULL;
	}
	if (!ret && c == VAL_EXECBUF) {
		uint32_t bb[2] = {0, 0};

		i915_emit_bb_end(bb);
		ret = i915_gem_object_access(d->eo[n - 1].obj, 0, bb, sizeof(bb), true);
	}
	return ret;
}

static void sim_bos_put(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n)
{
	(void)d;
	for (unsigned k = 0; k < n; k++)
		if (bos[k])
			i915_gem_object_put(container_of(bos[k], struct i915_gem_object, base));
}

static int sim_close(struct val_dev *d)
{
	int ret = bench_simdev_close(d->i915);

	free(d->eo);
	d->eo = NULL;
	d->i915 = NULL;
	return ret;
}

static int sim_idle(struct ttm_buffer_object *bo)
{
	return i915_gem_object_wait(container_of(bo, struct i915_gem_object, base));
}

/* i915_gem_execbuffer() of the list, the batch its last object. */
static int sim_exec(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n,
		    struct dma_fence **fence)
{
	struct i915_execbuffer eb = {.objects = d->eo, .count = n, .flags = I915_EXEC_RENDER};
	int ret;

	(void)bos;
	ret = i915_gem_execbuffer(d->i915, &eb);
	*fence = ret ? NULL : eb.out_fence;
	return ret;
}

static const struct val_backend val_sim = {
    .open = sim_open,
    .bos_create = sim_bos_create,
    .bos_put = sim_bos_put,
    .close = sim_close,
    .idle = sim_idle,
    .exec = sim_exec,
    .bind_first = true,
    .targets = true,
    .gpu_labels = true,
    .exec_label = "i915_gem_execbuffer, batch = last object",
};

#if TTM_HAVE_LIBDRM
/*
 * hw: a real Intel GPU under hw_ttm. TT is a range manager over the
 * ppGTT (a bind is an address assignment); (c) runs under a TT range of
 * one BO, (d) in VRAM of one BO (skipped without VRAM). The device of a
 * case stays open until the next case's open (or the end of the run).
 */
static int hw_open(struct val_dev *d, enum val_case c, uint64_t size)
{
	struct bench_hw_args args = {.no_vram = true};
	int ret;

	if (c == VAL_EVICT_UNBIND)
		args.tt_size = size;
	else if (c == VAL_EVICT_COPY)
		args = (struct bench_hw_args){.vram_size = size};
	if (c == VAL_EXECBUF) {
		d->hw_bos = calloc(size, sizeof(*d->hw_bos));
		if (!d->hw_bos)
			return -ENOMEM;
	}
	ret = bench_hw_close(d->hw);
	if (!ret) {
		args.need_exec_fence = true;
		ret = bench_hw_open(d->run, d->hw, &args);
		if (ret)
			fprintf(stderr, "benchmark-validate: --backend=hw: %s\n", d->hw->why);
	}
	if (ret) {
		free(d->hw_bos);
		d->hw_bos = NULL;
		return ret;
	}
	if (c == VAL_EVICT_COPY && !d->hw->dev->has_vram)
		return 1;
	d->tt = hw_ttm_placement_tt;
	d->sys = hw_ttm_placement_system;
	d->target = c == VAL_EVICT_COPY ? hw_ttm_placement_vram : hw_ttm_placement_tt;
	return 0;
}

/* Every BO starts in SYSTEM; the list's batch is an empty one. */
static int hw_bos_create(struct val_dev *d, enum val_case c, uint64_t size, unsigned n,
			 struct ttm_buffer_object **bos)
{
	struct hw_ttm_bo *bo = NULL;
	int ret = 0;

	if (c == VAL_EXECBUF) {
		ret = bench_hw_nop_batch(d->hw, &bo);
		bos[n - 1] = ret ? NULL : &bo->tbo;
		n--;
	}
	for (unsigned k = 0; k < n && !ret; k++) {
		ret = hw_ttm_bo_create(d->hw->dev, size, &hw_ttm_placement_system, &bo);
		bos[k] = ret ? NULL : &bo->tbo;
		if (d->hw_bos)
			d->hw_bos[k] = ret ? NULL : bo;
	}
	return ret;
}

static int hw_close(struct val_dev *d)
{
	free(d->hw_bos);
	d->hw_bos = NULL;
	return 0;
}

/* Wait, reserved, until @bo's moves are done. */
static int hw_idle(struct ttm_buffer_object *bo)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	int ret = ttm_bo_reserve(bo, false, false, NULL);

	if (ret)
		return ret;
	ret = ttm_bo_wait_ctx(bo, &ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

/* hw_ttm_exec(): every object softpinned, the batch one of the N. */
static int hw_exec(struct val_dev *d, struct ttm_buffer_object **bos, unsigned n,
		   struct dma_fence **fence)
{
	*fence = NULL;
	return hw_ttm_exec(d->hw->dev, d->hw_bos, n - 1, to_hw_ttm_bo(bos[n - 1]), fence);
}

static const struct val_backend val_hw = {
    .open = hw_open,
    .bos_create = hw_bos_create,
    .bos_put = ttm_bos_put,
    .close = hw_close,
    .idle = hw_idle,
    .exec = hw_exec,
    .wait_ns = HW_WAIT_NS,
    .bind_first = true,
    .gpu_labels = true,
    .bind_label = "GPU address assignment (softpin at the next exec)",
    .unbind_label = "GPU address taken away (TT range of one BO)",
    .exec_label = "hw_ttm_exec, softpinned, batch = one of the N",
};
#endif /* TTM_HAVE_LIBDRM */

/* -------------------------------------- the cases, one path for all */

/* Cases (a) and (b): one BO on a device with room to spare. */
static int case_in_place_and_bind(struct val_dev *d, uint64_t size, const struct budget *b)
{
	const struct val_backend *be = d->be;
	struct ttm_buffer_object *bo = NULL;
	struct bench_metric *inpl, *bind;
	struct ttm_operation_ctx ctx;
	uint64_t ns;
	int ret, ret2;

	ret = in_place_and_bind_metrics(d->run, size, &inpl, &bind);
	if (ret)
		return ret;
	if (be->targets) {
		bench_metric_target(inpl, 100.0, BENCH_TARGET_AT_MOST);
		bench_metric_target(bind, 2000.0 + 20.0 * (double)(size / TTM_PAGE_SIZE),
				    BENCH_TARGET_AT_MOST);
	}
	if (be->bind_label)
		bench_metric_label(bind, "bind", be->bind_label);
	ret = be->open(d, VAL_BIND, size);
	if (ret)
		return ret < 0 ? ret : be->close(d);
	ret = be->bos_create(d, VAL_BIND, size, 1, &bo);
	/* The first bind populates the pages; the cases start from there. */
	if (!ret && be->bind_first)
		ret = timed_validate(bo, &d->tt, &ns, &ctx);
	if (!ret)
		ret = measure_in_place_and_bind(bo, &d->tt, &d->sys, inpl, bind, b);
	be->bos_put(d, &bo, 1);
	ret2 = be->close(d);
	return ret ? ret : ret2;
}

/*
 * Cases (c) and (d): two BOs, room for one in the target; each validate of
 * the other one evicts the resident one, by unbind or by copy. On a back
 * end that cannot run (d) (no VRAM) *@skipped is set and nothing measured.
 */
static int case_evict(struct val_dev *d, uint64_t size, bool copy, const struct budget *b,
		      bool *skipped)
{
	const struct val_backend *be = d->be;
	struct ttm_buffer_object *bo[2] = {NULL, NULL};
	struct bench_metric *lat, *bw;
	int ret, ret2;

	ret = be->open(d, copy ? VAL_EVICT_COPY : VAL_EVICT_UNBIND, size);
	if (ret < 0)
		return ret;
	if (ret == 1)
		*skipped = true;
	if (!ret)
		ret = evict_metrics_add(d->run, size, copy, &lat, &bw);
	if (!ret && copy && be->gpu_labels) {
		bench_metric_label(lat, "timed", "validate + wait for the blits");
		bench_metric_label(bw, "counted", "bytes moved per hop");
	}
	if (!ret && !copy && be->unbind_label)
		bench_metric_label(lat, "evict", be->unbind_label);
	if (!ret)
		ret = be->bos_create(d, copy ? VAL_EVICT_COPY : VAL_EVICT_UNBIND, size, 2, bo);
	if (!ret)
		ret = evict_alternate(bo, &d->target, be->idle, copy && be->idle, b, lat, bw);
	be->bos_put(d, bo, 2);
	ret2 = be->close(d);
	if (ret == 1)
		ret = 0;
	return ret ? ret : ret2;
}

/*
 * (e): an execbuffer list of @n 4 KiB BOs, timed over the back end's
 * submission (reservation, validation, and on the GPU back ends the
 * submission and fence attachment); the wait for the batch is outside it.
 */
static int case_execbuf(struct val_dev *d, unsigned n, const struct budget *b,
			struct bench_metric **per_bo_out)
{
	const struct val_backend *be = d->be;
	struct ttm_buffer_object **bos = calloc(n, sizeof(*bos));
	struct bench_metric *lat, *per;
	uint64_t t0;
	int ret, ret2;

	ret = execbuf_metrics(d->run, n, &lat, &per);
	if (!bos || ret) {
		free(bos);
		return -ENOMEM;
	}
	*per_bo_out = per;
	ret = be->open(d, VAL_EXECBUF, n);
	if (ret) {
		free(bos);
		return ret < 0 ? ret : be->close(d);
	}
	if (be->exec_label)
		bench_metric_label(lat, "path", be->exec_label);
	ret = be->bos_create(d, VAL_EXECBUF, TTM_PAGE_SIZE, n, bos);
	t0 = testlib_now_raw_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		struct dma_fence *f = NULL;
		uint64_t s = testlib_now_raw_ns(), ns;

		ret = be->exec(d, bos, n, &f);
		ns = testlib_now_raw_ns() - s;
		if (!ret && f && !be->wait_ns) {
			ret = dma_fence_wait(f, false);
			if (!ret && f->error)
				ret = f->error;
		} else if (!ret && f) {
			int64_t left = dma_fence_wait_timeout(f, false, be->wait_ns);

			ret = left < 0 ? (int)left : left == 0 ? -ETIME : f->error;
		}
		if (f)
			dma_fence_put(f);
		if (!ret && i >= b->warmup) {
			ret = bench_metric_record(lat, ns);
			if (!ret)
				ret = bench_metric_record(per, (ns + n / 2) / n);
		}
	}
	be->bos_put(d, bos, n);
	free(bos);
	ret2 = be->close(d);
	return ret ? ret : ret2;
}

/* One round's share of @b: the time and the iteration bounds divided by @rounds. */
static struct budget round_budget(const struct budget *b, unsigned rounds)
{
	struct budget r = *b;

	r.ns = b->ns / rounds;
	r.min_iters = (b->min_iters + rounds - 1) / rounds;
	if (r.min_iters < 2)
		r.min_iters = 2;
	r.max_iters = b->max_iters / rounds > r.min_iters ? b->max_iters / rounds : r.min_iters;
	/* The warm-up is not divided: each round starts on a fresh device. */
	return r;
}

/*
 * One round: cases (a) to (d) at every size, then the execbuf lists
 * @lists, each on a device of its own. @per_bo is set to the
 * execbuf.per_bo.n<N> metrics; *@step advances the progress line;
 * *@skipped is set when the back end could not run (d).
 */
static int validate_round(struct val_dev *d, const struct val_opts *vo, const unsigned lists[3],
			  const struct budget *small, const struct budget *big,
			  struct bench_metric *per_bo[3], unsigned *step, unsigned steps,
			  bool *skipped)
{
	int rc = 0;

	for (unsigned s = 0; s < vo->nsizes && !rc; s++) {
		const struct budget *b = vo->sizes[s] >= (16u << 20) ? big : small;

		bench_progress(d->run, "validate", (double)(*step)++ / steps);
		rc = case_in_place_and_bind(d, vo->sizes[s], b);
		bench_progress(d->run, "validate", (double)(*step)++ / steps);
		if (!rc)
			rc = case_evict(d, vo->sizes[s], false, b, skipped);
		bench_progress(d->run, "validate", (double)(*step)++ / steps);
		if (!rc)
			rc = case_evict(d, vo->sizes[s], true, b, skipped);
	}
	for (unsigned l = 0; l < 3 && !rc; l++) {
		bench_progress(d->run, "validate", (double)(*step)++ / steps);
		rc = case_execbuf(d, lists[l], small, &per_bo[l]);
	}
	return rc;
}

/*
 * The back end's parameters of the run. hw opens its device here first, so
 * that a machine without one skips: returns bench_hw_exit()'s status then,
 * -1 otherwise.
 */
static int backend_params(struct bench_run *run, struct val_dev *d, const unsigned lists[3])
{
	int rc;

	if (d->be == &val_core) {
		bench_run_param(run, "backend", "%s", "core");
		bench_run_backend_param(run, "device", "%s",
					"bench_mockdev: SYSTEM, range TT, host-memory VRAM, "
					"memcpy moves");
		return -1;
	}
	if (d->be == &val_sim) {
		bench_run_param(run, "backend", "%s", "sim");
		bench_run_backend_param(run, "device", "%s",
					"i915 on the simulated GPU, gen 12, 1 GiB GGTT");
		bench_run_backend_param(run, "latency_model", "%s", "off");
		bench_run_backend_param(run, "aperture", "%s",
					"256 MiB; evict_unbind: one BO + the 4 KiB guard page");
		bench_run_backend_param(run, "lmem", "%s",
					"none; evict_copy: one BO, not CPU-visible (blits)");
		return -1;
	}
	bench_run_param(run, "backend", "%s", "hw");
	rc = bench_hw_open(run, d->hw, NULL);
	if (rc)
		return bench_hw_exit(run, d->hw, "benchmark-validate", rc);
	if (!d->be) { /* not reached: the open fails without libdrm */
		bench_hw_close(d->hw);
		bench_run_fini(run);
		return 1;
	}
	bench_run_param(run, "lists", "1,16,%u (hw_ttm_exec takes at most %u objects)", lists[2],
			lists[2]);
	bench_run_backend_param(run, "tt", "%s",
				"range manager over the ppGTT: bind = address "
				"assignment; evict_unbind: a TT range of one BO");
	return -1;
}

int main(int argc, char **argv)
{
	static const unsigned lists[] = {1, 16, 256};
	unsigned hw_lists[] = {1, 16, 64};
	struct bench_metric *per_bo[3] = {NULL, NULL, NULL};
	struct val_opts vo = {.nsizes = 0};
	struct budget small, big, rsmall, rbig;
	struct val_dev d = {.be = &val_sim};
	struct bench_run run;
	char sizes[256] = "";
	unsigned steps, step = 0, rounds;
	bool hw, no_vram = false;
	int rc;

	bench_hw_init(&vo.hw);
	rc = bench_setup(&run, "validate", argc, argv, val_extra, &vo);
	if (rc)
		return bench_exit_code(rc);
	if (!vo.nsizes) {
		static const uint64_t full[] = {4096, 65536, 1 << 20, 16 << 20, 64 << 20};

		vo.nsizes = run.opts.quick ? 3 : 5;
		memcpy(vo.sizes, full, vo.nsizes * sizeof(full[0]));
	}
	for (unsigned s = 0; s < vo.nsizes; s++) {
		char sz[24];

		size_name(vo.sizes[s], sz, sizeof(sz));
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%s", s ? "," : "",
			 sz);
	}
	bench_run_param(&run, "sizes", "%s", sizes);
	/* A quarter of --duration per case and size; copies get fewer iterations. */
	small = (struct budget){.ns = (uint64_t)(run.opts.duration_s * 0.25e9),
				.min_iters = 200,
				.max_iters = 200000,
				.warmup = 20};
	big = (struct budget){.ns = small.ns, .min_iters = 8, .max_iters = 200000, .warmup = 2};
	hw = run.opts.backend == BENCH_BACKEND_HW;
	d.run = &run;
	d.hw = &vo.hw;
	if (hw) {
		d.be = NULL;
#if TTM_HAVE_LIBDRM
		d.be = &val_hw;
		/* hw_ttm_exec() takes at most HW_TTM_EXEC_MAX objects. */
		hw_lists[2] = HW_TTM_EXEC_MAX;
#endif
	} else if (run.opts.backend != BENCH_BACKEND_SIM) {
		d.be = &val_core;
	}
	rc = backend_params(&run, &d, hw ? hw_lists : lists);
	if (rc >= 0)
		return rc;
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-validate: a reference failed (%d)\n", rc);
	/* Worker 0; each case's sim device (bench_simdev_open(run, 1, ...)) keeps off its CPU. */
	bench_pin_thread(&run, 0);
	/*
	 * Every case once per round, --reps rounds, each with its share of
	 * the case's budget: the round medians show how the figures move over
	 * the run (other tenants, frequency), which one histogram's order
	 * statistics cannot, and ttm-compare judges them by that spread. The
	 * hw back end measures in one round.
	 */
	rounds = run.opts.reps && !hw ? run.opts.reps : 1;
	rsmall = round_budget(&small, rounds);
	rbig = round_budget(&big, rounds);
	if (!hw)
		bench_run_param(&run, "rounds", "%u", rounds);
	steps = rounds * (3 * vo.nsizes + 3);
	rc = 0;
	for (unsigned r = 0; r < rounds && !rc; r++) {
		rc = validate_round(&d, &vo, hw ? hw_lists : lists, &rsmall, &rbig, per_bo, &step,
				    steps, &no_vram);
		if (!rc && !hw)
			rc = bench_run_round_end(&run);
	}
	bench_progress_done(&run);
	if (no_vram) {
		fprintf(stderr, "benchmark-validate: note: integrated GPU, no VRAM: "
				"validate.evict_copy.* skipped\n");
		bench_run_backend_param(&run, "evict_copy", "%s",
					"skipped: no VRAM (integrated part)");
	}
	if (hw && bench_hw_close(&vo.hw) && !rc)
		rc = -EBUSY;
	if (rc) {
		fprintf(stderr, "benchmark-validate: %sfailed (%s)\n", hw ? "--backend=hw: " : "",
			strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	{
		struct bench_stats st;

		/* Target (e): the per-BO cost of the longest list within 1.5x of the one at 16. */
		if (!bench_metric_stats(per_bo[1], &st)) {
			bench_metric_target(per_bo[2], 1.5 * st.median, BENCH_TARGET_AT_MOST);
			bench_metric_label(per_bo[2], "target", "<= 1.5x execbuf.per_bo.n16");
		}
	}
	return bench_run_finish(&run);
}
