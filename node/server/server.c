// SPDX-License-Identifier: MIT
/*
 * The device server core (server.h, protocol in server_wire.h).
 *
 * Threads: one accepts connections, one per connection serves its requests
 * in order (a client thread has a connection of its own, so a blocking
 * wait in one client thread never holds up another), one watches the
 * server ends of the files' anchors for POLLHUP.
 *
 * Files: struct srv_file, in a hash table by id (the inode of the anchor's
 * client end). @refs counts holders of the memory (the table, the anchor
 * watcher, each attached connection); @active the calls running on it.
 * The drm_file is closed once the anchor is dead everywhere (@hup) and no
 * call runs, exactly once (@closed), on the thread that saw the later of
 * the two. Everything under srv->lock; driver calls outside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <drmcore/dma_buf.h>
#include <drmcore/drm_fd.h>
#include <drmcore/drm_user.h>
#include <drmcore/sync_file.h>
#include <ttm/ttm_bo_vm.h>

#include "server.h"

#define SRV_BUCKETS 256

struct srv_file {
	uint64_t id;
	struct i915_gem_file *file;
	int a;
	int refs;
	int active;
	bool hup;
	bool closed;
	struct srv_file *next;
};

struct srv_conn {
	struct srv *s;
	int fd;
	pid_t pid;
	struct srv_file **att;
	size_t natt, catt;
	int *held;
	size_t nheld, cheld;
	uint64_t sent[8];
	size_t nsent;
	struct srv_conn *next, **pprev;
};

/**
 * struct srv_mm - one client process's CPU mappings (its mapping channel).
 * @fd: the channel (a duplicate of the SRV_OP_MM connection's socket).
 * @io: one revocation at a time on @fd.
 * Under srv->lock: @refs (the list, the watcher, each mapping, each
 * revocation running), @dead (the channel closed), @next. Under @io:
 * @broken (the channel failed a revocation).
 */
struct srv_mm {
	struct srv *s;
	pid_t pid;
	int fd;
	pthread_mutex_t io;
	bool dead;
	bool broken;
	int refs;
	struct srv_mm *next;
};

/**
 * struct srv_map - one CPU mapping of a client process: the server's view
 * @saddr (@len bytes; one map of its object, released with the last
 * reference, unless @borrowed: the server's own mapping, taken over by a
 * fork child with SRV_OP_ADOPT). Under srv->lock: @refs (the list, each fault running),
 * @bo (the BO's cookie from its first fault), @rev (revocations so far),
 * @faulting (faults running), @token (the unmap hook's marker), @next.
 */
struct srv_map {
	uint64_t id;
	struct srv_mm *mm;
	void *saddr;
	size_t len;
	const void *bo;
	uint64_t rev;
	uint64_t token;
	int faulting;
	int refs;
	bool borrowed;
	struct srv_map *next;
};

struct srv {
	struct i915_device *i915;
	struct srv_hooks hooks;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, epfd, stopfd;
	pthread_t accept_thread, anchor_thread;
	bool threads;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	struct srv_file *buckets[SRV_BUCKETS];
	struct srv_conn *conns;
	uint64_t nfiles, nconns, calls, nheld;
	bool stopping;
	struct srv_mm *mms;
	struct srv_map *maps;
	uint64_t nmaps, next_map, revokes;
	/*
	 * Creating and releasing our views of objects never overlap: a release
	 * unmaps by address, which must not meet a view created meanwhile at
	 * the address it just freed.
	 */
	pthread_mutex_t maplock;
	struct srv *all_next;
};

/* Direct system call: the render node interposes close(). */
static void srv_close(int fd)
{
	if (fd >= 0)
		syscall(SYS_close, fd);
}

static bool srv_begin(struct srv *s)
{
	return !s->hooks.call_begin || s->hooks.call_begin(s->hooks.ctx);
}

static void srv_end(struct srv *s)
{
	if (s->hooks.call_end)
		s->hooks.call_end(s->hooks.ctx);
}

/* ---- files ------------------------------------------------------------ */

static struct srv_file **srv_bucket(struct srv *s, uint64_t id)
{
	return &s->buckets[(id * 0x9e3779b97f4a7c15ull) >> 56];
}

static struct srv_file *srv_lookup_locked(struct srv *s, uint64_t id)
{
	for (struct srv_file *f = *srv_bucket(s, id); f; f = f->next)
		if (f->id == id)
			return f;
	return NULL;
}

static void srv_unlink_locked(struct srv *s, struct srv_file *f)
{
	for (struct srv_file **p = srv_bucket(s, f->id); *p; p = &(*p)->next) {
		if (*p == f) {
			*p = f->next;
			f->next = NULL;
			return;
		}
	}
}

static void srv_unref_locked(struct srv_file *f)
{
	if (--f->refs)
		return;
	srv_close(f->a);
	free(f);
}

/* The anchor is dead and no call runs: claim the close. */
static bool srv_claim_close_locked(struct srv *s, struct srv_file *f)
{
	if (!f->hup || f->active || f->closed)
		return false;
	f->closed = true;
	srv_unlink_locked(s, f);
	/* The table's reference becomes the closer's, until the close is done. */
	return true;
}

static void srv_do_close(struct srv *s, struct srv_file *f)
{
	if (srv_begin(s)) {
		i915_gem_file_close(f->file);
		srv_end(s);
	}
	if (s->hooks.file_closed)
		s->hooks.file_closed(s->hooks.ctx);
	pthread_mutex_lock(&s->lock);
	s->nfiles--;
	srv_unref_locked(f);
	pthread_mutex_unlock(&s->lock);
}

