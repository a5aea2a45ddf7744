// SPDX-License-Identifier: MIT
/*
 * ttm_bo.c: buffer-object lifetime (init, references, release and delayed
 * destroy), reservation, LRU position, pinning and swapout. Placement and
 * moves live in ttm_bo_validate.c and ttm_bo_util.c (see ttm_bo_internal.h).
 *
 * Lifetime in short: the last ttm_bo_put() of an idle BO frees it at once.
 * A busy one is marked deleted, gets its refcount back to one (that
 * reference belongs to the device's delayed-destroy list) and stays on its
 * LRU, so that eviction can still find it and release its space with
 * ttm_bo_cleanup_refs(). Whoever takes it off the list drops the list's
 * reference; the put that then reaches zero again only frees the struct.
 */
#include <errno.h>
#include <stdlib.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_trace.h>

#include "ttm_bo_internal.h"

/* ttm_bo_init_common()'s body, inline in ttm_bo_init_reserved() (BO creation). */
static inline __attribute__((always_inline)) int
ttm_bo_init_common_inl(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
		       enum ttm_bo_type type, uint32_t page_alignment, struct dma_resv *resv,
		       void (*destroy)(struct ttm_buffer_object *bo))
{
	if (!bdev || !bo || !destroy)
		return -EINVAL;
	if (!size || size > UINT64_MAX - (TTM_PAGE_SIZE - 1))
		return -EINVAL;
	if (page_alignment & (page_alignment - 1))
		return -EINVAL;
	if (bo->priority >= TTM_MAX_BO_PRIORITY)
		return -EINVAL;
	if (type != ttm_bo_type_device && type != ttm_bo_type_kernel && type != ttm_bo_type_userptr)
		return -EINVAL;

	bo->bdev = bdev;
	bo->type = type;
	bo->size = (size + TTM_PAGE_SIZE - 1) & ~(TTM_PAGE_SIZE - 1);
	bo->page_alignment = page_alignment;
	bo->destroy = destroy;
	atomic_init(&bo->refcount, 1);
	dma_resv_init(&bo->base_resv);
	bo->resv = resv ? resv : &bo->base_resv;
	bo->bulk_move = NULL;
	bo->vm = NULL;
	bo->resource = NULL;
	bo->ttm = NULL;
	bo->pin_count = 0;
	bo->deleted = false;
	bo->queued = false;
	bo->is_ghost = false;
	INIT_LIST_HEAD(&bo->ddestroy);
	atomic_fetch_add(&bdev->stats.bo_count, 1);
	return 0;
}

int ttm_bo_init_common(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
		       enum ttm_bo_type type, uint32_t page_alignment, struct dma_resv *resv,
		       void (*destroy)(struct ttm_buffer_object *bo))
{
	return ttm_bo_init_common_inl(bdev, bo, size, type, page_alignment, resv, destroy);
}

/* A userptr BO is an EXTERNAL tt over the creator's pages: only tt types. */
static bool ttm_bo_userptr_placement_ok(const struct ttm_placement *placement)
{
	for (unsigned i = 0; i < placement->num_placement; i++) {
		uint32_t t = placement->placement[i].mem_type;

		if (t != TTM_PL_SYSTEM && t != TTM_PL_TT)
			return false;
	}
	return true;
}

int ttm_bo_init_reserved(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
			 enum ttm_bo_type type, const struct ttm_placement *placement,
			 uint32_t page_alignment, struct ttm_operation_ctx *ctx,
			 struct dma_resv *resv, void (*destroy)(struct ttm_buffer_object *bo))
{
	int ret;

