/* SPDX-License-Identifier: MIT */
/* Shim for <linux/io-mapping.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_IO_MAPPING_H
#define KSHIM_LINUX_IO_MAPPING_H
#include <kshim.h>
#endif
