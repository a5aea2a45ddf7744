// SPDX-License-Identifier: MIT
/* ttm_buddy_manager: VRAM resources as lists of drm_buddy blocks. */
#include <errno.h>
#include <stdlib.h>

#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_faults.h>

/* The place's window in pages, with MAPPABLE clamped to the visible part. */
static void ttm_buddy_window(struct ttm_buddy_manager *bman, const struct ttm_place *place,
			     uint64_t *fpfn, uint64_t *lpfn)
{
	uint64_t size = bman->manager.size;

	*fpfn = place->fpfn;
	*lpfn = place->lpfn && place->lpfn < size ? place->lpfn : size;
	if ((place->flags & TTM_PL_FLAG_MAPPABLE) && *lpfn > bman->visible_size)
		*lpfn = bman->visible_size;
}

static int ttm_buddy_man_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
			       const struct ttm_place *place, uint64_t size,
			       uint64_t page_alignment, struct ttm_resource **res)
{
	struct ttm_buddy_manager *bman = to_ttm_buddy_manager(man);
	uint64_t min_block = bman->chunk_size;
	struct ttm_buddy_resource *vres;
	struct drm_buddy_block *block;
	unsigned long flags = 0;
	uint64_t fpfn, lpfn, lowest = UINT64_MAX;
	int ret;

	ttm_buddy_window(bman, place, &fpfn, &lpfn);
	if (fpfn >= lpfn || (size >> TTM_PAGE_SHIFT) > lpfn - fpfn)
		return -ENOSPC;
	if (fpfn || lpfn != man->size)
		flags |= DRM_BUDDY_RANGE_ALLOCATION;
	if (place->flags & TTM_PL_FLAG_TOPDOWN)
		flags |= DRM_BUDDY_TOPDOWN_ALLOCATION;
	if (place->flags & TTM_PL_FLAG_CONTIGUOUS)
		flags |= DRM_BUDDY_CONTIGUOUS_ALLOCATION;
	if (bman->want_cleared && bman->want_cleared(bo))
		flags |= DRM_BUDDY_CLEAR_ALLOCATION;
	/* Alignment is a minimum block size: every block starts on it. */
	if (page_alignment > 1) {
		if (page_alignment & (page_alignment - 1))
			return -EINVAL;
		if ((page_alignment << TTM_PAGE_SHIFT) > min_block)
			min_block = page_alignment << TTM_PAGE_SHIFT;
	}
	size = (size + min_block - 1) & ~(min_block - 1);

	if (fault_should_fail(&ttm_fault_resource_alloc, sizeof(*vres)))
		return -ENOMEM;
	vres = calloc(1, sizeof(*vres));
	if (!vres)
		return -ENOMEM;
	INIT_LIST_HEAD(&vres->blocks);
	vres->flags = flags;
	pthread_mutex_lock(&bman->lock);
	ret = drm_buddy_alloc_blocks(&bman->mm, fpfn << TTM_PAGE_SHIFT, lpfn << TTM_PAGE_SHIFT,
				     size, min_block, &vres->blocks, flags);
	pthread_mutex_unlock(&bman->lock);
	if (ret) {
		free(vres);
		return ret;
	}
	list_for_each_entry (block, &vres->blocks, struct drm_buddy_block, link)
		if (drm_buddy_block_offset(block) < lowest)
			lowest = drm_buddy_block_offset(block);
	ttm_resource_init(man, bo, place, size, &vres->base);
	vres->base.start = lowest >> TTM_PAGE_SHIFT;
	vres->base.bus.is_iomem = true;
	*res = &vres->base;
	return 0;
}

static void ttm_buddy_man_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	struct ttm_buddy_manager *bman = to_ttm_buddy_manager(man);
	struct ttm_buddy_resource *vres = to_ttm_buddy_resource(res);

	pthread_mutex_lock(&bman->lock);
	drm_buddy_free_list(&bman->mm, &vres->blocks, vres->flags & DRM_BUDDY_CLEARED);
	pthread_mutex_unlock(&bman->lock);
	ttm_resource_fini(man, res);
	free(vres);
}

bool ttm_buddy_resource_is_cleared(struct ttm_resource *res)
{
	struct ttm_buddy_resource *vres = to_ttm_buddy_resource(res);
	struct drm_buddy_block *block;

	list_for_each_entry (block, &vres->blocks, struct drm_buddy_block, link)
		if (!drm_buddy_block_is_clear(block))
			return false;
	return true;
}

void ttm_buddy_resource_set_cleared(struct ttm_resource *res)
{
	to_ttm_buddy_resource(res)->flags |= DRM_BUDDY_CLEARED;
}

/* True when any block overlaps the window (@all: every block inside it). */
static bool ttm_buddy_blocks_in(struct ttm_buddy_manager *bman, struct ttm_buddy_resource *vres,
				uint64_t fpfn, uint64_t lpfn, bool all)
{
	struct drm_buddy_block *block;

	list_for_each_entry (block, &vres->blocks, struct drm_buddy_block, link) {
		uint64_t s = drm_buddy_block_offset(block) >> TTM_PAGE_SHIFT;
		uint64_t e = s + (drm_buddy_block_size(&bman->mm, block) >> TTM_PAGE_SHIFT);
		bool inside = s >= fpfn && e <= lpfn;
		bool overlaps = s < lpfn && e > fpfn;

		if (all && !inside)
			return false;
		if (!all && overlaps)
			return true;
	}
	return all;
}

