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

/* Cases (a) and (b): one BO on a device with room to spare. */
static int case_in_place_and_bind(struct bench_run *run, uint64_t size, const struct budget *b)
{
	struct ttm_placement tt, sys;
	struct ttm_place ptt, psys;
	struct bench_metric *inpl, *bind;
	struct ttm_buffer_object *bo;
	struct testlib_mock_device md;
	uint64_t pages = size / TTM_PAGE_SIZE;
	int ret;

	ret = in_place_and_bind_metrics(run, size, &inpl, &bind);
	if (ret)
		return ret;
	bench_metric_target(inpl, 100.0, BENCH_TARGET_AT_MOST);
	bench_metric_target(bind, 2000.0 + 20.0 * (double)pages, BENCH_TARGET_AT_MOST);
	ret = bench_mockdev_init(&md, 2 * pages, 0);
	if (ret)
		return ret;
	bench_mockdev_place(&tt, &ptt, TTM_PL_TT);
	bench_mockdev_place(&sys, &psys, TTM_PL_SYSTEM);
	bo = bench_mockdev_bo_create(&md, size, &tt);
	if (!bo) {
		testlib_mock_device_fini(&md);
		return -ENOMEM;
	}
	if (!ret)
		ret = measure_in_place_and_bind(bo, &tt, &sys, inpl, bind, b);
	ttm_bo_put(bo);
	if (testlib_mock_device_fini(&md) && !ret)
		ret = -EBUSY;
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

/*
 * Cases (c) and (d): two BOs, room for one in @mem_type; each validate of
 * the other one evicts the resident one.
 */
static int case_evict(struct bench_run *run, uint64_t size, bool copy, const struct budget *b)
{
	struct ttm_placement target, sys;
	struct ttm_place pt, ps;
	struct bench_metric *lat, *bw;
	struct ttm_buffer_object *bo[2];
	struct testlib_mock_device md;
	uint64_t pages = size / TTM_PAGE_SIZE;
	uint32_t mem = copy ? TTM_PL_VRAM : TTM_PL_TT;
	int ret;

	ret = evict_metrics_add(run, size, copy, &lat, &bw);
	if (ret)
		return ret;
	ret = copy ? bench_mockdev_init(&md, 0, pages) : bench_mockdev_init(&md, pages, 0);
	if (ret)
		return ret;
	bench_mockdev_place(&target, &pt, mem);
	bench_mockdev_place(&sys, &ps, TTM_PL_SYSTEM);
	/* bo[1] is resident first: the loop starts with bo[0] evicting it. */
	bo[1] = bench_mockdev_bo_create(&md, size, &target);
	bo[0] = bo[1] ? bench_mockdev_bo_create(&md, size, &sys) : NULL;
	if (!bo[0]) {
		if (bo[1])
			ttm_bo_put(bo[1]);
		testlib_mock_device_fini(&md);
		return -ENOMEM;
	}
	ret = evict_alternate(bo, &target, NULL, false, b, lat, bw);
	ttm_bo_put(bo[1]);
	ttm_bo_put(bo[0]);
	if (testlib_mock_device_fini(&md) && !ret)
		ret = -EBUSY;
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

static int case_execbuf(struct bench_run *run, unsigned n, const struct budget *b,
			struct bench_metric **per_bo_out)
{
	struct ttm_buffer_object **bos = calloc(n, sizeof(*bos));
	bool *held = calloc(n, sizeof(*held));
	struct bench_metric *lat, *per;
	struct ttm_placement tt;
	struct ttm_place ptt;
	struct testlib_mock_device md;
	uint64_t t0;
	int ret;

	ret = execbuf_metrics(run, n, &lat, &per);
	if (!bos || !held || ret) {
		free(bos);
		free(held);
		return -ENOMEM;
	}
	*per_bo_out = per;
	ret = bench_mockdev_init(&md, 2ull * n, 0);
	if (ret) {
		free(bos);
		free(held);
		return ret;
	}
	bench_mockdev_place(&tt, &ptt, TTM_PL_TT);
	for (unsigned k = 0; k < n && !ret; k++) {
		bos[k] = bench_mockdev_bo_create(&md, TTM_PAGE_SIZE, &tt);
		if (!bos[k])
			ret = -ENOMEM;
	}
	t0 = testlib_now_raw_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		uint64_t s = testlib_now_raw_ns(), ns;

		ret = execbuf_once(bos, held, n, &tt);
		ns = testlib_now_raw_ns() - s;
		if (!ret && i >= b->warmup) {
			ret = bench_metric_record(lat, ns);
			if (!ret)
				ret = bench_metric_record(per, (ns + n / 2) / n);
		}
	}
	for (unsigned k = 0; k < n; k++)
		if (bos[k])
			ttm_bo_put(bos[k]);
	free(bos);
	free(held);
	if (testlib_mock_device_fini(&md) && !ret)
		ret = -EBUSY;
	return ret;
}

/* ------------------------------------------------- sim: the i915 driver */

static struct ttm_placement *sim_place(struct ttm_placement *pl, struct ttm_place *p,
				       uint32_t mem_type, uint32_t flags)
{
	*p = (struct ttm_place){.mem_type = mem_type, .flags = flags};
	*pl = (struct ttm_placement){.num_placement = 1, .placement = p};
	return pl;
}

/* Cases (a) and (b) on the driver: one SMEM object, GGTT with room. */
static int sim_in_place_and_bind(struct bench_run *run, uint64_t size, const struct budget *b)
{
	struct ttm_placement tt, sys;
	struct ttm_place ptt, psys;
	struct bench_metric *inpl, *bind;
	struct ttm_operation_ctx ctx;
	struct i915_gem_object *obj = NULL;
	struct i915_device *i915;
	uint64_t pages = size / TTM_PAGE_SIZE, ns;
	int ret, ret2;

	ret = in_place_and_bind_metrics(run, size, &inpl, &bind);
	if (ret)
		return ret;
	bench_metric_target(inpl, 100.0, BENCH_TARGET_AT_MOST);
	bench_metric_target(bind, 2000.0 + 20.0 * (double)pages, BENCH_TARGET_AT_MOST);
	ret = bench_simdev_open(run, 1, 0, 0, &i915);
	if (ret)
		return ret;
	sim_place(&tt, &ptt, TTM_PL_TT, 0);
	sim_place(&sys, &psys, TTM_PL_SYSTEM, 0);
	ret = i915_gem_object_create(i915, size, I915_GEM_REGION_SMEM, &obj);
	/* The first bind populates the pages; the cases start from there. */
	if (!ret)
		ret = timed_validate(&obj->base, &tt, &ns, &ctx);
	if (!ret)
		ret = measure_in_place_and_bind(&obj->base, &tt, &sys, inpl, bind, b);
	i915_gem_object_put(obj);
	ret2 = bench_simdev_close(i915);
	return ret ? ret : ret2;
}

/*
 * evict_metrics_add() for the GPU back ends (sim and hw), whose samples
 * also wait for the blits: labelled to say so.
 */
static int evict_metrics(struct bench_run *run, uint64_t size, bool copy,
			 struct bench_metric **lat_out, struct bench_metric **bw_out)
{
	int ret = evict_metrics_add(run, size, copy, lat_out, bw_out);

	if (ret || !copy)
		return ret;
	bench_metric_label(*lat_out, "timed", "validate + wait for the blits");
	bench_metric_label(*bw_out, "counted", "bytes moved per hop");
	return 0;
}

static int sim_obj_idle(struct ttm_buffer_object *bo)
{
	return i915_gem_object_wait(container_of(bo, struct i915_gem_object, base));
}

/*
 * Cases (c) and (d) on the driver: two objects, room for one (in the
 * aperture, or in lmem); each validate of the other one evicts the
 * resident one, by unbind or by blit.
 */
static int sim_evict(struct bench_run *run, uint64_t size, bool copy, const struct budget *b)
{
	struct ttm_placement target;
	struct ttm_place pt;
	struct bench_metric *lat, *bw = NULL;
	struct i915_gem_object *obj[2] = {NULL, NULL};
	struct i915_device *i915;
	int ret, ret2;

	ret = evict_metrics(run, size, copy, &lat, &bw);
	if (ret)
		return ret;
	/* lmem of one BO, or an aperture of one BO above the guard page. */
	ret = copy ? bench_simdev_open(run, 1, 0, size, &i915)
		   : bench_simdev_open(run, 1, size + TTM_PAGE_SIZE, 0, &i915);
	if (ret)
		return ret;
	if (copy)
		sim_place(&target, &pt, TTM_PL_VRAM, 0);
	else
		sim_place(&target, &pt, TTM_PL_TT, TTM_PL_FLAG_MAPPABLE);
	for (unsigned k = 0; k < 2 && !ret; k++)
		ret = i915_gem_object_create(
		    i915, size, copy ? I915_GEM_REGION_LMEM : I915_GEM_REGION_SMEM, &obj[k]);
	if (!ret) {
		struct ttm_buffer_object *const bo[2] = {&obj[0]->base, &obj[1]->base};

		ret = evict_alternate(bo, &target, sim_obj_idle, copy, b, lat, bw);
	}
	i915_gem_object_put(obj[0]);
	i915_gem_object_put(obj[1]);
	ret2 = bench_simdev_close(i915);
	return ret ? ret : ret2;
}

/* (e) on the driver: N-1 4 KiB SMEM objects and a batch, one execbuffer each. */
static int sim_execbuf(struct bench_run *run, unsigned n, const struct budget *b,
		       struct bench_metric **per_bo_out)
{
	struct i915_exec_object *eo = calloc(n, sizeof(*eo));
	struct bench_metric *lat, *per;
	struct i915_device *i915 = NULL;
	uint32_t bb[2] = {0, 0};
	uint64_t t0;
	int ret, ret2;

	ret = execbuf_metrics(run, n, &lat, &per);
	if (!ret)
		ret = eo ? bench_simdev_open(run, 1, 0, 0, &i915) : -ENOMEM;
	if (ret) {
		free(eo);
		return ret;
	}
	*per_bo_out = per;
	bench_metric_label(lat, "path", "i915_gem_execbuffer, batch = last object");
	for (unsigned k = 0; k < n && !ret; k++)
		ret = i915_gem_object_create(i915, TTM_PAGE_SIZE, I915_GEM_REGION_SMEM, &eo[k].obj);
	i915_emit_bb_end(bb);
	if (!ret)
		ret = i915_gem_object_access(eo[n - 1].obj, 0, bb, sizeof(bb), true);
	t0 = testlib_now_raw_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		struct i915_execbuffer eb = {.objects = eo, .count = n, .flags = I915_EXEC_RENDER};
		uint64_t s = testlib_now_raw_ns(), ns;

		ret = i915_gem_execbuffer(i915, &eb);
		ns = testlib_now_raw_ns() - s;
		if (ret)
			break;
		ret = dma_fence_wait(eb.out_fence, false);
		if (!ret && eb.out_fence->error)
			ret = eb.out_fence->error;
		dma_fence_put(eb.out_fence);
		if (!ret && i >= b->warmup) {
			ret = bench_metric_record(lat, ns);
			if (!ret)
				ret = bench_metric_record(per, (ns + n / 2) / n);
		}
	}
	for (unsigned k = 0; k < n; k++)
		i915_gem_object_put(eo[k].obj);
	free(eo);
	ret2 = bench_simdev_close(i915);
	return ret ? ret : ret2;
}

