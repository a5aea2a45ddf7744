// SPDX-License-Identifier: MIT
/*
 * The interposed libc entry points. Each one resolves its path or
 * descriptor as the node sees it and either serves the device or forwards
 * to libc (node_real.c). Symbols are those glibc 2.36 exports and that
 * libdrm, libigt, libpciaccess and igt's programs import (stat@GLIBC_2.33
 * and friends are satisfied by these unversioned definitions).
 *
 * Fortified entry points (__open_2, __realpath_chk, ...) are defined too:
 * callers built with _FORTIFY_SOURCE reach them instead of open/realpath.
 */
#undef _FORTIFY_SOURCE
#include <drm.h>
#include <drmcore/dma_buf.h>
#include <drmcore/drm_fd.h>
#include <drmcore/drm_user.h>
#include <drmcore/sw_sync.h>
#include <drmcore/sync_file.h>
#include <errno.h>
#include <fcntl.h>
#include <i915_drm.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <ttm/ttm_bo_vm.h>

#include "node_priv.h"
#include "server/server_node.h"

/*
 * The drm layer's descriptors (sync_file, syncobj file, dma-buf: drm/'s
 * drm_fd.h) are real descriptors the driver created; the node routes the
 * calls their kernel files would serve. Finding out costs an fstat(), so
 * only while the drm layer has live objects.
 */
static enum drm_fd_kind node_drm_kind(int fd)
{
	if (fd < 0 || !NODE_DRIVER_CALL(drm_fd_live_count()))
		return DRM_FD_NONE;
	return NODE_DRIVER_CALL(drm_fd_kind(fd));
}

/* ---- driver mappings ---------------------------------------------------- */

struct node_range {
	uintptr_t start, end;
};

/* Protected by node_range_lock. */
static struct node_range *node_ranges;
static size_t node_nranges, node_ranges_cap;
static pthread_mutex_t node_range_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_size_t node_nranges_hint;

void node_range_add(void *addr, size_t len)
{
	pthread_mutex_lock(&node_range_lock);
	if (node_nranges == node_ranges_cap) {
		size_t cap = node_ranges_cap ? 2 * node_ranges_cap : 64;
		struct node_range *r = realloc(node_ranges, cap * sizeof(*r));

		if (!r) {
			/* Unrecorded: its munmap goes to libc, the object stays mapped. */
			pthread_mutex_unlock(&node_range_lock);
			return;
		}
		node_ranges = r;
		node_ranges_cap = cap;
	}
	node_ranges[node_nranges++] = (struct node_range){(uintptr_t)addr, (uintptr_t)addr + len};
	atomic_store(&node_nranges_hint, node_nranges);
	pthread_mutex_unlock(&node_range_lock);
	/* Forked children take this mapping over through the device server. */
	node_server_range_added();
}

void node_range_foreach_unlocked(void (*fn)(uintptr_t start, uintptr_t end, void *ctx), void *ctx)
{
	for (size_t i = 0; i < node_nranges; i++)
		fn(node_ranges[i].start, node_ranges[i].end, ctx);
}

