/* SPDX-License-Identifier: MIT */
/* Shim for <asm/barrier.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_ASM_BARRIER_H
#define KSHIM_ASM_BARRIER_H
#include <kshim.h>
#endif
