// SPDX-License-Identifier: MIT
/*
 * ttm_bo_validate: finding a place for a BO and moving it there. Placement
 * passes, eviction in LRU order, recursive eviction, move fences, multi-hop
 * moves and evict-all.
 *
 * The BO being validated is reserved by the caller. Eviction victims are
 * reserved by trylock while the LRU lock is held (a trylock cannot block,
 * so taking a reservation inside the LRU lock does not break the lock order
 * of ttm_device.h); only a caller with a ww ticket ever sleeps on a victim's
 * reservation, and then after dropping the LRU lock, so wait-die resolves
 * any cycle with -EDEADLK.
 *
 * Internally "no space" is -ENOSPC; ttm_bo_validate() reports it as -ENOMEM
 * (the 2008 API and the kernel's backward-compatible return value), which
 * is also what a failed allocation says. ttm_bo_validate_nospc() keeps the
 * two apart for drivers whose callers must tell them apart.
 */
#include <errno.h>
#include <unistd.h>
#include <time.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_delay.h>
#include <ttm/ttm_trace.h>
#include <ttm/ww_lockdep.h>

#include "ttm_bo_internal.h"

/*
 * Eviction recursion: a victim evicted from VRAM may need room in TT, whose
 * victims go to SYSTEM. Deeper chains only arise from evict_flags that
 * point back up, which would otherwise recurse without end.
 */
#define TTM_EVICT_MAX_DEPTH 4
/* VRAM -> TT -> SYSTEM needs one hop; allow a driver one more. */
#define TTM_MAX_HOPS 2
/* Looks again after an eviction scan met BOs held by others (-EAGAIN). */
#define TTM_EVICT_MAX_RESCANS 64

static int ttm_bo_mem_space(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
			    struct ttm_operation_ctx *ctx, uint32_t skip_flags, bool force_space,
			    unsigned depth, struct ttm_resource **res, bool *busy);

static void ttm_bo_free_new(struct ttm_buffer_object *bo, struct ttm_resource *res)
{
	struct ttm_device *bdev = bo->bdev;

	ttm_lock(&bdev->lru_lock);
	ttm_resource_free(ttm_manager_type(bdev, res->mem_type), &res);
	ttm_unlock(&bdev->lru_lock);
}

/*
 * Before @bo takes pages for a move that the pool cannot serve: deleted BOs
 * whose fences have all signalled give their pages back to the pool now, not
 * when the delayed-destroy worker next runs. The ghost of a pipelined move
 * out of tt memory holds the BO's old pages until its copy is done; under
 * thrash an eviction follows that copy at once, and with the worker not yet
 * scheduled (two cores, the client, the command streamer and its interrupt
 * thread all runnable) the victim's pages came fresh from the OS instead of
 * from the ghost that had just gone idle: up to dozens of ghosts in flight
 * and a fresh block per eviction, whose first touch the copy pays. Only
 * trylocks, as the worker's pass takes them, so the reservations the caller
 * holds are fine; a deleted BO still busy is left to the worker.
 */
static void ttm_bo_release_idle_deleted(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	if (!bo->ttm || ttm_tt_is_populated(bo->ttm) ||
	    !atomic_load_explicit(&bdev->stats.ddestroy, memory_order_relaxed) ||
	    ttm_pool_can_serve(&bdev->pool, bo->ttm))
		return;
	ttm_device_flush_delayed(bdev, false);
}

/*
 * Move @bo into @new_mem (allocated, not yet the BO's). On success the
 * resource belongs to the BO; on failure it is still the caller's.
 */
