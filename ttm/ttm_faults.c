// SPDX-License-Identifier: MIT
/* Definitions of the core's fault points; see ttm/ttm_faults.h. */
#include <ttm/ttm_faults.h>

DEFINE_FAULT_POINT(ttm_fault_bo_alloc, "bo_alloc")
DEFINE_FAULT_POINT(ttm_fault_resource_alloc, "resource_alloc")
DEFINE_FAULT_POINT(ttm_fault_pool_alloc, "pool_alloc")
DEFINE_FAULT_POINT(ttm_fault_tt_alloc, "tt_alloc")
DEFINE_FAULT_POINT(ttm_fault_swapout_write, "swapout_write")
DEFINE_FAULT_POINT(ttm_fault_swapin_read, "swapin_read")
DEFINE_FAULT_POINT(ttm_fault_move_copy, "move_copy")
DEFINE_FAULT_POINT(ttm_fault_fence_alloc, "fence_alloc")
DEFINE_FAULT_POINT(ttm_fault_resv_reserve, "resv_reserve")
DEFINE_FAULT_POINT(ttm_fault_handle_alloc, "handle_alloc")
DEFINE_FAULT_POINT(ttm_fault_mmap_remap, "mmap_remap")
DEFINE_FAULT_POINT(ttm_fault_map_alloc, "map_alloc")
DEFINE_FAULT_POINT(ttm_fault_uapi_alloc, "uapi_alloc")
DEFINE_FAULT_POINT(ttm_fault_worker_alloc, "worker_alloc")
