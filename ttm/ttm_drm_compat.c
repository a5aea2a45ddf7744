// SPDX-License-Identifier: MIT
/*
 * ttm_drm_compat: the 2008 libdrm TTM wrapper (xf86drm.h, xf86mm.h in
 * ttm/uapi/compat/) over ttm_drm_ioctl(). It lives in its own static
 * library (ttm_compat_dep) because its drm* names would otherwise be pulled
 * into programs that link the real libdrm (the i915 hw back end).
 *
 * Each wrapper fills the request as 2008 libdrm did, retries on -EINTR and
 * -EAGAIN like drmIoctl(), and copies the reply into the client's drmBO or
 * drmFence. Mapping: the address comes from ttm_drm_mmap() instead of
 * mmap() on the device; as in 2008 it is kept after the last drmBOUnmap()
 * and reused by the next drmBOMap().
 */
#include <errno.h>
#include <string.h>

#include <ttm/ttm_drm_device.h>
#include <xf86drm.h>
#include <xf86mm.h>

static int ttm_compat_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ttm_drm_ioctl(fd, request, arg);
	} while (ret == -EINTR || ret == -EAGAIN);
	return ret;
}

int drmOpen(const char *name, const char *busid)
{
	int fd = ttm_drm_open_by_name(name);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

int drmClose(int fd)
{
	int ret = ttm_drm_close(fd);

	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

int drmAvailable(void)
{
	return 1;
}

int drmIoctl(int fd, unsigned long request, void *arg)
{
	int ret = ttm_compat_ioctl(fd, request, arg);

	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

static int ttm_compat_command(int fd, unsigned dir, unsigned long index, void *data,
			      unsigned long size)
{
	if (index >= DRM_COMMAND_END - DRM_COMMAND_BASE || size > 0x3fff)
		return -EINVAL;
	return ttm_compat_ioctl(
	    fd, TTM_DRM_IOC(dir, DRM_IOCTL_BASE, DRM_COMMAND_BASE + index, size), data);
}

int drmCommandNone(int fd, unsigned long drmCommandIndex)
{
	return ttm_compat_command(fd, TTM_DRM_IOC_NONE, drmCommandIndex, NULL, 0);
}

int drmCommandRead(int fd, unsigned long drmCommandIndex, void *data, unsigned long size)
{
	return ttm_compat_command(fd, TTM_DRM_IOC_READ, drmCommandIndex, data, size);
}

int drmCommandWrite(int fd, unsigned long drmCommandIndex, void *data, unsigned long size)
{
	return ttm_compat_command(fd, TTM_DRM_IOC_WRITE, drmCommandIndex, data, size);
}

int drmCommandWriteRead(int fd, unsigned long drmCommandIndex, void *data, unsigned long size)
{
	return ttm_compat_command(fd, TTM_DRM_IOC_READ | TTM_DRM_IOC_WRITE, drmCommandIndex, data,
				  size);
}

/* ---- fences ----------------------------------------------------------- */

static void ttm_compat_fence_copy(const struct drm_fence_arg *arg, drmFence *fence)
{
	fence->handle = arg->handle;
	fence->fence_class = (int)arg->fence_class;
	fence->type = arg->type;
	fence->flags = arg->flags;
	fence->signaled = arg->signaled;
	fence->sequence = arg->sequence;
}

/* Issue the fence request @arg (filled by the caller); on success copy the reply into @fence. */
static int ttm_compat_fence_ioctl(int fd, unsigned long request, struct drm_fence_arg *arg,
				  drmFence *fence)
{
	int ret = ttm_compat_ioctl(fd, request, arg);

	if (!ret)
		ttm_compat_fence_copy(arg, fence);
	return ret;
}

int drmFenceCreate(int fd, unsigned flags, int fence_class, unsigned type, drmFence *fence)
{
	struct drm_fence_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.flags = flags;
	arg.type = type;
	arg.fence_class = (uint32_t)fence_class;
	return ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_CREATE, &arg, fence);
}

int drmFenceReference(int fd, unsigned handle, drmFence *fence)
{
	struct drm_fence_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.handle = handle;
	return ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_REFERENCE, &arg, fence);
}

int drmFenceUnreference(int fd, const drmFence *fence)
{
	struct drm_fence_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.handle = fence->handle;
	return ttm_compat_ioctl(fd, DRM_IOCTL_FENCE_UNREFERENCE, &arg);
}

int drmFenceFlush(int fd, drmFence *fence, unsigned flush_type)
{
	struct drm_fence_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.handle = fence->handle;
	arg.type = flush_type;
	return ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_FLUSH, &arg, fence);
}

int drmFenceSignaled(int fd, drmFence *fence, unsigned fenceType, int *signaled)
{
	struct drm_fence_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.handle = fence->handle;
	ret = ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_SIGNALED, &arg, fence);
	if (ret)
		return ret;
	*signaled = (fence->signaled & fenceType) == fenceType;
	return 0;
}

