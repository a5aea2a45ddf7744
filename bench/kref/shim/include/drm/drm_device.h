/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_device.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_DEVICE_H
#define KSHIM_DRM_DRM_DEVICE_H
#include <kshim.h>
#endif
