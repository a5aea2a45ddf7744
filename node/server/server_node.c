// SPDX-License-Identifier: MIT
/*
 * The render node's side of the device server (server_node.h).
 *
 * In the process that created the device, the first device open starts a
 * server on a socket of the per-user directory (srv_socket_dir()), and
 * every file opened from then on is handed to it (srv_file_add()): the
 * file lives while any process holds a copy of its anchor, which sits
 * beside the device descriptor and is inherited with it. The creator keeps
 * calling the driver directly; only forked children go through the socket.
 *
 * A forked child (fork(), seen by pthread_atfork) connects once per thread,
 * attaches each file it uses by sending its inherited anchor, and forwards
 * its device ioctls, its opens of the device and its sync_file/dma-buf
 * ioctls; the server copies arguments in the child's memory itself.
 *
 * The anchors are kept in a table by node object (the node's descriptor
 * table is inherited as memory, so the child finds its parent's entries).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../node_priv.h"
#include "server.h"
#include "server_node.h"

struct node_anchor {
	const struct node_obj *obj;
	int anchor;
	uint64_t id;
	struct node_anchor *next;
};

#define NODE_ANCHOR_BUCKETS 128

static pthread_mutex_t node_srv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node_anchor *node_anchors[NODE_ANCHOR_BUCKETS];
static struct srv *node_srv;	    /* in the creator */
static bool node_srv_failed;	    /* do not try again */
static char node_srv_path[108];	    /* inherited by children */
static pid_t node_srv_owner;
static atomic_bool node_srv_gone_said;

/* This thread's connection (forked child) and the files attached on it. */
#define NODE_TL_ATT 32
static __thread int tl_conn = -1;
static __thread uint64_t tl_att[NODE_TL_ATT];
static __thread unsigned int tl_natt;
static pthread_key_t node_conn_key;
static pthread_once_t node_conn_once = PTHREAD_ONCE_INIT;

static void node_sys_close(int fd)
{
	if (fd >= 0)
		syscall(SYS_close, fd);
}

static struct node_anchor **node_anchor_bucket(const struct node_obj *obj)
{
	return &node_anchors[((uintptr_t)obj >> 4) % NODE_ANCHOR_BUCKETS];
}

static bool node_server_enabled(void)
{
	const char *env = getenv("TTM_I915_SERVER");

	return !(env && !strcmp(env, "0"));
}

/* ---- the creator's server ------------------------------------------------- */

static bool node_srv_call_begin(void *ctx)
{
	(void)ctx;
	if (!atomic_load(&node_dev.created)) {
		errno = EIO;
		return false;
	}
	return node_call_begin();
}

static void node_srv_call_end(void *ctx)
{
	(void)ctx;
	node_call_end();
}

static void node_srv_thread_init(void *ctx)
{
	(void)ctx;
	/* Server threads run driver code only: libc straight through. */
	node_in_driver = 1;
}

static void node_srv_file_opened(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&node_dev.files, 1);
}

static void node_srv_file_closed(void *ctx)
{
	(void)ctx;
	atomic_fetch_sub(&node_dev.files, 1);
}

static const struct srv_hooks node_srv_hooks = {
	.call_begin = node_srv_call_begin,
	.call_end = node_srv_call_end,
	.thread_init = node_srv_thread_init,
	.file_opened = node_srv_file_opened,
	.file_closed = node_srv_file_closed,
};

/* Sockets of creators that died without exiting (killed, _exit()). */
static void node_srv_rm_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[160];
		int pid;

		if (sscanf(de->d_name, "node-%d.sock", &pid) != 1 || pid <= 0 ||
		    !(kill(pid, 0) && errno == ESRCH))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
}

/* Called with node_srv_lock held. */
static struct srv *node_srv_get_locked(void)
{
	char dir[80];
	int ret;

