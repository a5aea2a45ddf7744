/* SPDX-License-Identifier: MIT */
/*
 * dma_buf: a TTM buffer object shared as a file descriptor (PRIME), the
 * kernel's drivers/dma-buf/dma-buf.c for one process.
 *
 * The descriptor is a memfd of the buffer's size (see drmcore/drm_fd.h):
 * lseek(fd, 0, SEEK_END) returns the size, fstat() identifies the buffer
 * (two exports of one BO give descriptors with equal st_dev/st_ino, as the
 * kernel's give the same file), dup()ed and inherited descriptors resolve.
 * Its contents are NOT the buffer's: CPU access goes through
 * drm_dma_buf_mmap() (the render node routes mmap(2) of the descriptor
 * there), which asks the exporter.
 *
 * Lifetime: the dma-buf holds one reference on its BO (ttm_bo_get()) from
 * export until the last descriptor is closed and no mapping of the
 * descriptor remains (drm_fd_close() / drm_fd_gc()), and for as long as
 * anyone holds a reference from drm_dma_buf_get() (importers keep one per
 * imported handle, as the kernel's prime table does). One BO has at most
 * one live dma-buf: exporting it again returns a new descriptor of the
 * same dma-buf.
 *
 * poll(2) on the memfd always reports ready; a poll() interposer asks
 * drm_dma_buf_poll() for the kernel's implicit-fence semantics.
 */
#ifndef DRMCORE_DMA_BUF_H
#define DRMCORE_DMA_BUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ttm_buffer_object;
struct drm_dma_buf;

/**
 * struct drm_dma_buf_ops - what the exporter provides.
 * @release: optional; called once when the dma-buf goes, before its BO
 *	reference is dropped (drop what @priv holds).
 * @mmap: optional; map @len bytes at byte offset @offset of the buffer
 *	(mmap(2) semantics: @prot, @flags, @hint). Return 0 with *@addr set,
 *	or a negative errno. Without it drm_dma_buf_mmap() is -EINVAL, as
 *	the kernel's dma_buf_mmap_internal() without an mmap op.
 */
struct drm_dma_buf_ops {
	void (*release)(struct drm_dma_buf *buf);
	int (*mmap)(struct drm_dma_buf *buf, void *hint, size_t len, int prot, int flags,
		    off_t offset, void **addr);
};

/**
 * struct drm_dma_buf - an exported buffer.
 * @bo: the buffer (one reference held).
 * @size: bytes, @bo->size.
 * @ops: the exporter's ops (never NULL).
 * @priv: the exporter's pointer (the GEM object for i915).
 * @name: DMA_BUF_SET_NAME's name (NUL-terminated), "" by default;
 *	protected by the dma-buf's internal lock.
 */
struct drm_dma_buf {
	struct ttm_buffer_object *bo;
	uint64_t size;
	const struct drm_dma_buf_ops *ops;
	void *priv;
	char name[32];
};

/**
 * drm_dma_buf_export() - a descriptor for @bo's dma-buf, created on first
 * export (@ops and @priv are recorded then; a later export of the same
 * live BO returns a new descriptor of the existing dma-buf and ignores
 * them).
 * @flags: O_CLOEXEC and O_RDWR (DRM_CLOEXEC, DRM_RDWR); without O_RDWR the
 *	descriptor is read-only (mmap with PROT_WRITE fails with EACCES).
 * @fd: the new descriptor.
 * @out: optional; the dma-buf (no reference is added for it).
 * Return: 0; -EINVAL (NULL @bo, other flags); -ENOMEM (fault point
 * "dma_buf_alloc"); -EMFILE/-ENFILE.
 */
int drm_dma_buf_export(struct ttm_buffer_object *bo, const struct drm_dma_buf_ops *ops, void *priv,
		       int flags, int *fd, struct drm_dma_buf **out);

/**
 * drm_dma_buf_get() - the dma-buf @fd refers to, with a new reference, as
 * the kernel's dma_buf_get().
 * Return: 0; -EBADF (@fd is not an open descriptor); -EINVAL (not a
 * dma-buf).
 */
int drm_dma_buf_get(int fd, struct drm_dma_buf **out);

/** drm_dma_buf_ref() - take another reference on @buf. */
void drm_dma_buf_ref(struct drm_dma_buf *buf);

/** drm_dma_buf_put() - drop a reference; the last releases the dma-buf. */
void drm_dma_buf_put(struct drm_dma_buf *buf);

/**
 * drm_dma_buf_lookup_bo() - the live dma-buf exported from @bo, with a
 * new reference, or NULL (the kernel's obj->dma_buf).
 */
struct drm_dma_buf *drm_dma_buf_lookup_bo(struct ttm_buffer_object *bo);

/**
 * drm_dma_buf_fd() - a new descriptor for @buf (as the kernel's
 * dma_buf_fd()), the descriptor set keeping the dma-buf alive as before.
 * @flags: O_CLOEXEC | O_RDWR as for drm_dma_buf_export().
 * Return: 0 with *@fd; -EINVAL; -EMFILE.
 */
int drm_dma_buf_fd(struct drm_dma_buf *buf, int flags, int *fd);

/**
 * drm_dma_buf_poll() - poll(2) of dma-buf descriptor @fd for @events:
 * POLLIN when no write (exclusive) fence is pending, POLLOUT when no fence
 * at all is pending on the BO's reservation, as the kernel's dma_buf_poll().
 * Return: 0 with *@revents set (never blocks); -ENOTTY when @fd is not a
 * dma-buf.
 */
int drm_dma_buf_poll(int fd, short events, short *revents);

/**
 * drm_dma_buf_ioctl() - ioctl(2) on dma-buf descriptor @fd:
 * DMA_BUF_IOCTL_SYNC, DMA_BUF_SET_NAME(_A/_B), DMA_BUF_IOCTL_EXPORT_SYNC_FILE,
 * DMA_BUF_IOCTL_IMPORT_SYNC_FILE, @arg a user pointer.
 * Return: 0; -ENOTTY (not a dma-buf, unknown request); the kernel's errno
 * (-EINVAL bad flags, -EFAULT, -ENOMEM).
 */
int drm_dma_buf_ioctl(int fd, unsigned long req, void *arg);

/**
 * drm_dma_buf_mmap() - mmap(2) of @len bytes at @offset of dma-buf @fd.
 * Return: 0 with *@addr; -ENOTTY (not a dma-buf); -EINVAL (offset/length
 * beyond the buffer, no mmap op); -EACCES (PROT_WRITE with MAP_SHARED on a
 * descriptor opened without O_RDWR); the exporter's errors.
 */
int drm_dma_buf_mmap(int fd, void *hint, size_t len, int prot, int flags, off_t offset,
		     void **addr);

#endif /* DRMCORE_DMA_BUF_H */
