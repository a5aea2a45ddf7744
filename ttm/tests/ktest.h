/* SPDX-License-Identifier: MIT */
/*
 * ktest - the unit-test harness shared by every test-*.c program.
 *
 * A test program defines cases with KTEST(function_scenario) and links
 * ktest_main.c, which provides main(). Run without arguments it runs every
 * case; with arguments it runs the cases whose names match any argument
 * (fnmatch patterns). --list prints the case names. Output is TAP 13:
 * "ok 3 - name" / "not ok 3 - name" / "ok 3 - name # SKIP why", then a
 * summary line "# N passed, N failed, N skipped". Exit status: 0 when no case
 * failed and at least one ran, 77 when every case skipped, 1 on any failure
 * (the meson "exitcode" protocol).
 *
 * EXPECT_* record a failure and carry on; ASSERT_* record it and end the case
 * (longjmp back to the runner, so use them only on the case's own thread; on
 * other threads use EXPECT_* and join). Every failure prints file:line, the
 * expression and both values.
 */
#ifndef KTEST_H
#define KTEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct ktest_case {
	const char *name;
	void (*fn)(void);
	struct ktest_case *next;
};

void ktest_register(struct ktest_case *c);
void ktest_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ktest_skip(const char *file, int line, const char *why) __attribute__((noreturn));
void ktest_abort_case(void) __attribute__((noreturn));
/* Seed for randomized cases: KTEST_SEED from the environment or time; printed. */
uint64_t ktest_seed(void);
/* xorshift PRNG seeded from ktest_seed(), per case. */
uint64_t ktest_rand(void);
/* Iteration budget multiplier: KTEST_SCALE (default 1). */
unsigned ktest_scale(void);

#define KTEST(fname)                                                                               \
	static void fname(void);                                                                   \
	static struct ktest_case ktest_case_##fname = { #fname, fname, NULL };                      \
	static void __attribute__((constructor)) ktest_register_##fname(void)                      \
	{                                                                                          \
		ktest_register(&ktest_case_##fname);                                               \
	}                                                                                          \
	static void fname(void)

#define KTEST_SKIP(why) ktest_skip(__FILE__, __LINE__, (why))

#define KTEST_CHECK_(cond, fatal, ...)                                                             \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			ktest_fail(__FILE__, __LINE__, __VA_ARGS__);                               \
			if (fatal)                                                                 \
				ktest_abort_case();                                                \
		}                                                                                  \
	} while (0)

#define KTEST_CMP_(a, op, b, fatal)                                                                \
	do {                                                                                       \
		long long ktest_a_ = (long long)(a);                                               \
		long long ktest_b_ = (long long)(b);                                               \
		KTEST_CHECK_(ktest_a_ op ktest_b_, fatal, "%s %s %s (%lld vs %lld)", #a, #op, #b,  \
			     ktest_a_, ktest_b_);                                                  \
	} while (0)

#define KTEST_UCMP_(a, op, b, fatal)                                                               \
	do {                                                                                       \
		unsigned long long ktest_a_ = (unsigned long long)(a);                             \
		unsigned long long ktest_b_ = (unsigned long long)(b);                             \
		KTEST_CHECK_(ktest_a_ op ktest_b_, fatal, "%s %s %s (%llu / 0x%llx vs %llu / 0x%llx)", \
			     #a, #op, #b, ktest_a_, ktest_a_, ktest_b_, ktest_b_);                 \
	} while (0)

#define EXPECT_TRUE(c) KTEST_CHECK_((c), false, "expected true: %s", #c)
#define EXPECT_FALSE(c) KTEST_CHECK_(!(c), false, "expected false: %s", #c)
#define ASSERT_TRUE(c) KTEST_CHECK_((c), true, "expected true: %s", #c)
#define ASSERT_FALSE(c) KTEST_CHECK_(!(c), true, "expected false: %s", #c)
#define EXPECT_EQ(a, b) KTEST_CMP_(a, ==, b, false)
#define EXPECT_NE(a, b) KTEST_CMP_(a, !=, b, false)
#define EXPECT_LT(a, b) KTEST_CMP_(a, <, b, false)
#define EXPECT_LE(a, b) KTEST_CMP_(a, <=, b, false)
#define EXPECT_GT(a, b) KTEST_CMP_(a, >, b, false)
#define EXPECT_GE(a, b) KTEST_CMP_(a, >=, b, false)
#define ASSERT_EQ(a, b) KTEST_CMP_(a, ==, b, true)
#define ASSERT_NE(a, b) KTEST_CMP_(a, !=, b, true)
#define ASSERT_LT(a, b) KTEST_CMP_(a, <, b, true)
#define ASSERT_LE(a, b) KTEST_CMP_(a, <=, b, true)
#define ASSERT_GT(a, b) KTEST_CMP_(a, >, b, true)
#define ASSERT_GE(a, b) KTEST_CMP_(a, >=, b, true)
/* Unsigned 64-bit comparisons (addresses, sizes, seqnos). */
#define EXPECT_UEQ(a, b) KTEST_UCMP_(a, ==, b, false)
#define ASSERT_UEQ(a, b) KTEST_UCMP_(a, ==, b, true)
#define EXPECT_ULE(a, b) KTEST_UCMP_(a, <=, b, false)
#define EXPECT_UGE(a, b) KTEST_UCMP_(a, >=, b, false)
#define EXPECT_NULL(p) KTEST_CHECK_((p) == NULL, false, "expected NULL: %s", #p)
#define ASSERT_NOT_NULL(p) KTEST_CHECK_((p) != NULL, true, "expected non-NULL: %s", #p)
#define EXPECT_STREQ(a, b)                                                                         \
	do {                                                                                       \
		const char *ktest_sa_ = (a), *ktest_sb_ = (b);                                     \
		KTEST_CHECK_(ktest_sa_ && ktest_sb_ && !strcmp(ktest_sa_, ktest_sb_), false,       \
			     "%s == %s (\"%s\" vs \"%s\")", #a, #b, ktest_sa_ ? ktest_sa_ : "(null)", \
			     ktest_sb_ ? ktest_sb_ : "(null)");                                    \
	} while (0)
#define EXPECT_MEMEQ(a, b, n) KTEST_CHECK_(!memcmp((a), (b), (n)), false, "memory differs: %s vs %s", #a, #b)
#define ASSERT_MEMEQ(a, b, n) KTEST_CHECK_(!memcmp((a), (b), (n)), true, "memory differs: %s vs %s", #a, #b)

#endif /* KTEST_H */