	if (!bo || !destroy)
		return -EINVAL;
	if (!bdev || !placement || !placement->num_placement || !placement->placement || !ctx)
		goto err_destroy_inval;
	if (type == ttm_bo_type_userptr &&
	    (!bo->user_ptr || ((uintptr_t)bo->user_ptr & (TTM_PAGE_SIZE - 1)) ||
	     !ttm_bo_userptr_placement_ok(placement)))
		goto err_destroy_inval;
	/* The kernel's kzalloc of the BO is the caller's here; fail where it would. */
	if (fault_should_fail(&ttm_fault_bo_alloc, sizeof(*bo))) {
		destroy(bo);
		return -ENOMEM;
	}
	ret = ttm_bo_init_common_inl(bdev, bo, size, type, page_alignment, resv, destroy);
	if (ret) {
		destroy(bo);
		return ret;
	}
	/* A shared reservation is the caller's and already locked by it. */
	if (!resv && !dma_resv_trylock(bo->resv)) {
		/* Nobody else can know the new BO's own lock. */
		ttm_bo_put(bo);
		return -EBUSY;
	}
	ret = ttm_bo_validate(bo, placement, ctx);
	if (ret) {
		if (!resv)
			dma_resv_unlock(bo->resv);
		ttm_bo_put(bo);
		return ret;
	}
	return 0;

err_destroy_inval:
	destroy(bo);
	return -EINVAL;
}

int ttm_bo_init_validate(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
			 enum ttm_bo_type type, const struct ttm_placement *placement,
			 uint32_t page_alignment, struct ttm_operation_ctx *ctx,
			 struct dma_resv *resv, void (*destroy)(struct ttm_buffer_object *bo))
{
	int ret = ttm_bo_init_reserved(bdev, bo, size, type, placement, page_alignment, ctx, resv,
				       destroy);

	if (ret)
		return ret;
	if (!resv)
		ttm_bo_unreserve(bo);
	return 0;
}

struct ttm_buffer_object *ttm_bo_get_unless_zero(struct ttm_buffer_object *bo)
{
	long old = atomic_load_explicit(&bo->refcount, memory_order_relaxed);

	do {
		if (old == 0)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(
	    &bo->refcount, &old, old + 1, memory_order_acquire, memory_order_relaxed));
	return bo;
}

/*
 * Drop everything the BO occupies: driver bindings, the tt and its pages,
 * the resource (off whichever list it is on). Reserved or unreachable.
 * Idempotent, so two cleanups racing for a deleted BO free things once.
 */
static void ttm_bo_cleanup_memtype_use(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	if (!bo->resource && !bo->ttm)
		return;
	if (bdev->funcs->delete_mem_notify)
		bdev->funcs->delete_mem_notify(bo);
	/* Also uncounts a swapped tt. */
	ttm_bo_tt_destroy(bo);
	if (bo->resource) {
		ttm_lock(&bdev->lru_lock);
		ttm_resource_free(ttm_manager_type(bdev, bo->resource->mem_type), &bo->resource);
		ttm_unlock(&bdev->lru_lock);
	}
}

/*
 * The struct itself goes: refcount zero, nothing held any more. A ghost's
 * destroy (ttm_bo_util.c) uncounts it as a ghost.
 */
/*
 * Tell the driver @bo is going away while its resource and tt still exist,
 * as the kernel does: the driver may need to look at where the BO lives
 * (unmap it from a GPU VM, drop a per-region reference) before the memory
 * is handed back. Called exactly once per BO, idle and reserved (or
 * unreachable), by whoever releases its memory first.
 */
static void ttm_bo_notify_release(struct ttm_buffer_object *bo)
{
	if (bo->bdev->funcs->release_notify)
		bo->bdev->funcs->release_notify(bo);
}

static void ttm_bo_free(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;
	bool queued = bo->queued;

	dma_resv_fini(&bo->base_resv);
	bo->destroy(bo);
	/*
	 * The counters drop only after destroy() ran (it may still look at the
	 * device, as a ghost's does): ttm_device_fini() and a waiting
	 * ttm_device_flush_delayed() go by them. For the same reason a queued
	 * BO leaves the ddestroy count here, not when it leaves the list, so a
	 * flush cannot return while a cleaner still holds its last reference.
	 * Only what the last put counted is uncounted: a BO may also have been
	 * marked deleted by hand without ever being queued.
	 */
	if (queued)
		atomic_fetch_sub(&bdev->stats.ddestroy, 1);
	atomic_fetch_sub(&bdev->stats.bo_count, 1);
}

/*
 * A BO sharing a reservation would otherwise wait, once deleted, for every
 * fence of every BO sharing it. Copy the shared fences into the BO's own
 * object and use that from now on (refcount is zero: nobody else looks).
 * On failure the shared one stays in use, which is only slower.
 */
