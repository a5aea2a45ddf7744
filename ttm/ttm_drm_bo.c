// SPDX-License-Identifier: MIT
/*
 * ttm_drm_bo: the buffer objects of the 2008 TTM uAPI and their requests
 * (BO_CREATE, _MAP, _UNMAP, _REFERENCE, _UNREFERENCE, _SETSTATUS, _INFO,
 * _WAIT_IDLE, _VERSION), and the fd entry points that find a buffer by its
 * map handle. Each handler checks every field of its argument before it
 * changes anything: an unknown flag or hint bit, a nonzero pad, an unknown
 * or invisible handle (-EINVAL like a missing one), a memory type without a
 * manager, a zero or overflowing size or a page alignment that is not a
 * power of two are -EINVAL with no state changed. NO_EVICT needs no
 * privilege (there is no root in-process).
 *
 * Mapping: BO_MAP maps the buffer through ttm_bo_vm (one stable CPU range
 * per buffer, populated by faults, wherever the buffer lives). A mapped
 * buffer still moves: every move first removes all CPU views of it
 * (ttm_bo_unmap_virtual), so the next access faults and finds the buffer
 * at its new home with the same content. 2008 made such a validate wait
 * for the unmap; invalidation makes the wait unnecessary, and a mapping no
 * longer blocks eviction. ttm_drm_mmap() returns the range's address.
 * Memory the CPU cannot reach (stolen, device-local memory above the
 * CPU-visible window, as the driver's cpu_visible_pages hook says) is left
 * at the first fault: the buffer moves once to the visible window if there
 * is room, else to TT or LOCAL, and stays there for every later fault. The
 * CPU placement is built at every fault (ttm_bo_mmap_hooked(), the 2008
 * fault_reserve_notify) from the types that exist and are not locked then,
 * and the fault holds mm_lock for reading until it is done: a type MM_LOCK
 * takes after the first map is not a fault target, one MM_INIT creates or
 * MM_UNLOCK releases is, and MM_TAKEDOWN never removes a manager a fault
 * is using. LOCAL is always a target, so a fault never runs out of places;
 * ttm_drm_bo_map_stats() reports the counts.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/dma_resv.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>

#include "ttm_drm_priv.h"

#define TTM_DRM_BO_FLAGS                                                                           \
	(DRM_BO_MASK_ACCESS | DRM_BO_FLAG_NO_EVICT | DRM_BO_FLAG_MAPPABLE |                        \
	 DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_CACHED | DRM_BO_FLAG_NO_MOVE |                        \
	 DRM_BO_FLAG_FORCE_CACHING | DRM_BO_FLAG_FORCE_MAPPABLE | DRM_BO_FLAG_TILE |               \
	 DRM_BO_FLAG_CACHED_MAPPED | DRM_BO_MASK_MEM)
#define TTM_DRM_BO_HINTS                                                                           \
	(DRM_BO_HINT_DONT_BLOCK | DRM_BO_HINT_DONT_FENCE | DRM_BO_HINT_WAIT_LAZY |                 \
	 DRM_BO_HINT_PRESUMED_OFFSET)

/* Placement preference when a mask allows several types: fast memory first. */
static const unsigned ttm_drm_mem_order[] = {
    DRM_BO_MEM_VRAM,  DRM_BO_MEM_PRIV0, DRM_BO_MEM_PRIV1, DRM_BO_MEM_PRIV2,
    DRM_BO_MEM_PRIV3, DRM_BO_MEM_PRIV4, DRM_BO_MEM_TT,	  DRM_BO_MEM_LOCAL,
};

static void ttm_drm_bo_destroy(struct ttm_buffer_object *tbo)
{
	free(container_of(tbo, struct ttm_drm_bo, tbo));
}

static void ttm_drm_bo_obj_get(struct ttm_drm_object *obj)
{
	ttm_bo_get(&to_ttm_drm_bo(obj)->tbo);
}

static void ttm_drm_bo_obj_put(struct ttm_drm_object *obj)
{
	ttm_bo_put(&to_ttm_drm_bo(obj)->tbo);
}

/* No client holds the buffer: its NO_EVICT/NO_MOVE pin goes with them. */
static void ttm_drm_bo_obj_removed(struct ttm_drm_object *obj)
{
	struct ttm_drm_bo *dbo = to_ttm_drm_bo(obj);

	if (!ttm_bo_reserve(&dbo->tbo, false, false, NULL)) {
		if (dbo->flag_pinned) {
			ttm_bo_unpin(&dbo->tbo);
			dbo->flag_pinned = false;
		}
		ttm_bo_unreserve(&dbo->tbo);
	}
	/* The CPU range holds its own BO reference; no client can map it again. */
	ttm_bo_vm_release(&dbo->tbo);
	ttm_bo_put(&dbo->tbo);
}

