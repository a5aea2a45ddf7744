/* SPDX-License-Identifier: MIT */
/*
 * server_node: the render node's side of the device server (node/README.md,
 * "Device server"): the process that created the device serves it to its
 * forked children; a forked child forwards its device calls there.
 * Called from node_libc.c and node_fd.c.
 */
#ifndef NODE_SERVER_NODE_H
#define NODE_SERVER_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct node_obj;

/**
 * node_server_file_opened() - the creator opened @obj's drm_file: hand it
 * to the server (started on first use) so that forked children can use it.
 * @cloexec: the descriptor is close-on-exec (so is the file's anchor).
 * Without a server (TTM_I915_SERVER=0, or it failed) the file stays the
 * creator's alone and children get EIO.
 */
void node_server_file_opened(struct node_obj *obj, bool cloexec);

/**
 * node_server_obj_release() - the last descriptor of device object @obj
 * is gone in this process. Return: true when the server owns the file (its
 * anchor is closed here; the file closes when no process holds it any
 * more); false: the caller closes the file itself (creator, no server).
 */
bool node_server_obj_release(struct node_obj *obj);

/**
 * node_remote_open() - a forked child opens the device: a new file of the
 * server, its anchor recorded for @obj. Return: 0 or a negative errno.
 */
int node_remote_open(struct node_obj *obj, int minor, bool cloexec);

/**
 * node_remote_ioctl() - a forked child's ioctl on device object @obj.
 * Return: the result or a negative errno (-EIO: no server).
 */
int node_remote_ioctl(struct node_obj *obj, unsigned long request, void *arg);

/**
 * node_remote_fd_ioctl() - a forked child's ioctl on descriptor @fd that may
 * be a sync_file or dma-buf of the device.
 * @not_mine: set when the server says it is neither (the caller passes the
 *	ioctl to the kernel).
 * Return: the result or a negative errno.
 */
int node_remote_fd_ioctl(int fd, unsigned long request, void *arg, bool *not_mine);

/**
 * node_remote_mmap() - a forked child's mmap(2) of device object @obj, or
 * (@obj NULL) of descriptor @dmabuf when it is a dma-buf of the device: a
 * reserved range of this process whose pages fault in from the server and
 * are revoked before TTM moves them (node/server/README.md).
 * Return: 0 with *@out set; -ENODEV when @dmabuf is not a dma-buf of the
 * device (the caller maps it itself); mmap(2)'s errno otherwise.
 */
int node_remote_mmap(struct node_obj *obj, int dmabuf, size_t len, int prot, int flags,
		     off_t offset, void **out);

/**
 * node_remote_munmap() - munmap(2) in a forked child of a span that holds
 * mappings of node_remote_mmap() (or the legacy GEM_MMAP ioctl, or
 * inherited ones): as the kernel's munmap, the parts of a mapping outside
 * [@addr, @addr + @len) stay mapped, those inside are released (at the
 * server with the mapping's last part), and the rest of the span is
 * unmapped too.
 * Return: true with *@ret set (0, or -1 with errno ENOMEM when a mapping
 * could not be split) when the span held one; false (the caller unmaps).
 */
bool node_remote_munmap(void *addr, size_t len, int *ret);

/**
 * node_server_range_added() - the creator recorded a driver mapping
 * (node_range_add()): from now on its forked children take their copies of
 * such mappings over through the server at fork (their pages were the
 * parent's view: they fault back in through the server, revoked before moves).
 */
void node_server_range_added(void);

/** node_remote_active() - this process is a forked child with a server to talk to. */
bool node_remote_active(void);

#endif /* NODE_SERVER_NODE_H */
