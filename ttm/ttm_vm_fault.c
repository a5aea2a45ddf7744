// SPDX-License-Identifier: MIT
/*
 * Fault-driven population of reserved address ranges: a userfaultfd handler
 * thread where the kernel allows it, a SIGSEGV handler otherwise. See
 * ttm_vm_fault.h for the contract.
 */
#include "ttm_config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if TTM_HAVE_USERFAULTFD
#include <linux/userfaultfd.h>
#endif

#include <ttm/ttm_faults.h>
#include <ttm/ttm_vm_fault.h>

#define VM_PAGE_SIZE 4096ul

/*
 * Pages of a range change hands through the kernel (a userfaultfd wake, an
 * mprotect that revokes writes, an mmap over the page), an ordering
 * ThreadSanitizer cannot see. Page replacement therefore uses the raw mmap
 * system call (so TSan does not record it as a write by this thread), and
 * write-back reads of pages the kernel already took away from writers run
 * with this thread's accesses ignored.
 */
#if defined(__SANITIZE_THREAD__)
#define VM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VM_TSAN 1
#endif
#endif
#ifdef VM_TSAN
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#define vm_tsan_ignore_begin() __tsan_ignore_thread_begin()
#define vm_tsan_ignore_end() __tsan_ignore_thread_end()
#else
#define vm_tsan_ignore_begin()                                                                     \
	do {                                                                                       \
	} while (0)
#define vm_tsan_ignore_end()                                                                       \
	do {                                                                                       \
	} while (0)
#endif

