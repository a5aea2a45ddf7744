// SPDX-License-Identifier: MIT
/*
 * i915_gem: the driver's ttm_device_funcs (binding, eviction targets,
 * blitter moves) and GEM objects; execbuffer is i915_gem_execbuffer.c.
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

static void i915_gem_object_release(struct ttm_buffer_object *bo);

static struct i915_device *to_i915(struct ttm_device *bdev)
{
	return container_of(bdev, struct i915_device, drm.bdev);
}

/* Our objects only: ghosts and other BOs of the device are plain TTM BOs. */
static struct i915_gem_object *to_obj(struct ttm_buffer_object *bo)
{
	return bo->destroy == i915_gem_object_release
		   ? container_of(bo, struct i915_gem_object, base)
		   : NULL;
}

bool i915_is_tt_type(uint32_t mem_type)
{
	return mem_type == TTM_PL_SYSTEM || mem_type == TTM_PL_TT;
}

/* Point the TT range @res at the pages of @tt. */
int i915_ggtt_bind_tt(struct i915_device *i915, struct ttm_resource *res, struct ttm_tt *tt)
{
	uint64_t pages = res->size >> TTM_PAGE_SHIFT;

	if (!tt || !ttm_tt_is_populated(tt) || tt->num_pages < pages)
		return -EINVAL;
	return i915_ggtt_bind_host(&i915->ggtt, res->start, tt->pages, pages);
}

static void i915_ggtt_unbind_res(struct i915_device *i915, struct ttm_resource *res)
{
	i915_ggtt_unbind(&i915->ggtt, res->start, res->size >> TTM_PAGE_SHIFT);
}

/*
 * A GGTT range over a VRAM or stolen resource, so the GPU (which reaches
 * everything through the GGTT) can address it. @place says where.
 */
int i915_map_local(struct i915_device *i915, struct ttm_resource *res,
		   const struct ttm_place *place, struct ttm_resource **out)
{
	struct ttm_resource_manager *man = i915_ggtt_manager(&i915->ggtt);
	struct ttm_resource *range;
	int ret;

	ret = ttm_resource_alloc(man, NULL, place, res->size, 0, &range);
	if (ret)
		return ret;
	if (res->mem_type == TTM_PL_VRAM)
		ret = i915_ggtt_bind_lmem(&i915->ggtt, range->start, &i915->lmem, res);
	else if (res->mem_type == I915_PL_STOLEN)
		ret = i915_ggtt_bind_linear(&i915->ggtt, range->start, false,
					    res->start << TTM_PAGE_SHIFT,
					    res->size >> TTM_PAGE_SHIFT);
	else
		ret = -EINVAL;
	if (ret) {
		ttm_resource_free(man, &range);
		return ret;
	}
	*out = range;
	return 0;
}

static void i915_unmap_local(struct i915_device *i915, struct ttm_resource **range)
{
	if (!*range)
		return;
	i915_ggtt_unbind_res(i915, *range);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), range);
}

void i915_gem_object_drop_vma(struct i915_gem_object *obj)
{
	i915_unmap_local(obj->i915, &obj->vma);
}

/*
 * Wait for @bo's fences of @usage (DMA_RESV_USAGE_WRITE: the writers only,
 * as a reader must; BOOKKEEP: all) of other timelines than @context: an
 * engine runs its own requests in order, so work queued on it needs no CPU
 * wait for them. Return: 0; -EBUSY (@no_wait, one is pending); -EINTR (@intr).
 */
int i915_bo_await_foreign(struct ttm_buffer_object *bo, enum dma_resv_usage usage, uint64_t context,
			  bool intr, bool no_wait)
{
	struct dma_fence *f;
	unsigned int i;

	for (;;) {
		struct dma_fence *wait = NULL;

		dma_resv_for_each_fence (bo->resv, usage, i, f) {
			if (f->context != context && !dma_fence_is_signaled(f)) {
				wait = dma_fence_get(f);
				break;
			}
		}
		if (!wait)
			return 0;
		if (no_wait || dma_fence_wait(wait, intr)) {
			dma_fence_put(wait);
			return no_wait ? -EBUSY : -EINTR;
		}
		dma_fence_put(wait);
	}
}