static const struct ttm_drm_object_ops ttm_drm_bo_obj_ops = {
    .get = ttm_drm_bo_obj_get,
    .put = ttm_drm_bo_obj_put,
    .removed = ttm_drm_bo_obj_removed,
};

static uint64_t ttm_drm_mem_flag(unsigned mem_type)
{
	return DRM_BO_FLAG_MEM_LOCAL << mem_type;
}

/*
 * The manager of non-LOCAL @mem_type buffers may be placed in: one MM_INIT
 * created, or one the driver registered and declared in its @mem_types.
 * NULL when there is none. Caller holds mm_lock.
 */
static struct ttm_resource_manager *ttm_drm_mem_man(struct ttm_drm_device *ddev, unsigned mem_type)
{
	if (ddev->mem[mem_type].rman)
		return &ddev->mem[mem_type].rman->manager;
	if (ddev->driver->mem_types & (1u << mem_type))
		return ttm_manager_type(&ddev->bdev, mem_type);
	return NULL;
}

/* Pages of non-LOCAL @mem_type (0 without a manager). Caller holds mm_lock. */
static uint64_t ttm_drm_mem_pages(struct ttm_drm_device *ddev, unsigned mem_type)
{
	struct ttm_resource_manager *man = ttm_drm_mem_man(ddev, mem_type);

	if (ddev->mem[mem_type].rman)
		return ddev->mem[mem_type].p_size;
	return man ? man->size : 0;
}

/*
 * Check @flags (a full new flag set) and build the placement of its memory
 * bits in @places. Caller holds mm_lock (read or write).
 * Return: 0; -EINVAL (unknown bits, no memory bit, a type without a
 * manager); -EBUSY (every allowed type is locked by MM_LOCK).
 */
static int ttm_drm_flags_to_placement(struct ttm_drm_device *ddev, uint64_t flags,
				      struct ttm_place *places, struct ttm_placement *placement)
{
	unsigned n = 0, allowed = 0;

	if ((flags & ~TTM_DRM_BO_FLAGS) || !(flags & DRM_BO_MASK_MEM))
		return -EINVAL;
	for (unsigned i = 0; i < DRM_BO_MEM_TYPES; i++) {
		unsigned t = ttm_drm_mem_order[i];

		if (!(flags & ttm_drm_mem_flag(t)))
			continue;
		if (t != DRM_BO_MEM_LOCAL && !ttm_drm_mem_man(ddev, t))
			return -EINVAL;
		allowed++;
		if (t != DRM_BO_MEM_LOCAL && ddev->mem[t].locked)
			continue;
		places[n] = (struct ttm_place){
		    .mem_type = t,
		    .flags = (flags & DRM_BO_FLAG_MAPPABLE) && t != DRM_BO_MEM_LOCAL
				 ? TTM_PL_FLAG_MAPPABLE
				 : 0,
		};
		n++;
	}
	if (!n)
		return allowed ? -EBUSY : -EINVAL;
	placement->num_placement = n;
	placement->placement = places;
	return 0;
}

static uint32_t ttm_drm_bo_fence_type(struct ttm_drm_device *ddev, uint64_t flags)
{
	uint64_t access = flags & DRM_BO_MASK_ACCESS;
	uint32_t type = DRM_FENCE_TYPE_EXE;

	if (ddev->driver->fence_type)
		type = ddev->driver->fence_type(ddev, access) & ttm_drm_valid_fence_types(ddev);
	return type ? type : DRM_FENCE_TYPE_EXE;
}

/* The largest buffer @flags could ever hold (pages). mm_lock held. */
static uint64_t ttm_drm_max_pages(struct ttm_drm_device *ddev, uint64_t flags)
{
	struct ttm_global_stats gs;
	uint64_t max = 0;

	ttm_global_get_stats(&gs);
	for (unsigned t = 0; t < DRM_BO_MEM_TYPES; t++) {
		uint64_t n;

		if (!(flags & ttm_drm_mem_flag(t)))
			continue;
		n = t == DRM_BO_MEM_LOCAL || t == DRM_BO_MEM_TT ? gs.limit_pages : 0;
		if (t != DRM_BO_MEM_LOCAL && ttm_drm_mem_man(ddev, t) &&
		    ttm_drm_mem_pages(ddev, t) < n)
			n = ttm_drm_mem_pages(ddev, t);
		if (t != DRM_BO_MEM_LOCAL && t != DRM_BO_MEM_TT)
			n = ttm_drm_mem_pages(ddev, t);
		if (n > max)
			max = n;
	}
	return max;
}

