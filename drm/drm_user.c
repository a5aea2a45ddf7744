// SPDX-License-Identifier: MIT
/*
 * User copies (see drmcore/drm_user.h): a bad pointer is an error code,
 * never a signal. The CPU copies under a fault guard (a SIGSEGV/SIGBUS
 * handler that returns into the copy's frame, as the kernel's exception
 * tables do); the kernel checks the pages for us (process_vm_*v, a pipe)
 * where the guard cannot be installed, for another process's memory, and
 * for a page that must be resolved.
 */
/* siglongjmp() out of a handler on an alternate stack: not the checked one. */
#undef _FORTIFY_SOURCE
#include <drmcore/drm_user.h>

#include "drm_sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
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

/* The process this thread's copies reach (0: ours), drm_user_set_target(). */
static __thread pid_t target_pid;

pid_t drm_user_set_target(pid_t pid)
{
	pid_t old = target_pid;

	target_pid = pid;
	return old;
}

pid_t drm_user_target(void)
{
	return target_pid ? target_pid : self();
}

/* The per-thread pipe of DRM_USER_COPY_PIPE mode. */
static __thread int tl_pipe[2] = {-1, -1};
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

/* ---- the guarded copy (DRM_USER_COPY_GUARD) ---- */

/*
 * A copy in flight on this thread: where to return to when it faults. The
 * handler pops it (@prev), so a copy made by a signal handler that
 * interrupted another copy nests correctly.
 */
struct drm_user_guard {
	sigjmp_buf env;
	struct drm_user_guard *prev;
	volatile uintptr_t fault;
};

static __thread struct drm_user_guard *tl_guard;

/*
 * The dispositions faults outside a copy go to: the ones ours replaced,
 * then whatever the program installs through drm_user_guard_sigaction().
 * Two slots per signal, the current one published by pointer, so that a
 * handler reads a whole disposition while the program changes it.
 */
static struct sigaction guard_old_slots[2][2];
static struct sigaction *_Atomic guard_old[2];
static pthread_mutex_t guard_old_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static _Atomic bool guard_ready;

static void guard_handler(int sig, siginfo_t *si, void *uctx);

/* The kernel's struct for rt_sigaction (x86-64, arm64 and most others). */
struct guard_ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/*
 * Per signal, the kernel disposition last seen in front and known to be
 * ours (the guard's own, or a handler of this same image placed in front of
 * it that chains to it, as the render node's BAR trap and the CPU-mapping
 * fault engine do): what guard_verify() puts back when something else
 * displaced it. Written under guard_old_lock.
 */
static struct guard_ksigaction guard_front[2];
static _Atomic unsigned int guard_tick;

/*
 * rt_sigaction() by the instruction itself where we can: a library that
 * interposes syscall() (the render node does, to see programs' raw
 * installs) must not take the guard's own calls for a program's.
 */
static long guard_rt_sigaction(int sig, const struct guard_ksigaction *act,
			       struct guard_ksigaction *old)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = (long)sizeof(act->mask);
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_rt_sigaction), "D"((long)sig), "S"(act), "d"(old), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(SYS_rt_sigaction, sig, act, old, sizeof(act->mask));
#endif
}

/*
 * The default disposition for @sig, by system call: a sigaction() call here
 * could be a preloaded interposer that routes it back to us
 * (drm_user_guard_sigaction()).
 */
static void guard_sys_default(int sig)
{
	struct guard_ksigaction k = {.handler = SIG_DFL};

	guard_rt_sigaction(sig, &k, NULL);
}

/*
 * Hand a fault that is not a copy's to the disposition installed before
 * ours, as if ours were not there. The default (or an ignored fault, which
 * the kernel forces to the default) is restored so that the access, retried
 * on return, takes the default action; a signal sent by a process is raised
 * again for the same reason.
 */
static void guard_chain(int sig, siginfo_t *si, void *uctx)
{
	const struct sigaction *old = atomic_load(&guard_old[sig == SIGSEGV ? 0 : 1]);

	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != guard_handler) {
		old->sa_sigaction(sig, si, uctx);
	} else if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
		   old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	} else {
		guard_sys_default(sig);
		if (si->si_code <= 0)
			raise(sig);
	}
}

static void guard_handler(int sig, siginfo_t *si, void *uctx)
{
	struct drm_user_guard *g = tl_guard;

	if (g) {
		/* A fault the kernel reports (si_code > 0) names its address. */
		g->fault = si->si_code > 0 ? (uintptr_t)si->si_addr : 0;
		tl_guard = g->prev;
		/*
		 * Leave with the mask of the interrupted copy: the kernel blocked
		 * the signal for this handler (or for the handler that chained to
		 * us), and sigsetjmp() saved no mask, to keep copies free of
		 * system calls.
		 */
		pthread_sigmask(SIG_SETMASK, &((ucontext_t *)uctx)->uc_sigmask, NULL);
		siglongjmp(g->env, 1);
	}
	guard_chain(sig, si, uctx);
}

