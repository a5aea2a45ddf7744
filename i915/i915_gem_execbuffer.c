// SPDX-License-Identifier: MIT
/*
 * i915_gem_execbuffer: i915_gem_execbuffer(): reserve every object under one
 * ww ticket, validate and place each (GGTT or the context's VM, softpin or
 * presumed offset), apply relocations, wait for foreign writers, submit, and
 * add the request's fence to every object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <i915/i915_faults.h>
#include <i915/i915_gem.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_trace.h>

#include "i915_backend.h"
#include "i915_priv.h"

/* The BO of an execbuffer entry: an i915 object or a uAPI buffer. */
static struct ttm_buffer_object *eb_bo(const struct i915_exec_object *eo)
{
	return eo->obj ? &eo->obj->base : eo->bo;
}

static bool eb_ranges_overlap(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return a < b + bs && b < a + as;
}

/* The engine the ring bits of @flags name, NULL when the part has none. */
static struct i915_engine *eb_ring_engine(struct i915_device *i915, uint32_t flags)
{
	switch (flags & I915_EXEC_RING_MASK) {
	case 0:
	case I915_EXEC_RENDER:
		return i915_engine_get(i915, I915_ENGINE_RCS);
	case I915_EXEC_BLT:
		return i915_engine_get(i915, I915_ENGINE_BCS);
	case I915_EXEC_BSD:
		return i915_engine_lookup(i915, I915_ENGINE_CLASS_ID_VIDEO, 0);
	case I915_EXEC_VEBOX:
		return i915_engine_lookup(i915, I915_ENGINE_CLASS_ID_VIDEO_ENHANCE, 0);
	default:
		return NULL;
	}
}

/*
 * Every check that needs no lock, so a bad call changes nothing. @vm: the
 * context's VM, whose softpin rules replace the GGTT's.
 */
static int eb_check_args(struct i915_device *i915, const struct i915_execbuffer *eb,
			 unsigned int batch_idx, const struct i915_address_space *vm)
{
	const struct i915_exec_object *batch;

	if (!eb->count || !eb->objects || (eb->flags & ~I915_EXEC_FLAGS_MASK))
		return -EINVAL;
	if (eb->engine && (eb->engine->i915 != i915 || !eb->engine->present))
		return -EINVAL;
	if (!eb->engine && !eb_ring_engine(i915, eb->flags))
		return -EINVAL;
	for (unsigned int i = 0; i < eb->count; i++) {
		const struct i915_exec_object *eo = &eb->objects[i];
		uint64_t size;

		const struct ttm_buffer_object *bo = eb_bo(eo);

		if (!bo || (eo->obj && eo->bo) || bo->bdev != &i915->drm.bdev ||
		    (eo->flags & ~EXEC_OBJECT_FLAGS_MASK) || (eo->nreloc && !eo->relocs))
			return -EINVAL;
		size = bo->size;
		if ((eo->flags & EXEC_OBJECT_PINNED) && vm) {
			uint64_t start = i915_vm_noncanonical(eo->offset);
			uint64_t end =
			    (eo->flags & EXEC_OBJECT_SUPPORTS_48B_ADDRESS) ? vm->total : I915_VM_4G;

			/* i915_gem_execbuffer.c eb_validate_vma() and i915_vma_insert(). */
			if (eo->offset !=
				i915_vm_canonical(eo->offset & ~(uint64_t)(TTM_PAGE_SIZE - 1)) ||
			    size > end || start > end - size)
				return -EINVAL;
		} else if (eo->flags & EXEC_OBJECT_PINNED) {
			/* Page 0 is the device's guard page, never an object's. */
			if ((eo->offset & (TTM_PAGE_SIZE - 1)) || !eo->offset ||
			    eo->offset > i915->ggtt.size || size > i915->ggtt.size - eo->offset)
				return -EINVAL;
		}
		for (unsigned int r = 0; r < eo->nreloc; r++) {
			const struct i915_exec_reloc *rel = &eo->relocs[r];

			if (rel->target >= eb->count || (rel->offset & 3) || rel->offset > size ||
			    size - rel->offset < (rel->flags & I915_EXEC_RELOC_32 ? 4u : 8u) ||
			    (rel->flags & ~I915_EXEC_RELOC_32))
				return -EINVAL;
			if ((rel->write_domain & (rel->write_domain - 1)) ||
			    ((rel->read_domains | rel->write_domain) & ~I915_GEM_DOMAIN_MASK))
				return -EINVAL;
		}
	}
	batch = &eb->objects[batch_idx];
	if ((eb->batch_start_offset & 7) || eb->batch_start_offset >= eb_bo(batch)->size ||
	    eb->batch_len > eb_bo(batch)->size - eb->batch_start_offset)
		return -EINVAL;
	return 0;
}

