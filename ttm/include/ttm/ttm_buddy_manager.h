/* SPDX-License-Identifier: MIT */
/*
 * ttm_buddy_manager: a VRAM memory type over drm_buddy. A resource is a
 * list of buddy blocks, scattered unless the place asks for CONTIGUOUS.
 * TOPDOWN takes the highest blocks; a place window [fpfn, lpfn) and the
 * MAPPABLE flag (clamping lpfn to the CPU-visible window) become a range
 * allocation. A resource's bytes are its blocks in list order (not address
 * order); io_segment tells the CPU copy code where each piece lies, relative
 * to the lowest block (the resource's start).
 *
 * Locking: @lock serialises the drm_buddy; alloc and free may run on any
 * thread. The base manager's rules apply to the rest.
 */
#ifndef TTM_BUDDY_MANAGER_H
#define TTM_BUDDY_MANAGER_H

#include <pthread.h>

#include <ttm/drm_buddy.h>
#include <ttm/ttm_resource.h>

/**
 * struct ttm_buddy_manager - caller-embedded VRAM manager.
 * @manager: the base; pass &@manager to the ttm_resource_* calls.
 * @lock: protects @mm.
 * @mm: the bytes [0, size pages).
 * @visible_size: pages of the CPU-visible window [0, @visible_size).
 * @chunk_size: the smallest block, in bytes (a power of two >= 4 KiB).
 */
struct ttm_buddy_manager {
	struct ttm_resource_manager manager;
	pthread_mutex_t lock;
	struct drm_buddy mm;
	uint64_t visible_size;
	uint64_t chunk_size;
};

/**
 * struct ttm_buddy_resource - the resource the buddy manager hands out.
 * @base: the resource; start is the lowest block's page.
 * @blocks: the drm_buddy_blocks held, linked by their @link.
 */
struct ttm_buddy_resource {
	struct ttm_resource base;
	struct list_head blocks;
};

/**
 * ttm_buddy_manager_init() - manage @p_size pages, of which the first
 * @visible_pages are CPU-visible (0: all), in blocks of at least
 * @chunk_size bytes (0: one page). @use_type is set, @use_tt is not.
 * @bman: the manager to set up (its memory is the caller's).
 * @p_size: the number of pages managed (rounded down to whole chunks).
 * @visible_pages: how many of them, from page 0, the CPU can reach; 0 for all.
 * @chunk_size: the smallest block in bytes, a power of two of at least a page;
 * 0 for one page.
 *
 * Return: 0; -EINVAL for a zero size or a bad chunk size; -ENOMEM.
 */
int ttm_buddy_manager_init(struct ttm_buddy_manager *bman, uint64_t p_size, uint64_t visible_pages,
			   uint64_t chunk_size);

/**
 * ttm_buddy_manager_fini() - take down a buddy manager with nothing left in it.
 * @bman: the manager (unregister it from its device first).
 *
 * Return: 0; -EBUSY while resources remain (nothing is torn down).
 */
int ttm_buddy_manager_fini(struct ttm_buddy_manager *bman);

/** to_ttm_buddy_manager() - the buddy manager embedding @man. */
static inline struct ttm_buddy_manager *to_ttm_buddy_manager(struct ttm_resource_manager *man)
{
	return container_of(man, struct ttm_buddy_manager, manager);
}

/** to_ttm_buddy_resource() - the buddy resource embedding @res. */
static inline struct ttm_buddy_resource *to_ttm_buddy_resource(struct ttm_resource *res)
{
	return container_of(res, struct ttm_buddy_resource, base);
}

#endif /* TTM_BUDDY_MANAGER_H */