/* Is the anchor dead (no client end open anywhere)? */
static bool srv_anchor_dead(int a)
{
	struct pollfd p = {.fd = a, .events = POLLIN | POLLRDHUP};

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

static void srv_mark_hup(struct srv *s, struct srv_file *f)
{
	bool close_now = false;

	pthread_mutex_lock(&s->lock);
	if (!f->hup) {
		f->hup = true;
		close_now = srv_claim_close_locked(s, f);
	}
	pthread_mutex_unlock(&s->lock);
	if (close_now)
		srv_do_close(s, f);
}

static int srv_file_new(struct srv *s, struct i915_gem_file *file, bool cloexec, int *anchor,
			struct srv_file **out)
{
	struct epoll_event ev = {.events = EPOLLRDHUP};
	struct srv_file *f = calloc(1, sizeof(*f));
	struct stat st;
	int sv[2];

	if (!f)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(f);
		return -errno;
	}
	if ((!cloexec && fcntl(sv[1], F_SETFD, 0)) || fstat(sv[1], &st)) {
		int err = -errno;

		srv_close(sv[0]);
		srv_close(sv[1]);
		free(f);
		return err;
	}
	f->id = (uint64_t)st.st_ino;
	f->file = file;
	f->a = sv[0];
	f->refs = 2; /* the table's and the watcher's */
	ev.data.ptr = f;
	pthread_mutex_lock(&s->lock);
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, f->a, &ev)) {
		int err = -errno;

		pthread_mutex_unlock(&s->lock);
		srv_close(sv[0]);
		srv_close(sv[1]);
		free(f);
		return err;
	}
	f->next = *srv_bucket(s, f->id);
	*srv_bucket(s, f->id) = f;
	s->nfiles++;
	if (out) {
		f->refs++;
		*out = f;
	}
	pthread_mutex_unlock(&s->lock);
	*anchor = sv[1];
	return 0;
}

