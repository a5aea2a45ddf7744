// SPDX-License-Identifier: MIT
/* Definitions of the drm layer's fault points; see drmcore/drm_faults.h. */
#include <drmcore/drm_faults.h>

DEFINE_FAULT_POINT(drm_fault_syncobj_alloc, "syncobj_alloc")
DEFINE_FAULT_POINT(drm_fault_sync_file_alloc, "sync_file_alloc")
DEFINE_FAULT_POINT(drm_fault_dma_buf_alloc, "dma_buf_alloc")
DEFINE_FAULT_POINT(drm_fault_idr_alloc, "idr_alloc")
DEFINE_FAULT_POINT(drm_fault_fence_array_alloc, "fence_array_alloc")
DEFINE_FAULT_POINT(drm_fault_ioctl_alloc, "ioctl_alloc")
DEFINE_FAULT_POINT(drm_fault_fd_scan_alloc, "fd_scan_alloc")
