/* SPDX-License-Identifier: MIT */
/*
 * ttm_resource: a piece of one memory type backing a buffer object, and
 * ttm_resource_manager, the per-memory-type allocator behind an ops table.
 *
 * A manager's alloc() creates its own subclass of struct ttm_resource
 * (embedding it) and calls ttm_resource_init(); its free() calls
 * ttm_resource_fini() and frees the subclass. Usage accounting lives in
 * init/fini, so every manager counts the same way.
 *
 * Locking: @usage is atomic. The LRU lists and the bulk-move ranges are
 * protected by the device's LRU lock; until the device exists callers
 * serialise the LRU calls themselves. The move fence has its own
 * @move_lock. Managers serialise their allocator internally, so alloc/free
 * may be called concurrently and without the LRU lock.
 */
#ifndef TTM_RESOURCE_H
#define TTM_RESOURCE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/dma_fence.h>
#include <ttm/list.h>
#include <ttm/ttm_lock.h>
#include <ttm/ttm_placement.h>

#define TTM_PAGE_SHIFT 12
#define TTM_PAGE_SIZE (1ull << TTM_PAGE_SHIFT)
#define TTM_MAX_BO_PRIORITY 4

/* Defined by the BO code (ttm_bo.h); resources only point at it. */
struct ttm_buffer_object;
struct ttm_resource_manager;

/**
 * struct ttm_bus_placement - how the CPU reaches a resource.
 * @addr: CPU address of page @start of the memory type when the memory is
 *	mapped, else NULL. A linear resource (see ttm_resource_is_linear())
 *	lies at [@addr, @addr + size); the pieces of a scattered one (buddy
 *	blocks) lie at @addr + ttm_resource_io_segment(), so the driver's
 *	mapping must cover the memory type from page @start as far as the
 *	highest piece reaches.
 * @offset: bus offset of the first byte.
 * @is_iomem: true for device memory (VRAM, apertures).
 */
struct ttm_bus_placement {
	void *addr;
	uint64_t offset;
	bool is_iomem;
};

struct ttm_lru_bulk_move;

/**
 * struct ttm_resource - a piece of memory of one type.
 * @start: first page inside the memory type (0 for SYSTEM).
 * @size: bytes, page aligned.
 * @mem_type: TTM_PL_*.
 * @placement: the TTM_PL_FLAG_* of the place it was allocated for.
 * @bus: CPU access information, filled by the driver's io_mem_reserve.
 * @bo: the owning buffer object, NULL for a resource without one.
 * @priority: LRU list index, below TTM_MAX_BO_PRIORITY.
 * @lru: LRU link; protected by the LRU lock.
 * @bulk_move: the bulk range containing the resource, NULL if none;
 *	protected by the LRU lock.
 */
struct ttm_resource {
	uint64_t start;
	uint64_t size;
	uint32_t mem_type;
	uint32_t placement;
	struct ttm_bus_placement bus;
	struct ttm_buffer_object *bo;
	unsigned priority;
	struct list_head lru;
	struct ttm_lru_bulk_move *bulk_move;
};

/**
 * struct ttm_resource_manager_func - a memory type's allocator.
 */
struct ttm_resource_manager_func {
	/**
	 * @alloc: allocate @size bytes (page aligned) for @bo (may be NULL)
	 * inside @place, aligned to @page_alignment pages (0 or 1: none), and
	 * return the new resource in @res, initialised with
	 * ttm_resource_init(). Return: 0; -ENOSPC when the space is not there;
	 * -ENOMEM. Nothing is taken on failure. Called without the LRU lock.
	 */
	int (*alloc)(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
		     const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
		     struct ttm_resource **res);
	/**
	 * @free: give back @res (which must be off every LRU), calling
	 * ttm_resource_fini(). Cannot fail.
	 */
	void (*free)(struct ttm_resource_manager *man, struct ttm_resource *res);
	/**
	 * @intersects: optional; true when evicting @res could make room in
	 * @place. Without it every resource of the type intersects.
	 */
	bool (*intersects)(struct ttm_resource_manager *man, struct ttm_resource *res,
			   const struct ttm_place *place, uint64_t size);
	/**
	 * @compatible: optional; true when @res already satisfies @place
	 * (same type is checked by the caller). Without it the page range
	 * [@fpfn, @lpfn) and CONTIGUOUS are checked generically.
	 */
	bool (*compatible)(struct ttm_resource_manager *man, struct ttm_resource *res,
			   const struct ttm_place *place, uint64_t size);
	/**
	 * @io_segment: optional; for resources made of scattered pieces: the
	 * byte offset, relative to page @res->start of the memory type, where
	 * byte @offset (< @res->size) of @res lives, and in *@len how many
	 * bytes are contiguous from there (to the end of that piece; at least
	 * one page for a page-aligned @offset). Resource bytes are the pieces
	 * in the manager's order. Without it the resource is one run from
	 * @res->start. Called with the owning BO reserved (the pieces cannot
	 * change); takes no lock and must not sleep.
	 */
	uint64_t (*io_segment)(struct ttm_resource_manager *man, struct ttm_resource *res,
			       uint64_t offset, uint64_t *len);
	/** @debug: optional; print allocator state to @f. */
	void (*debug)(struct ttm_resource_manager *man, FILE *f);
};

