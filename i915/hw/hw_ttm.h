/* SPDX-License-Identifier: MIT */
/*
 * hw_ttm - a TTM device whose memory is a real Intel GPU's (hw_gpu.h).
 *
 * The split of work between this project's TTM and the kernel's i915:
 *  - TTM_PL_TT is a range manager over the GPU virtual address space of the
 *    device's context (its own ppGTT): a TT resource starting at page P
 *    means "the BO's GEM object lives at GPU address P * 4096". Validating
 *    into TT assigns an address; evicting from TT takes it away again (the
 *    BO drops to SYSTEM, nothing is copied). The GPU sees exactly these
 *    addresses because every submission softpins every object
 *    (EXEC_OBJECT_PINNED); when a new object claims an address an old one
 *    held, the kernel unbinds the old binding, waiting for it to go idle.
 *  - SYSTEM and TT are both backed by one system-memory GEM object per BO,
 *    created when the BO first gets a resource of a tt type (the driver's
 *    ttm_tt_create hook); the kernel owns its pages, so the ttm_tt is
 *    EXTERNAL (never populated from our pool, never swapped by us).
 *  - TTM_PL_VRAM exists on discrete parts only (a device-local region in
 *    the memory-region query): a range manager that accounts the region's
 *    bytes, each VRAM resource backed by a GEM object created in the
 *    device-local region. Moves between VRAM and SYSTEM/TT are real
 *    XY_FAST_COPY_BLT batches (hw_batch_copy()) on the blitter engine whose
 *    out-fence is handed to ttm_bo_move_accel_cleanup(), so the move is
 *    pipelined: the BO continues at once and a ghost frees the old GEM
 *    object when the copy is done.
 *
 * The blits need GPU addresses for source, destination and the batch that
 * the range manager must never hand out: the copy window, three slots of
 * @copy_slot bytes above the TT range. Submissions using it are serialised
 * by @copy_lock (the kernel refuses two in-flight execbuffer ioctls that
 * softpin different objects at one address; once submitted, it orders the
 * reuse itself).
 *
 * CPU access through TTM (ttm_bo_access(), ttm_bo_vm) is not wired up:
 * the tt has no page array contents. Map the GEM object instead
 * (hw_ttm_bo_gem() and hw_bo_mmap()).
 *
 * Lock order: BO reservations (ww ticket) -> @copy_lock -> the ttm_device
 * locks (see ttm_device.h). hw_ttm_exec() and the move hook take @copy_lock
 * only with the BO(s) reserved.
 */
#ifndef I915_HW_TTM_H
#define I915_HW_TTM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

#include "hw_gpu.h"

/* Most objects one hw_ttm_exec() submits, the batch included. */
#define HW_TTM_EXEC_MAX 64u
/* Largest copy-window slot; a smaller VM gets a proportionally smaller one. */
#define HW_TTM_COPY_SLOT_MAX (1ull << 30)

/**
 * struct hw_ttm_device_args - how to build the TTM device.
 * @tt_size: bytes of GPU address space the TT manager hands out, from
 *	address 0; 0 for all of the VM below the copy window (capped at 2^32
 *	pages, the reach of a ttm_place's page numbers). Smaller values make
 *	TT eviction reachable in tests.
 * @vram_size: bytes of device-local memory the VRAM manager accounts; 0
 *	for the region's probed size. Ignored on integrated parts.
 * @no_vram: do not register VRAM even on a discrete part.
 */
struct hw_ttm_device_args {
	uint64_t tt_size;
	uint64_t vram_size;
	bool no_vram;
};

/**
 * struct hw_ttm_device - a ttm_device over one hw_gpu context.
 * @bdev: the TTM device; its managers are @tt_mgr and @vram_mgr.
 * @gpu: the device (not owned: the caller closes it after
 *	hw_ttm_device_destroy()).
 * @ctx: the context whose ppGTT @tt_mgr manages; every submission of this
 *	device uses it.
 * @tt_mgr: TTM_PL_TT, in pages of GPU virtual address space.
 * @vram_mgr: TTM_PL_VRAM, in pages of device-local memory; valid when
 *	@has_vram.
 * @has_vram: VRAM is registered (discrete part, not @no_vram).
 * @sys_region: the system-memory region (explicit in GEM_CREATE_EXT on
 *	discrete parts, which would otherwise pick device-local memory).
 * @vram_region: the device-local region behind VRAM.
 * @copy_base: GPU address of the copy window (end of the TT range).
 * @copy_slot: bytes per window slot: the largest BO a VRAM move can copy.
 * @copy_lock: serialises submissions through the copy window.
 * @blits: copy batches submitted by moves (for tests and the info dump).
 */
