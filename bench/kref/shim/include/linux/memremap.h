/* SPDX-License-Identifier: MIT */
/* Shim for <linux/memremap.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MEMREMAP_H
#define KSHIM_LINUX_MEMREMAP_H
#include <kshim.h>
#endif
