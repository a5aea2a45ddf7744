/* SPDX-License-Identifier: MIT */
/* Shim for <linux/export.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_EXPORT_H
#define KSHIM_LINUX_EXPORT_H
#include <kshim.h>
#endif
