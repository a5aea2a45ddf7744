/* SPDX-License-Identifier: MIT */
/* Shim for <linux/stddef.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_STDDEF_H
#define KSHIM_LINUX_STDDEF_H
#include <kshim.h>
#endif
