// SPDX-License-Identifier: MIT
/*
 * ttm_drm_ioctl: the 2008 TTM requests over the memory manager core. One
 * dispatch checks the request number and size, then each handler checks
 * every field of its argument before it changes anything: an unknown flag
 * or hint bit, a nonzero pad, an unknown or invisible handle, a bad fence
 * class or type, a memory type without a manager, a zero or overflowing
 * size or a page alignment that is not a power of two are -EINVAL with no
 * state changed.
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
 *
 * Fences: a fence object wraps the driver's dma_fence; dma_fence has one
 * signalled state, so all types of a fence signal together: @signaled is
 * either 0 or the fence's whole type mask.
 *
 * Other departures from 2008, all deliberate: NO_EVICT needs no privilege
 * (there is no root in-process); an invisible handle is -EINVAL like a
 * missing one; FENCE_WAIT gives up with -EBUSY after 3 s as 2008's lockup
 * check did; MM_LOCK's UNLOCK_BM is accepted, there being no separate
 * buffer-manager lock; a type locked by MM_LOCK is skipped by placements
 * (-EBUSY when it was the only one allowed) instead of blocking validates.
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

#define TTM_DRM_FENCE_FLAGS                                                                        \
	(DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_SHAREABLE | DRM_FENCE_FLAG_WAIT_LAZY |               \
	 DRM_FENCE_FLAG_NO_USER)
#define TTM_DRM_BO_FLAGS                                                                           \
	(DRM_BO_MASK_ACCESS | DRM_BO_FLAG_NO_EVICT | DRM_BO_FLAG_MAPPABLE |                        \
	 DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_CACHED | DRM_BO_FLAG_NO_MOVE |                        \
	 DRM_BO_FLAG_FORCE_CACHING | DRM_BO_FLAG_FORCE_MAPPABLE | DRM_BO_FLAG_TILE |               \
	 DRM_BO_FLAG_CACHED_MAPPED | DRM_BO_MASK_MEM)
#define TTM_DRM_BO_HINTS                                                                           \
	(DRM_BO_HINT_DONT_BLOCK | DRM_BO_HINT_DONT_FENCE | DRM_BO_HINT_WAIT_LAZY |                 \
	 DRM_BO_HINT_PRESUMED_OFFSET)
/* A lost interrupt must not hang a client forever: 2008 gave up after 3 s. */
#define TTM_DRM_FENCE_TIMEOUT_NS (3ll * 1000 * 1000 * 1000)

/* Placement preference when a mask allows several types: fast memory first. */
static const unsigned ttm_drm_mem_order[] = {
    DRM_BO_MEM_VRAM,  DRM_BO_MEM_PRIV0, DRM_BO_MEM_PRIV1, DRM_BO_MEM_PRIV2,
    DRM_BO_MEM_PRIV3, DRM_BO_MEM_PRIV4, DRM_BO_MEM_TT,	  DRM_BO_MEM_LOCAL,
};

static bool ttm_drm_pads_zero(const uint64_t *pad, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (pad[i])
			return false;
	return true;
}

/* ---- fence objects ---------------------------------------------------- */

static void ttm_drm_fence_obj_get(struct ttm_drm_object *obj)
{
	atomic_fetch_add(&to_ttm_drm_fence(obj)->refcount, 1);
}