static int eb_cmp_bo(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)eb_bo(*(const struct i915_exec_object *const *)a);
	uintptr_t y = (uintptr_t)eb_bo(*(const struct i915_exec_object *const *)b);

	return x < y ? -1 : x > y;
}

static int eb_cmp_offset(const void *a, const void *b)
{
	uint64_t x = (*(const struct i915_exec_object *const *)a)->offset;
	uint64_t y = (*(const struct i915_exec_object *const *)b)->offset;

	return x < y ? -1 : x > y;
}

/*
 * No object listed twice and no two softpinned ranges overlapping, the rest
 * of eb_check_args() (no lock taken yet either). Sorted, so neighbours tell:
 * objects by address, then the pinned ones by offset (ranges sorted by start
 * that overlap at all overlap a neighbour). Every pair compared, a 256-object
 * list cost 1.7x per object what a 16-object one did (benchmark-validate,
 * execbuf.per_bo). @order: eb->count entries of scratch.
 */
static int eb_check_unique(const struct i915_execbuffer *eb, const struct i915_exec_object **order)
{
	unsigned int pinned = 0;

	for (unsigned int i = 0; i < eb->count; i++)
		order[i] = &eb->objects[i];
	qsort(order, eb->count, sizeof(*order), eb_cmp_bo);
	for (unsigned int i = 1; i < eb->count; i++)
		if (eb_bo(order[i]) == eb_bo(order[i - 1]))
			return -EINVAL;
	for (unsigned int i = 0; i < eb->count; i++)
		if (eb->objects[i].flags & EXEC_OBJECT_PINNED)
			order[pinned++] = &eb->objects[i];
	qsort(order, pinned, sizeof(*order), eb_cmp_offset);
	for (unsigned int i = 1; i < pinned; i++)
		if (eb_ranges_overlap(order[i - 1]->offset, eb_bo(order[i - 1])->size,
				      order[i]->offset, eb_bo(order[i])->size))
			return -EINVAL;
	return 0;
}

static void eb_unreserve(struct i915_execbuffer *eb, bool *locked, bool *pinned)
{
	for (unsigned int i = 0; i < eb->count; i++) {
		struct ttm_buffer_object *bo = eb_bo(&eb->objects[i]);

		if (pinned[i]) {
			ttm_bo_unpin(bo);
			pinned[i] = false;
		}
		if (locked[i]) {
			ttm_bo_unreserve(bo);
			locked[i] = false;
		}
	}
}

/* Lock every object under @ticket, backing off on -EDEADLK. */
static int eb_reserve_all(struct i915_device *i915, struct i915_execbuffer *eb,
			  struct ww_acquire_ctx *ticket, bool *locked, bool *pinned)
{
	for (unsigned int i = 0; i < eb->count; i++) {
		struct ttm_buffer_object *bo = eb_bo(&eb->objects[i]);
		int ret;

		if (locked[i])
			continue;
		ret = ttm_bo_reserve(bo, true, false, ticket);
		if (ret == -EDEADLK) {
			/* An older transaction holds it: drop all, wait for it, restart. */
			atomic_fetch_add(&i915->gem_stats.eb_backoffs, 1);
			eb_unreserve(eb, locked, pinned);
			ret = ttm_bo_reserve_slowpath(bo, true, ticket);
			if (ret)
				return ret;
			locked[i] = true;
			i = (unsigned int)-1; /* the loop's ++ makes it 0 */
			continue;
		}
		if (ret) {
			eb_unreserve(eb, locked, pinned);
			return ret;
		}
		locked[i] = true;
	}
	return 0;
}

/*
 * A uAPI buffer in lmem or stolen memory: a GGTT range over it for this call
 * only, in *@local until the call's request completes (the buffer cannot
 * move before: it carries the request's fence), then released by
 * i915_blit_unmap_cb() like a blit's ranges.
 */