/* ----------------------------------------------- hw: a real Intel GPU */

#if TTM_HAVE_LIBDRM
/* A hung GPU must end the run, not block it. */
#define HW_WAIT_NS 2000000000LL

/* Close the device of the previous case and open one built with @args. */
static int hw_reopen(struct bench_run *run, struct bench_hw *hw, struct bench_hw_args *args)
{
	int ret = bench_hw_close(hw);

	if (ret)
		return ret;
	args->need_exec_fence = true;
	ret = bench_hw_open(run, hw, args);
	if (ret)
		fprintf(stderr, "benchmark-validate: --backend=hw: %s\n", hw->why);
	return ret;
}

static int hw_bo_new(struct bench_hw *hw, uint64_t size, struct hw_ttm_bo **out)
{
	*out = NULL;
	return hw_ttm_bo_create(hw->dev, size, &hw_ttm_placement_system, out);
}

/*
 * Cases (a) and (b) on the GPU: TT is the whole ppGTT, so a bind is an
 * address assignment (plus the GEM object's creation on the first one).
 */
static int hw_in_place_and_bind(struct bench_run *run, struct bench_hw *hw, uint64_t size,
				const struct budget *b)
{
	struct bench_hw_args args = {.no_vram = true};
	struct bench_metric *inpl, *bind;
	struct ttm_operation_ctx ctx;
	struct hw_ttm_bo *bo = NULL;
	uint64_t ns;
	int ret;

	ret = in_place_and_bind_metrics(run, size, &inpl, &bind);
	if (ret)
		return ret;
	bench_metric_label(bind, "bind", "GPU address assignment (softpin at the next exec)");
	ret = hw_reopen(run, hw, &args);
	if (!ret)
		ret = hw_bo_new(hw, size, &bo);
	if (!ret)
		ret = timed_validate(&bo->tbo, &hw_ttm_placement_tt, &ns, &ctx);
	if (!ret)
		ret = measure_in_place_and_bind(&bo->tbo, &hw_ttm_placement_tt,
						&hw_ttm_placement_system, inpl, bind, b);
	if (bo)
		ttm_bo_put(&bo->tbo);
	return ret;
}

