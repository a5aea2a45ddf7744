// SPDX-License-Identifier: MIT
/* Definitions of the i915 driver's fault points; see <i915/i915_faults.h>. */
#include <i915/i915_faults.h>

DEFINE_FAULT_POINT(i915_fault_exec_alloc, "exec_alloc")
DEFINE_FAULT_POINT(i915_fault_obj_alloc, "obj_alloc")
DEFINE_FAULT_POINT(i915_fault_tt_create, "tt_create")
DEFINE_FAULT_POINT(i915_fault_ctx_alloc, "ctx_alloc")
DEFINE_FAULT_POINT(i915_fault_request_dw_alloc, "request_dw_alloc")
DEFINE_FAULT_POINT(i915_fault_device_alloc, "device_alloc")
DEFINE_FAULT_POINT(i915_fault_blt_alloc, "blt_alloc")
DEFINE_FAULT_POINT(i915_fault_move_alloc, "move_alloc")
DEFINE_FAULT_POINT(i915_fault_mem_alloc, "mem_alloc")
