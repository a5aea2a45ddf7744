// SPDX-License-Identifier: MIT
/*
 * benchmark-validate-hit: ttm_bo_validate() of an idle, reserved BO that
 * already sits where the placement wants it, the call every command
 * submission makes for every BO it touches.
 *
 *  validate.hit            ns per call (a 4 KiB BO in VRAM, one-place
 *                          placement); reference: an uncontended pthread mutex
 *                          lock+unlock measured in the same run, ratio =
 *                          validate / mutex; target <= 100 ns
 *  validate.hit_system     the same for a 4 KiB BO in SYSTEM (no range to
 *                          check); reference: a bare system call (getppid)
 *                          measured in the same run, ratio = validate / syscall
 *  bo.metadata.4k          bytes of core metadata of a populated 4 KiB SYSTEM
 *                          BO (ttm_bo_metadata_size()); target <= 512
 *  bo.metadata.1m          the same for a 1 MiB BO (its page array grows
 *                          with the size), informational
 *
 * Each repetition times a loop of validate calls and records the mean per
 * call; the harness reports median, spread and ratios over --reps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

#include <bench.h>

#define VRAM_PAGES 1024

/* A driver with host memory standing in for CPU-visible VRAM. */
struct hit_dev {
	struct ttm_device bdev;
	struct ttm_range_manager vram;
	void *vram_mem;
};

static void hit_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	static const struct ttm_place sys = {.mem_type = TTM_PL_SYSTEM};

	(void)bo;
	placement->num_placement = 1;
	placement->placement = &sys;
}

static int hit_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct hit_dev *d = container_of(bdev, struct hit_dev, bdev);

	if (res->mem_type != TTM_PL_VRAM)
		return res->mem_type == TTM_PL_SYSTEM ? 0 : -EINVAL;
	res->bus.addr = (char *)d->vram_mem + (res->start << TTM_PAGE_SHIFT);
	res->bus.is_iomem = true;
	return 0;
}

static const struct ttm_device_funcs hit_funcs = {
    .evict_flags = hit_evict_flags,
    .io_mem_reserve = hit_io_mem_reserve,
};

static int hit_dev_init(struct hit_dev *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->vram_mem = mmap(NULL, VRAM_PAGES << TTM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->vram_mem == MAP_FAILED)
		return -ENOMEM;
	ret = ttm_device_init(&d->bdev, &hit_funcs, false);
	if (ret)
		goto err_map;
	ret = ttm_range_manager_init(&d->vram, false, VRAM_PAGES);
	if (ret)
		goto err_dev;
	ret = ttm_set_driver_manager(&d->bdev, TTM_PL_VRAM, &d->vram.manager);
	if (ret)
		goto err_man;
	return 0;

err_man:
	ttm_range_manager_fini(&d->vram);
err_dev:
	ttm_device_fini(&d->bdev);
err_map:
	munmap(d->vram_mem, VRAM_PAGES << TTM_PAGE_SHIFT);
	return ret;
}

static void hit_dev_fini(struct hit_dev *d)
{
	ttm_device_flush_delayed(&d->bdev, true);
	ttm_set_driver_manager(&d->bdev, TTM_PL_VRAM, NULL);
	ttm_range_manager_fini(&d->vram);
	ttm_device_fini(&d->bdev);
	munmap(d->vram_mem, VRAM_PAGES << TTM_PAGE_SHIFT);
}

static void hit_bo_destroy(struct ttm_buffer_object *bo)
{
	free(bo);
}

/* A reserved BO of @size placed by @placement, or NULL. */
static struct ttm_buffer_object *hit_bo_create(struct hit_dev *d, uint64_t size,
					       const struct ttm_placement *placement)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return NULL;
	if (ttm_bo_init_reserved(&d->bdev, bo, size, ttm_bo_type_device, placement, 0, &ctx, NULL,
				 hit_bo_destroy))
		return NULL;
	return bo;
}

struct hit_loop {
	struct ttm_buffer_object *bo;
	const struct ttm_placement *placement;
	unsigned long iters;
};

