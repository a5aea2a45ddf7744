/* SPDX-License-Identifier: MIT */
/* Shim for <linux/dma-buf-map.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_DMA_BUF_MAP_H
#define KSHIM_LINUX_DMA_BUF_MAP_H
#include <kshim.h>
#endif
