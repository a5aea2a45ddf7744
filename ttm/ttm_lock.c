// SPDX-License-Identifier: MIT
/* The core's short-section lock and its wake-up event; see ttm/ttm_lock.h. */
#include <ttm/ttm_lock.h>

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spins before sleeping: a holder of the LRU lock keeps it a few hundred ns. */
#define TTM_LOCK_SPINS 100
/* A sleeper looks again after this long even without a wake-up. */
#define TTM_LOCK_SLEEP_NS 1000000

static inline void ttm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static long ttm_futex(atomic_uint *word, int op, unsigned val, const struct timespec *ts,
		      unsigned bitset)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, bitset);
}

void ttm_lock_contended(struct ttm_lock *lock)
{
	/* Bounds a sleep whose wake-up was missed (see ttm_lock.h). */
	static const struct timespec nap = {0, TTM_LOCK_SLEEP_NS};

	for (unsigned i = 0; i < TTM_LOCK_SPINS; i++) {
		if (!atomic_load_explicit(&lock->word, memory_order_relaxed) &&
		    !atomic_exchange_explicit(&lock->word, 1, memory_order_acquire))
			return;
		if (atomic_load_explicit(&lock->sleepers, memory_order_relaxed))
			break;
		ttm_cpu_relax();
	}
	/*
	 * Registered before the exchange below (both sequentially
	 * consistent): an unlock after our failed exchange sees us, bar the
	 * store-buffer window the bounded sleep covers.
	 */
	atomic_fetch_add(&lock->sleepers, 1);
	while (atomic_exchange(&lock->word, 1))
		ttm_futex(&lock->word, FUTEX_WAIT_PRIVATE, 1, &nap, 0);
	atomic_fetch_sub_explicit(&lock->sleepers, 1, memory_order_relaxed);
}

void ttm_lock_wake(struct ttm_lock *lock)
{
	ttm_futex(&lock->word, FUTEX_WAKE_PRIVATE, 1, NULL, 0);
}

void ttm_event_signal(struct ttm_event *ev)
{
	/* Sequentially consistent with the waiter's two steps: one of us sees the other. */
	atomic_fetch_add(&ev->seq, 1);
	if (atomic_load(&ev->waiters))
		ttm_futex(&ev->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, 0);
}

void ttm_event_wait(struct ttm_event *ev, struct ttm_lock *lock, const struct timespec *deadline)
{
	unsigned seq;

	atomic_fetch_add(&ev->waiters, 1);
	seq = atomic_load(&ev->seq);
	ttm_unlock(lock);
	/* BITSET: an absolute CLOCK_MONOTONIC deadline, as pthread_cond_timedwait took. */
	ttm_futex(&ev->seq, FUTEX_WAIT_BITSET_PRIVATE, seq, deadline, FUTEX_BITSET_MATCH_ANY);
	atomic_fetch_sub(&ev->waiters, 1);
	ttm_lock(lock);
}