/* --- ttm_device_funcs --- */

static const struct ttm_place i915_sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place i915_tt_hop = {.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_TOPDOWN};

/*
 * System pages of an object that may live in device-local or stolen memory
 * are write-combined (its CPU view must not depend on snooping once it moves
 * there, as on discrete parts); plain system objects are cached (the LLC
 * snoops GPU accesses on integrated parts). uAPI and kernel BOs are cached.
 */
static enum ttm_caching i915_ttm_tt_caching(struct ttm_buffer_object *bo)
{
	struct i915_gem_object *obj = to_obj(bo);

	if (obj && obj->region != I915_GEM_REGION_SMEM)
		return ttm_write_combined;
	return ttm_cached;
}

static struct ttm_tt *i915_ttm_tt_create(struct ttm_buffer_object *bo, uint32_t page_flags)
{
	struct ttm_tt *tt;

	tt = fault_should_fail(&i915_fault_tt_create, sizeof(*tt)) ? NULL : calloc(1, sizeof(*tt));
	if (!tt)
		return NULL;
	if (ttm_tt_init(tt, bo->size, page_flags, i915_ttm_tt_caching(bo), 0)) {
		free(tt);
		return NULL;
	}
	return tt;
}

static void i915_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(&bdev->pool, tt);
	free(tt);
}

/*
 * Stolen memory is reachable only by the GPU: an object there leaves by
 * blitter or not at all. While the blitter is wedged, evicting it would fail
 * with -EIO after the victim was chosen, so it is not a candidate and
 * eviction looks for others (an lmem object can still go by the CPU through
 * the visible window or fail the same way the move would). Otherwise the
 * range manager decides whether the victim's range helps @place.
 */
static bool i915_ttm_eviction_valuable(struct ttm_buffer_object *bo, const struct ttm_place *place)
{
	struct i915_device *i915 = to_i915(bo->bdev);
	struct ttm_resource *res = bo->resource;
	struct ttm_resource_manager *man = ttm_manager_type(bo->bdev, res->mem_type);

	if (!man)
		return false;
	if (res->mem_type == I915_PL_STOLEN &&
	    atomic_load(&i915_engine_get(i915, I915_ENGINE_BCS)->wedged))
		return false;
	return ttm_resource_intersects(man, res, place, res->size);
}

/*
 * lmem and stolen content goes to TT while the GGTT has room in the part
 * kept for it (i915_gem_init()), else to SYSTEM: an eviction into TT is one
 * pipelined blit, and the BO's way back is one blit without a bind, where
 * SYSTEM costs a wait for the copy into the TT hop, an unbind, and a bind
 * on the way back (radeon and amdgpu evict VRAM to GTT the same way). TT
 * content goes to SYSTEM: the GGTT is only a window.
 */
static void i915_ttm_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	struct i915_device *i915 = to_i915(bo->bdev);
	uint32_t from = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;

	if (!i915_is_tt_type(from) && i915->evict_places[0].lpfn) {
		placement->num_placement = 2;
		placement->placement = i915->evict_places;
		return;
	}
	placement->num_placement = 1;
	placement->placement = &i915_sys_place;
}

/*
 * A pending move fence of lmem or stolen is a blit on the BCS; @bo's move
 * into the range it frees is a blit on the same engine when @bo is not in
 * SYSTEM (from there it first binds into a TT hop, which waits), so it runs
 * after that copy without a CPU wait (i915_ttm_move()).
 */
static bool i915_ttm_move_orders_after(struct ttm_buffer_object *bo, struct dma_fence *fence)
{
	struct i915_device *i915 = to_i915(bo->bdev);

	return bo->resource && bo->resource->mem_type != TTM_PL_SYSTEM &&
	       fence->context == i915_engine_get(i915, I915_ENGINE_BCS)->fence_context;
}

