/* SPDX-License-Identifier: MIT */
/*
 * ttm_test_helpers: shared fixtures for the core's unit tests (the
 * counterpart of the kernel's ttm_kunit_helpers).
 *
 * - A mock driver device: SYSTEM, a range-managed TT (use_tt) and a VRAM,
 *   range- or buddy-managed, whose memory is a host buffer the CPU reaches
 *   through io_mem_reserve (bus.addr). evict_flags sends VRAM to TT (SYSTEM
 *   without TT) and TT to SYSTEM; with @multihop the move hook answers
 *   -EMULTIHOP (hop: TT) for any VRAM <-> SYSTEM move, as drivers whose
 *   copy engine only sees the aperture do; a test may install the driver's
 *   eviction_valuable veto. Every driver callback is counted.
 * - Mock managers whose alloc always fails with one error (-ENOSPC, -EBUSY).
 * - BO creation in one call, validate and pin of an unreserved BO in one
 *   call, a test fence, and a checksummed content pattern written and
 *   checked through ttm_bo_access().
 *
 * Everything returns negative errno; nothing aborts, so tests decide what a
 * failure means.
 */
#ifndef TTM_TEST_HELPERS_H
#define TTM_TEST_HELPERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>
#include <ttm/ttm_resource.h>

/**
 * struct ttm_test_device_cfg - what ttm_test_device_init() sets up.
 * @tt_pages: pages of the TT aperture; 0: no TT manager.
 * @vram_pages: pages of VRAM; 0: no VRAM manager.
 * @vram_buddy: VRAM is buddy-managed (a resource may be scattered blocks,
 *	which io_mem_reserve and the core's io_segment reach) instead of
 *	range-managed (one contiguous run).
 * @multihop: install the move hook that forces VRAM <-> SYSTEM through TT.
 * @use_dma32: the device's pool charges the DMA32 cap.
 * @eviction_valuable: the driver's eviction_valuable hook (see
 *	struct ttm_device_funcs); NULL: none, the core decides alone.
 */
struct ttm_test_device_cfg {
	uint64_t tt_pages;
	uint64_t vram_pages;
	bool vram_buddy;
	bool multihop;
	bool use_dma32;
	bool (*eviction_valuable)(struct ttm_buffer_object *bo, const struct ttm_place *place);
};

/**
 * struct ttm_test_device - the mock driver's device.
 * @bdev: the TTM device; pass &@bdev to the core.
 * @cfg: the configuration it was made with.
 * @funcs: the driver callbacks @bdev runs (the mock's, with
 *	cfg.eviction_valuable).
 * @tt: the TT aperture manager (valid when cfg.tt_pages).
 * @vram: the range VRAM manager (valid when cfg.vram_pages, not cfg.vram_buddy).
 * @vram_buddy: the buddy VRAM manager (valid when cfg.vram_pages and cfg.vram_buddy).
 * @vram_mem: host memory standing in for VRAM, cfg.vram_pages pages.
 * @moves, @multihops, @delete_mem_notifies, @swap_notifies,
 * @release_notifies, @evict_flags_calls: callback counters (atomic).
 */
