// SPDX-License-Identifier: MIT
/*
 * The fd-object table (see drmcore/drm_fd.h): process-wide because file
 * descriptors are. One mutex guards the hash table and every object's
 * @fd_ref; liveness scans run under it, so a descriptor created by
 * drm_fd_obj_new_fd() can never be missed by a concurrent sweep.
 */
#include "drm_fd_priv.h"
#include "drm_sys.h"

#include <drmcore/drm_faults.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DRM_FD_BUCKETS 256
#define DRM_FD_GC_EVERY 64

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* Serialises sweeps (see drm_fd_gc()); taken before @table_lock. */
static pthread_mutex_t gc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct drm_fd_obj *table[DRM_FD_BUCKETS];
/* Written under @table_lock; read without it (interposers ask it on every call). */
static atomic_uint table_count;
static atomic_uint creations;

static unsigned bucket(dev_t dev, ino_t ino)
{
	return (unsigned)((ino ^ (ino >> 8) ^ dev) % DRM_FD_BUCKETS);
}

static void table_add_locked(struct drm_fd_obj *obj)
{
	unsigned b = bucket(obj->dev, obj->ino);

	obj->next = table[b];
	table[b] = obj;
	obj->in_table = true;
	table_count++;
}

static void table_del_locked(struct drm_fd_obj *obj)
{
	struct drm_fd_obj **p = &table[bucket(obj->dev, obj->ino)];

	if (!obj->in_table)
		return;
	while (*p && *p != obj)
		p = &(*p)->next;
	if (*p)
		*p = obj->next;
	obj->in_table = false;
	table_count--;
}

static struct drm_fd_obj *table_find_locked(dev_t dev, ino_t ino)
{
	for (struct drm_fd_obj *o = table[bucket(dev, ino)]; o; o = o->next)
		if (o->dev == dev && o->ino == ino)
			return o;
	return NULL;
}

static int register_obj(struct drm_fd_obj *obj, enum drm_fd_kind kind, bool is_pipe,
			void (*release)(struct drm_fd_obj *obj))
{
	struct stat st;

	if (drm_sys_fstat(obj->keep_fd, &st))
		return -errno;
	obj->kind = kind;
	obj->is_pipe = is_pipe;
	obj->dev = st.st_dev;
	obj->ino = st.st_ino;
	obj->release = release;
	atomic_init(&obj->refcount, 1);
	pthread_mutex_lock(&table_lock);
	obj->fd_ref = true;
	table_add_locked(obj);
	pthread_mutex_unlock(&table_lock);
	return 0;
}

int drm_fd_obj_install_pipe(struct drm_fd_obj *obj, enum drm_fd_kind kind, int flags, int *fd,
			    void (*release)(struct drm_fd_obj *obj))
{
	int p[2], ret;

	if (drm_sys_pipe2(p, O_CLOEXEC))
		return -errno;
	/* Our end never blocks a fence callback. */
	if (drm_sys_fcntl(p[1], F_SETFL, O_NONBLOCK) ||
	    (!(flags & O_CLOEXEC) && drm_sys_fcntl(p[0], F_SETFD, 0))) {
		ret = -errno;
		goto err;
	}
	obj->keep_fd = p[1];
	ret = register_obj(obj, kind, true, release);
	if (ret)
		goto err;
	*fd = p[0];
	return 0;
err:
	drm_sys_close(p[0]);
	drm_sys_close(p[1]);
	return ret;
}

static int reopen(int keep_fd, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", keep_fd);
	fd = drm_sys_open(path, ((flags & O_ACCMODE) == O_RDWR ? O_RDWR : O_RDONLY) |
				    (flags & O_CLOEXEC));
	return fd < 0 ? -errno : fd;
}

