// SPDX-License-Identifier: MIT
/*
 * Tests of the fault engine on its own (no BO): population by copy and by
 * memfd, prefault windows, invalidation with write-back, SIGBUS on populate
 * errors, and faults racing invalidations; each in both mechanisms (the
 * userfaultfd cases skip where the kernel refuses it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_vm_fault.h>

#include <testlib/prng.h>

#include "ktest.h"

#define PG 4096ul

#if defined(__SANITIZE_THREAD__)
#define VM_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VM_TEST_TSAN 1
#endif
#endif

/* The owner of a test range: host pages (or a memfd) behind one lock. */
struct owner {
	pthread_mutex_t lock;
	struct ttm_vm_range range;
	uint8_t *backing;
	unsigned long num_pages;
	int memfd;
	int fail;
	unsigned long window;
	_Atomic unsigned long populates;
	_Atomic unsigned long writebacks;
};

static int owner_populate(struct ttm_vm_range *range, unsigned long page)
{
	struct owner *o = range->priv;
	struct ttm_vm_page pages[TTM_VM_FAULT_PREFAULT];
	unsigned long first, n, i;
	long ret;

	pthread_mutex_lock(&o->lock);
	atomic_fetch_add(&o->populates, 1);
	if (o->fail) {
		pthread_mutex_unlock(&o->lock);
		return -ENOMEM;
	}
	first = page - page % o->window;
	n = o->window;
	if (first + n > o->num_pages)
		n = o->num_pages - first;
	for (i = 0; i < n; i++) {
		if (o->memfd >= 0) {
			pages[i].src = NULL;
			pages[i].fd = o->memfd;
			pages[i].offset = (first + i) * PG;
		} else {
			pages[i].src = o->backing + (first + i) * PG;
		}
	}
	ret = ttm_vm_range_install(range, first, n, pages, ttm_write_combined);
	pthread_mutex_unlock(&o->lock);
	return ret < 0 ? (int)ret : 0;
}

static void owner_writeback(struct ttm_vm_range *range, unsigned long page, const void *data)
{
	struct owner *o = range->priv;

	atomic_fetch_add(&o->writebacks, 1);
	memcpy(o->backing + page * PG, data, PG);
}

static const struct ttm_vm_range_ops owner_ops = {
    .populate = owner_populate,
    .writeback = owner_writeback,
};

static struct ttm_vm_fault_engine eng;

/* Engine in @mode or skip when the kernel refuses userfaultfd. */
static void engine_setup(enum ttm_vm_fault_mode mode)
{
	int ret;

	fault_reset_all();
	ret = ttm_vm_fault_engine_init(&eng, mode);
	if (mode == TTM_VM_FAULT_UFFD && (ret == -EPERM || ret == -ENOSYS))
		KTEST_SKIP("userfaultfd refused by this kernel");
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(eng.mode, mode);
}

