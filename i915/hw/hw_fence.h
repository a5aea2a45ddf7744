/* SPDX-License-Identifier: MIT */
/*
 * hw_fence - sync_file fds turned into this project's struct dma_fence.
 *
 * execbuffer2 with I915_EXEC_FENCE_OUT returns a sync_file: an fd that polls
 * readable once the kernel's fence has signalled, and whose
 * SYNC_IOC_FILE_INFO status is then 1 (success) or a negative errno (the
 * request was cancelled by a reset: -EIO). A struct hw_fence_waiter owns
 * one thread that poll()s every pending fd plus an eventfd used to wake it
 * when a fence is added or the waiter stops; each fd that turns readable
 * has its status read, is closed, and its dma_fence is signalled (with the
 * error set first when the status is negative). So every dma_fence wait,
 * callback and benchmark of the core works unchanged on real hardware.
 *
 * Lock order: @lock is taken by hw_fence_waiter_add() and the thread, never
 * around a dma_fence signal (callbacks run without it, so a callback may
 * add a new fence).
 */
#ifndef I915_HW_FENCE_H
#define I915_HW_FENCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/dma_fence.h>

struct hw_sys_ops;

/**
 * struct hw_fence_waiter - the thread signalling sync_file-backed fences.
 * @sys: kernel interface (status ioctl and close of the fds).
 * @sys_data: its cookie.
 * @context: the dma_fence timeline of this waiter's fences.
 * @thread: the poll thread.
 * @wake_fd: eventfd that interrupts the thread's poll().
 * @lock: protects the fields below.
 * @pending: fences whose fd is being watched (each holds a reference).
 *	Protected by @lock.
 * @num_pending: entries of @pending. Protected by @lock.
 * @max_pending: capacity of @pending. Protected by @lock.
 * @next_seqno: seqno of the next fence. Protected by @lock.
 * @stop: set by hw_fence_waiter_fini(). Protected by @lock.
 */
struct hw_fence_waiter {
	const struct hw_sys_ops *sys;
	void *sys_data;
	uint64_t context;
	pthread_t thread;
	int wake_fd;

	pthread_mutex_t lock;
	struct hw_fence **pending;
	unsigned int num_pending;
	unsigned int max_pending;
	uint64_t next_seqno;
	bool stop;
};

/**
 * struct hw_fence - a dma_fence backed by a sync_file fd.
 * @base: the fence; allocated with dma_fence_alloc(), freed by the default
 *	release.
 * @fd: the sync_file, owned by the waiter until the fence signals.
 */
struct hw_fence {
	struct dma_fence base;
	int fd;
};

/* Start the thread. 0, or -ENOMEM / -EMFILE / the pthread error. */
int hw_fence_waiter_init(struct hw_fence_waiter *w, const struct hw_sys_ops *sys, void *sys_data);
/*
 * Stop the thread; fences still pending are signalled with -ENODEV and
 * their fds closed. Must not race with hw_fence_waiter_add().
 */
void hw_fence_waiter_fini(struct hw_fence_waiter *w);

/**
 * hw_fence_waiter_add - watch sync_file @fd.
 * @w: the waiter.
 * @fd: the sync_file; ownership passes to the waiter in every case (it is
 *	closed on failure too).
 * @out: the new fence, one reference for the caller.
 *
 * Returns 0, -EINVAL for a negative @fd, -ENOMEM (the fence_alloc fault
 * point included), -ESHUTDOWN after fini began.
 */
int hw_fence_waiter_add(struct hw_fence_waiter *w, int fd, struct dma_fence **out);

/* True when @fence was made by a hw_fence_waiter. */
bool hw_fence_is_hw(const struct dma_fence *fence);

#endif /* I915_HW_FENCE_H */
