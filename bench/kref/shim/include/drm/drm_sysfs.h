/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_sysfs.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_SYSFS_H
#define KSHIM_DRM_DRM_SYSFS_H
#include <kshim.h>
#endif