static void owner_init(struct owner *o, unsigned long num_pages, bool memfd)
{
	unsigned long i;

	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
	o->num_pages = num_pages;
	o->window = TTM_VM_FAULT_PREFAULT;
	o->memfd = -1;
	if (memfd) {
		o->memfd = memfd_create("vm-test", MFD_CLOEXEC);
		ASSERT_GE(o->memfd, 0);
		ASSERT_EQ(ftruncate(o->memfd, (off_t)(num_pages * PG)), 0);
		o->backing =
		    mmap(NULL, num_pages * PG, PROT_READ | PROT_WRITE, MAP_SHARED, o->memfd, 0);
	} else {
		o->backing = mmap(NULL, num_pages * PG, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	ASSERT_TRUE(o->backing != MAP_FAILED);
	for (i = 0; i < num_pages * PG / 8; i++)
		((uint64_t *)o->backing)[i] = i * PRNG_GOLDEN;
	ASSERT_EQ(ttm_vm_range_init(&eng, &o->range, num_pages, &owner_ops, o), 0);
}

static void owner_fini(struct owner *o)
{
	ttm_vm_range_fini(&o->range);
	munmap(o->backing, o->num_pages * PG);
	if (o->memfd >= 0)
		close(o->memfd);
	pthread_mutex_destroy(&o->lock);
	EXPECT_EQ(ttm_vm_fault_engine_fini(&eng), 0);
}

static void invalidate(struct owner *o)
{
	pthread_mutex_lock(&o->lock);
	ttm_vm_range_invalidate(&o->range);
	pthread_mutex_unlock(&o->lock);
}

/* Sequential touch: same content, one populate per window, nothing copied twice. */
static void check_sequential(enum ttm_vm_fault_mode mode, bool memfd)
{
	struct owner o;
	unsigned long n = 100;

	engine_setup(mode);
	owner_init(&o, n, memfd);
	EXPECT_FALSE(ttm_vm_range_page_present(&o.range, 0));
	EXPECT_MEMEQ(o.range.addr, o.backing, n * PG);
	EXPECT_EQ(atomic_load(&o.populates),
		  (n + TTM_VM_FAULT_PREFAULT - 1) / TTM_VM_FAULT_PREFAULT);
	EXPECT_EQ(
	    atomic_load(&o.range.stats.pages_copied) + atomic_load(&o.range.stats.pages_mapped), n);
	EXPECT_EQ(atomic_load(memfd ? &o.range.stats.pages_mapped : &o.range.stats.pages_copied),
		  n);
	EXPECT_TRUE(ttm_vm_range_page_present(&o.range, n - 1));
	EXPECT_EQ(o.range.caching, ttm_write_combined);
	/* Touching again costs nothing. */
	EXPECT_MEMEQ(o.range.addr, o.backing, n * PG);
	EXPECT_EQ(atomic_load(&o.range.stats.faults), atomic_load(&o.populates));
	owner_fini(&o);
}

KTEST(ttm_vm_range_install_copy_sigsegv)
{
	check_sequential(TTM_VM_FAULT_SIGSEGV, false);
}

KTEST(ttm_vm_range_install_copy_uffd)
{
	check_sequential(TTM_VM_FAULT_UFFD, false);
}

KTEST(ttm_vm_range_install_memfd_sigsegv)
{
	check_sequential(TTM_VM_FAULT_SIGSEGV, true);
}

KTEST(ttm_vm_range_install_memfd_uffd)
{
	check_sequential(TTM_VM_FAULT_UFFD, true);
}

/*
 * Whether the page at @addr has a page-table entry now (the present bit of
 * /proc/self/pagemap, readable without privileges): 1, 0, or -1 when the
 * file cannot be read here.
 */
static int pte_present(const void *addr)
{
	uint64_t entry = 0;
	off_t off = (off_t)((uintptr_t)addr / PG * sizeof(entry));
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &entry, sizeof(entry), off);
	close(fd);
	if (n != (ssize_t)sizeof(entry))
		return -1;
	return (int)(entry >> 63);
}

/*
 * A memfd install leaves the page tables filled: none of the installed
 * pages takes a kernel fault at its first access, in either mechanism.
 */
static void check_memfd_populated(enum ttm_vm_fault_mode mode)
{
	struct ttm_vm_page pages[TTM_VM_FAULT_PREFAULT];
	unsigned long n = TTM_VM_FAULT_PREFAULT, i;
	struct owner o;
	int present;

	engine_setup(mode);
	owner_init(&o, 2 * n, true);
	present = pte_present(o.range.addr);
	if (present < 0) {
		owner_fini(&o);
		KTEST_SKIP("/proc/self/pagemap not readable");
	}
	EXPECT_EQ(present, 0);
	for (i = 0; i < n; i++)
		pages[i] = (struct ttm_vm_page){.fd = o.memfd, .offset = i * PG};
	pthread_mutex_lock(&o.lock);
	EXPECT_EQ(ttm_vm_range_install(&o.range, 0, n, pages, ttm_cached), (long)n);
	pthread_mutex_unlock(&o.lock);
	/* Checked before any access: populated by the install itself. */
	for (i = 0; i < n; i++)
		EXPECT_EQ(pte_present(o.range.addr + i * PG), 1);
	EXPECT_EQ(pte_present(o.range.addr + n * PG), 0);
	EXPECT_MEMEQ(o.range.addr, o.backing, n * PG);
	EXPECT_EQ(atomic_load(&o.populates), 0);
	/* The second window still faults and is populated the same way. */
	EXPECT_MEMEQ(o.range.addr + n * PG, o.backing + n * PG, n * PG);
	EXPECT_EQ(atomic_load(&o.populates), 1);
	owner_fini(&o);
}

KTEST(ttm_vm_range_install_memfd_populated_sigsegv)
{
	check_memfd_populated(TTM_VM_FAULT_SIGSEGV);
}

KTEST(ttm_vm_range_install_memfd_populated_uffd)
{
	check_memfd_populated(TTM_VM_FAULT_UFFD);
}

/* Writes reach the owner on invalidation; afterwards the new content shows. */
static void check_invalidate(enum ttm_vm_fault_mode mode, bool memfd)
{
	struct owner o;
	unsigned long n = 40, i;

	engine_setup(mode);
	owner_init(&o, n, memfd);
	for (i = 0; i < n; i += 3)
		o.range.addr[i * PG + 5] = (uint8_t)(i + 1);
	invalidate(&o);
	EXPECT_FALSE(ttm_vm_range_page_present(&o.range, 0));
	for (i = 0; i < n; i += 3)
		EXPECT_EQ(o.backing[i * PG + 5], (uint8_t)(i + 1));
	/* Copies are written back, memfd pages are shared and need none. */
	if (memfd)
		EXPECT_EQ(atomic_load(&o.writebacks), 0);
	else
		EXPECT_EQ(atomic_load(&o.writebacks), n);

	/* The owner's content changes while nothing is mapped: the next access sees it. */
	pthread_mutex_lock(&o.lock);
	memset(o.backing + 7 * PG, 0xa5, PG);
	pthread_mutex_unlock(&o.lock);
	EXPECT_EQ(o.range.addr[7 * PG + 100], 0xa5);
	EXPECT_MEMEQ(o.range.addr, o.backing, n * PG);
	EXPECT_EQ(atomic_load(&o.range.stats.invalidations), 1);
	/* Nothing present: invalidation is free. */
	invalidate(&o);
	invalidate(&o);
	EXPECT_EQ(atomic_load(&o.range.stats.invalidations), 2);
	owner_fini(&o);
}

KTEST(ttm_vm_range_invalidate_writeback_sigsegv)
{
	check_invalidate(TTM_VM_FAULT_SIGSEGV, false);
}

KTEST(ttm_vm_range_invalidate_writeback_uffd)
{
	check_invalidate(TTM_VM_FAULT_UFFD, false);
}

KTEST(ttm_vm_range_invalidate_memfd_sigsegv)
{
	check_invalidate(TTM_VM_FAULT_SIGSEGV, true);
}

KTEST(ttm_vm_range_invalidate_memfd_uffd)
{
	check_invalidate(TTM_VM_FAULT_UFFD, true);
}

static sigjmp_buf sigbus_env;
static volatile sig_atomic_t sigbus_seen;

static void sigbus_handler(int sig)
{
	sigbus_seen = 1;
	siglongjmp(sigbus_env, 1);
}

/* A failing populate (or the mmap_remap fault point) is SIGBUS; content intact after. */
static void check_sigbus(enum ttm_vm_fault_mode mode)
{
	struct sigaction sa, old;
	volatile uint8_t v = 0;
	struct owner o;

#ifdef VM_TEST_TSAN
	/* TSan defers the SIGBUS sent to a thread stuck in a fault; nothing to observe. */
	KTEST_SKIP("SIGBUS delivery is deferred under TSan");
#endif
	engine_setup(mode);
	owner_init(&o, 4, false);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigbus_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGBUS, &sa, &old), 0);

	o.fail = 1;
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = o.range.addr[10];
	EXPECT_EQ(sigbus_seen, 1);
	EXPECT_EQ(atomic_load(&o.range.stats.sigbus), 1);

	o.fail = 0;
	ASSERT_EQ(fault_configure("mmap_remap:probability=100,times=1", NULL, 0), 0);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = o.range.addr[PG + 1];
	EXPECT_EQ(sigbus_seen, 1);
	EXPECT_FALSE(ttm_vm_range_page_present(&o.range, 1));

	/* The point is spent: the retry works and sees the owner's bytes. */
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = o.range.addr[PG + 1];
	EXPECT_EQ(sigbus_seen, 0);
	EXPECT_EQ(v, o.backing[PG + 1]);
	sigaction(SIGBUS, &old, NULL);
	fault_reset_all();
	owner_fini(&o);
}