/**
 * struct ttm_resource_manager - one memory type; caller-embedded.
 * @func: the allocator.
 * @use_type: the type is enabled (set by the driver after init).
 * @use_tt: resources need a ttm_tt (system pages) behind them.
 * @size: pages managed.
 * @usage: bytes allocated; atomic.
 * @lru: per priority, resources in least-recently-used-first order;
 *	protected by the LRU lock.
 * @move_lock: serialises the writers of @move.
 * @move: fence of the last pipelined eviction out of this type, or NULL:
 *	the evicted BO's memory was freed while the copy may still read it,
 *	so a new allocation must not be written (by GPU or CPU) before the
 *	fence signals; validate waits for it after every allocation here.
 *	Written under @move_lock; read without it only to see that it is
 *	NULL (the common case: no move in flight), which needs no reference.
 */
struct ttm_resource_manager {
	const struct ttm_resource_manager_func *func;
	bool use_type;
	bool use_tt;
	uint64_t size;
	_Atomic uint64_t usage;
	struct list_head lru[TTM_MAX_BO_PRIORITY];
	struct ttm_lock move_lock;
	struct dma_fence *_Atomic move;
};

/**
 * struct ttm_lru_bulk_move_pos - the contiguous LRU range of one bulk.
 * @first, @last: first and last resource of the range, NULL when empty.
 */
struct ttm_lru_bulk_move_pos {
	struct ttm_resource *first;
	struct ttm_resource *last;
};

/**
 * struct ttm_lru_bulk_move - resources moved to the LRU tail together
 * (for example every BO of one VM); their entries are kept adjacent per
 * memory type and priority. Protected by the LRU lock.
 * @pos: per memory type and priority, the range.
 */
struct ttm_lru_bulk_move {
	struct ttm_lru_bulk_move_pos pos[TTM_NUM_MEM_TYPES][TTM_MAX_BO_PRIORITY];
};

/**
 * ttm_resource_manager_init() - initialise @man for @size pages with @func.
 * @use_type starts false.
 * @man: the manager (embedded in the driver's manager struct).
 * @func: its callbacks, which must outlive it; NULL, or a table without
 *	some of them, for a manager that does not use them, as the kernel's
 *	manager init requires none: without @alloc ttm_resource_alloc()
 *	refuses with -EINVAL, without @free ttm_resource_free() only calls
 *	ttm_resource_fini() (the resource's memory stays the caller's).
 * @size: pages managed.
 *
 * Return: 0.
 */
int ttm_resource_manager_init(struct ttm_resource_manager *man,
			      const struct ttm_resource_manager_func *func, uint64_t size);

/**
 * ttm_resource_manager_fini() - tear @man down: waits for and drops the move
 * fence. Return: 0; -EBUSY while usage is not zero (nothing is torn down, so
 * the call may be repeated after freeing).
 * @man: the manager.
 */
int ttm_resource_manager_fini(struct ttm_resource_manager *man);

/**
 * ttm_resource_manager_usage() - bytes currently allocated from a manager.
 * @man: the manager.
 *
 * Return: the bytes.
 */
uint64_t ttm_resource_manager_usage(struct ttm_resource_manager *man);