int srv_file_add(struct srv *s, struct i915_gem_file *file, bool cloexec, int *anchor, uint64_t *id)
{
	struct srv_file *f;
	int ret = srv_file_new(s, file, cloexec, anchor, &f);

	if (ret)
		return ret;
	*id = f->id;
	pthread_mutex_lock(&s->lock);
	srv_unref_locked(f);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

void srv_file_put(struct srv *s, uint64_t id)
{
	struct srv_file *f;
	bool dead;

	pthread_mutex_lock(&s->lock);
	f = srv_lookup_locked(s, id);
	if (f)
		f->refs++;
	pthread_mutex_unlock(&s->lock);
	if (!f)
		return;
	dead = srv_anchor_dead(f->a);
	if (dead)
		srv_mark_hup(s, f);
	pthread_mutex_lock(&s->lock);
	srv_unref_locked(f);
	pthread_mutex_unlock(&s->lock);
}

static void *srv_anchor_thread(void *arg)
{
	struct srv *s = arg;
	struct epoll_event ev[32];

	if (s->hooks.thread_init)
		s->hooks.thread_init(s->hooks.ctx);
	for (;;) {
		int n = epoll_wait(s->epfd, ev, 32, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		for (int i = 0; i < n; i++) {
			struct srv_file *f = ev[i].data.ptr;

			if (!f)
				return NULL; /* the stop eventfd */
			srv_mark_hup(s, f);
			pthread_mutex_lock(&s->lock);
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, f->a, NULL);
			srv_unref_locked(f);
			pthread_mutex_unlock(&s->lock);
		}
	}
}

/* ---- connections -------------------------------------------------------- */

static int srv_send(int fd, const struct srv_rep *rep, int pass_fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = {(void *)rep, sizeof(*rep)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (pass_fd >= 0) {
		struct cmsghdr *cm;

		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*rep) ? 0 : -EIO;
}

/*
 * Attach @f to @c (its reference is the caller's). Files closed since they
 * were attached go first: a client that opens and closes files in a loop
 * on one connection would otherwise keep every one (and its socket). Server
 * lock held.
 */
static int srv_conn_attach(struct srv_conn *c, struct srv_file *f)
{
	for (size_t i = 0; i < c->natt;) {
		if (c->att[i]->closed) {
			srv_unref_locked(c->att[i]);
			c->att[i] = c->att[--c->natt];
		} else {
			i++;
		}
	}
	if (c->natt == c->catt) {
		size_t cap = c->catt ? 2 * c->catt : 8;
		struct srv_file **a = realloc(c->att, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		c->att = a;
		c->catt = cap;
	}
	c->att[c->natt++] = f;
	return 0;
}

static struct srv_file *srv_conn_file(struct srv_conn *c, uint64_t id)
{
	for (size_t i = 0; i < c->natt; i++)
		if (c->att[i]->id == id)
			return c->att[i];
	return NULL;
}

static int srv_op_attach(struct srv_conn *c, const struct srv_req *req, int anchor)
{
	struct srv *s = c->s;
	struct srv_file *f;
	struct stat st;
	int ret;

	if (anchor < 0 || fstat(anchor, &st) || !S_ISSOCK(st.st_mode) ||
	    (uint64_t)st.st_ino != req->file)
		return -EBADF;
	if (srv_conn_file(c, req->file))
		return 0;
	pthread_mutex_lock(&s->lock);
	f = srv_lookup_locked(s, req->file);
	/*
	 * The inode proves the client holds the anchor, as long as the anchor
	 * is alive (a dead one's inode number could be reused).
	 */
	if (!f || f->hup || srv_anchor_dead(f->a)) {
		pthread_mutex_unlock(&s->lock);
		return -EBADF;
	}
	f->refs++;
	ret = srv_conn_attach(c, f);
	if (ret)
		srv_unref_locked(f);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static int srv_op_open(struct srv_conn *c, const struct srv_req *req, struct srv_rep *rep,
		       int *fd_out)
{
	struct srv *s = c->s;
	struct i915_gem_file *file;
	struct srv_file *f;
	int ret, anchor;

	if (req->request != 0 && req->request != 128)
		return -ENODEV;
	if (!srv_begin(s))
		return -EIO;
	ret = i915_gem_file_open(s->i915, req->request == 128, &file);
	if (ret) {
		srv_end(s);
		return ret;
	}
	ret = srv_file_new(s, file, true, &anchor, &f);
	if (ret) {
		i915_gem_file_close(file);
		srv_end(s);
		return ret;
	}
	srv_end(s);
	if (s->hooks.file_opened)
		s->hooks.file_opened(s->hooks.ctx);
	pthread_mutex_lock(&s->lock);
	if (srv_conn_attach(c, f))
		srv_unref_locked(f); /* usable after an ATTACH */
	pthread_mutex_unlock(&s->lock);
	rep->file = f->id;
	rep->flags |= SRV_REP_ANCHOR;
	*fd_out = anchor;
	return 0;
}

static size_t srv_peer_rw(pid_t pid, void *local, uint64_t remote, size_t n, bool write)
{
	struct iovec l = {local, n}, r = {(void *)(uintptr_t)remote, n};
	ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
			    : process_vm_readv(pid, &l, 1, &r, 1, 0);

	return got < 0 ? 0 : (size_t)got;
}

static int srv_map_add(struct srv_conn *c, void *saddr, size_t len, bool borrowed, uint64_t *id);

/*
 * An ioctl on a file (@f) or on a sync_file/dma-buf descriptor (@target),
 * with the descriptor fields of its argument translated.
 */
static int srv_op_ioctl(struct srv_conn *c, const struct srv_req *req, struct srv_file *f,
			int target, int infd, struct srv_rep *rep, int *fd_out)
{
	unsigned char head[SRV_FD_HEAD];
	size_t size = _IOC_SIZE(req->request), n = 0;
	int in_off, out_off, ret;
	int32_t orig = 0, sub = infd;
	bool swapped = false;

	if (size > sizeof(head))
		size = sizeof(head);
	if (req->arg && size && srv_fd_request((unsigned long)req->request))
		n = srv_peer_rw(c->pid, head, req->arg, size, false);
	srv_fd_fields((unsigned long)req->request, head, n, &in_off, &out_off);
	if (in_off >= 0 && (size_t)in_off + 4 <= n) {
		memcpy(&orig, head + in_off, sizeof(orig));
		/* The call reads our number for the client's descriptor. */
		swapped = srv_peer_rw(c->pid, &sub, req->arg + (uint64_t)in_off, 4, true) == 4;
	}
	if (!srv_begin(c->s))
		return -EIO;
	if (f) {
		/* A legacy CPU mmap creates a view: never while another goes (srv->maplock). */
		bool map = req->request == DRM_IOCTL_I915_GEM_MMAP;

		if (map)
			pthread_mutex_lock(&c->s->maplock);
		ret = i915_gem_ioctl(f->file, (unsigned long)req->request,
				     (void *)(uintptr_t)req->arg);
		if (map)
			pthread_mutex_unlock(&c->s->maplock);
	} else {
		enum drm_fd_kind kind = drm_fd_kind(target);

		if (kind == DRM_FD_SYNC_FILE)
			ret = drm_sync_file_ioctl(target, (unsigned long)req->request,
						  (void *)(uintptr_t)req->arg);
		else if (kind == DRM_FD_DMA_BUF)
			ret = drm_dma_buf_ioctl(target, (unsigned long)req->request,
						(void *)(uintptr_t)req->arg);
		else
			rep->flags |= SRV_REP_NOT_MINE, ret = -ENOTTY;
	}
	srv_end(c->s);
	if (swapped)
		srv_peer_rw(c->pid, &orig, req->arg + (uint64_t)in_off, 4, true);
	if (ret >= 0 && out_off >= 0 && (size_t)out_off + 4 <= size) {
		int32_t ours = -1;

		if (srv_peer_rw(c->pid, &ours, req->arg + (uint64_t)out_off, 4, false) == 4 &&
		    ours >= 0 && (swapped ? ours != sub : true)) {
			*fd_out = ours;
			rep->flags |= SRV_REP_FD;
			rep->fd_off = (uint32_t)out_off;
		}
	}
	/*
	 * The legacy CPU mmap ioctl mapped the object in our address space: the
	 * client gets a mapping of its own over that view.
	 */
	if (ret == 0 && f && req->request == DRM_IOCTL_I915_GEM_MMAP && c->pid != getpid()) {
		struct drm_i915_gem_mmap mm;

		if (srv_peer_rw(c->pid, &mm, req->arg, sizeof(mm), false) != sizeof(mm))
			return -EFAULT;
		ret = srv_map_add(c, (void *)(uintptr_t)mm.addr_ptr,
				  (size_t)((mm.size + 4095) & ~4095ull), false, &rep->map);
		if (!ret)
			rep->flags |= SRV_REP_MAP;
	}
	return ret;
}

/* ---- CPU mappings of client processes ------------------------------------ */

/*
 * A client process's mappings are the server's own CPU views of the objects
 * (i915_gem_mmap(), drm_dma_buf_mmap(), the legacy MMAP ioctl: each holds
 * its object and counts as one map), named to the client by an id. A
 * client access faults in the client (a reserved range of its own); it
 * asks SRV_OP_FAULT, which runs the object's fault path on the server's
 * view (ttm_bo_vm_fault_backing()) and answers where the pages live in the
 * pool's memfd, so the client maps the same memory.
 *
 * Before TTM moves, swaps out, purges or evicts a BO whose pages a client
 * was handed, ttm_bo_vm_unmap_virtual() calls srv_unmap_hook(), reserved:
 * every client mapping of the BO (and, conservatively, every mapping whose
 * first fault is in flight, its BO not known yet) gets a new revocation
 * number, and the client is told on its mapping channel and answers once
 * its pages are gone; the move waits for that (a dead client counts as
 * done). A fault answer carries the revocation number read before the
 * fault ran: the client drops an answer older than a revocation it saw.
 */

/* Servers alive, for the process-wide unmap hook; read-locked by the hook. */
static pthread_rwlock_t srv_all_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct srv *srv_all;

static struct srv_mm *srv_mm_find_locked(struct srv *s, pid_t pid)
{
	for (struct srv_mm *mm = s->mms; mm; mm = mm->next)
		if (mm->pid == pid && !mm->dead)
			return mm;
	return NULL;
}

static void srv_mm_put_locked(struct srv_mm *mm)
{
	if (--mm->refs)
		return;
	srv_close(mm->fd);
	pthread_mutex_destroy(&mm->io);
	free(mm);
}

static struct srv_map *srv_map_find_locked(struct srv *s, uint64_t id, pid_t pid)
{
	for (struct srv_map *m = s->maps; m; m = m->next)
		if (m->id == id && m->mm->pid == pid && !m->mm->dead)
			return m;
	return NULL;
}

static void srv_map_unlink_locked(struct srv *s, struct srv_map *m)
{
	for (struct srv_map **p = &s->maps; *p; p = &(*p)->next) {
		if (*p == m) {
			*p = m->next;
			m->next = NULL;
			s->nmaps--;
			return;
		}
	}
}

/* Drop a reference; the last one releases the server's view. Unlocked. */
static void srv_map_put(struct srv *s, struct srv_map *m)
{
	bool last;

	pthread_mutex_lock(&s->lock);
	last = --m->refs == 0;
	if (last)
		srv_mm_put_locked(m->mm);
	pthread_mutex_unlock(&s->lock);
	if (!last)
		return;
	if (!m->borrowed && srv_begin(s)) {
		pthread_mutex_lock(&s->maplock);
		i915_gem_munmap(s->i915, m->saddr, m->len);
		pthread_mutex_unlock(&s->maplock);
		srv_end(s);
	}
	free(m);
}

/* A new mapping of @c's process over the server's view @saddr (@len bytes). */
static int srv_map_add(struct srv_conn *c, void *saddr, size_t len, bool borrowed, uint64_t *id)
{
	struct srv *s = c->s;
	struct srv_map *m = calloc(1, sizeof(*m));
	struct srv_mm *mm;

	pthread_mutex_lock(&s->lock);
	mm = srv_mm_find_locked(s, c->pid);
	if (!m || !mm) {
		int err = m ? -EINVAL : -ENOMEM;

		pthread_mutex_unlock(&s->lock);
		free(m);
		if (!borrowed && srv_begin(s)) {
			pthread_mutex_lock(&s->maplock);
			i915_gem_munmap(s->i915, saddr, len);
			pthread_mutex_unlock(&s->maplock);
			srv_end(s);
		}
		return err;
	}
	m->id = ++s->next_map;
	m->mm = mm;
	mm->refs++;
	m->saddr = saddr;
	m->len = len;
	m->borrowed = borrowed;
	m->refs = 1;
	m->next = s->maps;
	s->maps = m;
	s->nmaps++;
	*id = m->id;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/*
 * Tell @mm to drop mapping @id's pages (revocation @rev) and wait for its
 * answer. A channel that fails or answers wrong is shut down: its process
 * is treated as dead (its mappings are released by the channel's watcher).
 */
static void srv_mm_revoke(struct srv_mm *mm, uint64_t id, uint64_t rev)
{
	struct srv_req r = {.magic = SRV_MAGIC, .op = SRV_OP_REVOKE, .file = id, .arg = rev};
	struct srv_rep a;
	ssize_t n;

	pthread_mutex_lock(&mm->io);
	if (!mm->dead && !mm->broken) {
		do
			n = send(mm->fd, &r, sizeof(r), MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)sizeof(r)) {
			do
				n = recv(mm->fd, &a, sizeof(a), 0);
			while (n < 0 && errno == EINTR);
		}
		if (n != (ssize_t)sizeof(a) || a.magic != SRV_MAGIC || a.map != id) {
			mm->broken = true;
			shutdown(mm->fd, SHUT_RDWR);
		} else {
			pthread_mutex_lock(&mm->s->lock);
			mm->s->revokes++;
			pthread_mutex_unlock(&mm->s->lock);
		}
	}
	pthread_mutex_unlock(&mm->io);
}

/* ttm_bo_vm_unmap_virtual() of a BO whose pages clients were handed. Reserved. */
static void srv_unmap_hook(const void *bo, uint64_t seq)
{
	static _Atomic uint64_t tokens;
	uint64_t token = atomic_fetch_add(&tokens, 1) + 1;

	(void)seq;
	pthread_rwlock_rdlock(&srv_all_lock);
	for (struct srv *s = srv_all; s; s = s->all_next) {
		for (;;) {
			struct srv_map *m, *hit = NULL;
			struct srv_mm *mm = NULL;
			uint64_t id = 0, rev = 0;

			pthread_mutex_lock(&s->lock);
			for (m = s->maps; m && !hit; m = m->next) {
				if (m->token == token || m->mm->dead ||
				    !(m->bo == bo || (m->faulting && !m->bo)))
					continue;
				hit = m;
			}
			if (hit) {
				hit->token = token;
				rev = ++hit->rev;
				id = hit->id;
				mm = hit->mm;
				mm->refs++;
			}
			pthread_mutex_unlock(&s->lock);
			if (!hit)
				break;
			srv_mm_revoke(mm, id, rev);
			pthread_mutex_lock(&s->lock);
			srv_mm_put_locked(mm);
			pthread_mutex_unlock(&s->lock);
		}
	}
	pthread_rwlock_unlock(&srv_all_lock);
}

static int srv_op_mm(struct srv_conn *c, struct srv_mm **out)
{
	struct srv *s = c->s;
	struct srv_mm *mm;
	int fd;

	pthread_mutex_lock(&s->lock);
	if (srv_mm_find_locked(s, c->pid)) {
		pthread_mutex_unlock(&s->lock);
		return -EEXIST;
	}
	pthread_mutex_unlock(&s->lock);
	mm = calloc(1, sizeof(*mm));
	fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);
	if (!mm || fd < 0) {
		srv_close(fd);
		free(mm);
		return -ENOMEM;
	}
	mm->s = s;
	mm->pid = c->pid;
	mm->fd = fd;
	mm->refs = 2; /* the list's and the watcher's */
	pthread_mutex_init(&mm->io, NULL);
	pthread_mutex_lock(&s->lock);
	mm->next = s->mms;
	s->mms = mm;
	pthread_mutex_unlock(&s->lock);
	*out = mm;
	return 0;
}

/*
 * The mapping channel's connection thread, after SRV_OP_MM was answered:
 * revocations talk on the channel, this thread only waits for it to close,
 * then releases every mapping of the process, as the exit of a process
 * unmaps its vmas.
 */
static void srv_mm_watch(struct srv_conn *c, struct srv_mm *mm)
{
	struct srv *s = c->s;
	struct pollfd p = {.fd = c->fd, .events = 0};
	struct srv_map *gone = NULL, **pp;

	while (!(poll(&p, 1, -1) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))))
		;
	pthread_mutex_lock(&mm->io);
	pthread_mutex_lock(&s->lock);
	mm->dead = true;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&mm->io);

	pthread_mutex_lock(&s->lock);
	for (struct srv_mm **q = &s->mms; *q; q = &(*q)->next) {
		if (*q == mm) {
			*q = mm->next;
			break;
		}
	}
	pp = &s->maps;
	while (*pp) {
		struct srv_map *m = *pp;

		if (m->mm != mm) {
			pp = &m->next;
			continue;
		}
		*pp = m->next;
		s->nmaps--;
		m->next = gone;
		gone = m;
	}
	srv_mm_put_locked(mm); /* the list's */
	pthread_mutex_unlock(&s->lock);
	while (gone) {
		struct srv_map *m = gone;

		gone = m->next;
		srv_map_put(s, m);
	}
	pthread_mutex_lock(&s->lock);
	srv_mm_put_locked(mm); /* the watcher's */
	pthread_mutex_unlock(&s->lock);
}

