/* SPDX-License-Identifier: MIT */
/*
 * sync_file: a dma_fence as a file descriptor (the kernel's
 * drivers/dma-buf/sync_file.c), the explicit-fencing currency of
 * execbuffer out-fences, syncobj export and SYNC_IOC_MERGE.
 *
 * The descriptor is the read end of a pipe (see drmcore/drm_fd.h): poll(2),
 * select(2) and epoll report POLLIN once the fence has signalled, natively;
 * dup()ed and fork-inherited descriptors name the same sync_file. The
 * sync_file holds one reference on its fence until the last descriptor is
 * closed (drm_fd_close() / drm_fd_gc()).
 *
 * Do not read(2) the descriptor: a byte is consumed and POLLIN lost (the
 * kernel's sync_file has no read either; interposers should refuse it).
 */
#ifndef DRMCORE_SYNC_FILE_H
#define DRMCORE_SYNC_FILE_H

#include <ttm/dma_fence.h>

/**
 * drm_sync_file_create() - a new sync_file on @fence (a reference is taken)
 * and a descriptor for it.
 * @flags: O_CLOEXEC or 0 (the kernel's callers pass O_CLOEXEC).
 * @fd: the new descriptor.
 * Return: 0; -EINVAL (NULL fence, other flags); -ENOMEM (fault point
 * "sync_file_alloc"); -EMFILE/-ENFILE.
 */
int drm_sync_file_create(struct dma_fence *fence, int flags, int *fd);

/**
 * drm_sync_file_get_fence() - the fence of the sync_file @fd refers to,
 * with a new reference, as the kernel's sync_file_get_fence().
 * Return: the fence; NULL when @fd is not a sync_file (callers report
 * -EINVAL, as the kernel's do).
 */
struct dma_fence *drm_sync_file_get_fence(int fd);

/**
 * drm_sync_file_ioctl() - an ioctl(2) on descriptor @fd: SYNC_IOC_MERGE,
 * SYNC_IOC_FILE_INFO (and SYNC_IOC_SET_DEADLINE where <linux/sync_file.h>
 * has it), @arg a user pointer read and written through drm_user.h.
 * Return: 0; -ENOTTY when @fd is not a sync_file or @req is unknown; the
 * kernel's errno otherwise (-EFAULT, -EINVAL for flags/pad, -ENOENT when
 * merge's fd2 is not a sync_file, -ENOMEM).
 */
int drm_sync_file_ioctl(int fd, unsigned long req, void *arg);

#endif /* DRMCORE_SYNC_FILE_H */
