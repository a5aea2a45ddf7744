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
 * size, evict_copy_bw.<size> (bytes moved / validate time, vs memcpy).
 * Latencies are against a bare system call measured in the same run.
 * Reservation is outside the timed region except for the execbuf lists.
 *
 * Back end: the TTM core over bench_mockdev (parameter backend=core): the
 * i915 driver is not used yet. --backend=hw is reported as a skip (77).
 */
#include "bench_mockdev.h"

#include <ttm/dma_resv.h>
#include <ttm/ww_mutex.h>
#include <bench.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16

struct val_opts {
	uint64_t sizes[MAX_SIZES];
	unsigned nsizes;
};

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;

	if (end == s)
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
				 "at most %d", tok, MAX_SIZES);
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

static const struct bench_opt val_extra[] = {
	{ "sizes", "LIST", "BO sizes, e.g. 4k,64k,1m,16m,64m (default; 4k,64k,1m with --quick)",
	  opt_sizes },
	{ NULL, NULL, NULL, NULL },
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
	return i < b->max_iters && bench_now_ns() - t0 < b->ns;
}

/* Reserve, validate into @pl, unreserve; *@ns gets the validate call alone. */
static int timed_validate(struct ttm_buffer_object *bo, const struct ttm_placement *pl,
			  uint64_t *ns, struct ttm_operation_ctx *ctx)
{
	uint64_t t0;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	t0 = bench_now_ns();
	ret = ttm_bo_validate(bo, pl, ctx);
	*ns = bench_now_ns() - t0;
	ttm_bo_unreserve(bo);
	return ret;
}

static struct bench_metric *lat_metric(struct bench_run *run, const char *name)
{
	struct bench_metric *m = bench_metric_add(run, name, "ns", BENCH_LOWER_IS_BETTER);

	if (m && bench_metric_use_hist(m))
		return NULL;
	if (m)
		bench_metric_reference(m, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);
	return m;
}

