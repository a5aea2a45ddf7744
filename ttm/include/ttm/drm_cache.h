/* SPDX-License-Identifier: MIT */
/*
 * drm_cache: copies whose stores bypass the CPU caches.
 *
 * A device writing memory by DMA, or the CPU writing through a
 * write-combined mapping, does not allocate the destination in the CPU's
 * caches and does not read it for ownership first. The core's large CPU
 * moves, the simulated blitter and the benchmarks' copy reference all copy
 * this way, so that their figures compare like with like.
 *
 * Shared by the core and the simulated GPU (which does not link the core):
 * a library of its own, ttm_cache_dep.
 */
#ifndef TTM_DRM_CACHE_H
#define TTM_DRM_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/**
 * drm_memcpy_stream() - copy @len bytes from @src to @dst with streaming
 * (non-temporal) stores where the CPU has them, memcpy() elsewhere.
 * @dst: destination; any alignment (an unaligned head is copied with memcpy).
 * @src: source; any alignment. Must not overlap @dst.
 * @len: bytes; any length.
 *
 * The streamed stores are weakly ordered: they become visible to other
 * threads in an unspecified order, and only after drm_memcpy_stream_fence().
 * Call that once after a batch of copies and before publishing them (a
 * fence signal, a release store). Any context; takes no locks.
 */
void drm_memcpy_stream(void *dst, const void *src, size_t len);

/**
 * drm_memcpy_stream_fence() - order every streamed store issued so far by
 * this thread before its later stores (sfence on x86; nothing elsewhere).
 */
void drm_memcpy_stream_fence(void);

/**
 * drm_memcpy_stream_native() - true when drm_memcpy_stream() really streams
 * (the build targets SSE2); false when it falls back to memcpy().
 *
 * Return: whether streaming stores are used.
 */
bool drm_memcpy_stream_native(void);

#endif /* TTM_DRM_CACHE_H */
