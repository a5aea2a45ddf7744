/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sizes.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SIZES_H
#define KSHIM_LINUX_SIZES_H
#include <kshim.h>
#endif
