/* SPDX-License-Identifier: MIT */
/*
 * ttm_range_manager: a memory type over a drm_mm interval allocator, in
 * page units, for apertures (TT/GTT) and stolen memory. Honours the place's
 * [fpfn, lpfn) window, TOPDOWN (highest fit) and the page alignment.
 *
 * Locking: @lock serialises the drm_mm; alloc and free may run on any
 * thread. The base manager's rules apply to the rest.
 */
#ifndef TTM_RANGE_MANAGER_H
#define TTM_RANGE_MANAGER_H

#include <pthread.h>

#include <ttm/drm_mm.h>
#include <ttm/ttm_resource.h>

/**
 * struct ttm_range_manager - caller-embedded range manager.
 * @manager: the base; pass &@manager to the ttm_resource_* calls.
 * @lock: protects @mm.
 * @mm: the pages [0, size).
 */
struct ttm_range_manager {
	struct ttm_resource_manager manager;
	struct ttm_lock lock;
	struct drm_mm mm;
};

/**
 * struct ttm_range_mgr_node - the resource the range manager hands out.
 * @base: the resource; start is @mm_node.start.
 * @mm_node: the pages held in the drm_mm.
 */
struct ttm_range_mgr_node {
	struct ttm_resource base;
	struct drm_mm_node mm_node;
};

/**
 * ttm_range_manager_init() - manage @p_size pages with a drm_mm.
 * @rman: the manager to set up (its memory is the caller's).
 * @use_tt: whether BOs placed here need a ttm_tt (system-memory apertures).
 * @p_size: the number of pages managed, offsets 0 to @p_size - 1.
 *
 * The manager is returned with use_type set; register it with
 * ttm_set_driver_manager().
 *
 * Return: 0; -EINVAL for a zero size; -ENOMEM.
 */
int ttm_range_manager_init(struct ttm_range_manager *rman, bool use_tt, uint64_t p_size);

/**
 * ttm_range_manager_fini() - take down a range manager with nothing left in it.
 * @rman: the manager (unregister it from its device first).
 *
 * Return: 0; -EBUSY while resources remain (nothing is torn down).
 */
int ttm_range_manager_fini(struct ttm_range_manager *rman);

/** to_ttm_range_manager() - the range manager embedding @man. */
static inline struct ttm_range_manager *to_ttm_range_manager(struct ttm_resource_manager *man)
{
	return container_of(man, struct ttm_range_manager, manager);
}

#endif /* TTM_RANGE_MANAGER_H */