static void ttm_drm_fence_obj_put(struct ttm_drm_object *obj)
{
	struct ttm_drm_fence *f = to_ttm_drm_fence(obj);

	if (atomic_fetch_sub(&f->refcount, 1) != 1)
		return;
	dma_fence_put(f->fence);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static const struct ttm_drm_object_ops ttm_drm_fence_obj_ops = {
    .get = ttm_drm_fence_obj_get,
    .put = ttm_drm_fence_obj_put,
};

static uint32_t ttm_drm_valid_fence_types(struct ttm_drm_device *ddev)
{
	return DRM_FENCE_TYPE_EXE | ddev->driver->fence_types;
}

static bool ttm_drm_fence_class_ok(struct ttm_drm_device *ddev, uint32_t fence_class)
{
	return fence_class < ddev->driver->num_fence_classes;
}

static bool ttm_drm_fence_type_ok(struct ttm_drm_device *ddev, uint32_t type)
{
	return type && !(type & ~ttm_drm_valid_fence_types(ddev));
}

/* The common checks of struct drm_fence_arg: pads and known flags. */
static bool ttm_drm_fence_arg_ok(const struct drm_fence_arg *arg)
{
	return !arg->pad64 && ttm_drm_pads_zero(arg->expand_pad, 2) &&
	       !(arg->flags & ~TTM_DRM_FENCE_FLAGS);
}

static void ttm_drm_fence_fill(struct ttm_drm_fence *f, struct drm_fence_arg *arg)
{
	struct dma_fence *fence;

	pthread_mutex_lock(&f->lock);
	fence = dma_fence_get(f->fence);
	arg->handle = f->base.handle;
	arg->fence_class = f->fence_class;
	arg->type = f->type;
	arg->flags = f->flags;
	arg->sequence = f->sequence;
	pthread_mutex_unlock(&f->lock);
	arg->signaled = 0;
	arg->error = 0;
	if (fence && dma_fence_is_signaled(fence)) {
		int status = dma_fence_get_status(fence);

		arg->signaled = arg->type;
		arg->error = status < 0 ? (uint32_t)-status : 0;
	}
	dma_fence_put(fence);
}

/* Emit on the driver and install the new dma_fence in @f. */
static int ttm_drm_fence_emit(struct ttm_drm_device *ddev, struct ttm_drm_fence *f,
			      uint32_t fence_class, uint32_t type, uint32_t flags)
{
	struct dma_fence *fence, *old;
	uint32_t seq = 0;

	fence = ddev->driver->fence_emit(ddev, fence_class, type, &seq);
	if (!fence)
		return -ENOMEM;
	pthread_mutex_lock(&f->lock);
	old = f->fence;
	f->fence = fence;
	f->fence_class = fence_class;
	f->type = type;
	f->flags = flags & ~(DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_NO_USER);
	f->sequence = seq;
	pthread_mutex_unlock(&f->lock);
	dma_fence_put(old);
	return 0;
}

struct ttm_drm_fence *ttm_drm_fence_alloc(uint32_t fence_class, uint32_t type, uint32_t flags)
{
	struct ttm_drm_fence *f;

	if (fault_should_fail(&ttm_fault_uapi_alloc, sizeof(*f)))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->base.ops = &ttm_drm_fence_obj_ops;
	f->base.type = TTM_DRM_OBJECT_FENCE;
	f->base.shareable = flags & DRM_FENCE_FLAG_SHAREABLE;
	atomic_init(&f->refcount, 1);
	pthread_mutex_init(&f->lock, NULL);
	f->fence_class = fence_class;
	f->type = type;
	f->flags = flags;
	return f;
}

/* FENCE_CREATE and FENCE_EMIT take the same class, type and flags. */
static bool ttm_drm_fence_emit_arg_ok(struct ttm_drm_device *ddev, const struct drm_fence_arg *arg)
{
	return ttm_drm_fence_arg_ok(arg) && !(arg->flags & DRM_FENCE_FLAG_NO_USER) &&
	       ttm_drm_fence_class_ok(ddev, arg->fence_class) &&
	       ttm_drm_fence_type_ok(ddev, arg->type);
}

/*
 * FENCE_CREATE: in fence_class, type, flags (EMIT, SHAREABLE, WAIT_LAZY);
 * out handle and state. Without EMIT the fence exists unemitted until
 * FENCE_EMIT.
 */
static int ttm_drm_fence_create_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_fence_arg *arg = data;
	struct ttm_drm_fence *f;
	int ret;

	if (!ttm_drm_fence_emit_arg_ok(ddev, arg))
		return -EINVAL;
	f = ttm_drm_fence_alloc(arg->fence_class, arg->type,
				arg->flags & ~(DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_NO_USER));
	if (!f)
		return -ENOMEM;
	if (arg->flags & DRM_FENCE_FLAG_EMIT) {
		ret = ttm_drm_fence_emit(ddev, f, arg->fence_class, arg->type, arg->flags);
		if (ret)
			goto err;
	}
	ret = ttm_drm_object_add(file, &f->base);
	if (ret)
		goto err;
	ttm_drm_fence_fill(f, arg);
	return 0;
err:
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/* The fence named by @arg->handle, visible to @file, with a reference. */
static struct ttm_drm_fence *ttm_drm_fence_lookup(struct ttm_drm_file *file,
						  const struct drm_fence_arg *arg)
{
	struct ttm_drm_object *obj;

	obj = ttm_drm_object_lookup(file, arg->handle, TTM_DRM_OBJECT_FENCE);
	return obj ? to_ttm_drm_fence(obj) : NULL;
}

/* FENCE_REFERENCE: another reference (a shareable fence of another client). */
static int ttm_drm_fence_reference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct ttm_drm_object *obj;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	ret = ttm_drm_object_reference(file, arg->handle, TTM_DRM_OBJECT_FENCE, &obj);
	if (ret)
		return ret;
	ttm_drm_fence_fill(to_ttm_drm_fence(obj), arg);
	ttm_drm_object_put(obj);
	return 0;
}

