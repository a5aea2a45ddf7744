// SPDX-License-Identifier: MIT
/*
 * benchmark-evict-copy: validates that must evict, with every byte moved by
 * the core's memcpy move. VRAM (host memory behind io_mem_reserve, as a
 * CPU-visible aperture) is full of 1 MiB BOs; each step validates a BO from
 * SYSTEM into it, which evicts the least recently used VRAM BO to SYSTEM.
 * Every step so copies 2 MiB: 1 MiB io -> tt pages (the eviction) and 1 MiB
 * tt pages -> io (the BO coming in).
 *
 *  evict.copy.bw   GB/s (bytes / ns) of ctx.bytes_moved over the wall time
 *                  of the validates, page allocation and the LRU walk
 *                  included; reference: memcpy bandwidth of a buffer larger
 *                  than the last-level cache measured in the same run, ratio
 *                  = evict / memcpy; target >= 0.8 x memcpy
 *  evict.copy.validate   ns per evicting validate (informational)
 *
 * The working set (2 x VRAM) is larger than the caches, like the reference's
 * buffer, so both are bound by memory bandwidth.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>

#include <bench.h>

#include "bench_mockdev.h"

#define BO_SIZE (1ull << 20)
#define BO_PAGES (BO_SIZE >> TTM_PAGE_SHIFT)

static const struct ttm_place ec_vram_place = {.mem_type = TTM_PL_VRAM};
static const struct ttm_placement ec_vram = {1, &ec_vram_place};
static const struct ttm_place ec_sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_placement ec_sys = {1, &ec_sys_place};

/*
 * @nbo BOs cycling through a VRAM that holds @nbo / 2: step k validates
 * bos[(k + nbo/2) % nbo] into VRAM, evicting bos[k % nbo], the least
 * recently used.
 */
struct ec_state {
	struct testlib_mock_device dev;
	struct ttm_buffer_object **bos;
	unsigned nbo;
	unsigned long step;
	struct bench_metric *lat;
};

static int ec_step(struct ec_state *s, struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *bo = s->bos[(s->step + s->nbo / 2) % s->nbo];
	int ret;

	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	ret = ttm_bo_validate(bo, &ec_vram, ctx);
	ttm_bo_unreserve(bo);
	s->step++;
	return ret;
}

static int ec_rep(void *arg, int rep, double *value)
{
	struct ec_state *s = arg;
	struct ttm_operation_ctx ctx = {0};
	uint64_t t0, dt;
	int ret = 0;

	(void)rep;
	t0 = testlib_now_raw_ns();
	for (unsigned i = 0; i < s->nbo && !ret; i++)
		ret = ec_step(s, &ctx);
	dt = testlib_now_raw_ns() - t0;
	if (ret)
		return ret;
	/* Each validate must have evicted exactly one BO: the workload's premise. */
	if (ctx.evictions != s->nbo || ctx.bytes_moved != 2ull * s->nbo * BO_SIZE)
		return -EPROTO;
	if (rep >= 0 && bench_metric_sample(s->lat, (double)dt / s->nbo))
		return -ENOMEM;
	*value = (double)ctx.bytes_moved / (double)(dt ? dt : 1);
	return 0;
}

static int ec_setup(struct ec_state *s, unsigned vram_bos)
{
	struct ttm_operation_ctx ctx = {0};
	int ret;

	memset(s, 0, sizeof(*s));
	s->nbo = 2 * vram_bos;
	ret = bench_coredev_init(&s->dev, (uint64_t)vram_bos * BO_PAGES);
	if (ret)
		return ret;
	s->bos = calloc(s->nbo, sizeof(*s->bos));
	if (!s->bos)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nbo; i++) {
		struct ttm_buffer_object *bo;
		void *page;

		ret = testlib_mock_bo_create(&s->dev.bdev, BO_SIZE,
					     i < vram_bos ? &ec_vram : &ec_sys, NULL, true, &bo);
		if (ret)
			return ret;
		s->bos[i] = bo;
		/* Real content, so no page is a shared zero page. */
		if (i >= vram_bos) {
			ret = ttm_bo_populate(bo, &ctx);
			for (unsigned p = 0; !ret && p < BO_PAGES; p++) {
				page = ttm_tt_page_ptr(bo->ttm, p);
				memset(page, (int)(i + p), TTM_PAGE_SIZE);
			}
		} else {
			memset((char *)s->dev.vram_mem + (bo->resource->start << TTM_PAGE_SHIFT),
			       (int)i, BO_SIZE);
		}
		ttm_bo_unreserve(bo);
		if (ret)
			return ret;
	}
	return 0;
}

static void ec_teardown(struct ec_state *s)
{
	for (unsigned i = 0; s->bos && i < s->nbo; i++)
		if (s->bos[i])
			ttm_bo_put(s->bos[i]);
	free(s->bos);
	if (s->dev.vram_mem)
		testlib_mock_device_fini(&s->dev);
}

int main(int argc, char **argv)
{
	struct bench_metric *bw, *lat;
	struct bench_reference *mref;
	struct bench_run run;
	struct ec_state s = {0};
	unsigned vram_bos;
	int rc;

	rc = bench_setup(&run, "evict-copy", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	vram_bos = run.opts.quick ? 16 : 64;
	bench_run_param(&run, "bo_size", "%llu", (unsigned long long)BO_SIZE);
	bench_run_param(&run, "vram_bos", "%u", vram_bos);
	bench_run_param(&run, "bos", "%u", 2 * vram_bos);
	rc = bench_references_measure(&run);
	if (rc) {
		fprintf(stderr, "benchmark-evict-copy: measuring references failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	bench_pin_thread(&run, 0);

	bw = bench_metric_add(&run, "evict.copy.bw", "GB/s", BENCH_HIGHER_IS_BETTER);
	lat = bench_metric_add(&run, "evict.copy.validate", "ns", BENCH_LOWER_IS_BETTER);
	rc = bw && lat ? ec_setup(&s, vram_bos) : -ENOMEM;
	s.lat = lat;
	if (!rc)
		rc = bench_repeat(&run, bw, ec_rep, &s);
	ec_teardown(&s);
	if (rc) {
		fprintf(stderr, "benchmark-evict-copy: workload failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}

	mref = &run.refs[BENCH_REF_MEMCPY_BW];
	bench_metric_reference(bw, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(bw, 0.8 * mref->stats.median, BENCH_TARGET_AT_LEAST);
	bench_metric_label(bw, "target", ">= 0.8x memcpy bandwidth");
	return bench_run_finish(&run);
}