	if (node_srv || node_srv_failed)
		return node_srv;
	node_srv_failed = true;
	if (!node_server_enabled())
		return NULL;
	ret = srv_socket_dir(dir, sizeof(dir));
	if (!ret)
		NODE_DRIVER_CALL((node_srv_rm_stale(dir), 0));
	if (!ret && snprintf(node_srv_path, sizeof(node_srv_path), "%s/node-%d.sock", dir,
			     (int)getpid()) >= (int)sizeof(node_srv_path))
		ret = -ENAMETOOLONG;
	if (!ret)
		ret = NODE_DRIVER_CALL(srv_create(node_dev.i915, node_srv_path, &node_srv_hooks,
						  &node_srv));
	if (ret) {
		node_srv_path[0] = '\0';
		node_say("ttm-i915-node: no device server for forked children (%s): they get EIO\n",
			 strerror(-ret));
		return NULL;
	}
	node_srv_owner = getpid();
	node_srv_failed = false;
	return node_srv;
}

void node_server_file_opened(struct node_obj *obj, bool cloexec)
{
	struct node_anchor *a;
	struct srv *s;

	pthread_mutex_lock(&node_srv_lock);
	s = node_srv_get_locked();
	a = s ? calloc(1, sizeof(*a)) : NULL;
	if (a && NODE_DRIVER_CALL(srv_file_add(s, obj->file, cloexec, &a->anchor, &a->id))) {
		free(a);
		a = NULL;
	}
	if (a) {
		a->obj = obj;
		a->next = *node_anchor_bucket(obj);
		*node_anchor_bucket(obj) = a;
	}
	pthread_mutex_unlock(&node_srv_lock);
}

static struct node_anchor *node_anchor_take(const struct node_obj *obj)
{
	struct node_anchor *a = NULL;

	pthread_mutex_lock(&node_srv_lock);
	for (struct node_anchor **p = node_anchor_bucket(obj); *p; p = &(*p)->next) {
		if ((*p)->obj == obj) {
			a = *p;
			*p = a->next;
			break;
		}
	}
	pthread_mutex_unlock(&node_srv_lock);
	return a;
}

