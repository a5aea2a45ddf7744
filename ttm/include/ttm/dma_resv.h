/* SPDX-License-Identifier: MIT */
/*
 * dma_resv: a buffer's reservation object: a ww_mutex and the fences that
 * tell who uses the buffer.
 *
 * Each fence is stored with a usage, ordered KERNEL < WRITE < READ <
 * BOOKKEEP: asking for usage U returns every fence whose usage is <= U
 * (waiting for READ also waits for WRITE and KERNEL fences, which is what an
 * access that only reads must respect; BOOKKEEP returns everything).
 *
 * Locking: the fence array is changed only with @lock held (and, briefly,
 * @fences_lock, so readers that do not hold @lock can take a consistent
 * snapshot with dma_resv_get_fences()). Lock order: @lock, then
 * @fences_lock, then a fence's own lock.
 */
#ifndef TTM_DMA_RESV_H
#define TTM_DMA_RESV_H

#include <ttm/dma_fence.h>
#include <ttm/ww_mutex.h>

enum dma_resv_usage {
	DMA_RESV_USAGE_KERNEL,
	DMA_RESV_USAGE_WRITE,
	DMA_RESV_USAGE_READ,
	DMA_RESV_USAGE_BOOKKEEP,
};

/* Every reservation lock belongs to this wait-die class (ticketed validate lists). */
extern struct ww_class reservation_ww_class;

/* Fence slots a reservation holds in itself (the kernel's first allocation holds 4). */
#define DMA_RESV_INLINE_FENCES 4

/**
 * struct dma_resv - the reservation object.
 * @lock: the ww_mutex; held while fences are added.
 * @fences_lock: protects the array against unlocked readers.
 * @fences: the fences, one reference each.
 * @usages: usage of each fence (in the same allocation as @fences).
 * @num_fences: entries in use.
 * @max_fences: entries allocated (reserved slots = max - num).
 * @inline_fences: the first DMA_RESV_INLINE_FENCES slots: @fences points
 *	at them until more are reserved, so a BO with a fence or two (most)
 *	needs no allocation for them.
 * @inline_usages: their usages.
 */
struct dma_resv {
	struct ww_mutex lock;
	struct ttm_lock fences_lock;
	struct dma_fence **fences;
	uint8_t *usages;
	unsigned num_fences;
	unsigned max_fences;
	struct dma_fence *inline_fences[DMA_RESV_INLINE_FENCES];
	uint8_t inline_usages[DMA_RESV_INLINE_FENCES];
};

/**
 * dma_resv_init() - an empty, unlocked reservation object.
 * @obj: the object (its memory is the caller's).
 */
void dma_resv_init(struct dma_resv *obj);

/**
 * dma_resv_fini() - drop every fence and release the object's memory.
 * @obj: the object; it must be unlocked.
 */
void dma_resv_fini(struct dma_resv *obj);

static inline int dma_resv_lock(struct dma_resv *obj, struct ww_acquire_ctx *ctx)
{
	if (!ctx && ww_mutex_lock_fast(&obj->lock))
		return 0;
	return ww_mutex_lock(&obj->lock, ctx);
}

static inline int dma_resv_lock_interruptible(struct dma_resv *obj, struct ww_acquire_ctx *ctx)
{
	return ww_mutex_lock_interruptible(&obj->lock, ctx);
}

static inline void dma_resv_lock_slow(struct dma_resv *obj, struct ww_acquire_ctx *ctx)
{
	ww_mutex_lock_slow(&obj->lock, ctx);
}

static inline bool dma_resv_trylock(struct dma_resv *obj)
{
	return ww_mutex_lock_fast(&obj->lock) || ww_mutex_trylock(&obj->lock, NULL);
}

static inline void dma_resv_unlock(struct dma_resv *obj)
{
	if (!ww_mutex_unlock_fast(&obj->lock))
		ww_mutex_unlock(&obj->lock);
}