/*
 * SA_ONSTACK: a program's own alternate stack (for its stack-overflow
 * handler) is kept.
 */
static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &guard_old_slots[0][0]))
		return;
	if (sigaction(SIGBUS, &sa, &guard_old_slots[1][0])) {
		sigaction(SIGSEGV, &guard_old_slots[0][0], NULL);
		return;
	}
	atomic_store(&guard_old[0], &guard_old_slots[0][0]);
	atomic_store(&guard_old[1], &guard_old_slots[1][0]);
	/* As the kernel holds it (libc's sigreturn trampoline included), to put back later. */
	guard_rt_sigaction(SIGSEGV, NULL, &guard_front[0]);
	guard_rt_sigaction(SIGBUS, NULL, &guard_front[1]);
	atomic_store(&guard_ready, true);
}

/* Whether handler @h is code of this image (the library or program holding the guard). */
static bool guard_handler_ours(void (*h)(int))
{
	Dl_info a, b;

	if (h == SIG_DFL || h == SIG_IGN)
		return false;
	if ((void *)h == (void *)guard_handler)
		return true;
	return dladdr((void *)h, &a) && dladdr((void *)guard_handler, &b) &&
	       a.dli_fbase == b.dli_fbase;
}

void drm_user_guard_verify(void)
{
	if (!atomic_load(&guard_ready))
		return;
	for (int i = 0; i < 2; i++) {
		int sig = i ? SIGBUS : SIGSEGV;
		struct guard_ksigaction cur;
		struct sigaction act;

		if (guard_rt_sigaction(sig, NULL, &cur))
			continue;
		pthread_mutex_lock(&guard_old_lock);
		if (guard_handler_ours(cur.handler)) {
			guard_front[i] = cur;
			pthread_mutex_unlock(&guard_old_lock);
			continue;
		}
		pthread_mutex_unlock(&guard_old_lock);
		/*
		 * A raw rt_sigaction() (no libc sigaction() for an interposer
		 * to see) replaced ours: that disposition goes behind the
		 * guard, as one installed through drm_user_guard_sigaction()
		 * would, and ours goes back in front.
		 */
		memset(&act, 0, sizeof(act));
		act.sa_handler = cur.handler;
		act.sa_flags = (int)(cur.flags & ~(unsigned long)SA_RESTORER);
		memcpy(&act.sa_mask, &cur.mask, sizeof(cur.mask));
		drm_user_guard_sigaction(sig, &act, NULL);
		pthread_mutex_lock(&guard_old_lock);
		guard_rt_sigaction(sig, &guard_front[i], NULL);
		pthread_mutex_unlock(&guard_old_lock);
	}
}

static bool guard_works(void)
{
	pthread_once(&guard_once, guard_install);
	return atomic_load(&guard_ready);
}

bool drm_user_guard_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	int i = sig == SIGSEGV ? 0 : 1;
	struct sigaction *cur, *next;

	if ((sig != SIGSEGV && sig != SIGBUS) || !atomic_load(&guard_ready))
		return false;
	pthread_mutex_lock(&guard_old_lock);
	cur = atomic_load(&guard_old[i]);
	if (oldact)
		*oldact = *cur;
	if (act) {
		next =
		    cur == &guard_old_slots[i][0] ? &guard_old_slots[i][1] : &guard_old_slots[i][0];
		*next = *act;
		atomic_store(&guard_old[i], next);
	}
	pthread_mutex_unlock(&guard_old_lock);
	return true;
}

/*
 * The copy itself: one instruction on x86-64, so a fault names the exact
 * byte; never a libc memcpy, which a sanitizer would check (and report a
 * wild pointer) before touching memory.
 */
