/* SPDX-License-Identifier: MIT */
/*
 * drm.h (compatibility): the TTM part of the 2008 libdrm/DRM drm.h, for
 * 2008 clients built against this project (never installed over the
 * system's libdrm headers; meson: ttm_compat_dep). The structs, flags and
 * ioctl numbers are the frozen ones of <ttm_drm.h>; this header adds the
 * 2008 typedef names and the drm_handle_t type clients expect.
 */
#ifndef TTM_COMPAT_DRM_H
#define TTM_COMPAT_DRM_H

#include <ttm_drm.h>

typedef unsigned int drm_handle_t;

/* 2007 BO types, kept for source compatibility (BO_CREATE infers the type
 * from buffer_start). */
enum drm_bo_type {
	drm_bo_type_dc,
	drm_bo_type_user,
	drm_bo_type_kernel,
};

typedef struct drm_fence_arg drm_fence_arg_t;
typedef struct drm_mm_type_arg drm_mm_type_arg_t;
typedef struct drm_mm_init_arg drm_mm_init_arg_t;
typedef enum drm_bo_type drm_bo_type_t;

#endif /* TTM_COMPAT_DRM_H */
