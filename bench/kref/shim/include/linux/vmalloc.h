/* SPDX-License-Identifier: MIT */
/* Shim for <linux/vmalloc.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_VMALLOC_H
#define KSHIM_LINUX_VMALLOC_H
#include <kshim.h>
#endif