static int ttm_bo_handle_move_mem(struct ttm_buffer_object *bo, struct ttm_resource *new_mem,
				  bool evict, struct ttm_operation_ctx *ctx, struct ttm_place *hop)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_resource_manager *new_man = ttm_manager_type(bdev, new_mem->mem_type);
	uint32_t from = bo->resource ? bo->resource->mem_type : TTM_NUM_MEM_TYPES;
	bool had_tt = bo->ttm != NULL;
	int ret;

	/* Every CPU view must fault again and find the content's new home. */
	ttm_bo_unmap_virtual(bo);

	if (new_man->use_tt) {
		/* Only a BO that never had content starts zeroed. */
		ret = ttm_bo_tt_create(bo, !bo->resource);
		/* SYSTEM pages appear on first use; a bound type needs them now. */
		if (!ret && new_mem->mem_type != TTM_PL_SYSTEM) {
			ttm_bo_release_idle_deleted(bo);
			ret = ttm_bo_populate(bo, ctx);
		}
		if (ret)
			goto out_err;
	}

	/* The driver's move may fence the BO: room for that fence, as in the kernel. */
	ret = dma_resv_reserve_fences(bo->resv, 1);
	if (ret)
		goto out_err;
	if (bdev->funcs->move)
		ret = bdev->funcs->move(bo, evict, ctx, new_mem, hop);
	else
		ret = ttm_bo_move_memcpy(bo, ctx, new_mem);
	if (ret)
		goto out_err;

	ctx->bytes_moved += bo->size;
	if (!evict)
		ctx->moves++;
	atomic_fetch_add_explicit(&bdev->stats.bytes_moved, bo->size, memory_order_relaxed);
	TTM_PROBE4(move, bo, bo->size, from, new_mem->mem_type);
	return 0;

out_err:
	/* A tt made for the move only holds nothing the BO still needs. */
	if (!had_tt)
		ttm_bo_tt_destroy(bo);
	return ret;
}

/*
 * Move @bo to a temporary place the driver asked for (-EMULTIHOP). @evict is
 * the caller's: the first leg of an eviction is an eviction too, so a
 * pipelined copy out of VRAM frees the old memory at once instead of
 * leaving it to a ghost (see ttm_bo_move_accel_cleanup()).
 */
static int ttm_bo_bounce(struct ttm_buffer_object *bo, const struct ttm_place *hop, bool evict,
			 struct ttm_operation_ctx *ctx, unsigned depth)
{
	struct ttm_place place = *hop;
	struct ttm_placement placement = {.num_placement = 1, .placement = &place};
	struct ttm_resource *hop_mem = NULL;
	struct ttm_place again = {0};
	bool busy = false;
	int ret;

	place.flags &= ~(TTM_PL_FLAG_DESIRED | TTM_PL_FLAG_FALLBACK);
	if (!ttm_manager_type(bo->bdev, place.mem_type))
		return -EINVAL;
	ret = ttm_bo_mem_space(bo, &placement, ctx, 0, false, depth, &hop_mem, &busy);
	if (ret == -ENOSPC)
		ret = ttm_bo_mem_space(bo, &placement, ctx, 0, true, depth, &hop_mem, &busy);
	if (ret)
		return ret;
	ret = ttm_bo_handle_move_mem(bo, hop_mem, evict, ctx, &again);
	if (ret) {
		ttm_bo_free_new(bo, hop_mem);
		/* A hop that needs a hop is a driver bug. */
		return ret == -EMULTIHOP ? -EINVAL : ret;
	}
	return 0;
}

/*
 * handle_move_mem() following the driver's hops. @new_mem as there. Inline
 * in validate, which moves on every call that does not return early; out
 * of line (ttm_bo_move_hops()) for evictions.
 */
static inline __attribute__((always_inline)) int
ttm_bo_move_hops_inl(struct ttm_buffer_object *bo, struct ttm_resource *new_mem, bool evict,
		     struct ttm_operation_ctx *ctx, unsigned depth)
{
	for (unsigned hops = 0;; hops++) {
		struct ttm_place hop = {0};
		int ret;

		ret = ttm_bo_handle_move_mem(bo, new_mem, evict, ctx, &hop);
		if (ret != -EMULTIHOP)
			return ret;
		if (hops == TTM_MAX_HOPS)
			return -EINVAL;
		ret = ttm_bo_bounce(bo, &hop, evict, ctx, depth);
		if (ret)
			return ret;
	}
}