/* Wait, reserved, until @bo's moves are done. */
static int hw_bo_idle(struct ttm_buffer_object *bo)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	int ret = ttm_bo_reserve(bo, false, false, NULL);

	if (ret)
		return ret;
	ret = ttm_bo_wait_ctx(bo, &ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

/*
 * Cases (c) and (d) on the GPU: a TT range of one BO (evict = the
 * resident BO loses its address, nothing copied), or VRAM of one BO on a
 * discrete part (evict = blit out, blit in; timed until both are idle).
 * Without VRAM, case (d) is skipped with a note: *@skipped set.
 */
static int hw_evict(struct bench_run *run, struct bench_hw *hw, uint64_t size, bool copy,
		    const struct budget *b, bool *skipped)
{
	struct bench_hw_args args = {0};
	const struct ttm_placement *target = copy ? &hw_ttm_placement_vram : &hw_ttm_placement_tt;
	struct bench_metric *lat, *bw = NULL;
	struct hw_ttm_bo *bo[2] = {NULL, NULL};
	int ret;

	if (copy)
		args.vram_size = size;
	else
		args = (struct bench_hw_args){.tt_size = size, .no_vram = true};
	ret = hw_reopen(run, hw, &args);
	if (ret)
		return ret;
	if (copy && !hw->dev->has_vram) {
		*skipped = true;
		return 0;
	}
	ret = evict_metrics(run, size, copy, &lat, &bw);
	if (ret)
		return ret;
	if (!copy)
		bench_metric_label(lat, "evict", "GPU address taken away (TT range of one BO)");
	for (unsigned k = 0; k < 2 && !ret; k++)
		ret = hw_bo_new(hw, size, &bo[k]);
	if (!ret) {
		struct ttm_buffer_object *const tbo[2] = {&bo[0]->tbo, &bo[1]->tbo};

		ret = evict_alternate(tbo, target, hw_bo_idle, copy, b, lat, bw);
	}
	for (unsigned k = 0; k < 2; k++)
		if (bo[k])
			ttm_bo_put(&bo[k]->tbo);
	return ret;
}

/*
 * (e) on the GPU: N-1 4 KiB BOs and an empty batch through hw_ttm_exec(),
 * timed over the call (reserve, validate = address assignment, the
 * execbuffer ioctl with every object softpinned, fence attachment); the
 * wait for the batch is outside it.
 */
static int hw_execbuf(struct bench_run *run, struct bench_hw *hw, unsigned n,
		      const struct budget *b, struct bench_metric **per_bo_out)
{
	struct bench_hw_args args = {.no_vram = true};
	struct hw_ttm_bo **bos = calloc(n, sizeof(*bos));
	struct hw_ttm_bo *batch = NULL;
	struct bench_metric *lat, *per;
	uint64_t t0;
	int ret;

	ret = execbuf_metrics(run, n, &lat, &per);
	if (!ret)
		ret = bos ? hw_reopen(run, hw, &args) : -ENOMEM;
	if (ret) {
		free(bos);
		return ret;
	}
	*per_bo_out = per;
	bench_metric_label(lat, "path", "hw_ttm_exec, softpinned, batch = one of the N");
	ret = bench_hw_nop_batch(hw, &batch);
	for (unsigned k = 0; k + 1 < n && !ret; k++)
		ret = hw_bo_new(hw, TTM_PAGE_SIZE, &bos[k]);
	t0 = testlib_now_raw_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		struct dma_fence *f = NULL;
		uint64_t s = testlib_now_raw_ns(), ns;
		int64_t left;

		ret = hw_ttm_exec(hw->dev, bos, n - 1, batch, &f);
		ns = testlib_now_raw_ns() - s;
		if (ret)
			break;
		left = dma_fence_wait_timeout(f, false, HW_WAIT_NS);
		ret = left < 0 ? (int)left : left == 0 ? -ETIME : f->error;
		dma_fence_put(f);
		if (!ret && i >= b->warmup) {
			ret = bench_metric_record(lat, ns);
			if (!ret)
				ret = bench_metric_record(per, (ns + n / 2) / n);
		}
	}
	for (unsigned k = 0; k + 1 < n; k++)
		if (bos[k])
			ttm_bo_put(&bos[k]->tbo);
	if (batch)
		ttm_bo_put(&batch->tbo);
	free(bos);
	return ret;
}
#endif /* TTM_HAVE_LIBDRM */

