/* SPDX-License-Identifier: MIT */
/* Shim for <linux/module.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MODULE_H
#define KSHIM_LINUX_MODULE_H
#include <kshim.h>
#endif
