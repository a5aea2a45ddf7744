// SPDX-License-Identifier: MIT
/*
 * testlib/fence_queue.c - queued fences of the mock uAPI drivers (see
 * testlib/fence_queue.h).
 */
#include <errno.h>

#include <testlib/fence_queue.h>

struct testlib_queued_fence {
	struct dma_fence base;
	struct list_head link;
	uint32_t fence_class;
};

int testlib_fence_queue_init(struct testlib_fence_queue *q, unsigned int nclasses,
			     const struct dma_fence_ops *ops)
{
	if (!ops || !nclasses || nclasses > TESTLIB_FENCE_QUEUE_MAX_CLASSES)
		return -EINVAL;
	pthread_mutex_init(&q->lock, NULL);
	INIT_LIST_HEAD(&q->pending);
	q->ops = ops;
	q->context = dma_fence_context_alloc(nclasses);
	q->nclasses = nclasses;
	for (unsigned int i = 0; i < TESTLIB_FENCE_QUEUE_MAX_CLASSES; i++)
		q->seqno[i] = 0;
	return 0;
}

struct dma_fence *testlib_fence_queue_emit(struct testlib_fence_queue *q, uint32_t fence_class,
					   uint32_t *sequence)
{
	struct testlib_queued_fence *f;

	if (fence_class >= q->nclasses)
		return NULL;
	f = dma_fence_alloc(sizeof(*f));
	if (!f)
		return NULL;
	pthread_mutex_lock(&q->lock);
	dma_fence_init(&f->base, q->ops, q->context + fence_class, ++q->seqno[fence_class]);
	f->fence_class = fence_class;
	/* The queue's reference, dropped when the fence is signalled. */
	dma_fence_get(&f->base);
	list_add_tail(&f->link, &q->pending);
	*sequence = (uint32_t)f->base.seqno;
	pthread_mutex_unlock(&q->lock);
	return &f->base;
}

void testlib_fence_queue_signal(struct testlib_fence_queue *q, uint32_t fence_class)
{
	struct testlib_queued_fence *f, *tmp;
	struct list_head done;

	INIT_LIST_HEAD(&done);
	pthread_mutex_lock(&q->lock);
	list_for_each_entry_safe (f, tmp, &q->pending, struct testlib_queued_fence, link) {
		if (fence_class == UINT32_MAX || f->fence_class == fence_class)
			list_move_tail(&f->link, &done);
	}
	pthread_mutex_unlock(&q->lock);
	/* Outside the lock: callbacks of the signalled fences may emit again. */
	list_for_each_entry_safe (f, tmp, &done, struct testlib_queued_fence, link) {
		list_del_init(&f->link);
		dma_fence_signal(&f->base);
		dma_fence_put(&f->base);
	}
}

unsigned long testlib_fence_queue_pending(struct testlib_fence_queue *q)
{
	struct testlib_queued_fence *f;
	unsigned long n = 0;

	pthread_mutex_lock(&q->lock);
	list_for_each_entry (f, &q->pending, struct testlib_queued_fence, link)
		n++;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void testlib_fence_queue_fini(struct testlib_fence_queue *q)
{
	testlib_fence_queue_signal(q, UINT32_MAX);
	pthread_mutex_destroy(&q->lock);
}
