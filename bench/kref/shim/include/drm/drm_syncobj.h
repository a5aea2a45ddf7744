/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_syncobj.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_SYNCOBJ_H
#define KSHIM_DRM_DRM_SYNCOBJ_H
#include <kshim.h>
#endif