static int hit_rep(void *arg, int rep, double *value)
{
	struct hit_loop *l = arg;
	struct ttm_operation_ctx ctx = {0};
	uint64_t t0;
	int ret = 0;

	(void)rep;
	t0 = bench_now_ns();
	for (unsigned long i = 0; i < l->iters; i++)
		ret |= ttm_bo_validate(l->bo, l->placement, &ctx);
	*value = (double)(bench_now_ns() - t0) / (double)l->iters;
	/* A hit moves nothing; anything else would measure a different path. */
	if (ret || ctx.moves || ctx.bytes_moved)
		return -EPROTO;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct ttm_place vram_place = {.mem_type = TTM_PL_VRAM};
	static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
	const struct ttm_placement vram = {1, &vram_place};
	const struct ttm_placement sys = {1, &sys_place};
	struct ttm_buffer_object *in_vram = NULL, *in_sys = NULL, *big = NULL;
	struct bench_metric *hit, *hit_fb, *meta4k, *meta1m;
	struct ttm_operation_ctx ctx = {0};
	struct hit_loop loop;
	struct bench_run run;
	struct hit_dev dev;
	int rc;

	rc = bench_setup(&run, "validate-hit", argc, argv, NULL, NULL);
	if (rc)
		return bench_exit_code(rc);
	loop.iters = run.opts.quick ? 200000 : 2000000;
	bench_run_param(&run, "bo_size", "%u", 4096u);
	bench_run_param(&run, "iters_per_rep", "%lu", loop.iters);
	rc = bench_references_measure(&run);
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: measuring references failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	bench_pin_thread(&run, 0);

	rc = hit_dev_init(&dev);
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: device init failed (%d)\n", rc);
		bench_run_fini(&run);
		return 1;
	}
	in_vram = hit_bo_create(&dev, 4096, &vram);
	in_sys = hit_bo_create(&dev, 4096, &sys);
	big = hit_bo_create(&dev, 1 << 20, &sys);
	hit = bench_metric_add(&run, "validate.hit", "ns", BENCH_LOWER_IS_BETTER);
	hit_fb = bench_metric_add(&run, "validate.hit_system", "ns", BENCH_LOWER_IS_BETTER);
	meta4k = bench_metric_add(&run, "bo.metadata.4k", "bytes", BENCH_LOWER_IS_BETTER);
	meta1m = bench_metric_add(&run, "bo.metadata.1m", "bytes", BENCH_LOWER_IS_BETTER);
	if (!in_vram || !in_sys || !big || !hit || !hit_fb || !meta4k || !meta1m) {
		fprintf(stderr, "benchmark-validate-hit: setup failed\n");
		rc = 1;
		goto out;
	}

	loop.bo = in_vram;
	loop.placement = &vram;
	rc = bench_repeat(&run, hit, hit_rep, &loop);
	if (!rc) {
		loop.bo = in_sys;
		loop.placement = &sys;
		rc = bench_repeat(&run, hit_fb, hit_rep, &loop);
	}
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: validate loop failed (%d)\n", rc);
		rc = 1;
		goto out;
	}
	bench_metric_reference(hit, BENCH_REF_MUTEX, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_target(hit, 100.0, BENCH_TARGET_AT_MOST);
	bench_metric_reference(hit_fb, BENCH_REF_SYSCALL, BENCH_RATIO_VALUE_OVER_REF);

	/* Metadata of populated BOs: the page array is part of the cost. */
	rc = ttm_bo_populate(in_sys, &ctx) || ttm_bo_populate(big, &ctx);
	if (rc) {
		fprintf(stderr, "benchmark-validate-hit: populate failed\n");
		rc = 1;
		goto out;
	}
	bench_metric_sample(meta4k, (double)ttm_bo_metadata_size(in_sys));
	bench_metric_target(meta4k, 512.0, BENCH_TARGET_AT_MOST);
	bench_metric_sample(meta1m, (double)ttm_bo_metadata_size(big));
	rc = 0;

out:
	if (in_vram) {
		ttm_bo_unreserve(in_vram);
		ttm_bo_put(in_vram);
	}
	if (in_sys) {
		ttm_bo_unreserve(in_sys);
		ttm_bo_put(in_sys);
	}
	if (big) {
		ttm_bo_unreserve(big);
		ttm_bo_put(big);
	}
	hit_dev_fini(&dev);
	if (rc) {
		bench_run_fini(&run);
		return rc;
	}
	return bench_run_finish(&run);
}
