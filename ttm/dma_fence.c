// SPDX-License-Identifier: MIT
/* dma_fence: see the protocol in ttm/dma_fence.h. */
#include <ttm/dma_fence.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_trace.h>

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <malloc.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_uint_fast64_t fence_context_counter = 1;
/*
 * The live count is touched twice per fence (init and release). One global
 * counter makes every thread that creates fences bounce the same cache line;
 * threads instead take a slot of a small padded array round-robin on their
 * first fence and count there. A fence may be released on another thread
 * than the one that created it, so one slot can go negative: only the sum
 * means anything, and it is exact whenever no fence is being created or
 * released concurrently, which is when the leak checks read it.
 */
#define FENCE_LIVE_SLOTS 16u

struct fence_live_slot {
	atomic_long count;
	char pad[64 - sizeof(atomic_long)];
};

static struct fence_live_slot fence_live[FENCE_LIVE_SLOTS] __attribute__((aligned(64)));
static atomic_uint fence_live_next;
static _Thread_local atomic_long *fence_live_mine;
static _Thread_local struct dma_fence_interrupt *thread_intr;

/*
 * A few freed fence blocks kept per thread. Fence memory churns at millions
 * of blocks a second, and malloc+free of the same small block cost a third
 * of the emit/signal/wait/put cycle. Only plain fences are kept: released by
 * dma_fence_release() without an ops->release (the block is then ours to
 * free) and no bigger than a bare struct dma_fence plus malloc's slack, so a
 * cached block always fits any request of dma_fence_alloc() it serves. The
 * cache is compiled out under AddressSanitizer, which must see every free to
 * catch a use after the last put.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FENCE_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FENCE_CACHE 0
#endif
#endif
#ifndef FENCE_CACHE
#define FENCE_CACHE 1
#endif

#define FENCE_CACHE_MAX 32u
#define FENCE_CACHE_SLACK 64u

struct fence_cache {
	unsigned count;
	bool registered;
	void *blocks[FENCE_CACHE_MAX];
};

static _Thread_local struct fence_cache fence_cache;
static pthread_key_t fence_cache_key;
static pthread_once_t fence_cache_once = PTHREAD_ONCE_INIT;
static bool fence_cache_key_ok;

/* At thread exit: give the thread's cached blocks back to malloc. */
static void fence_cache_drain(void *arg)
{
	struct fence_cache *c = arg;

	while (c->count)
		free(c->blocks[--c->count]);
}

static void fence_cache_key_init(void)
{
	fence_cache_key_ok = !pthread_key_create(&fence_cache_key, fence_cache_drain);
}

/* Keep @block for reuse by this thread; false when it must be freed. */
static bool fence_cache_put(void *block)
{
	struct fence_cache *c = &fence_cache;

	if (!FENCE_CACHE || c->count == FENCE_CACHE_MAX ||
	    malloc_usable_size(block) >= sizeof(struct dma_fence) + FENCE_CACHE_SLACK)
		return false;
	if (__builtin_expect(!c->registered, 0)) {
		/* Without the exit hook the blocks would leak with the thread. */
		pthread_once(&fence_cache_once, fence_cache_key_init);
		if (!fence_cache_key_ok || pthread_setspecific(fence_cache_key, c))
			return false;
		c->registered = true;
	}
	c->blocks[c->count++] = block;
	return true;
}

unsigned dma_fence_cache_count(void)
{
	return fence_cache.count;
}

uint64_t dma_fence_context_alloc(unsigned num)
{
	return atomic_fetch_add(&fence_context_counter, num);
}

int64_t dma_fence_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static atomic_long *fence_live_slot(void)
{
	atomic_long *slot = fence_live_mine;

	if (__builtin_expect(!slot, 0)) {
		unsigned i = atomic_fetch_add_explicit(&fence_live_next, 1, memory_order_relaxed);

		slot = &fence_live[i % FENCE_LIVE_SLOTS].count;
		fence_live_mine = slot;
	}
	return slot;
}

static void fence_live_add(long n)
{
	atomic_fetch_add_explicit(fence_live_slot(), n, memory_order_relaxed);
}

long dma_fence_live_count(void)
{
	long sum = 0;

	for (unsigned i = 0; i < FENCE_LIVE_SLOTS; i++)
		sum += atomic_load_explicit(&fence_live[i].count, memory_order_relaxed);
	return sum;
}