int drm_fd_obj_install_memfd(struct drm_fd_obj *obj, enum drm_fd_kind kind, uint64_t size,
			     int flags, int *fd, void (*release)(struct drm_fd_obj *obj))
{
	int m, ufd, ret;

	m = drm_sys_memfd_create("dmabuf", MFD_CLOEXEC);
	if (m < 0)
		return -errno;
	if (drm_sys_ftruncate(m, (off_t)size)) {
		ret = -errno;
		goto err;
	}
	ufd = reopen(m, flags);
	if (ufd < 0) {
		ret = ufd;
		goto err;
	}
	obj->keep_fd = m;
	ret = register_obj(obj, kind, false, release);
	if (ret) {
		drm_sys_close(ufd);
		goto err;
	}
	*fd = ufd;
	return 0;
err:
	drm_sys_close(m);
	return ret;
}

int drm_fd_obj_new_fd(struct drm_fd_obj *obj, int flags, int *fd)
{
	int ufd;

	if (obj->is_pipe)
		return -EINVAL;
	pthread_mutex_lock(&table_lock);
	ufd = reopen(obj->keep_fd, flags);
	if (ufd >= 0 && !obj->fd_ref) {
		obj->fd_ref = true;
		atomic_fetch_add(&obj->refcount, 1);
	}
	pthread_mutex_unlock(&table_lock);
	if (ufd < 0)
		return ufd;
	*fd = ufd;
	return 0;
}

struct drm_fd_obj *drm_fd_obj_lookup(int fd, enum drm_fd_kind kind, int *err)
{
	struct drm_fd_obj *o;
	struct stat st;

	if (fd < 0 || drm_sys_fstat(fd, &st)) {
		*err = -EBADF;
		return NULL;
	}
	pthread_mutex_lock(&table_lock);
	o = table_find_locked(st.st_dev, st.st_ino);
	if (o && (kind == DRM_FD_NONE || o->kind == kind)) {
		/* A put may be about to remove it. */
		if (!drm_fd_obj_get_unless_zero(o))
			o = NULL;
	} else {
		o = NULL;
	}
	pthread_mutex_unlock(&table_lock);
	if (!o)
		*err = -EINVAL;
	return o;
}

void drm_fd_obj_get(struct drm_fd_obj *obj)
{
	atomic_fetch_add_explicit(&obj->refcount, 1, memory_order_relaxed);
}

bool drm_fd_obj_get_unless_zero(struct drm_fd_obj *obj)
{
	long r = atomic_load(&obj->refcount);

	while (r > 0 && !atomic_compare_exchange_weak(&obj->refcount, &r, r + 1))
		;
	return r > 0;
}

void drm_fd_obj_put(struct drm_fd_obj *obj)
{
	int kfd;

	if (atomic_fetch_sub_explicit(&obj->refcount, 1, memory_order_acq_rel) != 1)
		return;
	pthread_mutex_lock(&table_lock);
	table_del_locked(obj);
	pthread_mutex_unlock(&table_lock);
	kfd = obj->keep_fd;
	/* Release first: a fence callback may still write to our pipe end. */
	obj->release(obj);
	drm_sys_close(kfd);
}

/* A pipe has no reader left anywhere: our write end polls POLLERR. */
static bool pipe_dead(struct drm_fd_obj *obj)
{
	struct pollfd p = {.fd = obj->keep_fd, .events = POLLOUT};

	return drm_sys_poll_now(&p) == 1 && (p.revents & POLLERR);
}

/*
 * The (dev, ino) pairs other descriptors and mappings of this process
 * refer to, for the memfd objects' liveness.
 */
struct ref_set {
	struct {
		dev_t dev;
		ino_t ino;
	} * v;
	size_t n, cap;
};

/* Returns false when out of memory: the set is then incomplete. */
static bool ref_add(struct ref_set *s, dev_t dev, ino_t ino)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		void *v;

		if (fault_should_fail(&drm_fault_fd_scan_alloc, cap * sizeof(*s->v)))
			return false;
		v = realloc(s->v, cap * sizeof(*s->v));
		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].dev = dev;
	s->v[s->n].ino = ino;
	s->n++;
	return true;
}