static int eb_plain_local_address(struct i915_device *i915, const struct i915_exec_object *eo,
				  struct ttm_resource *res, struct i915_blit_unmap **local,
				  uint64_t *addr)
{
	struct ttm_place place = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};
	struct i915_blit_unmap *u;
	int ret;

	if (eo->flags & EXEC_OBJECT_PINNED) {
		place.fpfn = (uint32_t)(eo->offset >> TTM_PAGE_SHIFT);
		place.lpfn = place.fpfn + (uint32_t)(res->size >> TTM_PAGE_SHIFT);
	} else if (eo->flags & EXEC_OBJECT_NEEDS_MAPPABLE) {
		place.flags = TTM_PL_FLAG_MAPPABLE;
	}
	u = fault_should_fail(&i915_fault_exec_alloc, sizeof(*u)) ? NULL : calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->i915 = i915;
	ret = i915_map_local(i915, res, &place, &u->range[0]);
	if (ret) {
		free(u);
		return ret == -ENOSPC && (eo->flags & EXEC_OBJECT_PINNED) ? -EINVAL : ret;
	}
	*local = u;
	*addr = i915_ggtt_offset(u->range[0]);
	return 0;
}

/* Release the per-call GGTT ranges of eb_plain_local_address() now. */
static void eb_drop_local(struct i915_blit_unmap **local, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++) {
		if (local[i])
			i915_blit_unmap_cb(NULL, &local[i]->cb);
		local[i] = NULL;
	}
}

/* The GPU address of a reserved, validated object (binding as needed). */
static int eb_object_address(struct i915_device *i915, struct i915_exec_object *eo,
			     struct ttm_operation_ctx *ctx, struct i915_blit_unmap **local,
			     uint64_t *addr)
{
	struct i915_gem_object *obj = eo->obj;
	struct ttm_buffer_object *bo = eb_bo(eo);
	struct ttm_resource *res = bo->resource;
	int ret;

	if (!res)
		return -EINVAL;
	if (!obj) {
		if (res->mem_type == TTM_PL_VRAM || res->mem_type == I915_PL_STOLEN)
			return eb_plain_local_address(i915, eo, res, local, addr);
		/* uAPI buffers keep no binding state: rebind (cheap PTE writes). */
		if (res->mem_type != TTM_PL_TT)
			return -EINVAL;
		ret = ttm_bo_populate(bo, ctx);
		if (!ret)
			ret = i915_ggtt_bind_tt(i915, res, bo->ttm);
		if (ret)
			return ret;
		*addr = i915_ggtt_offset(res);
		return 0;
	}
	if (res->mem_type == TTM_PL_TT) {
		if (!obj->ggtt_bound) {
			/* Swapped out while in TT: pages first, then the PTEs again. */
			ret = ttm_bo_populate(bo, ctx);
			if (!ret)
				ret = i915_ggtt_bind_tt(i915, res, bo->ttm);
			if (ret)
				return ret;
			obj->ggtt_bound = true;
		}
		*addr = i915_ggtt_offset(res);
		return 0;
	}
	if (res->mem_type == TTM_PL_VRAM || res->mem_type == I915_PL_STOLEN) {
		struct ttm_place place = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};

		if (eo->flags & EXEC_OBJECT_PINNED) {
			place.fpfn = (uint32_t)(eo->offset >> TTM_PAGE_SHIFT);
			place.lpfn = place.fpfn + (uint32_t)(bo->size >> TTM_PAGE_SHIFT);
			if (obj->vma && obj->vma->start != place.fpfn)
				i915_gem_object_drop_vma(obj);
		} else if (eo->flags & EXEC_OBJECT_NEEDS_MAPPABLE) {
			place.flags = TTM_PL_FLAG_MAPPABLE;
			if (obj->vma &&
			    !ttm_resource_compatible(i915_ggtt_manager(&i915->ggtt), obj->vma,
						     &(struct ttm_placement){1, &place}, false))
				i915_gem_object_drop_vma(obj);
		}
		if (!obj->vma) {
			ret = i915_map_local(i915, res, &place, &obj->vma);
			/* As in eb_validate_one(): only "no room" is the address's fault. */
			if (ret == -ENOSPC && (eo->flags & EXEC_OBJECT_PINNED))
				return -EINVAL;
			if (ret)
				return ret;
		}
		*addr = i915_ggtt_offset(obj->vma);
		return 0;
	}
	return -EINVAL;
}

