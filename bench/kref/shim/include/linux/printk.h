/* SPDX-License-Identifier: MIT */
/* Shim for <linux/printk.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_PRINTK_H
#define KSHIM_LINUX_PRINTK_H
#include <kshim.h>
#endif