/*
 * One run in list order, as the kernel's amdgpu_is_vram_mgr_blocks_contiguous():
 * a resource's bytes are its blocks in list order, so blocks that cover one
 * run of addresses in another order still scatter it.
 */
static bool ttm_buddy_contiguous(struct ttm_buddy_manager *bman, struct ttm_buddy_resource *vres)
{
	struct drm_buddy_block *block;
	uint64_t expect = UINT64_MAX;

	list_for_each_entry (block, &vres->blocks, struct drm_buddy_block, link) {
		if (expect != UINT64_MAX && drm_buddy_block_offset(block) != expect)
			return false;
		expect = drm_buddy_block_offset(block) + drm_buddy_block_size(&bman->mm, block);
	}
	return true;
}

static bool ttm_buddy_man_intersects(struct ttm_resource_manager *man, struct ttm_resource *res,
				     const struct ttm_place *place, uint64_t size)
{
	struct ttm_buddy_manager *bman = to_ttm_buddy_manager(man);
	uint64_t fpfn, lpfn;

	(void)size;
	ttm_buddy_window(bman, place, &fpfn, &lpfn);
	return ttm_buddy_blocks_in(bman, to_ttm_buddy_resource(res), fpfn, lpfn, false);
}

static bool ttm_buddy_man_compatible(struct ttm_resource_manager *man, struct ttm_resource *res,
				     const struct ttm_place *place, uint64_t size)
{
	struct ttm_buddy_manager *bman = to_ttm_buddy_manager(man);
	struct ttm_buddy_resource *vres = to_ttm_buddy_resource(res);
	uint64_t fpfn, lpfn;

	(void)size;
	ttm_buddy_window(bman, place, &fpfn, &lpfn);
	if ((place->flags & TTM_PL_FLAG_CONTIGUOUS) && !ttm_buddy_contiguous(bman, vres))
		return false;
	return ttm_buddy_blocks_in(bman, vres, fpfn, lpfn, true);
}

/*
 * Resource bytes are the blocks in list order; a walk per call is fine
 * because copies ask once per block, not once per page.
 */
static uint64_t ttm_buddy_man_io_segment(struct ttm_resource_manager *man, struct ttm_resource *res,
					 uint64_t offset, uint64_t *len)
{
	struct ttm_buddy_manager *bman = to_ttm_buddy_manager(man);
	struct ttm_buddy_resource *vres = to_ttm_buddy_resource(res);
	uint64_t base = res->start << TTM_PAGE_SHIFT, pos = 0;
	struct drm_buddy_block *block;

	list_for_each_entry (block, &vres->blocks, struct drm_buddy_block, link) {
		uint64_t sz = drm_buddy_block_size(&bman->mm, block);

		if (offset < pos + sz) {
			*len = pos + sz - offset;
			return drm_buddy_block_offset(block) - base + (offset - pos);
		}
		pos += sz;
	}
	*len = 0;
	return 0;
}

static void ttm_buddy_man_debug(struct ttm_resource_manager *man, FILE *f)
{
	struct ttm_buddy_manager *bman = to_ttm_buddy_manager(man);

	fprintf(f, "  visible_size: %llu pages\n", (unsigned long long)bman->visible_size);
	pthread_mutex_lock(&bman->lock);
	drm_buddy_print(&bman->mm, f);
	pthread_mutex_unlock(&bman->lock);
}

static const struct ttm_resource_manager_func ttm_buddy_manager_func = {
    .alloc = ttm_buddy_man_alloc,
    .free = ttm_buddy_man_free,
    .intersects = ttm_buddy_man_intersects,
    .compatible = ttm_buddy_man_compatible,
    .io_segment = ttm_buddy_man_io_segment,
    .debug = ttm_buddy_man_debug,
};

int ttm_buddy_manager_init(struct ttm_buddy_manager *bman, uint64_t p_size, uint64_t visible_pages,
			   uint64_t chunk_size)
{
	int ret;

	if (!p_size || p_size > (UINT64_MAX >> TTM_PAGE_SHIFT))
		return -EINVAL;
	if (!chunk_size)
		chunk_size = TTM_PAGE_SIZE;
	ret = drm_buddy_init(&bman->mm, p_size << TTM_PAGE_SHIFT, chunk_size);
	if (ret)
		return ret;
	/* The buddy rounds down to whole chunks: manage only what it covers. */
	p_size = bman->mm.size >> TTM_PAGE_SHIFT;
	ret = ttm_resource_manager_init(&bman->manager, &ttm_buddy_manager_func, p_size);
	if (ret) {
		drm_buddy_fini(&bman->mm);
		return ret;
	}
	pthread_mutex_init(&bman->lock, NULL);
	bman->chunk_size = chunk_size;
	bman->want_cleared = NULL;
	bman->visible_size = visible_pages && visible_pages < p_size ? visible_pages : p_size;
	bman->manager.use_type = true;
	return 0;
}

int ttm_buddy_manager_fini(struct ttm_buddy_manager *bman)
{
	int ret = ttm_resource_manager_fini(&bman->manager);

	if (ret)
		return ret;
	drm_buddy_fini(&bman->mm);
	pthread_mutex_destroy(&bman->lock);
	return 0;
}