/* Forget [addr, addr+len) of the recorded ranges; true when it held any. */
static bool node_range_remove(void *addr, size_t len)
{
	uintptr_t s = (uintptr_t)addr, e = s + len;
	bool hit = false;

	if (!atomic_load_explicit(&node_nranges_hint, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&node_range_lock);
	for (size_t i = 0; i < node_nranges;) {
		struct node_range *r = &node_ranges[i];

		if (r->end <= s || e <= r->start) {
			i++;
			continue;
		}
		hit = true;
		if (s <= r->start && r->end <= e) {
			*r = node_ranges[--node_nranges];
			continue;
		}
		if (r->start < s && e < r->end) {
			/* A hole in the middle: keep the head here, re-add the tail. */
			uintptr_t tail = r->end;

			r->end = s;
			pthread_mutex_unlock(&node_range_lock);
			node_range_add((void *)e, tail - e);
			pthread_mutex_lock(&node_range_lock);
			i++;
			continue;
		}
		if (r->start < s)
			r->end = s;
		else
			r->start = e;
		i++;
	}
	atomic_store(&node_nranges_hint, node_nranges);
	pthread_mutex_unlock(&node_range_lock);
	return hit;
}

/*
 * munmap(2) of a span holding device mappings unmaps the rest of it too:
 * the parts of [@addr, @addr + @len) outside every recorded device mapping
 * go to libc here, before the driver takes its own. Return: 0, or -1 with
 * errno when libc refused a part.
 */
static int node_unmap_gaps(void *addr, size_t len)
{
	uintptr_t s = (uintptr_t)addr, e = s + len, cur = s;
	int ret = 0;

	pthread_mutex_lock(&node_range_lock);
	while (cur < e && !ret) {
		uintptr_t next = e, skip = 0;

		/* The first recorded mapping at or after @cur: the gap ends there. */
		for (size_t i = 0; i < node_nranges; i++) {
			const struct node_range *r = &node_ranges[i];

			if (r->end <= cur || r->start >= next)
				continue;
			next = r->start > cur ? r->start : cur;
			skip = r->end;
		}
		if (next > cur)
			ret = REAL(munmap)((void *)cur, next - cur);
		cur = skip > next ? skip : e;
	}
	pthread_mutex_unlock(&node_range_lock);
	return ret;
}

/* Whether [@addr, @addr + @len) overlaps a recorded driver mapping. */
static bool node_range_overlaps(const void *addr, size_t len)
{
	uintptr_t s = (uintptr_t)addr, e = s + len;
	bool hit = false;

	if (!atomic_load_explicit(&node_nranges_hint, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&node_range_lock);
	for (size_t i = 0; i < node_nranges && !hit; i++)
		hit = node_ranges[i].start < e && s < node_ranges[i].end;
	pthread_mutex_unlock(&node_range_lock);
	return hit;
}

/* ---- opening ------------------------------------------------------------ */

static int node_open_device(int minor, int flags)
{
	char path[PATH_MAX];
	struct node_obj *obj;
	bool remote = node_remote_active();
	int fd, ret;

	if (!remote && node_fork_refuse())
		return -1;
	if (flags & O_DIRECTORY) {
		errno = ENOTDIR;
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/dev/dri/%s", node_dev.root,
		     minor == NODE_MINOR_RENDER ? "renderD128" : "card0") >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = REAL(openat)(AT_FDCWD, path, flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_APPEND), 0);
	if (fd < 0)
		return -1;
	obj = node_obj_new(NODE_FD_DEVICE);
	if (!obj) {
		REAL(close)(fd);
		errno = ENOMEM;
		return -1;
	}
	obj->minor = minor;
	if (remote) {
		/* A forked child: a new file of the device server (server_node.c). */
		ret = node_remote_open(obj, minor, flags & O_CLOEXEC);
		if (ret) {
			node_obj_put(obj);
			REAL(close)(fd);
			errno = -ret;
			return -1;
		}
		ret = node_fd_install(fd, obj);
		if (ret) {
			REAL(close)(fd);
			errno = -ret;
			return -1;
		}
		return fd;
	}
	ret = NODE_DRIVER_CALL(
	    i915_gem_file_open(node_dev.i915, minor == NODE_MINOR_RENDER, &obj->file));
	if (ret) {
		obj->file = NULL;
		node_obj_put(obj);
		REAL(close)(fd);
		errno = -ret;
		return -1;
	}
	atomic_fetch_add(&node_dev.files, 1);
	/* Forked children reach the file through the device server. */
	node_server_file_opened(obj, flags & O_CLOEXEC);
	ret = node_fd_install(fd, obj);
	if (ret) {
		REAL(close)(fd);
		errno = -ret;
		return -1;
	}
	return fd;
}

/*
 * A read-only snapshot file: a memfd holding @len bytes of @text, reopened
 * with the caller's access mode and @flags at offset 0.
 * Return: the descriptor, or -1 with errno set.
 */
static int node_snapshot_open(const char *text, size_t len, int flags)
{
	char proc[64];
	int mfd, fd;

	mfd = memfd_create("i915-node", MFD_CLOEXEC);
	if (mfd < 0)
		return -1;
	if (len && REAL(write)(mfd, text, len) != (ssize_t)len) {
		REAL(close)(mfd);
		errno = EIO;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", mfd);
	fd = REAL(openat)(AT_FDCWD, proc,
			  flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_DIRECTORY | O_NOFOLLOW), 0);
	REAL(close)(mfd);
	return fd;
}

/*
 * A live debugfs file: a memfd holding what the driver says at open, with
 * the access mode asked for; writes through write() go to the driver.
 */
static int node_open_debugfs(const char *name, int flags)
{
	int acc = flags & O_ACCMODE;
	char *text = NULL;
	size_t len = 0;
	struct node_obj *obj;
	int fd, ret;

	if (node_fork_refuse())
		return -1;
	if (flags & O_DIRECTORY) {
		errno = ENOTDIR;
		return -1;
	}
	if (acc != O_WRONLY) {
		ret = NODE_DRIVER_CALL(i915_gem_debugfs_read(node_dev.i915, name, &text, &len));
		if (ret == -EACCES && acc == O_RDWR) {
			text = NULL;
			len = 0;
		} else if (ret) {
			errno = -ret;
			return -1;
		}
	}
	fd = node_snapshot_open(text, len, flags);
	free(text);
	if (fd < 0)
		return -1;
	obj = node_obj_new(NODE_FD_DEBUGFS);
	if (obj)
		obj->name = strdup(name);
	if (!obj || !obj->name) {
		node_obj_put(obj);
		REAL(close)(fd);
		errno = ENOMEM;
		return -1;
	}
	obj->writable = acc != O_RDONLY;
	ret = node_fd_install(fd, obj);
	if (ret) {
		REAL(close)(fd);
		errno = -ret;
		return -1;
	}
	return fd;
}

/*
 * /proc/self/fdinfo/N of a device descriptor: what the kernel's procfs
 * prints for the descriptor itself (pos, flags, mnt_id, ino: read from the
 * real fdinfo, which also gives the open its errno), then what
 * drm_show_fdinfo() adds for a drm file (node_fdinfo_text()). A snapshot
 * taken at open, as a read of the kernel's seq_file at offset 0 is.
 */
static int node_open_fdinfo(int dirfd, const char *path, int devfd, int flags)
{
	struct node_obj *obj;
	char *text = NULL, *drm = NULL;
	size_t len = 0, cap = 4096, dlen = 0;
	ssize_t n;
	int rfd, fd, ret;

	rfd = REAL(openat)(dirfd, path, flags & ~(O_CREAT | O_EXCL | O_TRUNC), 0);
	if (rfd < 0)
		return -1;
	text = malloc(cap);
	while (text) {
		n = read(rfd, text + len, cap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == cap) {
			char *t = realloc(text, cap * 2);

			if (!t) {
				free(text);
				text = NULL;
				break;
			}
			text = t;
			cap *= 2;
		}
	}
	REAL(close)(rfd);
	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	obj = node_fd_get(devfd);
	ret = obj && obj->kind == NODE_FD_DEVICE ? node_fdinfo_text(obj, &drm, &dlen) : 0;
	node_obj_put(obj);
	if (ret) {
		free(text);
		errno = -ret;
		return -1;
	}
	if (dlen) {
		char *t = realloc(text, len + dlen);

		if (!t) {
			free(text);
			free(drm);
			errno = ENOMEM;
			return -1;
		}
		text = t;
		memcpy(text + len, drm, dlen);
		len += dlen;
	}
	free(drm);
	fd = node_snapshot_open(text, len, flags);
	free(text);
	/* A descriptor number freed behind our back (close_range) is reused. */
	if (fd >= 0)
		node_fd_forget(fd);
	return fd;
}

static int node_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	struct node_path np;
	struct node_obj *obj;
	int fd, ret;

	if (node_in_driver)
		return REAL(openat)(dirfd, path, flags, mode);
	ret = node_path_resolve(dirfd, path, &np);
	if (ret) {
		errno = -ret;
		return -1;
	}
	switch (np.kind) {
	case NODE_PATH_DEVNODE:
	case NODE_PATH_PROCFD:
		return node_open_device(np.minor, flags);
	case NODE_PATH_DEBUGFS:
		return node_open_debugfs(np.debugfs_name, flags);
	case NODE_PATH_FDINFO:
		return node_open_fdinfo(dirfd, path, np.fd, flags);
	case NODE_PATH_SW_SYNC:
		/* A timeline of the drm layer (drm/sw_sync.c), a descriptor of its own. */
		if (node_fork_refuse())
			return -1;
		ret = NODE_DRIVER_CALL(drm_sw_sync_open(flags & O_CLOEXEC, &fd));
		if (ret) {
			errno = -ret;
			return -1;
		}
		return fd;
	case NODE_PATH_BAR:
		fd = REAL(openat)(AT_FDCWD, np.tree, flags & ~(O_CREAT | O_EXCL | O_TRUNC), 0);
		if (fd < 0)
			return fd;
		obj = node_obj_new(NODE_FD_BAR);
		if (!obj || node_fd_install(fd, obj)) {
			REAL(close)(fd);
			errno = ENOMEM;
			return -1;
		}
		return fd;
	case NODE_PATH_TREE:
		fd = REAL(openat)(AT_FDCWD, np.tree, flags, mode);
		break;
	case NODE_PATH_REAL:
	default:
		fd = REAL(openat)(dirfd, path, flags, mode);
		break;
	}
	/* A descriptor number freed behind our back (close_range, fclose) is reused. */
	if (fd >= 0)
		node_fd_forget(fd);
	return fd;
}

