// SPDX-License-Identifier: MIT
/* Fence chains; see ttm/dma_fence_chain.h. */
#include <ttm/dma_fence_chain.h>

#include <errno.h>
#include <sched.h>
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

static void prev_lock(struct dma_fence_chain *chain)
{
	while (atomic_flag_test_and_set_explicit(&chain->prev_lock, memory_order_acquire))
		sched_yield();
}

static void prev_unlock(struct dma_fence_chain *chain)
{
	atomic_flag_clear_explicit(&chain->prev_lock, memory_order_release);
}

/*
 * A new reference to @chain's predecessor. @prev holds a reference of its
 * own that is only dropped after it was swapped out under the lock, so the
 * one taken here is taken from a live reference.
 */
static struct dma_fence *chain_get_prev(struct dma_fence_chain *chain)
{
	struct dma_fence *prev;

	prev_lock(chain);
	prev = dma_fence_get(chain->prev);
	prev_unlock(chain);
	return prev;
}

struct dma_fence *dma_fence_chain_walk(struct dma_fence *fence)
{
	struct dma_fence_chain *chain = to_dma_fence_chain(fence);
	struct dma_fence *prev;

	if (!chain) {
		dma_fence_put(fence);
		return NULL;
	}
	while ((prev = chain_get_prev(chain))) {
		struct dma_fence_chain *prev_chain = to_dma_fence_chain(prev);
		struct dma_fence *replacement;
		bool swapped;

		if (prev_chain) {
			if (!dma_fence_is_signaled(prev_chain->fence))
				break;
			replacement = chain_get_prev(prev_chain);
		} else {
			if (!dma_fence_is_signaled(prev))
				break;
			replacement = NULL;
		}
		/* Unless another walk got there first, skip the signalled link. */
		prev_lock(chain);
		swapped = chain->prev == prev;
		if (swapped)
			chain->prev = replacement;
		prev_unlock(chain);
		/* The chain's reference on @prev, or the unused one on @replacement. */
		dma_fence_put(swapped ? prev : replacement);
		dma_fence_put(prev);
	}
	dma_fence_put(fence);
	return prev;
}

static void chain_cb(struct dma_fence *f, struct dma_fence_cb *cb);

/*
 * Arm @head's callback on the first pending wrapped fence of the chain (the
 * kernel's enable_signaling). True when armed, with a reference on @head and
 * one on that fence, both dropped by chain_cb(); false when every fence of
 * the chain has signalled.
 */
static bool chain_arm(struct dma_fence_chain *head)
{
	struct dma_fence *iter;

	dma_fence_get(&head->base);
	dma_fence_chain_for_each(iter, &head->base)
	{
		struct dma_fence *f = dma_fence_get(dma_fence_chain_contained(iter));

		if (!dma_fence_add_callback(f, &head->cb, chain_cb)) {
			dma_fence_put(iter);
			return true;
		}
		dma_fence_put(f);
	}
	dma_fence_put(&head->base);
	return false;
}

/*
 * Runs on the signalling thread of @f, under its lock. The kernel defers
 * the re-arm to an irq_work; here it runs in place (the signaller holds a
 * reference on @f, so dropping ours cannot free it under the signal).
 */
static void chain_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct dma_fence_chain *chain = container_of(cb, struct dma_fence_chain, cb);

	if (!chain_arm(chain))
		dma_fence_signal(&chain->base);
	dma_fence_put(&chain->base);
	dma_fence_put(f);
}

static bool chain_enable_signaling(struct dma_fence *f)
{
	return chain_arm(to_dma_fence_chain(f));
}

static bool chain_signaled(struct dma_fence *f)
{
	struct dma_fence *iter;

	dma_fence_chain_for_each(iter, f)
	{
		if (!dma_fence_is_signaled(dma_fence_chain_contained(iter))) {
			dma_fence_put(iter);
			return false;
		}
	}
	return true;
}

static void chain_release(struct dma_fence *f)
{
	struct dma_fence_chain *chain = to_dma_fence_chain(f);
	struct dma_fence *prev;

	/*
	 * Unroll long chains instead of recursing: while we hold the only
	 * reference to the previous link, take over its predecessor so that
	 * releasing it does not recurse. Nobody else can reach @chain (its last
	 * reference is gone) nor a predecessor only it references: no lock.
	 */
	while ((prev = chain->prev)) {
		struct dma_fence_chain *pc = to_dma_fence_chain(prev);

		if (!pc || atomic_load(&prev->refcount) != 1)
			break;
		chain->prev = pc->prev;
		pc->prev = NULL;
		dma_fence_put(prev);
	}
	dma_fence_put(prev);
	dma_fence_put(chain->fence);
	free(chain);
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
	atomic_flag_clear_explicit(&chain->prev_lock, memory_order_relaxed);
	INIT_LIST_HEAD(&chain->cb.node);
	if (pc && __dma_fence_is_later(seqno, prev->seqno)) {
		context = prev->context;
		chain->prev_seqno = prev->seqno;
	} else {
		context = dma_fence_context_alloc(1);
		chain->prev_seqno = 0;
		if (pc && __dma_fence_is_later(prev->seqno, seqno))
			seqno = prev->seqno;
	}
	dma_fence_init(&chain->base, &chain_ops, context, seqno);
}

int dma_fence_chain_find_seqno(struct dma_fence **pfence, uint64_t seqno)
{
	struct dma_fence_chain *chain;

	if (!seqno)
		return 0;
	chain = to_dma_fence_chain(*pfence);
	if (!chain || __dma_fence_is_later(seqno, chain->base.seqno))
		return -EINVAL;
	dma_fence_chain_for_each(*pfence, &chain->base)
	{
		if ((*pfence)->context != chain->base.context ||
		    to_dma_fence_chain(*pfence)->prev_seqno < seqno)
			break;
	}
	dma_fence_put(&chain->base);
	return 0;
}