void i915_blit_unmap_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct i915_blit_unmap *u = container_of(cb, struct i915_blit_unmap, cb);

	(void)fence;
	i915_unmap_local(u->i915, &u->range[0]);
	i915_unmap_local(u->i915, &u->range[1]);
	free(u);
}

/*
 * One blit between the old and new resource of @bo; at least one side is
 * VRAM or stolen, neither is SYSTEM. TT sides are addressed through their
 * own (bound) range, local sides through a temporary one.
 */
static int i915_ttm_blit_move(struct i915_device *i915, struct ttm_buffer_object *bo,
			      struct ttm_resource *new_mem, struct dma_fence **fence,
			      struct i915_blit_unmap **unmap)
{
	struct ttm_resource *old = bo->resource;
	struct i915_gem_object *obj = to_obj(bo);
	struct i915_blit_unmap *u;
	uint64_t src, dst;
	int ret;

	u = fault_should_fail(&i915_fault_move_alloc, sizeof(*u)) ? NULL : calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->i915 = i915;
	if (old->mem_type == TTM_PL_TT) {
		/* An object's bound range already points at its pages. */
		ret = obj && obj->ggtt_bound ? 0 : i915_ggtt_bind_tt(i915, old, bo->ttm);
		src = i915_ggtt_offset(old);
	} else {
		ret = i915_map_local(i915, old, &i915_tt_hop, &u->range[0]);
		src = ret ? 0 : i915_ggtt_offset(u->range[0]);
	}
	if (ret)
		goto err;
	if (new_mem->mem_type == TTM_PL_TT) {
		ret = i915_ggtt_bind_tt(i915, new_mem, bo->ttm);
		dst = i915_ggtt_offset(new_mem);
	} else {
		ret = i915_map_local(i915, new_mem, &i915_tt_hop, &u->range[1]);
		dst = ret ? 0 : i915_ggtt_offset(u->range[1]);
	}
	if (ret)
		goto err;
	ret = i915_blt_copy(i915, NULL, dst, src, bo->size, fence);
	if (ret)
		goto err;
	*unmap = u;
	return 0;
err:
	i915_unmap_local(i915, &u->range[0]);
	i915_unmap_local(i915, &u->range[1]);
	free(u);
	return ret;
}

/*
 * A BO the uAPI created (struct ttm_drm_bo) moving between SYSTEM and TT:
 * it keeps no driver state, so a TT resource of it is bound whenever it
 * exists and execbuffer rebinds it after a swap-out. Its moves into or out
 * of lmem and stolen memory (which the uAPI offers through the driver's
 * mem_types) take the blitter path of i915_ttm_move(), as objects do.
 */
static int i915_ttm_move_plain(struct i915_device *i915, struct ttm_buffer_object *bo,
			       struct ttm_operation_ctx *ctx, struct ttm_resource *new_mem)
{
	struct ttm_resource *old = bo->resource;
	uint32_t from = old ? old->mem_type : TTM_PL_SYSTEM;
	int ret;

	if (!i915_is_tt_type(from) || !i915_is_tt_type(new_mem->mem_type))
		return ttm_bo_move_memcpy(bo, ctx, new_mem);
	ret = ttm_bo_wait_ctx(bo, ctx);
	if (ret)
		return ret;
	if (new_mem->mem_type == TTM_PL_TT) {
		ret = ttm_bo_populate(bo, ctx);
		if (!ret)
			ret = i915_ggtt_bind_tt(i915, new_mem, bo->ttm);
		if (ret)
			return ret;
	}
	if (from == TTM_PL_TT)
		i915_ggtt_unbind_res(i915, old);
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

static int i915_ttm_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct i915_device *i915 = to_i915(bo->bdev);
	struct i915_gem_object *obj = to_obj(bo);
	struct ttm_resource *old = bo->resource;
	uint32_t from = old ? old->mem_type : TTM_PL_SYSTEM;
	uint32_t to = new_mem->mem_type;
	struct i915_blit_unmap *unmap = NULL;
	struct dma_fence *fence = NULL;
	int ret;

