/* SPDX-License-Identifier: MIT */
/*
 * bench_hw - what a benchmark needs to run with --backend=hw: a real Intel
 * GPU (i915/hw/hw_gpu.h) under a TTM device (i915/hw/hw_ttm.h), opened and
 * described the same way by every program.
 *
 *	static const struct bench_opt opts[] = { BENCH_HW_OPT_DEVICE, { 0 } };
 *	struct bench_hw hw;
 *
 *	bench_hw_init(&hw);
 *	rc = bench_setup(&run, "fence", argc, argv, opts, &hw);
 *	...
 *	if (run.opts.backend == BENCH_BACKEND_HW) {
 *		rc = bench_hw_open(&run, &hw, NULL);
 *		if (rc)
 *			return bench_hw_exit(&run, &hw, "benchmark-fence", rc);  // 77 = skip
 *		... hw.dev->bdev, hw_ttm_bo_create(hw.dev, ...), hw_ttm_exec(...) ...
 *		bench_hw_close(&hw);
 *	}
 *
 * The device is the one named by --device PATH (BENCH_HW_OPT_DEVICE in the
 * program's option table), else $TTM_HW_DEVICE, else the first i915 render
 * node. bench_hw_open() records what it found in the results' machine block
 * (bench_run_backend_param(): "gpu.device", "gpu.pci_id", "gpu.driver", ...
 * as hw_gpu_describe() lists them), so results from two GPUs never look
 * like one machine's.
 *
 * A tree built without libdrm (meson -Dhw=disabled, or libdrm missing)
 * still has every function here: bench_hw_open() then fails with -ENODEV
 * and the reason "built without libdrm", so --backend=hw skips the same way
 * everywhere. The struct hw_gpu / hw_ttm_device members are only usable in
 * code built with TTM_HAVE_LIBDRM (ttm_config.h), which is where hw_ttm.h
 * exists.
 *
 * Threads: the controlling thread opens and closes; in between, hw.gpu and
 * hw.dev may be used from several threads as hw_gpu.h / hw_ttm.h allow.
 */
#ifndef BENCH_HW_H
#define BENCH_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

struct hw_gpu;
struct hw_sys_ops;
struct hw_ttm_bo;
struct hw_ttm_device;

/* Room for the one-line reason of a failed open. */
#define BENCH_HW_WHY_MAX 192

/**
 * struct bench_hw - a benchmark's handle on the GPU, caller-embedded.
 * @device: the --device value (not copied: argv outlives the run), or NULL.
 * @gpu: the open device, NULL until bench_hw_open() succeeded.
 * @dev: the TTM device over @gpu, NULL until then.
 * @why: the one-line reason of the last failure ("" when none): the line a
 *	skipping program prints.
 */
struct bench_hw {
	const char *device;
	struct hw_gpu *gpu;
	struct hw_ttm_device *dev;
	char why[BENCH_HW_WHY_MAX];
};

/**
 * struct bench_hw_args - how to build the TTM device (all 0: defaults).
 * @tt_size: bytes of GPU address space for TT (0: the whole VM); a small
 *	value makes TT eviction reachable.
 * @vram_size: bytes of device-local memory for VRAM (0: all of it).
 * @no_vram: no VRAM manager even on a discrete part.
 * @need_exec_fence: refuse a kernel without I915_EXEC_FENCE_OUT. hw_ttm
 *	itself needs it, so this only moves the refusal to the open, where
 *	the reason names the missing feature.
 * @sys: the kernel interface (hw_sys.h); NULL for the real one. Tests
 *	plug in i915/hw's recording fake here; benchmarks leave it NULL.
 * @sys_data: cookie for @sys.
 */
struct bench_hw_args {
	uint64_t tt_size;
	uint64_t vram_size;
	bool no_vram;
	bool need_exec_fence;
	const struct hw_sys_ops *sys;
	void *sys_data;
};

/** bench_hw_init() - empty @hw (no device, no reason). */
void bench_hw_init(struct bench_hw *hw);

