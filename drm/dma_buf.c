// SPDX-License-Identifier: MIT
/*
 * dma-bufs over TTM buffer objects; see drmcore/dma_buf.h.
 *
 * A dma-buf is a drm_fd_obj (a memfd file) whose one reference count
 * serves both the descriptors (the drm_fd table's reference) and the
 * holders (importers' prime entries, lookups). The BO registry finds a
 * BO's live dma-buf for re-export; it is process-wide like the fd table,
 * guarded by @bo_lock, which is taken before the fd table's lock.
 */
#include <drmcore/dma_buf.h>
#include <drmcore/dma_fence_array.h>
#include <drmcore/drm_faults.h>
#include <drmcore/drm_user.h>
#include <drmcore/sync_file.h>

#include <ttm/dma_resv.h>
#include <ttm/ttm_bo.h>

#include "drm_fd_priv.h"
#include "drm_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-buf.h>

/**
 * struct dma_buf_impl - a dma-buf and its file.
 * @base: the file (memfd).
 * @buf: what the exporter and importers see.
 * @name_lock: protects @buf.name.
 * @next: link in the BO registry, protected by @bo_lock.
 */
struct dma_buf_impl {
	struct drm_fd_obj base;
	struct drm_dma_buf buf;
	pthread_mutex_t name_lock;
	struct dma_buf_impl *next;
};

static pthread_mutex_t bo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dma_buf_impl *bo_registry;

static const struct drm_dma_buf_ops no_ops;

static struct dma_buf_impl *to_impl(struct drm_dma_buf *buf)
{
	return container_of(buf, struct dma_buf_impl, buf);
}

static void dma_buf_release(struct drm_fd_obj *obj)
{
	struct dma_buf_impl *d = (struct dma_buf_impl *)obj;
	struct dma_buf_impl **p;

	pthread_mutex_lock(&bo_lock);
	for (p = &bo_registry; *p && *p != d; p = &(*p)->next)
		;
	if (*p)
		*p = d->next;
	pthread_mutex_unlock(&bo_lock);
	if (d->buf.ops->release)
		d->buf.ops->release(&d->buf);
	ttm_bo_put(d->buf.bo);
	pthread_mutex_destroy(&d->name_lock);
	free(d);
}

static struct dma_buf_impl *find_bo_locked(struct ttm_buffer_object *bo)
{
	for (struct dma_buf_impl *d = bo_registry; d; d = d->next)
		if (d->buf.bo == bo && drm_fd_obj_get_unless_zero(&d->base))
			return d;
	return NULL;
}

struct drm_dma_buf *drm_dma_buf_lookup_bo(struct ttm_buffer_object *bo)
{
	struct dma_buf_impl *d;

	pthread_mutex_lock(&bo_lock);
	d = find_bo_locked(bo);
	pthread_mutex_unlock(&bo_lock);
	return d ? &d->buf : NULL;
}

int drm_dma_buf_export(struct ttm_buffer_object *bo, const struct drm_dma_buf_ops *ops, void *priv,
		       int flags, int *fd, struct drm_dma_buf **out)
{
	struct dma_buf_impl *d;
	int ret;

	if (!bo || !fd || (flags & ~(O_CLOEXEC | O_ACCMODE)))
		return -EINVAL;
	/* Every creation counts towards the lazy sweep. */
	drm_fd_gc_maybe();
	pthread_mutex_lock(&bo_lock);
	d = find_bo_locked(bo);
	if (d) {
		pthread_mutex_unlock(&bo_lock);
		ret = drm_fd_obj_new_fd(&d->base, flags, fd);
		if (!ret && out)
			*out = &d->buf;
		drm_fd_obj_put(&d->base);
		return ret;
	}
	if (fault_should_fail(&drm_fault_dma_buf_alloc, sizeof(*d))) {
		ret = -ENOMEM;
		goto unlock;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		ret = -ENOMEM;
		goto unlock;
	}
	d->buf.bo = bo;
	d->buf.size = bo->size;
	d->buf.ops = ops ? ops : &no_ops;
	d->buf.priv = priv;
	pthread_mutex_init(&d->name_lock, NULL);
	ttm_bo_get(bo);
	ret = drm_fd_obj_install_memfd(&d->base, DRM_FD_DMA_BUF, bo->size, flags, fd,
				       dma_buf_release);
	if (ret) {
		pthread_mutex_destroy(&d->name_lock);
		free(d);
		pthread_mutex_unlock(&bo_lock);
		/* The exporter's reference, dropped without the registry lock. */
		ttm_bo_put(bo);
		return ret;
	}
	d->next = bo_registry;
	bo_registry = d;
	if (out)
		*out = &d->buf;
	ret = 0;
unlock:
	pthread_mutex_unlock(&bo_lock);
	return ret;
}