static mode_t node_open_mode(int flags, va_list ap)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return (mode_t)va_arg(ap, int);
	return 0;
}

NODE_EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = node_open_mode(flags, ap);
	va_end(ap);
	return node_openat(AT_FDCWD, path, flags, mode);
}

NODE_EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = node_open_mode(flags, ap);
	va_end(ap);
	return node_openat(AT_FDCWD, path, flags, mode);
}

NODE_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = node_open_mode(flags, ap);
	va_end(ap);
	return node_openat(dirfd, path, flags, mode);
}

NODE_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = node_open_mode(flags, ap);
	va_end(ap);
	return node_openat(dirfd, path, flags, mode);
}

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

NODE_EXPORT int __open_2(const char *path, int flags)
{
	return node_openat(AT_FDCWD, path, flags, 0);
}

NODE_EXPORT int __open64_2(const char *path, int flags)
{
	return node_openat(AT_FDCWD, path, flags, 0);
}

NODE_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return node_openat(dirfd, path, flags, 0);
}

NODE_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return node_openat(dirfd, path, flags, 0);
}

/* ---- descriptors -------------------------------------------------------- */

NODE_EXPORT int close(int fd)
{
	if (node_in_driver)
		return REAL(close)(fd);
	node_fd_forget(fd);
	/*
	 * The last descriptor of a drm-layer object releases it, as fput() would.
	 * Not in a forked child: its copy of the table is the parent's past.
	 */
	if (fd >= 0 && !atomic_load_explicit(&node_dev.forked, memory_order_relaxed) &&
	    NODE_DRIVER_CALL(drm_fd_live_count()))
		return NODE_DRIVER_CALL(drm_fd_close(fd, (int (*)(int))node_real(NODE_REAL_close)));
	return REAL(close)(fd);
}

NODE_EXPORT int dup(int fd)
{
	int ret = REAL(dup)(fd);

	if (ret >= 0 && !node_in_driver)
		node_fd_dup(fd, ret);
	return ret;
}

NODE_EXPORT int dup2(int fd, int newfd)
{
	int ret = REAL(dup2)(fd, newfd);

	if (ret >= 0 && !node_in_driver)
		node_fd_dup(fd, ret);
	return ret;
}

NODE_EXPORT int dup3(int fd, int newfd, int flags)
{
	int ret = REAL(dup3)(fd, newfd, flags);

	if (ret >= 0 && !node_in_driver)
		node_fd_dup(fd, ret);
	return ret;
}

static int node_fcntl(int fd, int cmd, void *arg)
{
	int ret = REAL(fcntl)(fd, cmd, arg);

	if (ret >= 0 && !node_in_driver && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		node_fd_dup(fd, ret);
	return ret;
}

NODE_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return node_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);

NODE_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return node_fcntl(fd, cmd, arg);
}

