/* SPDX-License-Identifier: MIT */
/* Shim for <linux/delay.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_DELAY_H
#define KSHIM_LINUX_DELAY_H
#include <kshim.h>
#endif
