/* SPDX-License-Identifier: MIT */
/*
 * ttm_device: one GPU as the memory manager sees it. It owns the table of
 * memory-type managers (SYSTEM is built in, the driver registers the rest),
 * the LRU lock, the page pool, the delayed-destroy worker and the swap
 * shrinker that ttm_global calls when the page cap is reached.
 *
 * Lock order (outermost first):
 *   1. BO reservations (dma_resv ww-mutexes, taken with a ww ticket or by
 *      trylock; eviction only ever trylocks or uses the caller's ticket);
 *   2. @lru_lock;
 *   3. a manager's internal allocator lock (inside ttm_resource_alloc/free);
 *   4. a dma_resv's fences_lock and a fence's own lock.
 * @lru_lock is never held across a call that can sleep (allocation of pages,
 * waits on fences, driver move callbacks); code that must drop it to do so
 * takes a reference on the BO first. The ttm_global shrinker read lock is
 * outside all of these: a swap scan is entered from ttm_global_reserve() by a
 * thread that may hold one reservation (the BO being populated) and only
 * trylocks others.
 */
#ifndef TTM_DEVICE_H
#define TTM_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/list.h>
#include <ttm/ttm_lock.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_placement.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_resource.h>
#include <ttm/ttm_tt.h>

struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_device;

/**
 * struct ttm_device_funcs - what the driver provides. Every slot documents
 * whether it is optional; the BO is reserved in every call unless stated.
 */
struct ttm_device_funcs {
	/**
	 * @ttm_tt_create: optional; allocate and ttm_tt_init() a tt for @bo
	 * (the driver may embed struct ttm_tt in its own struct) with
	 * @page_flags. NULL on failure. Without it the core allocates a plain
	 * ttm_tt, cached.
	 */
	struct ttm_tt *(*ttm_tt_create)(struct ttm_buffer_object *bo, uint32_t page_flags);
	/**
	 * @ttm_tt_destroy: optional, pairs with @ttm_tt_create: ttm_tt_fini()
	 * and free @tt. Pages are already unpopulated (unbound by @move).
	 */
	void (*ttm_tt_destroy)(struct ttm_device *bdev, struct ttm_tt *tt);
	/**
	 * @eviction_valuable: optional; false when evicting @bo would not help
	 * @place (for example it lies outside the range). Called with the LRU
	 * lock held and @bo reserved; must not sleep. Default: the resource
	 * manager's intersects().
	 */
	bool (*eviction_valuable)(struct ttm_buffer_object *bo, const struct ttm_place *place);
	/**
	 * @evict_flags: required; fill @placement with where @bo goes when it is
	 * evicted from its current memory type. An empty placement (0 places)
	 * means "gut it": the core drops the resource and, for a BO with a tt,
	 * keeps the content in a SYSTEM resource.
	 */
	void (*evict_flags)(struct ttm_buffer_object *bo, struct ttm_placement *placement);
	/**
	 * @move: optional; move @bo to @new_mem (allocated, not yet @bo's).
	 * On success the callback owns @new_mem: it must make it the BO's
	 * resource (ttm_bo_move_null(), ttm_bo_move_memcpy() or
	 * ttm_bo_move_accel_cleanup()) and free the old one. Return: 0;
	 * -EMULTIHOP with @hop set to an intermediate place (the core moves
	 * there first and calls again); -EBUSY/-EINTR/-ENOMEM/-EIO: the BO is
	 * left where it was with its content, @new_mem still the caller's.
	 * Without @move the core uses ttm_bo_move_memcpy() for every move.
	 * @evict is true for every leg of an eviction, the first hop included,
	 * so a pipelined eviction out of a manager without tt frees the old range
	 * at once behind the manager's move fence (ttm_bo_move_accel_cleanup()).
	 */
	int (*move)(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		    struct ttm_resource *new_mem, struct ttm_place *hop);
	/**
	 * @delete_mem_notify: optional; @bo is about to lose its last resource
	 * (release or gutting). Unbind GPU mappings here.
	 */
	void (*delete_mem_notify)(struct ttm_buffer_object *bo);
	/**
	 * @swap_notify: optional; @bo's tt is about to be swapped out; unbind
	 * it from any GPU page table.
	 */
	void (*swap_notify)(struct ttm_buffer_object *bo);
	/**
	 * @io_mem_reserve: optional; fill @res->bus so the CPU can reach a
	 * resource of a non-tt type (VRAM, stolen through the aperture).
	 * Return: 0; -EINVAL when the resource is not CPU-reachable (the core
	 * then refuses memcpy moves from/to it and CPU access migrates first).
	 */
	int (*io_mem_reserve)(struct ttm_device *bdev, struct ttm_resource *res);
	/** @io_mem_free: optional; undo @io_mem_reserve. */
	void (*io_mem_free)(struct ttm_device *bdev, struct ttm_resource *res);
	/**
	 * @release_notify: optional; @bo is being destroyed (refcount zero,
	 * idle, not reserved by anyone else). Called once, before its resource
	 * and tt are freed, so the driver can still look at @bo->resource.
	 * Last chance to drop driver state.
	 */
	void (*release_notify)(struct ttm_buffer_object *bo);
	/**
	 * @move_orders_after: optional; true when @bo's next @move will not
	 * touch its new resource before @fence (a pending move fence of the
	 * manager the resource comes from) signals, without a CPU wait: for
	 * example because the driver copies on the engine @fence belongs to,
	 * whose commands run in order. The core then adds @fence to @bo's
	 * reservation (KERNEL usage) instead of waiting for it; every move path
	 * that is not so ordered (a CPU copy, a bind) must wait for the BO's
	 * fences first, as ttm_bo_move_memcpy() does. An error of @fence is
	 * then not reported to this validate. Called with @bo reserved.
	 */
	bool (*move_orders_after)(struct ttm_buffer_object *bo, struct dma_fence *fence);
};

