/* SPDX-License-Identifier: MIT */
/* Shim for <linux/types.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_TYPES_H
#define KSHIM_LINUX_TYPES_H
#include <kshim.h>
#endif
