/* SPDX-License-Identifier: MIT */
/*
 * ttm_uapi_mock.h - the smallest driver a ttm_drm_device can run on, shared
 * by the programs that drive the uAPI (ttm_hostile, ttm_share, the uAPI part
 * of ttm_fault_sweep, fuzz-uapi).
 *
 * Its fences signal as they are emitted, so no FENCE_WAIT, BO_WAIT_IDLE or
 * move ever blocks: these programs test dispatch, handles and object
 * lifetime, not waiting. Eviction always goes to SYSTEM, which cannot fail
 * for lack of space, so whatever a client asks the device stays consistent.
 *
 * Locking: none of its own; the fence sequence counter is an atomic, so
 * several client threads may emit at once.
 */
#ifndef TTM_UAPI_MOCK_H
#define TTM_UAPI_MOCK_H

#include <stdint.h>

#include <ttm/ttm_device.h>
#include <ttm/ttm_drm_device.h>

/*
 * Timelines ttm_uapi_mock_timelines_init() reserves: one per fence class,
 * enough for every driver table built on ttm_uapi_mock_fence_emit().
 */
#define TTM_UAPI_MOCK_FENCE_CLASSES 2

/**
 * ttm_uapi_mock_funcs - device callbacks: evict_flags sends every victim to
 * SYSTEM; everything else is the core's default.
 */
extern const struct ttm_device_funcs ttm_uapi_mock_funcs;

/**
 * ttm_uapi_mock_driver - TTM_UAPI_MOCK_FENCE_CLASSES fence classes, one
 * driver fence type (0x2) besides EXE, fences from
 * ttm_uapi_mock_fence_emit(). A program wanting fewer classes builds its
 * own table around ttm_uapi_mock_fence_emit().
 */
extern const struct ttm_drm_driver ttm_uapi_mock_driver;

/**
 * ttm_uapi_mock_timelines_init() - give the mock fresh fence contexts.
 *
 * Call before ttm_drm_device_init() in every run (or fuzz input), so fences
 * of one run never share a timeline with a previous run's.
 */
void ttm_uapi_mock_timelines_init(void);

/**
 * ttm_uapi_mock_fence_emit() - the ttm_drm_driver.fence_emit slot.
 * @ddev: unused.
 * @fence_class: below TTM_UAPI_MOCK_FENCE_CLASSES (the dispatch checks it
 *               against the driver's num_fence_classes first).
 * @type: unused.
 * @sequence: set to the new fence's seqno (truncated to 32 bits).
 *
 * Return: a new, already signalled fence holding one reference, or NULL
 * when the allocation fails.
 */
struct dma_fence *ttm_uapi_mock_fence_emit(struct ttm_drm_device *ddev, uint32_t fence_class,
					   uint32_t type, uint32_t *sequence);

#endif /* TTM_UAPI_MOCK_H */