KTEST(ttm_vm_range_populate_error_sigbus_sigsegv)
{
	check_sigbus(TTM_VM_FAULT_SIGSEGV);
}

KTEST(ttm_vm_range_populate_error_sigbus_uffd)
{
	check_sigbus(TTM_VM_FAULT_UFFD);
}

/*
 * Racing writers and invalidations: each writer thread owns one word per
 * page and stores increasing values; the owner invalidates (writes back)
 * in a loop. After the writers stop and a last invalidation, the owner's
 * copy holds every writer's last value: no write was lost.
 */
struct race {
	struct owner *o;
	unsigned id;
	unsigned long iters;
	uint64_t seed;
	_Atomic bool *stop;
};

static void *race_writer(void *arg)
{
	struct race *r = arg;
	struct prng rng = {r->seed};
	unsigned long it;

	for (it = 1; it <= r->iters; it++) {
		unsigned long page;

		page = prng_below(&rng, r->o->num_pages);
		((volatile uint64_t *)(r->o->range.addr + page * PG))[r->id] = it;
		((volatile uint64_t *)(r->o->range.addr + page * PG))[8 + r->id] = page;
	}
	/* Final stamp on every page so the check does not depend on the PRNG. */
	for (it = 0; it < r->o->num_pages; it++)
		((volatile uint64_t *)(r->o->range.addr + it * PG))[r->id] = r->iters + 1;
	return NULL;
}

