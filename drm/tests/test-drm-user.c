// SPDX-License-Identifier: MIT
#include <drmcore/drm_user.h>
#include <drmcore/drm_ioctl.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ioctl.h>

#define PAGE 4096

/* Two pages: the first readable and writable, the second PROT_NONE. */
static char *two_pages(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + PAGE, PAGE, PROT_NONE);
	return p;
}

static void each_mode(void (*fn)(void))
{
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	fn();
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_VM), 0);
	fn();
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_PIPE), 0);
	fn();
	drm_user_set_copy_mode(DRM_USER_COPY_GUARD);
}

/*
 * Must stay the first case: it installs a handler before the first copy
 * installs the guard over it, and checks that a fault outside any copy
 * still reaches it (the guard chains to the disposition it replaced).
 */
static sigjmp_buf chained_env;
static volatile sig_atomic_t chained_hits;

static void chained_handler(int sig, siginfo_t *si, void *uctx)
{
	(void)sig;
	(void)si;
	(void)uctx;
	chained_hits++;
	siglongjmp(chained_env, 1);
}

KTEST(drm_copy_user_guard_chains_faults_outside_a_copy)
{
	struct sigaction sa, old;
	char *p = two_pages();
	char buf[8];

	ASSERT_NOT_NULL(p);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = chained_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGSEGV, &sa, &old), 0);
	/* The first copy installs the guard (over chained_handler). */
	if (drm_user_set_copy_mode(DRM_USER_COPY_GUARD))
		KTEST_SKIP("the fault guard cannot be installed here");
	EXPECT_UEQ(drm_copy_from_user(buf, p + PAGE, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(chained_hits, 0);
	if (!sigsetjmp(chained_env, 1))
		(void)*(volatile char *)(p + PAGE);
	EXPECT_EQ(chained_hits, 1);
	/* And copies still fault cleanly afterwards. */
	EXPECT_UEQ(drm_copy_to_user(p + PAGE, buf, 1), 1);
	EXPECT_EQ(chained_hits, 1);
	munmap(p, 2 * PAGE);
}

KTEST(drm_copy_user_default_is_the_guarded_cpu_copy)
{
	if (getenv("DRMCORE_USER_COPY"))
		KTEST_SKIP("DRMCORE_USER_COPY chooses the mechanism");
	EXPECT_EQ(drm_user_copy_mode(), DRM_USER_COPY_GUARD);
}

static void copy_basic(void)
{
	char src[100], dst[100];

	for (int i = 0; i < 100; i++)
		src[i] = (char)i;
	memset(dst, 0x55, sizeof(dst));
	EXPECT_UEQ(drm_copy_from_user(dst, src, sizeof(src)), 0);
	EXPECT_MEMEQ(dst, src, sizeof(src));
	memset(dst, 0, sizeof(dst));
	EXPECT_UEQ(drm_copy_to_user(dst, src, 50), 0);
	EXPECT_MEMEQ(dst, src, 50);
	EXPECT_EQ(dst[50], 0);
	EXPECT_UEQ(drm_copy_from_user(dst, src, 0), 0);
}

KTEST(drm_copy_user_copies_valid_memory)
{
	each_mode(copy_basic);
}

static void copy_bad_small_pointer(void)
{
	char buf[16];

	memset(buf, 0x77, sizeof(buf));
	EXPECT_UEQ(drm_copy_from_user(buf, (void *)8, sizeof(buf)), sizeof(buf));
	/* The uncopied part is zeroed, as the kernel does. */
	for (unsigned i = 0; i < sizeof(buf); i++)
		EXPECT_EQ(buf[i], 0);
	EXPECT_UEQ(drm_copy_to_user((void *)8, buf, sizeof(buf)), sizeof(buf));
	EXPECT_UEQ(drm_clear_user((void *)8, 4), 4);
	EXPECT_EQ(drm_strncpy_from_user(buf, (void *)8, sizeof(buf)), -EFAULT);
	EXPECT_FALSE(drm_user_readable((void *)8, 1));
}

KTEST(drm_copy_user_faults_on_small_pointer)
{
	each_mode(copy_bad_small_pointer);
}

static void copy_partial(void)
{
	char *p = two_pages();
	char buf[64];

	ASSERT_NOT_NULL(p);
	memset(p + PAGE - 16, 'a', 16);
	memset(buf, 0x77, sizeof(buf));
	/* 16 bytes before the PROT_NONE page are copied, 48 are not. */
	EXPECT_UEQ(drm_copy_from_user(buf, p + PAGE - 16, sizeof(buf)), 48);
	EXPECT_EQ(buf[0], 'a');
	EXPECT_EQ(buf[15], 'a');
	EXPECT_EQ(buf[16], 0);
	EXPECT_EQ(buf[63], 0);

	memset(buf, 'b', sizeof(buf));
	EXPECT_UEQ(drm_copy_to_user(p + PAGE - 8, buf, sizeof(buf)), 56);
	EXPECT_EQ(p[PAGE - 8], 'b');
	EXPECT_EQ(p[PAGE - 1], 'b');

	EXPECT_UEQ(drm_clear_user(p + PAGE - 4, 8), 4);
	EXPECT_EQ(p[PAGE - 1], 0);

	EXPECT_UEQ(drm_copy_from_user(buf, p + PAGE, 1), 1);
	EXPECT_TRUE(drm_user_readable(p, PAGE));
	EXPECT_FALSE(drm_user_readable(p, PAGE + 1));
	munmap(p, 2 * PAGE);
}

KTEST(drm_copy_user_stops_at_prot_none_page)
{
	each_mode(copy_partial);
}

static void copy_readonly(void)
{
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[8] = "abcdefg";

	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_UEQ(drm_copy_from_user(buf, p, 8), 0);
	EXPECT_EQ(buf[0], 0);
	EXPECT_UEQ(drm_copy_to_user(p, "x", 1), 1);
	munmap(p, PAGE);
}

KTEST(drm_copy_to_user_faults_on_read_only_page)
{
	each_mode(copy_readonly);
}

static void strncpy_cases(void)
{
	char *p = two_pages();
	/* Sources as large as the count: a copy may read past the NUL. */
	static const char hello[32] = "hello";
	char buf[32];

	ASSERT_NOT_NULL(p);
	EXPECT_EQ(drm_strncpy_from_user(buf, hello, sizeof(buf)), 5);
	EXPECT_STREQ(buf, "hello");
	/* No NUL within count: count, unterminated. */
	EXPECT_EQ(drm_strncpy_from_user(buf, hello, 3), 3);
	EXPECT_EQ(buf[2], 'l');
	/* A string that ends right before the bad page is fine. */
	memcpy(p + PAGE - 4, "abc", 4);
	EXPECT_EQ(drm_strncpy_from_user(buf, p + PAGE - 4, sizeof(buf)), 3);
	EXPECT_STREQ(buf, "abc");
	/* One that runs into it is -EFAULT. */
	memcpy(p + PAGE - 4, "abcd", 4);
	EXPECT_EQ(drm_strncpy_from_user(buf, p + PAGE - 4, sizeof(buf)), -EFAULT);
	munmap(p, 2 * PAGE);
}

KTEST(drm_strncpy_from_user_lengths_and_faults)
{
	each_mode(strncpy_cases);
}

static char *resolve_page;

static bool resolver(uintptr_t addr, bool write)
{
	(void)write;
	if ((char *)(addr & ~(uintptr_t)(PAGE - 1)) != resolve_page)
		return false;
	mprotect(resolve_page, PAGE, PROT_READ | PROT_WRITE);
	memset(resolve_page, 'r', PAGE);
	return true;
}

KTEST(drm_copy_user_asks_the_resolver_for_absent_pages)
{
	char *p = two_pages();
	char buf[32];

	ASSERT_NOT_NULL(p);
	resolve_page = p + PAGE;
	drm_user_set_fault_resolver(resolver);
	EXPECT_UEQ(drm_copy_from_user(buf, p + PAGE - 16, sizeof(buf)), 0);
	EXPECT_EQ(buf[31], 'r');
	/* A resolver that declines leaves -EFAULT semantics intact. */
	EXPECT_UEQ(drm_copy_from_user(buf, (void *)8, 4), 4);
	drm_user_set_fault_resolver(NULL);
	munmap(p, 2 * PAGE);
}

KTEST(drm_copy_user_large_copy_crosses_many_pages)
{
	size_t n = 3 * 1024 * PAGE + 123; /* more than one process_vm_readv pass */
	char *src = malloc(n), *dst = malloc(n);

	ASSERT_NOT_NULL(src);
	ASSERT_NOT_NULL(dst);
	for (size_t i = 0; i < n; i++)
		src[i] = (char)(i * 7);
	EXPECT_UEQ(drm_copy_from_user(dst, src, n), 0);
	EXPECT_MEMEQ(dst, src, n);
	free(src);
	free(dst);
}

/*
 * A uAPI struct in PROT_WRITE-only memory: the kernel's copy_from_user reads
 * it (x86 pages that are writable are readable), so ours does too; a
 * read-only struct can be read but not written back.
 */
KTEST(drm_copy_user_write_only_memory_is_read_and_written)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[64], back[64];

	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	for (int i = 0; i < 64; i++)
		p[PAGE - 32 + i] = (char)(i + 1);
	memset(buf, 0, sizeof(buf));
	EXPECT_UEQ(drm_copy_from_user(buf, p + PAGE - 32, sizeof(buf)), 0);
	EXPECT_EQ(buf[0], 1);
	EXPECT_EQ(buf[63], 64);
	for (int i = 0; i < 64; i++)
		buf[i] = (char)(100 + i);
	EXPECT_UEQ(drm_copy_to_user(p + PAGE - 32, buf, sizeof(buf)), 0);
	EXPECT_UEQ(drm_copy_from_user(back, p + PAGE - 32, sizeof(back)), 0);
	EXPECT_MEMEQ(back, buf, sizeof(buf));
	EXPECT_TRUE(drm_user_readable(p, 2 * PAGE));
	munmap(p, 2 * PAGE);
}

