/* SPDX-License-Identifier: MIT */
/*
 * Shim for <trace/events/dma_fence.h>: the tracepoints are off, so each is
 * an empty inline (in the kernel a disabled tracepoint is a patched-out
 * static branch: a NOP).
 */
#ifndef KSHIM_TRACE_EVENTS_DMA_FENCE_H
#define KSHIM_TRACE_EVENTS_DMA_FENCE_H
#include <kshim.h>
struct dma_fence;
#define KSHIM_TRACE(name)                                                                          \
	static inline void trace_##name(struct dma_fence *f)                                       \
	{                                                                                          \
		(void)f;                                                                           \
	}
KSHIM_TRACE(dma_fence_emit)
KSHIM_TRACE(dma_fence_init)
KSHIM_TRACE(dma_fence_destroy)
KSHIM_TRACE(dma_fence_enable_signal)
KSHIM_TRACE(dma_fence_signaled)
KSHIM_TRACE(dma_fence_wait_start)
KSHIM_TRACE(dma_fence_wait_end)
#endif