NODE_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct node_obj *obj;
	ssize_t ret;

	if (node_in_driver || node_fd_kind(fd) != NODE_FD_DEBUGFS)
		return REAL(write)(fd, buf, len);
	obj = node_fd_get(fd);
	if (!obj)
		return REAL(write)(fd, buf, len);
	if (!obj->writable) {
		node_obj_put(obj);
		errno = EBADF;
		return -1;
	}
	if (node_fork_refuse()) {
		node_obj_put(obj);
		return -1;
	}
	if (!node_call_begin()) {
		node_obj_put(obj);
		return -1;
	}
	ret = NODE_DRIVER_CALL(i915_gem_debugfs_write(node_dev.i915, obj->name, buf, len));
	node_call_end();
	node_obj_put(obj);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

NODE_EXPORT int ioctl(int fd, unsigned long request, ...)
{
	struct node_obj *obj = NULL;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (node_in_driver)
		return REAL(ioctl)(fd, request, arg);
	obj = node_fd_get(fd);
	if (!obj && node_remote_active() &&
	    (_IOC_TYPE(request) == '>' || _IOC_TYPE(request) == 'b')) {
		/* A forked child: sync_file ('>') and dma-buf ('b') ioctls go to the server. */
		bool not_mine;

		ret = node_remote_fd_ioctl(fd, request, arg, &not_mine);
		if (not_mine)
			return REAL(ioctl)(fd, request, arg);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
		return ret;
	}
	if (!obj) {
		enum drm_fd_kind kind = node_drm_kind(fd);

		if (kind != DRM_FD_SYNC_FILE && kind != DRM_FD_DMA_BUF && kind != DRM_FD_SW_SYNC)
			return REAL(ioctl)(fd, request, arg);
		if (node_fork_refuse())
			return -1;
		ret = NODE_DRIVER_CALL(
		    kind == DRM_FD_SYNC_FILE ? drm_sync_file_ioctl(fd, request, arg)
		    : kind == DRM_FD_DMA_BUF ? drm_dma_buf_ioctl(fd, request, arg)
					     : drm_sw_sync_ioctl(fd, request, arg));
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
		return ret;
	}
	if (obj->kind != NODE_FD_DEVICE) {
		node_obj_put(obj);
		return REAL(ioctl)(fd, request, arg);
	}
	if (node_remote_active()) {
		/* A forked child: the device server of the creator runs it. */
		ret = node_remote_ioctl(obj, request, arg);
		if (node_trace)
			node_say("ttm-i915-node: pid %d remote ioctl fd %d nr 0x%02x: %d (%s)\n",
				 (int)getpid(), fd, (unsigned int)_IOC_NR(request), ret,
				 ret < 0 ? strerror(-ret) : "ok");
		node_obj_put(obj);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
		return ret;
	}
	if (node_fork_refuse()) {
		node_obj_put(obj);
		return -1;
	}
	if (!node_call_begin()) {
		node_obj_put(obj);
		return -1;
	}
	ret = NODE_DRIVER_CALL(i915_gem_ioctl(obj->file, request, arg));
	node_call_end();
	if (node_trace)
		node_say("ttm-i915-node: ioctl fd %d nr 0x%02x dir %u size %u: %d (%s)\n", fd,
			 (unsigned int)_IOC_NR(request), (unsigned int)_IOC_DIR(request),
			 (unsigned int)_IOC_SIZE(request), ret, ret < 0 ? strerror(-ret) : "ok");
	node_obj_put(obj);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	if (request == DRM_IOCTL_I915_GEM_MMAP) {
		const struct drm_i915_gem_mmap *m = arg;

		node_range_add((void *)(uintptr_t)m->addr_ptr, (size_t)m->size);
	}
	return ret;
}

/* ---- memory ------------------------------------------------------------- */

/*
 * The device mappings inside [@addr, @addr + @len) go, as munmap(2) of
 * the span would take them: a MAP_FIXED mapping or an mremap() is about to
 * put something else there, and the driver must not keep faulting (or
 * invalidating) address space that is no longer its own.
 */
static void node_unmap_device_span(void *addr, size_t len)
{
	if (!node_range_remove(addr, len) || !node_call_begin())
		return;
	NODE_DRIVER_CALL(i915_gem_munmap(node_dev.i915, addr, len));
	node_call_end();
}

