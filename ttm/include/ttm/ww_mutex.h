/* SPDX-License-Identifier: MIT */
/*
 * Wound/wait mutexes: locks taken in any order by transactions (acquire
 * contexts) that resolve deadlocks by backing off, as the kernel's ww_mutex.
 *
 * Every acquire context gets a stamp from a global counter; a smaller stamp
 * is older. When a context must wait for a lock held by another context:
 *  - wait-die class: an older context waits; a younger one that already
 *    holds a lock "dies" at once with -EDEADLK;
 *  - wound-wait class: a younger context waits; an older one wounds the
 *    holder, which gets -EDEADLK at its next contended lock attempt (or while
 *    it sleeps on one) provided it holds a lock, and then waits.
 * After -EDEADLK the transaction unlocks everything it holds and takes the
 * contended lock with ww_mutex_lock_slow(), which never fails, then retries.
 *
 * Implementation: a lock word taken and released by compare-and-swap when
 * uncontended; contended paths serialize on a small lock per lock and
 * sleep on its wake-up event (ttm_lock.h), so that set-up and tear-down
 * cost nothing. A wounded sleeper cannot be woken through the lock it sleeps on by the
 * wounder (who holds a different one), so wound-wait sleepers re-check their
 * wound every millisecond.
 */
#ifndef TTM_WW_MUTEX_H
#define TTM_WW_MUTEX_H

#include <pthread.h> /* for includers that take it from here */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_lock.h>
#include <ttm/ww_lockdep.h>

/**
 * struct ww_class - a family of locks that may be taken together.
 * @is_wait_die: wait-die when true, wound-wait when false.
 * @name: for debugging.
 */
struct ww_class {
	bool is_wait_die;
	const char *name;
};

#define DEFINE_WD_CLASS(var) struct ww_class var = {.is_wait_die = true, .name = #var}
#define DEFINE_WW_CLASS(var) struct ww_class var = {.is_wait_die = false, .name = #var}

/**
 * struct ww_acquire_ctx - one transaction's ticket.
 * @stamp: age; smaller is older.
 * @acquired: locks held under this ticket (only the owning thread changes it).
 * @wounded: set by an older wound-wait transaction that wants a lock we hold.
 * @ww_class: the class every lock taken under this ticket must belong to.
 * @done: ww_acquire_done() was called: no more locks may be taken.
 */
struct ww_acquire_ctx {
	uint64_t stamp;
	unsigned acquired;
	atomic_bool wounded;
	struct ww_class *ww_class;
	bool done;
};

/**
 * struct ww_mutex - the lock.
 * @owner: the lock word: 0 when free; WW_MUTEX_LOCKED while held, with the
 *	holder's ticket (NULL when held without one) in the bits above the
 *	flags; WW_MUTEX_WAITERS once a thread has gone to @wait_lock to wait.
 *	An uncontended lock and unlock is one compare-and-swap each on this
 *	word, as the kernel's mutex fast path. With WAITERS set the holder
 *	unlocks under @wait_lock, so a waiter holding @wait_lock may look at
 *	the holder's ticket (its age, its wound flag).
 * @wait_lock: serializes the slow paths; protects @waiters.
 * @wake: signalled on an unlock that found WAITERS.
 * @waiters: threads sleeping on @cond.
 * @ww_class: the family.
 */
struct ww_mutex {
	atomic_uintptr_t owner;
	struct ttm_lock wait_lock;
	struct ttm_event wake;
	unsigned waiters;
	struct ww_class *ww_class;
};

#define WW_MUTEX_LOCKED ((uintptr_t)1)
#define WW_MUTEX_WAITERS ((uintptr_t)2)
#define WW_MUTEX_FLAGS (WW_MUTEX_LOCKED | WW_MUTEX_WAITERS)

/**
 * ww_mutex_init() - an unlocked lock of a class.
 * @lock: the lock (its memory is the caller's).
 * @ww_class: the family it is taken with; must outlive the lock.
 */
void ww_mutex_init(struct ww_mutex *lock, struct ww_class *ww_class);

/**
 * ww_mutex_destroy() - release what ww_mutex_init() set up.
 * @lock: an unlocked lock nobody waits on.
 */
void ww_mutex_destroy(struct ww_mutex *lock);

/**
 * ww_acquire_init() - begin a transaction: a ticket with a new, youngest stamp.
 * @ctx: the ticket (its memory is the caller's, usually the stack).
 * @ww_class: the class of every lock the transaction takes.
 */
