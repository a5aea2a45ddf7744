// SPDX-License-Identifier: MIT
/* i915_ggtt: GGTT address space over a range manager, PTE writes on bind. */
#include <errno.h>

#include <ttm/drm_buddy.h>
#include <ttm/ttm_buddy_manager.h>

#include <i915/i915_ggtt.h>

#include "i915_backend.h"

/* PTEs are written in batches of this many so a bind needs no allocation. */
#define I915_PTE_BATCH 256

static struct i915_ggtt *to_ggtt(struct ttm_resource_manager *man)
{
	return container_of(to_ttm_range_manager(man), struct i915_ggtt, rman);
}

/*
 * The range manager knows nothing about the aperture: MAPPABLE becomes an
 * upper bound on the page window here, so validate, eviction and the
 * compatibility check all see the same clamped place.
 */
static struct ttm_place i915_ggtt_clamp(const struct i915_ggtt *ggtt, const struct ttm_place *place)
{
	struct ttm_place p = *place;
	uint64_t end = i915_ggtt_mappable_pages(ggtt);

	if (p.flags & TTM_PL_FLAG_MAPPABLE) {
		if (!p.lpfn || p.lpfn > end)
			p.lpfn = (uint32_t)end;
		/* An empty window must not read as "to the end" (lpfn 0). */
		if (!p.lpfn)
			p.fpfn = p.lpfn = 1;
	}
	return p;
}

static int i915_ggtt_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
			   const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
			   struct ttm_resource **res)
{
	struct i915_ggtt *ggtt = to_ggtt(man);
	struct ttm_place p = i915_ggtt_clamp(ggtt, place);

	return ggtt->range_func->alloc(man, bo, &p, size, page_alignment, res);
}

static void i915_ggtt_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	to_ggtt(man)->range_func->free(man, res);
}

/*
 * The range manager under the GGTT implements both range checks, so these
 * only clamp the place; its own page-window tests decide.
 */
static bool i915_ggtt_intersects(struct ttm_resource_manager *man, struct ttm_resource *res,
				 const struct ttm_place *place, uint64_t size)
{
	struct i915_ggtt *ggtt = to_ggtt(man);
	struct ttm_place p = i915_ggtt_clamp(ggtt, place);

	return ggtt->range_func->intersects(man, res, &p, size);
}

static bool i915_ggtt_compatible(struct ttm_resource_manager *man, struct ttm_resource *res,
				 const struct ttm_place *place, uint64_t size)
{
	struct i915_ggtt *ggtt = to_ggtt(man);
	struct ttm_place p = i915_ggtt_clamp(ggtt, place);

	return ggtt->range_func->compatible(man, res, &p, size);
}

static void i915_ggtt_debug(struct ttm_resource_manager *man, FILE *f)
{
	struct i915_ggtt *ggtt = to_ggtt(man);

	fprintf(f, "  ggtt: %llu KiB, aperture %llu KiB, %lu PTE writes\n",
		(unsigned long long)(ggtt->size >> 10),
		(unsigned long long)(ggtt->mappable_end >> 10),
		(unsigned long)atomic_load(&ggtt->pte_writes));
	if (ggtt->range_func->debug)
		ggtt->range_func->debug(man, f);
}

static const struct ttm_resource_manager_func i915_ggtt_func = {
    .alloc = i915_ggtt_alloc,
    .free = i915_ggtt_free,
    .intersects = i915_ggtt_intersects,
    .compatible = i915_ggtt_compatible,
    .debug = i915_ggtt_debug,
};

int i915_ggtt_init(struct i915_ggtt *ggtt, struct i915_backend *be)
{
	int ret;

	if (!be || !be->ggtt_size || be->aperture_size > be->ggtt_size)
		return -EINVAL;
	ggtt->be = be;
	ggtt->size = be->ggtt_size;
	ggtt->mappable_end = be->aperture_size;
	atomic_init(&ggtt->pte_writes, 0);
	/* The GGTT maps tt pages, so TT resources come with a tt. */
	ret = ttm_range_manager_init(&ggtt->rman, true, ggtt->size >> TTM_PAGE_SHIFT);
	if (ret)
		return ret;
	ggtt->range_func = ggtt->rman.manager.func;
	ggtt->rman.manager.func = &i915_ggtt_func;
	return 0;
}

int i915_ggtt_fini(struct i915_ggtt *ggtt)
{
	int ret;

	/* The range manager's fini must find its own table. */
	ggtt->rman.manager.func = ggtt->range_func;
	ret = ttm_range_manager_fini(&ggtt->rman);
	if (ret)
		ggtt->rman.manager.func = &i915_ggtt_func;
	return ret;
}

static bool i915_ggtt_range_ok(const struct i915_ggtt *ggtt, uint64_t first, uint64_t count)
{
	uint64_t pages = ggtt->size >> TTM_PAGE_SHIFT;

	return first <= pages && count <= pages - first;
}

