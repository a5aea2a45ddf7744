/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_drv.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_DRV_H
#define KSHIM_DRM_DRM_DRV_H
#include <kshim.h>
#endif
