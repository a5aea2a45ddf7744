/* SPDX-License-Identifier: MIT */
/*
 * i915_drv: the Intel driver's device. It owns the back end (the simulated
 * GPU by default), the GGTT address space (TTM_PL_TT), stolen memory as a
 * private memory type (I915_PL_STOLEN, a range manager), device-local memory
 * (TTM_PL_VRAM, the buddy manager with a small CPU-visible window) when the
 * part has it, the engines and a reset worker that recovers stopped engines.
 * Its structure, and the lock order, are in i915_drv_types.h.
 */
#ifndef I915_DRV_H
#define I915_DRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_placement.h>
#include <ttm/ttm_range_manager.h>

#include <i915/i915_drv_types.h>
#include <i915/i915_engine.h>
#include <i915/i915_ggtt.h>
#include <i915/i915_vm.h>

struct sim_gpu;
struct sim_gpu_config;
struct hw_open_args;

/* i915_device_config.hangcheck_ms: never declare a hang. */
#define I915_HANGCHECK_OFF UINT32_MAX

/**
 * enum i915_backend_kind - which back end executes a device's requests.
 * @I915_BACKEND_SIM: the simulated GPU (i915/sim), the default.
 * @I915_BACKEND_HW: a real i915 kernel on a render node (i915/hw).
 */
enum i915_backend_kind {
	I915_BACKEND_SIM,
	I915_BACKEND_HW,
};

/**
 * struct i915_device_config - a device described without naming a back
 * end's own configuration: what tests, benchmarks, fuzz targets and stress
 * programs set. i915_device_config_init() fills the back end's defaults.
 * @backend: the back end.
 * @ggtt_size: GGTT bytes (sim; the hw back end reports the kernel's aperture).
 * @aperture_size: CPU-mappable low part of the GGTT, bytes (sim).
 * @stolen_size: stolen memory bytes, 0 for none (sim).
 * @lmem_size: device-local memory bytes, 0 for an integrated part (sim).
 * @lmem_visible_size: CPU-visible prefix of lmem, bytes (sim).
 * @hangcheck_ms: how long a batch may run before it is declared hung
 *	(I915_HANGCHECK_OFF: never) (sim; the kernel's own heartbeat on hw).
 * @synchronous: engines run only on the submitting thread, inside the
 *	submission (sim: deterministic runs for fuzzing); hw is never so.
 * @device: the render node (hw), NULL for $TTM_HW_DEVICE or the first i915
 *	node.
 * @why: if not NULL, receives a one-line reason when a hw device cannot be
 *	opened (the line a skipping program prints).
 * @why_len: size of @why.
 */
struct i915_device_config {
	enum i915_backend_kind backend;
	uint64_t ggtt_size;
	uint64_t aperture_size;
	uint64_t stolen_size;
	uint64_t lmem_size;
	uint64_t lmem_visible_size;
	uint32_t hangcheck_ms;
	bool synchronous;
	const char *device;
	char *why;
	size_t why_len;
};

/**
 * i915_device_config_init() - the defaults of a back end.
 * @cfg: filled.
 * @backend: the back end.
 */
void i915_device_config_init(struct i915_device_config *cfg, enum i915_backend_kind backend);

/**
 * i915_backend_parse() - a back end by the name --backend takes.
 * @name: "sim" or "hw".
 * @out: the back end.
 *
 * Return: 0; -EINVAL for another name.
 */
int i915_backend_parse(const char *name, enum i915_backend_kind *out);

/**
 * i915_device_create() - probe the driver over the back end @cfg names.
 * @cfg: the device.
 * @out: the new device.
 *
 * Defined in libi915_device (i915_device_dep), which links the hw back end
 * where libdrm was found.
 * Return: 0; -EINVAL (bad @cfg); -ENOMEM; -ENODEV, -EACCES, -EOPNOTSUPP (no
 * usable render node for hw, or a build without libdrm: @cfg->why says
 * which; a program skips on them); the back end's errors.
 */
int i915_device_create(const struct i915_device_config *cfg, struct i915_device **out);

/**
 * i915_device_describe() - the back end's facts as key/value pairs for a
 * results file's machine block: the back end's name, then per back end
 * (the GPU's node, PCI id and driver on hw; the simulated part's shape on
 * the sim).
 * @i915: the device.
 * @emit: called once per pair; the strings live only for the call.
 * @data: handed to @emit.
 */
void i915_device_describe(struct i915_device *i915,
			  void (*emit)(void *data, const char *key, const char *value), void *data);