static void ttm_bo_individualize_resv(struct ttm_buffer_object *bo)
{
	struct dma_fence **fences;
	unsigned n;

	if (bo->resv == &bo->base_resv)
		return;
	if (dma_resv_get_fences(bo->resv, DMA_RESV_USAGE_BOOKKEEP, &n, &fences))
		return;
	if (!dma_resv_trylock(&bo->base_resv))
		goto out;
	if (n && dma_resv_reserve_fences(&bo->base_resv, n)) {
		dma_resv_unlock(&bo->base_resv);
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		dma_resv_add_fence(&bo->base_resv, fences[i], DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_unlock(&bo->base_resv);
	bo->resv = &bo->base_resv;
out:
	dma_resv_put_fences(fences, n);
}

static void ttm_bo_release(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	/*
	 * A deleted BO is not released again: it comes off the delayed list
	 * (empty), or its owner marked it deleted by hand and, as in the kernel,
	 * answers for its memory (eviction releases a deleted BO's).
	 */
	if (bo->deleted) {
		ttm_bo_free(bo);
		return;
	}
	ttm_bo_individualize_resv(bo);
	if (dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP) &&
	    dma_resv_trylock(bo->resv)) {
		ttm_bo_notify_release(bo);
		ttm_bo_cleanup_memtype_use(bo);
		dma_resv_unlock(bo->resv);
		ttm_bo_free(bo);
		return;
	}

	/*
	 * Busy: keep the space claimed until the GPU is done. The resource stays
	 * on its LRU (a pinned one goes back to it) so that eviction can find
	 * the dead BO and release it early.
	 */
	ttm_lock(&bdev->lru_lock);
	bo->deleted = true;
	bo->queued = true;
	if (bo->pin_count) {
		bo->pin_count = 0;
		atomic_fetch_sub(&bdev->stats.pinned, 1);
	}
	ttm_bo_lru_update_locked(bo);
	atomic_store_explicit(&bo->refcount, 1, memory_order_release);
	list_add_tail(&bo->ddestroy, &bdev->ddestroy_list);
	atomic_fetch_add(&bdev->stats.ddestroy, 1);
	ttm_event_signal(&bdev->worker_wake);
	ttm_unlock(&bdev->lru_lock);
}

void ttm_bo_put(struct ttm_buffer_object *bo)
{
	if (atomic_fetch_sub_explicit(&bo->refcount, 1, memory_order_acq_rel) == 1)
		ttm_bo_release(bo);
}

int ttm_bo_cleanup_refs(struct ttm_buffer_object *bo, bool interruptible, bool no_wait_gpu,
			bool unlock_resv)
{
	struct ttm_device *bdev = bo->bdev;
	bool on_list;
	int ret = 0;

	if (!dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		int64_t lret;

		if (no_wait_gpu) {
			ret = -EBUSY;
			goto out;
		}
		lret = dma_resv_wait_timeout(bo->resv, DMA_RESV_USAGE_BOOKKEEP, interruptible,
					     MAX_SCHEDULE_TIMEOUT);
		if (lret < 0) {
			ret = (int)lret;
			goto out;
		}
	}

	ttm_lock(&bdev->lru_lock);
	on_list = !list_empty(&bo->ddestroy);
	if (on_list)
		list_del_init(&bo->ddestroy);
	ttm_unlock(&bdev->lru_lock);

	/* Only the cleaner that took it off the list owns its release. */
	if (on_list)
		ttm_bo_notify_release(bo);
	ttm_bo_cleanup_memtype_use(bo);
	if (unlock_resv) {
		dma_resv_unlock(bo->resv);
		unlock_resv = false;
	}
	/* The caller's own reference keeps this from being the last one. */
	if (on_list)
		ttm_bo_put(bo);
out:
	if (unlock_resv)
		dma_resv_unlock(bo->resv);
	return ret;
}

int ttm_bo_reserve(struct ttm_buffer_object *bo, bool interruptible, bool no_wait,
		   struct ww_acquire_ctx *ticket)
{
	if (no_wait) {
		/* Wait-die needs to be able to wait: the kernel refuses the pair. */
		if (ticket)
			return -EBUSY;
		return dma_resv_trylock(bo->resv) ? 0 : -EBUSY;
	}
	if (interruptible)
		return dma_resv_lock_interruptible(bo->resv, ticket);
	return dma_resv_lock(bo->resv, ticket);
}

int ttm_bo_reserve_slowpath(struct ttm_buffer_object *bo, bool interruptible,
			    struct ww_acquire_ctx *ticket)
{
	if (interruptible)
		return ww_mutex_lock_slow_interruptible(&bo->resv->lock, ticket);
	dma_resv_lock_slow(bo->resv, ticket);
	return 0;
}

/*
 * The list the common LRU bump moves @res to the tail of: @bo unpinned and
 * outside any bulk, @res keeping its priority. NULL when not that case.
 * Reads only what @bo's reservation keeps stable.
 */
static inline struct list_head *ttm_bo_lru_simple_head(struct ttm_buffer_object *bo,
						       struct ttm_resource *res)
{
	if (bo->pin_count || res->priority != bo->priority || res->bulk_move || bo->bulk_move)
		return NULL;
	return &bo->bdev->man_drv[res->mem_type]
		    ->lru[res->priority < TTM_MAX_BO_PRIORITY ? res->priority
							      : TTM_MAX_BO_PRIORITY - 1];
}

/*
 * The common LRU bump: an unpinned BO outside any bulk whose resource keeps
 * its priority goes to the tail of its list with one list_move_tail() (as
 * the kernel's ttm_resource_move_to_lru_tail()), or stays when it is there
 * already; this also takes it off the pinned list. False: not that case.
 */
static inline bool ttm_bo_lru_bump_simple(struct ttm_buffer_object *bo, struct ttm_resource *res)
{
	struct list_head *head = ttm_bo_lru_simple_head(bo, res);

	if (!head)
		return false;
	if (head->prev != &res->lru)
		list_move_tail(&res->lru, head);
	return true;
}

/*
 * Everything but the common bump, out of line: the common case then needs no
 * register saves and ends in a tail call at worst.
 */
static __attribute__((noinline)) void ttm_bo_lru_update_slow_locked(struct ttm_buffer_object *bo,
								    struct ttm_resource *res)
{
	struct ttm_resource_manager *man = ttm_manager_type(bo->bdev, res->mem_type);

	if (bo->pin_count) {
		/* lru_del also leaves the bulk: a pinned BO is nobody's LRU entry. */
		ttm_resource_lru_del(man, res);
		list_add_tail(&res->lru, &bo->bdev->pinned);
		return;
	}
	/*
	 * A resource that changes priority or bulk, or comes back from the
	 * pinned list, is taken off first so that the bulk ranges stay exact.
	 */
	if (res->priority != bo->priority || res->bulk_move != bo->bulk_move) {
		ttm_resource_lru_del(man, res);
		res->priority = bo->priority;
		ttm_resource_lru_add(man, res);
		if (bo->bulk_move)
			ttm_lru_bulk_move_add(bo->bulk_move, man, res);
		return;
	}
	ttm_resource_lru_move_tail(man, res);
}

void ttm_bo_lru_update_locked(struct ttm_buffer_object *bo)
{
	struct ttm_resource *res = bo->resource;

	if (res && !ttm_bo_lru_bump_simple(bo, res))
		ttm_bo_lru_update_slow_locked(bo, res);
}

void ttm_bo_move_to_lru_tail(struct ttm_buffer_object *bo)
{
	ttm_bo_lru_update_locked(bo);
}

void ttm_bo_unreserve(struct ttm_buffer_object *bo)
{
	struct ttm_resource *res = bo->resource;
	struct list_head *head;

	/*
	 * A resource already last on its list would not move: the bump is
	 * skipped without the LRU lock (its writers store ->prev atomically).
	 * The reservation keeps @res on that list; a writer adding behind it
	 * meanwhile orders after this bump. No resource: nothing to bump.
	 */
	if (res) {
		head = ttm_bo_lru_simple_head(bo, res);
		if (!head || !list_is_tail_lockless(&res->lru, head)) {
			ttm_lock(&bo->bdev->lru_lock);
			if (!ttm_bo_lru_bump_simple(bo, res))
				ttm_bo_lru_update_locked(bo);
			ttm_unlock(&bo->bdev->lru_lock);
		}
	}
	dma_resv_unlock(bo->resv);
}

void ttm_bo_set_bulk_move(struct ttm_buffer_object *bo, struct ttm_lru_bulk_move *bulk)
{
	if (bo->bulk_move == bulk)
		return;
	ttm_lock(&bo->bdev->lru_lock);
	bo->bulk_move = bulk;
	ttm_bo_lru_update_locked(bo);
	ttm_unlock(&bo->bdev->lru_lock);
}

/*
 * pin_count is written under the LRU lock as well as the reservation, so
 * LRU walkers, which hold only the former, read a stable value.
 */
void ttm_bo_pin(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	ttm_lock(&bdev->lru_lock);
	if (bo->pin_count++ == 0) {
		atomic_fetch_add(&bdev->stats.pinned, 1);
		ttm_bo_lru_update_locked(bo);
	}
	ttm_unlock(&bdev->lru_lock);
}

void ttm_bo_unpin(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	ttm_lock(&bdev->lru_lock);
	if (bo->pin_count && --bo->pin_count == 0) {
		atomic_fetch_sub(&bdev->stats.pinned, 1);
		ttm_bo_lru_update_locked(bo);
	}
	ttm_unlock(&bdev->lru_lock);
}

int ttm_bo_wait_ctx(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx)
{
	struct dma_fence **fences;
	unsigned n;
	int ret;

	if (!dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		int64_t lret;

		if (ctx->no_wait_gpu)
			return -EBUSY;
		lret = dma_resv_wait_timeout(bo->resv, DMA_RESV_USAGE_BOOKKEEP, ctx->interruptible,
					     MAX_SCHEDULE_TIMEOUT);
		if (lret < 0)
			return (int)lret;
		if (lret == 0)
			return -EBUSY;
	}
	/* Idle now; a fence that signalled with an error fails the wait. */
	ret = dma_resv_get_fences(bo->resv, DMA_RESV_USAGE_BOOKKEEP, &n, &fences);
	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++) {
		int status = dma_fence_get_status(fences[i]);

		if (status < 0) {
			ret = status;
			break;
		}
	}
	dma_resv_put_fences(fences, n);
	return ret;
}

