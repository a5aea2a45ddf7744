/* SPDX-License-Identifier: MIT */
/*
 * dma_fence: a point on a timeline (context + 64-bit seqno) that signals once.
 *
 * Signalling, waiting and callback registration are lock-free on their fast
 * paths: everything hangs off one 32-bit flags word that is also the futex
 * the waiters sleep on. The protocol that rules out lost wake-ups:
 *  - a waiter sets DMA_FENCE_FLAG_WAITERS with an atomic RMW (or reads a word
 *    that already has it: WAITERS is never cleared, so that RMW came first) and
 *    sleeps only while the word it read has no SIGNALED bit;
 *  - a callback adder takes the fence lock and sets DMA_FENCE_FLAG_HAS_CB with
 *    an atomic RMW before it checks SIGNALED;
 *  - the signaller sets SIGNALED with one compare-and-swap and looks at the
 *    bits it replaced. Without HAS_CB the same CAS sets CALLBACKS_DONE, and
 *    it calls FUTEX_WAKE only when WAITERS was set. With HAS_CB it takes the
 *    lock, runs the callback list, sets CALLBACKS_DONE (an RMW, before it
 *    drops the lock) and wakes when that RMW found WAITERS.
 * All RMWs on one word are totally ordered, so either the signaller sees the
 * other side's bit, or the other side sees SIGNALED. A fence nobody waits on
 * and nobody has armed a callback on therefore signals with that one atomic
 * RMW and no lock and no system call.
 *
 * SIGNALED is visible before the callbacks run, as the kernel's bit is set
 * before its list runs: dma_fence_is_signaled() and
 * dma_fence_test_signaled_flag() may answer true while a callback is still
 * running (a callback that wakes a thread which then tests the fence relies
 * on that). Every call that takes the fence lock in the kernel sees the list
 * run, since the kernel runs it under that lock; here the calls that would
 * take it, the waits (dma_fence_wait*, also a poll with timeout 0 and
 * dma_fence_wait_any_timeout()) and dma_fence_add_callback() returning
 * -ENOENT, return only once CALLBACKS_DONE is set: whoever learns from them
 * that the fence signalled finds every callback's effects done. The one
 * exception is a thread that is itself running callbacks (of any fence):
 * those calls do not wait there, since the fence may be its own or the
 * other fence's callbacks may be waiting for it.
 *
 * The timestamp is not in the flags word (a second RMW on it would cost as
 * much as the first): the one signaller that won the CAS writes
 * @timestamp and then publishes it with a release store of @timestamp_set;
 * dma_fence_get_timestamp() reads it in that order.
 *
 * Lock order: a fence's lock is innermost. Callbacks run with it held, on the
 * signalling thread: they must not add or remove callbacks on the same fence
 * (adding returns -ENOENT anyway, the fence being signalled) and must not sleep.
 */
#ifndef TTM_DMA_FENCE_H
#define TTM_DMA_FENCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <time.h>

#include <testlib/clock.h>

#include <ttm/list.h>

/* Wait forever. */
#define MAX_SCHEDULE_TIMEOUT INT64_MAX

enum dma_fence_flag_bits {
	DMA_FENCE_FLAG_SIGNALED = 1u << 0,
	/* Set with SIGNALED or, with callbacks armed, once they have all run. */
	DMA_FENCE_FLAG_CALLBACKS_DONE = 1u << 1,
	DMA_FENCE_FLAG_ENABLE_SIGNAL = 1u << 2,
	DMA_FENCE_FLAG_WAITERS = 1u << 3,
	DMA_FENCE_FLAG_HAS_CB = 1u << 4,
	/* Toggled by dma_fence_interrupt_raise() to kick sleeping waiters. */
	DMA_FENCE_FLAG_KICK = 1u << 5,
	/* First bit a driver may use for its own state. */
	DMA_FENCE_FLAG_USER_BITS = 1u << 8,
};

struct dma_fence;
struct dma_fence_cb;

typedef void (*dma_fence_func_t)(struct dma_fence *fence, struct dma_fence_cb *cb);

/**
 * struct dma_fence_cb - a callback run once when the fence signals.
 * @node: link in the fence's callback list, protected by the fence lock.
 * @func: called once, with the fence lock held, from the signalling thread;
 *	it may free @cb (the node is already unlinked).
 */