static __attribute__((noinline)) int ttm_bo_move_hops(struct ttm_buffer_object *bo,
						      struct ttm_resource *new_mem, bool evict,
						      struct ttm_operation_ctx *ctx, unsigned depth)
{
	return ttm_bo_move_hops_inl(bo, new_mem, evict, ctx, depth);
}

/* Move a victim to where its driver wants evicted BOs of its type. */
static int ttm_bo_evict(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx, unsigned depth)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_placement placement = {0};
	struct ttm_resource *evict_mem = NULL;
	uint32_t from = bo->resource->mem_type;
	bool busy = false;
	int ret;

#if TTM_EVICT_DELAY
	/* The regression the benchmarks must notice (-Devict_delay_ns). */
	bo = ttm_delay_after(TTM_EVICT_DELAY_NS, bo, from);
	bdev = bo->bdev;
#endif
	bdev->funcs->evict_flags(bo, &placement);
	if (!placement.num_placement) {
		ret = ttm_bo_pipeline_gutting(bo);
		if (ret)
			return ret;
		goto out_count;
	}

	ret = ttm_bo_mem_space(bo, &placement, ctx, TTM_PL_FLAG_DESIRED, false, depth, &evict_mem,
			       &busy);
	if (ret == -ENOSPC)
		ret = ttm_bo_mem_space(bo, &placement, ctx, TTM_PL_FLAG_DESIRED, true, depth,
				       &evict_mem, &busy);
	/*
	 * Only the victim's own target types were busy (their manager, their
	 * victims or a move into them): the victim cannot go anywhere, which
	 * for the BO being placed means no space in this type, as in the
	 * kernel, where validate then tries its next place and ends with
	 * -ENOMEM rather than -EBUSY. Victims busy in the type being evicted
	 * from are reported by the caller's walk, not here.
	 */
	if (ret)
		return ret;
	ret = ttm_bo_move_hops(bo, evict_mem, true, ctx, depth);
	if (ret) {
		ttm_bo_free_new(bo, evict_mem);
		return ret;
	}

out_count:
	ctx->evictions++;
	atomic_fetch_add_explicit(&bdev->stats.evictions, 1, memory_order_relaxed);
	TTM_PROBE3(evict, bo, from, bo->size);
	return 0;
}

/* Would evicting @victim make room for @size bytes in @place? */
static bool ttm_bo_evict_valuable(struct ttm_device *bdev, struct ttm_resource_manager *man,
				  struct ttm_buffer_object *victim, const struct ttm_place *place,
				  uint64_t size)
{
	if (!place)
		return true;
	if (bdev->funcs->eviction_valuable)
		return bdev->funcs->eviction_valuable(victim, place);
	return ttm_resource_intersects(man, victim->resource, place, size);
}

/*
 * Is @victim (reserved, LRU lock held) one eviction may take? Sets *@busy
 * when only its fences, which we may not wait for, stand in the way.
 */