void ww_acquire_init(struct ww_acquire_ctx *ctx, struct ww_class *ww_class);

/**
 * ww_acquire_done() - no more locks will be taken under @ctx (a debugging
 * aid, as in the kernel: a later lock is -EINVAL).
 * @ctx: the ticket.
 */
void ww_acquire_done(struct ww_acquire_ctx *ctx);

/**
 * ww_acquire_fini() - end the transaction.
 * @ctx: the ticket; every lock taken under it must have been released.
 */
void ww_acquire_fini(struct ww_acquire_ctx *ctx);

/**
 * ww_mutex_lock() - take @lock under @ctx (NULL: as a plain mutex).
 * @lock: the lock.
 * @ctx: the transaction's ticket, or NULL.
 *
 * Context: may sleep.
 * Return: 0; -EALREADY when @ctx already holds @lock; -EDEADLK when the
 * transaction must back off (only ever when @ctx holds another lock);
 * -EINVAL on a class mismatch or after ww_acquire_done().
 */
int ww_mutex_lock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);

/**
 * ww_mutex_lock_interruptible() - ww_mutex_lock() that a signal may end.
 * @lock: the lock.
 * @ctx: the transaction's ticket, or NULL.
 *
 * Context: may sleep.
 * Return: as ww_mutex_lock(), and -EINTR when the thread's dma_fence
 * interrupt (see dma_fence.h) is raised while waiting.
 */
int ww_mutex_lock_interruptible(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);

/**
 * ww_mutex_lock_slow() - after -EDEADLK, with every other lock of the
 * transaction released: sleep until @lock is ours (never fails).
 * @lock: the contended lock.
 * @ctx: the ticket that got -EDEADLK.
 *
 * Context: may sleep.
 */
void ww_mutex_lock_slow(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);

/**
 * ww_mutex_lock_slow_interruptible() - ww_mutex_lock_slow() that a signal
 * may end.
 * @lock: the contended lock.
 * @ctx: the ticket that got -EDEADLK.
 *
 * Context: may sleep.
 * Return: 0, or -EINTR when the thread's dma_fence interrupt is raised.
 */
int ww_mutex_lock_slow_interruptible(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);

/**
 * ww_mutex_trylock() - take @lock if it is free, never waiting.
 * @lock: the lock.
 * @ctx: the ticket to hold it under, or NULL.
 *
 * Return: true when taken; false when held, or for a ticket of another class.
 */
bool ww_mutex_trylock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);

/**
 * ww_mutex_unlock() - release @lock and wake a waiter.
 * @lock: a lock the caller holds.
 */
void ww_mutex_unlock(struct ww_mutex *lock);

/**
 * ww_mutex_is_locked() - whether anyone holds @lock (a snapshot).
 * @lock: the lock.
 *
 * Return: true while held.
 */
bool ww_mutex_is_locked(struct ww_mutex *lock);

/*
 * The uncontended, ticketless halves of lock and unlock, inline for
 * dma_resv_lock()/dma_resv_unlock() (the kernel's mutex fast path is one
 * cmpxchg as well). False: nothing done, take the full call.
 */
static inline bool ww_mutex_lock_fast(struct ww_mutex *lock)
{
	uintptr_t free = 0;

#if WW_LOCKDEP_ENABLED
	/* The checker sees every lock through the out-of-line calls. */
	return false;
#endif
	return atomic_compare_exchange_strong_explicit(&lock->owner, &free, WW_MUTEX_LOCKED,
						       memory_order_acq_rel, memory_order_relaxed);
}

static inline bool ww_mutex_unlock_fast(struct ww_mutex *lock)
{
	uintptr_t held = WW_MUTEX_LOCKED;

#if WW_LOCKDEP_ENABLED
	return false;
#endif
	/* Fails when held under a ticket or a waiter announced itself. */
	return atomic_compare_exchange_strong_explicit(&lock->owner, &held, 0, memory_order_release,
						       memory_order_relaxed);
}
/**
 * ww_mutex_owner_ctx() - the ticket holding a lock.
 * @lock: the lock.
 *
 * Return: the holder's ticket; NULL when free or held without one.
 */
struct ww_acquire_ctx *ww_mutex_owner_ctx(struct ww_mutex *lock);

#endif /* TTM_WW_MUTEX_H */
