/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_util.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_UTIL_H
#define KSHIM_DRM_DRM_UTIL_H
#include <kshim.h>
#endif