/* Fill @rep from @dbo; reserved. */
static void ttm_drm_bo_fill_rep(struct ttm_drm_device *ddev, struct ttm_drm_bo *dbo,
				struct drm_bo_info_rep *rep)
{
	struct ttm_resource *res = dbo->tbo.resource;
	uint64_t flags = dbo->flags & ~DRM_BO_MASK_MEM;

	memset(rep, 0, sizeof(*rep));
	if (res) {
		flags |= ttm_drm_mem_flag(res->mem_type);
		if (res->mem_type != TTM_PL_SYSTEM)
			rep->offset = (res->start + ddev->mem[res->mem_type].p_offset)
				      << TTM_PAGE_SHIFT;
	}
	rep->flags = flags;
	rep->proposed_flags = dbo->proposed_flags;
	rep->size = dbo->tbo.size;
	rep->arg_handle = dbo->map_handle;
	rep->buffer_start = (uint64_t)(uintptr_t)dbo->tbo.user_ptr;
	rep->handle = dbo->base.handle;
	rep->fence_flags = dbo->fence_flags;
	if (!dma_resv_test_signaled(dbo->tbo.resv, DMA_RESV_USAGE_BOOKKEEP))
		rep->rep_flags |= DRM_BO_REP_BUSY;
	rep->page_alignment = dbo->tbo.page_alignment;
	rep->desired_tile_stride = dbo->desired_tile_stride;
	rep->hw_tile_stride = dbo->desired_tile_stride;
	rep->tile_info = dbo->tile_info;
}

/* Pin or unpin for NO_EVICT/NO_MOVE so the pin state follows @flags. Reserved. */
void ttm_drm_bo_flag_pin(struct ttm_drm_bo *dbo, uint64_t flags)
{
	bool want = flags & (DRM_BO_FLAG_NO_EVICT | DRM_BO_FLAG_NO_MOVE);

	if (want && !dbo->flag_pinned)
		ttm_bo_pin(&dbo->tbo);
	else if (!want && dbo->flag_pinned)
		ttm_bo_unpin(&dbo->tbo);
	dbo->flag_pinned = want;
}

/* Put @dbo on @file's unfenced list unless it is on one already. */
static void ttm_drm_bo_add_unfenced(struct ttm_drm_file *file, struct ttm_drm_bo *dbo)
{
	struct ttm_drm_device *ddev = file->ddev;

	pthread_mutex_lock(&ddev->lock);
	if (!dbo->unfenced_file) {
		ttm_bo_get(&dbo->tbo);
		dbo->unfenced_file = file;
		list_add_tail(&dbo->unfenced, &file->unfenced);
	}
	pthread_mutex_unlock(&ddev->lock);
}

void ttm_drm_file_drop_unfenced(struct ttm_drm_file *file)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_bo *dbo, *tmp;
	struct list_head list;

	/*
	 * The entries keep @unfenced_file set while on the private list, so
	 * nobody else links them anywhere until each is unlinked below.
	 */
	INIT_LIST_HEAD(&list);
	pthread_mutex_lock(&ddev->lock);
	list_splice_tail_init(&file->unfenced, &list);
	pthread_mutex_unlock(&ddev->lock);
	list_for_each_entry_safe (dbo, tmp, &list, struct ttm_drm_bo, unfenced) {
		pthread_mutex_lock(&ddev->lock);
		list_del_init(&dbo->unfenced);
		dbo->unfenced_file = NULL;
		pthread_mutex_unlock(&ddev->lock);
		ttm_bo_put(&dbo->tbo);
	}
}

static int ttm_drm_bo_check_create(struct ttm_drm_device *ddev, const struct drm_bo_create_req *req)
{
	if ((req->flags & ~TTM_DRM_BO_FLAGS) || !(req->flags & DRM_BO_MASK_MEM))
		return -EINVAL;
	if (req->hint & ~TTM_DRM_BO_HINTS)
		return -EINVAL;
	if (!req->size || req->size > UINT64_MAX - (TTM_PAGE_SIZE - 1))
		return -EINVAL;
	if (req->page_alignment & (req->page_alignment - 1))
		return -EINVAL;
	if (req->buffer_start) {
		if (req->buffer_start & (TTM_PAGE_SIZE - 1) || req->buffer_start > UINTPTR_MAX ||
		    req->buffer_start > UINT64_MAX - req->size)
			return -EINVAL;
		/* A user buffer is the client's pages: system memory or bound to TT. */
		if (req->flags & DRM_BO_MASK_MEM & ~(DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_MEM_TT))
			return -EINVAL;
	}
	return 0;
}