static int ttm_drm_fence_unreference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	return ttm_drm_object_unreference(file, arg->handle, TTM_DRM_OBJECT_FENCE);
}

static int ttm_drm_fence_signaled_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct ttm_drm_fence *f;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	f = ttm_drm_fence_lookup(file, arg);
	if (!f)
		return -EINVAL;
	ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return 0;
}

/*
 * The emitted dma_fence of @f with a reference, after checking that the
 * @type asked for (FLUSH/WAIT) is part of the fence. -EINVAL otherwise.
 */
static int ttm_drm_fence_emitted(struct ttm_drm_fence *f, uint32_t type, struct dma_fence **out,
				 uint32_t *fence_class)
{
	int ret = 0;

	pthread_mutex_lock(&f->lock);
	if (!f->fence || !type || (type & ~f->type))
		ret = -EINVAL;
	else
		*out = dma_fence_get(f->fence);
	*fence_class = f->fence_class;
	pthread_mutex_unlock(&f->lock);
	return ret;
}

/*
 * FLUSH and WAIT: look up @arg->handle, check @arg->type against the
 * emitted fence and ask the driver to flush that type unless the fence has
 * signaled. On 0 the caller owns a reference on *@fp and on *@fence.
 */
static int ttm_drm_fence_lookup_flush(struct ttm_drm_file *file, const struct drm_fence_arg *arg,
				      struct ttm_drm_fence **fp, struct dma_fence **fence)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_fence *f;
	uint32_t fence_class;
	int ret;

	f = ttm_drm_fence_lookup(file, arg);
	if (!f)
		return -EINVAL;
	ret = ttm_drm_fence_emitted(f, arg->type, fence, &fence_class);
	if (ret) {
		ttm_drm_fence_obj_put(&f->base);
		return ret;
	}
	if (!dma_fence_is_signaled(*fence) && ddev->driver->fence_flush)
		ddev->driver->fence_flush(ddev, fence_class, arg->type);
	*fp = f;
	return 0;
}

/* FENCE_FLUSH: in handle, type (a subset of the fence's types). */
static int ttm_drm_fence_flush_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct dma_fence *fence;
	struct ttm_drm_fence *f;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	ret = ttm_drm_fence_lookup_flush(file, arg, &f, &fence);
	if (ret)
		return ret;
	dma_fence_put(fence);
	ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return 0;
}

/*
 * FENCE_WAIT: in handle, type, flags (WAIT_LAZY: no difference here, every
 * wait sleeps). Flushes first as 2008 did. Return: 0 (arg->error carries a
 * fence error); -EBUSY after 3 s without signal; -EINTR; -EINVAL (also for
 * an unemitted fence).
 */
static int ttm_drm_fence_wait_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct dma_fence *fence;
	struct ttm_drm_fence *f;
	int64_t left;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg) || (arg->flags & ~DRM_FENCE_FLAG_WAIT_LAZY))
		return -EINVAL;
	ret = ttm_drm_fence_lookup_flush(file, arg, &f, &fence);
	if (ret)
		return ret;
	left = dma_fence_wait_timeout(fence, true, TTM_DRM_FENCE_TIMEOUT_NS);
	dma_fence_put(fence);
	if (left < 0)
		ret = (int)left;
	else if (left == 0)
		ret = -EBUSY;
	else
		ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/* FENCE_EMIT: (re-)emit the fence object with a class, type and flags. */
