// SPDX-License-Identifier: MIT
/* ttm_range_manager: resources as drm_mm nodes, in pages. */
#include <errno.h>
#include <stdlib.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_range_manager.h>

static struct ttm_range_mgr_node *to_range_node(struct ttm_resource *res)
{
	return container_of(res, struct ttm_range_mgr_node, base);
}

static int ttm_range_man_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
			       const struct ttm_place *place, uint64_t size,
			       uint64_t page_alignment, struct ttm_resource **res)
{
	struct ttm_range_manager *rman = to_ttm_range_manager(man);
	enum drm_mm_insert_mode mode = DRM_MM_INSERT_BEST;
	uint64_t lpfn = place->lpfn ? place->lpfn : man->size;
	uint64_t pages = size >> TTM_PAGE_SHIFT;
	struct ttm_range_mgr_node *node;
	int ret;

	if (lpfn > man->size)
		lpfn = man->size;
	if (place->fpfn >= lpfn || pages > lpfn - place->fpfn)
		return -ENOSPC;
	if (place->flags & TTM_PL_FLAG_TOPDOWN)
		mode = DRM_MM_INSERT_HIGH;
	node = fault_should_fail(&ttm_fault_resource_alloc, sizeof(*node))
		   ? NULL
		   : calloc(1, sizeof(*node));
	if (!node)
		return -ENOMEM;
	ttm_lock(&rman->lock);
	ret = drm_mm_insert_node_in_range(&rman->mm, &node->mm_node, pages,
					  page_alignment > 1 ? page_alignment : 0, 0, place->fpfn,
					  lpfn, mode);
	ttm_unlock(&rman->lock);
	if (ret) {
		free(node);
		return ret;
	}
	ttm_resource_init(man, bo, place, size, &node->base);
	/* One drm_mm node is always one run of pages. */
	node->base.placement |= TTM_PL_FLAG_CONTIGUOUS;
	node->base.start = node->mm_node.start;
	*res = &node->base;
	return 0;
}

static void ttm_range_man_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	struct ttm_range_manager *rman = to_ttm_range_manager(man);
	struct ttm_range_mgr_node *node = to_range_node(res);

	ttm_lock(&rman->lock);
	drm_mm_remove_node(&rman->mm, &node->mm_node);
	ttm_unlock(&rman->lock);
	ttm_resource_fini(man, res);
	free(node);
}

static bool ttm_range_man_intersects(struct ttm_resource_manager *man, struct ttm_resource *res,
				     const struct ttm_place *place, uint64_t size)
{
	uint64_t lpfn = place->lpfn ? place->lpfn : man->size;
	uint64_t end = res->start + (res->size >> TTM_PAGE_SHIFT);

	(void)size;
	return res->start < lpfn && end > place->fpfn;
}

/* Exported for ttm_resource_place_compatible(), which answers it inline. */
bool ttm_range_man_compatible(struct ttm_resource_manager *man, struct ttm_resource *res,
			      const struct ttm_place *place, uint64_t size)
{
	uint64_t lpfn = place->lpfn ? place->lpfn : man->size;
	uint64_t end = res->start + (size >> TTM_PAGE_SHIFT);

	return res->start >= place->fpfn && end <= lpfn;
}

static void ttm_range_man_debug(struct ttm_resource_manager *man, FILE *f)
{
	struct ttm_range_manager *rman = to_ttm_range_manager(man);

	ttm_lock(&rman->lock);
	drm_mm_print(&rman->mm, f);
	ttm_unlock(&rman->lock);
}

static const struct ttm_resource_manager_func ttm_range_manager_func = {
    .alloc = ttm_range_man_alloc,
    .free = ttm_range_man_free,
    .intersects = ttm_range_man_intersects,
    .compatible = ttm_range_man_compatible,
    .debug = ttm_range_man_debug,
};

int ttm_range_manager_init(struct ttm_range_manager *rman, bool use_tt, uint64_t p_size)
{
	int ret;

	if (!p_size)
		return -EINVAL;
	ret = drm_mm_init(&rman->mm, 0, p_size);
	if (ret)
		return ret;
	ret = ttm_resource_manager_init(&rman->manager, &ttm_range_manager_func, p_size);
	if (ret) {
		drm_mm_takedown(&rman->mm);
		return ret;
	}
	ttm_lock_init(&rman->lock);
	rman->manager.use_tt = use_tt;
	rman->manager.use_type = true;
	return 0;
}

int ttm_range_manager_fini(struct ttm_range_manager *rman)
{
	int ret = ttm_resource_manager_fini(&rman->manager);

	if (ret)
		return ret;
	drm_mm_takedown(&rman->mm);
	return 0;
}
