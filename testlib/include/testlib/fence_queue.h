/* SPDX-License-Identifier: MIT */
/*
 * testlib/fence_queue.h - the fences of a mock uAPI driver: fence_emit
 * queues a new fence on its class's timeline, and the fences signal only
 * when the driver says so (its fence_flush, where a 2008 driver asked the
 * GPU for an interrupt, or a test's explicit signal). One queue serves the
 * uAPI tests' mock driver and benchmark-fence's uAPI path.
 *
 * Locking: the queue has a mutex of its own; emit, signal and pending may
 * run on several threads at once. Fences are signalled outside it.
 */
#ifndef TESTLIB_FENCE_QUEUE_H
#define TESTLIB_FENCE_QUEUE_H

#include <pthread.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/list.h>

/* The most fence classes (timelines) one queue serves. */
#define TESTLIB_FENCE_QUEUE_MAX_CLASSES 4

/**
 * struct testlib_fence_queue - pending fences of up to
 * TESTLIB_FENCE_QUEUE_MAX_CLASSES timelines.
 * @lock: protects @pending and @seqno.
 * @pending: emitted, unsignalled fences in emit order; the queue holds a
 *	reference on each.
 * @ops: the fences' ops.
 * @context: the first of @nclasses fence contexts, one per class.
 * @nclasses: fence classes 0 .. @nclasses - 1.
 * @seqno: the last seqno of each class.
 */
struct testlib_fence_queue {
	pthread_mutex_t lock;
	struct list_head pending;
	const struct dma_fence_ops *ops;
	uint64_t context;
	unsigned int nclasses;
	uint64_t seqno[TESTLIB_FENCE_QUEUE_MAX_CLASSES];
};

/**
 * testlib_fence_queue_init() - an empty queue with fresh timelines.
 * @q: the queue (its memory is the caller's).
 * @nclasses: how many fence classes, 1 .. TESTLIB_FENCE_QUEUE_MAX_CLASSES.
 * @ops: the fences' ops (the driver's names for them).
 *
 * Return: 0; -EINVAL for a bad @nclasses or NULL @ops.
 */
int testlib_fence_queue_init(struct testlib_fence_queue *q, unsigned int nclasses,
			     const struct dma_fence_ops *ops);

/**
 * testlib_fence_queue_emit() - a new fence at the end of a class's timeline,
 * queued until signalled (the ttm_drm_driver.fence_emit contract).
 * @q: the queue.
 * @fence_class: below the queue's class count (the uAPI dispatch checks it
 *	against the driver's num_fence_classes first).
 * @sequence: set to the fence's seqno, truncated to 32 bits.
 *
 * Return: the fence with one reference for the caller; NULL when the
 * allocation fails.
 */
struct dma_fence *testlib_fence_queue_emit(struct testlib_fence_queue *q, uint32_t fence_class,
					   uint32_t *sequence);

/**
 * testlib_fence_queue_signal() - signal the queued fences of one class, or all.
 * @q: the queue.
 * @fence_class: the class, or UINT32_MAX for every class.
 */
void testlib_fence_queue_signal(struct testlib_fence_queue *q, uint32_t fence_class);

/**
 * testlib_fence_queue_pending() - count the queued, unsignalled fences.
 * @q: the queue.
 *
 * Return: the number of fences emitted and not signalled through the queue.
 */
unsigned long testlib_fence_queue_pending(struct testlib_fence_queue *q);

/**
 * testlib_fence_queue_fini() - signal everything still queued and release
 * the queue.
 * @q: the queue; nobody emits any more.
 */
void testlib_fence_queue_fini(struct testlib_fence_queue *q);

#endif /* TESTLIB_FENCE_QUEUE_H */
