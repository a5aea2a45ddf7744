/* SPDX-License-Identifier: MIT */
/*
 * server: the device server core. It owns nothing but the wire: the device
 * (struct i915_device) belongs to its host, which is either the standalone
 * ttm-i915-server program or the render node in the process that created
 * the device (for its forked children). See node/README.md.
 */
#ifndef NODE_SERVER_H
#define NODE_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <i915/i915_gem_uapi.h>

#include "server_wire.h"

struct srv;

/**
 * struct srv_hooks - what the host lets the server do around driver calls.
 * @call_begin: before every call into the driver; false refuses it
 *	(the device is going: the request fails with -EIO).
 * @call_end: after it.
 * @thread_init: first thing on every thread the server starts.
 * @file_opened: a drm_file was opened for a client (SRV_OP_OPEN).
 * @file_closed: a drm_file's last anchor is gone and it was closed.
 * @ctx: their argument.
 */
struct srv_hooks {
	bool (*call_begin)(void *ctx);
	void (*call_end)(void *ctx);
	void (*thread_init)(void *ctx);
	void (*file_opened)(void *ctx);
	void (*file_closed)(void *ctx);
	void *ctx;
};

/**
 * srv_socket_dir() - the per-user directory of server sockets:
 * $XDG_RUNTIME_DIR/ttm-i915 when that is set, else /tmp/ttm-i915-<uid>;
 * made with mode 0700 and refused (-EPERM) when it exists but is not ours or
 * is open to others. @buf of @len bytes receives it.
 * Return: 0 or a negative errno.
 */
int srv_socket_dir(char *buf, size_t len);

/**
 * srv_create() - serve @i915 on a new socket at @path (an existing socket
 * file there is replaced). Threads: one accepting, one per connection, one
 * watching anchors. Signals are blocked on all of them.
 * Return: 0 with *@out set, or a negative errno.
 */
int srv_create(struct i915_device *i915, const char *path, const struct srv_hooks *hooks,
	       struct srv **out);

/**
 * srv_destroy() - stop accepting, end every connection and close every file
 * the server still holds (their anchors are then dead ends). For a host that
 * is about to destroy the device.
 */
void srv_destroy(struct srv *s);

/** srv_path() - the socket path @s listens on. */
const char *srv_path(const struct srv *s);

/**
 * srv_file_add() - hand the host's open @file to the server: from now on
 * the file lives while any copy of *@anchor is open in any process (and
 * while calls on it run); the host keeps *@anchor beside its descriptor.
 * Return: 0 with *@anchor (close-on-exec when @cloexec) and *@id set;
 * a negative errno (the host keeps the file to itself then).
 */
int srv_file_add(struct srv *s, struct i915_gem_file *file, bool cloexec, int *anchor,
		 uint64_t *id);

/**
 * srv_file_put() - the host closed its copy of file @id's anchor: when no
 * other copy remains the file is closed now, on the caller's thread (as
 * close(2) of the last descriptor releases a drm_file before it returns).
 */
void srv_file_put(struct srv *s, uint64_t id);

/** srv_get_stats() - the counts SRV_OP_STATS answers. */
void srv_get_stats(struct srv *s, struct srv_stats *st);

/**
 * srv_serve_fd() - serve one connection @fd on the calling thread until it
 * closes, as for a client of pid @pid (tests and the fuzz target: a socket
 * pair instead of an accepted connection). The fd is closed on return.
 */
void srv_serve_fd(struct srv *s, int fd, pid_t pid);

#endif /* NODE_SERVER_H */
