/* SPDX-License-Identifier: MIT */
/* i915_priv: calls between the driver's own files; not installed. */
#ifndef I915_PRIV_H
#define I915_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/dma_resv.h>

#include <i915/i915_drv_types.h>
#include <i915/i915_engine_types.h>

struct i915_gem_object;
struct ttm_buffer_object;
struct ttm_drm_driver;
struct ttm_place;
struct ttm_resource;
struct ttm_tt;

/* Engine bring-up: ring and status page in the GGTT; 0 or negative errno. */
int i915_engine_init(struct i915_engine *engine, struct i915_device *i915, enum i915_engine_id id);
/* Engine idle and without requests. */
void i915_engine_fini(struct i915_engine *engine);
/* Signal every request the status page says completed, oldest first. */
void i915_engine_retire(struct i915_engine *engine);
/*
 * The engine stopped: retire what completed, fail the oldest incomplete
 * request with -EIO and restart the engine right after it. Not from a
 * back-end callback.
 */
void i915_engine_recover(struct i915_engine *engine);
/*
 * Wait until every request held for its awaited fences has reached the back
 * end, then stop the submit worker (i915_request_submit_objects()).
 */
void i915_held_fini(struct i915_device *i915);

/* The uAPI hooks of the device (i915_drm.c), given to ttm_drm_device_init(). */
extern const struct ttm_drm_driver i915_drm_driver;

/* --- shared by i915_gem.c (TTM hooks, objects) and i915_gem_execbuffer.c --- */

/* Temporary GGTT ranges of a blit, released once its fence signals. */
struct i915_blit_unmap {
	struct dma_fence_cb cb;
	struct i915_device *i915;
	struct ttm_resource *range[2];
};

/* SYSTEM or TT: memory types whose BOs have a tt of host pages. */
bool i915_is_tt_type(uint32_t mem_type);
/* Point the TT range @res at the pages of @tt: 0, -EINVAL, GGTT errors. */
int i915_ggtt_bind_tt(struct i915_device *i915, struct ttm_resource *res, struct ttm_tt *tt);
/*
 * A GGTT range over a VRAM or stolen resource @res, placed per @place, in
 * *@out: 0 or the GGTT manager's / binding errors.
 */
int i915_map_local(struct i915_device *i915, struct ttm_resource *res,
		   const struct ttm_place *place, struct ttm_resource **out);
/* Drop @obj's GGTT range over its local memory (if any). */
void i915_gem_object_drop_vma(struct i915_gem_object *obj);
/*
 * Wait for @bo's fences of @usage of other timelines than @context.
 * Return: 0; -EBUSY (@no_wait, one is pending); -EINTR (@intr).
 */
int i915_bo_await_foreign(struct ttm_buffer_object *bo, enum dma_resv_usage usage, uint64_t context,
			  bool intr, bool no_wait);
/* Fence callback of a struct i915_blit_unmap: release its ranges, free it. */
void i915_blit_unmap_cb(struct dma_fence *fence, struct dma_fence_cb *cb);

#endif /* I915_PRIV_H */
