/* SPDX-License-Identifier: MIT */
/* i915_priv: calls between the driver's own files; not installed. */
#ifndef I915_PRIV_H
#define I915_PRIV_H

#include <i915/i915_drv.h>

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

#endif /* I915_PRIV_H */