static int ttm_drm_fence_emit_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_fence_arg *arg = data;
	struct ttm_drm_fence *f;
	int ret;

	if (!ttm_drm_fence_emit_arg_ok(ddev, arg))
		return -EINVAL;
	f = ttm_drm_fence_lookup(file, arg);
	if (!f)
		return -EINVAL;
	if ((arg->flags & DRM_FENCE_FLAG_SHAREABLE) && !f->base.shareable)
		ret = -EINVAL; /* sharing is decided at creation */
	else
		ret = ttm_drm_fence_emit(ddev, f, arg->fence_class, arg->type,
					 arg->flags |
					     (f->base.shareable ? DRM_FENCE_FLAG_SHAREABLE : 0));
	if (!ret)
		ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/* ---- buffer objects --------------------------------------------------- */

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
static void ttm_drm_bo_flag_pin(struct ttm_drm_bo *dbo, uint64_t flags)
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
static int ttm_drm_bo_create_ioctl(struct ttm_drm_file *file, void *data)
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

static int ttm_drm_bo_map_ioctl(struct ttm_drm_file *file, void *data)
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

static int ttm_drm_bo_unmap_ioctl(struct ttm_drm_file *file, void *data)
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
static int ttm_drm_bo_reference_ioctl(struct ttm_drm_file *file, void *data)
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

static int ttm_drm_bo_unreference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_handle_arg *arg = data;

	return ttm_drm_object_unreference(file, arg->handle, TTM_DRM_OBJECT_BO);
}

static int ttm_drm_bo_info_ioctl(struct ttm_drm_file *file, void *data)
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
static int ttm_drm_bo_setstatus_ioctl(struct ttm_drm_file *file, void *data)
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
static int ttm_drm_bo_wait_idle_ioctl(struct ttm_drm_file *file, void *data)
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

static int ttm_drm_bo_version_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_bo_version_arg *arg = data;

	arg->major = DRM_BO_INIT_MAJOR;
	arg->minor = DRM_BO_INIT_MINOR;
	arg->patchlevel = DRM_BO_INIT_PATCH;
	return 0;
}

/*
 * FENCE_BUFFERS: in fence_class, flags (NO_USER: no fence object, only the
 * state; SHAREABLE); emits one fence whose types are the union of the
 * client's unfenced buffers of that class, attaches it to each (WRITE usage
 * for buffers validated with WRITE access, else READ) and empties them from
 * the list. With no unfenced buffer an EXE fence is still emitted.
 */
static int ttm_drm_fence_buffers_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_fence_arg *arg = data;
	struct ttm_drm_bo *dbo, *tmp;
	struct ttm_drm_fence *f;
	struct list_head list;
	uint32_t type = 0;
	bool no_user;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg) || (arg->flags & DRM_FENCE_FLAG_EMIT) ||
	    !ttm_drm_fence_class_ok(ddev, arg->fence_class))
		return -EINVAL;
	f = ttm_drm_fence_alloc(arg->fence_class, DRM_FENCE_TYPE_EXE, arg->flags);
	if (!f)
		return -ENOMEM;

	INIT_LIST_HEAD(&list);
	pthread_mutex_lock(&ddev->lock);
	list_for_each_entry_safe (dbo, tmp, &file->unfenced, struct ttm_drm_bo, unfenced) {
		if (dbo->fence_class != arg->fence_class)
			continue;
		list_move_tail(&dbo->unfenced, &list);
	}
	pthread_mutex_unlock(&ddev->lock);

	/* Make room for the fence in every buffer first: after emit nothing may fail. */
	list_for_each_entry (dbo, &list, struct ttm_drm_bo, unfenced) {
		ret = ttm_bo_reserve(&dbo->tbo, true, false, NULL);
		if (!ret) {
			ret = dma_resv_reserve_fences(dbo->tbo.resv, 1);
			type |= dbo->fence_type;
			ttm_bo_unreserve(&dbo->tbo);
		}
		if (ret)
			goto err_restore;
	}
	if (!type)
		type = DRM_FENCE_TYPE_EXE;
	ret = ttm_drm_fence_emit(ddev, f, arg->fence_class, type, arg->flags);
	if (ret)
		goto err_restore;
	no_user = arg->flags & DRM_FENCE_FLAG_NO_USER;
	if (!no_user) {
		ret = ttm_drm_object_add(file, &f->base);
		/* On failure still attach below so the buffers are fenced; report it. */
		if (ret)
			no_user = true;
	}

	list_for_each_entry_safe (dbo, tmp, &list, struct ttm_drm_bo, unfenced) {
		struct ttm_buffer_object *tbo = &dbo->tbo;
		enum dma_resv_usage usage;

		while (ttm_bo_reserve(tbo, false, false, NULL))
			;
		usage = dbo->flags & DRM_BO_FLAG_WRITE ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ;
		/*
		 * The slot reserved above was taken meanwhile and no new one
		 * could be had: the buffer cannot carry the fence, so it must be
		 * idle before it is reported fenced. Ask the hardware to hurry.
		 */
		if (dma_resv_add_fence(tbo->resv, f->fence, usage)) {
			if (ddev->driver->fence_flush)
				ddev->driver->fence_flush(ddev, arg->fence_class, type);
			dma_fence_wait(f->fence, false);
		}
		dbo->fence_flags = type;
		ttm_bo_unreserve(tbo);
		pthread_mutex_lock(&ddev->lock);
		list_del_init(&dbo->unfenced);
		dbo->unfenced_file = NULL;
		pthread_mutex_unlock(&ddev->lock);
		ttm_bo_put(tbo);
	}
	ttm_drm_fence_fill(f, arg);
	if (no_user) {
		arg->handle = 0;
		ttm_drm_fence_obj_put(&f->base);
	}
	return ret;