/*
 * BO_CREATE: in flags (memory types, access, NO_EVICT, NO_MOVE, SHAREABLE,
 * ...), size, page_alignment, buffer_start, hint; out the reply. The new
 * buffer is validated to its flags (without being put on the unfenced
 * list, as 2008 created with DONT_FENCE).
 */
int ttm_drm_bo_create_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_bo_create_arg *arg = data;
	struct drm_bo_create_req req = arg->d.req;
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct ttm_place places[DRM_BO_MEM_TYPES];
	struct ttm_placement placement;
	uint64_t size, pages;
	struct ttm_drm_bo *dbo;
	int ret;

	ret = ttm_drm_bo_check_create(ddev, &req);
	if (ret)
		return ret;
	ctx.no_wait_gpu = req.hint & DRM_BO_HINT_DONT_BLOCK;
	size = (req.size + TTM_PAGE_SIZE - 1) & ~(TTM_PAGE_SIZE - 1);
	pages = size >> TTM_PAGE_SHIFT;

	pthread_rwlock_rdlock(&ddev->mm_lock);
	ret = ttm_drm_flags_to_placement(ddev, req.flags, places, &placement);
	if (ret)
		goto out_unlock;
	if (pages > ttm_drm_max_pages(ddev, req.flags)) {
		ret = -ENOMEM; /* can never fit, do not even try */
		goto out_unlock;
	}
	dbo =
	    fault_should_fail(&ttm_fault_uapi_alloc, sizeof(*dbo)) ? NULL : calloc(1, sizeof(*dbo));
	if (!dbo) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	dbo->base.ops = &ttm_drm_bo_obj_ops;
	dbo->base.type = TTM_DRM_OBJECT_BO;
	dbo->base.shareable = req.flags & DRM_BO_FLAG_SHAREABLE;
	dbo->tbo.user_ptr = (void *)(uintptr_t)req.buffer_start;
	INIT_LIST_HEAD(&dbo->unfenced);
	ret = ttm_bo_init_reserved(&ddev->bdev, &dbo->tbo, size,
				   req.buffer_start ? ttm_bo_type_userptr : ttm_bo_type_device,
				   &placement, req.page_alignment, &ctx, NULL, ttm_drm_bo_destroy);
	if (ret)
		goto out_unlock; /* @dbo was freed by the destroy callback */
	dbo->flags = req.flags;
	dbo->proposed_flags = req.flags;
	dbo->fence_type = ttm_drm_bo_fence_type(ddev, req.flags);
	ttm_drm_bo_flag_pin(dbo, req.flags);
	pthread_mutex_lock(&ddev->lock);
	dbo->map_handle = ddev->next_map;
	ddev->next_map += size;
	pthread_mutex_unlock(&ddev->lock);

	ret = ttm_drm_object_add(file, &dbo->base);
	if (ret) {
		ttm_drm_bo_flag_pin(dbo, 0);
		ttm_bo_unreserve(&dbo->tbo);
		ttm_bo_put(&dbo->tbo);
		goto out_unlock;
	}
	ttm_drm_bo_fill_rep(ddev, dbo, &arg->d.rep);
	ttm_bo_unreserve(&dbo->tbo);
out_unlock:
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

static struct ttm_drm_bo *ttm_drm_bo_lookup(struct ttm_drm_file *file, uint32_t handle)
{
	struct ttm_drm_object *obj = ttm_drm_object_lookup(file, handle, TTM_DRM_OBJECT_BO);

	return obj ? to_ttm_drm_bo(obj) : NULL;
}

static int ttm_drm_bo_reserve_hint(struct ttm_drm_bo *dbo, uint32_t hint)
{
	return ttm_bo_reserve(&dbo->tbo, true, hint & DRM_BO_HINT_DONT_BLOCK, NULL);
}

/* The fields a request on an existing buffer leaves zero unless it uses them. */
static bool ttm_drm_info_req_ok(const struct drm_bo_info_req *req)
{
	return !req->pad64 && !(req->hint & ~TTM_DRM_BO_HINTS);
}

/* Reply for @dbo, reserving it (blocking) to read a consistent state. */
static int ttm_drm_bo_reply(struct ttm_drm_device *ddev, struct ttm_drm_bo *dbo,
			    struct drm_bo_info_rep *rep)
{
	int ret = ttm_bo_reserve(&dbo->tbo, true, false, NULL);

	if (ret)
		return ret;
	ttm_drm_bo_fill_rep(ddev, dbo, rep);
	ttm_bo_unreserve(&dbo->tbo);
	return 0;
}

