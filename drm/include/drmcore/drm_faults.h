/* SPDX-License-Identifier: MIT */
/*
 * The drm layer's fault points, one per allocation the kernel's drm core
 * and dma-buf code can fail with -ENOMEM. Defined in drm/drm_faults.c.
 */
#ifndef DRMCORE_DRM_FAULTS_H
#define DRMCORE_DRM_FAULTS_H

#include <fault_inject.h>

extern struct fault_attr drm_fault_syncobj_alloc;   /* "syncobj_alloc": struct drm_syncobj */
extern struct fault_attr drm_fault_sync_file_alloc; /* "sync_file_alloc": a sync_file and its fd */
extern struct fault_attr drm_fault_dma_buf_alloc;   /* "dma_buf_alloc": a dma-buf and its fd */
extern struct fault_attr drm_fault_idr_alloc;	    /* "idr_alloc": handle table growth */
extern struct fault_attr drm_fault_fence_array_alloc; /* "fence_array_alloc": merged fences */
extern struct fault_attr drm_fault_ioctl_alloc; /* "ioctl_alloc": ioctl arguments > 128 bytes */
/* "fd_scan_alloc": the descriptor and mapping scan that finds dead fd objects; objects are kept */
extern struct fault_attr drm_fault_fd_scan_alloc;

#endif /* DRMCORE_DRM_FAULTS_H */
