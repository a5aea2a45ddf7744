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
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ttm/ttm_vm_fault.h>

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
static struct srv *node_srv;	/* in the creator */
static bool node_srv_failed;	/* do not try again */
static char node_srv_path[108]; /* inherited by children */
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
		ret = NODE_DRIVER_CALL(
		    srv_create(node_dev.i915, node_srv_path, &node_srv_hooks, &node_srv));
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

static int node_conn(void);

bool node_server_obj_release(struct node_obj *obj)
{
	struct node_anchor *a = node_anchor_take(obj);

	if (!a)
		return false;
	node_sys_close(a->anchor);
	if (node_srv && getpid() == node_srv_owner) {
		NODE_DRIVER_CALL((srv_file_put(node_srv, a->id), 0));
	} else if (node_remote_active()) {
		/*
		 * A child's close of the file's last copy releases it before close()
		 * returns, as the kernel does: a child opening and closing in a loop
		 * must not pile up files the server has yet to close.
		 */
		int conn = node_conn();

		if (conn >= 0)
			srv_client_close(conn, a->id);
	}
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

/* ---- CPU mappings in a forked child ---------------------------------------- */

/*
 * A child's mapping of an object is a reserved range of its own served by
 * TTM's fault engine (ttm_vm_fault.h) in this process: a first touch of a
 * page faults, the engine's worker asks the server (SRV_OP_FAULT, which runs
 * the object's fault path on the server's view) and maps the pages of the
 * pool's memfd it names MAP_SHARED|MAP_FIXED, so the child, the server and
 * the GPU use the same memory. Before TTM moves the pages, the server
 * revokes the mapping on the process's mapping channel (a thread here
 * serves it): the range goes back to reserved and the next touch faults the
 * new pages in. A fault answer older than a revocation seen is dropped and
 * asked again. Memory the child cannot share (local memory behind a CPU
 * copy) faults with SIGBUS, said once on stderr.
 */
struct node_rmap {
	_Atomic uint64_t id;
	/* The range's first page in the server's mapping (a piece left by a partial munmap). */
	uint64_t pgoff;
	struct ttm_vm_range range;
	pthread_mutex_t lock;
	uint64_t rev_seen;
	pid_t pid;
	bool adopted;
	/* Being unmapped as its server mapping's last piece (node_remote_munmap()). */
	bool release;
	/* Inherited: mincore() of the copy at fork, one byte a page (node_adopt_child()). */
	unsigned char *present;
	struct node_rmap *next;
};

#define NODE_MEMFDS 8

/* node_rmap_lock: the list, the channel and the memfd cache. */
static pthread_mutex_t node_rmap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node_rmap *node_rmaps;
/* Inherited adoptions between the two atfork handlers of a fork child. */
static struct node_rmap *node_rmaps_stale;
static struct ttm_vm_fault_engine node_rmap_eng;
static pid_t node_rmap_eng_pid;
static int node_mm_conn = -1;
static pid_t node_mm_pid;
static struct {
	uint64_t ino;
	int fd;
} node_memfds[NODE_MEMFDS];
static unsigned int node_nmemfds;
static atomic_bool node_rmap_unshared_said;

/* The mapping channel: drop a mapping's pages when the server says so. */
static void node_rmap_revoke(uint64_t id, uint64_t rev, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&node_rmap_lock);
	/* Every piece of the mapping (node_remote_munmap() splits). */
	for (struct node_rmap *m = node_rmaps; m; m = m->next) {
		if (m->id != id)
			continue;
		pthread_mutex_lock(&m->lock);
		if (rev > m->rev_seen)
			m->rev_seen = rev;
		ttm_vm_range_invalidate(&m->range);
		pthread_mutex_unlock(&m->lock);
	}
	pthread_mutex_unlock(&node_rmap_lock);
}

static void *node_mm_thread(void *arg)
{
	node_in_driver = 1;
	srv_client_revoke_serve((int)(intptr_t)arg, node_rmap_revoke, NULL);
	return NULL;
}

/*
 * This process's fault engine and mapping channel, set up by its first
 * mapping. node_rmap_lock held.
 */