static void fence_lock(struct dma_fence *f)
{
	while (atomic_flag_test_and_set_explicit(&f->lock, memory_order_acquire))
		sched_yield();
}

static void fence_unlock(struct dma_fence *f)
{
	atomic_flag_clear_explicit(&f->lock, memory_order_release);
}

static long futex(atomic_uint *word, int op, unsigned val, const struct timespec *ts)
{
	return syscall(SYS_futex, (unsigned *)word, op, val, ts, NULL, 0);
}

void dma_fence_init(struct dma_fence *fence, const struct dma_fence_ops *ops, uint64_t context,
		    uint64_t seqno)
{
	fence->ops = ops;
	fence->context = context;
	fence->seqno = seqno;
	atomic_init(&fence->flags, 0);
	atomic_init(&fence->refcount, 1);
	fence->error = 0;
	fence->timestamp = 0;
	atomic_flag_clear(&fence->lock);
	INIT_LIST_HEAD(&fence->cb_list);
	fence_live_add(1);
	TTM_PROBE2(fence_emit, context, seqno);
}

void *dma_fence_alloc(size_t size)
{
	if (size < sizeof(struct dma_fence) || fault_should_fail(&ttm_fault_fence_alloc, size))
		return NULL;
	if (FENCE_CACHE && size == sizeof(struct dma_fence) && fence_cache.count)
		return fence_cache.blocks[--fence_cache.count];
	return malloc(size);
}

void dma_fence_release(struct dma_fence *fence)
{
	fence_live_add(-1);
	if (fence->ops && fence->ops->release)
		fence->ops->release(fence);
	else if (!fence_cache_put(fence))
		free(fence);
}

int dma_fence_signal_timestamp(struct dma_fence *fence, int64_t timestamp_ns)
{
	unsigned old;

	if (!fence)
		return -EINVAL;
	/* The timestamp is written before SIGNALED is published (release). */
	if (dma_fence_test_signaled_flag(fence))
		return -EINVAL;
	old = atomic_fetch_or_explicit(&fence->flags, DMA_FENCE_FLAG_SIGNALED,
				       memory_order_acq_rel);
	if (old & DMA_FENCE_FLAG_SIGNALED)
		return -EINVAL;
	fence->timestamp = timestamp_ns;
	atomic_fetch_or_explicit(&fence->flags, DMA_FENCE_FLAG_TIMESTAMP, memory_order_release);
	TTM_PROBE2(fence_signal, fence->context, fence->seqno);

	if (old & DMA_FENCE_FLAG_HAS_CB) {
		/*
		 * Callbacks run under the fence lock, as in the kernel, so that
		 * dma_fence_remove_callback() on another thread either removes
		 * a callback before it runs or waits until it has run.
		 */
		fence_lock(fence);
		while (!list_empty(&fence->cb_list)) {
			struct dma_fence_cb *cb =
				list_first_entry(&fence->cb_list, struct dma_fence_cb, node);

			list_del_init(&cb->node);
			cb->func(fence, cb);
		}
		fence_unlock(fence);
	}
	if (old & DMA_FENCE_FLAG_WAITERS)
		futex(&fence->flags, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	return 0;
}

int dma_fence_signal(struct dma_fence *fence)
{
	return dma_fence_signal_timestamp(fence, fence ? dma_fence_now_ns() : 0);
}

bool dma_fence_is_signaled(struct dma_fence *fence)
{
	if (dma_fence_test_signaled_flag(fence))
		return true;
	if (fence->ops && fence->ops->signaled && fence->ops->signaled(fence)) {
		dma_fence_signal(fence);
		return true;
	}
	return false;
}

int dma_fence_set_error(struct dma_fence *fence, int error)
{
	if (!fence || error >= 0 || dma_fence_test_signaled_flag(fence))
		return -EINVAL;
	fence->error = error;
	return 0;
}

int dma_fence_get_status(struct dma_fence *fence)
{
	if (!dma_fence_is_signaled(fence))
		return 0;
	return fence->error ? fence->error : 1;
}

void dma_fence_enable_sw_signaling(struct dma_fence *fence)
{
	unsigned old = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_ENABLE_SIGNAL);

	if (old & (DMA_FENCE_FLAG_ENABLE_SIGNAL | DMA_FENCE_FLAG_SIGNALED))
		return;
	if (fence->ops && fence->ops->enable_signaling && !fence->ops->enable_signaling(fence))
		dma_fence_signal(fence);
}