/**
 * ttm_resource_manager_lru_count() - resources on one LRU of a manager.
 * @man: the manager.
 * @priority: the LRU's priority.
 *
 * Return: the count.
 */
unsigned long ttm_resource_manager_lru_count(const struct ttm_resource_manager *man,
					     unsigned priority);

/**
 * ttm_resource_manager_debug() - print type flags, size, usage and LRU
 * lengths, then the allocator's own state, to @f. Takes no lock on the
 * LRU lists: callers hold the LRU lock for exact numbers.
 * @man: the manager.
 * @f: the stream written to.
 */
void ttm_resource_manager_debug(struct ttm_resource_manager *man, FILE *f);

/**
 * ttm_resource_manager_set_move() - record @fence as the latest pipelined
 * move out of @man. Of two fences of one context the later is kept (it
 * signals last). A fence of another context replaces the current one only
 * once that has signalled: one slot cannot carry two pending timelines.
 * Takes its own reference; a NULL @fence is a no-op.
 * @man: the manager.
 * @fence: the move's fence, or NULL.
 * Return: 0 when waiting for @man's move fence now implies @fence has
 * signalled; -EBUSY when another context's fence is still pending (nothing
 * recorded: the caller must not free memory that @fence still reads).
 */
int ttm_resource_manager_set_move(struct ttm_resource_manager *man, struct dma_fence *fence);

/**
 * ttm_resource_manager_drop_move() - forget the move fence if it is still
 * @fence (for example once its error has been reported); a later fence
 * installed meanwhile stays.
 * @man: the manager.
 * @fence: the fence to forget.
 */
void ttm_resource_manager_drop_move(struct ttm_resource_manager *man, struct dma_fence *fence);

/**
 * ttm_resource_manager_get_move() - the manager's move fence.
 * @man: the manager.
 *
 * Return: a new reference to the move fence, or NULL when there is none.
 */
struct dma_fence *ttm_resource_manager_get_move(struct ttm_resource_manager *man);

/**
 * ttm_resource_manager_cleanup_move() - wait for the move fence and drop it.
 * @man: the manager.
 * @intr: the wait may end with -EINTR.
 *
 * Return: 0; the fence's error, or the wait's (-EINTR with @intr).
 * The fence is dropped only when it signalled.
 */
int ttm_resource_manager_cleanup_move(struct ttm_resource_manager *man, bool intr);

/**
 * ttm_resource_init() - for managers: fill @res for @place, charge its
 * size to @man's usage and, for a BO's resource, link it at the tail of
 * @man's LRU for the BO's priority, or on the device's pinned list when
 * the BO is pinned (under the device's LRU lock, which the caller must not
 * hold). A resource without a BO starts unlinked.
 * @man: the manager.
 * @bo: the BO the resource is for, or NULL.
 * @place: the place it satisfies.
 * @size: bytes.
 * @res: the resource (the manager's memory).
 */
void ttm_resource_init(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
		       const struct ttm_place *place, uint64_t size, struct ttm_resource *res);

/**
 * ttm_resource_fini() - for managers: take @res off its LRU or the pinned
 * list if it is still linked (a BO's resource: under the device's LRU lock,
 * which the caller must then not hold; ttm_resource_free() unlinks before
 * the manager's free runs) and uncharge it.
 * @man: the manager.
 * @res: the resource.
 */
void ttm_resource_fini(struct ttm_resource_manager *man, struct ttm_resource *res);

/**
 * ttm_resource_alloc() - allocate @size bytes (rounded up to pages) from
 * @man inside @place. Fault point "resource_alloc" fails it with -ENOMEM
 * before the manager is asked. @place->mem_type should name @man's type
 * (the device picks the manager by it).
 * @man: the manager.
 * @bo: the BO the resource is for.
 * @place: where it must lie.
 * @size: bytes.
 * @page_alignment: the start's alignment in pages (0 or 1 for none).
 * @res: out: the resource.
 *
 * Return: 0 with *@res set; -EINVAL
 * for a zero size, a manager without an alloc callback or, in the range and buddy managers, an
 * alignment that is not a power of two (SYSTEM ignores alignment); -ENOSPC; -ENOMEM. On failure
 * *@res is NULL and the usage is unchanged.
 */
