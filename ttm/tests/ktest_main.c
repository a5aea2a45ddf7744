/* SPDX-License-Identifier: MIT */
#include "ktest.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

static struct ktest_case *ktest_head, **ktest_tail = &ktest_head;
static jmp_buf ktest_jmp;
static atomic_int ktest_case_failed;
static const char *ktest_skip_why;
static uint64_t ktest_seed_value;
static _Thread_local uint64_t ktest_rng;

void ktest_register(struct ktest_case *c)
{
	*ktest_tail = c;
	ktest_tail = &c->next;
}

void ktest_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One fputs per line so concurrent failures do not interleave mid-line. */
	fprintf(stdout, "# %s:%d: %s\n", file, line, msg);
	fflush(stdout);
	atomic_store(&ktest_case_failed, 1);
}

void ktest_abort_case(void)
{
	longjmp(ktest_jmp, 1);
}

void ktest_skip(const char *file, int line, const char *why)
{
	(void)file;
	(void)line;
	ktest_skip_why = why;
	longjmp(ktest_jmp, 2);
}

uint64_t ktest_seed(void)
{
	return ktest_seed_value;
}

uint64_t ktest_rand(void)
{
	uint64_t x = ktest_rng ? ktest_rng : (ktest_seed_value | 1);

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	ktest_rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

unsigned ktest_scale(void)
{
	const char *s = getenv("KTEST_SCALE");
	long v = s ? strtol(s, NULL, 10) : 1;

	return v > 0 ? (unsigned)v : 1;
}

static bool ktest_selected(const struct ktest_case *c, int argc, char **argv)
{
	bool any = false;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		any = true;
		if (!fnmatch(argv[i], c->name, 0))
			return true;
	}
	return !any;
}

/* Runs one case; 0 ran to the end, 1 aborted by ASSERT_*, 2 skipped. */
static int ktest_run_case(struct ktest_case *c)
{
	int how = setjmp(ktest_jmp);

	if (how == 0)
		c->fn();
	return how;
}

int main(int argc, char **argv)
{
	unsigned passed = 0, failed = 0, skipped = 0, n = 0;
	const char *seed = getenv("KTEST_SEED");

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (struct ktest_case *c = ktest_head; c; c = c->next)
				printf("%s\n", c->name);
			return 0;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unknown option %s (usage: [--list] [pattern...])\n",
				argv[0], argv[i]);
			return 2;
		}
	}
	ktest_seed_value = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL);
	printf("TAP version 13\n# KTEST_SEED=%llu\n", (unsigned long long)ktest_seed_value);
	for (struct ktest_case *c = ktest_head; c; c = c->next) {
		int how;

		if (!ktest_selected(c, argc, argv))
			continue;
		n++;
		atomic_store(&ktest_case_failed, 0);
		ktest_rng = ktest_seed_value * 0x9e3779b97f4a7c15ull + n;
		ktest_skip_why = NULL;
		how = ktest_run_case(c);
		if (how == 2) {
			printf("ok %u - %s # SKIP %s\n", n, c->name, ktest_skip_why);
			skipped++;
		} else if (atomic_load(&ktest_case_failed)) {
			printf("not ok %u - %s\n", n, c->name);
			failed++;
		} else {
			printf("ok %u - %s\n", n, c->name);
			passed++;
		}
		fflush(stdout);
	}
	printf("1..%u\n# %u passed, %u failed, %u skipped\n", n, passed, failed, skipped);
	if (failed)
		return 1;
	if (n == 0 || skipped == n)
		return n == 0 ? 1 : 77;
	return 0;
}