/* The count is exact wherever the bad page is, also far into a long copy. */
KTEST(drm_copy_user_guard_count_is_exact_for_a_hole)
{
	char *p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *buf = malloc(8 * PAGE);

	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	memset(p, 'h', 8 * PAGE);
	mprotect(p + 5 * PAGE, PAGE, PROT_NONE);
	memset(buf, 'x', 8 * PAGE);
	EXPECT_UEQ(drm_copy_from_user(buf, p + 100, 8 * PAGE - 100), 3 * PAGE);
	EXPECT_EQ(buf[5 * PAGE - 101], 'h');
	EXPECT_EQ(buf[5 * PAGE - 100], 0);
	memset(buf, 'y', 8 * PAGE);
	EXPECT_UEQ(drm_copy_to_user(p + 100, buf, 8 * PAGE - 100), 3 * PAGE);
	EXPECT_EQ(p[5 * PAGE - 1], 'y');
	EXPECT_EQ(p[6 * PAGE], 'h');
	munmap(p, 8 * PAGE);
	free(buf);
}

/*
 * A handler installed after the guard that hands foreign faults to the one
 * it replaced (as ttm_vm_fault's does), without SA_NODEFER: copies through
 * it still fault cleanly, again and again (the signal is not left blocked).
 */
static struct sigaction later_old;
static volatile sig_atomic_t later_hits;

