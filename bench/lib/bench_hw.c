// SPDX-License-Identifier: MIT
/*
 * bench_hw - --backend=hw for the benchmarks: open, describe, skip.
 */
#include "bench_hw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ttm_config.h"

#if TTM_HAVE_LIBDRM
#include "hw_gpu.h"
#include "hw_ttm.h"
#endif

void bench_hw_init(struct bench_hw *hw)
{
	memset(hw, 0, sizeof(*hw));
}

int bench_hw_opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct bench_hw *hw = ctx;

	/* 64 is HW_PATH_MAX; repeated so that builds without libdrm agree. */
	if (!arg || !arg[0] || strlen(arg) >= 64) {
		snprintf(err, errlen, "expected a render node path shorter than 64 bytes");
		return -EINVAL;
	}
	hw->device = arg;
	return 0;
}

bool bench_hw_skippable(int err)
{
	return err == -ENODEV || err == -EOPNOTSUPP || err == -EACCES;
}

int bench_hw_exit(struct bench_run *run, struct bench_hw *hw, const char *prog, int err)
{
	bool skip = bench_hw_skippable(err);

	fprintf(stderr, "%s: %s%s\n", prog, skip ? "SKIP: " : "",
		hw->why[0] ? hw->why : strerror(-err));
	bench_run_fini(run);
	return skip ? 77 : 1;
}

#if TTM_HAVE_LIBDRM

struct describe_ctx {
	struct bench_run *run;
	int err;
};

/*
 * The machine block is keyed by machine id (CPU, RAM), which cannot tell
 * two GPUs in one box apart: the "gpu." pairs can, and ttm-compare shows
 * them beside the figures.
 */
static void describe_emit(void *data, const char *key, const char *value)
{
	struct describe_ctx *d = data;
	char k[48];
	int ret;

	if (d->err)
		return;
	snprintf(k, sizeof(k), "gpu.%s", key);
	ret = bench_run_backend_param(d->run, k, "%s", value);
	if (ret)
		d->err = ret;
}

int bench_hw_open(struct bench_run *run, struct bench_hw *hw, const struct bench_hw_args *args)
{
	static const struct bench_hw_args defaults = {.need_exec_fence = true};
	struct hw_ttm_device_args ta = {0};
	struct hw_open_args oa = {0};
	struct describe_ctx d = {.run = run};
	const char *path = hw->device;
	int ret;

	if (!args)
		args = &defaults;
	hw->why[0] = '\0';
	if (!path)
		path = getenv(HW_DEVICE_ENV);
	oa.device = path && path[0] ? path : NULL;
	oa.need = args->need_exec_fence ? HW_NEED_EXEC_FENCE : 0;
	oa.sys = args->sys;
	oa.sys_data = args->sys_data;
	oa.why = hw->why;
	oa.why_len = sizeof(hw->why);
	ret = hw_gpu_open(&oa, &hw->gpu);
	if (ret) {
		hw->gpu = NULL;
		if (!hw->why[0])
			snprintf(hw->why, sizeof(hw->why), "opening the GPU failed: %s",
				 strerror(-ret));
		return ret;
	}

	hw_gpu_describe(hw_gpu_info(hw->gpu), describe_emit, &d);
	ret = d.err;
	if (ret) {
		snprintf(hw->why, sizeof(hw->why), "recording the GPU in the results: %s",
			 strerror(-ret));
		goto err_close;
	}

	ta.tt_size = args->tt_size;
	ta.vram_size = args->vram_size;
	ta.no_vram = args->no_vram;
	ret = hw_ttm_device_create(hw->gpu, &ta, &hw->dev);
	if (ret) {
		hw->dev = NULL;
		snprintf(hw->why, sizeof(hw->why), "%s: TTM device over the GPU: %s%s",
			 hw_gpu_info(hw->gpu)->path, strerror(-ret),
			 ret == -EOPNOTSUPP ? " (needs exec fences and a full ppGTT)" : "");
		goto err_close;
	}
	return 0;

err_close:
	hw_gpu_close(hw->gpu);
	hw->gpu = NULL;
	return ret;
}

int bench_hw_close(struct bench_hw *hw)
{
	int ret = hw_ttm_device_destroy(hw->dev);

	if (ret)
		return ret;
	hw->dev = NULL;
	hw_gpu_close(hw->gpu);
	hw->gpu = NULL;
	return 0;
}

int bench_hw_nop_batch(struct bench_hw *hw, struct hw_ttm_bo **out)
{
	enum hw_mmap_mode mode;
	struct hw_ttm_bo *bo;
	struct hw_bo *gem;
	int ret;

	if (!hw->dev)
		return -ENODEV;
	ret = hw_ttm_bo_create(hw->dev, 4096, &hw_ttm_placement_tt, &bo);
	if (ret)
		return ret;
	ret = ttm_bo_reserve(&bo->tbo, false, false, NULL);
	if (ret)
		goto err_put;
	gem = hw_ttm_bo_gem(bo);
	/* Discrete parts accept only the placement's own caching (FIXED). */
	mode = hw_gpu_info(hw->gpu)->discrete ? HW_MMAP_FIXED : HW_MMAP_WB;
	ret = gem ? hw_bo_mmap(hw->gpu, gem, mode) : -EINVAL;
	if (!ret) {
		ret = hw_batch_nop(gem->map, 4096 / 4);
		hw_bo_munmap(hw->gpu, gem);
		ret = ret < 0 ? ret : 0;
	}
	ttm_bo_unreserve(&bo->tbo);
	if (ret)
		goto err_put;
	*out = bo;
	return 0;

err_put:
	ttm_bo_put(&bo->tbo);
	return ret;
}

int bench_hw_exec_wait(struct bench_hw *hw, struct hw_ttm_bo *const *bos, unsigned n,
		       struct hw_ttm_bo *batch, int64_t timeout_ns)
{
	struct dma_fence *f;
	int64_t left;
	int ret;

	if (!hw->dev)
		return -ENODEV;
	ret = hw_ttm_exec(hw->dev, bos, n, batch, &f);
	if (ret)
		return ret;
	left = dma_fence_wait_timeout(f, false, timeout_ns);
	ret = left > 0 ? dma_fence_get_status(f) : left == 0 ? -ETIME : (int)left;
	/* get_status is 1 for "signalled without error". */
	ret = ret > 0 ? 0 : ret;
	dma_fence_put(f);
	return ret;
}

#else /* !TTM_HAVE_LIBDRM */

int bench_hw_open(struct bench_run *run, struct bench_hw *hw, const struct bench_hw_args *args)
{
	(void)run;
	(void)args;
	snprintf(hw->why, sizeof(hw->why),
		 "--backend=hw: built without libdrm (meson option hw), no GPU back end");
	return -ENODEV;
}

int bench_hw_close(struct bench_hw *hw)
{
	hw->dev = NULL;
	hw->gpu = NULL;
	return 0;
}

int bench_hw_nop_batch(struct bench_hw *hw, struct hw_ttm_bo **out)
{
	(void)hw;
	*out = NULL;
	return -ENODEV;
}

int bench_hw_exec_wait(struct bench_hw *hw, struct hw_ttm_bo *const *bos, unsigned n,
		       struct hw_ttm_bo *batch, int64_t timeout_ns)
{
	(void)hw;
	(void)bos;
	(void)n;
	(void)batch;
	(void)timeout_ns;
	return -ENODEV;
}

#endif
