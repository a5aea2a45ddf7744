/* SPDX-License-Identifier: MIT */
/*
 * mock_device.h - the one mock TTM driver of the unit tests, benchmarks,
 * stress programs and fuzz targets, configured per use:
 *
 * - Memory types: SYSTEM always; a TT aperture (range manager, use_tt: the
 *   pages stay in the ttm_tt) of cfg.tt_pages; a VRAM of cfg.vram_pages,
 *   range- or buddy-managed, whose memory is a host buffer the CPU reaches
 *   through io_mem_reserve (bus.addr), only its first cfg.vram_visible_pages
 *   when set (a discrete part's small BAR; moves, standing for the copy
 *   engine, reach all of it).
 * - Eviction (cfg.evict, or the driver's own cfg.evict_flags): down the
 *   hierarchy (VRAM -> TT -> SYSTEM), with SYSTEM as a fallback, or every
 *   victim straight to SYSTEM.
 * - Moves (cfg.move): the core's memcpy move; a rebind without copying
 *   between types that share the tt's pages (SYSTEM <-> TT); or no move
 *   callback at all (the core's default path). cfg.multihop answers
 *   -EMULTIHOP (hop: TT) for VRAM <-> SYSTEM, as a driver whose copy engine
 *   only sees the aperture; cfg.moved runs after every successful move.
 * - Failure modes: a memory type whose manager refuses every allocation
 *   with one error (struct testlib_mock_manager), cfg.eviction_valuable
 *   vetoes, and the core's fault points.
 * - Counters of every driver callback (atomics), unless cfg.bare: a
 *   benchmark then runs exactly the callbacks a minimal driver has.
 *
 * The callbacks find the mock from bdev->funcs (the mock's own copy of the
 * table), so a device that embeds its ttm_device elsewhere (the uAPI's
 * ttm_drm_device) runs the same driver: testlib_mock_driver_init() sets up
 * everything but the device and its managers.
 *
 * Errors are negative errno values; nothing aborts. Locking: the device's
 * own; the mock adds only atomics and a thread-local "in a move" flag.
 */
#ifndef TESTLIB_MOCK_DEVICE_H
#define TESTLIB_MOCK_DEVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>
#include <ttm/ttm_resource.h>

/**
 * enum testlib_mock_evict - where the mock's evict_flags sends a victim.
 * @TESTLIB_MOCK_EVICT_DOWN: VRAM to TT (to SYSTEM on a device without TT),
 *	TT to SYSTEM; a SYSTEM BO gets an empty placement.
 * @TESTLIB_MOCK_EVICT_DOWN_FALLBACK: VRAM to TT with SYSTEM as a fallback
 *	when TT is full; everything else to SYSTEM.
 * @TESTLIB_MOCK_EVICT_SYSTEM: every victim to SYSTEM.
 */
enum testlib_mock_evict {
	TESTLIB_MOCK_EVICT_DOWN,
	TESTLIB_MOCK_EVICT_DOWN_FALLBACK,
	TESTLIB_MOCK_EVICT_SYSTEM,
};

/**
 * enum testlib_mock_move - what the mock's move callback does.
 * @TESTLIB_MOCK_MOVE_MEMCPY: ttm_bo_move_memcpy() for every move.
 * @TESTLIB_MOCK_MOVE_BIND: between types that keep their pages in the
 *	ttm_tt (SYSTEM, TT) rebind without copying, populating first when the
 *	target is an aperture; ttm_bo_move_memcpy() otherwise.
 * @TESTLIB_MOCK_MOVE_CORE: no move callback: the core's default path.
 */
enum testlib_mock_move {
	TESTLIB_MOCK_MOVE_MEMCPY,
	TESTLIB_MOCK_MOVE_BIND,
	TESTLIB_MOCK_MOVE_CORE,
};

