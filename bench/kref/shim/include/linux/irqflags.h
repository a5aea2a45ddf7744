/* SPDX-License-Identifier: MIT */
/* Shim for <linux/irqflags.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_IRQFLAGS_H
#define KSHIM_LINUX_IRQFLAGS_H
#include <kshim.h>
#endif
