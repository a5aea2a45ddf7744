/* SPDX-License-Identifier: MIT */
/*
 * i915_uapi: the i915 device as a client sees it through the 2008 TTM uAPI
 * (<ttm_drm.h>, ttm_drm_device.h): i915_gem_init() registers it as a
 * ttm_drm_device with one fence class (DRM_I915_FENCE_CLASS_ACCEL, the
 * render ring) whose fences are render requests, and two driver commands:
 * DRM_I915_EXECBUFFER (the 2007 superioctl) and DRM_I915_GEM_EXECBUFFER2,
 * declared in the compatibility header <i915_drm.h> (i915_compat_dep).
 * Buffers are created with BO_CREATE in DRM_BO_FLAG_MEM_LOCAL (the GGTT
 * is the driver's own TT manager, so MM_INIT cannot add TT); execbuffer
 * binds them into the GGTT.
 */
#ifndef I915_UAPI_H
#define I915_UAPI_H

#include <i915/i915_drv.h>

/**
 * i915_drm_open() - open a client of the 2008 uAPI.
 * @i915: the device, after i915_gem_init().
 * Return: the descriptor for ttm_drm_ioctl()/drmCommand*(); -EINVAL
 * (GEM not initialised); the errors of ttm_drm_open().
 */
int i915_drm_open(struct i915_device *i915);

/**
 * i915_drm_name() - the name drmOpen() finds a device by.
 * @i915: the device.
 * Return: its name (static for the device's life).
 */
const char *i915_drm_name(struct i915_device *i915);

#endif /* I915_UAPI_H */
