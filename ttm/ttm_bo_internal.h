/* SPDX-License-Identifier: MIT */
/*
 * ttm_bo_internal.h: calls between the core's BO files, not for drivers.
 *   ttm_bo.c           lifetime, reservation, LRU, pin, release, delayed
 *                      destroy, swapout (and ttm_device.c: device, shrinker,
 *                      info dump);
 *   ttm_bo_validate.c  placement, eviction, multi-hop, evict-all;
 *   ttm_bo_util.c      moves, ghosts, gutting, tt creation, CPU access.
 */
#ifndef TTM_BO_INTERNAL_H
#define TTM_BO_INTERNAL_H

#include <ttm/ttm_bo.h>

/* --- ttm_bo.c --- */

/**
 * ttm_bo_init_common() - the part of init shared by real BOs and ghosts:
 * fields, refcount 1, reservation (own or @resv), device counters. No
 * resource, no fault point, nothing locked. Return: 0; -EINVAL.
 */
int ttm_bo_init_common(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
		       enum ttm_bo_type type, uint32_t page_alignment, struct dma_resv *resv,
		       void (*destroy)(struct ttm_buffer_object *bo));

/**
 * ttm_bo_lru_update_locked() - put bo->resource where it belongs: the tail
 * of its manager's LRU at bo->priority (through the bulk move when set), or
 * the device's pinned list when pinned. LRU lock held; no-op without a
 * resource.
 */
void ttm_bo_lru_update_locked(struct ttm_buffer_object *bo);

/**
 * ttm_bo_cleanup_refs() - finish a deleted BO found on an LRU by eviction.
 * @bo is reserved by the caller, referenced, and the LRU lock is NOT held.
 * Waits for its fences (or -EBUSY with @no_wait_gpu), frees its resource and
 * tt, takes it off the delayed list and drops the list's reference. With
 * @unlock_resv the reservation is dropped before returning (always, also on
 * error). Return: 0; -EBUSY; -EINTR.
 */
int ttm_bo_cleanup_refs(struct ttm_buffer_object *bo, bool interruptible, bool no_wait_gpu,
			bool unlock_resv);

/* --- ttm_bo_util.c --- */

/**
 * ttm_bo_tt_create() - give @bo a tt if its type needs one and it has none
 * (driver's ttm_tt_create or a plain one). @zero_alloc sets ZERO_ALLOC.
 * Return: 0; -ENOMEM.
 */
int ttm_bo_tt_create(struct ttm_buffer_object *bo, bool zero_alloc);

/** ttm_bo_tt_destroy() - unpopulate and destroy @bo's tt, if any. */
void ttm_bo_tt_destroy(struct ttm_buffer_object *bo);

/**
 * ttm_bo_assign_mem() - make @new_mem @bo's resource (the old one must be
 * freed or transferred by the caller first), set its priority, link it on
 * the right LRU (LRU lock taken inside). Counters are the caller's.
 */
void ttm_bo_assign_mem(struct ttm_buffer_object *bo, struct ttm_resource *new_mem);

#endif /* TTM_BO_INTERNAL_H */