/*
 * --backend=hw: the same cases on the GPU; returns main()'s status. Lists
 * are capped at HW_TTM_EXEC_MAX objects (the largest is 64, not 256).
 */
static int hw_main(struct bench_run *run, struct bench_hw *hw, const struct val_opts *vo,
		   const struct budget *small, const struct budget *bigb)
{
	int rc = bench_hw_open(run, hw, NULL);

	if (rc)
		return bench_hw_exit(run, hw, "benchmark-validate", rc);
#if TTM_HAVE_LIBDRM
	{
		static const unsigned lists[] = {1, 16, HW_TTM_EXEC_MAX};
		struct bench_metric *per_bo[3] = {NULL, NULL, NULL};
		unsigned steps = 3 * vo->nsizes + 3, step = 0;
		bool no_vram = false;

		bench_run_param(run, "lists", "1,16,%u (hw_ttm_exec takes at most %u objects)",
				HW_TTM_EXEC_MAX, HW_TTM_EXEC_MAX);
		bench_run_backend_param(run, "tt", "%s",
					"range manager over the ppGTT: bind = address "
					"assignment; evict_unbind: a TT range of one BO");
		rc = bench_references_measure(run);
		if (rc)
			fprintf(stderr, "benchmark-validate: a reference failed (%d)\n", rc);
		bench_pin_thread(run, 0);
		rc = 0;
		for (unsigned s = 0; s < vo->nsizes && !rc; s++) {
			const struct budget *b = vo->sizes[s] >= (16u << 20) ? bigb : small;

			bench_progress(run, "validate", (double)step++ / steps);
			rc = hw_in_place_and_bind(run, hw, vo->sizes[s], b);
			bench_progress(run, "validate", (double)step++ / steps);
			if (!rc)
				rc = hw_evict(run, hw, vo->sizes[s], false, b, &no_vram);
			bench_progress(run, "validate", (double)step++ / steps);
			if (!rc)
				rc = hw_evict(run, hw, vo->sizes[s], true, b, &no_vram);
		}
		for (unsigned l = 0; l < 3 && !rc; l++) {
			bench_progress(run, "validate", (double)step++ / steps);
			rc = hw_execbuf(run, hw, lists[l], small, &per_bo[l]);
		}
		bench_progress_done(run);
		if (no_vram) {
			fprintf(stderr, "benchmark-validate: note: integrated GPU, no VRAM: "
					"validate.evict_copy.* skipped\n");
			bench_run_backend_param(run, "evict_copy", "%s",
						"skipped: no VRAM (integrated part)");
		}
		if (bench_hw_close(hw) && !rc)
			rc = -EBUSY;
		if (rc) {
			fprintf(stderr, "benchmark-validate: --backend=hw: failed (%s)\n",
				strerror(-rc));
			bench_run_fini(run);
			return 1;
		}
		{
			struct bench_stats st;

			if (!bench_metric_stats(per_bo[1], &st)) {
				bench_metric_target(per_bo[2], 1.5 * st.median,
						    BENCH_TARGET_AT_MOST);
				bench_metric_label(per_bo[2], "target",
						   "<= 1.5x execbuf.per_bo.n16");
			}
		}
		return bench_run_finish(run);
	}
#else
	(void)vo;
	(void)small;
	(void)bigb;
	bench_hw_close(hw);
	bench_run_fini(run);
	return 1; /* not reached: the open fails without libdrm */
#endif
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
 * One round on the sim or core back end: cases (a) to (d) at every size,
 * then the three execbuf lists, each on a device of its own. @per_bo is set
 * to the execbuf.per_bo.n<N> metrics; *@step advances the progress line.
 */
static int validate_round(struct bench_run *run, const struct val_opts *vo, bool sim,
			  const struct budget *small, const struct budget *big,
			  struct bench_metric *per_bo[3], unsigned *step, unsigned steps)
{
	static const unsigned lists[] = {1, 16, 256};
	int rc = 0;

	for (unsigned s = 0; s < vo->nsizes && !rc; s++) {
		const struct budget *b = vo->sizes[s] >= (16u << 20) ? big : small;

		bench_progress(run, "validate", (double)(*step)++ / steps);
		rc = sim ? sim_in_place_and_bind(run, vo->sizes[s], b)
			 : case_in_place_and_bind(run, vo->sizes[s], b);
		bench_progress(run, "validate", (double)(*step)++ / steps);
		if (!rc)
			rc = sim ? sim_evict(run, vo->sizes[s], false, b)
				 : case_evict(run, vo->sizes[s], false, b);
		bench_progress(run, "validate", (double)(*step)++ / steps);
		if (!rc)
			rc = sim ? sim_evict(run, vo->sizes[s], true, b)
				 : case_evict(run, vo->sizes[s], true, b);
	}
	for (unsigned l = 0; l < 3 && !rc; l++) {
		bench_progress(run, "validate", (double)(*step)++ / steps);
		rc = sim ? sim_execbuf(run, lists[l], small, &per_bo[l])
			 : case_execbuf(run, lists[l], small, &per_bo[l]);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct bench_metric *per_bo[3] = {NULL, NULL, NULL};
	struct val_opts vo = {.nsizes = 0};
	struct budget small, big, rsmall, rbig;
	struct bench_run run;
	char sizes[256] = "";
	unsigned steps, step = 0, rounds;
	bool sim;
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
	if (run.opts.backend == BENCH_BACKEND_HW) {
		bench_run_param(&run, "backend", "%s", "hw");
		return hw_main(&run, &vo.hw, &vo, &small, &big);
	}
	sim = run.opts.backend == BENCH_BACKEND_SIM;
	bench_run_param(&run, "backend", "%s", sim ? "sim" : "core");
	if (sim) {
		bench_run_backend_param(&run, "device", "%s",
					"i915 on the simulated GPU, gen 12, 1 GiB GGTT");
		bench_run_backend_param(&run, "latency_model", "%s", "off");
		bench_run_backend_param(&run, "aperture", "%s",
					"256 MiB; evict_unbind: one BO + the 4 KiB guard page");
		bench_run_backend_param(&run, "lmem", "%s",
					"none; evict_copy: one BO, not CPU-visible (blits)");
	} else {
		bench_run_backend_param(&run, "device", "%s",
					"bench_mockdev: SYSTEM, range TT, host-memory VRAM, "
					"memcpy moves");
	}
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-validate: a reference failed (%d)\n", rc);
	/* Worker 0; each case's sim device (bench_simdev_open(run, 1, ...)) keeps off its CPU. */
	bench_pin_thread(&run, 0);
	/*
	 * Every case once per round, --reps rounds, each with its share of
	 * the case's budget: the round medians show how the figures move over
	 * the run (other tenants, frequency), which one histogram's order
	 * statistics cannot, and ttm-compare judges them by that spread.
	 */
	rounds = run.opts.reps ? run.opts.reps : 1;
	rsmall = round_budget(&small, rounds);
	rbig = round_budget(&big, rounds);
	bench_run_param(&run, "rounds", "%u", rounds);
	steps = rounds * (3 * vo.nsizes + 3);
	rc = 0;
	for (unsigned r = 0; r < rounds && !rc; r++) {
		rc = validate_round(&run, &vo, sim, &rsmall, &rbig, per_bo, &step, steps);
		if (!rc)
			rc = bench_run_round_end(&run);
	}
	bench_progress_done(&run);
	if (rc) {
		fprintf(stderr, "benchmark-validate: failed (%s)\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	{
		struct bench_stats st;

		/* Target (e): the per-BO cost at 256 within 1.5x of the one at 16. */
		if (!bench_metric_stats(per_bo[1], &st)) {
			bench_metric_target(per_bo[2], 1.5 * st.median, BENCH_TARGET_AT_MOST);
			bench_metric_label(per_bo[2], "target", "<= 1.5x execbuf.per_bo.n16");
		}
	}
	return bench_run_finish(&run);
}
