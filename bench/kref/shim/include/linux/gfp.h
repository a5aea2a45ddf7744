/* SPDX-License-Identifier: MIT */
/* Shim for <linux/gfp.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_GFP_H
#define KSHIM_LINUX_GFP_H
#include <kshim.h>
#endif
