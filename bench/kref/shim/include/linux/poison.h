/* SPDX-License-Identifier: MIT */
/* Shim for <linux/poison.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_POISON_H
#define KSHIM_LINUX_POISON_H
#include <kshim.h>
#endif