int drm_dma_buf_get(int fd, struct drm_dma_buf **out)
{
	struct drm_fd_obj *o;
	int err;

	o = drm_fd_obj_lookup(fd, DRM_FD_DMA_BUF, &err);
	if (!o)
		return err;
	*out = &((struct dma_buf_impl *)o)->buf;
	return 0;
}

void drm_dma_buf_ref(struct drm_dma_buf *buf)
{
	drm_fd_obj_get(&to_impl(buf)->base);
}

void drm_dma_buf_put(struct drm_dma_buf *buf)
{
	if (buf)
		drm_fd_obj_put(&to_impl(buf)->base);
}

int drm_dma_buf_fd(struct drm_dma_buf *buf, int flags, int *fd)
{
	if (flags & ~(O_CLOEXEC | O_ACCMODE))
		return -EINVAL;
	return drm_fd_obj_new_fd(&to_impl(buf)->base, flags, fd);
}

int drm_dma_buf_poll(int fd, short events, short *revents)
{
	struct drm_dma_buf *buf;
	struct dma_resv *resv;
	short r = 0;

	if (drm_dma_buf_get(fd, &buf))
		return -ENOTTY;
	resv = buf->bo->resv;
	/* Readers wait for the writers; writers wait for everyone. */
	if ((events & POLLIN) && dma_resv_test_signaled(resv, DMA_RESV_USAGE_WRITE))
		r |= POLLIN;
	if ((events & POLLOUT) && dma_resv_test_signaled(resv, DMA_RESV_USAGE_READ))
		r |= POLLOUT;
	*revents = r;
	drm_dma_buf_put(buf);
	return 0;
}

/* DMA_BUF_SYNC_WRITE access waits for every fence, a read only for writers. */
static enum dma_resv_usage usage_rw(bool write)
{
	return write ? DMA_RESV_USAGE_READ : DMA_RESV_USAGE_WRITE;
}

static int ioctl_sync(struct drm_dma_buf *buf, void __user *arg)
{
	struct dma_buf_sync sync;
	int64_t r;

	if (drm_copy_from_user(&sync, arg, sizeof(sync)))
		return -EFAULT;
	if (sync.flags & ~DMA_BUF_SYNC_VALID_FLAGS_MASK)
		return -EINVAL;
	if (!(sync.flags & DMA_BUF_SYNC_RW))
		return -EINVAL;
	if (sync.flags & DMA_BUF_SYNC_END)
		return 0;
	/* Begin CPU access: the GPU's work on the buffer must be done. */
	r = dma_resv_wait_timeout(buf->bo->resv, usage_rw(sync.flags & DMA_BUF_SYNC_WRITE), true,
				  MAX_SCHEDULE_TIMEOUT);
	return r < 0 ? (int)r : 0;
}

static int ioctl_set_name(struct drm_dma_buf *buf, const char __user *uname)
{
	struct dma_buf_impl *d = to_impl(buf);
	char name[DMA_BUF_NAME_LEN];
	ssize_t len;

	len = drm_strncpy_from_user(name, uname, sizeof(name));
	if (len < 0)
		return (int)len;
	/* strndup_user(): no NUL within the limit is -EINVAL. */
	if ((size_t)len >= sizeof(name))
		return -EINVAL;
	pthread_mutex_lock(&d->name_lock);
	memcpy(buf->name, name, (size_t)len + 1);
	pthread_mutex_unlock(&d->name_lock);
	return 0;
}