static int srv_op_mmap(struct srv_conn *c, const struct srv_req *req, int dmabuf,
		       struct srv_rep *rep)
{
	struct srv *s = c->s;
	struct srv_file *f = NULL;
	void *saddr = NULL;
	int ret;

	if (!req->arg || req->arg % 4096 || req->arg > SIZE_MAX || req->request > INT64_MAX)
		return -EINVAL;
	if (!(req->flags & SRV_REQ_FD)) {
		f = srv_conn_file(c, req->file);
		if (!f)
			return -EBADF;
	} else if (dmabuf < 0) {
		return -EBADF;
	}
	if (!srv_begin(s))
		return -EIO;
	pthread_mutex_lock(&s->maplock);
	if (f) {
		ret = i915_gem_mmap(f->file, NULL, (size_t)req->arg, (int)req->aux, MAP_SHARED,
				    (off_t)req->request, &saddr);
	} else if (drm_fd_kind(dmabuf) == DRM_FD_DMA_BUF) {
		ret = drm_dma_buf_mmap(dmabuf, NULL, (size_t)req->arg, (int)req->aux, MAP_SHARED,
				       (off_t)req->request, &saddr);
	} else {
		rep->flags |= SRV_REP_NOT_MINE;
		ret = -ENODEV;
	}
	pthread_mutex_unlock(&s->maplock);
	srv_end(s);
	if (ret)
		return ret;
	return srv_map_add(c, saddr, (size_t)req->arg, false, &rep->map);
}

