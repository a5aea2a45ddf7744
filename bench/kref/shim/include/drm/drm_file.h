/* SPDX-License-Identifier: MIT */
/* Shim for <drm/drm_file.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_DRM_DRM_FILE_H
#define KSHIM_DRM_DRM_FILE_H
#include <kshim.h>
#endif
