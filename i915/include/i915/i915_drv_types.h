/* SPDX-License-Identifier: MIT */
/*
 * i915_drv_types: the device's structure (i915_drv.h declares its
 * functions), which embeds the GGTT, the engines and the vma registry.
 * Apart from i915_drv.h so that the driver's files that read the device's
 * fields (engines, GGTT, VMs, GEM) need not depend on the device code,
 * which calls them: the calls go one way, and so do the includes.
 *
 * Lock order (outermost first): BO reservations; an engine's lock; the
 * device's @reset_lock. The back end's own locks are innermost; its
 * callbacks run with none of ours held.
 */
#ifndef I915_DRV_TYPES_H
#define I915_DRV_TYPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/list.h>
#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_placement.h>
#include <ttm/ttm_range_manager.h>

#include <i915/i915_engine_types.h>
#include <i915/i915_ggtt.h>
#include <i915/i915_vm_types.h>

/* Stolen memory: the first driver-private memory type. */
#define I915_PL_STOLEN TTM_PL_PRIV

struct i915_backend;
struct i915_gem_dev;

/**
 * struct i915_device - one Intel GPU.
 * @be: the back end.
 * @ggtt: the GGTT address space (TTM_PL_TT manager).
 * @ggtt_guard: GGTT page 0, reserved and never mapped.
 * @stolen: stolen memory manager (I915_PL_STOLEN), valid when @has_stolen.
 * @lmem: device-local memory manager (TTM_PL_VRAM), valid when @has_lmem.
 * @engine: the engines.
 * @kernel_ctx: the context of driver-internal requests (id 0).
 * @next_ctx_id: context id allocator; atomic.
 * @drm: the uAPI device embedding the TTM device (@drm.bdev), live between
 *	i915_gem_init() and i915_gem_fini(): clients open it with
 *	i915_drm_open() (i915_uapi.h) and reach execbuffer through its
 *	driver commands.
 * @gem_ready: @drm is initialised.
 * @vm_lock: protects every VM's ranges and vmas and @vmas (i915_vm.h);
 *	nests inside BO reservations, never held across a fence wait.
 * @vmas: object-to-vma registry.
 * @next_vm_id: VM id allocator; atomic.
 * @vm_count: VMs alive; atomic. i915_gem_fini() refuses while non-zero.
 * @gem_stats: counters of the GEM layer (struct i915_gem_stats, i915_gem.h).
 * @reset_lock: protects @reset_mask and @reset_stop.
 * @reset_cond: wakes the reset worker.
 * @reset_mask: engines (bit per id) waiting for a reset.
 * @reset_stop: destroy asked the worker to end.
 * @reset_thread: the worker (threaded back ends only).
 * @held_lock: protects the fields below it.
 * @held_cond: wakes the submit worker; also signalled when @held_count drops.
 * @held_ready: held requests whose awaited fences all signalled, oldest first.
 * @held_count: held requests not yet handed to the back end.
 * @held_stop: destroy asked the submit worker to end.
 * @held_started: the submit worker runs (started by the first held request).
 * @held_thread: the submit worker: hands ready held requests to the back end.
 */
struct i915_device {
	struct i915_backend *be;
	struct i915_ggtt ggtt;
	struct ttm_resource *ggtt_guard;
	struct ttm_range_manager stolen;
	bool has_stolen;
	struct ttm_buddy_manager lmem;
	bool has_lmem;
	struct i915_engine engine[I915_NUM_ENGINES];
	struct i915_context *kernel_ctx;
	atomic_uint next_ctx_id;
	struct ttm_drm_device drm;
	bool gem_ready;
	/* ppGTTs (i915_vm.h): @vm_lock, set up by i915_gem_init(). */
	pthread_mutex_t vm_lock;
	struct i915_vma_registry vmas;
	atomic_uint next_vm_id;
	atomic_uint vm_count;
	/* The GEM uAPI of i915/gem (i915_gem_uapi.h), NULL when not created through it. */
	struct i915_gem_dev *gem_uapi;
	/* Where lmem/stolen evictions go: a GGTT part, then SYSTEM (lpfn 0: SYSTEM only). */
	struct ttm_place evict_places[2];
	struct {
		atomic_ulong blit_moves;
		atomic_ulong memcpy_moves;
		atomic_ulong multihops;
		atomic_ulong eb_backoffs;
		atomic_ulong relocs_written;
		atomic_ulong relocs_skipped;
	} gem_stats;

	pthread_mutex_t reset_lock;
	pthread_cond_t reset_cond;
	/* Protected by @reset_lock. */
	unsigned int reset_mask;
	bool reset_stop;
	bool reset_started;
	pthread_t reset_thread;

	pthread_mutex_t held_lock;
	pthread_cond_t held_cond;
	/* Protected by @held_lock. */
	struct list_head held_ready;
	unsigned int held_count;
	bool held_stop;
	bool held_started;
	pthread_t held_thread;
};

#endif /* I915_DRV_TYPES_H */