/* Has this connection been handed memfd @ino already? Records it if not. */
static bool srv_conn_memfd_sent(struct srv_conn *c, uint64_t ino)
{
	for (size_t i = 0; i < c->nsent; i++)
		if (c->sent[i] == ino)
			return true;
	if (c->nsent < sizeof(c->sent) / sizeof(c->sent[0]))
		c->sent[c->nsent++] = ino;
	return false;
}

static int srv_op_fault(struct srv_conn *c, const struct srv_req *req, struct srv_rep *rep,
			int *fd_out)
{
	struct srv *s = c->s;
	struct ttm_bo_vm_backing b;
	struct srv_map *m;
	struct stat st;
	uint64_t rev;
	int ret;

	pthread_mutex_lock(&s->lock);
	m = srv_map_find_locked(s, req->file, c->pid);
	if (!m || req->arg >= m->len || req->arg % 4096) {
		pthread_mutex_unlock(&s->lock);
		return -EINVAL;
	}
	m->refs++;
	m->faulting++;
	rev = m->rev;
	pthread_mutex_unlock(&s->lock);

	if (srv_begin(s)) {
		ret = ttm_bo_vm_fault_backing((const char *)m->saddr + req->arg, &b);
		srv_end(s);
	} else {
		ret = -EIO;
	}
	pthread_mutex_lock(&s->lock);
	m->faulting--;
	if (!ret)
		m->bo = b.bo;
	pthread_mutex_unlock(&s->lock);

	if (!ret && fstat(b.fd, &st))
		ret = -errno;
	if (!ret) {
		uint64_t left = (m->len - req->arg) / 4096;

		rep->map_off = b.offset;
		rep->map_pages = b.pages < left ? b.pages : left;
		rep->map_rev = rev;
		rep->map_ino = (uint64_t)st.st_ino;
		if (!srv_conn_memfd_sent(c, rep->map_ino)) {
			*fd_out = fcntl(b.fd, F_DUPFD_CLOEXEC, 0);
			if (*fd_out < 0)
				ret = -EMFILE;
			else
				rep->flags |= SRV_REP_MEMFD;
		}
	}
	srv_map_put(s, m);
	/* Memory the client cannot share (lmem, a CPU-cache copy): SIGBUS there. */
	return ret;
}