static int node_rmap_setup_locked(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int fd, ret;

	if (node_rmap_eng_pid != getpid()) {
		ret = NODE_DRIVER_CALL(ttm_vm_fault_engine_init(&node_rmap_eng, TTM_VM_FAULT_AUTO));
		if (ret)
			return ret;
		node_rmap_eng_pid = getpid();
	}
	if (node_mm_pid == getpid())
		return 0;
	fd = srv_connect(node_srv_path);
	if (fd < 0)
		return node_remote_gone(fd);
	ret = srv_client_mm(fd);
	if (ret) {
		node_sys_close(fd);
		return ret == -EIO ? node_remote_gone(ret) : ret;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&t, &attr, node_mm_thread, (void *)(intptr_t)fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		node_sys_close(fd);
		return ret;
	}
	node_mm_conn = fd;
	node_mm_pid = getpid();
	return 0;
}

/* The memfd of inode @ino: @received (now cached) or the cached one. */
static int node_memfd_get(uint64_t ino, int received)
{
	int fd = -1;

	pthread_mutex_lock(&node_rmap_lock);
	for (unsigned int i = 0; i < node_nmemfds && fd < 0; i++)
		if (node_memfds[i].ino == ino)
			fd = node_memfds[i].fd;
	if (fd < 0 && received >= 0 && node_nmemfds < NODE_MEMFDS) {
		node_memfds[node_nmemfds].ino = ino;
		node_memfds[node_nmemfds++].fd = received;
		fd = received;
		received = -1;
	}
	pthread_mutex_unlock(&node_rmap_lock);
	if (received >= 0)
		node_sys_close(received);
	return fd;
}

#define NODE_RMAP_RUN 512

static int node_rmap_begin(int *conn)
{
	int ret;

	pthread_mutex_lock(&node_rmap_lock);
	ret = node_rmap_setup_locked();
	pthread_mutex_unlock(&node_rmap_lock);
	if (ret)
		return ret;
	*conn = node_conn();
	return *conn < 0 ? node_remote_gone(*conn) : 0;
}

/*
 * The first touch of a mapping this process inherited from the device's
 * creator: the server names it to us (SRV_OP_ADOPT of its own address).
 */
static int node_rmap_adopt(struct node_rmap *m)
{
	uint64_t id;
	int conn, ret;

	ret = node_rmap_begin(&conn);
	if (ret)
		return ret;
	pthread_mutex_lock(&m->lock);
	ret = 0;
	if (!atomic_load(&m->id)) {
		ret = srv_client_adopt(conn, (uint64_t)(uintptr_t)m->range.addr,
				       (uint64_t)m->range.num_pages * 4096, &id);
		if (!ret)
			atomic_store(&m->id, id);
	}
	pthread_mutex_unlock(&m->lock);
	return ret == -EIO ? node_remote_gone(ret) : ret;
}

/*
 * Install the run of pages around @page that the server names for mapping
 * @m (SRV_OP_FAULT: the object's own fault path), asked on @conn (-1: this
 * thread's connection) within @timeout_ms (-1: no bound). Return: 0 or
 * -errno (-EOPNOTSUPP: memory a child cannot share; -ETIMEDOUT).
 */
static int node_rmap_fault_on(struct node_rmap *m, unsigned long page, int conn_fixed,
			      int timeout_ms)
{
	struct ttm_vm_page pages[NODE_RMAP_RUN];
	struct ttm_vm_range *range = &m->range;
	int ret;

	if (!atomic_load(&m->id)) {
		ret = node_rmap_adopt(m);
		if (ret)
			return ret;
	}
	for (;;) {
		int conn = conn_fixed >= 0 ? conn_fixed : node_conn(), memfd, fd;
		unsigned long n;
		struct srv_rep rep;
		bool done = false;

		if (conn < 0) {
			ret = node_remote_gone(conn);
			break;
		}
		ret = srv_client_fault_timed(conn, atomic_load(&m->id), (m->pgoff + page) * 4096,
					     &rep, &memfd, timeout_ms);
		if (ret)
			break;
		fd = node_memfd_get(rep.map_ino, memfd);
		n = rep.map_pages;
		if (fd < 0 || !n) {
			ret = -EIO;
			break;
		}
		if (n > NODE_RMAP_RUN)
			n = NODE_RMAP_RUN;
		for (unsigned long i = 0; i < n; i++)
			pages[i] = (struct ttm_vm_page){.fd = fd, .offset = rep.map_off + i * 4096};
		pthread_mutex_lock(&m->lock);
		if (page >= range->num_pages) {
			/* Split under us (a partial munmap): the access is retried. */
			ret = -EAGAIN;
			done = true;
		} else if (rep.map_rev >= m->rev_seen) {
			/* Not older than a revocation seen (else its pages may be gone: ask again).
			 */
			long r = ttm_vm_range_install(
			    range, page, n < range->num_pages - page ? n : range->num_pages - page,
			    pages, ttm_cached);

			ret = r < 0 ? (int)r : 0;
			done = true;
		}
		pthread_mutex_unlock(&m->lock);
		if (done)
			break;
	}
	return ret;
}