/**
 * struct testlib_mock_cfg - what the mock device is made of.
 * @tt_pages: pages of the TT aperture; 0: no TT manager.
 * @vram_pages: pages of VRAM; 0: no VRAM.
 * @vram_visible_pages: pages of VRAM the CPU reaches from the start;
 *	0: all of it.
 * @vram_buddy: VRAM is buddy-managed (a resource may be scattered blocks,
 *	reached through the manager's io_segment) instead of range-managed.
 * @multihop: VRAM <-> SYSTEM moves answer -EMULTIHOP with TT as the hop.
 * @use_dma32: the device's pool charges the DMA32 cap.
 * @bare: no callback counters and no notify callbacks.
 * @evict: the eviction policy (ignored when @evict_flags is set).
 * @move: the move policy.
 * @evict_flags: the driver's own evict_flags; NULL: @evict decides.
 * @eviction_valuable: the driver's eviction_valuable veto; NULL: none.
 * @moved: called after every successful move by the mock's move callback
 *	(the BO reserved, bo->resource the new resource); NULL: none.
 */
struct testlib_mock_cfg {
	uint64_t tt_pages;
	uint64_t vram_pages;
	uint64_t vram_visible_pages;
	bool vram_buddy;
	bool multihop;
	bool use_dma32;
	bool bare;
	enum testlib_mock_evict evict;
	enum testlib_mock_move move;
	void (*evict_flags)(struct ttm_buffer_object *bo, struct ttm_placement *placement);
	bool (*eviction_valuable)(struct ttm_buffer_object *bo, const struct ttm_place *place);
	void (*moved)(struct ttm_buffer_object *bo);
};

/**
 * struct testlib_mock_device - the mock driver and (unless the device is
 * embedded elsewhere) its device.
 * @bdev: the TTM device; pass &@bdev to the core. Unused after
 *	testlib_mock_driver_init().
 * @cfg: the configuration it was made with.
 * @funcs: the driver callbacks the device runs; a test may change a slot
 *	before it creates BOs.
 * @tt: the TT aperture manager (valid when cfg.tt_pages).
 * @vram: the range VRAM manager (cfg.vram_pages, not cfg.vram_buddy).
 * @vram_buddy: the buddy VRAM manager (cfg.vram_pages and cfg.vram_buddy).
 * @vram_mem: host memory standing in for VRAM, cfg.vram_pages pages.
 * @moves: moves the move callback attempted (multihop answers not counted).
 * @multihops: moves answered with -EMULTIHOP.
 * @delete_mem_notifies: delete_mem_notify calls.
 * @swap_notifies: swap_notify calls.
 * @release_notifies: release_notify calls.
 * @evict_flags_calls: evict_flags calls.
 */
struct testlib_mock_device {
	struct ttm_device bdev;
	struct testlib_mock_cfg cfg;
	struct ttm_device_funcs funcs;
	struct ttm_range_manager tt;
	struct ttm_range_manager vram;
	struct ttm_buddy_manager vram_buddy;
	void *vram_mem;
	_Atomic unsigned long moves;
	_Atomic unsigned long multihops;
	_Atomic unsigned long delete_mem_notifies;
	_Atomic unsigned long swap_notifies;
	_Atomic unsigned long release_notifies;
	_Atomic unsigned long evict_flags_calls;
};

/**
 * to_testlib_mock() - the mock whose driver @bdev runs.
 * @bdev: a device set up by testlib_mock_device_init(), or one whose funcs
 *	are a mock's (testlib_mock_driver_init()).
 *
 * Return: the mock.
 */
static inline struct testlib_mock_device *to_testlib_mock(struct ttm_device *bdev)
{
	return container_of(bdev->funcs, struct testlib_mock_device, funcs);
}

/**
 * testlib_mock_driver_init() - set up the driver half of @md: @cfg, the
 * callbacks in @md->funcs and the VRAM arena; no device, no managers.
 * @md: caller-allocated; zeroed first.
 * @cfg: the configuration (tt_pages, vram_buddy, use_dma32 are the device
 *	owner's business here).
 *
 * For a device embedded elsewhere: pass &@md->funcs to its init.
 *
 * Return: 0; -ENOMEM (nothing left).
 */
int testlib_mock_driver_init(struct testlib_mock_device *md, const struct testlib_mock_cfg *cfg);

/**
 * testlib_mock_driver_fini() - free the VRAM arena of testlib_mock_driver_init(),
 * after the device that ran the driver is gone.
 * @md: the mock.
 */
void testlib_mock_driver_fini(struct testlib_mock_device *md);