err_restore:
	pthread_mutex_lock(&ddev->lock);
	list_for_each_entry_safe (dbo, tmp, &list, struct ttm_drm_bo, unfenced) {
		list_move_tail(&dbo->unfenced, &file->unfenced);
	}
	pthread_mutex_unlock(&ddev->lock);
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/* ---- memory managers -------------------------------------------------- */

/* A type MM_* may name: not LOCAL (fixed), below DRM_BO_MEM_TYPES. */
static bool ttm_drm_mm_type_ok(uint32_t mem_type)
{
	return mem_type > DRM_BO_MEM_LOCAL && mem_type < DRM_BO_MEM_TYPES;
}

/*
 * MM_INIT: a range manager for mem_type over p_size pages at p_offset.
 * -EINVAL for a bad magic/version, type, zero or overflowing range, or a
 * type that has a manager already.
 */
static int ttm_drm_mm_init_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_init_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	struct ttm_range_manager *rman;
	int ret;

	if (arg->magic != DRM_BO_INIT_MAGIC || arg->major != DRM_BO_INIT_MAJOR ||
	    arg->minor > DRM_BO_INIT_MINOR || !ttm_drm_mm_type_ok(arg->mem_type))
		return -EINVAL;
	/* Page frame numbers are 32-bit in a ttm_place. */
	if (!arg->p_size || arg->p_size > UINT32_MAX || arg->p_offset > UINT32_MAX ||
	    arg->p_offset + arg->p_size > (1ull << 32))
		return -EINVAL;
	rman = fault_should_fail(&ttm_fault_resource_alloc, sizeof(*rman))
		   ? NULL
		   : calloc(1, sizeof(*rman));
	if (!rman)
		return -ENOMEM;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (mt->rman || ttm_manager_type(&ddev->bdev, arg->mem_type)) {
		ret = -EINVAL;
		goto err;
	}
	ret = ttm_range_manager_init(rman, arg->mem_type == DRM_BO_MEM_TT, arg->p_size);
	if (ret)
		goto err;
	ret = ttm_set_driver_manager(&ddev->bdev, arg->mem_type, &rman->manager);
	if (ret) {
		ttm_range_manager_fini(rman);
		goto err;
	}
	pthread_mutex_lock(&ddev->lock);
	mt->rman = rman;
	mt->p_offset = arg->p_offset;
	mt->p_size = arg->p_size;
	mt->locked = false;
	pthread_mutex_unlock(&ddev->lock);
	pthread_rwlock_unlock(&ddev->mm_lock);
	return 0;
