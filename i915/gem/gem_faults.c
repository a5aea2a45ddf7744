// SPDX-License-Identifier: MIT
/* Definitions of the GEM uAPI's fault points; see gem_priv.h. */
#include "gem_priv.h"

DEFINE_FAULT_POINT(gem_fault_obj_alloc, "gem_obj_alloc")
DEFINE_FAULT_POINT(gem_fault_ctx_alloc, "gem_ctx_alloc")
DEFINE_FAULT_POINT(gem_fault_mmo_alloc, "gem_mmo_alloc")
DEFINE_FAULT_POINT(gem_fault_file_alloc, "gem_file_alloc")
DEFINE_FAULT_POINT(gem_fault_eb_alloc, "gem_eb_alloc")
DEFINE_FAULT_POINT(gem_fault_buf_alloc, "gem_buf_alloc")