/**
 * testlib_mock_device_init() - the driver, its device and its managers per @cfg.
 * @md: caller-allocated; zeroed first.
 * @cfg: the configuration.
 *
 * Return: 0; the error of the first step that failed, with nothing left.
 */
int testlib_mock_device_init(struct testlib_mock_device *md, const struct testlib_mock_cfg *cfg);

/**
 * testlib_mock_device_fini() - flush delayed destruction, unregister and
 * finish the managers, then the device and the driver.
 * @md: the mock.
 *
 * Return: 0; -EBUSY when BOs or resources remain (nothing torn down past
 * the step that refused; the call may be repeated).
 */
int testlib_mock_device_fini(struct testlib_mock_device *md);

/**
 * testlib_mock_bo_create() - calloc a BO and ttm_bo_init_reserved() it.
 * @bdev: the device.
 * @size: bytes.
 * @placement: where it may go.
 * @ctx: may be NULL (a zeroed, non-interruptible context is used).
 * @reserved: leave it reserved (else unreserved).
 * @out: the BO, with one reference (ttm_bo_put()); NULL on failure.
 *
 * Return: 0; -ENOMEM; the init error (nothing leaked).
 */
int testlib_mock_bo_create(struct ttm_device *bdev, uint64_t size,
			   const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
			   bool reserved, struct ttm_buffer_object **out);

/**
 * testlib_mock_bo_create_type() - testlib_mock_bo_create() for a BO of any
 * type (kernel and userptr as well as device).
 * @bdev: the device.
 * @size: bytes.
 * @type: the BO type ttm_bo_init_reserved() gets.
 * @placement: where it may go.
 * @ctx: may be NULL (a zeroed, non-interruptible context is used).
 * @reserved: leave it reserved (else unreserved).
 * @out: the BO, with one reference (ttm_bo_put()); NULL on failure.
 *
 * Return: 0; -ENOMEM; the init error (nothing leaked).
 */
int testlib_mock_bo_create_type(struct ttm_device *bdev, uint64_t size, enum ttm_bo_type type,
				const struct ttm_placement *placement,
				struct ttm_operation_ctx *ctx, bool reserved,
				struct ttm_buffer_object **out);

/**
 * testlib_mock_bo_destroy() - the destroy callback of testlib_mock_bo_create()'s
 * BOs: free().
 * @bo: the BO.
 */
void testlib_mock_bo_destroy(struct ttm_buffer_object *bo);

/**
 * testlib_mock_placement() - the one-place placement (@mem_type, @flags) in
 * caller storage.
 * @placement: filled.
 * @place: filled, pointed at by @placement.
 * @mem_type: the memory type.
 * @flags: TTM_PL_FLAG_*.
 *
 * Return: @placement.
 */
struct ttm_placement *testlib_mock_placement(struct ttm_placement *placement,
					     struct ttm_place *place, uint32_t mem_type,
					     uint32_t flags);

/**
 * struct testlib_mock_manager - a memory type that never has space.
 * @man: the base manager.
 * @ret: what every alloc returns.
 * @allocs: alloc calls seen.
 */
struct testlib_mock_manager {
	struct ttm_resource_manager man;
	int ret;
	_Atomic unsigned long allocs;
};

/**
 * testlib_mock_manager_init() - @mock answers every alloc with @ret and
 * registers as @mem_type of @bdev.
 * @mock: caller-allocated.
 * @bdev: the device.
 * @mem_type: the memory type it stands for.
 * @ret: a negative errno (-ENOSPC, -EBUSY, ...).
 * @pages: the size it claims.
 *
 * Return: 0; -EINVAL for a @ret that is not negative; the manager's errors.
 */
int testlib_mock_manager_init(struct testlib_mock_manager *mock, struct ttm_device *bdev,
			      unsigned mem_type, int ret, uint64_t pages);

/**
 * testlib_mock_manager_fini() - unregister @mock from @mem_type and finish it.
 * @mock: the manager.
 * @bdev: the device.
 * @mem_type: where it was registered.
 */
void testlib_mock_manager_fini(struct testlib_mock_manager *mock, struct ttm_device *bdev,
			       unsigned mem_type);

#endif /* TESTLIB_MOCK_DEVICE_H */