#if defined(__x86_64__)
static void guard_memcpy(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
#else
__attribute__((noinline, no_sanitize("address", "thread"))) static void
guard_memcpy(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const volatile unsigned char *s = src;

	while (n--)
		*d++ = *s++;
}
#endif

/*
 * One guarded copy of all @n bytes. Return: true when it completed; false
 * with *@fault the faulting address (0 when the signal named none).
 */
static bool guard_pass(char *local, uintptr_t remote, size_t n, bool to_user, uintptr_t *fault)
{
	struct drm_user_guard g;

	g.prev = tl_guard;
	g.fault = 0;
	if (sigsetjmp(g.env, 0)) {
		*fault = g.fault;
		return false;
	}
	atomic_signal_fence(memory_order_seq_cst);
	tl_guard = &g;
	atomic_signal_fence(memory_order_seq_cst);
	if (to_user)
		guard_memcpy((void *)remote, local, n);
	else
		guard_memcpy(local, (const void *)remote, n);
	atomic_signal_fence(memory_order_seq_cst);
	tl_guard = g.prev;
	atomic_signal_fence(memory_order_seq_cst);
	return true;
}

static size_t slow_copy(char *local, uintptr_t remote, size_t n, bool to_user);

/*
 * Copy with the CPU, as the kernel's copy_*_user() do: the access rights
 * are the CPU's (a PROT_WRITE-only page is readable on x86, as it is to the
 * kernel). A fault shrinks the copy to the pages before the faulting one, so
 * the count stays exact however the copy was ordered; a fault on the first
 * page left goes to the checked copy, which also asks the fault resolver.
 */
static size_t guard_copy(char *local, uintptr_t remote, size_t n, bool to_user)
{
	size_t done = 0, end = n;

	/*
	 * A program may replace the guard with a raw rt_sigaction(); look
	 * every DRM_USER_GUARD_VERIFY_EVERY copies (a system call per copy
	 * would double the cost of a small ioctl).
	 */
	if (!(atomic_fetch_add_explicit(&guard_tick, 1, memory_order_relaxed) %
	      DRM_USER_GUARD_VERIFY_EVERY))
		drm_user_guard_verify();

	while (done < n) {
		uintptr_t fault, lo = remote + done, page;

		if (guard_pass(local + done, lo, end - done, to_user, &fault)) {
			done = end;
			end = n;
			continue;
		}
		page = fault & ~(DRM_USER_PAGE - 1);
		if (fault >= lo && fault < remote + end && page > lo) {
			end = page - remote;
			continue;
		}
		return done + slow_copy(local + done, lo, n - done, to_user);
	}
	return done;
}

static bool vm_calls_work(void)
{
	static _Atomic int works = -1;
	int w = atomic_load_explicit(&works, memory_order_relaxed);

	if (w < 0) {
		char src = 1, dst = 0;
		struct iovec l = {&dst, 1}, r = {&src, 1};

		w = process_vm_readv(getpid(), &l, 1, &r, 1, 0) == 1 && dst == 1;
		atomic_store_explicit(&works, w, memory_order_relaxed);
	}
	return w;
}

static enum drm_user_copy_mode mode_get(void)
{
	int m = atomic_load_explicit(&copy_mode, memory_order_relaxed);

	if (m < 0) {
		const char *env = getenv("DRMCORE_USER_COPY");

		if (env && !strcmp(env, "pipe"))
			m = DRM_USER_COPY_PIPE;
		else if (env && !strcmp(env, "vm") && vm_calls_work())
			m = DRM_USER_COPY_VM;
		else if (guard_works())
			m = DRM_USER_COPY_GUARD;
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
	switch (mode) {
	case DRM_USER_COPY_GUARD:
		if (!guard_works())
			return -ENOSYS;
		break;
	case DRM_USER_COPY_VM:
		if (!vm_calls_work())
			return -ENOSYS;
		break;
	case DRM_USER_COPY_PIPE:
		break;
	default:
		return -EINVAL;
	}
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
	struct iovec liov = {local, 0};
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
		r = process_vm_writev(drm_user_target(), &liov, 1, riov, cnt, 0);
	else
		r = process_vm_readv(drm_user_target(), &liov, 1, riov, cnt, 0);
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

/* The checked copy: until done or a page stays unreachable; returns bytes copied. */
static size_t slow_copy(char *local, uintptr_t remote, size_t n, bool to_user)
{
	uintptr_t last_resolved = UINTPTR_MAX;
	bool vm = mode_get() != DRM_USER_COPY_PIPE && vm_calls_work();
	size_t done = 0;

	while (done < n) {
		size_t got;

		if (target_pid && !vm)
			break; /* a pipe cannot reach another process */
		if (vm)
			got = vm_pass(local + done, remote + done, n - done, to_user);
		else
			got = pipe_pass(local + done, remote + done, n - done, to_user);
		done += got;
		if (done < n && !got) {
			drm_user_fault_resolver_t fn = atomic_load(&fault_resolver);
			uintptr_t page = (remote + done) & ~(DRM_USER_PAGE - 1);

			/* One resolution per page: a resolver that claims success
			 * without making the page reachable cannot loop us. */
			if (!fn || target_pid || page == last_resolved ||
			    !fn(remote + done, to_user))
				break;
			last_resolved = page;
		}
	}
	return done;
}

/* Copy by the mechanism in use; returns bytes copied. */
static size_t user_copy(char *local, uintptr_t remote, size_t n, bool to_user)
{
	if (remote + n < remote)
		n = UINTPTR_MAX - remote;
	/* Another process's memory is reachable only through the kernel. */
	if (!target_pid && mode_get() == DRM_USER_COPY_GUARD)
		return guard_copy(local, remote, n, to_user);
	return slow_copy(local, remote, n, to_user);
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
