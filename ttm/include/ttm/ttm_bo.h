/* SPDX-License-Identifier: MIT */
/*
 * ttm_bo: buffer objects. A BO is refcounted memory of a fixed size whose
 * placement (SYSTEM pages, TT/GTT-bound pages, VRAM, a private type such as
 * stolen memory) changes over time. The GPU address of a BO is known only
 * after ttm_bo_validate(); a pinned BO, or a busy one unless the caller
 * allows waiting, is never moved.
 *
 * Reservation: a BO is reserved by locking its dma_resv (a ww-mutex).
 * Validate, pin, moves and CPU access happen under the reservation; the LRU
 * position (in the manager of the current resource) is bumped on unreserve.
 * Eviction reserves victims with trylock, or with the caller's ww ticket
 * when it carries one (ctx->ticket), so it never deadlocks against another
 * validate; see ttm_device.h for the full lock order.
 *
 * Lifetime: ttm_bo_put() dropping the last reference releases the BO. A BO
 * with unsignalled fences is not freed at once: it is marked deleted and
 * queued for the device's delayed-destroy worker, which frees it once idle.
 * A deleted BO still occupying space is released, never moved, when that
 * space is needed (waiting for its fences only when the caller may wait).
 *
 * Ghosts: a pipelined move (ttm_bo_move_accel_cleanup()) hands the old
 * resource to a ghost object that holds the move fence; the BO continues at
 * once in its new place and the ghost frees the old memory when the fence
 * signals. A pipelined eviction out of VRAM needs no ghost: the range is
 * freed at once and the manager's move fence keeps its next user waiting.
 */
#ifndef TTM_BO_H
#define TTM_BO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/dma_resv.h>
#include <ttm/list.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_placement.h>
#include <ttm/ttm_resource.h>
#include <ttm/ttm_tt.h>
#include <ttm/ww_mutex.h>

/**
 * struct ttm_operation_ctx - parameters and results of one operation
 * (validate, eviction, populate, swap). Caller-owned, zero-initialise it.
 * @interruptible: waits return -EINTR when dma_fence_interrupt() hits them.
 * @no_wait_gpu: never wait for a fence: return -EBUSY instead (the 2008
 *	DONT_BLOCK hint); busy BOs are not eviction candidates.
 * @allow_res_evict: BOs sharing @resv (already locked by the caller) may be
 *	evicted.
 * @resv: a reservation the caller holds (shared by several BOs), or NULL.
 * @ticket: the caller's ww acquire context, used to lock eviction victims
 *	(and back off with -EDEADLK), or NULL for trylock only.
 * @bytes_moved: out, added to: the size of every move this operation made,
 *	copies and rebinds alike (a multi-hop move counts each hop).
 * @evictions: out, added to: BOs evicted by this operation.
 * @moves: out, added to: resource changes of the target BO (a no-op
 *	validate adds 0).
 * @bytes_copied: out, added to: bytes this operation copied between
 *	placements, by the CPU (ttm_bo_move_memcpy()) or by a copy engine (a
 *	driver adds what its accelerated move copied); rebinds and null moves
 *	add nothing. Part of @bytes_moved.
 */
struct ttm_operation_ctx {
	bool interruptible;
	bool no_wait_gpu;
	bool allow_res_evict;
	struct dma_resv *resv;
	struct ww_acquire_ctx *ticket;
	uint64_t bytes_moved;
	uint64_t evictions;
	uint64_t moves;
	uint64_t bytes_copied;
};

/**
 * enum ttm_bo_type - what a BO is for.
 * @ttm_bo_type_device: shareable with userspace (uAPI BOs), CPU-mappable.
 * @ttm_bo_type_kernel: driver-internal (rings, page tables); never mapped
 *	into clients.
 * @ttm_bo_type_userptr: backed by memory the creator owns (the 2008
 *	user_buffer of drmBOCreate): an EXTERNAL tt over the user's pages,
 *	SYSTEM/TT only, never swapped.
 */
enum ttm_bo_type {
	ttm_bo_type_device,
	ttm_bo_type_kernel,
	ttm_bo_type_userptr,
};

struct ttm_bo_vm;

