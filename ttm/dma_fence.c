// SPDX-License-Identifier: MIT
/* dma_fence: see the protocol in ttm/dma_fence.h. */
#include "ttm_config.h"

#include <ttm/dma_fence.h>
#include <ttm/ttm_delay.h>
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

_Static_assert(sizeof(void *) != 8 || sizeof(struct dma_fence) == 64,
	       "struct dma_fence grew past 64 bytes: keep the hot fields in one line");

static atomic_uint_fast64_t fence_context_counter = 1;
static _Thread_local struct dma_fence_interrupt *thread_intr;
/*
 * How many callback lists the calling thread is running (nested when a
 * callback signals another fence). Above 0 nothing waits for callbacks: see
 * fence_await_callbacks().
 */
static _Thread_local unsigned fence_cb_depth;

/*
 * Per-thread fence bookkeeping: the live count and a cache of freed blocks.
 *
 * The live count changes twice per fence (init and release). A shared
 * counter costs a locked RMW each time and bounces one line between the
 * threads that make fences; instead each thread counts in its own slot,
 * which only it writes, with a plain (relaxed atomic) load and store. The
 * slots are on a list under fence_threads_lock so dma_fence_live_count() can
 * sum them; a thread that exits adds its count to fence_live_retired and
 * leaves the list. A fence released on another thread than the one that made
 * it makes one slot go negative: only the sum means anything.
 *
 * The cache keeps a few freed blocks. Fence memory churns at millions of
 * blocks a second, and malloc+free of the same small block cost a third of
 * the emit/signal/wait/put cycle. Only plain fences are kept: released by
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

/**
 * struct fence_thread - one thread's fence bookkeeping (thread-local).
 * @live: fences this thread initialised minus those it released; written
 *	only by its thread, read by dma_fence_live_count() under
 *	fence_threads_lock.
 * @link: in fence_threads while @registered, protected by fence_threads_lock.
 * @registered: on the list, with the exit hook armed; only its thread
 *	reads or writes it.
 * @count: blocks in @blocks; only its thread touches the cache.
 * @blocks: freed bare fence blocks for the next dma_fence_alloc().
 */
struct fence_thread {
	atomic_long live;
	struct list_head link;
	bool registered;
	unsigned count;
	void *blocks[FENCE_CACHE_MAX];
};

static _Thread_local struct fence_thread fence_self;
static pthread_mutex_t fence_threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head fence_threads = LIST_HEAD_INIT(fence_threads);
/* Counts of exited threads, and of calls made while registering failed. */
static atomic_long fence_live_retired;
static pthread_key_t fence_thread_key;
static pthread_once_t fence_thread_once = PTHREAD_ONCE_INIT;
static bool fence_thread_key_ok;

/* At thread exit: fold the count into the retired sum, free the cache. */
static void fence_thread_exit(void *arg)
{
	struct fence_thread *t = arg;

	while (t->count)
		free(t->blocks[--t->count]);
	pthread_mutex_lock(&fence_threads_lock);
	list_del_init(&t->link);
	atomic_fetch_add_explicit(&fence_live_retired,
				  atomic_load_explicit(&t->live, memory_order_relaxed),
				  memory_order_relaxed);
	atomic_store_explicit(&t->live, 0, memory_order_relaxed);
	pthread_mutex_unlock(&fence_threads_lock);
	/* A later exit hook that still uses fences registers again. */
	t->registered = false;
}

static void fence_thread_key_init(void)
{
	fence_thread_key_ok = !pthread_key_create(&fence_thread_key, fence_thread_exit);
}

/* Put the calling thread on the list; false when it cannot be (no exit hook). */
static bool __attribute__((noinline)) fence_thread_register(struct fence_thread *t)
{
	pthread_once(&fence_thread_once, fence_thread_key_init);
	if (!fence_thread_key_ok || pthread_setspecific(fence_thread_key, t))
		return false;
	pthread_mutex_lock(&fence_threads_lock);
	list_add_tail(&t->link, &fence_threads);
	pthread_mutex_unlock(&fence_threads_lock);
	t->registered = true;
	return true;
}

