/* SPDX-License-Identifier: MIT */
/*
 * stress_fence.h - the software fence of the stress programs: a plain
 * struct dma_fence that signals only when the program calls
 * dma_fence_signal() (no enable_signaling, no wait, no release of its own).
 *
 * Header-only, as stress_util.h: every target that compiles a stress/lib
 * source on its own (the uAPI fuzzer compiles ttm_uapi_mock.c) gets it
 * without another source to list. The ops table is one per translation
 * unit; nothing compares fence ops across them.
 */
#ifndef STRESS_FENCE_H
#define STRESS_FENCE_H

#include <stdint.h>

#include <ttm/dma_fence.h>

static inline const char *stress_fence_name(struct dma_fence *fence)
{
	(void)fence;
	return "stress";
}

static const struct dma_fence_ops stress_fence_ops = {
    .get_driver_name = stress_fence_name,
    .get_timeline_name = stress_fence_name,
};

/**
 * stress_fence_create() - a new unsignalled software fence.
 * @context: its timeline (from dma_fence_context_alloc()).
 * @seqno: its place on @context.
 *
 * Return: the fence holding one reference, or NULL when dma_fence_alloc()
 * fails (the fence_alloc fault point among others).
 */
static inline struct dma_fence *stress_fence_create(uint64_t context, uint64_t seqno)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	if (f)
		dma_fence_init(f, &stress_fence_ops, context, seqno);
	return f;
}

#endif /* STRESS_FENCE_H */