/**
 * struct ttm_device_stats - counters for the info dump and the tests.
 * All atomics, updated without the LRU lock.
 * @bo_count: live BOs (created, not yet destroyed), ghosts included.
 * @ghost_count: live ghost objects.
 * @pinned: BOs with a pin count above zero.
 * @swapped: BOs whose tt is swapped out.
 * @ddestroy: deleted BOs waiting for their fences on the delayed list.
 * @evictions: BOs evicted since init.
 * @bytes_moved: bytes moved by validate and eviction since init.
 * @swapouts, @swapins: tt swap operations since init.
 */
struct ttm_device_stats {
	_Atomic uint64_t bo_count;
	_Atomic uint64_t ghost_count;
	_Atomic uint64_t pinned;
	_Atomic uint64_t swapped;
	_Atomic uint64_t ddestroy;
	_Atomic uint64_t evictions;
	_Atomic uint64_t bytes_moved;
	_Atomic uint64_t swapouts;
	_Atomic uint64_t swapins;
};

/**
 * struct ttm_device - caller-embedded device (the driver embeds it).
 * @funcs: driver callbacks.
 * @sysman: the built-in SYSTEM manager.
 * @man_drv: managers by memory type; [TTM_PL_SYSTEM] is &@sysman.
 * @pool: the device's page pool (its shrinker is registered with ttm_global).
 * @lru_lock: protects every manager's LRU lists, @pinned, @ddestroy_list and
 *	each BO's @ddestroy link and deleted state.
 * @pinned: resources of pinned BOs, linked by their @lru field (so they are
 *	off every manager LRU, yet ttm_resource_free() unlinks them the same way).
 * @ddestroy_list: deleted BOs still busy; the worker frees them once idle.
 * @worker: the delayed-destroy thread.
 * @worker_wake: wakes the worker (new entry, fence signalled, fini).
 * @worker_stop: set by fini under @lru_lock.
 * @swap_shrinker: stage-2 ttm_global shrinker swapping LRU BOs to shmem.
 * @unmap_virtual: set by the CPU-mapping code (ttm_bo_vm) when it maps a BO
 *	of this device: removes every CPU view of a BO before it moves. NULL
 *	while nothing is mapped.
 * @stats: counters.
 */
