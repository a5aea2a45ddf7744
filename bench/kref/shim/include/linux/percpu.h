/* SPDX-License-Identifier: MIT */
/* Shim for <linux/percpu.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_PERCPU_H
#define KSHIM_LINUX_PERCPU_H
#include <kshim.h>
#endif