err:
	pthread_rwlock_unlock(&ddev->mm_lock);
	free(rman);
	return ret;
}

/*
 * Evict every buffer of @mem_type. NO_MOVE buffers (and NO_EVICT ones with
 * @ignore_no_evict) lose their pin for the eviction and get it back where
 * they land; mapped buffers go too (their CPU views are invalidated and
 * fault them back in wherever they are next). mm_lock held for
 * writing.
 */
static int ttm_drm_mm_evict(struct ttm_drm_device *ddev, unsigned mem_type, bool ignore_no_evict)
{
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct ttm_drm_bo **bos = NULL;
	struct ttm_drm_object *obj;
	size_t n = 0, cap;
	uint32_t id = 0;
	int ret;

	pthread_mutex_lock(&ddev->lock);
	cap = ddev->objects.count;
	if (cap && !fault_should_fail(&ttm_fault_uapi_alloc, cap * sizeof(*bos)))
		bos = calloc(cap, sizeof(*bos));
	if (cap && !bos) {
		pthread_mutex_unlock(&ddev->lock);
		return -ENOMEM;
	}
	while ((obj = ttm_drm_idr_next(&ddev->objects, &id)) && n < cap) {
		if (obj->type == TTM_DRM_OBJECT_BO) {
			obj->ops->get(obj);
			bos[n++] = to_ttm_drm_bo(obj);
		}
		id++;
	}
	pthread_mutex_unlock(&ddev->lock);

	for (size_t i = 0; i < n; i++) {
		struct ttm_drm_bo *dbo = bos[i];
		bool unpin;

		while (ttm_bo_reserve(&dbo->tbo, false, false, NULL))
			;
		unpin = dbo->flag_pinned && dbo->tbo.resource &&
			dbo->tbo.resource->mem_type == mem_type &&
			(ignore_no_evict || !(dbo->flags & DRM_BO_FLAG_NO_EVICT));
		if (unpin) {
			ttm_bo_unpin(&dbo->tbo);
			dbo->flag_pinned = false;
		} else {
			ttm_bo_unreserve(&dbo->tbo);
			ttm_bo_put(&dbo->tbo);
			bos[i] = NULL;
			continue;
		}
		ttm_bo_unreserve(&dbo->tbo);
	}
	ret = ttm_bo_evict_mem_type(&ddev->bdev, mem_type, &ctx);
	for (size_t i = 0; i < n; i++) {
		struct ttm_drm_bo *dbo = bos[i];

		if (!dbo)
			continue;
		while (ttm_bo_reserve(&dbo->tbo, false, false, NULL))
			;
		ttm_drm_bo_flag_pin(dbo, dbo->flags);
		ttm_bo_unreserve(&dbo->tbo);
		ttm_bo_put(&dbo->tbo);
	}
	free(bos);
	return ret;
}

/*
 * MM_LOCK/MM_UNLOCK: the caller holds mm_lock for writing, so no validate
 * is placing into the type; ddev->lock still guards @mem for its readers.
 */
static void ttm_drm_mm_set_locked(struct ttm_drm_device *ddev, struct ttm_drm_mem_type *mt,
				  bool locked)
{
	pthread_mutex_lock(&ddev->lock);
	mt->locked = locked;
	pthread_mutex_unlock(&ddev->lock);
}

/* MM_TAKEDOWN: evict the type and remove its manager; -EBUSY if buffers stay. */
static int ttm_drm_mm_takedown_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_type_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	int ret;

	if (!ttm_drm_mm_type_ok(arg->mem_type) || arg->lock_flags)
		return -EINVAL;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (!mt->rman) {
		ret = -EINVAL;
		goto out;
	}
	ret = ttm_drm_mm_evict(ddev, arg->mem_type, false);
	if (ret)
		goto out;
	ttm_set_driver_manager(&ddev->bdev, arg->mem_type, NULL);
	ret = ttm_range_manager_fini(mt->rman);
	if (ret) {
		ttm_set_driver_manager(&ddev->bdev, arg->mem_type, &mt->rman->manager);
		goto out;
	}
	free(mt->rman);
	pthread_mutex_lock(&ddev->lock);
	memset(mt, 0, sizeof(*mt));
	pthread_mutex_unlock(&ddev->lock);
out:
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