	/*
	 * No ppGTT entry may outlive the pages it points at: unbind from every
	 * VM first, once the requests that used the bindings are done.
	 */
	ret = i915_vm_unbind_bo(i915, bo, false, ctx->no_wait_gpu);
	if (ret)
		return ret;
	if (!obj && i915_is_tt_type(from) && i915_is_tt_type(to))
		return i915_ttm_move_plain(i915, bo, ctx, new_mem);
	/*
	 * The GPU may still use the old place through the GGTT. A blit queues
	 * behind the BCS's own work on the BO (an eviction copy out of the
	 * range it is about to fill included: i915_ttm_move_orders_after());
	 * every other path, the CPU fallback too, waits for all of it.
	 */
	if (old && from != TTM_PL_SYSTEM && to != TTM_PL_SYSTEM &&
	    !(i915_is_tt_type(from) && i915_is_tt_type(to)))
		ret = i915_bo_await_foreign(bo, DMA_RESV_USAGE_BOOKKEEP,
					    i915_engine_get(i915, I915_ENGINE_BCS)->fence_context,
					    ctx->interruptible, ctx->no_wait_gpu);
	else
		ret = ttm_bo_wait_ctx(bo, ctx);
	if (ret)
		return ret;

	if (i915_is_tt_type(from) && i915_is_tt_type(to)) {
		/* Same pages, other binding: PTE writes only, as for a GART. */
		if (to == TTM_PL_TT) {
			ret = i915_ggtt_bind_tt(i915, new_mem, bo->ttm);
			if (ret)
				return ret;
		}
		if (from == TTM_PL_TT && obj->ggtt_bound)
			i915_ggtt_unbind_res(i915, old);
		i915_gem_object_drop_vma(obj);
		obj->ggtt_bound = to == TTM_PL_TT;
		ttm_bo_move_null(bo, new_mem);
		return 0;
	}
	if (!old) {
		/*
		 * A new object in lmem/stolen: cleared by the blitter, pipelined
		 * as the kernel's i915_ttm_move(): the clear's fence is the move
		 * fence (KERNEL usage), which every CPU access, execbuffer and
		 * later move of the object waits for; nobody waits here.
		 */
		unmap = fault_should_fail(&i915_fault_move_alloc, sizeof(*unmap))
			    ? NULL
			    : calloc(1, sizeof(*unmap));
		if (!unmap)
			return -ENOMEM;
		unmap->i915 = i915;
		ret = i915_map_local(i915, new_mem, &i915_tt_hop, &unmap->range[0]);
		if (!ret)
			ret = i915_blt_clear(i915, NULL, i915_ggtt_offset(unmap->range[0]),
					     bo->size, &fence);
		if (!ret && dma_resv_reserve_fences(bo->resv, 1)) {
			/* No slot to publish the fence in: wait for the clear. */
			dma_fence_wait(fence, false);
			ret = dma_fence_get_status(fence) < 0 ? -EIO : 0;
			dma_fence_put(fence);
			fence = NULL;
		}
		if (!fence) {
			i915_unmap_local(i915, &unmap->range[0]);
			free(unmap);
			if (ret)
				return ttm_bo_move_memcpy(bo, ctx, new_mem);
			ttm_bo_move_null(bo, new_mem);
			return 0;
		}
		dma_resv_add_fence(bo->resv, fence, DMA_RESV_USAGE_KERNEL);
		if (dma_fence_add_callback(fence, &unmap->cb, i915_blit_unmap_cb))
			i915_blit_unmap_cb(fence, &unmap->cb);
		dma_fence_put(fence);
		ttm_bo_move_null(bo, new_mem);
		return 0;
	}
	if (from == TTM_PL_SYSTEM || to == TTM_PL_SYSTEM) {
		/* The blitter needs both sides in the GGTT: bounce through TT. */
		*hop = i915_tt_hop;
		atomic_fetch_add(&i915->gem_stats.multihops, 1);
		return -EMULTIHOP;
	}

