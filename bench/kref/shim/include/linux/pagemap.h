/* SPDX-License-Identifier: MIT */
/* Shim for <linux/pagemap.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_PAGEMAP_H
#define KSHIM_LINUX_PAGEMAP_H
#include <kshim.h>
#endif
