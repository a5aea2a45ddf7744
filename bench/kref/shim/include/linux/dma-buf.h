/* SPDX-License-Identifier: MIT */
/* Shim for <linux/dma-buf.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_DMA_BUF_H
#define KSHIM_LINUX_DMA_BUF_H
#include <kshim.h>
#endif
