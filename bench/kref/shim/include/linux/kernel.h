/* SPDX-License-Identifier: MIT */
/* Shim for <linux/kernel.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_KERNEL_H
#define KSHIM_LINUX_KERNEL_H
#include <kshim.h>
#endif