int dma_fence_add_callback(struct dma_fence *fence, struct dma_fence_cb *cb,
			   dma_fence_func_t func)
{
	unsigned old;

	if (!fence || !cb || !func)
		return -EINVAL;
	if (dma_fence_test_signaled_flag(fence)) {
		INIT_LIST_HEAD(&cb->node);
		return -ENOENT;
	}
	dma_fence_enable_sw_signaling(fence);
	fence_lock(fence);
	old = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_HAS_CB);
	if (old & DMA_FENCE_FLAG_SIGNALED) {
		fence_unlock(fence);
		INIT_LIST_HEAD(&cb->node);
		return -ENOENT;
	}
	cb->func = func;
	list_add_tail(&cb->node, &fence->cb_list);
	fence_unlock(fence);
	return 0;
}

bool dma_fence_remove_callback(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	bool pending;

	fence_lock(fence);
	pending = !list_empty(&cb->node);
	if (pending)
		list_del_init(&cb->node);
	fence_unlock(fence);
	return pending;
}

void dma_fence_interrupt_init(struct dma_fence_interrupt *intr)
{
	pthread_mutex_init(&intr->lock, NULL);
	atomic_init(&intr->pending, false);
	intr->waiting_on = NULL;
}

void dma_fence_interrupt_install(struct dma_fence_interrupt *intr)
{
	thread_intr = intr;
}

void dma_fence_interrupt_raise(struct dma_fence_interrupt *intr)
{
	pthread_mutex_lock(&intr->lock);
	atomic_store(&intr->pending, true);
	if (intr->waiting_on) {
		/* Change the futex word so a waiter about to sleep sees it moved. */
		atomic_fetch_xor(&intr->waiting_on->flags, DMA_FENCE_FLAG_KICK);
		futex(&intr->waiting_on->flags, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	}
	pthread_mutex_unlock(&intr->lock);
}

void dma_fence_interrupt_clear(struct dma_fence_interrupt *intr)
{
	atomic_store(&intr->pending, false);
}

bool dma_fence_interrupt_pending(void)
{
	return thread_intr && atomic_load(&thread_intr->pending);
}

static void set_waiting_on(struct dma_fence_interrupt *intr, struct dma_fence *f)
{
	if (!intr)
		return;
	pthread_mutex_lock(&intr->lock);
	intr->waiting_on = f;
	pthread_mutex_unlock(&intr->lock);
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll };

	return ts;
}

/* Everything but the signalled fast path of dma_fence_wait_timeout(). */
int64_t dma_fence_wait_timeout_slow(struct dma_fence *fence, bool intr, int64_t timeout_ns)
{
	struct dma_fence_interrupt *ti = intr ? thread_intr : NULL;
	int64_t deadline = 0, left = timeout_ns;
	int64_t ret;
	unsigned v;

	if (!fence || timeout_ns < 0)
		return -EINVAL;
	if (dma_fence_test_signaled_flag(fence))
		return timeout_ns ? timeout_ns : 1;
	if (dma_fence_is_signaled(fence))
		return timeout_ns ? timeout_ns : 1;
	if (timeout_ns == 0)
		return 0;
	TTM_PROBE2(fence_wait, fence->context, fence->seqno);
	dma_fence_enable_sw_signaling(fence);
	if (timeout_ns != MAX_SCHEDULE_TIMEOUT)
		deadline = dma_fence_now_ns() + timeout_ns;
	set_waiting_on(ti, fence);
	for (;;) {
		struct timespec ts;

		v = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_WAITERS) | DMA_FENCE_FLAG_WAITERS;
		if (v & DMA_FENCE_FLAG_SIGNALED) {
			ret = deadline ? deadline - dma_fence_now_ns() : MAX_SCHEDULE_TIMEOUT;
			if (ret < 1)
				ret = 1;
			break;
		}
		if (ti && atomic_load(&ti->pending)) {
			ret = -EINTR;
			break;
		}
		if (deadline) {
			left = deadline - dma_fence_now_ns();
			if (left <= 0) {
				ret = 0;
				break;
			}
			ts = ns_to_ts(left);
		}
		futex(&fence->flags, FUTEX_WAIT_PRIVATE, v, deadline ? &ts : NULL);
	}
	set_waiting_on(ti, NULL);
	return ret;
}

