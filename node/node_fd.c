// SPDX-License-Identifier: MIT
/*
 * The descriptor table: for every descriptor the node handed out, the
 * object it refers to. Descriptors are real (the kernel numbers them, so
 * dup(), fork() and exec() behave); the table adds what the kernel would
 * keep in struct file: which drm_file a descriptor is, so that a file
 * lives until its last descriptor is closed.
 *
 * The table is two-level (NODE_FD_CHUNK entries per chunk, chunks made on
 * first use and never freed), so a lookup of an untracked descriptor is
 * two loads and no lock. Installing, dropping and taking references
 * happen under node_fd_lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "node_priv.h"
#include "server/server_node.h"

#define NODE_FD_CHUNK 1024
#define NODE_FD_CHUNKS 1024 /* 1M descriptors, the usual hard limit */

struct node_fd_entry {
	_Atomic(struct node_obj *) obj;
};

static _Atomic(struct node_fd_entry *) node_fd_chunks[NODE_FD_CHUNKS];
static pthread_mutex_t node_fd_lock = PTHREAD_MUTEX_INITIALIZER;

struct node_obj *node_obj_new(enum node_fd_kind kind)
{
	struct node_obj *obj = calloc(1, sizeof(*obj));

	if (!obj)
		return NULL;
	atomic_init(&obj->refs, 1);
	obj->kind = kind;
	return obj;
}

void node_obj_put(struct node_obj *obj)
{
	if (!obj || atomic_fetch_sub(&obj->refs, 1) != 1)
		return;
	/*
	 * The last descriptor of a drm_file is gone: release it as the kernel
	 * releases a closed file. A forked child never touches the parent's
	 * device (its copy of the driver's memory is not the device).
	 */
	if (obj->kind == NODE_FD_DEVICE && node_server_obj_release(obj)) {
		/* The device server closes the file once no process holds it. */
	} else if (obj->file && !atomic_load(&node_dev.forked)) {
		NODE_DRIVER_CALL((i915_gem_file_close(obj->file), 0));
		atomic_fetch_sub(&node_dev.files, 1);
	}
	free(obj->name);
	free(obj);
}

static struct node_fd_entry *node_fd_slot(int fd, bool create)
{
	struct node_fd_entry *chunk;
	unsigned int c;

	if (fd < 0 || fd >= NODE_FD_CHUNK * NODE_FD_CHUNKS)
		return NULL;
	c = (unsigned int)fd / NODE_FD_CHUNK;
	chunk = atomic_load_explicit(&node_fd_chunks[c], memory_order_acquire);
	if (!chunk && create) {
		/* Called with node_fd_lock held: nobody races the store. */
		chunk = calloc(NODE_FD_CHUNK, sizeof(*chunk));
		if (!chunk)
			return NULL;
		atomic_store_explicit(&node_fd_chunks[c], chunk, memory_order_release);
	}
	return chunk ? &chunk[(unsigned int)fd % NODE_FD_CHUNK] : NULL;
}

int node_fd_install(int fd, struct node_obj *obj)
{
	struct node_fd_entry *e;
	struct node_obj *old;

	pthread_mutex_lock(&node_fd_lock);
	e = node_fd_slot(fd, true);
	if (!e) {
		pthread_mutex_unlock(&node_fd_lock);
		node_obj_put(obj);
		return -ENOMEM;
	}
	old = atomic_exchange(&e->obj, obj);
	pthread_mutex_unlock(&node_fd_lock);
	node_obj_put(old);
	return 0;
}

struct node_obj *node_fd_get(int fd)
{
	struct node_fd_entry *e = node_fd_slot(fd, false);
	struct node_obj *obj;

	if (!e || !atomic_load_explicit(&e->obj, memory_order_relaxed))
		return NULL;
	pthread_mutex_lock(&node_fd_lock);
	obj = atomic_load(&e->obj);
	if (obj)
		atomic_fetch_add(&obj->refs, 1);
	pthread_mutex_unlock(&node_fd_lock);
	return obj;
}

enum node_fd_kind node_fd_kind(int fd)
{
	struct node_fd_entry *e = node_fd_slot(fd, false);
	struct node_obj *obj;
	enum node_fd_kind kind = NODE_FD_NONE;

	if (!e || !atomic_load_explicit(&e->obj, memory_order_relaxed))
		return NODE_FD_NONE;
	pthread_mutex_lock(&node_fd_lock);
	obj = atomic_load(&e->obj);
	if (obj)
		kind = obj->kind;
	pthread_mutex_unlock(&node_fd_lock);
	return kind;
}

void node_fd_forget(int fd)
{
	struct node_fd_entry *e = node_fd_slot(fd, false);
	struct node_obj *old;

	if (!e || !atomic_load_explicit(&e->obj, memory_order_relaxed))
		return;
	pthread_mutex_lock(&node_fd_lock);
	old = atomic_exchange(&e->obj, NULL);
	pthread_mutex_unlock(&node_fd_lock);
	node_obj_put(old);
}

void node_fd_dup(int oldfd, int newfd)
{
	struct node_obj *obj;

	if (oldfd == newfd)
		return;
	obj = node_fd_get(oldfd);
	if (obj)
		node_fd_install(newfd, obj);
	else
		node_fd_forget(newfd);
}

int node_drm_fdinfo(struct i915_gem_file *file, char **text, size_t *len)
{
	char *drv = NULL, *out, head[192];
	size_t dlen = 0;
	int n, ret;

	*text = NULL;
	*len = 0;
	ret = NODE_DRIVER_CALL(i915_gem_file_show_fdinfo(file, &drv, &dlen));
	if (ret)
		return ret;
	/* drm_show_fdinfo(): the core's lines, then the driver's. */
	n = snprintf(head, sizeof(head), "drm-driver:\ti915\ndrm-client-id:\t%llu\ndrm-pdev:\t%s\n",
		     (unsigned long long)i915_gem_file_client_id(file), node_dev.profile->pci_slot);
	out = malloc((size_t)n + dlen + 1);
	if (out) {
		memcpy(out, head, (size_t)n);
		if (dlen)
			memcpy(out + n, drv, dlen);
		*text = out;
		*len = (size_t)n + dlen;
	}
	free(drv);
	return out ? 0 : -ENOMEM;
}

int node_fdinfo_text(struct node_obj *obj, char **text, size_t *len)
{
	int ret;

	*text = NULL;
	*len = 0;
	/* A forked child's copy of a file is the device server's (not told here). */
	if (obj->kind != NODE_FD_DEVICE || !obj->file || atomic_load(&node_dev.forked))
		return 0;
	if (!node_call_begin())
		return -EIO;
	ret = node_drm_fdinfo(obj->file, text, len);
	node_call_end();
	return ret;
}