struct dma_fence_cb {
	struct list_head node;
	dma_fence_func_t func;
};

/**
 * struct dma_fence_ops - the fence class's implementation.
 * @get_driver_name: required; a static string.
 * @get_timeline_name: required; a static string or one that lives as long
 *	as the fence.
 * @enable_signaling: optional; called once, without the fence lock, when
 *	the first waiter or callback arrives. Return false when the fence has
 *	already completed: the core then signals it.
 * @signaled: optional; a cheap poll of the hardware state. Returning true
 *	makes dma_fence_is_signaled() signal the fence.
 * @release: optional; frees the fence when the last reference goes. The
 *	default is free() of the fence pointer, which must then be the start of
 *	a malloc'ed block.
 * @wait: optional; a custom wait, called by dma_fence_wait_timeout() (and so
 *	by dma_fence_wait() and the reservation waits) for a fence that is not
 *	signalled yet, after signalling was enabled, with the same arguments
 *	and contract: the time left (at least 1) once signalled, 0 on timeout,
 *	-EINTR when interrupted. NULL means dma_fence_default_wait(), which a
 *	custom wait may also call.
 */
struct dma_fence_ops {
	const char *(*get_driver_name)(struct dma_fence *fence);
	const char *(*get_timeline_name)(struct dma_fence *fence);
	bool (*enable_signaling)(struct dma_fence *fence);
	bool (*signaled)(struct dma_fence *fence);
	void (*release)(struct dma_fence *fence);
	int64_t (*wait)(struct dma_fence *fence, bool intr, int64_t timeout_ns);
};

/**
 * struct dma_fence - the fence itself, embedded by the driver.
 * @ops: the class.
 * @context: the timeline, from dma_fence_context_alloc().
 * @seqno: position on the timeline; later fences have larger seqnos
 *	(compared wrap-safe, see __dma_fence_is_later()).
 * @flags: DMA_FENCE_FLAG_*; also the futex word waiters sleep on.
 * @refcount: references; the fence is released when the last one is put.
 *	The final put may skip writing it (see dma_fence_put()), so a
 *	release callback finds it at 0 or 1.
 * @error: set with dma_fence_set_error() before signalling.
 * @timestamp_set: true once @timestamp holds the signal's time; stored with
 *	release by the signaller after it wrote @timestamp.
 * @lock: a small spinlock protecting @cb_list.
 * @timestamp: CLOCK_MONOTONIC ns of the signal, written once by the
 *	signaller; read it with dma_fence_get_timestamp().
 * @cb_list: pending callbacks, protected by @lock.
 *
 * The fields are ordered to fit 64 bytes (on LP64), a cache line's size.
 */
struct dma_fence {
	const struct dma_fence_ops *ops;
	uint64_t context;
	uint64_t seqno;
	atomic_uint flags;
	atomic_int refcount;
	int error;
	atomic_bool timestamp_set;
	atomic_flag lock;
	int64_t timestamp;
	struct list_head cb_list;
};

/**
 * dma_fence_context_alloc() - reserve consecutive timeline contexts. Thread safe.
 * @num: how many.
 *
 * Return: the first of them.
 */
uint64_t dma_fence_context_alloc(unsigned num);

/**
 * dma_fence_init() - initialise a caller-allocated fence with one
 * reference, unsignalled.
 * @fence: the fence.
 * @ops: its class; must outlive the fence.
 * @context: its timeline (from dma_fence_context_alloc()).
 * @seqno: its point on the timeline.
 */
void dma_fence_init(struct dma_fence *fence, const struct dma_fence_ops *ops, uint64_t context,
		    uint64_t seqno);

/**
 * dma_fence_alloc() - memory for a driver fence, through the fence_alloc
 * fault point; the default release frees it.
 * @size: bytes, at least sizeof(struct dma_fence), the fence first.
 *
 * Return: the block; NULL on (injected) failure.
 */
void *dma_fence_alloc(size_t size);

static inline struct dma_fence *dma_fence_get(struct dma_fence *fence)
{
	if (fence)
		atomic_fetch_add_explicit(&fence->refcount, 1, memory_order_relaxed);
	return fence;
}