static void *race_invalidator(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(r->stop)) {
		invalidate(r->o);
		sched_yield();
	}
	return NULL;
}

static void check_race(enum ttm_vm_fault_mode mode)
{
	enum { WRITERS = 3 };
	struct race w[WRITERS], inv;
	pthread_t tw[WRITERS], ti;
	_Atomic bool stop = false;
	struct owner o;
	unsigned long p;
	unsigned i;

	engine_setup(mode);
	owner_init(&o, 64, false);
	for (i = 0; i < WRITERS; i++) {
		w[i] = (struct race){.o = &o,
				     .id = i,
				     .iters = 20000 * ktest_scale(),
				     .seed = ktest_rand(),
				     .stop = &stop};
		ASSERT_EQ(pthread_create(&tw[i], NULL, race_writer, &w[i]), 0);
	}
	inv = (struct race){.o = &o, .stop = &stop};
	ASSERT_EQ(pthread_create(&ti, NULL, race_invalidator, &inv), 0);
	for (i = 0; i < WRITERS; i++)
		pthread_join(tw[i], NULL);
	atomic_store(&stop, true);
	pthread_join(ti, NULL);
	invalidate(&o);
	for (p = 0; p < o.num_pages; p++)
		for (i = 0; i < WRITERS; i++)
			EXPECT_EQ(((uint64_t *)(o.backing + p * PG))[i], w[i].iters + 1);
	EXPECT_GT(atomic_load(&o.range.stats.invalidations), 0);
	owner_fini(&o);
}

KTEST(ttm_vm_range_invalidate_race_sigsegv)
{
	check_race(TTM_VM_FAULT_SIGSEGV);
}

KTEST(ttm_vm_range_invalidate_race_uffd)
{
	check_race(TTM_VM_FAULT_UFFD);
}

KTEST(ttm_vm_fault_engine_init_env)
{
	char line[512];
	FILE *f;

	fault_reset_all();
	setenv("TTM_VM_FAULT", "sigsegv", 1);
	ASSERT_EQ(ttm_vm_fault_engine_init(&eng, TTM_VM_FAULT_AUTO), 0);
	EXPECT_EQ(eng.mode, TTM_VM_FAULT_SIGSEGV);
	f = tmpfile();
	ASSERT_NOT_NULL(f);
	ttm_vm_fault_engine_print(&eng, f);
	rewind(f);
	ASSERT_NOT_NULL(fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_TRUE(strstr(line, "mode sigsegv") != NULL);
	EXPECT_EQ(ttm_vm_fault_engine_fini(&eng), 0);

	setenv("TTM_VM_FAULT", "bogus", 1);
	EXPECT_EQ(ttm_vm_fault_engine_init(&eng, TTM_VM_FAULT_AUTO), -EINVAL);

	setenv("TTM_VM_FAULT", "uffd", 1);
	if (ttm_vm_fault_uffd_available()) {
		ASSERT_EQ(ttm_vm_fault_engine_init(&eng, TTM_VM_FAULT_AUTO), 0);
		EXPECT_EQ(eng.mode, TTM_VM_FAULT_UFFD);
		EXPECT_EQ(ttm_vm_fault_engine_fini(&eng), 0);
	} else {
		EXPECT_LT(ttm_vm_fault_engine_init(&eng, TTM_VM_FAULT_AUTO), 0);
	}
	unsetenv("TTM_VM_FAULT");
}

KTEST(ttm_vm_fault_engine_fini_busy)
{
	struct owner o;

	engine_setup(TTM_VM_FAULT_SIGSEGV);
	owner_init(&o, 1, false);
	EXPECT_EQ(ttm_vm_fault_engine_fini(&eng), -EBUSY);
	EXPECT_EQ(ttm_vm_range_init(&eng, &o.range, 0, &owner_ops, &o), -EINVAL);
	owner_fini(&o);
}