long ttm_bo_swapout(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_resource_manager *man;
	long ret;

	if (bo->pin_count || bo->type == ttm_bo_type_userptr)
		return -EBUSY;
	if (!bo->ttm || !bo->resource || !ttm_tt_is_populated(bo->ttm))
		return -EINVAL;
	if (bo->ttm->page_flags & TTM_TT_FLAG_EXTERNAL)
		return -EBUSY;
	man = ttm_manager_type(bdev, bo->resource->mem_type);
	if (!man || !man->use_tt)
		return -EBUSY;
	if (!dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP))
		return -EBUSY;

	/*
	 * Swapped pages cannot stay bound in an aperture: the BO drops to
	 * SYSTEM first (through the driver's move, which unbinds), and is
	 * swapped back in by ttm_bo_populate() when it is next used.
	 */
	if (bo->resource->mem_type != TTM_PL_SYSTEM) {
		static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
		static const struct ttm_placement sys_placement = {1, &sys_place};
		struct ttm_operation_ctx vctx = {
		    .interruptible = ctx->interruptible,
		    .no_wait_gpu = true,
		};
		int vret = ttm_bo_validate(bo, &sys_placement, &vctx);

		if (vret)
			return vret;
		if (!bo->ttm || !ttm_tt_is_populated(bo->ttm))
			return -EINVAL;
	}

	if (bdev->funcs->swap_notify)
		bdev->funcs->swap_notify(bo);
	ttm_bo_unmap_virtual(bo);
	ret = ttm_tt_swapout(&bdev->pool, bo->ttm);
	if (ret < 0)
		return ret;
	atomic_fetch_add(&bdev->stats.swapped, 1);
	atomic_fetch_add(&bdev->stats.swapouts, 1);
	TTM_PROBE2(swapout, bo, ret);
	return ret;
}