NODE_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	struct node_obj *obj = NULL;
	void *out = NULL;
	int ret;

	/* MAP_FIXED replaces whatever is there, device mappings included. */
	if (!node_in_driver && (flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE) && len &&
	    !((uintptr_t)addr & 4095)) {
		if (!atomic_load_explicit(&node_dev.forked, memory_order_relaxed))
			node_unmap_device_span(addr, len);
		else if (node_remote_active())
			/* A forked child's own mappings: the server drops the covered parts. */
			node_remote_munmap(addr, len, &ret);
	}
	if (!node_in_driver && fd >= 0 && !(flags & MAP_ANONYMOUS))
		obj = node_fd_get(fd);
	if (!obj) {
		if (node_in_driver || fd < 0 || (flags & MAP_ANONYMOUS))
			return REAL(mmap)(addr, len, prot, flags, fd, offset);
		if (node_remote_active()) {
			/* A forked child: a dma-buf of the device maps through the server. */
			ret = node_remote_mmap(NULL, fd, len, prot, flags, offset, &out);
			if (ret == -ENODEV)
				return REAL(mmap)(addr, len, prot, flags, fd, offset);
			if (ret) {
				errno = -ret;
				return MAP_FAILED;
			}
			return out;
		}
		if (node_drm_kind(fd) != DRM_FD_DMA_BUF)
			return REAL(mmap)(addr, len, prot, flags, fd, offset);
		/* A dma-buf maps through its exporter, like the kernel's dma_buf_mmap(). */
		if (node_fork_refuse())
			return MAP_FAILED;
		ret = NODE_DRIVER_CALL(drm_dma_buf_mmap(fd, addr, len, prot, flags, offset, &out));
		if (ret) {
			errno = -ret;
			return MAP_FAILED;
		}
		node_range_add(out, len);
		return out;
	}
	if (obj->kind == NODE_FD_BAR) {
		node_obj_put(obj);
		return node_bar_mmap(addr, len, prot, flags, offset);
	}
	if (obj->kind != NODE_FD_DEVICE) {
		node_obj_put(obj);
		return REAL(mmap)(addr, len, prot, flags, fd, offset);
	}
	if (node_remote_active()) {
		/* A forked child: a mapping of its own, faulted in through the server. */
		ret = node_remote_mmap(obj, -1, len, prot, flags, offset, &out);
		node_obj_put(obj);
		if (ret) {
			errno = -ret;
			return MAP_FAILED;
		}
		return out;
	}
	if (node_fork_refuse()) {
		node_obj_put(obj);
		return MAP_FAILED;
	}
	if (!node_call_begin()) {
		node_obj_put(obj);
		return MAP_FAILED;
	}
	ret = NODE_DRIVER_CALL(i915_gem_mmap(obj->file, addr, len, prot, flags, offset, &out));
	node_call_end();
	node_obj_put(obj);
	if (ret) {
		errno = -ret;
		return MAP_FAILED;
	}
	node_range_add(out, len);
	return out;
}

NODE_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t offset)
{
	return mmap(addr, len, prot, flags, fd, (off_t)offset);
}

NODE_EXPORT int munmap(void *addr, size_t len)
{
	int ret;

	if (node_in_driver)
		return REAL(munmap)(addr, len);
	if (atomic_load_explicit(&node_dev.forked, memory_order_relaxed)) {
		/* A forked child's own device mappings go back to the server. */
		if (node_remote_active() && node_remote_munmap(addr, len, &ret))
			return ret;
		return REAL(munmap)(addr, len);
	}
	if (node_bar_munmap(addr, len, &ret))
		return ret;
	/* What the kernel refuses (unaligned, empty) it refuses before unmapping anything. */
	if (((uintptr_t)addr & 4095) || !len || len > SIZE_MAX - 4095)
		return REAL(munmap)(addr, len);
	len = (len + 4095) & ~(size_t)4095;
	if (node_range_overlaps(addr, len) && node_unmap_gaps(addr, len))
		return -1;
	if (node_range_remove(addr, len)) {
		if (!node_call_begin())
			return REAL(munmap)(addr, len);
		ret = NODE_DRIVER_CALL(i915_gem_munmap(node_dev.i915, addr, len));
		node_call_end();
		if (ret == 0)
			return 0;
		if (ret != -ENOENT) {
			errno = -ret;
			return -1;
		}
	}
	return REAL(munmap)(addr, len);
}

/*
 * mremap() of a device mapping, as the kernel treats a GEM vma
 * (VM_DONTEXPAND | VM_PFNMAP, drm_gem_mmap_obj()): it cannot grow
 * (-EFAULT, vma_to_resize()) nor be kept by MREMAP_DONTUNMAP (-EINVAL);
 * shrinking unmaps the tail; MREMAP_FIXED moves the part to the new
 * address with the same object pages (ttm_bo_vm_move_vma()). Calls the
 * kernel would refuse earlier (bad flags, an unaligned address) and every
 * other mremap go to libc.
 */
NODE_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL, *out = NULL;
	va_list ap;
	int ret;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (node_in_driver || ((uintptr_t)old & 4095) || !new_len ||
	    (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)) ||
	    ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE)) ||
	    !node_range_overlaps(old, old_len ? old_len : 1))
		return REAL(mremap)(old, old_len, new_len, flags, new_addr);
	if (new_len > old_len) {
		errno = EFAULT;
		return MAP_FAILED;
	}
	if (flags & MREMAP_DONTUNMAP) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (atomic_load_explicit(&node_dev.forked, memory_order_relaxed))
		return REAL(mremap)(old, old_len, new_len, flags, new_addr);
	old_len = (old_len + 4095) & ~(size_t)4095;
	new_len = (new_len + 4095) & ~(size_t)4095;
	if (new_len < old_len) {
		node_unmap_device_span((char *)old + new_len, old_len - new_len);
		old_len = new_len;
	}
	if (!(flags & MREMAP_FIXED) || new_addr == old)
		return old;
	if (!node_call_begin())
		return MAP_FAILED;
	ret = NODE_DRIVER_CALL(ttm_bo_vm_move_vma(old, old_len, new_addr, &out));
	node_call_end();
	if (ret == -ENOENT)
		return REAL(mremap)(old, old_len, new_len, flags, new_addr);
	if (ret) {
		errno = -ret;
		return MAP_FAILED;
	}
	node_range_remove(old, old_len);
	node_range_remove(out, old_len);
	node_range_add(out, old_len);
	return out;
}

/* ---- stat ----------------------------------------------------------------- */

static int node_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct node_path np;
	int ret;

	if (node_in_driver)
		return REAL(fstatat)(dirfd, path, st, flags);
	ret = node_path_resolve(dirfd, path, &np);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (node_path_native(&np))
		ret = REAL(fstatat)(dirfd, path, st, flags);
	else
		ret = REAL(fstatat)(AT_FDCWD, np.tree, st, flags);
	if (!ret)
		node_stat_fixup(st);
	return ret;
}

