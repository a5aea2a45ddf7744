/* SPDX-License-Identifier: MIT */
/* Shim for <linux/container_of.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_CONTAINER_OF_H
#define KSHIM_LINUX_CONTAINER_OF_H
#include <kshim.h>
#endif
