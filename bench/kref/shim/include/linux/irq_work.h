/* SPDX-License-Identifier: MIT */
/* Shim for <linux/irq_work.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_IRQ_WORK_H
#define KSHIM_LINUX_IRQ_WORK_H
#include <kshim.h>
#endif
