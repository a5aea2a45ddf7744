/* SPDX-License-Identifier: MIT */
/*
 * server_wire: the device server's wire protocol (see node/README.md,
 * "Device server").
 *
 * Transport: a SOCK_SEQPACKET Unix socket, one request and one reply a
 * packet, descriptors as SCM_RIGHTS. A connection serves one client thread
 * at a time: the client sends a request and waits for its reply. The
 * server knows the client's pid from SO_PEERCRED and performs every user
 * copy of a forwarded ioctl in the client's address space
 * (process_vm_readv/writev), so arguments are never marshalled: a request
 * carries the file, the ioctl number and the client's pointer.
 *
 * Files. A drm_file of the server is named by its anchor: one end of a
 * socket pair the server made at open, handed to the client. The anchor
 * is an ordinary descriptor, so dup(), fork() and SCM_RIGHTS share it as
 * the kernel shares a struct file; the server closes the drm_file when the
 * last copy of the anchor is closed in every process (the other end then
 * polls POLLHUP). A connection uses a file only after ATTACH proved it
 * holds the anchor (the descriptor rides along and its inode must be the
 * file's id), so a client can never name another client's file.
 *
 * Descriptors inside ioctl arguments (PRIME, syncobj, fence in/out, sync_file
 * merge) are numbers in the client's table: srv_fd_fields() says where
 * they are; an input descriptor rides with the request and the server
 * substitutes its own number for the call, an output descriptor rides with
 * the reply and the client stores its own number at @fd_off.
 */
#ifndef NODE_SERVER_WIRE_H
#define NODE_SERVER_WIRE_H

#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <drm.h>
#include <i915_drm.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#define SRV_MAGIC 0x53544d54u /* "TMTS" */
#define SRV_MAX_FDS 2

/**
 * enum srv_op - what a request asks.
 * @SRV_OP_OPEN: open a new drm_file (@request: the minor, 0 or 128); the
 *	reply carries the anchor and @file its id; the connection is attached.
 * @SRV_OP_ATTACH: use file @file on this connection; the anchor rides along.
 * @SRV_OP_IOCTL: ioctl(@request, @arg) on attached file @file; an input
 *	descriptor (srv_fd_fields()) rides along when @flags has SRV_REQ_FD.
 * @SRV_OP_FD_IOCTL: ioctl(@request, @arg) on a sync_file or dma-buf: that
 *	descriptor rides first, an input descriptor of the argument second.
 *	SRV_REP_NOT_MINE in the reply: it is neither (the client's own).
 * @SRV_OP_STATS: counters (struct srv_stats in the reply's @stats).
 * @SRV_OP_MM: this connection becomes the calling process's mapping channel:
 *	the server sends SRV_OP_REVOKE requests on it and reads one reply to
 *	each. Once per process, before its first mapping; the process's mappings
 *	are released when the channel closes (exit, exec, death).
 * @SRV_OP_MMAP: mmap(2) of @arg bytes (a page multiple) at offset @request of
 *	attached file @file, or of the dma-buf riding along (@flags SRV_REQ_FD;
 *	SRV_REP_NOT_MINE: it is not one); @aux the prot. The reply's @map
 *	names the new mapping of the calling process.
 * @SRV_OP_FAULT: a CPU access to byte @arg (page aligned) of mapping @file:
 *	the object's fault path runs (placement, migration, waits) and the
 *	reply says where the page lives: @map_pages pages from @map_off of the
 *	memfd whose inode is @map_ino (the memfd rides along, SRV_REP_MEMFD,
 *	the first time a connection is told of it). The client installs them
 *	only if no revocation newer than @map_rev reached it (else it asks again).
 * @SRV_OP_MUNMAP: the process unmapped mapping @file.
 * @SRV_OP_REVOKE: server to client, on the mapping channel: drop every page
 *	of mapping @file (back to reserved), revocation number @arg; the client
 *	answers with a reply whose @map is @file once it is done.
 * @SRV_OP_ADOPT: a fork descendant of the server's process takes over its copy of
 *	the server's mapping at address @arg (@request bytes): a mapping of the
 *	calling process (@map in the reply) over the server's own view, which
 *	keeps the object (-EPERM for any other client).
 * @SRV_OP_CLOSE: the client closed its copy of file @file's anchor: when that
 *	was the last copy anywhere, the file is released before the reply (as
 *	close(2) of a drm_file's last descriptor releases it before it returns).
 */