	ret = i915_ttm_blit_move(i915, bo, new_mem, &fence, &unmap);
	if (ret) {
		/*
		 * Blitter unavailable: the CPU copies what it can reach, once
		 * the BCS work the blit would have queued behind is done
		 * (ttm_bo_move_memcpy() waits for every fence).
		 */
		ret = ttm_bo_move_memcpy(bo, ctx, new_mem);
		if (ret)
			return ret;
		atomic_fetch_add(&i915->gem_stats.memcpy_moves, 1);
		if (obj) {
			i915_gem_object_drop_vma(obj);
			obj->ggtt_bound = false;
		}
		if (to == TTM_PL_TT && !i915_ggtt_bind_tt(i915, new_mem, bo->ttm) && obj)
			obj->ggtt_bound = true;
		return 0;
	}
	if (obj)
		i915_gem_object_drop_vma(obj);
	ret = ttm_bo_move_accel_cleanup(bo, fence, evict, true, new_mem);
	if (dma_fence_add_callback(fence, &unmap->cb, i915_blit_unmap_cb))
		i915_blit_unmap_cb(fence, &unmap->cb);
	if (ret) {
		/*
		 * The copy failed (engine reset): the core kept the BO where
		 * it was, content intact.
		 */
		dma_fence_put(fence);
		return ret;
	}
	/*
	 * Pipelined for every BO: a CPU fault that migrated the BO waits for
	 * the KERNEL fence just attached before it installs pages (ttm_bo_vm).
	 */
	dma_fence_put(fence);
	atomic_fetch_add(&i915->gem_stats.blit_moves, 1);
	ctx->bytes_copied += bo->size;
	if (obj)
		obj->ggtt_bound = to == TTM_PL_TT;
	return 0;
}

static void i915_ttm_delete_mem_notify(struct ttm_buffer_object *bo)
{
	struct i915_device *i915 = to_i915(bo->bdev);
	struct i915_gem_object *obj = to_obj(bo);

	/* The resource goes (the object dies, or is gutted): its vmas go too. */
	i915_vm_unbind_bo(i915, bo, true, false);
	if (obj) {
		i915_gem_object_drop_vma(obj);
		if (bo->resource && bo->resource->mem_type == TTM_PL_TT && obj->ggtt_bound)
			i915_ggtt_unbind_res(i915, bo->resource);
		obj->ggtt_bound = false;
	} else if (bo->resource && bo->resource->mem_type == TTM_PL_TT) {
		/* A ghost holding an old GGTT range: its PTEs go with it. */
		i915_ggtt_unbind_res(i915, bo->resource);
	}
}

static void i915_ttm_swap_notify(struct ttm_buffer_object *bo)
{
	struct i915_gem_object *obj = to_obj(bo);

	/* The pages go to shmem: no PTE may keep pointing at them. */
	i915_vm_unbind_bo(to_i915(bo->bdev), bo, false, false);
	if (!bo->resource || bo->resource->mem_type != TTM_PL_TT)
		return;
	if (!obj)
		i915_ggtt_unbind_res(to_i915(bo->bdev), bo->resource);
	else if (obj->ggtt_bound)
		i915_ggtt_unbind_res(obj->i915, bo->resource);
	if (obj)
		obj->ggtt_bound = false;
}

static int i915_ttm_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	switch (res->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		return 0;
	case TTM_PL_VRAM:
		return i915_io_mem_reserve(to_i915(bdev), res);
	default:
		return -EINVAL; /* stolen: only the GPU reaches it */
	}
}

static void i915_ttm_io_mem_free(struct ttm_device *bdev, struct ttm_resource *res)
{
	(void)bdev;
	res->bus.addr = NULL;
}

