// SPDX-License-Identifier: MIT
/*
 * ttm_uapi_mock.c - the uAPI programs' driver (see ttm_uapi_mock.h).
 */
#include <stdatomic.h>

#include <ttm/dma_fence.h>

#include "stress_fence.h"
#include "ttm_uapi_mock.h"

static _Atomic uint64_t ttm_uapi_mock_context;
/* One counter for every class: still increasing along each timeline. */
static _Atomic uint64_t ttm_uapi_mock_seqno;

void ttm_uapi_mock_timelines_init(void)
{
	atomic_store(&ttm_uapi_mock_context, dma_fence_context_alloc(TTM_UAPI_MOCK_FENCE_CLASSES));
}

struct dma_fence *ttm_uapi_mock_fence_emit(struct ttm_drm_device *ddev, uint32_t fence_class,
					   uint32_t type, uint32_t *sequence)
{
	struct dma_fence *f = stress_fence_create(atomic_load(&ttm_uapi_mock_context) + fence_class,
						  atomic_fetch_add(&ttm_uapi_mock_seqno, 1) + 1);

	(void)ddev;
	(void)type;
	if (!f)
		return NULL;
	*sequence = (uint32_t)f->seqno;
	dma_fence_signal(f);
	return f;
}

static const struct ttm_place ttm_uapi_mock_place_sys = {.mem_type = TTM_PL_SYSTEM};

static void ttm_uapi_mock_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	(void)bo;
	placement->num_placement = 1;
	placement->placement = &ttm_uapi_mock_place_sys;
}

const struct ttm_device_funcs ttm_uapi_mock_funcs = {
    .evict_flags = ttm_uapi_mock_evict_flags,
};

const struct ttm_drm_driver ttm_uapi_mock_driver = {
    .num_fence_classes = TTM_UAPI_MOCK_FENCE_CLASSES,
    .fence_types = 0x2,
    .fence_emit = ttm_uapi_mock_fence_emit,
};
