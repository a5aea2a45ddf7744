// SPDX-License-Identifier: MIT
/*
 * User copies through the kernel (see drmcore/drm_user.h): the kernel
 * checks each page for us, so a bad pointer is an error code, never a
 * signal.
 */
#include <drmcore/drm_user.h>

#include "drm_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define DRM_USER_PAGE 4096ul
/* Remote iovecs per process_vm_*v call (the kernel's UIO_MAXIOV). */
#define DRM_USER_MAX_IOV 1024

/*
 * Process-wide by nature (the address space is): the mechanism and the
 * resolver. Both are set before concurrent copies run (see the header);
 * atomics keep readers well defined anyway.
 */
static _Atomic int copy_mode = -1;
static _Atomic(drm_user_fault_resolver_t) fault_resolver;

/*
 * Our pid, for process_vm_*v: getpid() is a system call of its own (about
 * a fifth of a copy's cost). A forked child refreshes it before it can copy.
 */
static _Atomic pid_t self_pid;
static pthread_once_t pid_once = PTHREAD_ONCE_INIT;

static void pid_atfork_child(void)
{
	atomic_store(&self_pid, getpid());
}

static void pid_setup_once(void)
{
	atomic_store(&self_pid, getpid());
	pthread_atfork(NULL, NULL, pid_atfork_child);
}

static pid_t self(void)
{
	pid_t p = atomic_load_explicit(&self_pid, memory_order_relaxed);

	if (p)
		return p;
	pthread_once(&pid_once, pid_setup_once);
	return atomic_load(&self_pid);
}

/* The per-thread pipe of DRM_USER_COPY_PIPE mode. */
static __thread int tl_pipe[2] = { -1, -1 };
static pthread_key_t pipe_key;
static pthread_once_t pipe_once = PTHREAD_ONCE_INIT;

static void pipe_close_tl(void)
{
	if (tl_pipe[0] >= 0) {
		drm_sys_close(tl_pipe[0]);
		drm_sys_close(tl_pipe[1]);
	}
	tl_pipe[0] = tl_pipe[1] = -1;
}

static void pipe_key_destroy(void *unused)
{
	(void)unused;
	pipe_close_tl();
}

/* A child must not share its parent's pipe: bytes would cross. */
static void pipe_atfork_child(void)
{
	pipe_close_tl();
}

static void pipe_setup_once(void)
{
	pthread_key_create(&pipe_key, pipe_key_destroy);
	pthread_atfork(NULL, NULL, pipe_atfork_child);
}

static int pipe_get(void)
{
	pthread_once(&pipe_once, pipe_setup_once);
	if (tl_pipe[0] >= 0)
		return 0;
	if (drm_sys_pipe2(tl_pipe, O_CLOEXEC | O_NONBLOCK)) {
		tl_pipe[0] = tl_pipe[1] = -1;
		return -errno;
	}
	/* Any non-NULL value makes the destructor run at thread exit. */
	pthread_setspecific(pipe_key, (void *)1);
	return 0;
}

/* Empty the pipe after a read into user memory stopped early. */
static void pipe_drain(void)
{
	char scratch[256];

	while (drm_sys_read(tl_pipe[0], scratch, sizeof(scratch)) > 0)
		;
}

static bool vm_calls_work(void)
{
	char src = 1, dst = 0;
	struct iovec l = { &dst, 1 }, r = { &src, 1 };

	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 1 && dst == 1;
}

static enum drm_user_copy_mode mode_get(void)
{
	int m = atomic_load_explicit(&copy_mode, memory_order_relaxed);

	if (m < 0) {
		const char *env = getenv("DRMCORE_USER_COPY");

		if (env && !strcmp(env, "pipe"))
			m = DRM_USER_COPY_PIPE;
		else
			m = vm_calls_work() ? DRM_USER_COPY_VM : DRM_USER_COPY_PIPE;
		atomic_store_explicit(&copy_mode, m, memory_order_relaxed);
	}
	return (enum drm_user_copy_mode)m;
}

enum drm_user_copy_mode drm_user_copy_mode(void)
{
	return mode_get();
}

int drm_user_set_copy_mode(enum drm_user_copy_mode mode)
{
	if (mode == DRM_USER_COPY_VM && !vm_calls_work())
		return -ENOSYS;
	if (mode != DRM_USER_COPY_VM && mode != DRM_USER_COPY_PIPE)
		return -EINVAL;
	atomic_store(&copy_mode, (int)mode);
	return 0;
}

void drm_user_set_fault_resolver(drm_user_fault_resolver_t fn)
{
	atomic_store(&fault_resolver, fn);
}

/*
 * One process_vm_*v pass over at most DRM_USER_MAX_IOV pages: the remote
 * side is cut at page boundaries so that a transfer ends exactly before
 * the first page the kernel could not reach.
 */
