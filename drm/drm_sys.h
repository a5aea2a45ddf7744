/* SPDX-License-Identifier: MIT */
/*
 * System calls on the drm layer's own descriptors, made directly.
 *
 * The render node interposes close(), poll(), read(), write(), open(),
 * fstat() and friends for the whole process, and routes descriptors of
 * our objects back into this library. Our own uses of those calls (a
 * sync_file's pipe end, a dma-buf's memfd, the liveness scans) run on any
 * thread, including driver threads the node does not mark as being inside
 * the driver, so they must never reach an interposer: closing our write
 * end through one would be taken for the user closing the object. These
 * wrappers go to the kernel with syscall(2) and keep the libc conventions
 * (-1 and errno).
 */
#ifndef DRM_SYS_H
#define DRM_SYS_H

#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline int drm_sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static inline ssize_t drm_sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static inline ssize_t drm_sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

static inline int drm_sys_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0);
}

static inline int drm_sys_pipe2(int fds[2], int flags)
{
	return (int)syscall(SYS_pipe2, fds, flags);
}

static inline int drm_sys_fcntl(int fd, int cmd, long arg)
{
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

static inline int drm_sys_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH);
}

static inline int drm_sys_stat(const char *path, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, 0);
}

static inline int drm_sys_memfd_create(const char *name, unsigned flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

static inline int drm_sys_ftruncate(int fd, off_t len)
{
	return (int)syscall(SYS_ftruncate, fd, len);
}

static inline ssize_t drm_sys_readlink(const char *path, char *buf, size_t n)
{
	return syscall(SYS_readlinkat, AT_FDCWD, path, buf, n);
}

/* poll(2) of one descriptor without waiting. */
static inline int drm_sys_poll_now(struct pollfd *p)
{
	struct timespec zero = {0, 0};

	return (int)syscall(SYS_ppoll, p, 1, &zero, NULL, 0);
}

static inline ssize_t drm_sys_getdents64(int fd, void *buf, size_t n)
{
	return syscall(SYS_getdents64, fd, buf, n);
}

#endif /* DRM_SYS_H */