static void later_handler(int sig, siginfo_t *si, void *uctx)
{
	later_hits++;
	later_old.sa_sigaction(sig, si, uctx);
}

KTEST(drm_copy_user_guard_behind_a_chaining_handler)
{
	struct sigaction sa;
	char buf[8];

	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = later_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGSEGV, &sa, &later_old), 0);
	ASSERT_TRUE(later_old.sa_flags & SA_SIGINFO);
	for (int i = 0; i < 3; i++)
		EXPECT_UEQ(drm_copy_from_user(buf, (void *)8, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(later_hits, 3);
	sigaction(SIGSEGV, &later_old, NULL);
}

/*
 * drm_user_guard_sigaction(): a disposition set through it goes behind the
 * guard (faults outside a copy reach it, copies still fault cleanly) and
 * reads back as set; other signals are not its business.
 */
KTEST(drm_user_guard_sigaction_keeps_the_guard_in_front)
{
	struct sigaction sa, old, back;
	char *p = two_pages();
	char buf[4];
	int hits;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	EXPECT_FALSE(drm_user_guard_sigaction(SIGINT, NULL, &old));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = chained_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ASSERT_TRUE(drm_user_guard_sigaction(SIGSEGV, &sa, &old));
	ASSERT_TRUE(drm_user_guard_sigaction(SIGSEGV, NULL, &back));
	EXPECT_TRUE(back.sa_sigaction == chained_handler);
	hits = chained_hits;
	EXPECT_UEQ(drm_copy_from_user(buf, p + PAGE, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(chained_hits, hits);
	if (!sigsetjmp(chained_env, 1))
		(void)*(volatile char *)(p + PAGE);
	EXPECT_EQ(chained_hits, hits + 1);
	ASSERT_TRUE(drm_user_guard_sigaction(SIGSEGV, &old, NULL));
	munmap(p, 2 * PAGE);
}

struct copier {
	char *bad;
	int failures;
};

static void *copier_thread(void *arg)
{
	struct copier *c = arg;
	char good[128], buf[128];

	for (int i = 0; i < 128; i++)
		good[i] = (char)i;
	for (int i = 0; i < 5000; i++) {
		if (drm_copy_from_user(buf, good, sizeof(good)) || memcmp(buf, good, sizeof(good)))
			c->failures++;
		if (drm_copy_from_user(buf, c->bad + (i % 64), 16) != 16)
			c->failures++;
		if (drm_copy_to_user(c->bad, good, 1) != 1)
			c->failures++;
	}
	return NULL;
}

/* Threads faulting and copying at once each get their own result. */
KTEST(drm_copy_user_guard_is_per_thread)
{
	char *p = two_pages();
	struct copier c[4];
	pthread_t t[4];

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	for (int i = 0; i < 4; i++) {
		c[i] = (struct copier){.bad = p + PAGE};
		ASSERT_EQ(pthread_create(&t[i], NULL, copier_thread, &c[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(c[i].failures, 0);
	}
	munmap(p, 2 * PAGE);
}

struct old_arg {
	uint32_t a, b;
};
struct new_arg {
	uint32_t a, b, c, d;
};

KTEST(drm_ioctl_args_zero_extend_and_copy_back)
{
	unsigned cmd_old = _IOWR('d', 0x40, struct old_arg);
	unsigned cmd_new = _IOWR('d', 0x40, struct new_arg);
	struct old_arg u = {1, 2};
	struct new_arg un = {1, 2, 3, 4};
	struct drm_ioctl_args a;
	struct new_arg *k;

	/* Old userspace, newer driver: 8 bytes in, the rest zero, 8 out. */
	ASSERT_EQ(drm_ioctl_args_in(&a, cmd_old, cmd_new, &u), 0);
	EXPECT_EQ(a.in_size, 8);
	EXPECT_EQ(a.out_size, 8);
	EXPECT_EQ(a.ksize, 16);
	k = a.kdata;
	EXPECT_EQ(k->a, 1);
	EXPECT_EQ(k->c, 0);
	EXPECT_EQ(k->d, 0);
	k->b = 20;
	k->c = 30;
	EXPECT_EQ(drm_ioctl_args_out(&a, &u, -EINVAL), -EINVAL);
	/* Copied back even though the handler failed, as the kernel does. */
	EXPECT_EQ(u.b, 20);

	/* Newer userspace: all 16 in and out. */
	ASSERT_EQ(drm_ioctl_args_in(&a, cmd_new, cmd_old, &un), 0);
	EXPECT_EQ(a.ksize, 16);
	k = a.kdata;
	EXPECT_EQ(k->d, 4);
	EXPECT_EQ(drm_ioctl_args_out(&a, &un, 0), 0);

	/* Direction: a write-only request copies nothing out. */
	ASSERT_EQ(drm_ioctl_args_in(&a, _IOW('d', 0x40, struct new_arg), cmd_new, &un), 0);
	EXPECT_EQ(a.out_size, 0);
	drm_ioctl_args_release(&a);
}

KTEST(drm_ioctl_args_bad_pointers_are_efault)
{
	unsigned cmd = _IOWR('d', 0x40, struct new_arg);
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct drm_ioctl_args a;

	ASSERT_TRUE(p != MAP_FAILED);
	EXPECT_EQ(drm_ioctl_args_in(&a, cmd, cmd, (void *)8), -EFAULT);
	/* Readable but not writable: in succeeds, out is -EFAULT. */
	ASSERT_EQ(drm_ioctl_args_in(&a, cmd, cmd, p), 0);
	EXPECT_EQ(drm_ioctl_args_out(&a, p, 0), -EFAULT);
	munmap(p, PAGE);
}

KTEST(drm_ioctl_args_large_argument_on_heap)
{
	struct big {
		char b[300];
	} u;
	unsigned cmd = _IOWR('d', 0x41, struct big);
	struct drm_ioctl_args a;

	memset(&u, 3, sizeof(u));
	ASSERT_EQ(drm_ioctl_args_in(&a, cmd, cmd, &u), 0);
	EXPECT_TRUE(a.kdata != (void *)a.stack);
	EXPECT_EQ(((char *)a.kdata)[299], 3);
	EXPECT_EQ(drm_ioctl_args_out(&a, &u, 0), 0);
}

/* The kernel's rt_sigaction struct (x86-64 and most others). */
struct raw_ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/*
 * A raw rt_sigaction() system call (no libc sigaction() an interposer
 * could see) that puts the default disposition of SIGSEGV and SIGBUS in
 * front: bad pointers still give a short count, never the default action
 * (the copy verifies within DRM_USER_GUARD_VERIFY_EVERY copies, or at
 * once with drm_user_guard_verify()), and the raw disposition is what
 * faults outside a copy get. In a child, so a crash fails the case.
 */
KTEST(drm_user_guard_survives_a_raw_rt_sigaction)
{
	char *p = two_pages();
	pid_t pid;
	int status = 0;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(drm_user_set_copy_mode(DRM_USER_COPY_GUARD), 0);
	/* The guard is in place once a copy ran. */
	EXPECT_UEQ(drm_copy_from_user(&status, p, sizeof(status)), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct raw_ksigaction dfl = {.handler = SIG_DFL}, cur;
		char buf[16];
		int bad = 0;

		syscall(SYS_rt_sigaction, SIGSEGV, &dfl, NULL, sizeof(dfl.mask));
		syscall(SYS_rt_sigaction, SIGBUS, &dfl, NULL, sizeof(dfl.mask));
		/* Unnoticed until the periodic check: copies of good memory only. */
		for (int i = 0; i < DRM_USER_GUARD_VERIFY_EVERY; i++)
			bad |= drm_copy_from_user(buf, p, sizeof(buf)) != 0;
		bad |= drm_copy_from_user(buf, p + PAGE, sizeof(buf)) != sizeof(buf);
		bad |= drm_copy_to_user((void *)8, buf, 4) != 4;
		syscall(SYS_rt_sigaction, SIGSEGV, NULL, &cur, sizeof(cur.mask));
		bad |= cur.handler == SIG_DFL;
		/* Again, then an explicit check: the first copy after it is guarded. */
		syscall(SYS_rt_sigaction, SIGSEGV, &dfl, NULL, sizeof(dfl.mask));
		drm_user_guard_verify();
		bad |= drm_copy_from_user(buf, (void *)16, sizeof(buf)) != sizeof(buf);
		/* A fault outside a copy takes the raw (default) disposition: death by SIGSEGV. */
		if (bad)
			_exit(1);
		(void)*(volatile char *)(p + PAGE);
		_exit(2);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	if (WIFSIGNALED(status))
		EXPECT_EQ(WTERMSIG(status), SIGSEGV);
	else
		EXPECT_EQ(WEXITSTATUS(status), 0);
	munmap(p, 2 * PAGE);
}