/*
 * MM_LOCK: evict every buffer of the type and keep new ones out until
 * MM_UNLOCK (the 2008 VT switch). lock_flags: UNLOCK_BM (accepted; there
 * is no separate buffer-manager lock here), IGNORE_NO_EVICT (evict NO_EVICT
 * buffers too). -EBUSY (and not locked) when buffers remain.
 */
static int ttm_drm_mm_lock_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_type_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	int ret;

	if (!ttm_drm_mm_type_ok(arg->mem_type) ||
	    (arg->lock_flags & ~(DRM_BO_LOCK_UNLOCK_BM | DRM_BO_LOCK_IGNORE_NO_EVICT)))
		return -EINVAL;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (!mt->rman || mt->locked) {
		ret = -EINVAL;
		goto out;
	}
	ret = ttm_drm_mm_evict(ddev, arg->mem_type, arg->lock_flags & DRM_BO_LOCK_IGNORE_NO_EVICT);
	if (!ret)
		ttm_drm_mm_set_locked(ddev, mt, true);
out:
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

static int ttm_drm_mm_unlock_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_type_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	int ret = 0;

	if (!ttm_drm_mm_type_ok(arg->mem_type) || (arg->lock_flags & ~DRM_BO_LOCK_UNLOCK_BM))
		return -EINVAL;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (!mt->rman || !mt->locked)
		ret = -EINVAL;
	else
		ttm_drm_mm_set_locked(ddev, mt, false);
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

/* MM_INFO: pages of a type (LOCAL: 0, it has no fixed size). */
static int ttm_drm_mm_info_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_info_arg *arg = data;
	int ret = 0;

	if (arg->mem_type >= DRM_BO_MEM_TYPES || arg->pad64)
		return -EINVAL;
	if (arg->mem_type == DRM_BO_MEM_LOCAL) {
		arg->p_size = 0;
		return 0;
	}
	pthread_mutex_lock(&ddev->lock);
	if (ddev->mem[arg->mem_type].rman)
		arg->p_size = ddev->mem[arg->mem_type].p_size;
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&ddev->lock);
	return ret;
}

/* ---- dispatch --------------------------------------------------------- */

struct ttm_drm_ioctl_desc {
	unsigned long request;
	int (*func)(struct ttm_drm_file *file, void *data);
};

#define TTM_DRM_IOCTL(req, fn) [TTM_DRM_IOC_NR(req) - 0xc0] = {.request = req, .func = fn}

static const struct ttm_drm_ioctl_desc ttm_drm_ioctls[] = {
    TTM_DRM_IOCTL(DRM_IOCTL_MM_INIT, ttm_drm_mm_init_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_TAKEDOWN, ttm_drm_mm_takedown_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_LOCK, ttm_drm_mm_lock_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_UNLOCK, ttm_drm_mm_unlock_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_CREATE, ttm_drm_fence_create_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_REFERENCE, ttm_drm_fence_reference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_UNREFERENCE, ttm_drm_fence_unreference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_SIGNALED, ttm_drm_fence_signaled_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_FLUSH, ttm_drm_fence_flush_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_WAIT, ttm_drm_fence_wait_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_EMIT, ttm_drm_fence_emit_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_FENCE_BUFFERS, ttm_drm_fence_buffers_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_CREATE, ttm_drm_bo_create_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_MAP, ttm_drm_bo_map_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_UNMAP, ttm_drm_bo_unmap_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_REFERENCE, ttm_drm_bo_reference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_UNREFERENCE, ttm_drm_bo_unreference_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_SETSTATUS, ttm_drm_bo_setstatus_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_INFO, ttm_drm_bo_info_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_WAIT_IDLE, ttm_drm_bo_wait_idle_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_BO_VERSION, ttm_drm_bo_version_ioctl),
    TTM_DRM_IOCTL(DRM_IOCTL_MM_INFO, ttm_drm_mm_info_ioctl),
};

int ttm_drm_copy_from_user(const struct ttm_drm_device *ddev, void *to, const void *from, size_t n)
{
	if (!n)
		return 0;
	if (!from)
		return -EFAULT;
	if (!ddev->driver->copy_from_user) {
		memcpy(to, from, n);
		return 0;
	}
	return ddev->driver->copy_from_user(to, from, n) ? -EFAULT : 0;
}

