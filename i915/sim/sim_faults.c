/* SPDX-License-Identifier: MIT */
/*
 * The simulator's fault points. Kept in their own file so that the listing
 * tool and tests see them registered as soon as libsim is linked.
 */
#include "sim_gpu.h"

DEFINE_FAULT_POINT(sim_fault_gpu_hang, "gpu_hang")
DEFINE_FAULT_POINT(sim_fault_vm_table, "sim_vm_table")
DEFINE_FAULT_POINT(sim_fault_gpu_alloc, "sim_gpu_alloc")
