/* SPDX-License-Identifier: MIT */
/* Shim for <linux/mm.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MM_H
#define KSHIM_LINUX_MM_H
#include <kshim.h>
#endif
