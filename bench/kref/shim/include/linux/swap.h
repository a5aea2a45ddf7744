/* SPDX-License-Identifier: MIT */
/* Shim for <linux/swap.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SWAP_H
#define KSHIM_LINUX_SWAP_H
#include <kshim.h>
#endif