/* Is @pid a descendant of this process (fork children and theirs)? */
static bool srv_pid_descends(pid_t pid)
{
	pid_t self = getpid();

	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		char path[48], buf[512], *p;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		srv_close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		/* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %d", &pid) != 1)
			return false;
		if (pid == self)
			return true;
	}
	return false;
}

/*
 * A fork descendant's copy of one of our mappings: its address space was a
 * copy of ours, so the address names our view of the object. Only a
 * descendant may ask (an unrelated client naming our addresses would reach
 * objects it has no handle of).
 */
static int srv_op_adopt(struct srv_conn *c, const struct srv_req *req, struct srv_rep *rep)
{
	if (!req->arg || req->arg % 4096 || !req->request || req->request % 4096 ||
	    req->request > SIZE_MAX || req->arg + req->request < req->arg)
		return -EINVAL;
	if (c->pid == getpid() || !srv_pid_descends(c->pid))
		return -EPERM;
	return srv_map_add(c, (void *)(uintptr_t)req->arg, (size_t)req->request, true, &rep->map);
}
static int srv_op_munmap(struct srv_conn *c, const struct srv_req *req)
{
	struct srv *s = c->s;
	struct srv_map *m;

	pthread_mutex_lock(&s->lock);
	m = srv_map_find_locked(s, req->file, c->pid);
	if (m)
		srv_map_unlink_locked(s, m);
	pthread_mutex_unlock(&s->lock);
	if (!m)
		return -EINVAL;
	srv_map_put(s, m);
	return 0;
}
/* Keep a descriptor sent to the client (a dma-buf: see srv_serve_fd()). */
static void srv_conn_hold(struct srv_conn *c, int fd)
{
	if (c->nheld == c->cheld) {
		size_t cap = c->cheld ? 2 * c->cheld : 8;
		int *h = realloc(c->held, cap * sizeof(*h));

		if (!h) {
			srv_close(fd);
			return;
		}
		c->held = h;
		c->cheld = cap;
	}
	c->held[c->nheld++] = fd;
	pthread_mutex_lock(&c->s->lock);
	c->s->nheld++;
	pthread_mutex_unlock(&c->s->lock);
}

/* A call on @f ended: close it now if its anchor died meanwhile. */
static void srv_file_call_done(struct srv *s, struct srv_file *f)
{
	bool close_now;

	pthread_mutex_lock(&s->lock);
	f->active--;
	f->refs++;
	close_now = srv_claim_close_locked(s, f);
	srv_unref_locked(f);
	pthread_mutex_unlock(&s->lock);
	if (close_now)
		srv_do_close(s, f);
}

static void srv_conn_loop(struct srv_conn *c)
{
	struct srv *s = c->s;

	drm_user_set_target(c->pid);
	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * SRV_MAX_FDS)];
			struct cmsghdr align;
		} cb;
		struct srv_req req;
		struct iovec iov = {&req, sizeof(req)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cb.buf,
				    .msg_controllen = sizeof(cb.buf)};
		struct srv_rep rep = {.magic = SRV_MAGIC};
		int fds[SRV_MAX_FDS] = {-1, -1}, nfds = 0, fd_out = -1;
		struct srv_mm *watch_mm = NULL;
		struct srv_file *f;
		ssize_t n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (nfds < SRV_MAX_FDS)
					fds[nfds++] = fd;
				else
					srv_close(fd);
			}
		}
		pthread_mutex_lock(&s->lock);
		s->calls++;
		pthread_mutex_unlock(&s->lock);
		if (n != (ssize_t)sizeof(req) || req.magic != SRV_MAGIC) {
			rep.ret = -EPROTO;
		} else {
			switch (req.op) {
			case SRV_OP_OPEN:
				rep.ret = nfds ? -EINVAL : srv_op_open(c, &req, &rep, &fd_out);
				break;
			case SRV_OP_ATTACH:
				rep.ret = nfds == 1 ? srv_op_attach(c, &req, fds[0]) : -EBADF;
				break;
			case SRV_OP_IOCTL:
				f = srv_conn_file(c, req.file);
				if (!f) {
					rep.ret = -EBADF;
					break;
				}
				pthread_mutex_lock(&s->lock);
				if (f->hup) {
					pthread_mutex_unlock(&s->lock);
					rep.ret = -EBADF;
					break;
				}
				f->active++;
				pthread_mutex_unlock(&s->lock);
				rep.ret = srv_op_ioctl(
				    c, &req, f, -1, (req.flags & SRV_REQ_FD) && nfds ? fds[0] : -1,
				    &rep, &fd_out);
				srv_file_call_done(s, f);
				break;
			case SRV_OP_FD_IOCTL:
				if (!nfds) {
					rep.ret = -EBADF;
					break;
				}
				rep.ret =
				    srv_op_ioctl(c, &req, NULL, fds[0],
						 (req.flags & SRV_REQ_FD) && nfds > 1 ? fds[1] : -1,
						 &rep, &fd_out);
				break;
			case SRV_OP_MM:
				rep.ret = nfds ? -EINVAL : srv_op_mm(c, &watch_mm);
				break;
			case SRV_OP_MMAP:
				if (!(req.flags & SRV_REQ_FD)) {
					f = srv_conn_file(c, req.file);
					if (!f || nfds) {
						rep.ret = -EBADF;
						break;
					}
					pthread_mutex_lock(&s->lock);
					if (f->hup) {
						pthread_mutex_unlock(&s->lock);
						rep.ret = -EBADF;
						break;
					}
					f->active++;
					pthread_mutex_unlock(&s->lock);
					rep.ret = srv_op_mmap(c, &req, -1, &rep);
					srv_file_call_done(s, f);
					break;
				}
				rep.ret = nfds == 1 ? srv_op_mmap(c, &req, fds[0], &rep) : -EBADF;
				break;
			case SRV_OP_FAULT:
				rep.ret = nfds ? -EINVAL : srv_op_fault(c, &req, &rep, &fd_out);
				break;
			case SRV_OP_MUNMAP:
				rep.ret = nfds ? -EINVAL : srv_op_munmap(c, &req);
				break;
			case SRV_OP_ADOPT:
				rep.ret = nfds ? -EINVAL : srv_op_adopt(c, &req, &rep);
				break;
			case SRV_OP_CLOSE:
				/* Only a dead anchor's file closes: nothing to prove. */
				srv_file_put(s, req.file);
				rep.ret = nfds ? -EINVAL : 0;
				break;
			case SRV_OP_STATS:
				srv_get_stats(s, &rep.stats);
				rep.ret = 0;
				break;
			default:
				rep.ret = -EINVAL;
				break;
			}
		}
		for (int i = 0; i < nfds; i++)
			srv_close(fds[i]);
		if (srv_send(c->fd, &rep, fd_out) || watch_mm) {
			srv_close(fd_out);
			/* A mapping channel: revocations use it from now on. */
			if (watch_mm)
				srv_mm_watch(c, watch_mm);
			return;
		}
		/*
		 * The client has its copy now. A dma-buf's liveness is judged by
		 * the descriptors of the process holding the driver (drm_fd.h), so
		 * ours stays open while the connection lives; a sync_file or
		 * syncobj pipe is counted by the kernel in every process.
		 */
		if (fd_out >= 0) {
			if (!(rep.flags & SRV_REP_ANCHOR) && drm_fd_kind(fd_out) == DRM_FD_DMA_BUF)
				srv_conn_hold(c, fd_out);
			else
				srv_close(fd_out);
		}
	}
}

