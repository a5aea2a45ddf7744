/* SPDX-License-Identifier: MIT */
/*
 * The hw back end's fault point, defined in hw_faults.c. Its allocations are
 * the ones the kernel's would be (objects, a query's buffer, an execbuffer's
 * object list beyond the stack array, a fence's watch-list slot); each failing
 * call says -ENOMEM and leaves nothing behind.
 */
#ifndef HW_FAULTS_H
#define HW_FAULTS_H

#include <fault_inject.h>

/* "hw_alloc": every heap allocation of libi915_hw that has a failure path. */
extern struct fault_attr hw_fault_alloc;

#endif /* HW_FAULTS_H */