static bool ttm_bo_evict_candidate(struct ttm_device *bdev, struct ttm_resource_manager *man,
				   struct ttm_buffer_object *victim, struct ttm_resource *res,
				   const struct ttm_place *place, uint64_t size,
				   struct ttm_operation_ctx *ctx, bool *busy)
{
	if (victim->resource != res || victim->pin_count)
		return false;
	if (!ttm_bo_evict_valuable(bdev, man, victim, place, size))
		return false;
	if (ctx->no_wait_gpu && !dma_resv_test_signaled(victim->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		*busy = true;
		return false;
	}
	return true;
}

/*
 * May eviction sleep on the reservation of @b, which someone else holds?
 * With a ticket, yes: wait-die settles any cycle. Without one only when
 * waiting is allowed and @b is a deleted BO with its own reservation: such a
 * reservation is held only by whoever releases the BO (the delayed-destroy
 * worker, another evictor, a flush), and they wait for fences, never for
 * another reservation, so sleeping on it cannot close a cycle.
 */
static bool ttm_bo_evict_may_sleep_on(struct ttm_operation_ctx *ctx, struct ttm_buffer_object *b)
{
	if (ctx->ticket)
		return true;
	return !ctx->no_wait_gpu && b->deleted && b->resv == &b->base_resv;
}

/*
 * Only live BOs held by others (without a ticket) stood in the way. Their
 * holders may be waiting for a reservation the caller holds, so the caller
 * must not sleep on them; it gives them a moment, growing with @rescans,
 * and looks again.
 */
static void ttm_bo_evict_backoff(unsigned rescans)
{
	unsigned us = 100u * (rescans + 1);

	usleep(us < 2000u ? us : 2000u);
}

/*
 * Free some space in memory type @mem_type for @place: release the least recently used
 * deleted BO or evict the least recently used BO, lowest priority first.
 * @self is the BO being placed (never a victim), NULL for evict-all.
 * @rescans: how often the caller already looked again after -EAGAIN (sets
 * the back-off).
 *
 * A BO reserved by someone else is a candidate only to a caller that may
 * wait. When nothing else can go, such a caller sleeps on one (ww rules with
 * a ticket; without one only on a deleted BO, see
 * ttm_bo_evict_may_sleep_on()) and takes it if it is still there, or backs
 * off when only live BOs were held; then it returns -EAGAIN and the caller
 * tries its allocation and this scan again (bounded by TTM_EVICT_MAX_RESCANS).
 * With no_wait_gpu a held BO counts as busy.
 *
 * Return: 0 (one BO gone); -ENOSPC (nothing evictable); -EBUSY (only busy
 * BOs, or held ones with no_wait_gpu); -EAGAIN (look again);
 * -EDEADLK/-EINTR/-EIO and errors of the victim's move.
 */
static int ttm_bo_evict_first(struct ttm_device *bdev, unsigned mem_type,
			      const struct ttm_place *place, struct ttm_buffer_object *self,
			      uint64_t size, struct ttm_operation_ctx *ctx, unsigned depth,
			      unsigned rescans, bool *busy)
{
	struct ttm_resource_manager *man = ttm_manager_type(bdev, mem_type);
	struct ttm_buffer_object *victim = NULL, *contended = NULL;
	bool locked = false, deleted = false, held = false;
	int ret;

	ttm_lock(&bdev->lru_lock);
	for (unsigned prio = 0; prio < TTM_MAX_BO_PRIORITY && !victim; prio++) {
		struct ttm_resource *res;

		list_for_each_entry (res, &man->lru[prio], struct ttm_resource, lru) {
			struct ttm_buffer_object *b = res->bo;
			bool l;

			/* A ghost not yet handed to delayed destroy is still being set up. */
			if (!b || b == self || (b->is_ghost && !b->deleted))
				continue;
			/* Sharing our reservation without allow_res_evict: off limits. */
			if (self && b->resv == self->resv && !ctx->allow_res_evict)
				continue;
			if (ctx->allow_res_evict && ctx->resv && b->resv == ctx->resv) {
				l = false;
			} else if (dma_resv_trylock(b->resv)) {
				l = true;
			} else {
				if (!contended && ttm_bo_evict_may_sleep_on(ctx, b))
					contended = ttm_bo_get_unless_zero(b);
				else if (ctx->ticket || !ctx->no_wait_gpu)
					held = true;
				else
					*busy = true;
				continue;
			}
			if (ttm_bo_evict_candidate(bdev, man, b, res, place, size, ctx, busy) &&
			    ttm_bo_get_unless_zero(b)) {
				victim = b;
				locked = l;
				deleted = b->deleted;
				break;
			}
			if (l)
				dma_resv_unlock(b->resv);
		}
	}
	ttm_unlock(&bdev->lru_lock);

	if (victim && contended) {
		ttm_bo_put(contended);
		contended = NULL;
	}
	if (!victim && contended) {
		/* Everything else was taken: sleep on the contended one. */
		if (!ctx->ticket)
			/* Deleted, own resv: its holders wait for fences, never for our locks. */
			ww_lockdep_nest_ok(&contended->resv->lock);
		if (ctx->interruptible)
			ret = dma_resv_lock_interruptible(contended->resv, ctx->ticket);
		else
			ret = dma_resv_lock(contended->resv, ctx->ticket);
		if (ret) {
			ttm_bo_put(contended);
			/* Our own transaction holds it: not a victim. */
			if (ret == -EALREADY)
				return *busy ? -EBUSY : -ENOSPC;
			return ret;
		}
		ttm_lock(&bdev->lru_lock);
		if (contended->resource && contended->resource->mem_type == mem_type &&
		    ttm_bo_evict_candidate(bdev, man, contended, contended->resource, place, size,
					   ctx, busy)) {
			victim = contended;
			locked = true;
			deleted = contended->deleted;
		}
		ttm_unlock(&bdev->lru_lock);
		if (!victim) {
			dma_resv_unlock(contended->resv);
			ttm_bo_put(contended);
			return -EAGAIN;
		}
	}
	if (!victim && held && !ctx->ticket) {
		ttm_bo_evict_backoff(rescans);
		return -EAGAIN;
	}
	if (!victim)
		return *busy ? -EBUSY : -ENOSPC;

	if (deleted) {
		/* A dead BO is released, never moved. */
		ret = ttm_bo_cleanup_refs(victim, ctx->interruptible, ctx->no_wait_gpu, locked);
		ttm_bo_put(victim);
		return ret;
	}
	ret = ttm_bo_evict(victim, ctx, depth);
	if (locked)
		ttm_bo_unreserve(victim);
	ttm_bo_put(victim);
	return ret;
}

/*
 * Allocate in @place, evicting from its type until the allocation fits or
 * nothing evictable is left. Return: as ttm_resource_alloc() plus the
 * errors of ttm_bo_evict_first() (-ENOSPC when nothing more can go).
 */
static int ttm_bo_evict_alloc(struct ttm_buffer_object *bo, struct ttm_resource_manager *man,
			      const struct ttm_place *place, struct ttm_operation_ctx *ctx,
			      unsigned depth, struct ttm_resource **res, bool *busy)
{
	unsigned rescans = 0;
	int ret;

	for (;;) {
		ret = ttm_resource_alloc(man, bo, place, bo->size, bo->page_alignment, res);
		if (ret != -ENOSPC)
			return ret;
		ret = ttm_bo_evict_first(bo->bdev, place->mem_type, place, bo, bo->size, ctx, depth,
					 rescans, busy);
		if (ret == -EAGAIN && ++rescans < TTM_EVICT_MAX_RESCANS)
			continue;
		if (ret == -EAGAIN)
			return -EBUSY;
		if (ret)
			return ret;
	}
}

/*
 * New allocations in @man may still be written by a pipelined move into
 * it: wait for that, or with no_wait_gpu report -EBUSY so that the caller
 * tries its next place. A move fence that signalled with an error (the
 * copy engine faulted or hung) is reported as that error (-EIO), as a
 * kernel wait on it would, and then dropped: the failed copy is reported
 * once, to the first allocation that meets it, and the type stays usable.
 * A driver whose move into the new resource of @bo is ordered after the
 * pending fence anyway (@move_orders_after) gets the fence as a dependency
 * in @bo's reservation instead of a CPU wait: an eviction blit and the
 * move-in blit that reuses its range then queue back to back on the copy
 * engine. @bo is NULL when nothing is about to be moved in.
 */
static int ttm_bo_wait_move_fence(struct ttm_buffer_object *bo, struct ttm_resource_manager *man,
				  struct ttm_operation_ctx *ctx)
{
	struct dma_fence *fence = ttm_resource_manager_get_move(man);
	int ret = 0;