void srv_serve_fd(struct srv *s, int fd, pid_t pid)
{
	struct srv_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		srv_close(fd);
		return;
	}
	c->s = s;
	c->fd = fd;
	c->pid = pid;
	pthread_mutex_lock(&s->lock);
	c->next = s->conns;
	if (s->conns)
		s->conns->pprev = &c->next;
	c->pprev = &s->conns;
	s->conns = c;
	s->nconns++;
	pthread_mutex_unlock(&s->lock);

	srv_conn_loop(c);

	/* The client is gone: what it held here goes, as at a process's exit. */
	for (size_t i = 0; i < c->nheld; i++)
		srv_close(c->held[i]);
	pthread_mutex_lock(&s->lock);
	s->nheld -= c->nheld;
	for (size_t i = 0; i < c->natt; i++)
		srv_unref_locked(c->att[i]);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	s->nconns--;
	pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
	srv_close(fd);
	free(c->att);
	free(c->held);
	free(c);
}

struct srv_conn_start {
	struct srv *s;
	int fd;
	pid_t pid;
};

static void *srv_conn_thread(void *arg)
{
	struct srv_conn_start st = *(struct srv_conn_start *)arg;

	free(arg);
	if (st.s->hooks.thread_init)
		st.s->hooks.thread_init(st.s->hooks.ctx);
	srv_serve_fd(st.s, st.fd, st.pid);
	return NULL;
}

