/* SPDX-License-Identifier: MIT */
/* Shim for <linux/preempt.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_PREEMPT_H
#define KSHIM_LINUX_PREEMPT_H
#include <kshim.h>
#endif