static void *vm_mmap_fixed(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = syscall(SYS_mmap, addr, len, prot, flags | MAP_FIXED, fd, off);

	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

/*
 * The process-wide table of live ranges. A fault has nothing but the
 * faulting address, so this is the one piece of global state (with the
 * SIGSEGV service's request slots below); only the threads serving faults
 * look ranges up in it, never a signal handler.
 */
static pthread_mutex_t vm_table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t vm_table_idle = PTHREAD_COND_INITIALIZER;
static struct list_head vm_table = LIST_HEAD_INIT(vm_table);
static bool vm_segv_installed;
static struct sigaction vm_old_segv;

const char *ttm_vm_fault_mode_name(enum ttm_vm_fault_mode mode)
{
	switch (mode) {
	case TTM_VM_FAULT_UFFD:
		return "uffd";
	case TTM_VM_FAULT_SIGSEGV:
		return "sigsegv";
	default:
		return "auto";
	}
}

/* Finds the range holding @addr and pins it against fini. */
static struct ttm_vm_range *vm_table_get(const void *addr)
{
	const uint8_t *a = addr;
	struct ttm_vm_range *r, *found = NULL;

	pthread_mutex_lock(&vm_table_lock);
	list_for_each_entry (r, &vm_table, struct ttm_vm_range, link) {
		if (a >= r->addr && a < r->addr + r->num_pages * VM_PAGE_SIZE) {
			r->users++;
			found = r;
			break;
		}
	}
	pthread_mutex_unlock(&vm_table_lock);
	return found;
}

static void vm_table_put(struct ttm_vm_range *r)
{
	pthread_mutex_lock(&vm_table_lock);
	if (--r->users == 0 && r->dead)
		pthread_cond_broadcast(&vm_table_idle);
	pthread_mutex_unlock(&vm_table_lock);
}

static bool vm_range_dead(struct ttm_vm_range *r)
{
	bool dead;

	pthread_mutex_lock(&vm_table_lock);
	dead = r->dead;
	pthread_mutex_unlock(&vm_table_lock);
	return dead;
}

/* Runs the owner's populate for the page holding @addr. */
static int vm_handle_fault(struct ttm_vm_range *r, const void *addr)
{
	unsigned long page = (unsigned long)((const uint8_t *)addr - r->addr) / VM_PAGE_SIZE;
	uint64_t gen = atomic_load(&r->generation);
	int ret;

	if (vm_range_dead(r))
		return -ENODEV;
	atomic_fetch_add(&r->stats.faults, 1);
	atomic_fetch_add(&r->engine->stats.faults, 1);
	ret = r->ops->populate(r, page);
	/* The range was split or trimmed under the fault: the access is retried. */
	if (ret == -EAGAIN)
		return 0;
	if (!ret && !ttm_vm_range_page_present(r, page) && atomic_load(&r->generation) == gen)
		ret = -EFAULT;
	if (ret) {
		atomic_fetch_add(&r->stats.sigbus, 1);
		atomic_fetch_add(&r->engine->stats.sigbus, 1);
	}
	return ret;
}

/* ---- SIGSEGV mechanism ---- */

/*
 * The handler runs in signal context on the faulting thread, so it does
 * only async-signal-safe work: it claims one of a fixed set of request
 * slots (an atomic compare-and-swap), posts the faulting address to the
 * service workers (a futex wake) and sleeps on its slot (a futex wait)
 * until a worker has served the fault. The worker finds the range and runs
 * the owner's @populate, which takes locks, allocates and waits on fences:
 * work that a signal handler must never do (it could interrupt the thread
 * inside malloc or while it holds a lock @populate needs).
 *
 * A worker that takes a request first makes sure another worker is idle
 * (starting one when none is), so a @populate blocked on a reservation or
 * a fence never holds up faults on other ranges, as kernel faults on
 * different objects never wait for each other; idle workers beyond a few
 * exit. The service belongs to the process that started it: a child of
 * fork() starts its own at its first range (a range inherited through fork
 * is not served, as under userfaultfd).
 */
#define VM_SLOTS 128
#define VM_IDLE_MAX 2

enum { VM_SLOT_FREE, VM_SLOT_CLAIMED, VM_SLOT_PENDING, VM_SLOT_BUSY, VM_SLOT_DONE };
enum { VM_REPLY_OK, VM_REPLY_SIGBUS, VM_REPLY_NOT_OURS };

/**
 * struct vm_slot - one fault in flight from a handler to a worker.
 * @state: VM_SLOT_*; the futex the handler sleeps on.
 * @addr: the faulting address (written before PENDING).
 * @reply: VM_REPLY_* (written before DONE).
 */
struct vm_slot {
	_Atomic uint32_t state;
	_Atomic uintptr_t addr;
	_Atomic uint32_t reply;
};

static struct vm_slot vm_slots[VM_SLOTS];
/* Bumped at every freed slot: handlers waiting for a free slot sleep on it. */
static _Atomic uint32_t vm_slot_seq;
/* Bumped at every posted request: idle workers sleep on it. */
static _Atomic uint32_t vm_req_seq;
static _Atomic int vm_workers_idle;
/* The process whose workers serve the slots; 0 before the first start. */
static _Atomic pid_t vm_service_pid;

static void vm_futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void vm_futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static void vm_segv_chain(int sig, siginfo_t *si, void *uctx)
{
	if (vm_old_segv.sa_flags & SA_SIGINFO) {
		vm_old_segv.sa_sigaction(sig, si, uctx);
	} else if (vm_old_segv.sa_handler == SIG_DFL || vm_old_segv.sa_handler == SIG_IGN) {
		/* Not ours: let the retried access take the default action. */
		sigaction(SIGSEGV, &vm_old_segv, NULL);
	} else {
		vm_old_segv.sa_handler(sig);
	}
}

/* Claims a free slot; sleeps while all are taken. Async-signal-safe. */
static struct vm_slot *vm_slot_claim(void)
{
	for (;;) {
		uint32_t seq = atomic_load(&vm_slot_seq);

		for (unsigned int i = 0; i < VM_SLOTS; i++) {
			uint32_t free_state = VM_SLOT_FREE;

			if (atomic_compare_exchange_strong(&vm_slots[i].state, &free_state,
							   VM_SLOT_CLAIMED))
				return &vm_slots[i];
		}
		vm_futex_wait(&vm_slot_seq, seq);
	}
}

/* Posts @addr to the workers and waits for their reply. Async-signal-safe. */
static uint32_t vm_segv_request(const void *addr)
{
	struct vm_slot *s = vm_slot_claim();
	uint32_t state, reply;

	atomic_store(&s->addr, (uintptr_t)addr);
	atomic_store(&s->state, VM_SLOT_PENDING);
	atomic_fetch_add(&vm_req_seq, 1);
	vm_futex_wake(&vm_req_seq, 1);
	while ((state = atomic_load(&s->state)) != VM_SLOT_DONE)
		vm_futex_wait(&s->state, state);
	reply = atomic_load(&s->reply);
	atomic_store(&s->state, VM_SLOT_FREE);
	atomic_fetch_add(&vm_slot_seq, 1);
	vm_futex_wake(&vm_slot_seq, 1);
	return reply;
}

static void vm_segv_handler(int sig, siginfo_t *si, void *uctx)
{
	int saved_errno = errno;
	uint32_t reply = VM_REPLY_NOT_OURS;

	/* No service in this process (a child of fork): nothing here is ours. */
	if (atomic_load(&vm_service_pid) == getpid())
		reply = vm_segv_request(si->si_addr);
	if (reply == VM_REPLY_NOT_OURS)
		vm_segv_chain(sig, si, uctx);
	else if (reply == VM_REPLY_SIGBUS)
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGBUS);
	errno = saved_errno;
}

/* Takes a pending request, or NULL when there is none. */
static struct vm_slot *vm_slot_take(void)
{
	for (unsigned int i = 0; i < VM_SLOTS; i++) {
		uint32_t pending = VM_SLOT_PENDING;

		if (atomic_compare_exchange_strong(&vm_slots[i].state, &pending, VM_SLOT_BUSY))
			return &vm_slots[i];
	}
	return NULL;
}