enum srv_op {
	SRV_OP_OPEN = 1,
	SRV_OP_ATTACH,
	SRV_OP_IOCTL,
	SRV_OP_FD_IOCTL,
	SRV_OP_STATS,
	SRV_OP_MM,
	SRV_OP_MMAP,
	SRV_OP_FAULT,
	SRV_OP_MUNMAP,
	SRV_OP_REVOKE,
	SRV_OP_ADOPT,
	SRV_OP_CLOSE,
	SRV_OP_MAX,
};

#define SRV_REQ_FD (1u << 0)	   /* an input descriptor rides along */
#define SRV_REP_FD (1u << 0)	   /* an output descriptor rides along, store at @fd_off */
#define SRV_REP_ANCHOR (1u << 1)   /* the descriptor is a new file's anchor */
#define SRV_REP_NOT_MINE (1u << 2) /* FD_IOCTL, MMAP: not a sync_file nor a dma-buf */
#define SRV_REP_MAP (1u << 3)	   /* IOCTL (legacy GEM_MMAP): @map names the mapping */
#define SRV_REP_MEMFD (1u << 4)	   /* FAULT: the memfd @map_ino rides along */

/** struct srv_req - one request (fixed size). */
struct srv_req {
	uint32_t magic;
	uint32_t op;
	uint64_t file;
	uint64_t request;
	uint64_t arg;
	uint32_t flags;
	uint32_t aux;
};

/**
 * struct srv_stats - the server's counts (SRV_OP_STATS), for leak checks.
 * @files: drm_files open; @conns: connections; @calls: requests served;
 * @held_fds: descriptors the server keeps for clients (exported dma-bufs);
 * @objects: GEM objects alive on the device (-1: unknown);
 * @maps: client CPU mappings (SRV_OP_MMAP, legacy GEM_MMAP) not released;
 * @revokes: revocations clients answered (pages taken back before a move).
 */
struct srv_stats {
	uint64_t files;
	uint64_t conns;
	uint64_t calls;
	uint64_t held_fds;
	int64_t objects;
	uint64_t maps;
	uint64_t revokes;
};

/**
 * struct srv_rep - one reply (fixed size). @ret: >= 0 or a negative errno.
 * @map, @map_off, @map_ino, @map_rev, @map_pages: see SRV_OP_MMAP and
 * SRV_OP_FAULT.
 */
struct srv_rep {
	uint32_t magic;
	int32_t ret;
	uint64_t file;
	uint32_t flags;
	uint32_t fd_off;
	struct srv_stats stats;
	uint64_t map;
	uint64_t map_off;
	uint64_t map_ino;
	uint64_t map_rev;
	uint64_t map_pages;
};

/**
 * srv_fd_request() - whether @request's argument may hold descriptor numbers
 * (srv_fd_fields() needs its first bytes); other requests skip reading them.
 */
static inline int srv_fd_request(unsigned long request)
{
	switch (request) {
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
	case DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE:
	case DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD:
	case DRM_IOCTL_I915_GEM_EXECBUFFER2:
	case DRM_IOCTL_I915_GEM_EXECBUFFER2_WR:
	case SYNC_IOC_MERGE:
	case DMA_BUF_IOCTL_EXPORT_SYNC_FILE:
	case DMA_BUF_IOCTL_IMPORT_SYNC_FILE:
		return 1;
	default:
		return 0;
	}
}

/* Bytes of an ioctl argument srv_fd_fields() looks at. */
#define SRV_FD_HEAD 64

/**
 * srv_fd_fields() - where descriptor numbers are in the argument of
 * @request, given its first @n bytes in @head (the caller read them from
 * the argument; fewer than asked when it is short or unreadable).
 * @in_off: byte offset of an input descriptor (int32), or -1.
 * @out_off: byte offset of an output descriptor the call stores, or -1.
 */