/**
 * bench_hw_opt_device() - struct bench_opt.set of --device: stores @arg in
 * the struct bench_hw passed as @ctx. Return 0, -EINVAL (empty or longer
 * than a render node path can be, reason in @err).
 */
int bench_hw_opt_device(void *ctx, const char *arg, char *err, size_t errlen);

/* The --device entry of a benchmark's option table; its ctx is a struct bench_hw. */
#define BENCH_HW_OPT_DEVICE                                                                        \
	{                                                                                          \
		.name = "device", .arg = "PATH",                                                   \
		.help = "render node for --backend=hw (default: $TTM_HW_DEVICE, else "             \
			"the first i915 one)",                                                     \
		.set = bench_hw_opt_device,                                                        \
	}

/**
 * bench_hw_open() - open the GPU and build the TTM device over it.
 * @run: the run; receives the GPU's description as back-end parameters.
 * @hw: from bench_hw_init(), @hw->device possibly set by --device.
 * @args: NULL for the defaults.
 *
 * Return: 0 with @hw->gpu and @hw->dev set; otherwise @hw->why says why,
 * nothing is left open, and the error is one of: -ENODEV (no i915 render
 * node, the given node is not i915, or built without libdrm), -EOPNOTSUPP
 * (a kernel feature is missing: softpin, exec fences, full ppGTT), -EACCES
 * (no permission on the node) - the three that mean "skip" - or -ENOMEM,
 * -EINVAL, the kernel's errno.
 */
int bench_hw_open(struct bench_run *run, struct bench_hw *hw, const struct bench_hw_args *args);

/**
 * bench_hw_close() - destroy the TTM device and close the GPU. Every BO
 * must have been put (hw_ttm_device_destroy() refuses otherwise, and the
 * GPU is then left open rather than freed under live BOs: returns -EBUSY).
 * Return 0 or -EBUSY. Safe on a @hw that was never opened.
 */
int bench_hw_close(struct bench_hw *hw);

/**
 * bench_hw_skippable() - @err is one of the errors meaning "this machine
 * cannot run the hw back end" (-ENODEV, -EOPNOTSUPP, -EACCES).
 */
bool bench_hw_skippable(int err);

/**
 * bench_hw_exit() - end a run whose bench_hw_open() failed with @err:
 * prints "<prog>: SKIP: <reason>" (a skip) or "<prog>: <reason>" (an error)
 * as one line on stderr, frees @run, and returns main()'s exit status: 77
 * (the meson/igt skip status) for a skippable @err, 1 otherwise.
 */
int bench_hw_exit(struct bench_run *run, struct bench_hw *hw, const char *prog, int err);

/**
 * bench_hw_nop_batch() - a 4 KiB BO in TT holding an empty batch
 * (MI_BATCH_BUFFER_END), written through its GEM map (WB on integrated
 * parts, FIXED on discrete ones). Returned unreserved with one reference:
 * drop it with ttm_bo_put(&bo->tbo) before bench_hw_close().
 * Return: 0; -ENODEV (not open / no libdrm); the errors of
 * hw_ttm_bo_create(), ttm_bo_reserve() and hw_bo_mmap(). Nothing is left
 * on failure.
 */
int bench_hw_nop_batch(struct bench_hw *hw, struct hw_ttm_bo **out);

/**
 * bench_hw_exec_wait() - hw_ttm_exec() @batch with @bos (@n of them), then
 * wait up to @timeout_ns for its fence. Any thread, each with its own
 * batch BO (one BO must not be in two submissions being reserved at once
 * by the same thread; different threads simply serialise on it).
 * Return: 0 when the batch completed; the fence's error (-EIO: killed by a
 * GPU reset); -ETIME when it did not signal in time (a hung GPU: the
 * caller should stop); the errors of hw_ttm_exec(); -ENODEV (not open).
 */
int bench_hw_exec_wait(struct bench_hw *hw, struct hw_ttm_bo *const *bos, unsigned n,
		       struct hw_ttm_bo *batch, int64_t timeout_ns);

#endif /* BENCH_HW_H */
