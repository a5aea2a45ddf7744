// SPDX-License-Identifier: MIT
/* Wound/wait mutexes; see ttm/ww_mutex.h for the rules. */
#include <ttm/dma_fence.h>
#include <ttm/ww_lockdep.h>
#include <ttm/ww_mutex.h>

#include <errno.h>
#include <time.h>

static atomic_uint_fast64_t ww_stamp_counter = 1;

/* The holder's ticket lives in the lock word above the two flag bits. */
_Static_assert(_Alignof(struct ww_acquire_ctx) > WW_MUTEX_FLAGS,
	       "ticket pointers need 2 free bits");

static inline struct ww_acquire_ctx *word_ctx(uintptr_t word)
{
	return (struct ww_acquire_ctx *)(word & ~WW_MUTEX_FLAGS);
}

void ww_mutex_init(struct ww_mutex *lock, struct ww_class *ww_class)
{
	atomic_init(&lock->owner, 0);
	ttm_lock_init(&lock->wait_lock);
	ttm_event_init(&lock->wake);
	lock->waiters = 0;
	lock->ww_class = ww_class;
}

void ww_mutex_destroy(struct ww_mutex *lock)
{
	(void)lock;
}

void ww_acquire_init(struct ww_acquire_ctx *ctx, struct ww_class *ww_class)
{
	ctx->stamp = atomic_fetch_add(&ww_stamp_counter, 1);
	ctx->acquired = 0;
	atomic_init(&ctx->wounded, false);
	ctx->ww_class = ww_class;
	ctx->done = false;
}

void ww_acquire_done(struct ww_acquire_ctx *ctx)
{
	ctx->done = true;
}

void ww_acquire_fini(struct ww_acquire_ctx *ctx)
{
	ctx->ww_class = NULL;
}

static bool older(const struct ww_acquire_ctx *a, const struct ww_acquire_ctx *b)
{
	return a->stamp < b->stamp;
}

/*
 * A transaction that holds nothing is not wounded any more. Cleared before
 * the lock word is claimed (with release): a wounder finds the ticket in
 * the word (with acquire), so its wound is ordered after this clear.
 */
static inline void ctx_unwound(struct ww_acquire_ctx *ctx)
{
	if (ctx && !ctx->acquired)
		atomic_store_explicit(&ctx->wounded, false, memory_order_relaxed);
}

/*
 * Take @lock if it is free, keeping WAITERS: a sleeper woken by the unlock
 * may lose the race to a newcomer, as with the kernel's mutex; it then
 * sleeps again and the newcomer's unlock wakes it. Call ctx_unwound() first.
 */
static inline bool try_take(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	uintptr_t word = atomic_load_explicit(&lock->owner, memory_order_relaxed);

	while (!(word & WW_MUTEX_LOCKED)) {
		if (atomic_compare_exchange_weak_explicit(
			&lock->owner, &word,
			(uintptr_t)ctx | WW_MUTEX_LOCKED | (word & WW_MUTEX_WAITERS),
			memory_order_acq_rel, memory_order_relaxed)) {
			if (ctx)
				ctx->acquired++;
			return true;
		}
	}
	return false;
}

/*
 * Must @ctx back off instead of waiting for the lock @holder holds? Called
 * with wait_lock held and WAITERS set, so @holder cannot go away.
 */
static bool must_back_off(struct ww_acquire_ctx *holder, struct ww_acquire_ctx *ctx)
{
	if (!ctx || !ctx->acquired)
		return false;
	if (ctx->ww_class->is_wait_die)
		return holder && older(holder, ctx);
	return atomic_load(&ctx->wounded);
}

static void wound_holder(struct ww_acquire_ctx *holder, struct ww_acquire_ctx *ctx)
{
	if (ctx && holder && !ctx->ww_class->is_wait_die && older(ctx, holder))
		atomic_store(&holder->wounded, true);
}

static void wait_once(struct ww_mutex *lock, struct ww_acquire_ctx *ctx, bool intr)
{
	lock->waiters++;
	if ((ctx && !ctx->ww_class->is_wait_die) || intr) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		ttm_event_wait(&lock->wake, &lock->wait_lock, &ts);
	} else {
		ttm_event_wait(&lock->wake, &lock->wait_lock, NULL);
	}
	lock->waiters--;
}