static int node_rmap_populate(struct ttm_vm_range *range, unsigned long page)
{
	struct node_rmap *m = range->priv;
	int ret;

	/* Inherited from a parent: not this process's at the server (see node_rmap_child()). */
	if (m->pid != getpid())
		return -EFAULT;
	node_in_driver++;
	ret = node_rmap_fault_on(m, page, -1, -1);
	node_in_driver--;
	if (node_trace && ret)
		node_say("ttm-i915-node: pid %d remote fault map %llu page %lu: %d (%s)\n",
			 (int)getpid(), (unsigned long long)atomic_load(&m->id), page, ret,
			 strerror(-ret));
	if (ret == -EOPNOTSUPP && !atomic_exchange(&node_rmap_unshared_said, true))
		node_say(
		    "ttm-i915-node: pid %d: a CPU mapping of memory a forked child cannot share "
		    "(local memory, a CPU-cache copy): SIGBUS\n",
		    (int)getpid());
	return ret;
}

static const struct ttm_vm_range_ops node_rmap_ops = {
    .populate = node_rmap_populate,
};

/* A reserved range of @len bytes for server mapping @id. Return: 0 or -errno. */
static int node_rmap_new(uint64_t id, size_t len, void **out)
{
	struct node_rmap *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return -ENOMEM;
	m->id = id;
	m->pid = getpid();
	pthread_mutex_init(&m->lock, NULL);
	ret = NODE_DRIVER_CALL(
	    ttm_vm_range_init(&node_rmap_eng, &m->range, len / 4096, &node_rmap_ops, m));
	if (ret) {
		pthread_mutex_destroy(&m->lock);
		free(m);
		return ret;
	}
	pthread_mutex_lock(&node_rmap_lock);
	m->next = node_rmaps;
	node_rmaps = m;
	pthread_mutex_unlock(&node_rmap_lock);
	*out = m->range.addr;
	return 0;
}

/* Is @fd a dma-buf of the device (a memfd the driver named so)? */
static bool node_fd_maybe_dmabuf(int fd)
{
	static const char want[] = "/memfd:dmabuf";
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	return n >= (ssize_t)sizeof(want) - 1 && !memcmp(link, want, sizeof(want) - 1);
}

int node_remote_mmap(struct node_obj *obj, int dmabuf, size_t len, int prot, int flags,
		     off_t offset, void **out)
{
	uint64_t id = 0, map;
	int conn, ret, not_mine = 0;

	if (!obj && !node_fd_maybe_dmabuf(dmabuf))
		return -ENODEV;
	/* As the creator's mapping (i915_gem_mmap()): shared, the range placed by us. */
	if (!len || (offset & 4095) || offset < 0 || (obj && !(flags & MAP_SHARED)) ||
	    (flags & MAP_FIXED))
		return -EINVAL;
	len = (len + 4095) & ~(size_t)4095;
	ret = node_rmap_begin(&conn);
	if (ret)
		return ret;
	if (obj) {
		ret = node_remote_attach(conn, obj, &id);
		if (ret)
			return ret == -EIO ? node_remote_gone(ret) : ret;
	}
	ret = srv_client_mmap(conn, id, obj ? -1 : dmabuf, (uint64_t)offset, len, prot, &map,
			      &not_mine);
	if (not_mine)
		return -ENODEV;
	if (ret)
		return ret == -EIO ? node_remote_gone(ret) : ret;
	ret = node_rmap_new(map, len, out);
	if (ret)
		srv_client_munmap(conn, map);
	return ret;
}