NODE_EXPORT int stat(const char *restrict path, struct stat *restrict st)
{
	return node_fstatat(AT_FDCWD, path, st, 0);
}

NODE_EXPORT int stat64(const char *restrict path, struct stat64 *restrict st)
{
	return node_fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

NODE_EXPORT int lstat(const char *restrict path, struct stat *restrict st)
{
	return node_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

NODE_EXPORT int lstat64(const char *restrict path, struct stat64 *restrict st)
{
	return node_fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

NODE_EXPORT int fstatat(int dirfd, const char *restrict path, struct stat *restrict st, int flags)
{
	return node_fstatat(dirfd, path, st, flags);
}

NODE_EXPORT int fstatat64(int dirfd, const char *restrict path, struct stat64 *restrict st,
			  int flags)
{
	return node_fstatat(dirfd, path, (struct stat *)st, flags);
}

int newfstatat(int dirfd, const char *restrict path, struct stat *restrict st, int flags);

NODE_EXPORT int newfstatat(int dirfd, const char *restrict path, struct stat *restrict st,
			   int flags)
{
	return node_fstatat(dirfd, path, st, flags);
}

NODE_EXPORT int fstat(int fd, struct stat *st)
{
	int ret = REAL(fstat)(fd, st);

	if (!ret && !node_in_driver)
		node_stat_fixup(st);
	return ret;
}

NODE_EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

NODE_EXPORT int statx(int dirfd, const char *restrict path, int flags, unsigned int mask,
		      struct statx *restrict stx)
{
	struct node_path np;
	struct stat st;
	int ret;

	if (node_in_driver)
		return REAL(statx)(dirfd, path, flags, mask, stx);
	ret = node_path_resolve(dirfd, path, &np);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (node_path_native(&np))
		ret = REAL(statx)(dirfd, path, flags, mask, stx);
	else
		ret = REAL(statx)(AT_FDCWD, np.tree, flags, mask, stx);
	if (ret)
		return ret;
	/* The same fix-up as for stat, through a struct stat. */
	memset(&st, 0, sizeof(st));
	st.st_dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);
	st.st_ino = stx->stx_ino;
	st.st_mode = stx->stx_mode;
	node_stat_fixup(&st);
	stx->stx_dev_major = major(st.st_dev);
	stx->stx_dev_minor = minor(st.st_dev);
	if (S_ISCHR(st.st_mode) && !S_ISCHR(stx->stx_mode)) {
		stx->stx_mode = (uint16_t)st.st_mode;
		stx->stx_rdev_major = major(st.st_rdev);
		stx->stx_rdev_minor = minor(st.st_rdev);
		stx->stx_size = 0;
		stx->stx_blocks = 0;
	}
	return 0;
}

/* ---- access, links, realpath ---------------------------------------------- */

static int node_faccessat(int dirfd, const char *path, int mode, int flags)
{
	struct node_path np;
	int ret;

	if (node_in_driver)
		return REAL(faccessat)(dirfd, path, mode, flags);
	ret = node_path_resolve(dirfd, path, &np);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (node_path_native(&np))
		return REAL(faccessat)(dirfd, path, mode, flags);
	return REAL(faccessat)(AT_FDCWD, np.tree, mode, flags);
}

NODE_EXPORT int access(const char *path, int mode)
{
	return node_faccessat(AT_FDCWD, path, mode, 0);
}

NODE_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	return node_faccessat(dirfd, path, mode, flags);
}

static ssize_t node_readlinkat(int dirfd, const char *restrict path, char *restrict buf,
			       size_t size)
{
	char target[PATH_MAX];
	struct node_path np;
	ssize_t n;
	int ret;

	if (node_in_driver)
		return REAL(readlinkat)(dirfd, path, buf, size);
	ret = node_path_resolve(dirfd, path, &np);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (node_path_native(&np))
		n = REAL(readlinkat)(dirfd, path, target, sizeof(target) - 1);
	else
		n = REAL(readlinkat)(AT_FDCWD, np.tree, target, sizeof(target) - 1);
	if (n < 0)
		return n;
	target[n] = '\0';
	/* /proc/self/fd/N of the node's descriptors names the virtual file. */
	if (node_tree_strip(target))
		n = (ssize_t)strlen(target);
	if ((size_t)n > size)
		n = (ssize_t)size;
	memcpy(buf, target, (size_t)n);
	return n;
}

NODE_EXPORT ssize_t readlink(const char *restrict path, char *restrict buf, size_t size)
{
	return node_readlinkat(AT_FDCWD, path, buf, size);
}

NODE_EXPORT ssize_t readlinkat(int dirfd, const char *restrict path, char *restrict buf,
			       size_t size)
{
	return node_readlinkat(dirfd, path, buf, size);
}

ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen);

NODE_EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort(); /* what glibc's __chk_fail does for a lying caller */
	return node_readlinkat(AT_FDCWD, path, buf, len);
}

NODE_EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len,
				     size_t buflen)
{
	if (len > buflen)
		abort();
	return node_readlinkat(dirfd, path, buf, len);
}

NODE_EXPORT char *realpath(const char *restrict path, char *restrict resolved)
{
	char out[PATH_MAX];
	struct node_path np;
	int ret;

	if (node_in_driver)
		return REAL(realpath)(path, resolved);
	ret = node_path_resolve(AT_FDCWD, path, &np);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (!REAL(realpath)(node_path_native(&np) ? path : np.tree, out))
		return NULL;
	node_tree_strip(out);
	if (resolved)
		return strcpy(resolved, out);
	return strdup(out);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);

