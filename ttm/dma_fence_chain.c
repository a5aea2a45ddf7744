// SPDX-License-Identifier: MIT
/* Fence chains; see ttm/dma_fence_chain.h. */
#include <ttm/dma_fence_chain.h>

#include <errno.h>
#include <stdlib.h>

static const struct dma_fence_ops chain_ops;

struct dma_fence_chain *to_dma_fence_chain(struct dma_fence *fence)
{
	return fence && fence->ops == &chain_ops ? container_of(fence, struct dma_fence_chain, base)
						 : NULL;
}

static const char *chain_name(struct dma_fence *f)
{
	(void)f;
	return "dma_fence_chain";
}

/* The first fence of the chain, newest first, that has not signalled yet. */
static struct dma_fence *first_pending(struct dma_fence_chain *chain)
{
	struct dma_fence *f = &chain->base;

	while (f) {
		struct dma_fence_chain *c = to_dma_fence_chain(f);

		if (!c)
			return dma_fence_is_signaled(f) ? NULL : f;
		if (!dma_fence_is_signaled(c->fence))
			return c->fence;
		f = c->prev;
	}
	return NULL;
}

static bool chain_signaled(struct dma_fence *f)
{
	return first_pending(to_dma_fence_chain(f)) == NULL;
}

static void chain_cb(struct dma_fence *signalled, struct dma_fence_cb *cb);

/* Arm @chain's callback on the next pending fence, or signal it. */
static void chain_arm(struct dma_fence_chain *chain)
{
	for (;;) {
		struct dma_fence *p = first_pending(chain);

		if (!p) {
			dma_fence_signal(&chain->base);
			dma_fence_put(&chain->base);
			return;
		}
		if (!dma_fence_add_callback(p, &chain->cb, chain_cb))
			return;
		/* It signalled meanwhile: look again. */
	}
}

static void chain_cb(struct dma_fence *signalled, struct dma_fence_cb *cb)
{
	(void)signalled;
	chain_arm(container_of(cb, struct dma_fence_chain, cb));
}

static bool chain_enable_signaling(struct dma_fence *f)
{
	struct dma_fence_chain *chain = to_dma_fence_chain(f);

	dma_fence_get(f);
	chain_arm(chain);
	return true;
}

static void chain_release(struct dma_fence *f)
{
	struct dma_fence_chain *chain = to_dma_fence_chain(f);
	struct dma_fence *prev = chain->prev;

	dma_fence_put(chain->fence);
	free(chain);
	/*
	 * Unroll long chains instead of recursing: while we hold the only
	 * reference to the previous link, detach its own predecessor first so
	 * that releasing it does not recurse.
	 */
	while (prev) {
		struct dma_fence_chain *pc = to_dma_fence_chain(prev);
		struct dma_fence *pp;

		if (!pc || atomic_load(&prev->refcount) != 1)
			break;
		pp = pc->prev;
		pc->prev = NULL;
		dma_fence_put(prev);
		prev = pp;
	}
	dma_fence_put(prev);
}

static const struct dma_fence_ops chain_ops = {
	.get_driver_name = chain_name,
	.get_timeline_name = chain_name,
	.enable_signaling = chain_enable_signaling,
	.signaled = chain_signaled,
	.release = chain_release,
};

struct dma_fence_chain *dma_fence_chain_alloc(void)
{
	return dma_fence_alloc(sizeof(struct dma_fence_chain));
}

void dma_fence_chain_free(struct dma_fence_chain *chain)
{
	free(chain);
}

void dma_fence_chain_init(struct dma_fence_chain *chain, struct dma_fence *prev,
			  struct dma_fence *fence, uint64_t seqno)
{
	struct dma_fence_chain *pc = to_dma_fence_chain(prev);
	uint64_t context;

	chain->prev = prev;
	chain->fence = fence;
	INIT_LIST_HEAD(&chain->cb.node);
	if (pc && __dma_fence_is_later(seqno, prev->seqno)) {
		context = prev->context;
		chain->prev_seqno = prev->seqno;
	} else {
		context = dma_fence_context_alloc(1);
		chain->prev_seqno = 0;
	}
	dma_fence_init(&chain->base, &chain_ops, context, seqno);
}

int dma_fence_chain_find_seqno(struct dma_fence **pfence, uint64_t seqno)
{
	struct dma_fence_chain *chain;
	struct dma_fence *f;

	if (!seqno)
		return 0;
	chain = to_dma_fence_chain(*pfence);
	if (!chain || __dma_fence_is_later(seqno, chain->base.seqno))
		return -EINVAL;
	f = *pfence;
	for (;;) {
		struct dma_fence_chain *c = to_dma_fence_chain(f);
		struct dma_fence_chain *pc = to_dma_fence_chain(c->prev);

		/* Stop at the link whose predecessor is before @seqno. */
		if (!pc || pc->base.context != c->base.context || c->prev_seqno < seqno)
			break;
		f = c->prev;
	}
	dma_fence_get(f);
	dma_fence_put(*pfence);
	if (dma_fence_is_signaled(f)) {
		dma_fence_put(f);
		f = NULL;
	}
	*pfence = f;
	return 0;
}