static inline void srv_fd_fields(unsigned long request, const void *head, size_t n, int *in_off,
				 int *out_off)
{
	*in_off = -1;
	*out_off = -1;
	switch (request) {
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
		*in_off = (int)offsetof(struct drm_prime_handle, fd);
		break;
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
		*out_off = (int)offsetof(struct drm_prime_handle, fd);
		break;
	case DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE:
		*in_off = (int)offsetof(struct drm_syncobj_handle, fd);
		break;
	case DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD:
		*out_off = (int)offsetof(struct drm_syncobj_handle, fd);
		break;
	case DRM_IOCTL_I915_GEM_EXECBUFFER2:
	case DRM_IOCTL_I915_GEM_EXECBUFFER2_WR: {
		uint64_t flags;

		if (n < offsetof(struct drm_i915_gem_execbuffer2, rsvd1))
			break;
		memcpy(&flags,
		       (const char *)head + offsetof(struct drm_i915_gem_execbuffer2, flags),
		       sizeof(flags));
		/* rsvd2: the input fence in the low half, the output in the high. */
		if (flags & (I915_EXEC_FENCE_IN | I915_EXEC_FENCE_SUBMIT))
			*in_off = (int)offsetof(struct drm_i915_gem_execbuffer2, rsvd2);
		if ((flags & I915_EXEC_FENCE_OUT) && request == DRM_IOCTL_I915_GEM_EXECBUFFER2_WR)
			*out_off = (int)offsetof(struct drm_i915_gem_execbuffer2, rsvd2) + 4;
		break;
	}
	case SYNC_IOC_MERGE:
		*in_off = (int)offsetof(struct sync_merge_data, fd2);
		*out_off = (int)offsetof(struct sync_merge_data, fence);
		break;
	case DMA_BUF_IOCTL_EXPORT_SYNC_FILE:
		*out_off = (int)offsetof(struct dma_buf_export_sync_file, fd);
		break;
	case DMA_BUF_IOCTL_IMPORT_SYNC_FILE:
		*in_off = (int)offsetof(struct dma_buf_import_sync_file, fd);
		break;
	default:
		break;
	}
}

/* ---- server_client.c: the client side, shared by the node and tests ---- */

/**
 * srv_connect() - a new connection to the server listening at @path.
 * Return: the descriptor (close-on-exec), or a negative errno.
 */
int srv_connect(const char *path);

/**
 * srv_call() - send @req with @nfds descriptors @fds and wait for the reply.
 * @fd_out: set to the descriptor riding with the reply, or -1.
 * @cloexec: the received descriptor is close-on-exec.
 * Return: 0 with *@rep filled; -EIO when the server is gone or answered
 * something that is not a reply (the caller fails the call with EIO).
 */
int srv_call(int conn, const struct srv_req *req, const int *fds, int nfds, struct srv_rep *rep,
	     int *fd_out, int cloexec);

/**
 * srv_read_self() - read up to @n bytes at @addr of our own memory without
 * faulting. Return: the bytes read (0 when unreadable).
 */
size_t srv_read_self(void *dst, const void *addr, size_t n);

/** srv_write_self() - write @n bytes at @addr without faulting. Return: bytes written. */
size_t srv_write_self(void *addr, const void *src, size_t n);

/**
 * srv_client_ioctl() - a forwarded ioctl on file @file (attached on @conn):
 * reads the argument's descriptor fields, sends an input descriptor along and
 * stores an output descriptor's number. @fd_ioctl: @target is the sync_file
 * or dma-buf the ioctl is on (SRV_OP_FD_IOCTL), else -1.
 * @not_mine: for FD_IOCTL, set when the server says @target is not its.
 * Return: the ioctl's result or a negative errno (-EIO: server gone).
 */
int srv_client_ioctl(int conn, uint64_t file, int target, unsigned long request, void *arg,
		     int *not_mine);

/**
 * srv_client_gem_rw() - DRM_IOCTL_I915_GEM_PWRITE or _PREAD of @size bytes
 * at offset 0 of object @handle on file @file (attached on @conn).
 * @conn: the connection.
 * @file: the file's id.
 * @handle: the object's handle on that file.
 * @buf: the client's bytes (read from for a write, written to for a read).
 * @size: how many.
 * @write: PWRITE when true, else PREAD.
 * Return: as srv_client_ioctl().
 */
