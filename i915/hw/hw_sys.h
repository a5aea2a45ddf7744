/* SPDX-License-Identifier: MIT */
/*
 * hw_sys - the one table through which the hw back end reaches the kernel.
 *
 * Everything hw_device.c, hw_bo.c, hw_exec.c and hw_fence.c ask of the kernel
 * (enumerating render nodes, open/close, the DRM version, ioctls, mmap) is
 * a call through struct hw_sys_ops, so a test can substitute a recording
 * fake (i915/hw/tests/hw_fake.c, never linked into the library) and check
 * the exact ioctl sequence and argument structs without a GPU. poll() on
 * fence fds is the one real syscall left: a fake hands out eventfds, which
 * poll like a sync_file (readable once signalled).
 *
 * Every slot returns 0 (or a non-negative result) or a negative errno, and
 * may be called from any thread, including the fence waiter thread
 * concurrently with the caller's threads.
 */
#ifndef I915_HW_SYS_H
#define I915_HW_SYS_H

#include <stddef.h>
#include <stdint.h>

/* Longest device path kept (render node paths, struct hw_gpu_info::path). */
#define HW_PATH_MAX 64

/**
 * struct hw_drm_version - the drmGetVersion() facts the back end keeps.
 * @name: driver name, NUL terminated ("i915").
 * @major: driver version major.
 * @minor: driver version minor.
 * @patch: driver patch level.
 */
struct hw_drm_version {
	char name[16];
	int major;
	int minor;
	int patch;
};

/**
 * struct hw_sys_ops - the kernel interface.
 * @render_nodes: write up to @max render node paths into @paths (the
 *	drmGetDevices2() devices that have a render node, in its order);
 *	returns the count (0: none), or a negative errno.
 * @open: open @path read-write, close-on-exec; the fd or a negative errno.
 * @close: close @fd; 0 or a negative errno.
 * @version: the DRM driver version of @fd (drmGetVersion()); 0 or errno.
 * @ioctl: the ioctl @request on @fd with @arg, restarted on EINTR/EAGAIN
 *	as drmIoctl() does; 0 (or the ioctl's non-negative return) or a
 *	negative errno.
 * @mmap: map @len bytes of @fd at @offset, shared, read-write; 0 with
 *	*@out set, or a negative errno.
 * @munmap: undo @mmap; 0 or a negative errno.
 */
struct hw_sys_ops {
	int (*render_nodes)(void *data, char (*paths)[HW_PATH_MAX], int max);
	int (*open)(void *data, const char *path);
	int (*close)(void *data, int fd);
	int (*version)(void *data, int fd, struct hw_drm_version *ver);
	int (*ioctl)(void *data, int fd, unsigned long request, void *arg);
	int (*mmap)(void *data, int fd, uint64_t offset, size_t len, void **out);
	int (*munmap)(void *data, void *ptr, size_t len);
};

/* libdrm and the real syscalls: the default when struct hw_open_args::sys is NULL. */
extern const struct hw_sys_ops hw_sys_libdrm;

#endif /* I915_HW_SYS_H */