/**
 * dma_fence_release() - free a fence whose last reference went (through
 * ops->release when the class has one); dma_fence_put() calls it.
 * @fence: the fence.
 */
void dma_fence_release(struct dma_fence *fence);

/**
 * dma_fence_put - drop a reference; the last one releases the fence.
 *
 * A caller that holds the only reference is the only one who could take
 * another (a reference is taken from a reference), so a count of 1 seen
 * here cannot change under us: the fence is released without the locked
 * decrement. The acquire load pairs with the release half of the other
 * holders' decrements, as the RMW's acquire would. Code that finds fences
 * without holding a reference (a "get unless zero" lookup) is not
 * supported, with or without this shortcut.
 */
static inline void dma_fence_put(struct dma_fence *fence)
{
	if (!fence)
		return;
	if (atomic_load_explicit(&fence->refcount, memory_order_acquire) == 1 ||
	    atomic_fetch_sub_explicit(&fence->refcount, 1, memory_order_acq_rel) == 1)
		dma_fence_release(fence);
}

/**
 * dma_fence_signal() - mark the fence completed, wake waiters, run callbacks.
 * @fence: the fence.
 *
 * Return: 0, or -EINVAL when it had already been signalled (nothing runs)
 * or @fence is NULL. Callable from any thread, including from inside a
 * callback of another fence. The caller must hold a reference: waiters may
 * put theirs as soon as SIGNALED is visible, and the signaller still
 * writes the timestamp and wakes them after that.
 */
int dma_fence_signal(struct dma_fence *fence);

/**
 * dma_fence_signal_timestamp() - dma_fence_signal() with an explicit timestamp.
 * @fence: the fence.
 * @timestamp_ns: the CLOCK_MONOTONIC time to record.
 *
 * Return: as dma_fence_signal().
 */
int dma_fence_signal_timestamp(struct dma_fence *fence, int64_t timestamp_ns);

/**
 * dma_fence_get_timestamp() - when @fence signalled.
 * @fence: the fence.
 * @ts: set to the CLOCK_MONOTONIC ns taken by dma_fence_signal() (or given
 *	to dma_fence_signal_timestamp()).
 *
 * Return: 0, -EBUSY when the fence has not signalled (its SIGNALED bit is
 * tested, ops->signaled is not polled), -EINVAL on a NULL argument. Between
 * the signaller's CAS and its timestamp store this waits for the store, a
 * few instructions unless the signalling thread is preempted right there.
 */
int dma_fence_get_timestamp(struct dma_fence *fence, int64_t *ts);

static inline bool dma_fence_test_signaled_flag(const struct dma_fence *fence)
{
	return atomic_load_explicit(&((struct dma_fence *)fence)->flags, memory_order_acquire) &
	       DMA_FENCE_FLAG_SIGNALED;
}

/*
 * Signalled, and every callback armed before the signal has run (the state a
 * thread taking the kernel's fence lock finds). Lock-free; does not wait.
 */
static inline bool dma_fence_test_callbacks_done(const struct dma_fence *fence)
{
	return atomic_load_explicit(&((struct dma_fence *)fence)->flags, memory_order_acquire) &
	       DMA_FENCE_FLAG_CALLBACKS_DONE;
}

/**
 * dma_fence_is_signaled_slow() - dma_fence_is_signaled() out of line:
 * everything but the signalled fast path.
 * @fence: the fence.
 *
 * Return: as dma_fence_is_signaled().
 */
bool dma_fence_is_signaled_slow(struct dma_fence *fence);

/**
 * dma_fence_is_signaled - has @fence signalled?
 *
 * Polls ops->signaled and signals the fence when it says so.
 * Return: true when signalled.
 * The test of the signalled bit is inline, as in the kernel: it is what most
 * calls find.
 */
static inline bool dma_fence_is_signaled(struct dma_fence *fence)
{
	return dma_fence_test_signaled_flag(fence) || dma_fence_is_signaled_slow(fence);
}

/**
 * dma_fence_set_error() - record an error to be reported once the fence signals.
 * @fence: the fence, not signalled yet.
 * @error: a negative errno.
 *
 * Return: 0; -EINVAL when @error is not negative or the fence has signalled.
 */