struct hw_ttm_device {
	struct ttm_device bdev;
	struct hw_gpu *gpu;
	struct hw_context ctx;
	struct ttm_range_manager tt_mgr;
	struct ttm_range_manager vram_mgr;
	bool has_vram;
	struct hw_region_id sys_region;
	struct hw_region_id vram_region;
	uint64_t copy_base;
	uint64_t copy_slot;
	pthread_mutex_t copy_lock;
	_Atomic uint64_t blits;
};

/**
 * struct hw_ttm_bo - a buffer object of a hw_ttm_device.
 * @tbo: the TTM object (reserve, validate, put through the ttm_bo_* API).
 * @dev: the device.
 * @lmem: the device-local GEM object while the BO is in VRAM (handle 0
 *	otherwise). Protected by the reservation.
 */
struct hw_ttm_bo {
	struct ttm_buffer_object tbo;
	struct hw_ttm_device *dev;
	struct hw_bo lmem;
};

/* Ready-made placements: one place each. */
extern const struct ttm_placement hw_ttm_placement_system;
extern const struct ttm_placement hw_ttm_placement_tt;
extern const struct ttm_placement hw_ttm_placement_vram;

/**
 * hw_ttm_device_create - a TTM device over @gpu: a new context with its
 * own ppGTT, TT over its address space, VRAM when the part is discrete.
 * @gpu: an open device with softpin and exec fences.
 * @args: NULL for the defaults.
 * @out: the device.
 *
 * Returns 0; -EOPNOTSUPP when the kernel has no exec fences (every
 * submission's fence must reach the BOs) or no full ppGTT, or the VM is too
 * small for a TT range and the copy window; -EINVAL for a @tt_size beyond
 * that; -ENOMEM; the kernel's errno from context creation. Nothing is left
 * behind on failure.
 */
int hw_ttm_device_create(struct hw_gpu *gpu, const struct hw_ttm_device_args *args,
			 struct hw_ttm_device **out);

/**
 * hw_ttm_device_destroy - wait for deleted BOs, unregister the managers,
 * finish the TTM device and destroy the context. Returns 0, or -EBUSY
 * while BOs are alive (nothing torn down; put them and call again). NULL
 * is a no-op returning 0.
 */
int hw_ttm_device_destroy(struct hw_ttm_device *dev);

/**
 * hw_ttm_bo_create - a BO of @size bytes (rounded up to pages) placed
 * according to @placement, returned unreserved with one reference (drop it
 * with ttm_bo_put(&bo->tbo)). The GEM object appears with the first
 * resource. Returns 0; -EINVAL; -ENOMEM (also when the kernel refuses the
 * system-memory GEM object: the ttm_tt_create hook cannot pass its errno
 * on); the errors of ttm_bo_validate().
 */
int hw_ttm_bo_create(struct hw_ttm_device *dev, uint64_t size,
		     const struct ttm_placement *placement, struct hw_ttm_bo **out);

/* The hw_ttm_bo embedding @tbo. */
static inline struct hw_ttm_bo *to_hw_ttm_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct hw_ttm_bo, tbo);
}

/*
 * hw_ttm_bo_gem - the GEM object holding @bo's content now (the device-
 * local one in VRAM, the system one otherwise), or NULL without a
 * resource. Reserved.
 */
struct hw_bo *hw_ttm_bo_gem(struct hw_ttm_bo *bo);

/*
 * hw_ttm_bo_gpu_addr - the GPU virtual address the range manager assigned
 * to @bo, or UINT64_MAX when @bo is not in TT. Reserved.
 */
uint64_t hw_ttm_bo_gpu_addr(const struct hw_ttm_bo *bo);

/**
 * hw_ttm_exec - submit @batch on the render engine with @bos.
 * @dev: the device.
 * @bos: the objects the batch uses (each written, as far as implicit sync
 *	goes), @n of them, no duplicates, not including @batch.
 * @n: entries of @bos; @n + 1 <= HW_TTM_EXEC_MAX.
 * @batch: the batch; commands from byte 0 to its end (MI_BATCH_BUFFER_END
 *	stops the GPU earlier).
 * @fence: receives the submission's fence (one reference, the caller's).
 *
 * Reserves every object with one ww ticket (backing off and retrying on
 * -EDEADLK), validates each into TT (which may evict other BOs' addresses
 * or blit a BO out of VRAM), submits with every object softpinned at the
 * address its TT resource names, and adds the fence to every object's
 * reservation (WRITE usage) before unreserving. The caller must not hold
 * any of the reservations.
 *
 * Returns 0; -EINVAL (bad arguments, duplicates); -ENOMEM when the objects
 * do not fit in TT together; -EINTR; -EIO (wedged GPU) and the other
 * errors of hw_exec_submit(). On failure *@fence is NULL and nothing was
 * submitted (moves already done stay done).
 */
int hw_ttm_exec(struct hw_ttm_device *dev, struct hw_ttm_bo *const *bos, unsigned int n,
		struct hw_ttm_bo *batch, struct dma_fence **fence);

#endif /* I915_HW_TTM_H */
