/* SPDX-License-Identifier: MIT */
/* Shim for <linux/workqueue.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_WORKQUEUE_H
#define KSHIM_LINUX_WORKQUEUE_H
#include <kshim.h>
#endif
