/* SPDX-License-Identifier: MIT */
/* Shim for <linux/mm_types.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MM_TYPES_H
#define KSHIM_LINUX_MM_TYPES_H
#include <kshim.h>
#endif