	if (!fence)
		return 0;
	if (!dma_fence_is_signaled(fence)) {
		if (bo && bo->bdev->funcs->move_orders_after &&
		    bo->bdev->funcs->move_orders_after(bo, fence) &&
		    !dma_resv_reserve_fences(bo->resv, 1)) {
			dma_resv_add_fence(bo->resv, fence, DMA_RESV_USAGE_KERNEL);
			dma_fence_put(fence);
			return 0;
		}
		if (ctx->no_wait_gpu)
			ret = -EBUSY;
		else
			ret = dma_fence_wait(fence, ctx->interruptible);
	}
	if (!ret) {
		int status = dma_fence_get_status(fence);

		if (status < 0) {
			ret = status;
			ttm_resource_manager_drop_move(man, fence);
		}
	}
	dma_fence_put(fence);
	return ret;
}

/*
 * One pass over @placement: places carrying any of @skip_flags are left
 * out; with @force_space, full types (all but SYSTEM) are evicted from.
 * *@busy collects "busy BOs or a pending move fence stood in the way".
 * Return: 0 with *@res allocated; -ENOSPC; -EBUSY; hard errors at once.
 */
static inline __attribute__((always_inline)) int
ttm_bo_mem_space_inl(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
		     struct ttm_operation_ctx *ctx, uint32_t skip_flags, bool force_space,
		     unsigned depth, struct ttm_resource **res, bool *busy)
{
	struct ttm_device *bdev = bo->bdev;

	if (force_space && depth >= TTM_EVICT_MAX_DEPTH)
		return -ENOSPC;
	for (unsigned i = 0; i < placement->num_placement; i++) {
		const struct ttm_place *place = &placement->placement[i];
		struct ttm_resource_manager *man = ttm_manager_type(bdev, place->mem_type);
		int ret;

		if ((place->flags & skip_flags) || !man || !man->use_type)
			continue;
		if (force_space && place->mem_type != TTM_PL_SYSTEM)
			ret = ttm_bo_evict_alloc(bo, man, place, ctx, depth + 1, res, busy);
		else
			ret = ttm_resource_alloc(man, bo, place, bo->size, bo->page_alignment, res);
		if (ret == -EBUSY) {
			*busy = true;
			continue;
		}
		if (ret == -ENOSPC)
			continue;
		if (ret)
			return ret;

		/* No pipelined move into this type in flight: nothing to wait for. */
		if (!atomic_load_explicit(&man->move, memory_order_acquire))
			return 0;
		ret = ttm_bo_wait_move_fence(bo, man, ctx);
		if (!ret)
			return 0;
		ttm_bo_free_new(bo, *res);
		*res = NULL;
		if (ret != -EBUSY)
			return ret;
		*busy = true;
	}
	return -ENOSPC;
}

/* ttm_bo_mem_space_inl() out of line, for evictions and hops. */
static __attribute__((noinline)) int
ttm_bo_mem_space(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
		 struct ttm_operation_ctx *ctx, uint32_t skip_flags, bool force_space,
		 unsigned depth, struct ttm_resource **res, bool *busy)
{
	return ttm_bo_mem_space_inl(bo, placement, ctx, skip_flags, force_space, depth, res, busy);
}

/*
 * Every place of a registered type must lie inside it; a userptr BO's
 * content is the creator's memory, so only tt types can hold it. A place
 * whose type has no manager is not invalid: as in the kernel, the
 * allocation passes it over (and fails with -ENOMEM when nothing else fits).
 */
static bool ttm_placement_valid(struct ttm_buffer_object *bo, const struct ttm_placement *placement)
{
	for (unsigned i = 0; i < placement->num_placement; i++) {
		const struct ttm_place *place = &placement->placement[i];
		struct ttm_resource_manager *man = ttm_manager_type(bo->bdev, place->mem_type);

		if (!man)
			continue;
		if (bo->type == ttm_bo_type_userptr && !man->use_tt)
			return false;
		if (place->lpfn && (place->fpfn >= place->lpfn || place->lpfn > man->size))
			return false;
		if (place->mem_type != TTM_PL_SYSTEM && place->fpfn >= man->size)
			return false;
	}
	return true;
}

/*
 * ttm_resource_compatible() with SYSTEM handled here: SYSTEM has no ranges
 * (its manager's size is 0, which the generic range check would reject),
 * so any SYSTEM place allowed in this pass fits. The manager is looked up
 * only once a place of the resource's type is allowed. With @no_call, a
 * place only the manager's own ->compatible can judge answers -1 instead
 * of calling it (validate's hit path then makes no call at all).
 */
static inline __attribute__((always_inline)) int
ttm_bo_res_fits(struct ttm_device *bdev, struct ttm_resource *res,
		const struct ttm_placement *placement, bool evicting, bool no_call)
{
	uint32_t skip = evicting ? TTM_PL_FLAG_DESIRED : TTM_PL_FLAG_FALLBACK;

	for (unsigned i = 0; i < placement->num_placement; i++) {
		const struct ttm_place *place = &placement->placement[i];
		struct ttm_resource_manager *man;

		if (place->mem_type != res->mem_type || (place->flags & skip))
			continue;
		if (res->mem_type == TTM_PL_SYSTEM)
			return 1;
		man = ttm_manager_type(bdev, res->mem_type);
		if (!man)
			return 0;
		if (ttm_resource_has_own_compatible(man)) {
			if (no_call)
				return -1;
			if (man->func->compatible(man, res, place, res->size))
				return 1;
		} else if (ttm_resource_range_compatible(man, res, place)) {
			return 1;
		}
	}
	return 0;
}

static inline bool ttm_bo_res_compatible(struct ttm_device *bdev, struct ttm_resource *res,
					 const struct ttm_placement *placement, bool evicting)
{
	return ttm_bo_res_fits(bdev, res, placement, evicting, false) > 0;
}

/* The resource already fits: only a swapped-out tt has to come back. */
static int ttm_bo_validate_in_place(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx)
{
	if (bo->ttm && ttm_tt_is_swapped(bo->ttm))
		return ttm_bo_populate(bo, ctx);
	return 0;
}

/*
 * @fits0 tells whether the resource fits the first pass, which the caller
 * found out already.
 */
static inline int ttm_bo_validate_impl(struct ttm_buffer_object *bo,
				       const struct ttm_placement *placement,
				       struct ttm_operation_ctx *ctx, bool fits0)
{
	struct ttm_device *bdev = bo->bdev;
	bool busy = false;