static unsigned ref_count(const struct ref_set *s, dev_t dev, ino_t ino)
{
	unsigned c = 0;

	for (size_t i = 0; i < s->n; i++)
		c += s->v[i].dev == dev && s->v[i].ino == ino;
	return c;
}

/*
 * Returns false when the scan could not be made or is incomplete (out of
 * memory): the caller then keeps every object, as a reference it did not
 * see may be live.
 */
static bool ref_scan(struct ref_set *s)
{
	char dents[4096], path[64];
	struct stat st;
	char *maps = NULL;
	size_t len = 0, cap = 0;
	bool complete = true;
	ssize_t n;
	int dir, fd;

	dir = drm_sys_open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return false;
	while ((n = drm_sys_getdents64(dir, dents, sizeof(dents))) > 0) {
		for (ssize_t off = 0; off < n;) {
			/* struct linux_dirent64: ino, off, reclen, type, name. */
			unsigned short reclen;
			const char *name = dents + off + 19;
			char *end;
			long num;

			memcpy(&reclen, dents + off + 16, sizeof(reclen));
			off += reclen;
			num = strtol(name, &end, 10);
			if (*end || end == name || num == dir)
				continue;
			/*
			 * stat() through the link, not fstat(): the descriptor may be
			 * another thread's, closed and reused under us; the path
			 * names whatever it is now and never touches the descriptor.
			 */
			snprintf(path, sizeof(path), "/proc/self/fd/%ld", num);
			if (!drm_sys_stat(path, &st))
				complete &= ref_add(s, st.st_dev, st.st_ino);
		}
	}
	drm_sys_close(dir);
	if (n < 0 || !complete)
		return false;

	fd = drm_sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (;;) {
		if (cap - len < 4096) {
			char *m = NULL;

			if (!fault_should_fail(&drm_fault_fd_scan_alloc, cap + 65536))
				m = realloc(maps, cap + 65536);
			if (!m) {
				complete = false;
				break;
			}
			maps = m;
			cap += 65536;
		}
		n = drm_sys_read(fd, maps + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	drm_sys_close(fd);
	if (n < 0 || !maps || !complete) {
		free(maps);
		return false;
	}
	maps[len] = '\0';
	for (char *line = maps; line && *line;) {
		char *next = strchr(line, '\n');
		unsigned maj, min;
		unsigned long long ino;

		if (next)
			*next++ = '\0';
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3 && ino)
			complete &= ref_add(s, makedev(maj, min), (ino_t)ino);
		line = next;
	}
	free(maps);
	return complete;
}

/* Under the table lock: drop the descriptors' reference of a dead object. */
static bool check_locked(struct drm_fd_obj *obj, const struct ref_set *refs)
{
	bool dead;

	if (!obj->fd_ref)
		return false;
	if (obj->is_pipe)
		dead = pipe_dead(obj);
	else
		dead = refs && ref_count(refs, obj->dev, obj->ino) <= 1; /* ours only */
	if (dead)
		obj->fd_ref = false;
	return dead;
}

enum drm_fd_kind drm_fd_kind(int fd)
{
	struct drm_fd_obj *o;
	enum drm_fd_kind k;
	int err;

	o = drm_fd_obj_lookup(fd, DRM_FD_NONE, &err);
	if (!o)
		return DRM_FD_NONE;
	k = o->kind;
	drm_fd_obj_put(o);
	return k;
}

int drm_fd_close(int fd, int (*close_fn)(int))
{
	struct drm_fd_obj *o;
	int ret, err, saved;
	bool dead = false;

	o = drm_fd_obj_lookup(fd, DRM_FD_NONE, &err);
	ret = close_fn ? close_fn(fd) : drm_sys_close(fd);
	saved = errno;
	if (!o)
		return ret;
	pthread_mutex_lock(&table_lock);
	if (o->is_pipe) {
		dead = check_locked(o, NULL);
	} else {
		struct ref_set refs = {0};

		if (ref_scan(&refs))
			dead = check_locked(o, &refs);
		free(refs.v);
	}
	pthread_mutex_unlock(&table_lock);
	if (dead)
		drm_fd_obj_put(o);
	drm_fd_obj_put(o);
	errno = saved;
	return ret;
}

unsigned drm_fd_gc(void)
{
	struct drm_fd_obj **dead = NULL;
	struct ref_set refs = {0};
	bool have_refs;
	unsigned n = 0, cap = 0;

	/*
	 * One sweep at a time, puts included: a sweep returns only once every
	 * object dead when it started is released, even one a concurrent
	 * sweep (the reaper's) had already claimed.
	 */
	pthread_mutex_lock(&gc_lock);
	/* Scan under the lock: drm_fd_obj_new_fd() opens descriptors under it. */
	pthread_mutex_lock(&table_lock);
	have_refs = ref_scan(&refs);
	for (unsigned b = 0; b < DRM_FD_BUCKETS; b++) {
		for (struct drm_fd_obj *o = table[b]; o; o = o->next) {
			if (!check_locked(o, have_refs ? &refs : NULL))
				continue;
			if (n == cap) {
				unsigned ncap = cap ? cap * 2 : 16;
				void *v = NULL;

				if (!fault_should_fail(&drm_fault_fd_scan_alloc,
						       ncap * sizeof(*dead)))
					v = realloc(dead, ncap * sizeof(*dead));

				if (!v) {
					/* Keep it for the next sweep. */
					o->fd_ref = true;
					continue;
				}
				dead = v;
				cap = ncap;
			}
			dead[n++] = o;
		}
	}
	pthread_mutex_unlock(&table_lock);
	free(refs.v);
	/* Put outside the lock: a release may free BOs and fences. */
	for (unsigned i = 0; i < n; i++)
		drm_fd_obj_put(dead[i]);
	free(dead);
	pthread_mutex_unlock(&gc_lock);
	return n;
}

/*
 * The lazy sweep runs on a reaper thread of its own, never on the creating
 * caller: a release puts BOs and fences, whose release paths take driver
 * locks the caller of a create may hold (the kernel defers its final fput
 * the same way, to a clean context). Started on first need; a forked child
 * starts its own.
 */
static pthread_mutex_t reap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reap_cond = PTHREAD_COND_INITIALIZER;
static bool reap_started, reap_pending;
static pthread_once_t reap_once = PTHREAD_ONCE_INIT;

static void *reaper(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&reap_lock);
	for (;;) {
		while (!reap_pending)
			pthread_cond_wait(&reap_cond, &reap_lock);
		reap_pending = false;
		pthread_mutex_unlock(&reap_lock);
		drm_fd_gc();
		pthread_mutex_lock(&reap_lock);
	}
	return NULL;
}

static void reap_atfork_child(void)
{
	/* The reaper did not survive the fork; its lock may be held by it. */
	pthread_mutex_init(&reap_lock, NULL);
	pthread_cond_init(&reap_cond, NULL);
	reap_started = false;
	reap_pending = false;
}

static void reap_setup_once(void)
{
	pthread_atfork(NULL, NULL, reap_atfork_child);
}

void drm_fd_gc_maybe(void)
{
	if (atomic_fetch_add_explicit(&creations, 1, memory_order_relaxed) % DRM_FD_GC_EVERY !=
	    DRM_FD_GC_EVERY - 1)
		return;
	pthread_once(&reap_once, reap_setup_once);
	pthread_mutex_lock(&reap_lock);
	if (!reap_started) {
		sigset_t all, old;
		pthread_attr_t attr;
		pthread_t t;

		/* No signal of the program's may land on our thread. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		reap_started = !pthread_create(&t, &attr, reaper, NULL);
		pthread_attr_destroy(&attr);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	reap_pending = true;
	pthread_cond_signal(&reap_cond);
	pthread_mutex_unlock(&reap_lock);
}

unsigned drm_fd_live_count(void)
{
	return atomic_load_explicit(&table_count, memory_order_acquire);
}
