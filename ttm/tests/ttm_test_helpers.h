/* SPDX-License-Identifier: MIT */
/*
 * ttm_test_helpers: shared fixtures for the core's unit tests (the
 * counterpart of the kernel's ttm_kunit_helpers), over testlib's mock
 * device (testlib/mock_device.h: the driver, its memory types, failing
 * managers and callback counters).
 *
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

#include <testlib/mock_device.h>

/*
 * The mock driver device is testlib's (testlib/mock_device.h). Names a few
 * tests still use for it:
 */
#define ttm_test_device testlib_mock_device
#define ttm_test_device_cfg testlib_mock_cfg
#define to_ttm_test_device to_testlib_mock
#define ttm_test_device_init testlib_mock_device_init
#define ttm_test_device_fini testlib_mock_device_fini
#define ttm_mock_manager testlib_mock_manager
#define ttm_mock_manager_init testlib_mock_manager_init
#define ttm_mock_manager_fini testlib_mock_manager_fini

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
