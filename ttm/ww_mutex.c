// SPDX-License-Identifier: MIT
/* Wound/wait mutexes; see ttm/ww_mutex.h for the rules. */
#include <ttm/dma_fence.h>
#include <ttm/ww_mutex.h>

#include <errno.h>
#include <time.h>

static atomic_uint_fast64_t ww_stamp_counter = 1;

void ww_mutex_init(struct ww_mutex *lock, struct ww_class *ww_class)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&lock->wait_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&lock->cond, &ca);
	pthread_condattr_destroy(&ca);
	lock->locked = false;
	lock->ctx = NULL;
	lock->waiters = 0;
	lock->ww_class = ww_class;
}

void ww_mutex_destroy(struct ww_mutex *lock)
{
	pthread_cond_destroy(&lock->cond);
	pthread_mutex_destroy(&lock->wait_lock);
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

static void take(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	lock->locked = true;
	lock->ctx = ctx;
	if (ctx) {
		ctx->acquired++;
		/* A transaction that holds nothing is not wounded any more. */
		if (ctx->acquired == 1)
			atomic_store(&ctx->wounded, false);
	}
}

/* Must @ctx back off instead of waiting for @lock? Called with wait_lock held. */
static bool must_back_off(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	struct ww_acquire_ctx *holder = lock->ctx;

	if (!ctx || !ctx->acquired)
		return false;
	if (ctx->ww_class->is_wait_die)
		return holder && older(holder, ctx);
	return atomic_load(&ctx->wounded);
}

static void wound_holder(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	struct ww_acquire_ctx *holder = lock->ctx;

	if (ctx && holder && !ctx->ww_class->is_wait_die && older(ctx, holder))
		atomic_store(&holder->wounded, true);
}

static int lock_common(struct ww_mutex *lock, struct ww_acquire_ctx *ctx, bool slow, bool intr)
{
	int ret = 0;

	if (ctx && (ctx->ww_class != lock->ww_class || ctx->done))
		return -EINVAL;
	pthread_mutex_lock(&lock->wait_lock);
	if (ctx && lock->locked && lock->ctx == ctx) {
		ret = -EALREADY;
		goto out;
	}
	while (lock->locked) {
		if (!slow && must_back_off(lock, ctx)) {
			ret = -EDEADLK;
			goto out;
		}
		if (intr && dma_fence_interrupt_pending()) {
			ret = -EINTR;
			goto out;
		}
		wound_holder(lock, ctx);
		lock->waiters++;
		if ((ctx && !ctx->ww_class->is_wait_die) || intr) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&lock->cond, &lock->wait_lock, &ts);
		} else {
			pthread_cond_wait(&lock->cond, &lock->wait_lock);
		}
		lock->waiters--;
	}
	take(lock, ctx);
out:
	pthread_mutex_unlock(&lock->wait_lock);
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
	bool ok = false;

	if (ctx && ctx->ww_class != lock->ww_class)
		return false;
	pthread_mutex_lock(&lock->wait_lock);
	if (!lock->locked) {
		take(lock, ctx);
		ok = true;
	}
	pthread_mutex_unlock(&lock->wait_lock);
	return ok;
}

void ww_mutex_unlock(struct ww_mutex *lock)
{
	pthread_mutex_lock(&lock->wait_lock);
	if (lock->ctx)
		lock->ctx->acquired--;
	lock->locked = false;
	lock->ctx = NULL;
	if (lock->waiters)
		pthread_cond_broadcast(&lock->cond);
	pthread_mutex_unlock(&lock->wait_lock);
}

bool ww_mutex_is_locked(struct ww_mutex *lock)
{
	bool l;

	pthread_mutex_lock(&lock->wait_lock);
	l = lock->locked;
	pthread_mutex_unlock(&lock->wait_lock);
	return l;
}

struct ww_acquire_ctx *ww_mutex_owner_ctx(struct ww_mutex *lock)
{
	struct ww_acquire_ctx *c;

	pthread_mutex_lock(&lock->wait_lock);
	c = lock->ctx;
	pthread_mutex_unlock(&lock->wait_lock);
	return c;
}