/**
 * struct ttm_buffer_object - caller-embedded buffer object.
 * @bdev: the device.
 * @type: enum ttm_bo_type.
 * @size: bytes, page aligned; fixed at init.
 * @page_alignment: alignment of resources in pages (0/1: none).
 * @user_ptr: for userptr BOs, the caller's memory (page aligned).
 * @destroy: frees the embedding object; called once, last.
 * @refcount: references; atomic.
 * @base_resv: the BO's own reservation object.
 * @resv: the reservation in use: &@base_resv or a shared one.
 * @priority: LRU priority, below TTM_MAX_BO_PRIORITY (higher is evicted
 *	later).
 * @bulk_move: the bulk move the BO's resources join, or NULL.
 * @vm: CPU mapping state owned by ttm_bo_vm, NULL while never mapped.
 * @drv_priv: free for the driver.
 *
 * Protected by the reservation:
 * @resource: the current resource, NULL when gutted or not yet placed.
 * @ttm: system pages, NULL for types that do not use a tt.
 * @pin_count: pins; a pinned BO is off the LRU and never moves.
 *
 * Protected by the device's LRU lock:
 * @deleted: the last reference went; the BO awaits its fences. A driver or
 *	test may also set it by hand on a BO it still holds: eviction then
 *	releases the BO instead of moving it.
 * @queued: the last put queued the BO for delayed destroy and counted it in
 *	the device's ddestroy statistic; freeing it uncounts it.
 * @ddestroy: link on the device's delayed-destroy list.
 * @is_ghost: the BO is a ghost holding an old resource behind a fence.
 */
struct ttm_buffer_object {
	struct ttm_device *bdev;
	enum ttm_bo_type type;
	uint64_t size;
	uint32_t page_alignment;
	void *user_ptr;
	void (*destroy)(struct ttm_buffer_object *bo);
	_Atomic long refcount;
	struct dma_resv base_resv;
	struct dma_resv *resv;
	unsigned priority;
	struct ttm_lru_bulk_move *bulk_move;
	struct ttm_bo_vm *vm;
	void *drv_priv;

	/* Protected by @resv. */
	struct ttm_resource *resource;
	struct ttm_tt *ttm;
	unsigned pin_count;

	/* Protected by bdev->lru_lock. */
	bool deleted;
	bool queued;
	bool is_ghost;
	struct list_head ddestroy;
};

/**
 * ttm_bo_init_reserved() - initialise caller-allocated @bo of @size bytes
 * and place it according to @placement. @bo must be zeroed except for
 * @user_ptr (userptr type) and @priority/@drv_priv if wanted.
 * @bdev: the device.
 * @bo: the BO.
 * @size: bytes.
 * @type: the BO type (enum ttm_bo_type).
 * @placement: where it may be placed.
 * @page_alignment: the start's alignment in pages (0 or a power of two).
 * @ctx: the operation context of the first validate.
 * @resv: a shared reservation (locked by the caller) or NULL for the BO's
 *	own.
 * @destroy: frees @bo (required).
 * On success the BO is reserved, has one reference and a resource. On
 * failure @destroy has been called (as in the kernel), so the caller must
 * not touch @bo. Fault point "bo_alloc" fails it with -ENOMEM.
 * Return: 0; -EINVAL (zero or overflowing size, alignment not a power of
 * two, priority out of range, userptr not page aligned or placed outside
 * SYSTEM/TT, NULL arguments); -ENOMEM (also when nothing fits after eviction); -EBUSY/-EINTR from
 * validate.
 */
int ttm_bo_init_reserved(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
			 enum ttm_bo_type type, const struct ttm_placement *placement,
			 uint32_t page_alignment, struct ttm_operation_ctx *ctx,
			 struct dma_resv *resv, void (*destroy)(struct ttm_buffer_object *bo));

/**
 * ttm_bo_init_validate() - ttm_bo_init_reserved(), returned unreserved.
 * @bdev: the device.
 * @bo: the BO.
 * @size: bytes.
 * @type: the BO type (enum ttm_bo_type).
 * @placement: where it may be placed.
 * @page_alignment: the start's alignment in pages.
 * @ctx: the operation context of the first validate.
 * @resv: a shared reservation or NULL.
 * @destroy: frees @bo (required).
 *
 * Return: as ttm_bo_init_reserved().
 */
int ttm_bo_init_validate(struct ttm_device *bdev, struct ttm_buffer_object *bo, uint64_t size,
			 enum ttm_bo_type type, const struct ttm_placement *placement,
			 uint32_t page_alignment, struct ttm_operation_ctx *ctx,
			 struct dma_resv *resv, void (*destroy)(struct ttm_buffer_object *bo));

