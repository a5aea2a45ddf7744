/* SPDX-License-Identifier: MIT */
/*
 * The memory manager's fault points: one per failure path the kernel has.
 * They are defined in ttm_faults.c; drivers define their own the same way.
 */
#ifndef TTM_FAULTS_H
#define TTM_FAULTS_H

#include <fault_inject.h>

extern struct fault_attr ttm_fault_bo_alloc; /* "bo_alloc": buffer object allocation */
extern struct fault_attr
    ttm_fault_resource_alloc;		       /* "resource_alloc": ttm_resource / manager node */
extern struct fault_attr ttm_fault_pool_alloc; /* "pool_alloc": page pool page allocation */
extern struct fault_attr ttm_fault_tt_alloc;   /* "tt_alloc": ttm_tt page array allocation */
extern struct fault_attr ttm_fault_swapout_write; /* "swapout_write": writing a BO to shmem */
extern struct fault_attr ttm_fault_swapin_read;	  /* "swapin_read": reading a BO back from shmem */
extern struct fault_attr ttm_fault_move_copy;	  /* "move_copy": the memcpy move path */
extern struct fault_attr ttm_fault_fence_alloc;	  /* "fence_alloc": dma_fence allocation */
extern struct fault_attr ttm_fault_resv_reserve;  /* "resv_reserve": fence slots, fence snapshots */
extern struct fault_attr ttm_fault_handle_alloc;  /* "handle_alloc": uAPI handle table growth */
extern struct fault_attr ttm_fault_mmap_remap;	  /* "mmap_remap": installing a CPU mapping */
extern struct fault_attr ttm_fault_map_alloc;	  /* "map_alloc": a CPU mapping's own state */
extern struct fault_attr ttm_fault_uapi_alloc; /* "uapi_alloc": 2008 uAPI files, objects, copies */
/* "worker_alloc": the delayed-destroy worker's fence snapshot and wake-callback arrays */
extern struct fault_attr ttm_fault_worker_alloc;

#endif /* TTM_FAULTS_H */