NODE_EXPORT char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	if (resolved && resolvedlen < PATH_MAX)
		abort();
	return realpath(path, resolved);
}

NODE_EXPORT char *canonicalize_file_name(const char *path)
{
	return realpath(path, NULL);
}

/* ---- directories ------------------------------------------------------------ */

NODE_EXPORT DIR *opendir(const char *path)
{
	struct node_path np;
	int ret;

	if (node_in_driver)
		return REAL(opendir)(path);
	ret = node_path_resolve(AT_FDCWD, path, &np);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return REAL(opendir)(node_path_native(&np) ? path : np.tree);
}

/* Is @path /sys/bus/pci/devices (the listing libpciaccess scans)? */
static bool node_is_pci_devices(const char *path)
{
	static const char dir[] = "/sys/bus/pci/devices";
	size_t n = sizeof(dir) - 1;

	if (strncmp(path, dir, n))
		return false;
	return path[n + strspn(path + n, "/")] == '\0';
}

typedef int (*node_dirent_filter)(const struct dirent *);
typedef int (*node_dirent_compar)(const struct dirent **, const struct dirent **);

/* Add the device's slot to a scandir() result of /sys/bus/pci/devices. */
static int node_scandir_add_slot(struct dirent ***list, int n, node_dirent_filter filter,
				 node_dirent_compar compar)
{
	const char *slot = node_dev.profile->pci_slot;
	struct dirent *de, **grown;

	for (int i = 0; i < n; i++)
		if (!strcmp((*list)[i]->d_name, slot))
			return n;
	de = calloc(1, sizeof(*de));
	if (!de)
		return n;
	de->d_ino = node_dev.node_ino[0] + 1;
	de->d_type = DT_LNK;
	de->d_reclen = sizeof(*de);
	snprintf(de->d_name, sizeof(de->d_name), "%s", slot);
	if (filter && !filter(de)) {
		free(de);
		return n;
	}
	grown = realloc(*list, ((size_t)n + 1) * sizeof(*grown));
	if (!grown) {
		free(de);
		return n;
	}
	grown[n++] = de;
	*list = grown;
	if (compar)
		qsort(grown, (size_t)n, sizeof(*grown),
		      (int (*)(const void *, const void *))compar);
	return n;
}

static int node_scandir(enum node_real_id id, const char *path, struct dirent ***list,
			node_dirent_filter filter, node_dirent_compar compar)
{
	int (*real)(const char *, struct dirent ***, node_dirent_filter, node_dirent_compar) =
	    node_real(id);
	struct node_path np;
	int n, ret;

	if (node_in_driver)
		return real(path, list, filter, compar);
	ret = node_path_resolve(AT_FDCWD, path, &np);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (!node_path_native(&np))
		return real(np.tree, list, filter, compar);
	n = real(path, list, filter, compar);
	if (n >= 0 && node_is_pci_devices(path) && node_device_get())
		n = node_scandir_add_slot(list, n, filter, compar);
	return n;
}

NODE_EXPORT int scandir(const char *restrict path, struct dirent ***restrict list,
			int (*filter)(const struct dirent *),
			int (*compar)(const struct dirent **, const struct dirent **))
{
	return node_scandir(NODE_REAL_scandir, path, list, filter, compar);
}

NODE_EXPORT int scandir64(const char *restrict path, struct dirent64 ***restrict list,
			  int (*filter)(const struct dirent64 *),
			  int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	/* struct dirent and dirent64 are one layout on LP64. */
	return node_scandir(NODE_REAL_scandir64, path, (struct dirent ***)list,
			    (node_dirent_filter)filter, (node_dirent_compar)compar);
}

/* ---- stdio ---------------------------------------------------------------- */

static int node_fopen_flags(const char *mode)
{
	int flags;

	switch (mode[0]) {
	case 'r':
		flags = O_RDONLY;
		break;
	case 'w':
		flags = O_WRONLY | O_CREAT | O_TRUNC;
		break;
	case 'a':
		flags = O_WRONLY | O_CREAT | O_APPEND;
		break;
	default:
		return -1;
	}
	for (const char *m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
		else if (*m == 'x')
			flags |= O_EXCL;
	}
	return flags;
}

/* Debugfs through stdio: every write reaches the driver, as with write(). */
static ssize_t node_cookie_read(void *cookie, char *buf, size_t len)
{
	return read((int)(intptr_t)cookie, buf, len);
}

static ssize_t node_cookie_write(void *cookie, const char *buf, size_t len)
{
	return write((int)(intptr_t)cookie, buf, len);
}

static int node_cookie_seek(void *cookie, off64_t *pos, int whence)
{
	off_t r = lseek((int)(intptr_t)cookie, (off_t)*pos, whence);

	if (r < 0)
		return -1;
	*pos = r;
	return 0;
}

static int node_cookie_close(void *cookie)
{
	return close((int)(intptr_t)cookie);
}

static FILE *node_fopen(enum node_real_id id, const char *restrict path, const char *restrict mode)
{
	FILE *(*real)(const char *, const char *) = node_real(id);
	struct node_path np;
	FILE *f;
	int fd, flags, ret;

	if (node_in_driver)
		return real(path, mode);
	ret = node_path_resolve(AT_FDCWD, path, &np);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (np.kind == NODE_PATH_REAL)
		return real(path, mode);
	if (np.kind == NODE_PATH_TREE)
		return real(np.tree, mode);
	flags = node_fopen_flags(mode);
	if (flags < 0) {
		errno = EINVAL;
		return NULL;
	}
	fd = node_openat(AT_FDCWD, path, flags, 0666);
	if (fd < 0)
		return NULL;
	if (np.kind == NODE_PATH_DEBUGFS) {
		static const cookie_io_functions_t io = {
		    .read = node_cookie_read,
		    .write = node_cookie_write,
		    .seek = node_cookie_seek,
		    .close = node_cookie_close,
		};

		f = fopencookie((void *)(intptr_t)fd, mode, io);
	} else {
		f = fdopen(fd, mode);
	}
	if (!f)
		close(fd);
	return f;
}