struct ttm_test_device {
	struct ttm_device bdev;
	struct ttm_test_device_cfg cfg;
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

/** to_ttm_test_device() - the test device embedding @bdev. */
static inline struct ttm_test_device *to_ttm_test_device(struct ttm_device *bdev)
{
	return container_of(bdev, struct ttm_test_device, bdev);
}

/**
 * ttm_test_device_init() - set up @tdev (caller-allocated) per @cfg.
 * Return: 0; the error of the first step that failed, with nothing left.
 */
int ttm_test_device_init(struct ttm_test_device *tdev, const struct ttm_test_device_cfg *cfg);

/**
 * ttm_test_device_fini() - unregister and finish the managers, then the
 * device. Return: 0; -EBUSY when BOs or resources remain (nothing torn
 * down past the step that refused).
 */
int ttm_test_device_fini(struct ttm_test_device *tdev);

/**
 * struct ttm_mock_manager - a memory type that never has space.
 * @man: the base manager.
 * @ret: what every alloc returns.
 * @allocs: alloc calls seen.
 */
struct ttm_mock_manager {
	struct ttm_resource_manager man;
	int ret;
	_Atomic unsigned long allocs;
};

/**
 * ttm_mock_manager_init() - @mock answers every alloc with @ret (-ENOSPC
 * or -EBUSY) and registers as @mem_type of @bdev. Return: 0; -EINVAL.
 */
int ttm_mock_manager_init(struct ttm_mock_manager *mock, struct ttm_device *bdev, unsigned mem_type,
			  int ret, uint64_t pages);

/** ttm_mock_manager_fini() - unregister @mock from @mem_type and finish it. */
void ttm_mock_manager_fini(struct ttm_mock_manager *mock, struct ttm_device *bdev,
			   unsigned mem_type);

/**
 * struct ttm_test_placement - a placement with room for a few places.
 * @places: the places.
 * @placement: points at @places.
 */
struct ttm_test_placement {
	struct ttm_place places[4];
	struct ttm_placement placement;
};

/**
 * ttm_test_placement() - reset @p to the single place (@mem_type, @flags)
 * and return &@p->placement.
 */
struct ttm_placement *ttm_test_placement(struct ttm_test_placement *p, uint32_t mem_type,
					 uint32_t flags);

/** ttm_test_placement_add() - append a place (at most 4); returns &@p->placement. */
struct ttm_placement *ttm_test_placement_add(struct ttm_test_placement *p, uint32_t mem_type,
					     uint32_t flags);

/**
 * ttm_test_bo_create() - calloc a BO and ttm_bo_init_reserved() it.
 * @reserved: leave it reserved (else unreserved).
 * @ctx: may be NULL (a zeroed, non-interruptible context is used).
 * Return: 0 with *@out set; the init error (nothing leaked).
 */
int ttm_test_bo_create(struct ttm_device *bdev, uint64_t size, enum ttm_bo_type type,
		       const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
		       bool reserved, struct ttm_buffer_object **out);

/** ttm_test_bo_create_in() - unreserved device BO of @size in @mem_type. */
int ttm_test_bo_create_in(struct ttm_device *bdev, uint64_t size, uint32_t mem_type,
			  struct ttm_buffer_object **out);

/** ttm_test_bo_destroy() - the destroy callback of helper BOs: free(). */
void ttm_test_bo_destroy(struct ttm_buffer_object *bo);

/**
 * ttm_test_fence_create() - a new unsignalled fence on its own timeline,
 * signalled by the test with dma_fence_signal(). NULL on failure.
 */
struct dma_fence *ttm_test_fence_create(void);

/**
 * ttm_test_fence_create_on() - as ttm_test_fence_create(), at @seqno of
 * the caller's timeline @context (from dma_fence_context_alloc()), for
 * tests that order fences of one timeline. NULL on failure.
 */
struct dma_fence *ttm_test_fence_create_on(uint64_t context, uint64_t seqno);

/**
 * ttm_test_fence_name() - the driver and timeline name of the helpers'
 * fences (a static string), for a test's own dma_fence_ops that needs
 * slots of its own (signaled, enable_signaling, release) besides the names.
 */
const char *ttm_test_fence_name(struct dma_fence *fence);

/**
 * ttm_test_bo_add_fence() - attach @fence to @bo (reserved by the caller)
 * with @usage. Return: 0; -ENOMEM.
 */
int ttm_test_bo_add_fence(struct ttm_buffer_object *bo, struct dma_fence *fence,
			  enum dma_resv_usage usage);

/**
 * ttm_test_bo_busy() - make the unreserved @bo busy: a new fence from
 * ttm_test_fence_create() attached with @usage, reserving @bo around it.
 * Return: the fence, with a reference the caller puts (after signalling
 * it); NULL when the fence or its slot could not be had (nothing attached).
 */
struct dma_fence *ttm_test_bo_busy(struct ttm_buffer_object *bo, enum dma_resv_usage usage);

/**
 * ttm_test_bo_fill() - write the pattern of @seed over all of @bo
 * (reserved) through ttm_bo_access(). Return: 0; the access error.
 */
int ttm_test_bo_fill(struct ttm_buffer_object *bo, uint64_t seed);

/**
 * ttm_test_bo_verify() - read @bo (reserved) back through ttm_bo_access()
 * and compare with the pattern of @seed. Return: 0 when identical;
 * -EILSEQ at the first difference; the access error.
 */
int ttm_test_bo_verify(struct ttm_buffer_object *bo, uint64_t seed);

/**
 * ttm_test_bo_reserve_fill() - ttm_test_bo_fill() of an unreserved @bo,
 * reserving it around the fill. Return: as ttm_test_bo_fill().
 */
int ttm_test_bo_reserve_fill(struct ttm_buffer_object *bo, uint64_t seed);

/**
 * ttm_test_bo_reserve_verify() - ttm_test_bo_verify() of an unreserved @bo,
 * reserving it around the check. Return: as ttm_test_bo_verify().
 */
int ttm_test_bo_reserve_verify(struct ttm_buffer_object *bo, uint64_t seed);

/**
 * ttm_test_bo_reserve_validate() - ttm_bo_validate() of an unreserved @bo
 * into @placement, reserving it around the call.
 * Return: as ttm_bo_validate().
 */
int ttm_test_bo_reserve_validate(struct ttm_buffer_object *bo,
				 const struct ttm_placement *placement,
				 struct ttm_operation_ctx *ctx);

/**
 * ttm_test_bo_validate_to() - ttm_test_bo_reserve_validate() into the one
 * place (@mem_type, @flags). Return: as ttm_bo_validate().
 */
int ttm_test_bo_validate_to(struct ttm_buffer_object *bo, uint32_t mem_type, uint32_t flags,
			    struct ttm_operation_ctx *ctx);

/**
 * ttm_test_bo_pin() - ttm_bo_pin() of an unreserved @bo where it is,
 * reserving it around the call.
 */
void ttm_test_bo_pin(struct ttm_buffer_object *bo);

/**
 * ttm_test_bo_mem_type() - where @bo lives: its resource's memory type, or
 * TTM_NUM_MEM_TYPES when it has no resource (a value no placement names).
 */
unsigned ttm_test_bo_mem_type(const struct ttm_buffer_object *bo);

/**
 * ttm_test_bo_checksum() - a 64-bit checksum (FNV-1a) of @bo's content
 * (reserved), into *@sum. Return: 0; the access error.
 */
int ttm_test_bo_checksum(struct ttm_buffer_object *bo, uint64_t *sum);

#endif /* TTM_TEST_HELPERS_H */