static size_t vm_pass(char *local, uintptr_t remote, size_t n, bool to_user)
{
	struct iovec riov[DRM_USER_MAX_IOV];
	struct iovec liov = { local, 0 };
	unsigned cnt = 0;
	size_t len = 0;
	ssize_t r;

	while (len < n && cnt < DRM_USER_MAX_IOV) {
		uintptr_t a = remote + len;
		size_t chunk = DRM_USER_PAGE - (a & (DRM_USER_PAGE - 1));

		if (chunk > n - len)
			chunk = n - len;
		riov[cnt].iov_base = (void *)a;
		riov[cnt].iov_len = chunk;
		cnt++;
		len += chunk;
	}
	liov.iov_len = len;
	if (to_user)
		r = process_vm_writev(self(), &liov, 1, riov, cnt, 0);
	else
		r = process_vm_readv(self(), &liov, 1, riov, cnt, 0);
	return r < 0 ? 0 : (size_t)r;
}

static size_t pipe_pass(char *local, uintptr_t remote, size_t n, bool to_user)
{
	ssize_t w, r;

	if (pipe_get())
		return 0;
	/* A pipe transfer that meets a bad page fails whole: go page by page. */
	if (n > DRM_USER_PAGE - (remote & (DRM_USER_PAGE - 1)))
		n = DRM_USER_PAGE - (remote & (DRM_USER_PAGE - 1));
	if (!to_user) {
		/* write(2) reads the user bytes: EFAULT or short at a bad page. */
		w = drm_sys_write(tl_pipe[1], (const void *)remote, n);
		if (w <= 0)
			return 0;
		r = drm_sys_read(tl_pipe[0], local, (size_t)w);
		return r < 0 ? 0 : (size_t)r;
	}
	w = drm_sys_write(tl_pipe[1], local, n);
	if (w <= 0)
		return 0;
	/* read(2) stores into the user bytes: EFAULT or short at a bad page. */
	r = drm_sys_read(tl_pipe[0], (void *)remote, (size_t)w);
	if (r < w)
		pipe_drain();
	return r < 0 ? 0 : (size_t)r;
}

/* Copy until done or a page stays unreachable; returns bytes copied. */
static size_t user_copy(char *local, uintptr_t remote, size_t n, bool to_user)
{
	uintptr_t last_resolved = UINTPTR_MAX;
	size_t done = 0;

	if (remote + n < remote)
		n = UINTPTR_MAX - remote;
	while (done < n) {
		size_t got;

		if (mode_get() == DRM_USER_COPY_VM)
			got = vm_pass(local + done, remote + done, n - done, to_user);
		else
			got = pipe_pass(local + done, remote + done, n - done, to_user);
		done += got;
		if (done < n && !got) {
			drm_user_fault_resolver_t fn = atomic_load(&fault_resolver);
			uintptr_t page = (remote + done) & ~(DRM_USER_PAGE - 1);

			/* One resolution per page: a resolver that claims success
			 * without making the page reachable cannot loop us. */
			if (!fn || page == last_resolved || !fn(remote + done, to_user))
				break;
			last_resolved = page;
		}
	}
	return done;
}

size_t drm_copy_from_user(void *to, const void __user *from, size_t n)
{
	size_t done;

	if (!n)
		return 0;
	done = user_copy(to, (uintptr_t)from, n, false);
	if (done < n)
		memset((char *)to + done, 0, n - done);
	return n - done;
}

size_t drm_copy_to_user(void __user *to, const void *from, size_t n)
{
	if (!n)
		return 0;
	return n - user_copy((char *)from, (uintptr_t)to, n, true);
}

size_t drm_clear_user(void __user *to, size_t n)
{
	static const char zeroes[DRM_USER_PAGE];
	size_t done = 0;

	while (done < n) {
		size_t chunk = n - done < sizeof(zeroes) ? n - done : sizeof(zeroes);
		size_t got = user_copy((char *)zeroes, (uintptr_t)to + done, chunk, true);

		done += got;
		if (got < chunk)
			break;
	}
	return n - done;
}

ssize_t drm_strncpy_from_user(char *dst, const char __user *src, size_t count)
{
	size_t done = 0;

	/* Page by page: a string that ends before a bad page is fine. */
	while (done < count) {
		uintptr_t a = (uintptr_t)src + done;
		size_t chunk = DRM_USER_PAGE - (a & (DRM_USER_PAGE - 1));
		size_t got;
		char *nul;

		if (chunk > count - done)
			chunk = count - done;
		got = user_copy(dst + done, a, chunk, false);
		nul = memchr(dst + done, '\0', got);
		if (nul)
			return nul - dst;
		done += got;
		if (got < chunk)
			return -EFAULT;
	}
	return (ssize_t)count;
}

bool drm_user_readable(const void __user *addr, size_t n)
{
	uintptr_t a = (uintptr_t)addr, end = a + n;
	char byte;

	if (end < a)
		return false;
	/* One byte per page is enough to prove the page readable. */
	while (a < end) {
		if (user_copy(&byte, a, 1, false) != 1)
			return false;
		a = (a & ~(DRM_USER_PAGE - 1)) + DRM_USER_PAGE;
	}
	return true;
}