/* Drop @maps of the uAPI map counts. Not reserved. */
static void ttm_drm_bo_drop_maps(struct ttm_drm_bo *dbo, unsigned long maps)
{
	struct ttm_buffer_object *tbo = &dbo->tbo;

	/* Blocking, not interruptible: an unmap must not be lost. */
	while (ttm_bo_reserve(tbo, false, false, NULL))
		;
	if (maps > dbo->mapped)
		maps = dbo->mapped;
	dbo->mapped -= maps;
	ttm_bo_unreserve(tbo);
}

/*
 * Where faults of a buffer may leave it or move it so the CPU reaches it
 * (see ttm_drm_driver.cpu_visible_pages): the visible part of every
 * non-tt type in preference order, then TT, then LOCAL, which is always
 * there. @places has room for TTM_NUM_MEM_TYPES. Caller holds mm_lock.
 * Return: the number of places; 0 when the driver has no hook (faults
 * then take any CPU-reachable resource and move others to LOCAL).
 */
static unsigned ttm_drm_cpu_placement(struct ttm_drm_device *ddev, struct ttm_place *places)
{
	unsigned n = 0;

	if (!ddev->driver->cpu_visible_pages)
		return 0;
	for (unsigned i = 0; i < DRM_BO_MEM_TYPES; i++) {
		unsigned t = ttm_drm_mem_order[i];
		struct ttm_resource_manager *man;
		uint64_t visible, pages;

		if (t == DRM_BO_MEM_LOCAL || ddev->mem[t].locked)
			continue;
		/*
		 * TT pages are system pages whoever set the type up (MM_INIT,
		 * or the driver, as i915's GGTT that execbuffer binds uAPI
		 * buffers into): always CPU-reachable.
		 */
		man = t == DRM_BO_MEM_TT ? ttm_manager_type(&ddev->bdev, t)
					 : ttm_drm_mem_man(ddev, t);
		if (!man || (t == DRM_BO_MEM_TT && !man->use_tt))
			continue;
		pages = t == DRM_BO_MEM_TT ? man->size : ttm_drm_mem_pages(ddev, t);
		visible = t == DRM_BO_MEM_TT ? pages : ddev->driver->cpu_visible_pages(ddev, t);
		if (!visible)
			continue;
		/*
		 * lpfn 0 is "to the end of the type". One CPU pointer covers
		 * an io resource only when it is one run (a buddy manager may
		 * scatter it), so io places ask for a contiguous one.
		 */
		places[n++] = (struct ttm_place){
		    .mem_type = t,
		    .lpfn = visible < pages ? (uint32_t)visible : 0,
		    .flags = t == DRM_BO_MEM_TT ? 0 : TTM_PL_FLAG_CONTIGUOUS,
		};
	}
	places[n++] = (struct ttm_place){.mem_type = DRM_BO_MEM_LOCAL};
	return n;
}

/*
 * Fault-time placement (struct ttm_bo_vm_fault_ops, @priv the device): a
 * fault holds mm_lock for reading from its placement to its end, as
 * BO_CREATE and SETSTATUS do around their validates, so the types it
 * picks exist and are unlocked until it is done and MM_TAKEDOWN or MM_LOCK
 * (writers) wait for it. The fault holds a reservation, and mm_lock is
 * taken before reservations, so it only tries the lock: a writer holding
 * it (who may be waiting for this very reservation to evict the buffer)
 * makes the fault back off unreserved and wait for the writer.
 */
static int ttm_drm_fault_begin(void *priv, struct ttm_buffer_object *bo,
			       struct ttm_placement *placement)
{
	struct ttm_drm_device *ddev = priv;

	(void)bo;
	if (pthread_rwlock_tryrdlock(&ddev->mm_lock))
		return -EAGAIN;
	placement->num_placement =
	    ttm_drm_cpu_placement(ddev, (struct ttm_place *)placement->placement);
	return 0;
}

static void ttm_drm_fault_wait(void *priv)
{
	struct ttm_drm_device *ddev = priv;

	pthread_rwlock_rdlock(&ddev->mm_lock);
	pthread_rwlock_unlock(&ddev->mm_lock);
}

static void ttm_drm_fault_end(void *priv)
{
	struct ttm_drm_device *ddev = priv;

	pthread_rwlock_unlock(&ddev->mm_lock);
}

static const struct ttm_bo_vm_fault_ops ttm_drm_fault_ops = {
    .begin = ttm_drm_fault_begin,
    .wait = ttm_drm_fault_wait,
    .end = ttm_drm_fault_end,
};

/*
 * BO_MAP: in handle, mask (READ/WRITE access), hint (DONT_BLOCK); waits
 * for the buffer to be idle, counts the map for the client and
 * maps it through ttm_bo_vm. Return: 0; -EBUSY (DONT_BLOCK and busy or
 * reserved); -EINVAL; errors of ttm_bo_mmap() (-ENOMEM, -EPERM).
 */
