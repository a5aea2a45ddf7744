/* SPDX-License-Identifier: MIT */
/* Shim for <linux/smp.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SMP_H
#define KSHIM_LINUX_SMP_H
#include <kshim.h>
#endif