static int eb_validate_one(struct i915_device *i915, struct i915_exec_object *eo,
			   struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *bo = eb_bo(eo);
	struct ttm_place place = {.mem_type = TTM_PL_TT};
	struct ttm_placement placement = {1, &place};
	int ret;

	/* A uAPI buffer in lmem or stolen runs where it is. */
	if (!eo->obj && bo->resource && !i915_is_tt_type(bo->resource->mem_type)) {
		place.mem_type = bo->resource->mem_type;
		return ttm_bo_validate(bo, &placement, ctx);
	}
	switch (eo->obj ? eo->obj->region : I915_GEM_REGION_SMEM) {
	case I915_GEM_REGION_LMEM:
		place.mem_type = TTM_PL_VRAM;
		break;
	case I915_GEM_REGION_STOLEN:
		place.mem_type = I915_PL_STOLEN;
		break;
	case I915_GEM_REGION_SMEM:
		if (eo->flags & EXEC_OBJECT_PINNED) {
			place.fpfn = (uint32_t)(eo->offset >> TTM_PAGE_SHIFT);
			place.lpfn = place.fpfn + (uint32_t)(bo->size >> TTM_PAGE_SHIFT);
		} else if (eo->flags & EXEC_OBJECT_NEEDS_MAPPABLE) {
			place.flags = TTM_PL_FLAG_MAPPABLE;
		} else {
			/* Keep the aperture for those who need the CPU view. */
			place.flags = TTM_PL_FLAG_TOPDOWN;
		}
		break;
	}
	/*
	 * No room even after eviction (-ENOSPC) at a softpinned address means
	 * the range is held by what cannot move: the caller's address is
	 * wrong, -EINVAL, as i915 answers a softpin over a pinned object of
	 * the same batch. A failed allocation stays -ENOMEM, so userspace can
	 * tell the two apart; without softpin "no room" keeps validate's
	 * backward-compatible -ENOMEM.
	 */
	ret = ttm_bo_validate_nospc(bo, &placement, ctx);
	if (ret == -ENOSPC)
		return (eo->flags & EXEC_OBJECT_PINNED) ? -EINVAL : -ENOMEM;
	return ret;
}

/*
 * An object of an execbuffer in a VM: validated where the GPU reaches it
 * without the GGTT (an object already in one such place stays), its pages
 * present, and bound into @vm (pinned there in *@vma) at its softpin
 * address or a free one. *@addr: its canonical VM address.
 */
static int eb_validate_vm(struct i915_address_space *vm, struct i915_exec_object *eo,
			  struct ttm_operation_ctx *ctx, struct i915_vma **vma, uint64_t *addr)
{
	struct ttm_buffer_object *bo = eb_bo(eo);
	struct ttm_place places[2] = {{.mem_type = TTM_PL_SYSTEM}, {.mem_type = TTM_PL_TT}};
	struct ttm_placement placement = {2, places};
	uint64_t offset = eo->offset;
	int ret;

	if (!eo->obj && bo->resource && !i915_is_tt_type(bo->resource->mem_type)) {
		places[0].mem_type = bo->resource->mem_type;
		placement.num_placement = 1;
	} else if (eo->obj && eo->obj->region == I915_GEM_REGION_LMEM) {
		places[0].mem_type = TTM_PL_VRAM;
		placement.num_placement = 1;
	} else if (eo->obj && eo->obj->region == I915_GEM_REGION_STOLEN) {
		places[0].mem_type = I915_PL_STOLEN;
		placement.num_placement = 1;
	}
	/* The address is the VM's business: no room here is no memory. */
	ret = ttm_bo_validate_nospc(bo, &placement, ctx);
	if (ret == -ENOSPC)
		return -ENOMEM;
	if (ret)
		return ret;
	if (i915_is_tt_type(bo->resource->mem_type)) {
		ret = ttm_bo_populate(bo, ctx);
		if (ret)
			return ret;
	}
	ret =
	    i915_vm_bind(vm, bo, &offset, eo->flags & EXEC_OBJECT_PINNED,
			 !(eo->flags & EXEC_OBJECT_SUPPORTS_48B_ADDRESS), ctx->interruptible, vma);
	if (ret)
		return ret;
	*addr = i915_vm_canonical(offset);
	return 0;
}

/* End this call's use of the vmas; @fence (may be NULL) is their last use. */
static void eb_unpin_vmas(struct i915_vma **vmas, unsigned int count, struct dma_fence *fence)
{
	if (!vmas)
		return;
	for (unsigned int i = 0; i < count; i++) {
		i915_vma_unpin(vmas[i], fence);
		vmas[i] = NULL;
	}
}