int drmFenceWait(int fd, unsigned flags, drmFence *fence, unsigned flush_type)
{
	struct drm_fence_arg arg;

	if (!flush_type)
		flush_type = fence->type;
	/* Already known signalled: no request, as 2008. */
	if ((fence->signaled & flush_type) == flush_type)
		return 0;
	memset(&arg, 0, sizeof(arg));
	arg.handle = fence->handle;
	arg.type = flush_type;
	arg.flags = flags;
	return ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_WAIT, &arg, fence);
}

int drmFenceEmit(int fd, unsigned flags, drmFence *fence, unsigned emit_type)
{
	struct drm_fence_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.handle = fence->handle;
	arg.fence_class = (uint32_t)fence->fence_class;
	arg.flags = flags;
	arg.type = emit_type;
	return ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_EMIT, &arg, fence);
}

int drmFenceBuffers(int fd, unsigned flags, uint32_t fence_class, drmFence *fence)
{
	struct drm_fence_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.flags = flags;
	arg.fence_class = fence_class;
	return ttm_compat_fence_ioctl(fd, DRM_IOCTL_FENCE_BUFFERS, &arg, fence);
}

/* ---- buffer objects --------------------------------------------------- */

static void ttm_compat_bo_copy(const struct drm_bo_info_rep *rep, drmBO *buf)
{
	buf->handle = rep->handle;
	buf->flags = rep->flags;
	buf->size = (unsigned long)rep->size;
	buf->offset = (unsigned long)rep->offset;
	buf->mapHandle = rep->arg_handle;
	buf->proposedFlags = rep->proposed_flags;
	buf->start = (unsigned long)rep->buffer_start;
	buf->fenceFlags = rep->fence_flags;
	buf->replyFlags = rep->rep_flags;
	buf->pageAlignment = rep->page_alignment;
	buf->tileInfo = rep->tile_info;
	buf->hwTileStride = rep->hw_tile_stride;
	buf->desiredTileStride = rep->desired_tile_stride;
}

int drmBOCreate(int fd, unsigned long size, unsigned pageAlignment, void *user_buffer,
		uint64_t flags, unsigned hint, drmBO *buf)
{
	struct drm_bo_create_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.flags = flags;
	arg.d.req.hint = hint;
	arg.d.req.size = size;
	arg.d.req.page_alignment = pageAlignment;
	arg.d.req.buffer_start = (uint64_t)(uintptr_t)user_buffer;
	ret = ttm_compat_ioctl(fd, DRM_IOCTL_BO_CREATE, &arg);
	if (ret)
		return ret;
	memset(buf, 0, sizeof(*buf));
	ttm_compat_bo_copy(&arg.d.rep, buf);
	return 0;
}

/* BO_REFERENCE and BO_INFO: @handle in, the buffer's state out in @rep. */
static int ttm_compat_bo_info_ioctl(int fd, unsigned long request, uint32_t handle,
				    struct drm_bo_info_rep *rep)
{
	struct drm_bo_reference_info_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = handle;
	ret = ttm_compat_ioctl(fd, request, &arg);
	if (!ret)
		*rep = arg.d.rep;
	return ret;
}

/* BO_MAP, BO_WAIT_IDLE and BO_SETSTATUS: @arg in, on success the reply copied into @buf. */
static int ttm_compat_bo_reply_ioctl(int fd, unsigned long request,
				     struct drm_bo_map_wait_idle_arg *arg, drmBO *buf)
{
	int ret = ttm_compat_ioctl(fd, request, arg);

	if (!ret)
		ttm_compat_bo_copy(&arg->d.rep, buf);
	return ret;
}

/* BO_UNREFERENCE and BO_UNMAP: @handle in, nothing out. */
static int ttm_compat_bo_handle_ioctl(int fd, unsigned long request, uint32_t handle)
{
	struct drm_bo_handle_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.handle = handle;
	return ttm_compat_ioctl(fd, request, &arg);
}

int drmBOReference(int fd, unsigned handle, drmBO *buf)
{
	struct drm_bo_info_rep rep;
	int ret;

	ret = ttm_compat_bo_info_ioctl(fd, DRM_IOCTL_BO_REFERENCE, handle, &rep);
	if (ret)
		return ret;
	memset(buf, 0, sizeof(*buf));
	ttm_compat_bo_copy(&rep, buf);
	return 0;
}

int drmBOUnreference(int fd, drmBO *buf)
{
	int ret;

	ret = ttm_compat_bo_handle_ioctl(fd, DRM_IOCTL_BO_UNREFERENCE, buf->handle);
	if (!ret)
		buf->handle = 0;
	return ret;
}

