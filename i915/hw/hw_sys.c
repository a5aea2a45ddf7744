// SPDX-License-Identifier: MIT
/*
 * The real kernel interface: libdrm for enumeration, versions and ioctls,
 * plain syscalls for open/close/mmap. Every slot converts the -1/errno
 * convention into a negative errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "hw_sys.h"

/* More render nodes than any machine carries; drmGetDevices2() is asked for this many. */
#define HW_SYS_MAX_DEVICES 64

static int hw_sys_render_nodes(void *data, char (*paths)[HW_PATH_MAX], int max)
{
	drmDevicePtr devs[HW_SYS_MAX_DEVICES];
	int n, i, count = 0;

	n = drmGetDevices2(0, devs, HW_SYS_MAX_DEVICES);
	if (n < 0)
		return (n == -ENOENT || n == -ENODEV) ? 0 : n;
	for (i = 0; i < n && count < max; i++) {
		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		if (snprintf(paths[count], HW_PATH_MAX, "%s", devs[i]->nodes[DRM_NODE_RENDER]) >=
		    HW_PATH_MAX)
			continue;
		count++;
	}
	drmFreeDevices(devs, n);
	return count;
}

static int hw_sys_open(void *data, const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int hw_sys_close(void *data, int fd)
{
	return close(fd) ? -errno : 0;
}

static int hw_sys_version(void *data, int fd, struct hw_drm_version *ver)
{
	drmVersionPtr v = drmGetVersion(fd);

	if (!v)
		return errno ? -errno : -ENODEV;
	memset(ver, 0, sizeof(*ver));
	if (v->name)
		snprintf(ver->name, sizeof(ver->name), "%.*s", v->name_len, v->name);
	ver->major = v->version_major;
	ver->minor = v->version_minor;
	ver->patch = v->version_patchlevel;
	drmFreeVersion(v);
	return 0;
}

static int hw_sys_ioctl(void *data, int fd, unsigned long request, void *arg)
{
	/* drmIoctl() already restarts on EINTR and EAGAIN. */
	int ret = drmIoctl(fd, request, arg);

	return ret < 0 ? -errno : ret;
}

static int hw_sys_mmap(void *data, int fd, uint64_t offset, size_t len, void **out)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);

	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

static int hw_sys_munmap(void *data, void *ptr, size_t len)
{
	return munmap(ptr, len) ? -errno : 0;
}

const struct hw_sys_ops hw_sys_libdrm = {
    .render_nodes = hw_sys_render_nodes,
    .open = hw_sys_open,
    .close = hw_sys_close,
    .version = hw_sys_version,
    .ioctl = hw_sys_ioctl,
    .mmap = hw_sys_mmap,
    .munmap = hw_sys_munmap,
};
