/* SPDX-License-Identifier: MIT */
/*
 * i915_ggtt: the global GTT as a TTM memory type (TTM_PL_TT). Its address
 * space is managed by a range manager over the whole GGTT; the low
 * aperture_size bytes are the CPU-mappable part, so a place with
 * TTM_PL_FLAG_MAPPABLE is clamped to [fpfn, min(lpfn, aperture pages)) before
 * the range manager sees it, and one without it may land anywhere (TOPDOWN
 * keeps the aperture free for those that need it).
 *
 * Binding writes one PTE per page through the back end; unbinding clears
 * them. A resource of this manager is only address space: whoever binds it
 * decides what the PTEs point at (tt pages, stolen or lmem offsets).
 *
 * Locking: the range manager serialises allocation; PTE writes of disjoint
 * ranges may run concurrently (the back end serialises the table).
 */
#ifndef I915_GGTT_H
#define I915_GGTT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_range_manager.h>
#include <ttm/ttm_resource.h>

struct i915_backend;
struct ttm_buddy_manager;

/**
 * struct i915_ggtt - caller-embedded GGTT address space.
 * @rman: the range manager; &@rman.manager is the TTM_PL_TT manager.
 * @range_func: the range manager's own ops, which ours wrap.
 * @be: the back end whose page table this is.
 * @size: GGTT bytes.
 * @mappable_end: aperture bytes (the CPU-mappable prefix).
 * @pte_writes: PTEs written or cleared since init; atomic.
 */
struct i915_ggtt {
	struct ttm_range_manager rman;
	const struct ttm_resource_manager_func *range_func;
	struct i915_backend *be;
	uint64_t size;
	uint64_t mappable_end;
	atomic_ulong pte_writes;
};

/**
 * i915_ggtt_init() - manage the GGTT of a back end (a range manager over it).
 * @ggtt: caller-embedded, initialised here.
 * @be: the back end whose GGTT it is; sizes come from its facts.
 *
 * Return: 0; -EINVAL (empty GGTT, aperture larger than the GGTT); -ENOMEM.
 */
int i915_ggtt_init(struct i915_ggtt *ggtt, struct i915_backend *be);

/**
 * i915_ggtt_fini() - tear down what i915_ggtt_init() set up.
 * @ggtt: the GGTT.
 *
 * Return: 0; -EBUSY while ranges are allocated (nothing torn down).
 */
int i915_ggtt_fini(struct i915_ggtt *ggtt);

static inline struct ttm_resource_manager *i915_ggtt_manager(struct i915_ggtt *ggtt)
{
	return &ggtt->rman.manager;
}

/** i915_ggtt_offset() - GGTT byte address of a TT resource. */
static inline uint64_t i915_ggtt_offset(const struct ttm_resource *res)
{
	return res->start << TTM_PAGE_SHIFT;
}

/**
 * i915_ggtt_bind_host() - point GGTT entries at host pages.
 * @ggtt: the GGTT.
 * @first: first GGTT page.
 * @pages: @count host pages, each 4 KiB aligned and kept alive by the
 *	caller while bound.
 * @count: entries to write.
 *
 * Return: 0; -EINVAL (range outside the GGTT, NULL page); -EOPNOTSUPP (a back
 * end that owns its GGTT: hw).
 */
int i915_ggtt_bind_host(struct i915_ggtt *ggtt, uint64_t first, void *const *pages, uint64_t count);

/**
 * i915_ggtt_bind_linear() - point GGTT entries at a contiguous run of
 * stolen or device-local memory.
 * @ggtt: the GGTT.
 * @first: first GGTT page.
 * @lmem: true: device-local memory; false: stolen memory.
 * @offset: byte offset of the run in that memory.
 * @count: entries (pages) to write.
 *
 * Return: 0; -EINVAL (range outside the GGTT or the memory).
 */
int i915_ggtt_bind_linear(struct i915_ggtt *ggtt, uint64_t first, bool lmem, uint64_t offset,
			  uint64_t count);

/**
 * i915_ggtt_bind_lmem() - point GGTT entries at the pages of a device-local
 * resource, block by block, in order.
 * @ggtt: the GGTT.
 * @first: first GGTT page.
 * @lmem: the buddy manager of device-local memory.
 * @lmem_res: a resource of @lmem.
 *
 * Return: 0; -EINVAL.
 */
int i915_ggtt_bind_lmem(struct i915_ggtt *ggtt, uint64_t first,
			const struct ttm_buddy_manager *lmem, const struct ttm_resource *lmem_res);

/**
 * i915_ggtt_unbind() - mark GGTT entries not present.
 * @ggtt: the GGTT.
 * @first: first GGTT page.
 * @count: entries to clear.
 *
 * Return: 0; -EINVAL (range outside the GGTT); -EOPNOTSUPP (a back end that
 * owns its GGTT).
 */
int i915_ggtt_unbind(struct i915_ggtt *ggtt, uint64_t first, uint64_t count);

/**
 * i915_ggtt_read_pte() - read one GGTT entry, for tests and dumps.
 * @ggtt: the GGTT.
 * @index: GGTT page.
 *
 * Return: the entry (the back end's encoding), 0 beyond the GGTT or where
 * the back end owns the GGTT.
 */
uint64_t i915_ggtt_read_pte(struct i915_ggtt *ggtt, uint64_t index);

/** i915_ggtt_mappable_pages() - pages of the CPU-mappable aperture. */
static inline uint64_t i915_ggtt_mappable_pages(const struct i915_ggtt *ggtt)
{
	return ggtt->mappable_end >> TTM_PAGE_SHIFT;
}

#endif /* I915_GGTT_H */