/**
 * i915_device_create_sim() - probe the driver over the sim back end, a
 * simulated GPU described by @cfg: GGTT, stolen and lmem managers, engines
 * with their rings and status pages, interrupt and reset handling.
 * @cfg: the device (sim_gpu.h: sim_gpu_config_init(), then changes).
 * @out: the new device.
 *
 * Return: 0; -EINVAL (bad @cfg); -ENOMEM; the back end's errors. Nothing
 * is left behind on failure.
 */
int i915_device_create_sim(const struct sim_gpu_config *cfg, struct i915_device **out);

/**
 * i915_device_create_hw() - probe the driver over the hw back end, a real
 * i915 kernel on a render node (i915/hw: libi915_hw, built with libdrm).
 * The kernel owns rings and page tables: requests go through
 * i915_request_submit_objects() on the render and blitter engines, with
 * memory from i915_mem_create() in VMs from i915_vm_create(); the ring
 * paths (i915_request_submit(), GGTT and VM binds of GEM objects, the
 * engine clock) answer -EOPNOTSUPP.
 * @args: which node and how (struct hw_open_args of hw_gpu.h), or NULL for
 *	the defaults; exec fences are always required.
 * @out: the new device.
 *
 * Defined in libi915_backend_hw (i915/hw), not in the driver library.
 * Return: 0; hw_gpu_open()'s errors (-ENODEV, -EACCES, -EOPNOTSUPP: no
 * usable node; a program skips on them); -ENOMEM; the driver's errors.
 */
int i915_device_create_hw(const struct hw_open_args *args, struct i915_device **out);

/**
 * i915_device_destroy() - wait for the engines to go idle, stop the reset
 * worker, free rings, managers and the back end.
 * @i915: the device; every context but the kernel's and every GGTT range
 *	but the rings' must be gone.
 *
 * Context: not from a back-end callback (it stops the interrupt thread).
 * Return: 0; -EBUSY (ranges still allocated: nothing torn down).
 */
int i915_device_destroy(struct i915_device *i915);

/**
 * i915_device_sim() - the simulated GPU under a device.
 * @i915: the device, or NULL.
 *
 * Return: the sim device of a device probed with i915_device_create_sim(),
 * NULL for NULL or a device over another back end.
 */
struct sim_gpu *i915_device_sim(struct i915_device *i915);

/**
 * i915_device_error_state_dump() - print the error state: per engine its
 * seqnos, pending requests and resets, then the back end's own error states.
 * @i915: the device.
 * @out: where the text goes.
 *
 * Context: takes each engine's lock in turn.
 */
void i915_device_error_state_dump(struct i915_device *i915, FILE *out);

/**
 * i915_io_mem_reserve() - CPU address of a non-tt resource: a contiguous
 * lmem resource inside the CPU-visible window gets @res->bus filled.
 * @i915: the device owning @res.
 * @res: the resource.
 *
 * Return: 0; -EINVAL (stolen, lmem outside the window or scattered, other
 * types): such memory moves by blitter, never by CPU copy.
 */
int i915_io_mem_reserve(struct i915_device *i915, struct ttm_resource *res);

/**
 * i915_blt_copy() - queue a blitter copy on BCS.
 * @i915: the device.
 * @ctx: the context to run in; NULL: the kernel context.
 * @dst: GGTT address of the destination.
 * @src: GGTT address of the source.
 * @size: bytes, a page multiple.
 * @out: the copy's fence.
 *
 * Both ranges must stay bound until the fence signals.
 * Return: 0 with *@out a reference to the copy's fence; -EINVAL; the
 * errors of i915_request_submit().
 */
int i915_blt_copy(struct i915_device *i915, struct i915_context *ctx, uint64_t dst, uint64_t src,
		  uint64_t size, struct dma_fence **out);

/**
 * i915_blt_clear() - queue a blitter fill with zeroes on BCS.
 * @i915: the device.
 * @ctx: the context to run in; NULL: the kernel context.
 * @dst: GGTT address of the range to clear; bound until the fence signals.
 * @size: bytes, a page multiple.
 * @out: the fill's fence.
 *
 * Return: 0 with *@out a reference to the fill's fence; -EINVAL; the
 * errors of i915_request_submit().
 */
int i915_blt_clear(struct i915_device *i915, struct i915_context *ctx, uint64_t dst, uint64_t size,
		   struct dma_fence **out);

#endif /* I915_DRV_H */
