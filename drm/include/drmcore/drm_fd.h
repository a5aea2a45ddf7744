/* SPDX-License-Identifier: MIT */
/*
 * drm_fd: kernel objects behind real file descriptors of this process
 * (sync_file, syncobj file, dma-buf), the userspace stand-in for
 * anon_inode files.
 *
 * Identity. Every object owns one file of its own, and any descriptor of
 * that file (the one we returned, a dup() of it, one inherited across
 * fork(), one reopened through /proc/self/fd) names the object: a lookup
 * fstat()s the descriptor and finds the object by (st_dev, st_ino) in a
 * process-wide table. The table is global because descriptors are.
 *  - sync_file and syncobj files are pipes. We keep the write end
 *    (O_CLOEXEC, O_NONBLOCK, never handed out); the caller gets the read
 *    end. A sync_file's fence callback writes one byte into the pipe, so
 *    poll(2)/select/epoll on the caller's descriptor report POLLIN exactly
 *    when the fence has signalled, natively, with no interposition. A
 *    syncobj file is never written (the kernel's has no poll either).
 *  - dma-bufs are memfds sized as the buffer, so lseek(fd, 0, SEEK_END)
 *    gives the size as the kernel's dma-buf does; we keep one descriptor
 *    of our own.
 * Because we keep a descriptor of every live object's file, its inode
 * cannot be freed and reused while the object is in the table, so a
 * (st_dev, st_ino) pair never names the wrong object.
 *
 * Lifetime. The kernel releases the object when the last descriptor is
 * closed; close(2) of a plain descriptor cannot be observed without
 * interposition, so liveness is checked instead:
 *  - pipes: our write end polls POLLERR once no read end is open anywhere
 *    (this process or a child holding an inherited copy): exact and cheap;
 *  - memfds: no descriptor of this process other than ours refers to the
 *    inode (a scan of /proc/self/fd) and no mapping of it exists (a scan of
 *    /proc/self/maps), as an mmap()ed dma-buf keeps its buffer alive.
 *    This is a snapshot: a descriptor dup()ed from one that is closed
 *    while the scan runs can be missed (the kernel counts exactly); call
 *    drm_fd_close() from the close() interposer to keep scans at closes.
 * drm_fd_close() is the hook for a close(2) interposer (the render node);
 * drm_fd_gc() sweeps every object; every 64th creation wakes a reaper
 * thread (started on first need, signals blocked) that sweeps, so programs
 * without the hook do not leak without bound. Releases therefore run on
 * the closing thread, a drm_fd_gc() caller or the reaper.

 *
 * Cost: two descriptors per sync_file or syncobj file (ours + the
 * caller's), two per dma-buf; descriptors count against RLIMIT_NOFILE.
 */
#ifndef DRMCORE_DRM_FD_H
#define DRMCORE_DRM_FD_H

#include <stdbool.h>

/**
 * enum drm_fd_kind - what a descriptor is.
 * @DRM_FD_NONE: not one of ours (or not a descriptor).
 * @DRM_FD_SYNC_FILE: a sync_file (drmcore/sync_file.h).
 * @DRM_FD_SYNCOBJ: a syncobj file (DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD).
 * @DRM_FD_DMA_BUF: a dma-buf (drmcore/dma_buf.h).
 * @DRM_FD_SW_SYNC: a sw_sync timeline (drmcore/sw_sync.h).
 */
enum drm_fd_kind {
	DRM_FD_NONE,
	DRM_FD_SYNC_FILE,
	DRM_FD_SYNCOBJ,
	DRM_FD_DMA_BUF,
	DRM_FD_SW_SYNC,
};

/** drm_fd_kind() - the kind of object @fd refers to. */
enum drm_fd_kind drm_fd_kind(int fd);

/**
 * drm_fd_close() - close(2) @fd, then release the object behind it when
 * that was its last descriptor. For a close() interposer: call it instead
 * of the real close for every descriptor (it closes non-objects too).
 * Return: close(2)'s result (0, or -1 with errno set).
 * @close_fn: the real close (the interposer's next symbol); NULL: close(2).
 */
int drm_fd_close(int fd, int (*close_fn)(int));

/**
 * drm_fd_gc() - release every object no descriptor or mapping refers to
 * any more. Returns once they are released, including any a concurrent
 * sweep had claimed. Return: the number released.
 */
unsigned drm_fd_gc(void);

/**
 * drm_fd_live_count() - objects in the table (leak checks in tests; an
 * interposer's cheap "are there any" test: one atomic load, no lock).
 */
unsigned drm_fd_live_count(void);

#endif /* DRMCORE_DRM_FD_H */