/*
 * Wait until every fence of @dbo signalled, as the kernel's
 * ttm_bo_wait_ctx(): 0 once idle, whatever status the fences ended with.
 * An error is the failed request's, reported by its fence (FENCE_WAIT);
 * the buffer itself stays usable (a 2008 client reuses buffers from its
 * cache after a GPU reset). Return: 0; -EBUSY (@ctx->no_wait_gpu and busy);
 * -EINTR/-ERESTARTSYS.
 */
static int ttm_drm_bo_wait_idle(struct ttm_drm_bo *dbo, struct ttm_operation_ctx *ctx)
{
	struct dma_resv *resv = dbo->tbo.resv;
	int64_t lret;

	if (dma_resv_test_signaled(resv, DMA_RESV_USAGE_BOOKKEEP))
		return 0;
	if (ctx->no_wait_gpu)
		return -EBUSY;
	lret = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_BOOKKEEP, ctx->interruptible,
				     MAX_SCHEDULE_TIMEOUT);
	if (lret < 0)
		return (int)lret;
	return lret ? 0 : -EBUSY;
}

int ttm_drm_bo_map_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_bo_map_wait_idle_arg *arg = data;
	struct drm_bo_info_req req = arg->d.req;
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct ttm_drm_bo *dbo;
	void *addr = NULL;
	int ret;

	if (!ttm_drm_info_req_ok(&req) || req.flags || req.fence_class || req.desired_tile_stride ||
	    req.tile_info || req.presumed_offset || !req.mask ||
	    (req.mask & ~(DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE)) ||
	    (req.hint & ~(DRM_BO_HINT_DONT_BLOCK | DRM_BO_HINT_WAIT_LAZY)))
		return -EINVAL;
	dbo = ttm_drm_bo_lookup(file, req.handle);
	if (!dbo)
		return -EINVAL;
	ctx.no_wait_gpu = req.hint & DRM_BO_HINT_DONT_BLOCK;
	pthread_rwlock_rdlock(&ddev->mm_lock);
	ret = ttm_drm_bo_reserve_hint(dbo, req.hint);
	if (ret)
		goto out;
	ret = ttm_drm_bo_wait_idle(dbo, &ctx);
	if (!ret)
		dbo->mapped++;
	ttm_bo_unreserve(&dbo->tbo);
	if (ret)
		goto out;
	/*
	 * ttm_bo_mmap() reserves by itself. With the driver's visibility hook
	 * every fault asks for its placement (ttm_drm_fault_ops); without it
	 * any CPU-reachable resource does and the rest goes to LOCAL, which
	 * MM_* never touch.
	 */
	if (ddev->driver->cpu_visible_pages)
		ret = ttm_bo_mmap_hooked(&dbo->tbo, &ttm_drm_fault_ops, ddev, &ctx, &addr);
	else
		ret = ttm_bo_mmap(&dbo->tbo, NULL, &ctx, &addr);
	if (ret) {
		ttm_drm_bo_drop_maps(dbo, 1);
		goto out;
	}
	ret = ttm_drm_ref_map(file, req.handle, 1);
	if (ret) {
		/* Unreferenced by another thread of the client meanwhile. */
		ttm_bo_munmap(&dbo->tbo);
		ttm_drm_bo_drop_maps(dbo, 1);
		goto out;
	}
	pthread_mutex_lock(&ddev->lock);
	dbo->cpu_addr = addr;
	pthread_mutex_unlock(&ddev->lock);
	ret = ttm_drm_bo_reply(ddev, dbo, &arg->d.rep);
	if (ret) {
		/* Interrupted before the reply: undo the map, as if never asked. */
		ttm_drm_ref_map(file, req.handle, -1);
		ttm_drm_bo_unmap_all(dbo, 1);
	}
out:
	pthread_rwlock_unlock(&ddev->mm_lock);
	ttm_drm_object_put(&dbo->base);
	return ret;
}

void ttm_drm_bo_unmap_all(struct ttm_drm_bo *dbo, unsigned long maps)
{
	for (unsigned long i = 0; i < maps; i++)
		ttm_bo_munmap(&dbo->tbo);
	ttm_drm_bo_drop_maps(dbo, maps);
}

int ttm_drm_bo_unmap_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_handle_arg *arg = data;
	struct ttm_drm_bo *dbo;
	int ret;

	dbo = ttm_drm_bo_lookup(file, arg->handle);
	if (!dbo)
		return -EINVAL;
	ret = ttm_drm_ref_map(file, arg->handle, -1);
	if (!ret)
		ttm_drm_bo_unmap_all(dbo, 1);
	ttm_drm_object_put(&dbo->base);
	return ret;
}

