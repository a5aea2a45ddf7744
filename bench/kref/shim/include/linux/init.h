/* SPDX-License-Identifier: MIT */
/* Shim for <linux/init.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_INIT_H
#define KSHIM_LINUX_INIT_H
#include <kshim.h>
#endif