static void *srv_accept_thread(void *arg)
{
	struct srv *s = arg;

	if (s->hooks.thread_init)
		s->hooks.thread_init(s->hooks.ctx);
	for (;;) {
		struct srv_conn_start *st;
		struct ucred cred;
		socklen_t len = sizeof(cred);
		pthread_attr_t attr;
		pthread_t t;
		int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOMEM) {
				if (errno != EINTR && errno != ECONNABORTED)
					usleep(1000);
				continue;
			}
			return NULL; /* shut down */
		}
		/* Owner-only: the directory is 0700, and the peer must be us. */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
		    (cred.uid != geteuid() && geteuid() != 0)) {
			srv_close(fd);
			continue;
		}
		st = malloc(sizeof(*st));
		if (!st) {
			srv_close(fd);
			continue;
		}
		*st = (struct srv_conn_start){s, fd, cred.pid};
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 256 << 10);
		if (pthread_create(&t, &attr, srv_conn_thread, st)) {
			free(st);
			srv_close(fd);
		}
		pthread_attr_destroy(&attr);
	}
}

/* ---- the server --------------------------------------------------------- */

int srv_socket_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (xdg && *xdg)
		n = snprintf(buf, len, "%s/ttm-i915", xdg);
	else
		n = snprintf(buf, len, "/tmp/ttm-i915-%u", (unsigned int)geteuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(buf, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

int srv_create(struct i915_device *i915, const char *path, const struct srv_hooks *hooks,
	       struct srv **out)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	sigset_t all, old;
	struct srv *s;
	int ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->i915 = i915;
	if (hooks)
		s->hooks = *hooks;
	strcpy(s->path, path);
	strcpy(sa.sun_path, path);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->idle, NULL);
	pthread_mutex_init(&s->maplock, NULL);
	s->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->stopfd = eventfd(0, EFD_CLOEXEC);
	if (s->lfd < 0 || s->epfd < 0 || s->stopfd < 0)
		goto err_errno;
	unlink(path);
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(s->lfd, 128) ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->stopfd, &ev))
		goto err_errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&s->accept_thread, NULL, srv_accept_thread, s);
	if (!ret) {
		ret = -pthread_create(&s->anchor_thread, NULL, srv_anchor_thread, s);
		if (ret) {
			shutdown(s->lfd, SHUT_RDWR);
			pthread_join(s->accept_thread, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		unlink(path);
		goto err;
	}
	s->threads = true;
	pthread_rwlock_wrlock(&srv_all_lock);
	s->all_next = srv_all;
	srv_all = s;
	pthread_rwlock_unlock(&srv_all_lock);
	ttm_bo_vm_set_unmap_hook(srv_unmap_hook);
	*out = s;
	return 0;

err_errno:
	ret = -errno;
err:
	srv_close(s->lfd);
	srv_close(s->epfd);
	srv_close(s->stopfd);
	free(s);
	return ret;
}

void srv_destroy(struct srv *s)
{
	uint64_t one = 1;
	ssize_t w;

	if (!s)
		return;
	/* No new connections; the live ones end at their next receive. */
	shutdown(s->lfd, SHUT_RDWR);
	if (s->threads)
		pthread_join(s->accept_thread, NULL);
	unlink(s->path);
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	for (struct srv_conn *c = s->conns; c; c = c->next)
		shutdown(c->fd, SHUT_RDWR);
	while (s->nconns)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
	/* Every mapping channel was closed with its connection: no mapping is left. */
	pthread_rwlock_wrlock(&srv_all_lock);
	for (struct srv **p = &srv_all; *p; p = &(*p)->all_next) {
		if (*p == s) {
			*p = s->all_next;
			break;
		}
	}
	pthread_rwlock_unlock(&srv_all_lock);
	w = write(s->stopfd, &one, sizeof(one));
	(void)w;
	if (s->threads)
		pthread_join(s->anchor_thread, NULL);
	/* Files still held by anchors somewhere: closed now, as the device goes. */
	for (unsigned int b = 0; b < SRV_BUCKETS; b++) {
		while (s->buckets[b]) {
			struct srv_file *f = s->buckets[b];

			s->buckets[b] = f->next;
			if (!f->closed && srv_begin(s)) {
				i915_gem_file_close(f->file);
				srv_end(s);
				if (s->hooks.file_closed)
					s->hooks.file_closed(s->hooks.ctx);
			}
			srv_close(f->a);
			free(f);
		}
	}
	srv_close(s->lfd);
	srv_close(s->epfd);
	srv_close(s->stopfd);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->maplock);
	free(s);
}

const char *srv_path(const struct srv *s)
{
	return s->path;
}

void srv_get_stats(struct srv *s, struct srv_stats *st)
{
	pthread_mutex_lock(&s->lock);
	st->files = s->nfiles;
	st->conns = s->nconns;
	st->calls = s->calls;
	st->held_fds = s->nheld;
	st->maps = s->nmaps;
	st->revokes = s->revokes;
	pthread_mutex_unlock(&s->lock);
	/* GEM objects alive: the first number of debugfs i915_gem_objects. */
	st->objects = -1;
	if (srv_begin(s)) {
		char *text = NULL;
		size_t len;

		if (!i915_gem_debugfs_read(s->i915, "i915_gem_objects", &text, &len))
			st->objects = strtoll(text, NULL, 10);
		free(text);
		srv_end(s);
	}
}