int dma_fence_set_error(struct dma_fence *fence, int error);

/**
 * dma_fence_get_status() - the fence's state.
 * @fence: the fence.
 *
 * Return: 0 while pending; after signal 1, or the error set before signal.
 */
int dma_fence_get_status(struct dma_fence *fence);

/**
 * dma_fence_add_callback() - run @func once @fence signals.
 * @fence: the fence.
 * @cb: the caller's callback record (queued on the fence).
 * @func: the function.
 *
 * Return: 0 when queued, -ENOENT when the fence has already signalled (then
 * @func is never called, and every callback armed before the signal has
 * run, see the protocol above), -EINVAL on a NULL argument.
 */
int dma_fence_add_callback(struct dma_fence *fence, struct dma_fence_cb *cb, dma_fence_func_t func);

/**
 * dma_fence_remove_callback() - remove a queued callback.
 * @fence: the fence.
 * @cb: the record given to dma_fence_add_callback().
 *
 * Return: true when it was still pending (it will not run).
 */
bool dma_fence_remove_callback(struct dma_fence *fence, struct dma_fence_cb *cb);

/**
 * dma_fence_enable_sw_signaling() - ask the class to start signalling
 * (calls ops->enable_signaling once).
 * @fence: the fence.
 */
void dma_fence_enable_sw_signaling(struct dma_fence *fence);

/**
 * struct dma_fence_interrupt - a way to cancel a thread's interruptible waits.
 * A thread that wants its waits to be cancellable installs one with
 * dma_fence_interrupt_install(); another thread then calls
 * dma_fence_interrupt_raise() and the wait returns -EINTR (and so does
 * every later interruptible wait until dma_fence_interrupt_clear()). This is
 * the userspace stand-in for a pending signal in the kernel.
 * @lock: protects @waiting_on.
 * @pending: set by raise, cleared by clear.
 * @waiting_on: the fence the owning thread sleeps on, or NULL.
 */
struct dma_fence_interrupt {
	pthread_mutex_t lock;
	atomic_bool pending;
	struct dma_fence *waiting_on;
};

/**
 * dma_fence_interrupt_init() - an interrupt, not raised.
 * @intr: the interrupt (its memory is the caller's).
 */
void dma_fence_interrupt_init(struct dma_fence_interrupt *intr);

/**
 * dma_fence_interrupt_install() - make @intr the calling thread's interrupt.
 * @intr: the interrupt; NULL uninstalls.
 */
void dma_fence_interrupt_install(struct dma_fence_interrupt *intr);

/**
 * dma_fence_interrupt_raise() - end the owning thread's interruptible wait
 * (and every later one) with -EINTR until cleared. Any thread.
 * @intr: the interrupt.
 */
void dma_fence_interrupt_raise(struct dma_fence_interrupt *intr);

/**
 * dma_fence_interrupt_clear() - clear a raised interrupt.
 * @intr: the interrupt.
 */
void dma_fence_interrupt_clear(struct dma_fence_interrupt *intr);

/**
 * dma_fence_interrupt_pending() - whether the calling thread's interrupt is raised.
 *
 * Return: true when the calling thread has a raised interrupt pending.
 */
bool dma_fence_interrupt_pending(void);

/**
 * dma_fence_wait_timeout_slow() - dma_fence_wait_timeout() out of line:
 * everything but the signalled fast path.
 * @fence: the fence.
 * @intr: as for dma_fence_wait_timeout().
 * @timeout_ns: as for dma_fence_wait_timeout().
 *
 * Return: as dma_fence_wait_timeout().
 */
int64_t dma_fence_wait_timeout_slow(struct dma_fence *fence, bool intr, int64_t timeout_ns);

/**
 * dma_fence_wait_timeout - sleep until @fence signals.
 * @intr: interruptible: return -EINTR when the thread's interrupt is raised.
 * @timeout_ns: 0 polls; MAX_SCHEDULE_TIMEOUT waits forever.
 *
 * Returns the time left in ns (at least 1) when signalled, 0 on timeout,
 * -EINTR when interrupted; a class with ops->wait does the waiting itself.
 * A fence found signalled is returned as such once its callbacks have run
 * (waiting for them if need be, whatever @timeout_ns and @intr say, as the
 * kernel's wait spins on the fence lock the signaller holds meanwhile).
 * The signalled case is inline: pipelines wait mostly on fences that have
 * signalled, and a call cost as much as the test itself.
 */
