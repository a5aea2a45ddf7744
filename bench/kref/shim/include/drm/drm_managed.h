/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_managed.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_MANAGED_H
#define KSHIM_DRM_DRM_MANAGED_H
#include <kshim.h>
#endif