	if (!placement || (placement->num_placement && !placement->placement))
		return -EINVAL;
	if (!placement->num_placement) {
		if (bo->pin_count)
			return -EINVAL;
		return ttm_bo_pipeline_gutting(bo);
	}

	/*
	 * First pass: no FALLBACK places and no eviction. Second pass: no
	 * DESIRED places, evicting. A resource already fitting the pass is
	 * kept: a BO sitting in its fallback is not moved by evicting others.
	 */
	for (unsigned pass = 0; pass < 2; pass++) {
		struct ttm_resource *res = NULL;
		int ret;

		if (pass == 0 ? fits0
			      : bo->resource &&
				    ttm_bo_res_compatible(bdev, bo->resource, placement, true))
			return ttm_bo_validate_in_place(bo, ctx);
		if (pass == 0) {
			if (!ttm_placement_valid(bo, placement))
				return -EINVAL;
			if (bo->pin_count)
				return -EINVAL;
		}

		/*
		 * The fence slot the kernel's ttm_bo_alloc_resource() reserves
		 * first is reserved by ttm_bo_handle_move_mem(), after any
		 * eviction (which may fill a shared reservation's slots) and
		 * before the driver's move, so whoever moved the BO can fence
		 * it without a failure point.
		 */
		ret = ttm_bo_mem_space_inl(bo, placement, ctx,
					   pass ? TTM_PL_FLAG_DESIRED : TTM_PL_FLAG_FALLBACK,
					   pass == 1, 0, &res, &busy);
		if (ret == -ENOSPC)
			continue;
		if (ret)
			return ret;
		ret = ttm_bo_move_hops_inl(bo, res, false, ctx, 0);
		if (ret)
			ttm_bo_free_new(bo, res);
		return ret;
	}
	return busy ? -EBUSY : -ENOSPC;
}

/*
 * Everything but an in-place hit, @fits0 as found by the caller (-1 when
 * the manager's own test is still to be asked); with @enomem, "nothing
 * fits" reads -ENOMEM (ttm_bo_validate()). A tail call of both entry
 * points, so their hit path needs no frame.
 */
static __attribute__((noinline)) int ttm_bo_validate_miss(struct ttm_buffer_object *bo,
							  const struct ttm_placement *placement,
							  struct ttm_operation_ctx *ctx, int fits0,
							  bool enomem)
{
	uint64_t moved = ctx->bytes_moved;
	int ret;

	if (fits0 < 0)
		fits0 = ttm_bo_res_compatible(bo->bdev, bo->resource, placement, false);
	ret = ttm_bo_validate_impl(bo, placement, ctx, fits0 > 0);
	if (enomem && ret == -ENOSPC)
		ret = -ENOMEM;
	TTM_PROBE3(validate_end, bo, ret, ctx->bytes_moved - moved);
	return ret;
}

/*
 * Both entry points: the hit, the BO sitting in a first-pass place with its
 * pages in, answered inline; the rest in ttm_bo_validate_miss(). The two
 * validate_end sites pass the same argument sizes (registers, never an
 * immediate: the hit's zeroes are hidden from the compiler).
 */
static inline __attribute__((always_inline)) int
ttm_bo_validate_common(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
		       struct ttm_operation_ctx *ctx, bool enomem)
{
	int fits0;