static bool node_anchor_find(const struct node_obj *obj, int *anchor, uint64_t *id)
{
	bool found = false;

	pthread_mutex_lock(&node_srv_lock);
	for (struct node_anchor *a = *node_anchor_bucket(obj); a; a = a->next) {
		if (a->obj == obj) {
			*anchor = a->anchor;
			*id = a->id;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&node_srv_lock);
	return found;
}

bool node_server_obj_release(struct node_obj *obj)
{
	struct node_anchor *a = node_anchor_take(obj);

	if (!a)
		return false;
	node_sys_close(a->anchor);
	if (node_srv && getpid() == node_srv_owner)
		NODE_DRIVER_CALL((srv_file_put(node_srv, a->id), 0));
	free(a);
	return true;
}

/* The socket goes with the creator (its threads end with the process). */
__attribute__((destructor)) static void node_server_fini(void)
{
	if (node_srv && getpid() == node_srv_owner)
		unlink(node_srv_path);
}

/* ---- a forked child ------------------------------------------------------- */

bool node_remote_active(void)
{
	return atomic_load_explicit(&node_dev.forked, memory_order_relaxed) && node_srv_path[0];
}

static void node_conn_destroy(void *unused)
{
	(void)unused;
	node_sys_close(tl_conn);
	tl_conn = -1;
	tl_natt = 0;
}

static void node_conn_key_init(void)
{
	pthread_key_create(&node_conn_key, node_conn_destroy);
}

static int node_conn(void)
{
	if (tl_conn >= 0)
		return tl_conn;
	pthread_once(&node_conn_once, node_conn_key_init);
	tl_conn = srv_connect(node_srv_path);
	if (tl_conn < 0) {
		int err = tl_conn;

		tl_conn = -1;
		return err;
	}
	tl_natt = 0;
	pthread_setspecific(node_conn_key, (void *)1);
	return tl_conn;
}

/* The server is gone (or never answered): every call fails, once said. */
static int node_remote_gone(int err)
{
	if (!atomic_exchange(&node_srv_gone_said, true))
		node_say("ttm-i915-node: pid %d: the device server of process %d is gone (%s): "
			 "device calls fail with EIO\n",
			 (int)getpid(), (int)node_srv_owner, strerror(-err));
	return -EIO;
}

static int node_remote_attach(int conn, const struct node_obj *obj, uint64_t *id)
{
	int anchor, ret;

	if (!node_anchor_find(obj, &anchor, id))
		return -EBADF;
	for (unsigned int i = 0; i < tl_natt; i++)
		if (tl_att[i] == *id)
			return 0;
	ret = srv_client_attach(conn, *id, anchor);
	if (ret)
		return ret;
	/* A full cache only costs an ATTACH per call. */
	if (tl_natt < NODE_TL_ATT)
		tl_att[tl_natt++] = *id;
	return 0;
}

int node_remote_ioctl(struct node_obj *obj, unsigned long request, void *arg)
{
	int conn = node_conn(), ret;
	uint64_t id;

	/*
	 * CPU mappings are not shared with forked children yet (node/README.md):
	 * the legacy mmap ioctl would map in the server's address space.
	 */
	if (request == DRM_IOCTL_I915_GEM_MMAP) {
		node_fork_refuse();
		return -EIO;
	}
	if (conn < 0)
		return node_remote_gone(conn);
	ret = node_remote_attach(conn, obj, &id);
	if (ret == -EIO)
		return node_remote_gone(ret);
	if (ret)
		return ret;
	ret = srv_client_ioctl(conn, id, -1, request, arg, NULL);
	if (ret == -EIO && !atomic_load(&node_srv_gone_said)) {
		/* -EIO is also a driver answer (a wedged GPU): say only if the socket died. */
		struct srv_stats st;

		if (srv_client_stats(conn, &st) == -EIO)
			node_remote_gone(ret);
	}
	return ret;
}

int node_remote_fd_ioctl(int fd, unsigned long request, void *arg, bool *not_mine)
{
	int conn = node_conn(), nm = 0, ret;

	*not_mine = false;
	if (conn < 0)
		return node_remote_gone(conn);
	ret = srv_client_ioctl(conn, 0, fd, request, arg, &nm);
	*not_mine = nm;
	return ret;
}

int node_remote_open(struct node_obj *obj, int minor, bool cloexec)
{
	struct node_anchor *a = calloc(1, sizeof(*a));
	int conn = node_conn(), ret;

	if (!a)
		return -ENOMEM;
	if (conn < 0) {
		free(a);
		return node_remote_gone(conn);
	}
	ret = srv_client_open(conn, minor, cloexec, &a->anchor, &a->id);
	if (ret) {
		free(a);
		return ret == -EIO ? node_remote_gone(ret) : ret;
	}
	if (tl_natt < NODE_TL_ATT)
		tl_att[tl_natt++] = a->id;
	a->obj = obj;
	pthread_mutex_lock(&node_srv_lock);
	a->next = *node_anchor_bucket(obj);
	*node_anchor_bucket(obj) = a;
	pthread_mutex_unlock(&node_srv_lock);
	return 0;
}

/*
 * fork(): the table's lock is held across it so the child's copy is
 * consistent; the child drops the parent's connection (shared with it) and
 * connects at once, while it can (a child may drop privileges before its
 * first device call, and the socket directory is owner-only).
 */
static void node_srv_prepare(void)
{
	pthread_mutex_lock(&node_srv_lock);
}

static void node_srv_parent(void)
{
	pthread_mutex_unlock(&node_srv_lock);
}

static void node_srv_child(void)
{
	pthread_mutex_init(&node_srv_lock, NULL);
	node_sys_close(tl_conn);
	tl_conn = -1;
	tl_natt = 0;
	atomic_store(&node_srv_gone_said, false);
	if (node_srv_path[0] && atomic_load(&node_dev.created)) {
		int fd = srv_connect(node_srv_path);

		if (fd >= 0) {
			pthread_once(&node_conn_once, node_conn_key_init);
			tl_conn = fd;
			pthread_setspecific(node_conn_key, (void *)1);
		}
	}
}

__attribute__((constructor)) static void node_server_init(void)
{
	pthread_atfork(node_srv_prepare, node_srv_parent, node_srv_child);
}