/* Cases (a) and (b): one BO on a device with room to spare. */
static int case_in_place_and_bind(struct bench_run *run, uint64_t size, const struct budget *b)
{
	struct ttm_placement tt, sys;
	struct ttm_place ptt, psys;
	struct bench_metric *inpl, *bind;
	struct ttm_operation_ctx ctx;
	struct ttm_buffer_object *bo;
	struct bench_mockdev md;
	char name[64], sz[24];
	uint64_t pages = size / TTM_PAGE_SIZE, t0, ns;
	int ret;

	size_name(size, sz, sizeof(sz));
	snprintf(name, sizeof(name), "validate.in_place.%s", sz);
	inpl = lat_metric(run, name);
	snprintf(name, sizeof(name), "validate.bind.%s", sz);
	bind = lat_metric(run, name);
	if (!inpl || !bind)
		return -ENOMEM;
	bench_metric_target(inpl, 100.0, BENCH_TARGET_AT_MOST);
	bench_metric_target(bind, 2000.0 + 20.0 * (double)pages, BENCH_TARGET_AT_MOST);
	ret = bench_mockdev_init(&md, 2 * pages, 0);
	if (ret)
		return ret;
	bench_mockdev_place(&tt, &ptt, TTM_PL_TT);
	bench_mockdev_place(&sys, &psys, TTM_PL_SYSTEM);
	bo = bench_mockdev_bo_create(&md, size, &tt);
	if (!bo) {
		bench_mockdev_fini(&md);
		return -ENOMEM;
	}
	t0 = bench_now_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		ret = timed_validate(bo, &tt, &ns, &ctx);
		if (!ret && ctx.moves)
			ret = -EPROTO; /* "in place" moved something: not this case */
		if (!ret && i >= b->warmup)
			ret = bench_metric_record(inpl, ns);
	}
	t0 = bench_now_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		uint64_t back;

		ret = timed_validate(bo, &sys, &back, &ctx);
		if (!ret)
			ret = timed_validate(bo, &tt, &ns, &ctx);
		if (!ret && i >= b->warmup)
			ret = bench_metric_record(bind, ns);
	}
	ttm_bo_put(bo);
	if (bench_mockdev_fini(&md) && !ret)
		ret = -EBUSY;
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
	struct bench_metric *lat, *bw = NULL;
	struct ttm_operation_ctx ctx;
	struct ttm_buffer_object *bo[2];
	struct bench_mockdev md;
	char name[64], sz[24];
	uint64_t pages = size / TTM_PAGE_SIZE, t0, ns;
	uint32_t mem = copy ? TTM_PL_VRAM : TTM_PL_TT;
	int ret;

	size_name(size, sz, sizeof(sz));
	snprintf(name, sizeof(name), "validate.%s.%s", copy ? "evict_copy" : "evict_unbind", sz);
	lat = lat_metric(run, name);
	if (!lat)
		return -ENOMEM;
	if (copy) {
		snprintf(name, sizeof(name), "evict_copy_bw.%s", sz);
		bw = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
		if (!bw)
			return -ENOMEM;
		bench_metric_reference(bw, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	}
	ret = copy ? bench_mockdev_init(&md, 0, pages) : bench_mockdev_init(&md, pages, 0);
	if (ret)
		return ret;
	bench_mockdev_place(&target, &pt, mem);
	bench_mockdev_place(&sys, &ps, TTM_PL_SYSTEM);
	bo[0] = bench_mockdev_bo_create(&md, size, &target);
	bo[1] = bo[0] ? bench_mockdev_bo_create(&md, size, &sys) : NULL;
	if (!bo[1]) {
		if (bo[0])
			ttm_bo_put(bo[0]);
		bench_mockdev_fini(&md);
		return -ENOMEM;
	}
	t0 = bench_now_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		ret = timed_validate(bo[(i + 1) & 1], &target, &ns, &ctx);
		if (!ret && ctx.evictions != 1)
			ret = -EPROTO; /* exactly one eviction is the case measured */
		if (!ret && i >= b->warmup) {
			ret = bench_metric_record(lat, ns);
			if (!ret && bw && ns)
				ret = bench_metric_sample(bw, (double)ctx.bytes_moved / (double)ns);
		}
	}
	ttm_bo_put(bo[0]);
	ttm_bo_put(bo[1]);
	if (bench_mockdev_fini(&md) && !ret)
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
	struct bench_mockdev md;
	char name[64];
	uint64_t t0;
	int ret;

	snprintf(name, sizeof(name), "validate.execbuf.n%u", n);
	lat = lat_metric(run, name);
	snprintf(name, sizeof(name), "execbuf.per_bo.n%u", n);
	/* A histogram too: per-iteration samples would make the bootstrap slow. */
	per = lat_metric(run, name);
	if (!bos || !held || !lat || !per) {
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
	t0 = bench_now_ns();
	for (unsigned i = 0; !ret && budget_more(b, i, t0); i++) {
		uint64_t s = bench_now_ns(), ns;

		ret = execbuf_once(bos, held, n, &tt);
		ns = bench_now_ns() - s;
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
	if (bench_mockdev_fini(&md) && !ret)
		ret = -EBUSY;
	return ret;
}

int main(int argc, char **argv)
{
	static const unsigned lists[] = { 1, 16, 256 };
	struct bench_metric *per_bo[3] = { NULL, NULL, NULL };
	struct val_opts vo = { .nsizes = 0 };
	struct budget small, big;
	struct bench_run run;
	char sizes[256] = "";
	unsigned steps, step = 0;
	int rc;

	rc = bench_setup(&run, "validate", argc, argv, val_extra, &vo);
	if (rc)
		return bench_exit_code(rc);
	if (run.opts.backend == BENCH_BACKEND_HW) {
		fprintf(stderr, "benchmark-validate: SKIP: --backend=hw is not available yet "
				"(no hardware back end in the driver)\n");
		bench_run_fini(&run);
		return 77;
	}
	if (!vo.nsizes) {
		static const uint64_t full[] = { 4096, 65536, 1 << 20, 16 << 20, 64 << 20 };

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
	bench_run_param(&run, "backend", "%s", "core");
	bench_run_backend_param(&run, "device", "%s",
				"bench_mockdev: SYSTEM, range TT, host-memory VRAM, memcpy moves");
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-validate: a reference failed (%d)\n", rc);
	bench_pin_thread(&run, 0);

	/* A quarter of --duration per case and size; copies get fewer iterations. */
	small = (struct budget){ .ns = (uint64_t)(run.opts.duration_s * 0.25e9),
				 .min_iters = 200, .max_iters = 200000, .warmup = 20 };
	big = (struct budget){ .ns = small.ns, .min_iters = 8, .max_iters = 200000, .warmup = 2 };
	steps = 3 * vo.nsizes + 3;
	rc = 0;
	for (unsigned s = 0; s < vo.nsizes && !rc; s++) {
		const struct budget *b = vo.sizes[s] >= (16u << 20) ? &big : &small;

		bench_progress(&run, "validate", (double)step++ / steps);
		rc = case_in_place_and_bind(&run, vo.sizes[s], b);
		bench_progress(&run, "validate", (double)step++ / steps);
		rc = rc ? rc : case_evict(&run, vo.sizes[s], false, b);
		bench_progress(&run, "validate", (double)step++ / steps);
		rc = rc ? rc : case_evict(&run, vo.sizes[s], true, b);
	}
	for (unsigned l = 0; l < 3 && !rc; l++) {
		bench_progress(&run, "validate", (double)step++ / steps);
		rc = case_execbuf(&run, lists[l], &small, &per_bo[l]);
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
