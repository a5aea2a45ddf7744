/* SPDX-License-Identifier: MIT */
/* Shim for <linux/device.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_DEVICE_H
#define KSHIM_LINUX_DEVICE_H
#include <kshim.h>
#endif
