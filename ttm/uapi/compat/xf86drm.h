/* SPDX-License-Identifier: MIT */
/*
 * xf86drm.h (compatibility): the device entry points of 2008 libdrm that
 * a TTM client uses, implemented over the TTM suite's in-process device
 * (ttm_drm_device.h). The descriptor is an int from drmOpen(); it is also a
 * real descriptor of /dev/null, so a client that close()s it harms nothing
 * (the device file stays open until drmClose()).
 *
 * As in libdrm, drmIoctl() returns -1 and sets errno; the drmCommand*() and
 * drmBO*()/drmFence*()/drmMM*() wrappers return 0 or a negative errno.
 */
#ifndef TTM_COMPAT_XF86DRM_H
#define TTM_COMPAT_XF86DRM_H

#include <stdint.h>

#include <drm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DRM_MAX_MINOR 16

/* 2008 Xserver-side types, for clients that declare with them. */
typedef unsigned int drmSize, *drmSizePtr;
typedef void *drmAddress, **drmAddressPtr;

/**
 * drmOpen() - open the TTM device registered under @name (see
 * ttm_drm_device_init()); @busid is accepted and ignored. Return: the
 * descriptor, or -1 with errno (ENODEV for an unknown name).
 */
extern int drmOpen(const char *name, const char *busid);
/** drmClose() - close a descriptor from drmOpen(). Return: 0, or -1 and errno. */
extern int drmClose(int fd);
/** drmAvailable() - 1: the in-process device layer is always there. */
extern int drmAvailable(void);
/** drmIoctl() - issue @request; 0, or -1 with errno (as the real one). */
extern int drmIoctl(int fd, unsigned long request, void *arg);

/* Driver-private requests DRM_COMMAND_BASE + @drmCommandIndex. */
extern int drmCommandNone(int fd, unsigned long drmCommandIndex);
extern int drmCommandRead(int fd, unsigned long drmCommandIndex, void *data, unsigned long size);
extern int drmCommandWrite(int fd, unsigned long drmCommandIndex, void *data, unsigned long size);
extern int drmCommandWriteRead(int fd, unsigned long drmCommandIndex, void *data,
			       unsigned long size);

#ifdef __cplusplus
}
#endif

/* As 2008 libdrm's xf86drm.h: its clients see drmBO and drmFence through it. */
#include "xf86mm.h"

#endif /* TTM_COMPAT_XF86DRM_H */
