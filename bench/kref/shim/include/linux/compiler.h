/* SPDX-License-Identifier: MIT */
/* Shim for <linux/compiler.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_COMPILER_H
#define KSHIM_LINUX_COMPILER_H
#include <kshim.h>
#endif
