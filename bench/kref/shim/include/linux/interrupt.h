/* SPDX-License-Identifier: MIT */
/* Shim for <linux/interrupt.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_INTERRUPT_H
#define KSHIM_LINUX_INTERRUPT_H
#include <kshim.h>
#endif