/* Runs the fault of @s and hands the reply back to its handler. */
static void vm_slot_serve(struct vm_slot *s)
{
	const void *addr = (const void *)atomic_load(&s->addr);
	struct ttm_vm_range *r = vm_table_get(addr);
	uint32_t reply = VM_REPLY_NOT_OURS;

	if (r) {
		reply = vm_handle_fault(r, addr) ? VM_REPLY_SIGBUS : VM_REPLY_OK;
		vm_table_put(r);
	}
	atomic_store(&s->reply, reply);
	atomic_store(&s->state, VM_SLOT_DONE);
	vm_futex_wake(&s->state, 1);
}

static int vm_worker_spawn(void);

static void *vm_worker(void *arg)
{
	(void)arg;
	for (;;) {
		uint32_t seq = atomic_load(&vm_req_seq);
		struct vm_slot *s = vm_slot_take();

		if (!s) {
			vm_futex_wait(&vm_req_seq, seq);
			continue;
		}
		/* The last idle worker got busy: keep one for the next fault. */
		if (atomic_fetch_sub(&vm_workers_idle, 1) == 1)
			vm_worker_spawn();
		vm_slot_serve(s);
		if (atomic_fetch_add(&vm_workers_idle, 1) >= VM_IDLE_MAX) {
			/* Enough idle ones: this one goes, unless it raced another. */
			if (atomic_fetch_sub(&vm_workers_idle, 1) > VM_IDLE_MAX)
				return NULL;
			atomic_fetch_add(&vm_workers_idle, 1);
		}
	}
}

/*
 * Starts one idle worker. It blocks every signal: asynchronous ones belong
 * to the application's threads, and a fault of its own (a @populate
 * touching another range) still reaches the handler, which is synchronous.
 * Return: 0; -errno of pthread_create().
 */
static int vm_worker_spawn(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int ret;

	if (pthread_attr_init(&attr))
		return -ENOMEM;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	atomic_fetch_add(&vm_workers_idle, 1);
	ret = -pthread_create(&t, &attr, vm_worker, NULL);
	if (ret)
		atomic_fetch_sub(&vm_workers_idle, 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return ret;
}

/*
 * Starts the service for this process if it has none (the first range, or
 * the first one of a child of fork()). Range table lock held.
 */
static int vm_service_start(void)
{
	pid_t pid = getpid();
	int ret;

	if (atomic_load(&vm_service_pid) == pid)
		return 0;
	/* A forked child inherits the parent's slots and counts, not its workers. */
	for (unsigned int i = 0; i < VM_SLOTS; i++)
		atomic_store(&vm_slots[i].state, VM_SLOT_FREE);
	atomic_store(&vm_workers_idle, 0);
	ret = vm_worker_spawn();
	if (!ret)
		atomic_store(&vm_service_pid, pid);
	return ret;
}

/*
 * A child of fork() starts with an empty range table: the inherited ranges
 * are the parent's, and their @populate (driver code on the child's copy
 * of the parent's state) must never run in the child. The lock may have
 * been held by a parent thread that does not exist in the child.
 */
static void vm_atfork_child(void)
{
	pthread_mutex_init(&vm_table_lock, NULL);
	pthread_cond_init(&vm_table_idle, NULL);
	/* Unlinked one by one: a later fini of an inherited range must not touch the table. */
	while (!list_empty(&vm_table))
		list_del_init(vm_table.next);
}

static pthread_once_t vm_atfork_once = PTHREAD_ONCE_INIT;

static void vm_atfork_register(void)
{
	pthread_atfork(NULL, NULL, vm_atfork_child);
}

static int vm_segv_install(void)
{
	struct sigaction sa;
	int ret;

	pthread_once(&vm_atfork_once, vm_atfork_register);
	pthread_mutex_lock(&vm_table_lock);
	ret = vm_service_start();
	if (!ret && !vm_segv_installed) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = vm_segv_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGSEGV, &sa, &vm_old_segv))
			ret = -errno;
		else
			vm_segv_installed = true;
	}
	pthread_mutex_unlock(&vm_table_lock);
	return ret;
}

/* ---- userfaultfd mechanism ---- */

#if TTM_HAVE_USERFAULTFD
static int vm_uffd_open_one(int flags)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | flags);

	return fd >= 0 ? fd : -errno;
}

/*
 * Opens a userfaultfd and negotiates the thread-id feature (needed to send
 * SIGBUS to the faulting thread). Tries the full mode first (so kernel
 * accesses to a range, such as read(2) into it, are served too), then
 * user-mode-only faults (allowed unprivileged on 5.11+), then the
 * /dev/userfaultfd node.
 */