/* The legacy GEM_MMAP ioctl in a child: the server maps, we reserve. */
static int node_remote_gem_mmap(int conn, uint64_t id, struct drm_i915_gem_mmap *arg)
{
	uint64_t map = 0;
	void *addr;
	int ret;

	pthread_mutex_lock(&node_rmap_lock);
	ret = node_rmap_setup_locked();
	pthread_mutex_unlock(&node_rmap_lock);
	if (ret)
		return ret;
	ret = srv_client_gem_mmap(conn, id, arg, &map);
	if (ret || !map)
		return ret ? ret : -EIO;
	ret = node_rmap_new(map, (size_t)((arg->size + 4095) & ~4095ull), &addr);
	if (ret) {
		srv_client_munmap(conn, map);
		return ret;
	}
	arg->addr_ptr = (uint64_t)(uintptr_t)addr;
	return 0;
}

/* Is another piece of @m's server mapping still listed? node_rmap_lock held. */
static bool node_rmap_id_shared_locked(const struct node_rmap *m)
{
	for (const struct node_rmap *o = node_rmaps; o; o = o->next)
		if (o != m && o->id == m->id && o->pid == m->pid)
			return true;
	return false;
}

/*
 * Cut @m at page @page (0 < @page < its length): the pages from @page on
 * become a new piece of the same server mapping, listed after @m.
 * node_rmap_lock held. Return: 0; -ENOMEM.
 */
static int node_rmap_split_locked(struct node_rmap *m, unsigned long page)
{
	struct node_rmap *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_lock(&m->lock);
	t->id = atomic_load(&m->id);
	t->pgoff = m->pgoff + page;
	t->rev_seen = m->rev_seen;
	t->pid = m->pid;
	t->adopted = m->adopted;
	ret = NODE_DRIVER_CALL(ttm_vm_range_split(&m->range, page, &t->range, t));
	pthread_mutex_unlock(&m->lock);
	if (ret) {
		pthread_mutex_destroy(&t->lock);
		free(t);
		return ret;
	}
	t->next = m->next;
	m->next = t;
	return 0;
}

/* munmap(2) the parts of [@s, @e) that no range of @list holds. */
static void node_unmap_gaps_of(const struct node_rmap *list, uintptr_t s, uintptr_t e)
{
	while (s < e) {
		uintptr_t next = e;
		bool ours = false;

		for (const struct node_rmap *m = list; m; m = m->next) {
			uintptr_t ms = (uintptr_t)m->range.addr,
				  me = ms + m->range.num_pages * 4096;

			if (ms <= s && s < me) {
				ours = true;
				next = me;
				break;
			}
			if (s < ms && ms < next)
				next = ms;
		}
		if (!ours)
			syscall(SYS_munmap, s, next - s);
		s = next;
	}
}

bool node_remote_munmap(void *addr, size_t len, int *ret)
{
	uintptr_t s = (uintptr_t)addr, e;
	struct node_rmap *gone = NULL, **p;
	bool hit = false;
	int err = 0;

	if (!len || (s & 4095) || len > SIZE_MAX - 4095 - s)
		return false;
	e = s + ((len + 4095) & ~(size_t)4095);
	pthread_mutex_lock(&node_rmap_lock);
	/*
	 * As the kernel's munmap of part of a vma: the pieces outside
	 * [s, e) stay mapped (split off first), the pieces inside go.
	 */
	for (p = &node_rmaps; *p && !err;) {
		struct node_rmap *m = *p;
		uintptr_t ms = (uintptr_t)m->range.addr, me = ms + m->range.num_pages * 4096;

		if (me <= s || e <= ms) {
			p = &m->next;
			continue;
		}
		hit = true;
		if (ms < s) {
			/* The head stays: the rest is the next piece on the list. */
			err = node_rmap_split_locked(m, (s - ms) / 4096);
			p = &m->next;
			continue;
		}
		if (e < me) {
			err = node_rmap_split_locked(m, (e - ms) / 4096);
			if (err)
				break;
		}
		*p = m->next;
		m->next = gone;
		gone = m;
	}
	/* Each piece that was its server mapping's last releases it there. */
	for (struct node_rmap *m = gone; m; m = m->next)
		m->release = !node_rmap_id_shared_locked(m);
	pthread_mutex_unlock(&node_rmap_lock);
	if (!hit)
		return false;
	/* Whatever else the span holds (not ours) goes too; our pieces go below. */
	if (!err)
		node_unmap_gaps_of(gone, s, e);
	while (gone) {
		struct node_rmap *m = gone;
		int conn = node_conn();

		gone = m->next;
		if (m->release && conn >= 0 && m->pid == getpid() && atomic_load(&m->id))
			srv_client_munmap(conn, atomic_load(&m->id));
		NODE_DRIVER_CALL((ttm_vm_range_fini(&m->range), 0));
		pthread_mutex_destroy(&m->lock);
		free(m);
	}
	/* A failed split leaves what was unmapped before it unmapped (ENOMEM, as the kernel). */
	*ret = err ? -1 : 0;
	if (err)
		errno = -err;
	return true;
}

