/* SPDX-License-Identifier: MIT */
/* Shim for <linux/stringify.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_STRINGIFY_H
#define KSHIM_LINUX_STRINGIFY_H
#include <kshim.h>
#endif