static inline int64_t dma_fence_wait_timeout(struct dma_fence *fence, bool intr, int64_t timeout_ns)
{
	if (fence && timeout_ns >= 0 && dma_fence_test_callbacks_done(fence))
		return timeout_ns ? timeout_ns : 1;
	return dma_fence_wait_timeout_slow(fence, intr, timeout_ns);
}

/**
 * dma_fence_default_wait() - the wait of a class without ops->wait.
 * @fence: the fence; signalling is enabled first.
 * @intr: return -EINTR when the calling thread's interrupt is raised.
 * @timeout_ns: 0 polls; MAX_SCHEDULE_TIMEOUT waits forever.
 *
 * Return: as dma_fence_wait_timeout(); -EINVAL on a NULL fence or a
 * negative timeout.
 */
int64_t dma_fence_default_wait(struct dma_fence *fence, bool intr, int64_t timeout_ns);

/**
 * dma_fence_wait() - wait for @fence without a timeout.
 * @fence: the fence.
 * @intr: return -EINTR when the calling thread's interrupt is raised.
 *
 * Return: 0 or -EINTR.
 */
int dma_fence_wait(struct dma_fence *fence, bool intr);

/**
 * dma_fence_wait_any_timeout() - wait until any of @fences signals.
 * @fences: the fences.
 * @count: how many.
 * @intr: return -EINTR when the calling thread's interrupt is raised.
 * @timeout_ns: as for dma_fence_wait_timeout().
 * @idx: if not NULL, set to the index of a signalled fence.
 *
 * Return: as dma_fence_wait_timeout(); -EINVAL for an empty array.
 */
int64_t dma_fence_wait_any_timeout(struct dma_fence **fences, unsigned count, bool intr,
				   int64_t timeout_ns, unsigned *idx);

/**
 * dma_fence_get_stub() - the always-signalled stub fence.
 *
 * Return: the stub with a new reference.
 */
struct dma_fence *dma_fence_get_stub(void);

/**
 * dma_fence_allocate_private_stub() - a new signalled fence.
 * @timestamp_ns: its signal timestamp.
 *
 * Return: the fence with one reference; NULL on allocation failure.
 */
struct dma_fence *dma_fence_allocate_private_stub(int64_t timestamp_ns);

/* Wrap-safe "a later than b" for 64-bit seqnos on one timeline. */
static inline bool __dma_fence_is_later(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) > 0;
}

/* @f1 later than @f2? Both must be on the same context (false otherwise). */
static inline bool dma_fence_is_later(const struct dma_fence *f1, const struct dma_fence *f2)
{
	return f1->context == f2->context && __dma_fence_is_later(f1->seqno, f2->seqno);
}

static inline bool dma_fence_is_later_or_same(const struct dma_fence *f1,
					      const struct dma_fence *f2)
{
	return f1 == f2 || (f1->context == f2->context && f1->seqno == f2->seqno) ||
	       dma_fence_is_later(f1, f2);
}

/*
 * The fence timestamp clock (the kernel's ktime_get()): testlib's
 * CLOCK_MONOTONIC, signed as ktime_t. Inline, it is on the signal path.
 */
static inline int64_t dma_fence_now_ns(void)
{
	return (int64_t)testlib_now_ns();
}

/**
 * dma_fence_live_count() - fences initialised and not yet released, summed
 * over all threads (leak checks in tests). Exact when no fence is being initialised or released
 * concurrently and the threads that did so are ordered before the caller
 * (joined, or synchronised with it). Takes a mutex: not for hot paths.
 *
 * Return: the count.
 */
long dma_fence_live_count(void);

/**
 * dma_fence_cache_count() - freed fence blocks the calling thread keeps for
 * its next dma_fence_alloc() of a bare struct dma_fence. They are not live
 * fences. For tests.
 *
 * Return: the count (at most 32; always 0 under AddressSanitizer).
 */
unsigned dma_fence_cache_count(void);

#endif /* TTM_DMA_FENCE_H */