/** ttm_bo_get() - take a reference. */
static inline void ttm_bo_get(struct ttm_buffer_object *bo)
{
	atomic_fetch_add_explicit(&bo->refcount, 1, memory_order_relaxed);
}

/**
 * ttm_bo_get_unless_zero() - take a reference unless the BO is already on
 * its way out (LRU walkers use it).
 * @bo: the BO.
 *
 * Return: @bo or NULL.
 */
struct ttm_buffer_object *ttm_bo_get_unless_zero(struct ttm_buffer_object *bo);

/**
 * ttm_bo_put() - drop a reference; the last one releases the BO (at once
 * when idle, through the delayed-destroy worker when busy). Must not be
 * called with @bo reserved by the caller or with the LRU lock held.
 * @bo: the BO.
 */
void ttm_bo_put(struct ttm_buffer_object *bo);

/**
 * ttm_bo_reserve() - lock @bo's reservation.
 * @bo: the BO.
 * @interruptible: the wait may end with -EINTR.
 * @no_wait: trylock only; not with a @ticket.
 * @ticket: ww acquire context, or NULL.
 * Return: 0; -EBUSY (@no_wait and locked by someone, or @no_wait with a
 * @ticket: refused without touching the lock, as the kernel does);
 * -EALREADY (@ticket already holds it); -EDEADLK (wait-die: back off, release all, then
 * ttm_bo_reserve_slowpath()); -EINTR.
 */
int ttm_bo_reserve(struct ttm_buffer_object *bo, bool interruptible, bool no_wait,
		   struct ww_acquire_ctx *ticket);

/**
 * ttm_bo_reserve_slowpath() - after -EDEADLK and releasing every other
 * reservation, sleep until @bo is free.
 * @bo: the contended BO.
 * @interruptible: the wait may end with -EINTR.
 * @ticket: the ticket that got -EDEADLK.
 *
 * Return: 0; -EINTR.
 */
int ttm_bo_reserve_slowpath(struct ttm_buffer_object *bo, bool interruptible,
			    struct ww_acquire_ctx *ticket);

/**
 * ttm_bo_unreserve() - move @bo to the tail of its LRU (most recently used;
 * pinned BOs stay off it) and unlock.
 * @bo: a BO the caller reserved.
 */
void ttm_bo_unreserve(struct ttm_buffer_object *bo);

/**
 * ttm_bo_move_to_lru_tail() - LRU bump without unlocking; LRU lock held.
 * @bo: the BO.
 */
void ttm_bo_move_to_lru_tail(struct ttm_buffer_object *bo);

/**
 * ttm_bo_set_bulk_move() - make @bo's resources part of @bulk (NULL to
 * leave it). Reserved.
 * @bo: the BO.
 * @bulk: the bulk move, or NULL.
 */
void ttm_bo_set_bulk_move(struct ttm_buffer_object *bo, struct ttm_lru_bulk_move *bulk);

/**
 * ttm_bo_pin() - one more pin; the first takes the BO off the LRU. Reserved.
 * @bo: the BO.
 */
void ttm_bo_pin(struct ttm_buffer_object *bo);

/**
 * ttm_bo_unpin() - one pin less; the last puts the BO back on the LRU tail.
 * Reserved.
 * @bo: a pinned BO.
 */
void ttm_bo_unpin(struct ttm_buffer_object *bo);