static const struct ttm_device_funcs i915_ttm_funcs = {
    .ttm_tt_create = i915_ttm_tt_create,
    .ttm_tt_destroy = i915_ttm_tt_destroy,
    .eviction_valuable = i915_ttm_eviction_valuable,
    .evict_flags = i915_ttm_evict_flags,
    .move = i915_ttm_move,
    .delete_mem_notify = i915_ttm_delete_mem_notify,
    .swap_notify = i915_ttm_swap_notify,
    .io_mem_reserve = i915_ttm_io_mem_reserve,
    .io_mem_free = i915_ttm_io_mem_free,
    .move_orders_after = i915_ttm_move_orders_after,
};

/*
 * Evictions out of lmem and stolen go to TT above the aperture (kept for
 * CPU views) and below the top quarter of the GGTT, which stays for the
 * TOPDOWN users: TT hops, the temporary windows of blits over lmem and
 * stolen, and execbuffer's objects. A GGTT with no such part evicts to
 * SYSTEM only.
 */
static void i915_gem_init_evict_places(struct i915_device *i915)
{
	uint64_t pages = i915_ggtt_manager(&i915->ggtt)->size;
	uint64_t first = i915_ggtt_mappable_pages(&i915->ggtt), last = pages - pages / 4;

	memset(i915->evict_places, 0, sizeof(i915->evict_places));
	i915->evict_places[1].mem_type = TTM_PL_SYSTEM;
	if (first + 1 >= last || last > UINT32_MAX)
		return;
	i915->evict_places[0].mem_type = TTM_PL_TT;
	i915->evict_places[0].fpfn = (uint32_t)first;
	i915->evict_places[0].lpfn = (uint32_t)last;
}

/* Register (@on) or unregister the driver's memory types. */
static int i915_gem_set_managers(struct i915_device *i915, bool on)
{
	struct ttm_device *bdev = &i915->drm.bdev;
	int ret;

	if (!on) {
		ttm_set_driver_manager(bdev, TTM_PL_TT, NULL);
		ttm_set_driver_manager(bdev, I915_PL_STOLEN, NULL);
		ttm_set_driver_manager(bdev, TTM_PL_VRAM, NULL);
		return 0;
	}
	ret = ttm_set_driver_manager(bdev, TTM_PL_TT, i915_ggtt_manager(&i915->ggtt));
	if (!ret && i915->has_stolen)
		ret = ttm_set_driver_manager(bdev, I915_PL_STOLEN, &i915->stolen.manager);
	if (!ret && i915->has_lmem)
		ret = ttm_set_driver_manager(bdev, TTM_PL_VRAM, &i915->lmem.manager);
	return ret;
}

int i915_gem_init(struct i915_device *i915)
{
	static atomic_uint next_minor;
	char name[TTM_DRM_NAME_LEN];
	int ret;

	if (!i915 || i915->gem_ready)
		return -EINVAL;
	/* drmOpen() finds devices by name: each probe gets its own. */
	snprintf(name, sizeof(name), "i915-%u", atomic_fetch_add(&next_minor, 1));
	ret = ttm_drm_device_init(&i915->drm, &i915_ttm_funcs, &i915_drm_driver, name, false);
	if (ret)
		return ret;
	i915_vm_registry_init(i915);
	i915_gem_init_evict_places(i915);
	ret = i915_gem_set_managers(i915, true);
	/*
	 * A GPU that does not snoop the CPU cache (a back-end fact) sees what
	 * the CPU wrote through a cached mapping only after execbuffer's flush:
	 * the core models that cache for this device.
	 */
	if (!ret && !i915->be->gpu_snoops)
		ret = ttm_bo_vm_set_cpu_cache(&i915->drm.bdev, true);
	if (ret) {
		i915_gem_set_managers(i915, false);
		ttm_drm_device_fini(&i915->drm);
		i915_vm_registry_fini(i915);
		return ret;
	}
	i915->gem_ready = true;
	return 0;
}