/* BO_REFERENCE: in handle (another client's SHAREABLE buffer); out reply. */
int ttm_drm_bo_reference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_reference_info_arg *arg = data;
	struct ttm_drm_object *obj;
	int ret;

	ret = ttm_drm_object_reference(file, arg->d.req.handle, TTM_DRM_OBJECT_BO, &obj);
	if (ret)
		return ret;
	ret = ttm_drm_bo_reply(file->ddev, to_ttm_drm_bo(obj), &arg->d.rep);
	if (ret) /* interrupted: give the reference back, nothing changed */
		ttm_drm_object_unreference(file, obj->handle, TTM_DRM_OBJECT_BO);
	ttm_drm_object_put(obj);
	return ret;
}

int ttm_drm_bo_unreference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_handle_arg *arg = data;

	return ttm_drm_object_unreference(file, arg->handle, TTM_DRM_OBJECT_BO);
}

int ttm_drm_bo_info_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_reference_info_arg *arg = data;
	struct ttm_drm_bo *dbo;
	int ret;

	dbo = ttm_drm_bo_lookup(file, arg->d.req.handle);
	if (!dbo)
		return -EINVAL;
	ret = ttm_drm_bo_reply(file->ddev, dbo, &arg->d.rep);
	ttm_drm_object_put(&dbo->base);
	return ret;
}

/*
 * BO_SETSTATUS: validate. in handle, flags+mask (new = old proposed with
 * the @mask bits taken from @flags), hint (DONT_BLOCK: -EBUSY instead of
 * waiting; DONT_FENCE: not put on the unfenced list), fence_class, tiling.
 * NO_EVICT/NO_MOVE pin the buffer where it lands; a pinned (NO_MOVE,
 * NO_EVICT) buffer that would have to move is -EBUSY; a mapped one moves
 * (its CPU views are invalidated first).
 */
int ttm_drm_bo_setstatus_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_bo_map_wait_idle_arg *arg = data;
	struct drm_bo_info_req req = arg->d.req;
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct ttm_place places[DRM_BO_MEM_TYPES];
	struct ttm_placement placement;
	struct ttm_resource_manager *man;
	struct ttm_buffer_object *tbo;
	struct ttm_drm_bo *dbo;
	uint64_t new_flags;
	bool moves, was_pinned;
	int ret;

	if (!ttm_drm_info_req_ok(&req) || (req.mask & ~TTM_DRM_BO_FLAGS) ||
	    (req.flags & ~req.mask) || !ttm_drm_fence_class_ok(ddev, req.fence_class))
		return -EINVAL;
	dbo = ttm_drm_bo_lookup(file, req.handle);
	if (!dbo)
		return -EINVAL;
	tbo = &dbo->tbo;
	ctx.no_wait_gpu = req.hint & DRM_BO_HINT_DONT_BLOCK;
	pthread_rwlock_rdlock(&ddev->mm_lock);
	ret = ttm_drm_bo_reserve_hint(dbo, req.hint);
	if (ret)
		goto out;
	new_flags = (dbo->proposed_flags & ~req.mask) | (req.flags & req.mask);
	ret = ttm_drm_flags_to_placement(ddev, new_flags, places, &placement);
	if (ret)
		goto out_unreserve;
	if (tbo->user_ptr &&
	    (new_flags & DRM_BO_MASK_MEM & ~(DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_MEM_TT))) {
		ret = -EINVAL;
		goto out_unreserve;
	}
	if ((new_flags ^ dbo->proposed_flags) & DRM_BO_FLAG_SHAREABLE &&
	    !(new_flags & DRM_BO_FLAG_SHAREABLE)) {
		ret = -EINVAL; /* others may hold it already: sharing is not revoked */
		goto out_unreserve;
	}
	man = tbo->resource ? ttm_manager_type(&ddev->bdev, tbo->resource->mem_type) : NULL;
	moves = !man || !ttm_resource_compatible(man, tbo->resource, &placement, false);
	if (moves && (dbo->flags & DRM_BO_FLAG_NO_MOVE)) {
		ret = -EBUSY;
		goto out_unreserve;
	}
	was_pinned = dbo->flag_pinned;
	if (moves && was_pinned) {
		ttm_bo_unpin(tbo);
		dbo->flag_pinned = false;
	}
	ret = ttm_bo_validate(tbo, &placement, &ctx);
	if (ret) {
		if (moves && was_pinned) {
			ttm_bo_pin(tbo);
			dbo->flag_pinned = true;
		}
		goto out_unreserve;
	}
	ttm_drm_bo_flag_pin(dbo, new_flags);
	if (new_flags & DRM_BO_FLAG_SHAREABLE && !dbo->base.shareable) {
		pthread_mutex_lock(&ddev->lock);
		dbo->base.shareable = true;
		pthread_mutex_unlock(&ddev->lock);
	}
	dbo->flags = new_flags;
	dbo->proposed_flags = new_flags;
	/* FENCE_BUFFERS picks buffers by class under the device lock. */
	pthread_mutex_lock(&ddev->lock);
	dbo->fence_class = req.fence_class;
	pthread_mutex_unlock(&ddev->lock);
	dbo->fence_type = ttm_drm_bo_fence_type(ddev, new_flags);
	dbo->desired_tile_stride = req.desired_tile_stride;
	dbo->tile_info = req.tile_info;
	ttm_drm_bo_fill_rep(ddev, dbo, &arg->d.rep);
	if (!(req.hint & DRM_BO_HINT_DONT_FENCE))
		ttm_drm_bo_add_unfenced(file, dbo);
