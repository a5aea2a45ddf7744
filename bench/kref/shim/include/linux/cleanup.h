/* SPDX-License-Identifier: MIT */
/* Shim for <linux/cleanup.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_CLEANUP_H
#define KSHIM_LINUX_CLEANUP_H
#include <kshim.h>
#endif
