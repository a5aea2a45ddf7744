/* SPDX-License-Identifier: MIT */
/* Shim for <linux/kthread.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_KTHREAD_H
#define KSHIM_LINUX_KTHREAD_H
#include <kshim.h>
#endif