int ttm_drm_copy_to_user(const struct ttm_drm_device *ddev, void *to, const void *from, size_t n)
{
	if (!n)
		return 0;
	if (!to)
		return -EFAULT;
	if (!ddev->driver->copy_to_user) {
		memcpy(to, from, n);
		return 0;
	}
	return ddev->driver->copy_to_user(to, from, n) ? -EFAULT : 0;
}

/* Argument structs up to this size are copied on the stack (all of ours are). */
#define TTM_DRM_ARG_STACK 256

/*
 * Run @fn on a kernel copy of the @request's argument at @arg, as
 * drm_ioctl(): copied in when the request writes (else zeroed), copied
 * back when it reads, whatever @fn returned; a copy that fails is -EFAULT.
 */
static int ttm_drm_call(struct ttm_drm_file *file, unsigned long request, void *arg,
			int (*fn)(struct ttm_drm_file *file, unsigned long request, void *data))
{
	unsigned dir = TTM_DRM_IOC_DIR(request);
	size_t size = TTM_DRM_IOC_SIZE(request);
	_Alignas(max_align_t) unsigned char stack[TTM_DRM_ARG_STACK];
	void *data = stack;
	int ret;

	if (!size)
		return fn(file, request, NULL);
	if (!arg)
		return -EFAULT;
	if (size > sizeof(stack)) {
		if (fault_should_fail(&ttm_fault_uapi_alloc, size))
			return -ENOMEM;
		data = malloc(size);
		if (!data)
			return -ENOMEM;
	}
	if (dir & TTM_DRM_IOC_WRITE)
		ret = ttm_drm_copy_from_user(file->ddev, data, arg, size);
	else
		ret = (memset(data, 0, size), 0);
	if (!ret) {
		ret = fn(file, request, data);
		if ((dir & TTM_DRM_IOC_READ) && ttm_drm_copy_to_user(file->ddev, arg, data, size))
			ret = -EFAULT;
	}
	if (data != stack)
		free(data);
	return ret;
}

static int ttm_drm_command(struct ttm_drm_file *file, unsigned long request, void *data)
{
	return file->ddev->driver->command(file, TTM_DRM_IOC_NR(request) - DRM_COMMAND_BASE, data,
					   TTM_DRM_IOC_SIZE(request));
}

static int ttm_drm_core_ioctl(struct ttm_drm_file *file, unsigned long request, void *data)
{
	return ttm_drm_ioctls[TTM_DRM_IOC_NR(request) - 0xc0].func(file, data);
}

int ttm_drm_ioctl(int fd, unsigned long request, void *arg)
{
	const struct ttm_drm_ioctl_desc *desc = NULL;
	struct ttm_drm_file *file;
	unsigned nr = TTM_DRM_IOC_NR(request);
	unsigned dir = TTM_DRM_IOC_DIR(request);
	size_t size = TTM_DRM_IOC_SIZE(request);
	int ret;

	file = ttm_drm_file_get_fd(fd);
	if (!file)
		return -EBADF;
	if (TTM_DRM_IOC_TYPE(request) != DRM_IOCTL_BASE || request > UINT32_MAX) {
		ret = -ENOTTY;
	} else if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END) {
		/* A command without data is DRM_IO; with data it must say which way. */
		if ((size && dir == TTM_DRM_IOC_NONE) || (!size && dir != TTM_DRM_IOC_NONE))
			ret = -ENOTTY;
		else if (size && !arg)
			ret = -EFAULT;
		else if (!file->ddev->driver->command)
			ret = -EINVAL;
		else
			ret = ttm_drm_call(file, request, arg, ttm_drm_command);
	} else {
		if (nr >= 0xc0 && nr - 0xc0 < sizeof(ttm_drm_ioctls) / sizeof(ttm_drm_ioctls[0]))
			desc = &ttm_drm_ioctls[nr - 0xc0];
		if (!desc || !desc->func || desc->request != request)
			ret = -ENOTTY;
		else if (!arg)
			ret = -EFAULT;
		else
			ret = ttm_drm_call(file, request, arg, ttm_drm_core_ioctl);
	}
	ttm_drm_file_put(file);
	return ret;
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