static inline bool dma_resv_is_locked(struct dma_resv *obj)
{
	return ww_mutex_is_locked(&obj->lock);
}

/**
 * dma_resv_reserve_fences() - make room for @num more fences.
 * @obj: the object.
 * @num: how many dma_resv_add_fence() calls must not fail for lack of room.
 *
 * Context: @obj locked.
 * Return: 0 or -ENOMEM (fault point resv_reserve); nothing changes on error.
 */
int dma_resv_reserve_fences(struct dma_resv *obj, unsigned num);

/**
 * dma_resv_add_fence() - attach @fence with @usage.
 * @obj: the object.
 * @fence: the fence; the object takes a reference of its own.
 * @usage: what the fence's work does with the buffer.
 *
 * A fence of the same context that is not later than @fence and whose usage
 * is not stronger, or a signalled fence, is replaced in place; otherwise a
 * reserved slot is used.
 *
 * Context: @obj locked.
 * Return: 0, or -ENOSPC when no slot was reserved (a caller bug; the fence
 * is not added), -EINVAL on bad arguments.
 */
int dma_resv_add_fence(struct dma_resv *obj, struct dma_fence *fence, enum dma_resv_usage usage);

/**
 * dma_resv_prune() - drop the signalled fences.
 * @obj: the object.
 *
 * Context: @obj locked.
 */
void dma_resv_prune(struct dma_resv *obj);

/*
 * Locked iteration: for (i = 0; i < obj->num_fences; i++) over fences whose
 * usage is <= @usage.
 */
#define dma_resv_for_each_fence(obj, usage, i, fence)                                              \
	for ((i) = 0; (i) < (obj)->num_fences; (i)++)                                              \
		if (((fence) = (obj)->fences[i]), (obj)->usages[i] <= (usage))

/**
 * dma_resv_get_fences() - snapshot the fences with usage <= @usage, with a
 * reference each, without holding the lock.
 * @obj: the object.
 * @usage: the strongest usage included.
 * @num: out: the number of fences.
 * @fences: out: a malloc'ed array (NULL when *@num is 0); release it with
 *	dma_resv_put_fences().
 *
 * Return: 0 or -ENOMEM.
 */
int dma_resv_get_fences(struct dma_resv *obj, enum dma_resv_usage usage, unsigned *num,
			struct dma_fence ***fences);

/**
 * dma_resv_put_fences() - put every fence of a dma_resv_get_fences() snapshot
 * and free the array.
 * @fences: the array (NULL when @num is 0).
 * @num: its length.
 */
void dma_resv_put_fences(struct dma_fence **fences, unsigned num);

/**
 * dma_resv_test_signaled() - whether the fences up to a usage have signalled.
 * @obj: the object; the caller need not hold its lock.
 * @usage: the strongest usage looked at.
 *
 * Return: true when every fence with usage <= @usage has signalled.
 */
bool dma_resv_test_signaled(struct dma_resv *obj, enum dma_resv_usage usage);

/**
 * dma_resv_wait_timeout() - wait for every fence with usage <= @usage.
 * @obj: the object; not locked by the caller (the fences are snapshot).
 * @usage: the strongest usage waited for.
 * @intr: whether a signal may end the wait (-EINTR).
 * @timeout_ns: how long at most.
 *
 * Return: the time left (> 0), 0 on timeout, -EINTR, -ENOMEM; as
 * dma_fence_wait_timeout().
 */
int64_t dma_resv_wait_timeout(struct dma_resv *obj, enum dma_resv_usage usage, bool intr,
			      int64_t timeout_ns);

/**
 * dma_resv_count_pending() - count the unsignalled fences, for the info dump.
 * @obj: the object; the caller need not hold its lock.
 *
 * Return: the number of fences not signalled yet.
 */
unsigned dma_resv_count_pending(struct dma_resv *obj);

#endif /* TTM_DMA_RESV_H */