/*
 * Write @count PTEs of @kind from GGTT page @first on, in batches: page i
 * maps @pages[i] when @pages is given, else @offset + i pages (a linear
 * range). Arguments are checked by the callers. Return: 0; the back end's
 * insert error (the PTEs of earlier batches stay written).
 */
static int i915_ggtt_write_ptes(struct i915_ggtt *ggtt, uint64_t first, uint64_t count,
				enum i915_pte_kind kind, void *const *pages, uint64_t offset)
{
	uint64_t ptes[I915_PTE_BATCH];
	uint64_t done = 0;
	int ret;

	if (!ggtt->be->ops->ggtt_insert)
		return -EOPNOTSUPP; /* the device owns its GGTT */
	while (done < count) {
		uint64_t n = count - done < I915_PTE_BATCH ? count - done : I915_PTE_BATCH;

		for (uint64_t i = 0; i < n; i++) {
			uint64_t addr = pages ? (uintptr_t)pages[done + i]
					      : offset + ((done + i) << TTM_PAGE_SHIFT);

			ptes[i] = ggtt->be->ops->pte_encode(ggtt->be, kind, addr);
		}
		ret = ggtt->be->ops->ggtt_insert(ggtt->be, first + done, ptes, n);
		if (ret)
			return ret;
		done += n;
	}
	atomic_fetch_add(&ggtt->pte_writes, count);
	return 0;
}

int i915_ggtt_bind_host(struct i915_ggtt *ggtt, uint64_t first, void *const *pages, uint64_t count)
{
	if (!i915_ggtt_range_ok(ggtt, first, count) || (count && !pages))
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++)
		if (!pages[i] || ((uintptr_t)pages[i] & (TTM_PAGE_SIZE - 1)))
			return -EINVAL;
	return i915_ggtt_write_ptes(ggtt, first, count, I915_PTE_HOST, pages, 0);
}

int i915_ggtt_bind_linear(struct i915_ggtt *ggtt, uint64_t first, bool lmem, uint64_t offset,
			  uint64_t count)
{
	enum i915_pte_kind kind = lmem ? I915_PTE_LMEM : I915_PTE_STOLEN;
	uint64_t limit = lmem ? ggtt->be->lmem_size : ggtt->be->stolen_size;

	if (!i915_ggtt_range_ok(ggtt, first, count) || (offset & (TTM_PAGE_SIZE - 1)) ||
	    offset > limit || count > (limit - offset) >> TTM_PAGE_SHIFT)
		return -EINVAL;
	return i915_ggtt_write_ptes(ggtt, first, count, kind, NULL, offset);
}

int i915_ggtt_bind_lmem(struct i915_ggtt *ggtt, uint64_t first,
			const struct ttm_buddy_manager *lmem, const struct ttm_resource *lmem_res)
{
	struct ttm_buddy_resource *bres;
	struct drm_buddy_block *block;
	uint64_t pages, at = first;
	int ret;

	if (!lmem || !lmem_res || lmem_res->mem_type != TTM_PL_VRAM)
		return -EINVAL;
	pages = lmem_res->size >> TTM_PAGE_SHIFT;
	if (!i915_ggtt_range_ok(ggtt, first, pages))
		return -EINVAL;
	bres = to_ttm_buddy_resource((struct ttm_resource *)lmem_res);
	list_for_each_entry (block, &bres->blocks, struct drm_buddy_block, link) {
		uint64_t off = drm_buddy_block_offset(block);
		uint64_t n = drm_buddy_block_size(&lmem->mm, block) >> TTM_PAGE_SHIFT;

		/* The last block may be larger than the rounded-up resource. */
		if (n > first + pages - at)
			n = first + pages - at;
		ret = i915_ggtt_bind_linear(ggtt, at, true, off, n);
		if (ret)
			return ret;
		at += n;
		if (at == first + pages)
			break;
	}
	return at == first + pages ? 0 : -EINVAL;
}

int i915_ggtt_unbind(struct i915_ggtt *ggtt, uint64_t first, uint64_t count)
{
	int ret;

	if (!i915_ggtt_range_ok(ggtt, first, count))
		return -EINVAL;
	if (!ggtt->be->ops->ggtt_clear)
		return -EOPNOTSUPP;
	ret = ggtt->be->ops->ggtt_clear(ggtt->be, first, count);
	if (!ret)
		atomic_fetch_add(&ggtt->pte_writes, count);
	return ret;
}

uint64_t i915_ggtt_read_pte(struct i915_ggtt *ggtt, uint64_t index)
{
	if (!ggtt->be->ops->ggtt_read_pte)
		return 0;
	return ggtt->be->ops->ggtt_read_pte(ggtt->be, index);
}
