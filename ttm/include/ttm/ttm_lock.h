/* SPDX-License-Identifier: MIT */
/*
 * ttm_lock: the sleeping lock of the core's short critical sections (the
 * device's LRU lock, a range manager's allocator, a manager's move fence),
 * where the kernel uses a spinlock. Uncontended it costs what the kernel's
 * spinlock does: taking it is one exchange, dropping it a release store
 * (and a plain load of the sleeper count), both inline. A contended taker
 * spins briefly, then counts itself a sleeper and sleeps on a futex; the
 * unlock that sees a sleeper wakes one. Not recursive; no owner tracking.
 *
 * The unlock's store and its look at the sleeper count are not ordered
 * against each other (that would take a fence as dear as the exchange the
 * store replaces), so a sleeper that registered just as the holder let go
 * may not be woken by that unlock: the futex wait of a sleeper is bounded
 * (TTM_LOCK_SLEEP_NS in ttm_lock.c), after which it looks again. That
 * window is the unlocking CPU's store-buffer drain, far shorter than the
 * sleeper's way into the futex, which refuses to sleep on a free lock.
 *
 * ttm_event: a wake-up for a thread that sleeps with a ttm_lock dropped,
 * in place of a condition variable: ttm_event_wait() reads the event's
 * count under the lock, drops the lock and sleeps while the count is
 * unchanged, so a ttm_event_signal() after the waiter looked (with or
 * without the lock) is never lost; one from before is, as with a
 * condition variable signalled without its mutex.
 */
#ifndef TTM_LOCK_H
#define TTM_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

/**
 * struct ttm_lock - a short-section lock.
 * @word: 0 free, 1 held; the futex word.
 * @sleepers: threads between their registration as sleepers and their
 *	taking of the lock.
 */
struct ttm_lock {
	atomic_uint word;
	atomic_uint sleepers;
};

static inline void ttm_lock_init(struct ttm_lock *lock)
{
	atomic_init(&lock->word, 0);
	atomic_init(&lock->sleepers, 0);
}

/**
 * ttm_lock_contended() - the slow half of ttm_lock(): spin, then sleep as
 * a registered sleeper until @lock is taken. Call ttm_lock(), not this.
 * @lock: the lock whose fast path failed.
 */
void ttm_lock_contended(struct ttm_lock *lock);

/**
 * ttm_lock_wake() - the slow half of ttm_unlock(): wake one sleeper of
 * @lock. Call ttm_unlock(), not this.
 * @lock: the lock just released with sleepers registered.
 */
void ttm_lock_wake(struct ttm_lock *lock);

/** ttm_lock() - take @lock, sleeping while another thread holds it. */
static inline void ttm_lock(struct ttm_lock *lock)
{
	if (atomic_exchange_explicit(&lock->word, 1, memory_order_acquire))
		ttm_lock_contended(lock);
}

/** ttm_trylock() - take @lock if free. Return: true when taken. */
static inline bool ttm_trylock(struct ttm_lock *lock)
{
	return !atomic_exchange_explicit(&lock->word, 1, memory_order_acquire);
}

/** ttm_unlock() - drop @lock; wakes one sleeper when it sees one. */
static inline void ttm_unlock(struct ttm_lock *lock)
{
	atomic_store_explicit(&lock->word, 0, memory_order_release);
	if (__builtin_expect(atomic_load_explicit(&lock->sleepers, memory_order_relaxed), 0))
		ttm_lock_wake(lock);
}

/**
 * struct ttm_event - see the top of this file.
 * @seq: bumped by every signal; the futex word.
 * @waiters: threads between their look at @seq and their wake-up.
 */
struct ttm_event {
	atomic_uint seq;
	atomic_uint waiters;
};

static inline void ttm_event_init(struct ttm_event *ev)
{
	atomic_init(&ev->seq, 0);
	atomic_init(&ev->waiters, 0);
}

/**
 * ttm_event_signal() - wake every thread waiting on @ev (none: no system
 * call).
 * @ev: the event.
 */
void ttm_event_signal(struct ttm_event *ev);

/**
 * ttm_event_wait() - with @lock held: drop it, sleep until @ev is
 * signalled or CLOCK_MONOTONIC reaches @deadline (NULL: no deadline), and
 * take @lock again. May return early (spurious wake-up), as a condition
 * variable may: the caller re-checks its condition.
 * @ev: the event to sleep on.
 * @lock: held by the caller; dropped while asleep, held again on return.
 * @deadline: absolute CLOCK_MONOTONIC time, or NULL.
 */
void ttm_event_wait(struct ttm_event *ev, struct ttm_lock *lock, const struct timespec *deadline);

#endif /* TTM_LOCK_H */