int ttm_resource_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
		       const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
		       struct ttm_resource **res);

/**
 * ttm_resource_free() - take *@res off the LRU (and its bulk move) and give
 * it back to @man; *@res becomes NULL. NULL is a no-op. The caller holds
 * the LRU lock when the resource may be on an LRU; the manager's own lock
 * is taken inside.
 * @man: the manager.
 * @res: in/out: the resource, NULL afterwards.
 */
void ttm_resource_free(struct ttm_resource_manager *man, struct ttm_resource **res);

/**
 * ttm_range_man_compatible() - the range manager's ->compatible (for
 * drivers that wrap it): @res starts at or after @place's first page and
 * its @size bytes end by @place's last page (the manager's end without one).
 * @man: the range manager holding @res.
 * @res: the resource.
 * @place: a place of @res's memory type.
 * @size: @res's size in bytes.
 *
 * Return: true when @res lies inside @place's range.
 */
bool ttm_range_man_compatible(struct ttm_resource_manager *man, struct ttm_resource *res,
			      const struct ttm_place *place, uint64_t size);

/**
 * ttm_resource_range_compatible() - the generic part of
 * ttm_resource_place_compatible(): @res lies in @place's page range (a
 * manager without a size, SYSTEM, has no end) and is contiguous if @place
 * asks for it.
 * @man: the manager holding @res.
 * @res: the resource.
 * @place: a place of @res's memory type.
 *
 * Return: true when @res fits @place by range and contiguity.
 */
static inline bool ttm_resource_range_compatible(struct ttm_resource_manager *man,
						 struct ttm_resource *res,
						 const struct ttm_place *place)
{
	uint64_t lpfn = place->lpfn ? place->lpfn : man->size ? man->size : UINT64_MAX;

	if (res->start < place->fpfn || res->start + (res->size >> TTM_PAGE_SHIFT) > lpfn)
		return false;
	return !(place->flags & TTM_PL_FLAG_CONTIGUOUS) ||
	       (res->placement & TTM_PL_FLAG_CONTIGUOUS);
}

/**
 * ttm_resource_has_own_compatible() - whether @man's ->compatible differs
 * from ttm_resource_range_compatible(). The range manager's test is that
 * same range test (its resources are always contiguous), so it does not.
 * @man: the manager.
 *
 * Return: true when only the manager's callback can answer.
 */
static inline bool ttm_resource_has_own_compatible(struct ttm_resource_manager *man)
{
	return man->func->compatible && man->func->compatible != ttm_range_man_compatible;
}

/**
 * ttm_resource_place_compatible() - true when @res (of @man) lies where
 * @place, a place of @res's memory type, allows: the manager's own test,
 * else ttm_resource_range_compatible(). Inline: validate asks it on every
 * call; the range manager is answered without the indirect call.
 * @man: the manager holding @res.
 * @res: the resource.
 * @place: a place of @res's memory type.
 *
 * Return: true when @res already satisfies @place.
 */
static inline bool ttm_resource_place_compatible(struct ttm_resource_manager *man,
						 struct ttm_resource *res,
						 const struct ttm_place *place)
{
	if (ttm_resource_has_own_compatible(man))
		return man->func->compatible(man, res, place, res->size);
	return ttm_resource_range_compatible(man, res, place);
}

/**
 * ttm_resource_compatible() - true when @res (of @man) already satisfies
 * one place of @placement, so validate has nothing to move. When
 * @evicting, DESIRED places are skipped, else FALLBACK places are.
 * @man: the manager holding @res.
 * @res: the resource.
 * @placement: the places.
 * @evicting: the question is asked for an eviction.
 *
 * Return: true when no move is needed.
 */
bool ttm_resource_compatible(struct ttm_resource_manager *man, struct ttm_resource *res,
			     const struct ttm_placement *placement, bool evicting);

/**
 * ttm_resource_io_segment() - where byte @offset of @res lives, relative to
 * page @res->start of its memory type, and in *@len the contiguous bytes
 * from there (see ttm_resource_manager_func.io_segment). For a linear
 * resource: @offset, and the rest of the resource. @offset must be below
 * @res->size (else 0 with *@len 0).
 * @man: the manager holding @res.
 * @res: the resource.
 * @offset: the byte in @res.
 * @len: out: contiguous bytes from there.
 *
 * Return: the byte's offset from page @res->start of the memory type.
 */