static int ioctl_export_sync_file(struct drm_dma_buf *buf, void __user *arg)
{
	struct dma_buf_export_sync_file a;
	struct dma_fence **fences, *fence;
	unsigned num;
	int ret, fd;

	if (drm_copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~DMA_BUF_SYNC_RW)
		return -EINVAL;
	if (!(a.flags & DMA_BUF_SYNC_RW))
		return -EINVAL;
	ret = dma_resv_get_fences(buf->bo->resv, usage_rw(a.flags & DMA_BUF_SYNC_WRITE), &num,
				  &fences);
	if (ret)
		return ret;
	/* dma_resv_get_singleton(): one fence for all, a signalled stub for none. */
	if (num == 0)
		fence = dma_fence_get_stub();
	else
		fence = dma_fence_unwrap_merge(fences, num);
	dma_resv_put_fences(fences, num);
	if (!fence)
		return -ENOMEM;
	ret = drm_sync_file_create(fence, O_CLOEXEC, &fd);
	dma_fence_put(fence);
	if (ret)
		return ret;
	a.fd = fd;
	if (drm_copy_to_user(arg, &a, sizeof(a))) {
		drm_fd_close(fd, NULL);
		return -EFAULT;
	}
	return 0;
}

static int ioctl_import_sync_file(struct drm_dma_buf *buf, void __user *arg)
{
	struct dma_buf_import_sync_file a;
	struct dma_fence *fence, **parts;
	struct dma_resv *resv = buf->bo->resv;
	enum dma_resv_usage usage;
	int num, ret;

	if (drm_copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~DMA_BUF_SYNC_RW)
		return -EINVAL;
	if (!(a.flags & DMA_BUF_SYNC_RW))
		return -EINVAL;
	fence = drm_sync_file_get_fence(a.fd);
	if (!fence)
		return -EINVAL;
	usage = (a.flags & DMA_BUF_SYNC_WRITE) ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ;
	num = dma_fence_unwrap(fence, &parts);
	dma_fence_put(fence);
	if (num < 0)
		return num;
	dma_resv_lock(resv, NULL);
	ret = dma_resv_reserve_fences(resv, (unsigned)num);
	for (int i = 0; !ret && i < num; i++)
		ret = dma_resv_add_fence(resv, parts[i], usage);
	dma_resv_unlock(resv);
	dma_fence_unwrap_put(parts, num);
	return ret;
}

int drm_dma_buf_ioctl(int fd, unsigned long req, void *arg)
{
	struct drm_dma_buf *buf;
	int ret;

	if (drm_dma_buf_get(fd, &buf))
		return -ENOTTY;
	switch (req) {
	case DMA_BUF_IOCTL_SYNC:
		ret = ioctl_sync(buf, arg);
		break;
	case DMA_BUF_SET_NAME_A:
	case DMA_BUF_SET_NAME_B:
		ret = ioctl_set_name(buf, arg);
		break;
	case DMA_BUF_IOCTL_EXPORT_SYNC_FILE:
		ret = ioctl_export_sync_file(buf, arg);
		break;
	case DMA_BUF_IOCTL_IMPORT_SYNC_FILE:
		ret = ioctl_import_sync_file(buf, arg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	drm_dma_buf_put(buf);
	return ret;
}

int drm_dma_buf_mmap(int fd, void *hint, size_t len, int prot, int flags, off_t offset, void **addr)
{
	struct drm_dma_buf *buf;
	int fl, ret;

	if (drm_dma_buf_get(fd, &buf))
		return -ENOTTY;
	fl = drm_sys_fcntl(fd, F_GETFL, 0);
	if ((flags & MAP_SHARED) && (prot & PROT_WRITE) && (fl & O_ACCMODE) != O_RDWR)
		ret = -EACCES;
	else if (offset < 0 || (offset & 4095) || !len ||
		 (uint64_t)offset + ((len + 4095) & ~(size_t)4095) >
		     ((buf->size + 4095) & ~4095ull))
		ret = -EINVAL;
	else if (!buf->ops->mmap)
		ret = -EINVAL;
	else
		ret = buf->ops->mmap(buf, hint, len, prot, flags, offset, addr);
	drm_dma_buf_put(buf);
	return ret;
}