/**
 * ttm_bo_validate() - make @bo live in one place of @placement. Reserved.
 * @bo: the BO.
 * @placement: the places allowed, in preference order.
 * @ctx: interruptible, no_wait_gpu, ticket, and the moves counter.
 *
 * Places are tried in order (DESIRED-only places on the first pass,
 * FALLBACK-only places only after every other place failed or when
 * evicting); a resource already satisfying a place is a no-op (nothing
 * moved, ctx->moves unchanged). When a type is full, BOs are evicted from it
 * in LRU order, lowest priority first, as few as needed, recursively when
 * their own eviction target is full; pinned BOs are never evicted, busy ones
 * only when waiting is allowed; deleted BOs are released instead. A pending
 * move fence of the target type is waited for, or with no_wait_gpu the next
 * place is tried. -EMULTIHOP from the driver's move goes through the hop.
 * An empty placement guts the BO (ttm_bo_pipeline_gutting()).
 *
 * Victims reserved by someone else: with ctx->ticket they are locked under
 * the ww rules (-EDEADLK). Without one, when waiting is allowed (no
 * no_wait_gpu) and nothing else can go, validate sleeps on a deleted BO's
 * reservation (its holder is only releasing it, as the delayed-destroy
 * worker does) and backs off briefly and looks again while live BOs are
 * held, a bounded number of times, then reports -EBUSY; with no_wait_gpu a
 * held victim counts as busy at once.
 *
 * Return: 0; -EINVAL (pinned BO that would have to move, NULL/unknown
 * memory type, place outside the type); -ENOMEM when nothing fits after
 * eviction (the backward-compatible value, the same as a failed allocation:
 * see ttm_bo_validate_nospc()) or an allocation failed; -EBUSY
 * (no_wait_gpu and only busy BOs stand in the way, the BO itself is busy
 * and must move, or BOs held by others did not come free); -EDEADLK (ticket
 * back-off while locking a victim); -EINTR; -EIO. On failure the BO keeps
 * its resource and content.
 */