	TTM_PROBE2(validate_begin, bo, bo->size);
#if TTM_VALIDATE_DELAY
	/* The regression the benchmarks must notice (-Dvalidate_delay_ns). */
	bo = ttm_delay_after(TTM_VALIDATE_DELAY_NS, bo, bo->resource);
#endif
	fits0 = placement && placement->num_placement && placement->placement && bo->resource
		    ? ttm_bo_res_fits(bo->bdev, bo->resource, placement, false, true)
		    : 0;
	if (__builtin_expect(fits0 > 0 && !(bo->ttm && ttm_tt_is_swapped(bo->ttm)), 1)) {
		int ret = 0;
		uint64_t moved = 0;

		__asm__("" : "+r"(ret), "+r"(moved));
		TTM_PROBE3(validate_end, bo, ret, moved);
		return ret;
	}
	return ttm_bo_validate_miss(bo, placement, ctx, fits0, enomem);
}

int ttm_bo_validate_nospc(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
			  struct ttm_operation_ctx *ctx)
{
	return ttm_bo_validate_common(bo, placement, ctx, false);
}

int ttm_bo_validate(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
		    struct ttm_operation_ctx *ctx)
{
	return ttm_bo_validate_common(bo, placement, ctx, true);
}

int ttm_bo_evict_mem_type(struct ttm_device *bdev, unsigned mem_type, struct ttm_operation_ctx *ctx)
{
	struct ttm_resource_manager *man = ttm_manager_type(bdev, mem_type);
	struct ttm_resource *res;
	unsigned rescans = 0;
	bool busy = false, pinned = false;
	int ret;

	/* SYSTEM is where evicted BOs end up; it cannot be emptied. */
	if (!man || mem_type == TTM_PL_SYSTEM)
		return -EINVAL;

	for (;;) {
		ret = ttm_bo_evict_first(bdev, mem_type, NULL, NULL, 0, ctx, 0, rescans, &busy);
		if (ret == -EAGAIN && ++rescans < TTM_EVICT_MAX_RESCANS)
			continue;
		if (ret == -EAGAIN || ret == -EBUSY) {
			busy = true;
			break;
		}
		if (ret == -ENOSPC)
			break;
		if (ret)
			return ret;
	}
	if (busy)
		return -EBUSY;

	/*
	 * Pipelined evictions out of the type must land before it is "empty";
	 * one that failed is reported (and forgotten) like in validate.
	 */
	if (!ctx->no_wait_gpu) {
		ret = ttm_bo_wait_move_fence(NULL, man, ctx);
		if (ret)
			return ret;
	}

	ttm_lock(&bdev->lru_lock);
	list_for_each_entry (res, &bdev->pinned, struct ttm_resource, lru) {
		if (res->mem_type == mem_type) {
			pinned = true;
			break;
		}
	}
	ttm_unlock(&bdev->lru_lock);
	return pinned ? -EBUSY : 0;
}