int srv_client_gem_rw(int conn, uint64_t file, uint32_t handle, void *buf, uint64_t size,
		      bool write);

/**
 * srv_client_gem_mmap() - the legacy DRM_IOCTL_I915_GEM_MMAP on file @file:
 * the server maps the object in its own address space (@arg's addr_ptr is
 * then the server's address) and names the client's mapping of it.
 * Return: 0 with *@map set; a negative errno.
 */
int srv_client_gem_mmap(int conn, uint64_t file, void *arg, uint64_t *map);

/**
 * srv_client_open() - SRV_OP_OPEN on @conn: a new file through @minor.
 * Return: 0 with *@anchor and *@file set; a negative errno.
 */
int srv_client_open(int conn, int minor, int cloexec, int *anchor, uint64_t *file);

/** srv_client_attach() - SRV_OP_ATTACH @file with its @anchor. Return: 0 or -errno. */
int srv_client_attach(int conn, uint64_t file, int anchor);

/** srv_client_stats() - SRV_OP_STATS. Return: 0 or -errno. */
int srv_client_stats(int conn, struct srv_stats *st);

/**
 * srv_client_mm() - SRV_OP_MM: @conn becomes this process's mapping channel
 * (the caller then serves SRV_OP_REVOKE on it, srv_client_revoke_serve()).
 * Return: 0 or a negative errno.
 */
int srv_client_mm(int conn);

/**
 * srv_client_mmap() - SRV_OP_MMAP of @len bytes (a page multiple) at
 * @offset, of attached file @file or (@dmabuf >= 0) of that dma-buf.
 * @not_mine: set when @dmabuf is not one of the server's dma-bufs.
 * Return: 0 with *@map set; a negative errno (mmap(2)'s).
 */
int srv_client_mmap(int conn, uint64_t file, int dmabuf, uint64_t offset, uint64_t len, int prot,
		    uint64_t *map, int *not_mine);

/**
 * srv_client_fault() - SRV_OP_FAULT at byte @off of mapping @map.
 * @memfd: set to the memfd riding along, or -1 (the caller caches it by
 *	@rep->map_ino).
 * Return: 0 with *@rep filled; a negative errno (the access is SIGBUS).
 */
int srv_client_fault(int conn, uint64_t map, uint64_t off, struct srv_rep *rep, int *memfd);

/**
 * srv_client_fault_timed() - srv_client_fault() waiting at most
 * @timeout_ms for the answer (the fault may wait for the GPU).
 * @conn: the connection; unusable after -ETIMEDOUT (close it: the
 *	answer would come later).
 * @map: the mapping's id.
 * @off: byte offset of the page in the mapping.
 * @rep: the reply.
 * @memfd: as srv_client_fault().
 * @timeout_ms: the bound; -1 for none.
 * Return: as srv_client_fault(); -ETIMEDOUT.
 */
int srv_client_fault_timed(int conn, uint64_t map, uint64_t off, struct srv_rep *rep, int *memfd,
			   int timeout_ms);

/** srv_client_munmap() - SRV_OP_MUNMAP of @map. Return: 0 or -errno. */
int srv_client_munmap(int conn, uint64_t map);

/** srv_client_close() - SRV_OP_CLOSE of file @file. Return: 0 or -errno. */
int srv_client_close(int conn, uint64_t file);

/** srv_client_adopt() - SRV_OP_ADOPT of [@addr, @addr + @len). Return: 0 with *@map; -errno. */
int srv_client_adopt(int conn, uint64_t addr, uint64_t len, uint64_t *map);

/**
 * srv_client_revoke_serve() - serve revocations on mapping channel @conn
 * until it closes: for each, @revoke(@map, @rev, @ctx) drops the mapping's
 * pages, then the server is answered. Return: when the channel closed.
 */
void srv_client_revoke_serve(int conn, void (*revoke)(uint64_t map, uint64_t rev, void *ctx),
			     void *ctx);

#endif /* NODE_SERVER_WIRE_H */