int drmBOMap(int fd, drmBO *buf, unsigned mapFlags, unsigned mapHint, void **address)
{
	struct drm_bo_map_wait_idle_arg arg;
	void *virt;
	int ret, err;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = buf->handle;
	arg.d.req.mask = mapFlags;
	arg.d.req.hint = mapHint;
	ret = ttm_compat_bo_reply_ioctl(fd, DRM_IOCTL_BO_MAP, &arg, buf);
	if (ret)
		return ret;
	if (!buf->virtual) {
		virt = ttm_drm_mmap(fd, buf->mapHandle, buf->size, &err);
		if (!virt) {
			ttm_compat_bo_handle_ioctl(fd, DRM_IOCTL_BO_UNMAP, buf->handle);
			return err;
		}
		buf->mapVirtual = virt;
		buf->virtual = virt;
	}
	buf->mapFlags = mapFlags;
	buf->mapCount++;
	*address = buf->virtual;
	return 0;
}

int drmBOUnmap(int fd, drmBO *buf)
{
	int ret;

	ret = ttm_compat_bo_handle_ioctl(fd, DRM_IOCTL_BO_UNMAP, buf->handle);
	if (ret)
		return ret;
	if (buf->mapCount > 0)
		buf->mapCount--;
	return 0;
}

int drmBOInfo(int fd, drmBO *buf)
{
	struct drm_bo_info_rep rep;
	int ret;

	ret = ttm_compat_bo_info_ioctl(fd, DRM_IOCTL_BO_INFO, buf->handle, &rep);
	if (!ret)
		ttm_compat_bo_copy(&rep, buf);
	return ret;
}

int drmBOBusy(int fd, drmBO *buf, int *busy)
{
	int ret = drmBOInfo(fd, buf);

	if (ret)
		return ret;
	*busy = !!(buf->replyFlags & DRM_BO_REP_BUSY);
	return 0;
}

int drmBOWaitIdle(int fd, drmBO *buf, unsigned hint)
{
	struct drm_bo_map_wait_idle_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = buf->handle;
	arg.d.req.hint = hint;
	return ttm_compat_bo_reply_ioctl(fd, DRM_IOCTL_BO_WAIT_IDLE, &arg, buf);
}

int drmBOSetStatus(int fd, drmBO *buf, uint64_t flags, uint64_t mask, unsigned int hint,
		   unsigned int desired_tile_stride, unsigned int tile_info)
{
	struct drm_bo_map_wait_idle_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = buf->handle;
	arg.d.req.flags = flags;
	arg.d.req.mask = mask;
	arg.d.req.hint = hint;
	arg.d.req.desired_tile_stride = desired_tile_stride;
	arg.d.req.tile_info = tile_info;
	return ttm_compat_bo_reply_ioctl(fd, DRM_IOCTL_BO_SETSTATUS, &arg, buf);
}

int drmBOVersion(int fd, unsigned int *major, unsigned int *minor, unsigned int *patchlevel)
{
	struct drm_bo_version_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	ret = ttm_compat_ioctl(fd, DRM_IOCTL_BO_VERSION, &arg);
	if (ret)
		return ret;
	*major = arg.major;
	*minor = arg.minor;
	*patchlevel = arg.patchlevel;
	return 0;
}

/* ---- memory managers -------------------------------------------------- */

int drmMMInit(int fd, unsigned long pOffset, unsigned long pSize, unsigned memType)
{
	struct drm_mm_init_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.magic = DRM_BO_INIT_MAGIC;
	arg.major = DRM_BO_INIT_MAJOR;
	arg.minor = DRM_BO_INIT_MINOR;
	arg.p_offset = pOffset;
	arg.p_size = pSize;
	arg.mem_type = memType;
	return ttm_compat_ioctl(fd, DRM_IOCTL_MM_INIT, &arg);
}

/* MM_TAKEDOWN, MM_LOCK and MM_UNLOCK: a memory type and lock flags in, nothing out. */
static int ttm_compat_mm_type_ioctl(int fd, unsigned long request, unsigned memType,
				    uint32_t lock_flags)
{
	struct drm_mm_type_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.mem_type = memType;
	arg.lock_flags = lock_flags;
	return ttm_compat_ioctl(fd, request, &arg);
}

int drmMMTakedown(int fd, unsigned memType)
{
	return ttm_compat_mm_type_ioctl(fd, DRM_IOCTL_MM_TAKEDOWN, memType, 0);
}

int drmMMLock(int fd, unsigned memType, int lockBM, int ignoreNoEvict)
{
	return ttm_compat_mm_type_ioctl(fd, DRM_IOCTL_MM_LOCK, memType,
					(lockBM ? DRM_BO_LOCK_UNLOCK_BM : 0) |
					    (ignoreNoEvict ? DRM_BO_LOCK_IGNORE_NO_EVICT : 0));
}

int drmMMUnlock(int fd, unsigned memType, int unlockBM)
{
	return ttm_compat_mm_type_ioctl(fd, DRM_IOCTL_MM_UNLOCK, memType,
					unlockBM ? DRM_BO_LOCK_UNLOCK_BM : 0);
}

int drmMMInfo(int fd, unsigned memType, uint64_t *size)
{
	struct drm_mm_info_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.mem_type = memType;
	ret = ttm_compat_ioctl(fd, DRM_IOCTL_MM_INFO, &arg);
	if (!ret)
		*size = arg.p_size;
	return ret;
}