struct ttm_device {
	const struct ttm_device_funcs *funcs;
	struct ttm_resource_manager sysman;
	struct ttm_resource_manager *man_drv[TTM_NUM_MEM_TYPES];
	struct ttm_pool pool;

	struct ttm_lock lru_lock;
	/* Protected by @lru_lock. */
	struct list_head pinned;
	struct list_head ddestroy_list;
	bool worker_stop;

	pthread_t worker;
	struct ttm_event worker_wake;
	struct ttm_global_shrinker swap_shrinker;
	void (*unmap_virtual)(struct ttm_buffer_object *bo);
	struct ttm_device_stats stats;
};

/**
 * ttm_device_init() - set up @bdev: SYSTEM manager, page pool (DMA32 when
 * @use_dma32), LRU lock, delayed-destroy worker, swap shrinker. Several
 * devices may live in one process; they share ttm_global's page cap.
 * @bdev: the device to set up (its memory is the driver's).
 * @funcs: the driver's callbacks; must outlive the device.
 * @use_dma32: allocate tt pages from the DMA32 pool.
 *
 * Return: 0; -EINVAL for NULL @funcs or a missing @evict_flags; -ENOMEM
 * or -EAGAIN (thread) with nothing left behind.
 */
int ttm_device_init(struct ttm_device *bdev, const struct ttm_device_funcs *funcs, bool use_dma32);

/**
 * ttm_device_fini() - tear @bdev down: flushes the delayed-destroy list
 * (waiting for its fences), stops the worker, unregisters the shrinker,
 * finishes the SYSTEM manager and the pool. Driver managers must have been
 * unregistered (ttm_set_driver_manager(.., NULL)) and finished first.
 * @bdev: the device.
 *
 * Return: 0; -EBUSY while BOs of the device are alive (nothing torn down,
 * the call may be repeated).
 */
int ttm_device_fini(struct ttm_device *bdev);

/**
 * ttm_set_driver_manager() - register (@man non-NULL) or unregister @man as
 * the manager of @type (TTM_PL_TT .. TTM_NUM_MEM_TYPES - 1; SYSTEM is
 * fixed).
 * @bdev: the device.
 * @type: the memory type.
 * @man: the manager, or NULL to unregister the current one.
 *
 * Return: 0; -EINVAL for a bad type, for SYSTEM, or when a manager is
 * registered already.
 */
int ttm_set_driver_manager(struct ttm_device *bdev, unsigned type,
			   struct ttm_resource_manager *man);

/** ttm_manager_type() - the manager of @type, or NULL (also for a bad type). */
static inline struct ttm_resource_manager *ttm_manager_type(struct ttm_device *bdev, unsigned type)
{
	return type < TTM_NUM_MEM_TYPES ? bdev->man_drv[type] : NULL;
}

/**
 * ttm_device_swapout() - swap out LRU BOs of @bdev (idle, unpinned, with a
 * populated tt; reservations only trylocked) until about @nr_pages pages
 * were freed.
 * @bdev: the device.
 * @ctx: the operation context of the moves to SYSTEM.
 * @nr_pages: how many pages to free, at least.
 *
 * Return: pages freed (0 when nothing could be swapped).
 */
unsigned long ttm_device_swapout(struct ttm_device *bdev, struct ttm_operation_ctx *ctx,
				 unsigned long nr_pages);

/**
 * ttm_device_flush_delayed() - free every deleted BO that is idle now; with
 * @wait, wait for the busy ones too.
 * @bdev: the device.
 * @wait: wait for the fences of busy BOs instead of skipping them.
 *
 * Return: BOs still on the list.
 */
unsigned long ttm_device_flush_delayed(struct ttm_device *bdev, bool wait);

/**
 * ttm_device_print() - the info dump: one block per registered manager
 * (type, size, usage, LRU length per priority, allocator state), pinned,
 * swapped, delayed-destroy, BO and ghost counts, eviction and move
 * counters, the page pool and the global page-cap usage.
 * @bdev: the device.
 * @f: the stream written to.
 *
 * Context: takes the LRU lock; call it without.
 */
void ttm_device_print(struct ttm_device *bdev, FILE *f);

#endif /* TTM_DEVICE_H */