static inline void fence_live_add(long n)
{
	struct fence_thread *t = &fence_self;

	if (__builtin_expect(!t->registered, 0) && !fence_thread_register(t)) {
		atomic_fetch_add_explicit(&fence_live_retired, n, memory_order_relaxed);
		return;
	}
	/* Only this thread writes @live: no RMW needed. */
	atomic_store_explicit(&t->live, atomic_load_explicit(&t->live, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

long dma_fence_live_count(void)
{
	struct fence_thread *t;
	long sum;

	pthread_mutex_lock(&fence_threads_lock);
	sum = atomic_load_explicit(&fence_live_retired, memory_order_relaxed);
	list_for_each_entry (t, &fence_threads, struct fence_thread, link)
		sum += atomic_load_explicit(&t->live, memory_order_relaxed);
	pthread_mutex_unlock(&fence_threads_lock);
	return sum;
}

/* Keep @block for reuse by this thread; false when it must be freed. */
static inline bool fence_cache_put(void *block)
{
	struct fence_thread *t = &fence_self;

	if (!FENCE_CACHE || t->count == FENCE_CACHE_MAX ||
	    malloc_usable_size(block) >= sizeof(struct dma_fence) + FENCE_CACHE_SLACK)
		return false;
	/* Without the exit hook the blocks would leak with the thread. */
	if (__builtin_expect(!t->registered, 0) && !fence_thread_register(t))
		return false;
	t->blocks[t->count++] = block;
	return true;
}

unsigned dma_fence_cache_count(void)
{
	return fence_self.count;
}

uint64_t dma_fence_context_alloc(unsigned num)
{
	return atomic_fetch_add(&fence_context_counter, num);
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
	atomic_init(&fence->timestamp_set, false);
	/* Not shared yet: a plain store, not the xchg a seq_cst clear is. */
	atomic_flag_clear_explicit(&fence->lock, memory_order_relaxed);
	fence->timestamp = 0;
	INIT_LIST_HEAD(&fence->cb_list);
	fence_live_add(1);
	TTM_PROBE2(fence_emit, context, seqno);
}

void *dma_fence_alloc(size_t size)
{
	if (size < sizeof(struct dma_fence) || fault_should_fail(&ttm_fault_fence_alloc, size))
		return NULL;
	if (FENCE_CACHE && size == sizeof(struct dma_fence) && fence_self.count)
		return fence_self.blocks[--fence_self.count];
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

/*
 * Run the callback list of a fence this thread signalled, then publish
 * CALLBACKS_DONE. Returns the flags word that RMW replaced.
 */
static unsigned __attribute__((noinline)) fence_signal_callbacks(struct dma_fence *fence)
{
	unsigned old;

	/*
	 * Callbacks run under the fence lock, as in the kernel, so that
	 * dma_fence_remove_callback() on another thread either removes a
	 * callback before it runs or waits until it has run, and an adder that
	 * got the lock before us has its callback on the list we run.
	 */
	fence_lock(fence);
	fence_cb_depth++;
	while (!list_empty(&fence->cb_list)) {
		struct dma_fence_cb *cb =
		    list_first_entry(&fence->cb_list, struct dma_fence_cb, node);

		list_del_init(&cb->node);
		cb->func(fence, cb);
	}
	fence_cb_depth--;
	/* Release: whoever sees the bit sees what the callbacks wrote. */
	old = atomic_fetch_or_explicit(&fence->flags, DMA_FENCE_FLAG_CALLBACKS_DONE,
				       memory_order_acq_rel);
	fence_unlock(fence);
	return old;
}

/*
 * Sleep until @fence's signaller has run its callbacks; @v is a recent load
 * of the flags, with SIGNALED. Not on a thread that is running callbacks
 * itself: the fence may be the one whose list it runs (whose signaller it
 * is), or the other signaller's callbacks may wait for this thread's (a
 * chain re-arming on each other's fences); such a caller gets the kernel's
 * lock-free answer. The signaller is between its CAS and its RMW of
 * CALLBACKS_DONE, running a list that must not sleep: a short wait.
 */
static void fence_await_callbacks(struct dma_fence *fence, unsigned v)
{
	while (!(v & DMA_FENCE_FLAG_CALLBACKS_DONE) && !fence_cb_depth) {
		if (!(v & DMA_FENCE_FLAG_WAITERS)) {
			v = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_WAITERS) |
			    DMA_FENCE_FLAG_WAITERS;
			continue;
		}
		futex(&fence->flags, FUTEX_WAIT_PRIVATE, v, NULL);
		v = atomic_load_explicit(&fence->flags, memory_order_acquire);
	}
}

/*
 * The signal itself. One CAS decides the one signaller and tells it who is
 * waiting; everything after it is that signaller's alone.
 */
static inline int fence_signal(struct dma_fence *fence, int64_t timestamp_ns)
{
	unsigned old = atomic_load_explicit(&fence->flags, memory_order_relaxed);
	unsigned set;

#if TTM_FENCE_DELAY
	/* The regression the benchmarks must notice (-Dfence_delay_ns). */
	fence = ttm_delay_after(TTM_FENCE_DELAY_NS, fence, old);
#endif
	do {
		if (old & DMA_FENCE_FLAG_SIGNALED)
			return -EINVAL;
		/*
		 * SIGNALED is published by the claiming CAS, before the
		 * callbacks run, as the kernel's bit is set before its list
		 * runs: callbacks that wake a waiter which then tests the
		 * fence (drm_syncobj, sync_file) rely on it. With no
		 * callback armed, there is nothing to wait for.
		 */
		set = DMA_FENCE_FLAG_SIGNALED;
		if (!(old & DMA_FENCE_FLAG_HAS_CB))
			set |= DMA_FENCE_FLAG_CALLBACKS_DONE;
	} while (!atomic_compare_exchange_weak_explicit(
	    &fence->flags, &old, old | set, memory_order_acq_rel, memory_order_relaxed));
	fence->timestamp = timestamp_ns;
	atomic_store_explicit(&fence->timestamp_set, true, memory_order_release);
	TTM_PROBE2(fence_signal, fence->context, fence->seqno);

	/* Waiters may sleep until CALLBACKS_DONE: its RMW has the last word. */
	if (old & DMA_FENCE_FLAG_HAS_CB)
		old = fence_signal_callbacks(fence);
	if (old & DMA_FENCE_FLAG_WAITERS)
		futex(&fence->flags, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	return 0;
}

int dma_fence_signal_timestamp(struct dma_fence *fence, int64_t timestamp_ns)
{
	return fence ? fence_signal(fence, timestamp_ns) : -EINVAL;
}

int dma_fence_signal(struct dma_fence *fence)
{
	/* The clock first: it is the time of the CAS, give or take its cost. */
	return fence ? fence_signal(fence, dma_fence_now_ns()) : -EINVAL;
}

int dma_fence_get_timestamp(struct dma_fence *fence, int64_t *ts)
{
	if (!fence || !ts)
		return -EINVAL;
	if (!dma_fence_test_signaled_flag(fence))
		return -EBUSY;
	while (!atomic_load_explicit(&fence->timestamp_set, memory_order_acquire))
		sched_yield();
	*ts = fence->timestamp;
	return 0;
}

bool dma_fence_is_signaled_slow(struct dma_fence *fence)
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
	unsigned old = atomic_load_explicit(&fence->flags, memory_order_acquire);

	const unsigned done = DMA_FENCE_FLAG_ENABLE_SIGNAL | DMA_FENCE_FLAG_SIGNALED;

	/* Neither bit is ever cleared: once seen, no RMW (a storm of waiters, one line). */
	if (old & done)
		return;
	old = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_ENABLE_SIGNAL);
	if (old & done)
		return;
	if (fence->ops && fence->ops->enable_signaling && !fence->ops->enable_signaling(fence))
		dma_fence_signal(fence);
}

int dma_fence_add_callback(struct dma_fence *fence, struct dma_fence_cb *cb, dma_fence_func_t func)
{
	unsigned old;

	if (!fence || !cb || !func)
		return -EINVAL;
	old = atomic_load_explicit(&fence->flags, memory_order_acquire);
	if (old & DMA_FENCE_FLAG_SIGNALED)
		goto signaled;
	dma_fence_enable_sw_signaling(fence);
	fence_lock(fence);
	old = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_HAS_CB);
	if (old & DMA_FENCE_FLAG_SIGNALED) {
		fence_unlock(fence);
		goto signaled;
	}
	cb->func = func;
	list_add_tail(&cb->node, &fence->cb_list);
	fence_unlock(fence);
	return 0;

signaled:
	/* The kernel's adder would find the list run under the lock. */
	fence_await_callbacks(fence, old);
	INIT_LIST_HEAD(&cb->node);
	return -ENOENT;
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
	struct timespec ts = {.tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll};

	return ts;
}

/* The default wait on a fence found pending; see dma_fence_default_wait(). */
static int64_t fence_default_wait(struct dma_fence *fence, bool intr, int64_t timeout_ns)
{
	struct dma_fence_interrupt *ti = intr ? thread_intr : NULL;
	int64_t deadline = 0, left = timeout_ns;
	int64_t ret;
	unsigned v;

	if (timeout_ns == 0)
		return 0;
	TTM_PROBE2(fence_wait, fence->context, fence->seqno);
	dma_fence_enable_sw_signaling(fence);
	if (timeout_ns != MAX_SCHEDULE_TIMEOUT)
		deadline = dma_fence_now_ns() + timeout_ns;
	set_waiting_on(ti, fence);
	for (;;) {
		struct timespec ts;

		/*
		 * A word already showing WAITERS was set by an RMW ordered before
		 * any signal that has not happened yet, so that signal sees it and
		 * wakes us: no RMW of our own then. A woken waiter of a storm
		 * thus only reads the line.
		 */
		v = atomic_load_explicit(&fence->flags, memory_order_acquire);
		if (!(v & (DMA_FENCE_FLAG_WAITERS | DMA_FENCE_FLAG_SIGNALED)))
			v = atomic_fetch_or(&fence->flags, DMA_FENCE_FLAG_WAITERS) |
			    DMA_FENCE_FLAG_WAITERS;
		if (v & DMA_FENCE_FLAG_SIGNALED) {
			fence_await_callbacks(fence, v);
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

/* Signalled (polling ops->signaled), with its callbacks run: see the protocol. */
static bool fence_signaled_and_done(struct dma_fence *fence)
{
	if (!dma_fence_is_signaled(fence))
		return false;
	fence_await_callbacks(fence, atomic_load_explicit(&fence->flags, memory_order_acquire));
	return true;
}

int64_t dma_fence_default_wait(struct dma_fence *fence, bool intr, int64_t timeout_ns)
{
	if (!fence || timeout_ns < 0)
		return -EINVAL;
	if (fence_signaled_and_done(fence))
		return timeout_ns ? timeout_ns : 1;
	return fence_default_wait(fence, intr, timeout_ns);
}

/* Everything but the signalled fast path of dma_fence_wait_timeout(). */
int64_t dma_fence_wait_timeout_slow(struct dma_fence *fence, bool intr, int64_t timeout_ns)
{
	int64_t ret;

	if (!fence || timeout_ns < 0)
		return -EINVAL;
	if (fence_signaled_and_done(fence))
		return timeout_ns ? timeout_ns : 1;
	if (fence->ops && fence->ops->wait) {
		TTM_PROBE2(fence_wait, fence->context, fence->seqno);
		dma_fence_enable_sw_signaling(fence);
		ret = fence->ops->wait(fence, intr, timeout_ns);
		/* A custom wait may return on SIGNALED, with the list still running. */
		if (ret > 0) {
			unsigned v = atomic_load_explicit(&fence->flags, memory_order_acquire);

			if (v & DMA_FENCE_FLAG_SIGNALED)
				fence_await_callbacks(fence, v);
		}
		return ret;
	}
	return fence_default_wait(fence, intr, timeout_ns);
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
		if (fence_signaled_and_done(fences[i])) {
			if (idx)
				*idx = i;
			return timeout_ns ? timeout_ns : 1;
		}
	}
	if (!timeout_ns)
		return 0;
	if (fault_should_fail(&ttm_fault_fence_alloc, count * sizeof(*cbs)))
		return -ENOMEM;
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
				fence_await_callbacks(fences[i], atomic_load(&fences[i]->flags));
				if (idx)
					*idx = i;
				ret =
				    deadline ? deadline - dma_fence_now_ns() : MAX_SCHEDULE_TIMEOUT;
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