int dma_fence_wait(struct dma_fence *fence, bool intr)
{
	int64_t r = dma_fence_wait_timeout(fence, intr, MAX_SCHEDULE_TIMEOUT);

	return r < 0 ? (int)r : 0;
}

struct wait_any_cb {
	struct dma_fence_cb base;
	atomic_uint *word;
};

static void wait_any_wake(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct wait_any_cb *w = container_of(cb, struct wait_any_cb, base);

	(void)fence;
	atomic_fetch_add(w->word, 1);
	futex(w->word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

int64_t dma_fence_wait_any_timeout(struct dma_fence **fences, unsigned count, bool intr,
				   int64_t timeout_ns, unsigned *idx)
{
	struct dma_fence_interrupt *ti = intr ? thread_intr : NULL;
	struct wait_any_cb *cbs;
	atomic_uint word = 0;
	int64_t deadline = 0, ret = 0;
	unsigned i, armed = 0;

	if (!fences || !count || timeout_ns < 0)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		if (dma_fence_is_signaled(fences[i])) {
			if (idx)
				*idx = i;
			return timeout_ns ? timeout_ns : 1;
		}
	}
	if (!timeout_ns)
		return 0;
	cbs = calloc(count, sizeof(*cbs));
	if (!cbs)
		return -ENOMEM;
	for (armed = 0; armed < count; armed++) {
		cbs[armed].word = &word;
		if (dma_fence_add_callback(fences[armed], &cbs[armed].base, wait_any_wake)) {
			if (idx)
				*idx = armed;
			ret = timeout_ns;
			goto out;
		}
	}
	if (timeout_ns != MAX_SCHEDULE_TIMEOUT)
		deadline = dma_fence_now_ns() + timeout_ns;
	for (;;) {
		unsigned v = atomic_load(&word);
		struct timespec ts;

		for (i = 0; i < count; i++) {
			if (dma_fence_test_signaled_flag(fences[i])) {
				if (idx)
					*idx = i;
				ret = deadline ? deadline - dma_fence_now_ns() : MAX_SCHEDULE_TIMEOUT;
				if (ret < 1)
					ret = 1;
				goto out;
			}
		}
		if (ti && atomic_load(&ti->pending)) {
			ret = -EINTR;
			goto out;
		}
		if (deadline) {
			int64_t left = deadline - dma_fence_now_ns();

			if (left <= 0) {
				ret = 0;
				goto out;
			}
			ts = ns_to_ts(left < 1000000 ? left : 1000000);
		} else {
			/* Interrupts do not kick this word: re-check every ms. */
			ts = ns_to_ts(1000000);
		}
		futex(&word, FUTEX_WAIT_PRIVATE, v, &ts);
	}
out:
	for (i = 0; i < armed; i++)
		dma_fence_remove_callback(fences[i], &cbs[i].base);
	free(cbs);
	return ret;
}

static const char *stub_name(struct dma_fence *f)
{
	(void)f;
	return "stub";
}

static void stub_release_static(struct dma_fence *f)
{
	/* The global stub lives forever; undo the live-count drop. */
	fence_live_add(1);
	atomic_store(&f->refcount, 1);
}

static const struct dma_fence_ops stub_static_ops = {
	.get_driver_name = stub_name,
	.get_timeline_name = stub_name,
	.release = stub_release_static,
};

static const struct dma_fence_ops stub_ops = {
	.get_driver_name = stub_name,
	.get_timeline_name = stub_name,
};

static struct dma_fence stub_fence;
static pthread_once_t stub_once = PTHREAD_ONCE_INIT;

static void stub_init(void)
{
	dma_fence_init(&stub_fence, &stub_static_ops, 0, 0);
	fence_live_add(-1); /* not a leak candidate */
	dma_fence_signal_timestamp(&stub_fence, 0);
}

struct dma_fence *dma_fence_get_stub(void)
{
	pthread_once(&stub_once, stub_init);
	return dma_fence_get(&stub_fence);
}

struct dma_fence *dma_fence_allocate_private_stub(int64_t timestamp_ns)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	if (!f)
		return NULL;
	dma_fence_init(f, &stub_ops, dma_fence_context_alloc(1), 0);
	dma_fence_signal_timestamp(f, timestamp_ns);
	return f;
}
