/* SPDX-License-Identifier: MIT */
/* Shim for <linux/jiffies.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_JIFFIES_H
#define KSHIM_LINUX_JIFFIES_H
#include <kshim.h>
#endif
