/* SPDX-License-Identifier: MIT */
/*
 * The i915 driver's own fault points (the core's are in <ttm/ttm_faults.h>),
 * defined in i915_faults.c. The fault sweep fails every hit of each.
 */
#ifndef I915_FAULTS_H
#define I915_FAULTS_H

#include <fault_inject.h>

/* "exec_alloc": an execbuffer's per-object scratch arrays; the call says -ENOMEM. */
extern struct fault_attr i915_fault_exec_alloc;
/* "obj_alloc": i915_gem_object_create()'s object; the call says -ENOMEM, no object made. */
extern struct fault_attr i915_fault_obj_alloc;
/*
 * "tt_create": the driver's ttm_tt of a BO (ttm_tt_create() failing); the core's call
 * that needed it (validate, populate, move) says -ENOMEM.
 */
extern struct fault_attr i915_fault_tt_create;
/* "ctx_alloc": i915_context_create()'s context; the call says -ENOMEM, no id used. */
extern struct fault_attr i915_fault_ctx_alloc;
/*
 * "request_dw_alloc": the dwords of a request too long for the submit's stack buffer;
 * i915_request_submit() says -ENOMEM with nothing queued and no seqno used.
 */
extern struct fault_attr i915_fault_request_dw_alloc;
/*
 * "device_alloc": the device, its back end and its engines' rings at probe;
 * i915_device_create_sim() says -ENOMEM with nothing left behind.
 */
extern struct fault_attr i915_fault_device_alloc;
/*
 * "blt_alloc": the command buffer of a blitter copy or clear; i915_blt_copy() and
 * i915_blt_clear() say -ENOMEM with nothing queued.
 */
extern struct fault_attr i915_fault_blt_alloc;
/*
 * "move_alloc": the record of a blitter move's temporary GGTT mappings; the move (and
 * the validate or eviction that needed it) says -ENOMEM, the BO stays where it was.
 */
extern struct fault_attr i915_fault_move_alloc;
/*
 * "mem_alloc": the request level's own allocations: raw request memory of the sim
 * back end (i915_mem_create()), its record or its pages, and a request held for
 * the fences it awaits; the call says -ENOMEM, nothing is left behind.
 */
extern struct fault_attr i915_fault_mem_alloc;

#endif /* I915_FAULTS_H */