static int vm_uffd_open(bool *has_tid)
{
	struct uffdio_api api;
	int fd, err;

	fd = vm_uffd_open_one(0);
#ifdef UFFD_USER_MODE_ONLY
	if (fd < 0)
		fd = vm_uffd_open_one(UFFD_USER_MODE_ONLY);
#endif
#ifdef USERFAULTFD_IOC_NEW
	if (fd < 0) {
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);

		if (dev >= 0) {
			int nfd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);

			if (nfd >= 0)
				fd = nfd;
			close(dev);
		}
	}
#endif
	if (fd < 0)
		return fd == -ENOSYS ? -ENOSYS : -EPERM;

	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	api.features = UFFD_FEATURE_THREAD_ID;
	if (ioctl(fd, UFFDIO_API, &api)) {
		err = -errno;
		close(fd);
		return err == -EINVAL ? -ENOSYS : err;
	}
	*has_tid = true;
	return fd;
}

static void *vm_uffd_thread(void *arg)
{
	struct ttm_vm_fault_engine *eng = arg;

	for (;;) {
		struct pollfd p[2] = {{.fd = eng->uffd, .events = POLLIN},
				      {.fd = eng->stop_fd, .events = POLLIN}};
		struct uffdio_range wake;
		struct ttm_vm_range *r;
		struct uffd_msg msg;
		uintptr_t addr;
		ssize_t n;
		int ret;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		n = read(eng->uffd, &msg, sizeof(msg));
		if (n != (ssize_t)sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		addr = (uintptr_t)msg.arg.pagefault.address & ~(uintptr_t)(VM_PAGE_SIZE - 1);
		r = vm_table_get((const void *)addr);
		ret = r ? vm_handle_fault(r, (const void *)addr) : -EFAULT;
		if (ret)
			syscall(SYS_tgkill, getpid(), (pid_t)msg.arg.pagefault.feat.ptid, SIGBUS);
		/*
		 * Wake also after a failure: the pending SIGBUS is delivered
		 * before the access is retried.
		 */
		wake.start = addr;
		wake.len = VM_PAGE_SIZE;
		ioctl(eng->uffd, UFFDIO_WAKE, &wake);
		if (r)
			vm_table_put(r);
	}
	return NULL;
}

static int vm_uffd_register(struct ttm_vm_fault_engine *eng, void *addr, size_t len)
{
	struct uffdio_register reg;

	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)addr;
	reg.range.len = len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	return ioctl(eng->uffd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

static int vm_uffd_engine_init(struct ttm_vm_fault_engine *eng)
{
	bool has_tid = false;
	int fd, ret;

	fd = vm_uffd_open(&has_tid);
	if (fd < 0)
		return fd;
	eng->uffd = fd;
	eng->has_thread_id = has_tid;
	eng->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (eng->stop_fd < 0) {
		ret = -errno;
		goto err_uffd;
	}
	/* Stores racing an invalidation hit read-only pages: SIGSEGV, not uffd. */
	ret = vm_segv_install();
	if (ret)
		goto err_stop;
	ret = -pthread_create(&eng->thread, NULL, vm_uffd_thread, eng);
	if (ret)
		goto err_stop;
	return 0;

err_stop:
	close(eng->stop_fd);
	eng->stop_fd = -1;
err_uffd:
	close(eng->uffd);
	eng->uffd = -1;
	return ret;
}
#else
static int vm_uffd_engine_init(struct ttm_vm_fault_engine *eng)
{
	return -ENOSYS;
}

static int vm_uffd_register(struct ttm_vm_fault_engine *eng, void *addr, size_t len)
{
	return -ENOSYS;
}
#endif

bool ttm_vm_fault_uffd_available(void)
{
#if TTM_HAVE_USERFAULTFD
	bool has_tid = false;
	int fd = vm_uffd_open(&has_tid);

	if (fd < 0)
		return false;
	close(fd);
	return true;
#else
	return false;
#endif
}

int ttm_vm_fault_engine_init(struct ttm_vm_fault_engine *eng, enum ttm_vm_fault_mode mode)
{
	const char *env;
	int ret;

	if (sysconf(_SC_PAGESIZE) != (long)VM_PAGE_SIZE)
		return -EOPNOTSUPP;
	memset(eng, 0, sizeof(*eng));
	eng->uffd = -1;
	eng->stop_fd = -1;

	if (mode == TTM_VM_FAULT_AUTO && (env = getenv("TTM_VM_FAULT")) && *env) {
		if (!strcmp(env, "uffd"))
			mode = TTM_VM_FAULT_UFFD;
		else if (!strcmp(env, "sigsegv"))
			mode = TTM_VM_FAULT_SIGSEGV;
		else
			return -EINVAL;
	}

	/* AUTO: userfaultfd where the kernel allows it, else the signal handler. */
	if (mode == TTM_VM_FAULT_AUTO) {
		if (!vm_uffd_engine_init(eng)) {
			eng->mode = TTM_VM_FAULT_UFFD;
			return 0;
		}
		mode = TTM_VM_FAULT_SIGSEGV;
	}

	switch (mode) {
	case TTM_VM_FAULT_AUTO:
	case TTM_VM_FAULT_SIGSEGV:
		ret = vm_segv_install();
		if (ret)
			return ret;
		eng->mode = TTM_VM_FAULT_SIGSEGV;
		return 0;
	case TTM_VM_FAULT_UFFD:
		ret = vm_uffd_engine_init(eng);
		if (ret)
			return ret;
		eng->mode = TTM_VM_FAULT_UFFD;
		return 0;
	}
	return -EINVAL;
}

int ttm_vm_fault_engine_fini(struct ttm_vm_fault_engine *eng)
{
	if (atomic_load(&eng->nr_ranges))
		return -EBUSY;
	if (eng->mode == TTM_VM_FAULT_UFFD) {
		uint64_t one = 1;

		if (write(eng->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
			return -EIO;
		pthread_join(eng->thread, NULL);
		close(eng->stop_fd);
		close(eng->uffd);
		eng->stop_fd = -1;
		eng->uffd = -1;
	}
	/* The SIGSEGV handler stays: other engines may still rely on it. */
	return 0;
}

/*
 * Fresh absent pages over [@addr, @addr + @len), atomically replacing what was
 * there. The new mapping starts PROT_NONE in both modes: under userfaultfd it
 * only becomes accessible once registered, so an access racing with the
 * replacement faults into the SIGSEGV handler (and waits for the owner)
 * instead of landing in unregistered anonymous memory, where a read would
 * see zeroes and a write would be lost.
 */
static int vm_map_absent(struct ttm_vm_fault_engine *eng, void *addr, size_t len)
{
	int ret;

	if (vm_mmap_fixed(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			  0) == MAP_FAILED)
		return -errno;
	if (eng->mode != TTM_VM_FAULT_UFFD)
		return 0;
	ret = vm_uffd_register(eng, addr, len);
	if (!ret && mprotect(addr, len, PROT_READ | PROT_WRITE))
		ret = -errno;
	return ret;
}

int ttm_vm_range_init(struct ttm_vm_fault_engine *eng, struct ttm_vm_range *range,
		      unsigned long num_pages, const struct ttm_vm_range_ops *ops, void *priv)
{
	return ttm_vm_range_init_at(eng, range, num_pages, ops, priv, NULL, 0);
}

int ttm_vm_range_init_at(struct ttm_vm_fault_engine *eng, struct ttm_vm_range *range,
			 unsigned long num_pages, const struct ttm_vm_range_ops *ops, void *priv,
			 void *hint, int flags)
{
	size_t len;
	void *p;
	int ret;

	if (!eng || !range || !num_pages || !ops || !ops->populate ||
	    num_pages > SIZE_MAX / VM_PAGE_SIZE ||
	    (flags != 0 && flags != MAP_FIXED && flags != MAP_FIXED_NOREPLACE) ||
	    (flags && ((uintptr_t)hint & (VM_PAGE_SIZE - 1))))
		return -EINVAL;
	memset(range, 0, sizeof(*range));
	len = num_pages * VM_PAGE_SIZE;
	/* Every engine needs the SIGSEGV service (stores racing an invalidation). */
	ret = vm_segv_install();
	if (ret)
		return ret;
	if (fault_should_fail(&ttm_fault_map_alloc, num_pages))
		return -ENOMEM;
	range->state = calloc(num_pages, 1);
	if (!range->state)
		return -ENOMEM;

	/* Reserve first, so the address is ours before any fault can come. */
	p = mmap(hint, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | flags, -1, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto err_state;
	}
	/* A kernel older than MAP_FIXED_NOREPLACE takes it as a hint. */
	if (flags == MAP_FIXED_NOREPLACE && p != hint) {
		munmap(p, len);
		ret = -EEXIST;
		goto err_state;
	}
	ret = vm_map_absent(eng, p, len);
	if (ret)
		goto err_unmap;

	range->engine = eng;
	range->ops = ops;
	range->priv = priv;
	range->addr = p;
	range->num_pages = num_pages;
	range->caching = ttm_cached;
	pthread_mutex_init(&range->lock, NULL);

	pthread_mutex_lock(&vm_table_lock);
	list_add_tail(&range->link, &vm_table);
	pthread_mutex_unlock(&vm_table_lock);
	atomic_fetch_add(&eng->nr_ranges, 1);
	return 0;

err_unmap:
	munmap(p, len);
err_state:
	free(range->state);
	range->state = NULL;
	return ret;
}

int ttm_vm_range_split(struct ttm_vm_range *range, unsigned long page, struct ttm_vm_range *tail,
		       void *tail_priv)
{
	unsigned long n, i, present = 0, mapped = 0;
	uint8_t *state;

	if (!range || !tail || !page || page >= range->num_pages)
		return -EINVAL;
	n = range->num_pages - page;
	if (fault_should_fail(&ttm_fault_map_alloc, n))
		return -ENOMEM;
	state = malloc(n);
	if (!state)
		return -ENOMEM;
	memset(tail, 0, sizeof(*tail));
	tail->engine = range->engine;
	tail->ops = range->ops;
	tail->priv = tail_priv;
	tail->num_pages = n;
	tail->state = state;
	pthread_mutex_init(&tail->lock, NULL);

	pthread_mutex_lock(&range->lock);
	memcpy(state, range->state + page, n);
	for (i = 0; i < n; i++) {
		present += state[i] != TTM_VM_PAGE_ABSENT;
		mapped += state[i] == TTM_VM_PAGE_MAPPED;
	}
	tail->nr_present = present;
	tail->nr_mapped = mapped;
	tail->caching = range->caching;
	atomic_store(&tail->generation, atomic_load(&range->generation));
	tail->addr = range->addr + page * VM_PAGE_SIZE;
	/* The table lock makes the new bounds and the tail appear at once for lookups. */
	pthread_mutex_lock(&vm_table_lock);
	range->num_pages = page;
	list_add(&tail->link, &range->link);
	pthread_mutex_unlock(&vm_table_lock);
	range->nr_present -= present;
	range->nr_mapped -= mapped;
	pthread_mutex_unlock(&range->lock);
	atomic_fetch_add(&range->engine->nr_ranges, 1);
	return 0;
}

void ttm_vm_range_fini(struct ttm_vm_range *range)
{
	pthread_mutex_lock(&vm_table_lock);
	range->dead = true;
	while (range->users)
		pthread_cond_wait(&vm_table_idle, &vm_table_lock);
	list_del_init(&range->link);
	pthread_mutex_unlock(&vm_table_lock);

	munmap(range->addr, range->num_pages * VM_PAGE_SIZE);
	pthread_mutex_destroy(&range->lock);
	free(range->state);
	range->state = NULL;
	atomic_fetch_sub(&range->engine->nr_ranges, 1);
}

struct ttm_vm_range *ttm_vm_range_get(const void *addr)
{
	return vm_table_get(addr);
}

void ttm_vm_range_put(struct ttm_vm_range *range)
{
	vm_table_put(range);
}

bool ttm_vm_range_page_present(struct ttm_vm_range *range, unsigned long page)
{
	bool present;

	if (page >= range->num_pages)
		return false;
	pthread_mutex_lock(&range->lock);
	present = range->state[page] != TTM_VM_PAGE_ABSENT;
	pthread_mutex_unlock(&range->lock);
	return present;
}

/*
 * Installs @n pages copied from @pages at page @first, all absent; counts
 * the calls that placed pages in *@calls.
 */
static int vm_install_copy(struct ttm_vm_range *r, unsigned long first, unsigned long n,
			   const struct ttm_vm_page *pages, unsigned long *calls)
{
	uint8_t *dst = r->addr + first * VM_PAGE_SIZE;
	size_t len = n * VM_PAGE_SIZE;
	unsigned long i;

#if TTM_HAVE_USERFAULTFD
	if (r->engine->mode == TTM_VM_FAULT_UFFD) {
		/* Sources of one higher-order pool block are contiguous: one copy each. */
		i = 0;
		while (i < n) {
			unsigned long j = i + 1;
			struct uffdio_copy copy;

			while (j < n && (const uint8_t *)pages[j].src ==
					    (const uint8_t *)pages[i].src + (j - i) * VM_PAGE_SIZE)
				j++;
			memset(&copy, 0, sizeof(copy));
			copy.dst = (uintptr_t)(dst + i * VM_PAGE_SIZE);
			copy.src = (uintptr_t)pages[i].src;
			copy.len = (j - i) * VM_PAGE_SIZE;
			/*
			 * The handler wakes the faulting thread once populate
			 * returned, so the owner lock (the BO reservation) is
			 * already dropped when the access resumes.
			 */
			copy.mode = UFFDIO_COPY_MODE_DONTWAKE;
			++*calls;
			if (ioctl(r->engine->uffd, UFFDIO_COPY, &copy)) {
				if (errno == EAGAIN && copy.copy > 0) {
					/* Partly done while the mm changed: the rest again. */
					unsigned long done =
					    (unsigned long)copy.copy / VM_PAGE_SIZE;

					memset(r->state + first + i, TTM_VM_PAGE_COPY, done);
					r->nr_present += done;
					i += done;
					continue;
				}
				if (errno != EAGAIN)
					return -errno;
				continue;
			}
			memset(r->state + first + i, TTM_VM_PAGE_COPY, j - i);
			r->nr_present += j - i;
			i = j;
		}
		return 0;
	}
#endif
	{
		/*
		 * Build the pages aside and move them in with one mremap, so a
		 * second thread sees the old PROT_NONE page or the whole new one.
		 */
		uint8_t *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (tmp == MAP_FAILED)
			return -errno;
		for (i = 0; i < n; i++)
			memcpy(tmp + i * VM_PAGE_SIZE, pages[i].src, VM_PAGE_SIZE);
		++*calls;
		if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst) == MAP_FAILED) {
			int err = -errno;

			munmap(tmp, len);
			return err;
		}
		memset(r->state + first, TTM_VM_PAGE_COPY, n);
		r->nr_present += n;
	}
	return 0;
}

/* Maps @n consecutive pages of one memfd at page @first, all absent. */
static int vm_install_fd(struct ttm_vm_range *r, unsigned long first, unsigned long n,
			 const struct ttm_vm_page *page, unsigned long *calls)
{
	uint8_t *dst = r->addr + first * VM_PAGE_SIZE;
	size_t len = n * VM_PAGE_SIZE;

	if (page->offset % VM_PAGE_SIZE || page->fd < 0)
		return -EINVAL;
	++*calls;
	/*
	 * Populating costs the kernel one pass over page-cache pages that are
	 * there already; it saves a trap per page (16384 for a 64 MiB BO).
	 */
	if (vm_mmap_fixed(dst, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, page->fd,
			  (off_t)page->offset) == MAP_FAILED)
		return -errno;
	memset(r->state + first, TTM_VM_PAGE_MAPPED, n);
	r->nr_present += n;
	r->nr_mapped += n;
	return 0;
}

long ttm_vm_range_install(struct ttm_vm_range *range, unsigned long first, unsigned long count,
			  const struct ttm_vm_page *pages, enum ttm_caching caching)
{
	unsigned long i = 0, copied = 0, mapped = 0, calls = 0;
	int ret = 0;

	if (first >= range->num_pages || count > range->num_pages - first || !pages)
		return -EINVAL;

	pthread_mutex_lock(&range->lock);
	while (i < count) {
		unsigned long j = i + 1;

		if (range->state[first + i] != TTM_VM_PAGE_ABSENT) {
			i++;
			continue;
		}
		/* A run: absent pages of one kind (copies, or one memfd in order). */
		while (
		    j < count && range->state[first + j] == TTM_VM_PAGE_ABSENT &&
		    !pages[j].src == !pages[i].src &&
		    (pages[i].src || (pages[j].fd == pages[i].fd &&
				      pages[j].offset == pages[i].offset + (j - i) * VM_PAGE_SIZE)))
			j++;
		if (fault_should_fail(&ttm_fault_mmap_remap, (j - i) * VM_PAGE_SIZE)) {
			ret = -ENOMEM;
			break;
		}
		if (pages[i].src) {
			ret = vm_install_copy(range, first + i, j - i, pages + i, &calls);
			if (!ret)
				copied += j - i;
		} else {
			ret = vm_install_fd(range, first + i, j - i, pages + i, &calls);
			if (!ret)
				mapped += j - i;
		}
		if (ret)
			break;
		i = j;
	}
	if (copied + mapped)
		range->caching = caching;
	pthread_mutex_unlock(&range->lock);

	atomic_fetch_add(&range->stats.pages_copied, copied);
	atomic_fetch_add(&range->engine->stats.pages_copied, copied);
	atomic_fetch_add(&range->stats.pages_mapped, mapped);
	atomic_fetch_add(&range->engine->stats.pages_mapped, mapped);
	atomic_fetch_add(&range->stats.remaps, calls);
	atomic_fetch_add(&range->engine->stats.remaps, calls);
	return ret ? ret : (long)(copied + mapped);
}

/* Hands every copied page to writeback, reading them at @base. */
static unsigned long vm_writeback(struct ttm_vm_range *r, const uint8_t *base)
{
	unsigned long i, n = 0;

	if (!r->ops->writeback || r->nr_present == r->nr_mapped)
		return 0;
	vm_tsan_ignore_begin();
	/* Copies are the present pages that are not mapped: stop at the last one. */
	for (i = 0; i < r->num_pages && n < r->nr_present - r->nr_mapped; i++) {
		if (r->state[i] != TTM_VM_PAGE_COPY)
			continue;
		r->ops->writeback(r, i, base + i * VM_PAGE_SIZE);
		n++;
	}
	vm_tsan_ignore_end();
	return n;
}

/* Make the copied pages read-only, run by run (absent pages must keep faulting). */
static void vm_revoke_writes(struct ttm_vm_range *r)
{
	unsigned long i = 0, left = r->nr_present - r->nr_mapped;

	while (i < r->num_pages && left) {
		unsigned long j = i + 1;

		if (r->state[i] != TTM_VM_PAGE_COPY) {
			i++;
			continue;
		}
		while (j < r->num_pages && r->state[j] == TTM_VM_PAGE_COPY)
			j++;
		mprotect(r->addr + i * VM_PAGE_SIZE, (j - i) * VM_PAGE_SIZE, PROT_READ);
		left -= j - i;
		i = j;
	}
}

void ttm_vm_range_invalidate(struct ttm_vm_range *range)
{
	size_t len = range->num_pages * VM_PAGE_SIZE;
	unsigned long written = 0;

	pthread_mutex_lock(&range->lock);
	if (!range->nr_present) {
		pthread_mutex_unlock(&range->lock);
		return;
	}
	/*
	 * Revoke writes first, so a store racing with the read-back faults
	 * (SIGSEGV, in both modes) and waits for the owner lock instead of
	 * landing in a copy about to be dropped.
	 */
	vm_revoke_writes(range);
	written = vm_writeback(range, range->addr);
	if (range->engine->mode == TTM_VM_FAULT_UFFD && !range->nr_mapped) {
		/*
		 * Drop the pages but keep the registration (a fresh mapping
		 * would be unregistered for a moment and fill with zeroes);
		 * missing pages fault into the handler again once writable.
		 */
		madvise(range->addr, len, MADV_DONTNEED);
		mprotect(range->addr, len, PROT_READ | PROT_WRITE);
	} else {
		/* One mmap replaces every page and merges the range back into one mapping. */
		vm_map_absent(range->engine, range->addr, len);
	}
	memset(range->state, TTM_VM_PAGE_ABSENT, range->num_pages);
	atomic_fetch_add(&range->generation, 1);
	range->nr_present = 0;
	range->nr_mapped = 0;
	pthread_mutex_unlock(&range->lock);

	atomic_fetch_add(&range->stats.invalidations, 1);
	atomic_fetch_add(&range->engine->stats.invalidations, 1);
	atomic_fetch_add(&range->stats.pages_written_back, written);
	atomic_fetch_add(&range->engine->stats.pages_written_back, written);
}

void ttm_vm_range_drop_copies(struct ttm_vm_range *range, unsigned long first, unsigned long count)
{
	unsigned long i, end, written = 0, dropped = 0;

	pthread_mutex_lock(&range->lock);
	if (first >= range->num_pages || range->nr_present == range->nr_mapped) {
		pthread_mutex_unlock(&range->lock);
		return;
	}
	end = count > range->num_pages - first ? range->num_pages : first + count;
	i = first;
	while (i < end) {
		unsigned long j = i + 1, k;
		uint8_t *a = range->addr + i * VM_PAGE_SIZE;

		if (range->state[i] != TTM_VM_PAGE_COPY) {
			i++;
			continue;
		}
		while (j < end && range->state[j] == TTM_VM_PAGE_COPY)
			j++;
		/* As ttm_vm_range_invalidate(): no store may land in a copy being dropped. */
		mprotect(a, (j - i) * VM_PAGE_SIZE, PROT_READ);
		if (range->ops->writeback) {
			vm_tsan_ignore_begin();
			for (k = i; k < j; k++)
				range->ops->writeback(range, k, range->addr + k * VM_PAGE_SIZE);
			vm_tsan_ignore_end();
			written += j - i;
		}
		vm_map_absent(range->engine, a, (j - i) * VM_PAGE_SIZE);
		memset(range->state + i, TTM_VM_PAGE_ABSENT, j - i);
		range->nr_present -= j - i;
		dropped += j - i;
		i = j;
	}
	if (dropped)
		atomic_fetch_add(&range->generation, 1);
	pthread_mutex_unlock(&range->lock);
	atomic_fetch_add(&range->stats.pages_written_back, written);
	atomic_fetch_add(&range->engine->stats.pages_written_back, written);
}

void ttm_vm_fault_engine_print(struct ttm_vm_fault_engine *eng, FILE *f)
{
	fprintf(f,
		"vm fault: mode %s, ranges %ld, faults %llu, pages copied %llu, mapped %llu, "
		"invalidations %llu, written back %llu, sigbus %llu\n",
		ttm_vm_fault_mode_name(eng->mode), (long)atomic_load(&eng->nr_ranges),
		(unsigned long long)atomic_load(&eng->stats.faults),
		(unsigned long long)atomic_load(&eng->stats.pages_copied),
		(unsigned long long)atomic_load(&eng->stats.pages_mapped),
		(unsigned long long)atomic_load(&eng->stats.invalidations),
		(unsigned long long)atomic_load(&eng->stats.pages_written_back),
		(unsigned long long)atomic_load(&eng->stats.sigbus));
}
