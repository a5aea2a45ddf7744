// SPDX-License-Identifier: MIT
/* Definition of the hw back end's fault point; see hw_faults.h. */
#include "hw_faults.h"

DEFINE_FAULT_POINT(hw_fault_alloc, "hw_alloc")
