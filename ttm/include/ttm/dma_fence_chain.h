/* SPDX-License-Identifier: MIT */
/*
 * dma_fence_chain: a timeline built from links, each wrapping one fence at a
 * seqno (the timeline-syncobj model). A link signals only when its own fence
 * and the fences of every earlier link have signalled, so waiting for point N
 * of the timeline means waiting for everything up to N.
 */
#ifndef TTM_DMA_FENCE_CHAIN_H
#define TTM_DMA_FENCE_CHAIN_H

#include <ttm/dma_fence.h>

/**
 * struct dma_fence_chain - one link.
 * @base: the link's own fence: context of the chain, seqno of this point.
 * @prev: the earlier link (or any fence), one reference, may be NULL.
 *	Walks replace it by its own predecessor once its fence has signalled
 *	(garbage collection, see dma_fence_chain_walk()); read and replaced
 *	under @prev_lock, which stands in for the kernel's RCU.
 * @prev_seqno: @prev's seqno when it is a link of the same chain, else 0;
 *	kept when @prev is replaced.
 * @fence: the wrapped fence, one reference.
 * @cb: armed on the first unsignalled fence of the chain while signalling is
 *	enabled; holds a reference on @base and on that fence while armed.
 * @prev_lock: protects @prev; innermost, held for a few instructions, never
 *	across a call.
 */
struct dma_fence_chain {
	struct dma_fence base;
	struct dma_fence *prev;
	uint64_t prev_seqno;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	atomic_flag prev_lock;
};

/**
 * to_dma_fence_chain() - the chain link a fence is.
 * @fence: any fence, or NULL.
 *
 * Return: the link behind @fence; NULL when @fence is NULL or not a link.
 */
struct dma_fence_chain *to_dma_fence_chain(struct dma_fence *fence);

/* The fence a link wraps, or @fence itself when it is not a link. */
static inline struct dma_fence *dma_fence_chain_contained(struct dma_fence *fence)
{
	struct dma_fence_chain *chain = to_dma_fence_chain(fence);

	return chain ? chain->fence : fence;
}

/**
 * dma_fence_chain_walk() - step from one link to the next pending one.
 * @fence: the current link; the caller's reference is consumed.
 *
 * Unlinks (garbage-collects) the links after @fence whose wrapped fence has
 * signalled, replacing @fence's @prev by their predecessor, and stops at
 * the first earlier link whose wrapped fence is pending (or at a pending
 * non-link fence).
 *
 * Return: that fence with a new reference, or NULL at the end of the chain
 * (also when @fence is not a link). Callable concurrently with other walks
 * of the same chain.
 */
struct dma_fence *dma_fence_chain_walk(struct dma_fence *fence);

/**
 * dma_fence_chain_for_each - visit @head and then every pending earlier link.
 * @iter: the current fence; holds a reference inside the loop, which a
 *	caller breaking out of the loop must put.
 * @head: where to start (a reference is taken).
 */
#define dma_fence_chain_for_each(iter, head)                                                       \
	for (iter = dma_fence_get(head); iter; iter = dma_fence_chain_walk(iter))

/**
 * dma_fence_chain_alloc() - allocate a link for dma_fence_chain_init().
 *
 * Return: the uninitialised link; NULL when out of memory (fault point
 * fence_alloc).
 */
struct dma_fence_chain *dma_fence_chain_alloc(void);
/**
 * dma_fence_chain_free() - free a link that was never initialised (an
 * initialised one goes with its last dma_fence_put()).
 * @chain: the link, or NULL.
 */
void dma_fence_chain_free(struct dma_fence_chain *chain);

/**
 * dma_fence_chain_init() - make @chain the point @seqno after @prev.
 * @chain: a link from dma_fence_chain_alloc().
 * @prev: the previous point (a link or any fence), or NULL.
 * @fence: the fence this point waits for.
 * @seqno: the point's number in the timeline.
 *
 * Takes over the caller's references to @prev (may be NULL) and @fence.
 * When @prev is a link and @seqno is later than it, the link joins @prev's
 * context; otherwise it starts a new context, at @prev's seqno when that
 * is the larger, so that a link's seqno never goes below its predecessor's.
 */
void dma_fence_chain_init(struct dma_fence_chain *chain, struct dma_fence *prev,
			  struct dma_fence *fence, uint64_t seqno);

/**
 * dma_fence_chain_find_seqno() - find the link that signals point @seqno.
 * @pfence: in: the newest link (a reference the caller owns); out: the link
 *	to wait on for point @seqno, with the reference moved to it: walking
 *	down from @pfence (see dma_fence_chain_walk(), which skips and
 *	collects links already signalled), the first link visited (@pfence
 *	itself, then pending ones) whose predecessor is before @seqno or off
 *	the chain. That may be older than
 *	the link of @seqno when later points signalled out of order; NULL when
 *	nothing the point depends on is pending any more.
 * @seqno: 0 is a no-op.
 *
 * Return: 0, or -EINVAL when @pfence is not a link or @seqno is beyond it.
 */
int dma_fence_chain_find_seqno(struct dma_fence **pfence, uint64_t seqno);

#endif /* TTM_DMA_FENCE_CHAIN_H */