static int eb_relocate(struct i915_device *i915, struct i915_execbuffer *eb, const uint64_t *addr,
		       struct ttm_operation_ctx *ctx)
{
	for (unsigned int i = 0; i < eb->count; i++) {
		struct i915_exec_object *eo = &eb->objects[i];

		for (unsigned int r = 0; r < eo->nreloc; r++) {
			struct i915_exec_reloc *rel = &eo->relocs[r];
			uint64_t target = addr[rel->target];
			uint64_t value = target + rel->delta;
			int ret;

			if (rel->presumed_offset == target) {
				atomic_fetch_add(&i915->gem_stats.relocs_skipped, 1);
				continue;
			}
			if (rel->flags & I915_EXEC_RELOC_32) {
				uint32_t low = (uint32_t)value;

				ret = ttm_bo_access(eb_bo(eo), rel->offset, &low, sizeof(low), true,
						    ctx);
			} else {
				ret = ttm_bo_access(eb_bo(eo), rel->offset, &value, sizeof(value),
						    true, ctx);
			}
			if (ret)
				return ret;
			rel->presumed_offset = target;
			atomic_fetch_add(&i915->gem_stats.relocs_written, 1);
		}
	}
	return 0;
}

/*
 * The per-object scratch arrays of one execbuffer of @n objects, zeroed, in
 * one block that starts at *@addr (free(*@addr) releases all): @n GPU
 * addresses, local mappings, ordered objects, vmas, then 3 * @n flags
 * (reserved, pinned, written) at *@flags.
 * Return: 0; -ENOMEM (nothing allocated).
 */
static int eb_alloc_arrays(unsigned int n, uint64_t **addr, struct i915_blit_unmap ***local,
			   const struct i915_exec_object ***order, struct i915_vma ***vmas,
			   bool **flags)
{
	size_t words = sizeof(**addr) + sizeof(**local) + sizeof(**order) + sizeof(**vmas);
	char *p;

	if (fault_should_fail(&i915_fault_exec_alloc, n) || n > SIZE_MAX / (words + 3))
		return -ENOMEM;
	p = calloc(n, words + 3 * sizeof(**flags));
	if (!p)
		return -ENOMEM;
	*addr = (uint64_t *)p;
	p += n * sizeof(**addr);
	*local = (struct i915_blit_unmap **)p;
	p += n * sizeof(**local);
	*order = (const struct i915_exec_object **)p;
	p += n * sizeof(**order);
	*vmas = (struct i915_vma **)p;
	p += n * sizeof(**vmas);
	*flags = (bool *)p;
	return 0;
}