out_unreserve:
	ttm_bo_unreserve(tbo);
out:
	pthread_rwlock_unlock(&ddev->mm_lock);
	ttm_drm_object_put(&dbo->base);
	return ret;
}

/*
 * BO_WAIT_IDLE: in handle, hint (DONT_BLOCK: -EBUSY while busy,
 * WAIT_LAZY); out reply.
 */
int ttm_drm_bo_wait_idle_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_map_wait_idle_arg *arg = data;
	struct drm_bo_info_req req = arg->d.req;
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct ttm_drm_bo *dbo;
	int ret;

	if (!ttm_drm_info_req_ok(&req) || req.mask || req.flags ||
	    (req.hint & ~(DRM_BO_HINT_DONT_BLOCK | DRM_BO_HINT_WAIT_LAZY)))
		return -EINVAL;
	dbo = ttm_drm_bo_lookup(file, req.handle);
	if (!dbo)
		return -EINVAL;
	ctx.no_wait_gpu = req.hint & DRM_BO_HINT_DONT_BLOCK;
	ret = ttm_drm_bo_wait_idle(dbo, &ctx);
	if (!ret)
		ret = ttm_drm_bo_reply(file->ddev, dbo, &arg->d.rep);
	ttm_drm_object_put(&dbo->base);
	return ret;
}

int ttm_drm_bo_version_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_version_arg *arg = data;

	arg->major = DRM_BO_INIT_MAJOR;
	arg->minor = DRM_BO_INIT_MINOR;
	arg->patchlevel = DRM_BO_INIT_PATCH;
	return 0;
}

int ttm_drm_bo_map_stats(int fd, uint32_t handle, struct ttm_bo_vm_stats *st)
{
	struct ttm_drm_file *file = ttm_drm_file_get_fd(fd);
	struct ttm_drm_bo *dbo;
	int ret;

	if (!file)
		return -EBADF;
	dbo = st ? ttm_drm_bo_lookup(file, handle) : NULL;
	if (!dbo) {
		ttm_drm_file_put(file);
		return -EINVAL;
	}
	ret = ttm_bo_vm_get_stats(&dbo->tbo, st);
	ttm_drm_object_put(&dbo->base);
	ttm_drm_file_put(file);
	return ret;
}

void *ttm_drm_mmap(int fd, uint64_t map_handle, uint64_t size, int *err)
{
	struct ttm_drm_file *file = ttm_drm_file_get_fd(fd);
	struct ttm_drm_object *obj, *found = NULL;
	struct ttm_drm_device *ddev;
	struct ttm_drm_bo *dbo;
	void *addr = NULL;
	uint32_t id = 0;
	int ret = 0;

	if (!file) {
		*err = -EBADF;
		return NULL;
	}
	ddev = file->ddev;
	pthread_mutex_lock(&ddev->lock);
	while ((obj = ttm_drm_idr_next(&file->refs, &id))) {
		obj = ((struct ttm_drm_ref *)(void *)obj)->obj;
		if (obj->type == TTM_DRM_OBJECT_BO &&
		    to_ttm_drm_bo(obj)->map_handle == map_handle) {
			found = obj;
			obj->ops->get(obj);
			break;
		}
		id++;
	}
	pthread_mutex_unlock(&ddev->lock);
	if (!found) {
		ret = -EINVAL;
		goto out;
	}
	dbo = to_ttm_drm_bo(found);
	if (!size || size > dbo->tbo.size || !ttm_drm_file_maps(file, found->handle)) {
		ret = -EINVAL;
	} else {
		pthread_mutex_lock(&ddev->lock);
		addr = dbo->cpu_addr;
		pthread_mutex_unlock(&ddev->lock);
		if (!addr)
			ret = -EINVAL;
	}
	ttm_drm_object_put(found);
out:
	ttm_drm_file_put(file);
	*err = ret;
	return addr;
}