NODE_EXPORT FILE *fopen(const char *restrict path, const char *restrict mode)
{
	return node_fopen(NODE_REAL_fopen, path, mode);
}

NODE_EXPORT FILE *fopen64(const char *restrict path, const char *restrict mode)
{
	return node_fopen(NODE_REAL_fopen64, path, mode);
}

/* ---- poll ------------------------------------------------------------------- */

/*
 * poll(2) over a set holding dma-bufs: their readiness is the reservation's
 * (drm_dma_buf_poll(), which never blocks), everything else the kernel's.
 * The dma-bufs are hidden from the kernel (fd -1) and the wait is sliced
 * into NODE_POLL_SLICE_NS steps that re-check them, until something is
 * ready or the timeout (NULL: none) passes.
 */
#define NODE_POLL_SLICE_NS 1000000

/* Set the revents of the dma-bufs of the set ( >= 0); how many are ready. */
static int node_poll_dma_bufs(struct pollfd *fds, const int *saved, nfds_t n)
{
	int ready = 0;

	for (nfds_t i = 0; i < n; i++) {
		short rev = 0;

		if (saved[i] < 0)
			continue;
		if (NODE_DRIVER_CALL(drm_dma_buf_poll(saved[i], fds[i].events, &rev)))
			rev = POLLNVAL;
		fds[i].revents = rev;
		ready += rev != 0;
	}
	return ready;
}

static int node_poll_mixed(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
			   const sigset_t *sigmask)
{
	int *saved = malloc(n * sizeof(*saved));
	struct timespec now, end = {0};
	bool any = false;
	int ret;

	if (!saved)
		return REAL(ppoll)(fds, n, timeout, sigmask);
	for (nfds_t i = 0; i < n; i++) {
		saved[i] = -1;
		if (node_drm_kind(fds[i].fd) == DRM_FD_DMA_BUF) {
			saved[i] = fds[i].fd;
			fds[i].fd = -1;
			any = true;
		}
	}
	if (!any) {
		free(saved);
		return REAL(ppoll)(fds, n, timeout, sigmask);
	}
	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout->tv_sec;
		end.tv_nsec += timeout->tv_nsec;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
	}
	for (;;) {
		struct timespec slice = {0, NODE_POLL_SLICE_NS};
		int ready = node_poll_dma_bufs(fds, saved, n);

		if (timeout) {
			long long left;

			clock_gettime(CLOCK_MONOTONIC, &now);
			left =
			    (end.tv_sec - now.tv_sec) * 1000000000ll + (end.tv_nsec - now.tv_nsec);
			if (left < 0)
				left = 0;
			if (left < NODE_POLL_SLICE_NS)
				slice.tv_nsec = left;
		}
		if (ready)
			slice.tv_nsec = 0;
		ret = REAL(ppoll)(fds, n, &slice, sigmask);
		/* The kernel cleared the hidden entries' revents: fill them in again. */
		ready = node_poll_dma_bufs(fds, saved, n);
		if (ret < 0 || ret + ready > 0 || !slice.tv_nsec) {
			if (ret >= 0)
				ret += ready;
			break;
		}
	}
	for (nfds_t i = 0; i < n; i++)
		if (saved[i] >= 0)
			fds[i].fd = saved[i];
	free(saved);
	return ret;
}

NODE_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};

	if (node_in_driver || !n || !NODE_DRIVER_CALL(drm_fd_live_count()))
		return REAL(poll)(fds, n, timeout_ms);
	return node_poll_mixed(fds, n, timeout_ms < 0 ? NULL : &ts, NULL);
}

NODE_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		      const sigset_t *sigmask)
{
	if (node_in_driver || !n || !NODE_DRIVER_CALL(drm_fd_live_count()))
		return REAL(ppoll)(fds, n, timeout, sigmask);
	return node_poll_mixed(fds, n, timeout, sigmask);
}

size_t node_range_count(void)
{
	return atomic_load(&node_nranges_hint);
}

/* ---- fault signals ---------------------------------------------------- */

/*
 * The drm layer's user copies catch their faults with a SIGSEGV/SIGBUS
 * handler installed at the first copy (drm/drm_user.c). A program that
 * installs its own for those signals afterwards (igt's crash handler comes
 * after the first ioctl) would take the copies' faults: its disposition
 * goes behind the guard instead, which hands it every fault outside a copy,
 * and the program reads back its own dispositions, as without the node.
 */
NODE_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	if (!node_in_driver && drm_user_guard_sigaction(sig, act, oldact))
		return 0;
	return REAL(sigaction)(sig, act, oldact);
}

NODE_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;

	if (node_in_driver || handler == SIG_ERR)
		return REAL(signal)(sig, handler);
	/* glibc's signal(): BSD semantics. */
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	sigaddset(&act.sa_mask, sig);
	act.sa_flags = SA_RESTART;
	if (!drm_user_guard_sigaction(sig, &act, &old))
		return REAL(signal)(sig, handler);
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)old.sa_sigaction
					   : old.sa_handler;
}