int ttm_bo_validate(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
		    struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_validate_nospc() - ttm_bo_validate() reporting "nothing fits after
 * eviction" as -ENOSPC, so that a driver can tell it from a failed
 * allocation (-ENOMEM, for instance the "resource_alloc" fault point) at its
 * own boundary. Same contract and returns otherwise.
 * @bo: the BO.
 * @placement: as for ttm_bo_validate().
 * @ctx: as for ttm_bo_validate().
 *
 * Return: as ttm_bo_validate(), with -ENOSPC for no room.
 */
int ttm_bo_validate_nospc(struct ttm_buffer_object *bo, const struct ttm_placement *placement,
			  struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_wait_ctx() - wait until every fence of @bo signalled (any usage).
 * Reserved or not.
 * @bo: the BO.
 * @ctx: interruptible, no_wait_gpu.
 *
 * Return: 0; -EBUSY with ctx->no_wait_gpu; -EINTR; the first fence error
 * (-EIO).
 */
int ttm_bo_wait_ctx(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_evict_mem_type() - evict every BO from memory type @mem_type (the
 * 2007 MM_LOCK / VT-switch case; also used before ttm_resource_manager
 * fini). Waits for busy BOs unless ctx->no_wait_gpu. Pinned BOs stay. BOs
 * reserved by someone else are treated as in ttm_bo_validate() (a deleted
 * one is waited for, live ones are looked at again a bounded number of times).
 * @bdev: the device.
 * @mem_type: the memory type emptied.
 * @ctx: the operation context of the evictions.
 *
 * Return: 0 when the type is empty of evictable BOs; -EBUSY when pinned BOs
 * remain (reported after evicting everything else), BOs held by others did
 * not come free or, with no_wait_gpu, busy ones; -EINVAL for an unregistered
 * type; errors of validate.
 */
int ttm_bo_evict_mem_type(struct ttm_device *bdev, unsigned mem_type,
			  struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_swapout() - write @bo's tt to shmem and free its pages. Reserved,
 * idle and unpinned.
 * @bo: the BO.
 * @ctx: the operation context.
 *
 * Return: pages freed (> 0); -EBUSY (busy, pinned, not
 * swappable type); -EINVAL (no populated tt); -ENOMEM/-EIO (fault points:
 * nothing lost, the BO is still populated).
 */
long ttm_bo_swapout(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_access() - copy @len bytes at @offset between @buf and @bo,
 * wherever @bo lives (tt pages, swapped tt: swapped in first, or a
 * CPU-reachable io resource). Reserved; waits for the BO to be idle for
 * writes and for pending writers for reads (ctx rules apply).
 * @bo: the BO.
 * @offset: the first byte in the BO.
 * @buf: the caller's buffer.
 * @len: bytes.
 * @write: copy @buf into the BO (else the BO into @buf).
 * @ctx: the operation context of the waits and of a swap-in.
 *
 * Return: 0; -EINVAL (range outside the BO, no resource); -EIO (resource
 * not CPU-reachable); -EBUSY; -EINTR; -ENOMEM (swap-in).
 */
int ttm_bo_access(struct ttm_buffer_object *bo, uint64_t offset, void *buf, size_t len, bool write,
		  struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_unmap_virtual() - remove every CPU view of @bo so the next access
 * faults (see ttm_device.unmap_virtual). Called by the core before content
 * changes place.
 */
static inline void ttm_bo_unmap_virtual(struct ttm_buffer_object *bo)
{
	if (bo->vm && bo->bdev->unmap_virtual)
		bo->bdev->unmap_virtual(bo);
}

/*
 * Move helpers for drivers' move() callbacks (and used by the core when the
 * driver has none). All run with @bo reserved; on success @new_mem becomes
 * bo->resource and the old resource is freed (or handed to a ghost).
 */

/**
 * ttm_bo_move_null() - the content does not need to move (for example a
 * SYSTEM <-> TT rebind, which keeps the tt pages): swap resources.
 * @bo: the BO.
 * @new_mem: the new resource.
 */
void ttm_bo_move_null(struct ttm_buffer_object *bo, struct ttm_resource *new_mem);

/**
 * ttm_bo_move_memcpy() - copy the content by CPU from the old resource to
 * @new_mem, page by page, handling non-contiguous tt pages and io
 * resources (through the driver's io_mem_reserve), after waiting for the
 * BO to be idle. A source without content (new BO, no resource) gives a
 * zero-filled destination. Fault point "move_copy".
 * @bo: the BO.
 * @ctx: the operation context of the idle wait.
 * @new_mem: the destination resource.
 *
 * Return: 0; -EIO when a
 * side is not CPU-reachable; -ENOMEM; -EBUSY/-EINTR from the wait. On
 * failure the BO keeps its old resource and content; @new_mem is still the
 * caller's.
 */
int ttm_bo_move_memcpy(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx,
		       struct ttm_resource *new_mem);

/**
 * ttm_bo_move_accel_cleanup() - the driver queued a GPU copy finishing
 * with @fence. The fence is added to @bo's reservation (KERNEL usage).
 * With @pipeline and @evict out of a type without tt (VRAM), the old
 * resource is freed at once and @fence becomes that type's move fence,
 * which every later allocation there waits for before it is used; with
 * @pipeline otherwise (a plain move, a tt source, or a type whose move
 * fence is another timeline's pending fence) the old resource goes to a
 * ghost object freed when the fence signals; without @pipeline the call
 * waits for @fence and frees the old resource then. @bo is reserved.
 * @bo: the BO.
 * @fence: the copy's fence.
 * @evict: the move is an eviction.
 * @pipeline: free the old resource without waiting (see above).
 * @new_mem: the destination resource.
 *
 * Return: 0; the fence error (only when it waited: @bo keeps its old
 * resource). A ghost that cannot be allocated falls back to waiting.
 */
int ttm_bo_move_accel_cleanup(struct ttm_buffer_object *bo, struct dma_fence *fence, bool evict,
			      bool pipeline, struct ttm_resource *new_mem);

/**
 * ttm_bo_pipeline_gutting() - drop @bo's memory and content without
 * waiting (an empty placement, as the kernel's): afterwards @bo has no
 * resource and an unpopulated tt, which a later populate fills with zeroed
 * pages (a device BO's is marked ZERO_ALLOC; one is created if @bo had
 * none). Idle, the resource is freed and the tt's pages go back to the
 * pool at once; busy, the resource, the old tt and the fences go to a
 * ghost that releases them once the fences signal.
 * @bo: the BO, reserved.
 *
 * Return: 0; -ENOMEM (@bo unchanged); -EINVAL for a BO type without a tt.
 */
int ttm_bo_pipeline_gutting(struct ttm_buffer_object *bo);

/**
 * ttm_bo_populate() - make sure @bo's tt exists and has pages (swapping
 * in when swapped). Reserved.
 * @bo: the BO.
 * @ctx: the operation context of the allocation.
 *
 * Return: 0; -ENOMEM; -EIO.
 */
int ttm_bo_populate(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx);

/**
 * ttm_bo_metadata_size() - bytes of core metadata per BO (the BO struct,
 * its resource and, when present, its tt struct and page array), for the
 * benchmark's per-BO overhead figure.
 * @bo: the BO.
 *
 * Return: the bytes.
 */
size_t ttm_bo_metadata_size(const struct ttm_buffer_object *bo);

#endif /* TTM_BO_H */