/*
 * fork(): the child's copies of this process's mappings are not its own at
 * the server (revocations would not reach them): their pages are dropped
 * and a touch faults with SIGBUS (or SIGSEGV) instead of reading memory
 * that may since have been given to another object. The mapping channel
 * is the parent's; the child makes its own at its first mapping.
 */
static void node_rmap_child(void)
{
	struct node_rmap **p = &node_rmaps;

	pthread_mutex_init(&node_rmap_lock, NULL);
	node_sys_close(node_mm_conn);
	node_mm_conn = -1;
	while (*p) {
		struct node_rmap *m = *p;

		/*
		 * The creator's mappings are adopted again (node_adopt_child(),
		 * which reads which pages are present and drops the views the
		 * creator no longer maps, before fork() returns).
		 */
		if (m->adopted) {
			*p = m->next;
			m->next = node_rmaps_stale;
			node_rmaps_stale = m;
			continue;
		}
		syscall(SYS_mmap, m->range.addr, m->range.num_pages * 4096, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		pthread_mutex_init(&m->lock, NULL);
		p = &m->next;
	}
}

/*
 * A fork child's copies of the creator's own mappings (node_range_add()):
 * the pages there are the creator's view, which nothing would revoke in
 * this process before a move. Each becomes a reserved range of ours at the
 * same address (pointers into it stay valid, as the kernel's copied vmas),
 * adopted through the server before fork() returns, and the pages the
 * copy had present are faulted in at once, as the kernel copies a
 * PFN-mapped vma's page table entries at fork: a parent may read and
 * write them with ptrace() or process_vm_readv() while the child is
 * stopped and cannot serve a fault. Runs in the child's atfork handler
 * after the fault engine's (which emptied the range table).
 */
static void node_adopt_one(uintptr_t start, uintptr_t end, void *ctx)
{
	struct node_rmap *m;

	(void)ctx;
	if (end <= start || (start & 4095) || ((end - start) & 4095))
		return;
	/* One record per address: the list repeats a range mapped twice. */
	for (m = node_rmaps; m; m = m->next)
		if (m->pid == getpid() && (uintptr_t)m->range.addr == start)
			return;
	m = calloc(1, sizeof(*m));
	if (m) {
		m->pid = getpid();
		m->adopted = true;
		/* Installed pages are resident (memfd or copy); reserved ones are not. */
		m->present = malloc((end - start) / 4096);
		if (m->present && mincore((void *)start, end - start, m->present)) {
			free(m->present);
			m->present = NULL;
		}
		pthread_mutex_init(&m->lock, NULL);
		if (!NODE_DRIVER_CALL(ttm_vm_range_init_at(&node_rmap_eng, &m->range,
							   (end - start) / 4096, &node_rmap_ops, m,
							   (void *)start, MAP_FIXED))) {
			m->next = node_rmaps;
			node_rmaps = m;
			return;
		}
		pthread_mutex_destroy(&m->lock);
		free(m->present);
		free(m);
	}
	/* No range of ours: at least never the creator's stale view. */
	syscall(SYS_mmap, start, end - start, PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

struct node_span {
	uintptr_t start, end;
};

/* node_range_foreach_unlocked(): clears @ctx's start when [start, end) holds it. */
static void node_span_covered(uintptr_t start, uintptr_t end, void *ctx)
{
	struct node_span *span = ctx;

	if (start == span->start && span->end <= end)
		span->start = 0;
}

/*
 * Budget of the faults at fork: they may wait for the GPU to finish writing;
 * generous, so a loaded machine still makes them all in the common case.
 */
#define NODE_ADOPT_FAULT_MS 1000

/*
 * Adopt @m now and fault in the pages its copy had present at fork, on
 * *@conn (a connection of its own, closed when the budget ends at
 * @deadline_ns: an object the GPU is still writing faults in only when
 * that write is done, and the work the child is forked to do may be what
 * ends it). Pages left out fault in at their first touch.
 */
static void node_adopt_populate(struct node_rmap *m, int *conn, uint64_t deadline_ns)
{
	unsigned char *present = m->present;

	m->present = NULL;
	if (node_rmap_adopt(m) || !present) {
		free(present);
		return;
	}
	for (unsigned long i = 0; i < m->range.num_pages && *conn >= 0; i++) {
		struct timespec now;
		int64_t left;
		int ret;

		if (!(present[i] & 1) || ttm_vm_range_page_present(&m->range, i))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (int64_t)(deadline_ns -
				 ((uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec)) /
		       1000000;
		ret = left > 0 ? node_rmap_fault_on(m, i, *conn, (int)left) : -ETIMEDOUT;
		if (ret == -ETIMEDOUT || ret == -EIO) {
			node_sys_close(*conn);
			*conn = -1;
		}
		/* Memory the server cannot share stays reserved (SIGBUS at a touch). */
		if (ret)
			break;
	}
	free(present);
}

static void node_adopt_child(void)
{
	uint64_t deadline = 0;
	int eager = -2;

	if (node_srv_path[0] && atomic_load(&node_dev.created) && node_rmap_eng_pid != getpid()) {
		if (NODE_DRIVER_CALL(ttm_vm_fault_engine_init(&node_rmap_eng, TTM_VM_FAULT_AUTO)))
			node_rmap_eng_pid = 0;
		else
			node_rmap_eng_pid = getpid();
	}
	/*
	 * Our parent's adoptions of mappings the creator still has are adopted
	 * again below (node_adopt_one() reads the view, then replaces it); the
	 * others are views of memory since given away: never read again.
	 */
	while (node_rmaps_stale) {
		struct node_rmap *m = node_rmaps_stale;
		struct node_span span = {(uintptr_t)m->range.addr,
					 (uintptr_t)m->range.addr + m->range.num_pages * 4096};

		node_rmaps_stale = m->next;
		node_range_foreach_unlocked(node_span_covered, &span);
		if (span.start)
			syscall(SYS_mmap, m->range.addr, m->range.num_pages * 4096, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		free(m->range.state);
		free(m);
	}
	/* Without an engine node_adopt_one() only drops the creator's views. */
	if (node_srv_path[0] && atomic_load(&node_dev.created))
		node_range_foreach_unlocked(node_adopt_one, NULL);
	node_in_driver++;
	for (struct node_rmap *m = node_rmaps; m; m = m->next) {
		if (m->adopted && m->pid == getpid() && !atomic_load(&m->id)) {
			if (eager == -2) {
				struct timespec now;

				clock_gettime(CLOCK_MONOTONIC, &now);
				deadline = (uint64_t)now.tv_sec * 1000000000ull +
					   (uint64_t)now.tv_nsec + NODE_ADOPT_FAULT_MS * 1000000ull;
				eager = srv_connect(node_srv_path);
				if (eager < 0)
					eager = -1;
			}
			node_adopt_populate(m, &eager, deadline);
		}
	}
	node_sys_close(eager);
	node_in_driver--;
}

static pthread_once_t node_adopt_once = PTHREAD_ONCE_INIT;

static void node_adopt_register(void)
{
	pthread_atfork(NULL, NULL, node_adopt_child);
}

void node_server_range_added(void)
{
	pthread_once(&node_adopt_once, node_adopt_register);
}
int node_remote_ioctl(struct node_obj *obj, unsigned long request, void *arg)
{
	int conn = node_conn(), ret;
	uint64_t id;

	if (conn < 0)
		return node_remote_gone(conn);
	ret = node_remote_attach(conn, obj, &id);
	if (ret == -EIO)
		return node_remote_gone(ret);
	if (ret)
		return ret;
	if (request == DRM_IOCTL_I915_GEM_MMAP)
		return node_remote_gem_mmap(conn, id, arg);
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
	pthread_mutex_lock(&node_rmap_lock);
}

static void node_srv_parent(void)
{
	pthread_mutex_unlock(&node_rmap_lock);
	pthread_mutex_unlock(&node_srv_lock);
}

static void node_srv_child(void)
{
	node_rmap_child();
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
