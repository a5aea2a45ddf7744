/* SPDX-License-Identifier: MIT */
/* Shim for <linux/const.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_CONST_H
#define KSHIM_LINUX_CONST_H
#include <kshim.h>
#endif
