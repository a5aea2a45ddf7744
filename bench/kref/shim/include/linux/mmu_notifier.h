/* SPDX-License-Identifier: MIT */
/* Shim for <linux/mmu_notifier.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MMU_NOTIFIER_H
#define KSHIM_LINUX_MMU_NOTIFIER_H
#include <kshim.h>
#endif
