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
 * Cleared memory (zero-filled device memory, as the kernel's amdgpu VRAM
 * manager tracks it): an owner that zeroed a resource says so with
 * ttm_buddy_resource_set_cleared(), and its blocks go back to the buddy as
 * cleared; a BO for which @want_cleared answers true is allocated with
 * DRM_BUDDY_CLEAR_ALLOCATION (cleared blocks first), and
 * ttm_buddy_resource_is_cleared() tells its owner whether it may skip the
 * clear. Other allocations prefer dirty blocks, keeping cleared ones for
 * those who want them.
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
 * @want_cleared: the driver's answer to "does @bo want zeroed memory" (the
 *	kernel's amdgpu asks its VRAM_CLEARED BO flag; @bo is NULL for an
 *	allocation without a BO); NULL: no BO does. Set after
 *	ttm_buddy_manager_init(), before the first allocation.
 */
struct ttm_buddy_manager {
	struct ttm_resource_manager manager;
	pthread_mutex_t lock;
	struct drm_buddy mm;
	uint64_t visible_size;
	uint64_t chunk_size;
	bool (*want_cleared)(struct ttm_buffer_object *bo);
};

/**
 * struct ttm_buddy_resource - the resource the buddy manager hands out.
 * @base: the resource; start is the lowest block's page.
 * @blocks: the drm_buddy_blocks held, linked by their @link.
 * @flags: DRM_BUDDY_* the blocks were allocated with, plus DRM_BUDDY_CLEARED
 *	once the owner zeroed them (passed to drm_buddy_free_list() on free).
 */
struct ttm_buddy_resource {
	struct ttm_resource base;
	struct list_head blocks;
	unsigned long flags;
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

/**
 * ttm_buddy_resource_is_cleared() - are all blocks of buddy resource @res
 * known to be zero (handed out cleared by the buddy)? As the kernel's
 * amdgpu_vram_mgr_is_cleared(): the owner may skip zeroing them. Call with
 * the BO reserved (the resource does not change under it).
 * @res: a resource of a buddy manager.
 * Return: true when every block is clear.
 */
bool ttm_buddy_resource_is_cleared(struct ttm_resource *res);

/**
 * ttm_buddy_resource_set_cleared() - the owner zeroed every byte of @res:
 * its blocks go back to the buddy as cleared (DRM_BUDDY_CLEARED) when it is
 * freed, as the kernel's amdgpu_vram_mgr_set_cleared(). Only for memory the
 * owner really zeroed and did not write since: a later allocation that wants
 * cleared memory trusts it.
 * @res: a resource of a buddy manager.
 */
void ttm_buddy_resource_set_cleared(struct ttm_resource *res);

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
