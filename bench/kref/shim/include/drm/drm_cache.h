/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_cache.h>: the declarations ttm_bo_util.c / ttm_tt.c name. */
#ifndef KSHIM_DRM_DRM_CACHE_H
#define KSHIM_DRM_DRM_CACHE_H
#include <kshim.h>
struct iosys_map;
void drm_clflush_pages(struct page *pages[], unsigned long num_pages);
bool drm_need_swiotlb(int dma_bits);
void drm_memcpy_from_wc(struct iosys_map *dst, const struct iosys_map *src, unsigned long len);
static inline bool drm_arch_can_wc_memory(void)
{
	return true;
}
#endif
