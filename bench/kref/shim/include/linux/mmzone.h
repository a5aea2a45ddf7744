/* SPDX-License-Identifier: MIT */
/* Shim for <linux/mmzone.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MMZONE_H
#define KSHIM_LINUX_MMZONE_H
#include <kshim.h>
#endif