int i915_gem_fini(struct i915_device *i915)
{
	struct ttm_device *bdev;
	int ret;

	if (!i915 || !i915->gem_ready)
		return -EINVAL;
	bdev = &i915->drm.bdev;
	ttm_device_flush_delayed(bdev, true);
	if (atomic_load(&bdev->stats.bo_count) || atomic_load(&i915->vm_count))
		return -EBUSY;
	i915_gem_set_managers(i915, false);
	ret = ttm_drm_device_fini(&i915->drm);
	if (ret) {
		/* Clients still open: keep the device whole. */
		i915_gem_set_managers(i915, true);
		return ret;
	}
	ttm_bo_vm_set_cpu_cache(bdev, false);
	i915_vm_registry_fini(i915);
	i915->gem_ready = false;
	return 0;
}

/* --- objects --- */

static void i915_gem_object_release(struct ttm_buffer_object *bo)
{
	free(container_of(bo, struct i915_gem_object, base));
}

static int i915_region_mem_type(struct i915_device *i915, enum i915_gem_region region,
				uint32_t *mem_type)
{
	switch (region) {
	case I915_GEM_REGION_SMEM:
		*mem_type = TTM_PL_SYSTEM;
		return 0;
	case I915_GEM_REGION_LMEM:
		*mem_type = TTM_PL_VRAM;
		return i915->has_lmem ? 0 : -EINVAL;
	case I915_GEM_REGION_STOLEN:
		*mem_type = I915_PL_STOLEN;
		return i915->has_stolen ? 0 : -EINVAL;
	}
	return -EINVAL;
}

int i915_gem_object_create(struct i915_device *i915, uint64_t size, enum i915_gem_region region,
			   struct i915_gem_object **out)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	struct ttm_place place = {0};
	struct ttm_placement placement = {1, &place};
	struct i915_gem_object *obj;
	int ret;

	if (!i915 || !out || !i915->gem_ready || !size || size % TTM_PAGE_SIZE)
		return -EINVAL;
	ret = i915_region_mem_type(i915, region, &place.mem_type);
	if (ret)
		return ret;
	obj =
	    fault_should_fail(&i915_fault_obj_alloc, sizeof(*obj)) ? NULL : calloc(1, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	obj->i915 = i915;
	obj->region = region;
	/* On failure the core has called the release already. */
	ret = ttm_bo_init_validate(&i915->drm.bdev, &obj->base, size, ttm_bo_type_device,
				   &placement, 0, &ctx, NULL, i915_gem_object_release);
	if (ret)
		return ret;
	*out = obj;
	return 0;
}

void i915_gem_object_put(struct i915_gem_object *obj)
{
	if (obj)
		ttm_bo_put(&obj->base);
}

int i915_gem_object_access(struct i915_gem_object *obj, uint64_t offset, void *buf, size_t len,
			   bool write)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	int ret;

	ret = ttm_bo_reserve(&obj->base, false, false, NULL);
	if (ret)
		return ret;
	ret = ttm_bo_access(&obj->base, offset, buf, len, write, &ctx);
	ttm_bo_unreserve(&obj->base);
	return ret;
}

int i915_gem_object_migrate(struct i915_gem_object *obj, enum i915_gem_region region)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	struct ttm_place place = {0};
	struct ttm_placement placement = {1, &place};
	int ret;

	ret = i915_region_mem_type(obj->i915, region, &place.mem_type);
	if (ret)
		return ret;
	ret = ttm_bo_reserve(&obj->base, false, false, NULL);
	if (ret)
		return ret;
	ret = ttm_bo_validate(&obj->base, &placement, &ctx);
	ttm_bo_unreserve(&obj->base);
	return ret;
}

unsigned int i915_gem_object_mem_type(struct i915_gem_object *obj)
{
	struct ttm_resource *res = obj->base.resource;

	return res ? res->mem_type : TTM_NUM_MEM_TYPES;
}

int i915_gem_object_wait(struct i915_gem_object *obj)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};

	return ttm_bo_wait_ctx(&obj->base, &ctx);
}