static int lock_contended(struct ww_mutex *lock, struct ww_acquire_ctx *ctx, bool slow, bool intr)
{
	int ret = 0;

	ttm_lock(&lock->wait_lock);
	for (;;) {
		uintptr_t word = atomic_load_explicit(&lock->owner, memory_order_acquire);
		struct ww_acquire_ctx *holder;

		if (!(word & WW_MUTEX_LOCKED)) {
			if (try_take(lock, ctx))
				break;
			continue;
		}
		/*
		 * Announce ourselves first: from then on the holder unlocks
		 * under wait_lock, which we hold, so its ticket stays valid
		 * while we look at it.
		 */
		if (!(word & WW_MUTEX_WAITERS) && !atomic_compare_exchange_strong_explicit(
						      &lock->owner, &word, word | WW_MUTEX_WAITERS,
						      memory_order_relaxed, memory_order_relaxed))
			continue;
		holder = word_ctx(word);
		if (ctx && holder == ctx) {
			ret = -EALREADY;
			break;
		}
		if (!slow && must_back_off(holder, ctx)) {
			ret = -EDEADLK;
			break;
		}
		if (intr && dma_fence_interrupt_pending()) {
			ret = -EINTR;
			break;
		}
		wound_holder(holder, ctx);
		wait_once(lock, ctx, intr);
	}
	ttm_unlock(&lock->wait_lock);
	return ret;
}

static inline int lock_common(struct ww_mutex *lock, struct ww_acquire_ctx *ctx, bool slow,
			      bool intr)
{
	int ret;

	if (ctx && (ctx->ww_class != lock->ww_class || ctx->done))
		return -EINVAL;
	ctx_unwound(ctx);
	ret = try_take(lock, ctx) ? 0 : lock_contended(lock, ctx, slow, intr);
	if (!ret)
		ww_lockdep_acquired(lock, ctx, false);
	return ret;
}

int ww_mutex_lock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	return lock_common(lock, ctx, false, false);
}

int ww_mutex_lock_interruptible(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	return lock_common(lock, ctx, false, true);
}

void ww_mutex_lock_slow(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	(void)lock_common(lock, ctx, true, false);
}

int ww_mutex_lock_slow_interruptible(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	return lock_common(lock, ctx, true, true);
}

bool ww_mutex_trylock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	if (ctx && ctx->ww_class != lock->ww_class)
		return false;
	ctx_unwound(ctx);
	if (!try_take(lock, ctx))
		return false;
	ww_lockdep_acquired(lock, ctx, true);
	return true;
}

/* Someone announced a wait: hand the lock back under wait_lock and wake them. */
static void unlock_slow(struct ww_mutex *lock)
{
	ttm_lock(&lock->wait_lock);
	atomic_store_explicit(&lock->owner, lock->waiters ? WW_MUTEX_WAITERS : 0,
			      memory_order_release);
	if (lock->waiters)
		ttm_event_signal(&lock->wake);
	ttm_unlock(&lock->wait_lock);
}

void ww_mutex_unlock(struct ww_mutex *lock)
{
	uintptr_t word = atomic_load_explicit(&lock->owner, memory_order_relaxed);
	struct ww_acquire_ctx *ctx = word_ctx(word);

	ww_lockdep_release(lock);
	if (ctx)
		ctx->acquired--;
	/* A waiter that announces itself meanwhile makes the swap fail. */
	if ((word & WW_MUTEX_WAITERS) ||
	    !atomic_compare_exchange_strong_explicit(&lock->owner, &word, 0, memory_order_release,
						     memory_order_relaxed))
		unlock_slow(lock);
}

bool ww_mutex_is_locked(struct ww_mutex *lock)
{
	return atomic_load_explicit(&lock->owner, memory_order_acquire) & WW_MUTEX_LOCKED;
}

struct ww_acquire_ctx *ww_mutex_owner_ctx(struct ww_mutex *lock)
{
	uintptr_t word = atomic_load_explicit(&lock->owner, memory_order_acquire);

	return word & WW_MUTEX_LOCKED ? word_ctx(word) : NULL;
}
