/* SPDX-License-Identifier: MIT */
/* Shim for <asm/set_memory.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_ASM_SET_MEMORY_H
#define KSHIM_ASM_SET_MEMORY_H
#include <kshim.h>
#endif
