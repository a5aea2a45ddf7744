/* SPDX-License-Identifier: MIT */
/* Shim for <linux/string.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_STRING_H
#define KSHIM_LINUX_STRING_H
#include <kshim.h>
#endif