int i915_gem_execbuffer(struct i915_device *i915, struct i915_execbuffer *eb)
{
	struct ww_acquire_ctx ticket;
	struct ttm_operation_ctx ctx = {.interruptible = true, .ticket = &ticket};
	struct i915_engine *engine;
	unsigned int batch_idx, tries = 0;
	struct dma_fence *fence = NULL;
	bool *locked = NULL, *pinned = NULL, *written = NULL;
	struct i915_blit_unmap **local = NULL;
	const struct i915_exec_object **order = NULL;
	struct i915_address_space *vm = NULL;
	struct i915_vma **vmas = NULL;
	uint64_t *addr = NULL;
	int ret;

	if (!i915 || !eb || !i915->gem_ready)
		return -EINVAL;
	eb->out_fence = NULL;
	if (!eb->count)
		return -EINVAL;
	batch_idx = (eb->flags & I915_EXEC_BATCH_FIRST) ? 0 : eb->count - 1;
	/* Ours for the call, whatever CONTEXT_SETPARAM does meanwhile. */
	vm = i915_context_get_vm(eb->ctx);
	ret = eb_check_args(i915, eb, batch_idx, vm);
	if (ret) {
		i915_vm_put(vm);
		return ret;
	}
	engine = eb->engine ? eb->engine : eb_ring_engine(i915, eb->flags);
	ret = eb_alloc_arrays(eb->count, &addr, &local, &order, &vmas, &locked);
	if (ret)
		goto out_free;
	pinned = locked + eb->count;
	written = pinned + eb->count;
	if (!vm)
		vmas = NULL;
	ret = eb_check_unique(eb, order);
	if (ret)
		goto out_free;
	for (unsigned int i = 0; i < eb->count; i++) {
		const struct i915_exec_object *eo = &eb->objects[i];

		written[i] |= !!(eo->flags & EXEC_OBJECT_WRITE);
		for (unsigned int r = 0; r < eo->nreloc; r++)
			if (eo->relocs[r].write_domain)
				written[eo->relocs[r].target] = true;
	}

	ww_acquire_init(&ticket, &reservation_ww_class);
retry:
	ret = eb_reserve_all(i915, eb, &ticket, locked, pinned);
	if (ret)
		goto out_ticket;
	/* Fixed addresses first, so movable objects cannot take them. */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		for (unsigned int i = 0; i < eb->count; i++) {
			struct i915_exec_object *eo = &eb->objects[i];

			if (!!(eo->flags & EXEC_OBJECT_PINNED) != (pass == 0))
				continue;
			if (vm) {
				ret = eb_validate_vm(vm, eo, &ctx, &vmas[i], &addr[i]);
			} else {
				ret = eb_validate_one(i915, eo, &ctx);
				if (!ret)
					ret =
					    eb_object_address(i915, eo, &ctx, &local[i], &addr[i]);
			}
			if (ret)
				break;
			/* Validating the next object must not evict this one. */
			ttm_bo_pin(eb_bo(eo));
			pinned[i] = true;
		}
	}
	if (ret == -EDEADLK && ++tries < 64) {
		/* Evicting under our ticket met an older transaction. */
		atomic_fetch_add(&i915->gem_stats.eb_backoffs, 1);
		eb_unreserve(eb, locked, pinned);
		eb_unpin_vmas(vmas, eb->count, NULL);
		/* Unreserved, the buffers may move: their ranges are made again. */
		eb_drop_local(local, eb->count);
		goto retry;
	}
	if (ret)
		goto out_unreserve;
	ww_acquire_done(&ticket);

	/*
	 * The CPU -> GPU domain transition: CPU writes still held in a
	 * mapping's page copies (the modelled CPU cache, io copies) reach the
	 * storage the GPU reads. It must precede the relocations: written back
	 * later, a stale copy of a batch page would undo what they patched.
	 */
	for (unsigned int i = 0; i < eb->count; i++)
		ttm_bo_vm_flush(eb_bo(&eb->objects[i]));

	/*
	 * NO_RELOC is the caller's promise that presumed offsets are right;
	 * checking each is cheap and keeps a wrong promise harmless.
	 */
	ret = eb_relocate(i915, eb, addr, &ctx);
	if (ret)
		goto out_unreserve;
	for (unsigned int i = 0; i < eb->count; i++) {
		struct ttm_buffer_object *bo = eb_bo(&eb->objects[i]);

		/*
		 * Implicit sync as the kernel's: a writer waits for every
		 * other user, a reader for the writers only (several engines
		 * may read one batch, igt's all-engine spinners do).
		 */
		ret = i915_bo_await_foreign(
		    bo, written[i] ? DMA_RESV_USAGE_BOOKKEEP : DMA_RESV_USAGE_WRITE,
		    engine->fence_context, true, false);
		if (!ret)
			ret = dma_resv_reserve_fences(bo->resv, 1);
		if (ret)
			goto out_unreserve;
	}
	if (vm)
		ret = i915_request_submit_batch(
		    engine, eb->ctx, i915_vm_noncanonical(addr[batch_idx]) + eb->batch_start_offset,
		    &fence);
	else
		ret = i915_request_submit(engine, eb->ctx, NULL, 0,
					  addr[batch_idx] + eb->batch_start_offset, &fence);
	if (ret)
		goto out_unreserve;
	TTM_PROBE3(execbuf_submit, fence->context, eb->count, fence->seqno);
	for (unsigned int i = 0; i < eb->count; i++) {
		struct i915_exec_object *eo = &eb->objects[i];

		/* A slot was reserved above: this cannot fail. */
		dma_resv_add_fence(eb_bo(eo)->resv, fence,
				   written[i] ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
		eo->offset = addr[i];
		if (local[i] && dma_fence_add_callback(fence, &local[i]->cb, i915_blit_unmap_cb))
			i915_blit_unmap_cb(fence, &local[i]->cb);
		local[i] = NULL;
	}
	eb->out_fence = fence;
out_unreserve:
	/* The request (when there is one) is each vma's last use. */
	eb_unpin_vmas(vmas, eb->count, eb->out_fence);
	eb_unreserve(eb, locked, pinned);
	/* Not submitted: no GPU access through the ranges will happen. */
	eb_drop_local(local, eb->count);
out_ticket:
	ww_acquire_fini(&ticket);
out_free:
	/* One block, starting at  (eb_alloc_arrays()). */
	free(addr);
	i915_vm_put(vm);
	return ret;
}
