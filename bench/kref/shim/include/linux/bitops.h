/* SPDX-License-Identifier: MIT */
/* Shim for <linux/bitops.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_BITOPS_H
#define KSHIM_LINUX_BITOPS_H
#include <kshim.h>
#endif