uint64_t ttm_resource_io_segment(struct ttm_resource_manager *man, struct ttm_resource *res,
				 uint64_t offset, uint64_t *len);

/**
 * ttm_resource_is_linear() - true when @res is one contiguous run from page
 * @res->start, so that [bus.addr, bus.addr + size) is all of it. Code that
 * maps a resource with one pointer (CPU mmap of io memory) must check it.
 * @man: the manager holding @res.
 * @res: the resource.
 *
 * Return: true when linear.
 */
bool ttm_resource_is_linear(struct ttm_resource_manager *man, struct ttm_resource *res);

/**
 * ttm_resource_intersects() - see ttm_resource_manager_func.intersects.
 * @man: the manager holding @res.
 * @res: the resource.
 * @place: the place asked about.
 * @size: @res's size in bytes.
 *
 * Return: true when evicting @res could make room in @place (always without
 * the manager's callback).
 */
bool ttm_resource_intersects(struct ttm_resource_manager *man, struct ttm_resource *res,
			     const struct ttm_place *place, uint64_t size);

/* LRU: the caller holds the LRU lock. */

/**
 * ttm_resource_lru_add() - put @res at the tail of its priority's LRU.
 * @man: the manager holding @res.
 * @res: the resource.
 */
void ttm_resource_lru_add(struct ttm_resource_manager *man, struct ttm_resource *res);

/**
 * ttm_resource_lru_move_tail() - mark @res most recently used. A resource
 * in a bulk move goes to the end of its bulk range instead, keeping the
 * range adjacent.
 * @man: the manager holding @res.
 * @res: the resource.
 */
void ttm_resource_lru_move_tail(struct ttm_resource_manager *man, struct ttm_resource *res);

/**
 * ttm_resource_lru_del() - take @res off its LRU and out of its bulk move.
 * @man: the manager holding @res.
 * @res: the resource.
 */
void ttm_resource_lru_del(struct ttm_resource_manager *man, struct ttm_resource *res);

/**
 * ttm_lru_bulk_move_init() - an empty bulk move.
 * @bulk: the bulk move (its memory is the caller's).
 */
void ttm_lru_bulk_move_init(struct ttm_lru_bulk_move *bulk);

/**
 * ttm_lru_bulk_move_add() - join @res (already on @man's LRU) to @bulk:
 * it is placed right after the range's last entry.
 * @bulk: the bulk move.
 * @man: the manager holding @res.
 * @res: the resource.
 *
 * Return: 0; -EBUSY when @res already belongs to a bulk; -EINVAL when @res
 * is not on an LRU.
 */
int ttm_lru_bulk_move_add(struct ttm_lru_bulk_move *bulk, struct ttm_resource_manager *man,
			  struct ttm_resource *res);

/**
 * ttm_lru_bulk_move_del() - take @res out of its bulk (it stays on the LRU).
 * @res: the resource.
 */
void ttm_lru_bulk_move_del(struct ttm_resource *res);

/**
 * ttm_lru_bulk_move_tail() - move every range of @bulk to the tail of its
 * LRU. @mans is indexed by memory type (TTM_NUM_MEM_TYPES entries, NULL
 * for types without a manager).
 * @bulk: the bulk move.
 * @mans: the device's managers by memory type.
 */
void ttm_lru_bulk_move_tail(struct ttm_lru_bulk_move *bulk,
			    struct ttm_resource_manager *const *mans);

/* The SYSTEM manager: plain allocations, no space limit, no ranges. */

/**
 * ttm_sys_manager_init() - @man becomes a SYSTEM type (use_tt, use_type).
 * @man: the manager.
 *
 * Return: 0; errors of ttm_resource_manager_init().
 */
int ttm_sys_manager_init(struct ttm_resource_manager *man);

/**
 * ttm_sys_manager_fini() - take down a SYSTEM manager with nothing left in it.
 * @man: the manager.
 *
 * Return: 0; -EBUSY while resources remain.
 */
int ttm_sys_manager_fini(struct ttm_resource_manager *man);

#endif /* TTM_RESOURCE_H */
