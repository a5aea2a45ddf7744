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
 * @prev_seqno: @prev's seqno when it is a link of the same chain, else 0.
 * @fence: the wrapped fence, one reference.
 * @cb: armed on the first unsignalled fence of the chain while signalling is
 *	enabled; holds a reference on @base while armed.
 */
struct dma_fence_chain {
	struct dma_fence base;
	struct dma_fence *prev;
	uint64_t prev_seqno;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
};

/* The link behind @fence, or NULL when @fence is not a chain link. */
struct dma_fence_chain *to_dma_fence_chain(struct dma_fence *fence);

/* Allocate a link (fault point fence_alloc). NULL on failure. */
struct dma_fence_chain *dma_fence_chain_alloc(void);
/* Free a link that was never initialised. */
void dma_fence_chain_free(struct dma_fence_chain *chain);

/**
 * dma_fence_chain_init - make @chain the point @seqno after @prev.
 * Takes over the caller's references to @prev (may be NULL) and @fence.
 * When @prev is a link and @seqno is later than it, the link joins @prev's
 * context; otherwise it starts a new context.
 */
void dma_fence_chain_init(struct dma_fence_chain *chain, struct dma_fence *prev,
			  struct dma_fence *fence, uint64_t seqno);

/**
 * dma_fence_chain_find_seqno - find the link that signals point @seqno.
 * @pfence: in: the newest link (a reference the caller owns); out: the
 *	oldest link whose seqno is >= @seqno, with the reference moved to it,
 *	or NULL when that point has already signalled.
 * @seqno: 0 is a no-op.
 * Returns 0, or -EINVAL when @pfence is not a link or @seqno is beyond it.
 */
int dma_fence_chain_find_seqno(struct dma_fence **pfence, uint64_t seqno);

#endif /* TTM_DMA_FENCE_CHAIN_H */
