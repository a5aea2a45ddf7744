/* SPDX-License-Identifier: MIT */
/*
 * dma_fence_array: one fence standing for several (it signals when all of
 * them have), and the merge that sync_file merges and syncobj transfers
 * use: the kernel's dma_fence_unwrap_merge().
 */
#ifndef DRMCORE_DMA_FENCE_ARRAY_H
#define DRMCORE_DMA_FENCE_ARRAY_H

#include <stdbool.h>

#include <ttm/dma_fence.h>

/**
 * struct dma_fence_array - a fence over @num_fences fences.
 * @base: the array's own fence (a new context, seqno 1).
 * @num_fences: entries of @fences.
 * @pending: fences not yet signalled (+1 while arming).
 * @fences: one reference each; freed with the array.
 * @cbs: private: the callbacks armed on @fences.
 *
 * Its error is the first error of a component fence.
 */
struct dma_fence_array {
	struct dma_fence base;
	unsigned num_fences;
	atomic_int pending;
	struct dma_fence **fences;
	void *cbs;
};

/** to_dma_fence_array() - the array behind @fence, or NULL. */
struct dma_fence_array *to_dma_fence_array(struct dma_fence *fence);

/**
 * dma_fence_array_create() - an array over @fences[0 .. @num - 1]; takes
 * over the array @fences (malloc'ed) and its references on success.
 * Return: the array's fence; NULL on allocation failure (fault point
 * "fence_array_alloc"; the caller keeps @fences and its references).
 */
struct dma_fence *dma_fence_array_create(unsigned num, struct dma_fence **fences);

/**
 * dma_fence_unwrap_merge() - one fence for all of @fences: chains and arrays
 * are flattened to their component fences, signalled ones are dropped, and
 * of several fences on one context only the latest is kept. Zero left: a
 * signalled stub; one: that fence; else a new array.
 * Return: a new reference, or NULL on allocation failure.
 */
struct dma_fence *dma_fence_unwrap_merge(struct dma_fence **fences, unsigned num);

/**
 * dma_fence_unwrap() - the component fences of @fence (chains and arrays
 * flattened, signalled ones kept), a reference each, in *@out (malloc'ed;
 * release with dma_fence_unwrap_put()). Return: the count (>= 1); -ENOMEM.
 */
int dma_fence_unwrap(struct dma_fence *fence, struct dma_fence ***out);
void dma_fence_unwrap_put(struct dma_fence **fences, int num);

#endif /* DRMCORE_DMA_FENCE_ARRAY_H */
