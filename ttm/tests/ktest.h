/* SPDX-License-Identifier: MIT */
/*
 * ktest - the unit-test harness shared by every test-*.c program, after
 * KUnit (include/kunit/test.h, lib/kunit/).
 *
 * Cases
 *   KTEST(fn_scenario) { ... }               a case on its own
 *   KTEST_F(suite, fn_scenario) { ... }      a case of a suite (fixtures below)
 *   KTEST_PARAM(fn, gen) / KTEST_PARAM_F(suite, fn, gen)
 *                                           run once per parameter; the body
 *                                           reads it with ktest_param()
 *   KTEST_ARRAY_PARAM(name, array, desc_fn)  defines name##_gen_params walking
 *                                           an array (as KUNIT_ARRAY_PARAM)
 * A program links ktest_main.c, which provides main(). Without arguments it
 * runs every case in registration order; with arguments only the cases whose
 * name ("fn") or suite-qualified name ("suite.fn") matches one of them
 * (fnmatch patterns). --list prints the case names.
 *
 * Suites and fixtures
 *   KTEST_SUITE(name, .init = ..., .exit = ..., .suite_init = ..., .suite_exit = ...);
 * init(t) runs before every case of the suite (before every parameter of a
 * parameterized case) and may set t->priv; a non-zero return fails the case
 * without running it. exit(t) runs after every case whose init succeeded,
 * also when the case ended by a failed ASSERT_*. suite_init() runs once
 * before the suite's first case in the process (a non-zero return fails
 * every case of the suite), suite_exit() after its last.
 *
 * Teardown
 * ktest_add_action(fn, ctx) defers fn(ctx) to the end of the current case
 * (or, from suite_init, of the suite); actions run last-in first-out after
 * exit(). A failed ASSERT_* ends only its case: exit() and the actions still
 * run (on the case's own thread, so a mutex the case locked can be unlocked
 * by an action), and every later case runs and reports. ktest_zalloc() is
 * calloc() freed by such an action.
 *
 * Isolation
 * By default the cases run in a child process supervised by the parent: a
 * case that crashes, calls exit() or leaves the process in a state that
 * fails at exit (sanitizer or valgrind reports) is reported as "not ok" and
 * the remaining cases run in a fresh child. KTEST_FORK=0 runs everything in
 * one process (for a debugger).
 *
 * Output is KTAP version 1: "ok N name", "not ok N name", "ok N name # SKIP
 * why", each parameter as an indented subtest under its case, the plan
 * "1..N" after the results, then "# N passed, N failed, N skipped". Exit
 * status: 0 when no case failed and at least one ran, 77 when every case
 * skipped, 1 on any failure; meson counts the cases with protocol: 'tap'.
 *
 * EXPECT_* record a failure and carry on; ASSERT_* record it and end the
 * case. On another thread than the case's an ASSERT_* ends that thread
 * (pthread_exit) after recording the failure; what the thread held stays
 * held, so prefer EXPECT_* there and join. Every failure prints file:line,
 * the expression and both values.
 */
#ifndef KTEST_H
#define KTEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Longest parameter description a generator may write (with its NUL). */
#define KTEST_PARAM_DESC_SIZE 128

/**
 * struct ktest - the context of the running case.
 * @name: the case's name.
 * @priv: free for the suite's init() to hand data to the case and exit().
 * @param: the current parameter of a parameterized case, else NULL.
 * @param_desc: its description ("" when the generator wrote none).
 */
struct ktest {
	const char *name;
	void *priv;
	const void *param;
	char param_desc[KTEST_PARAM_DESC_SIZE];
};

/**
 * struct ktest_suite - fixtures shared by the cases registered with KTEST_F().
 * @name: the suite's name, a prefix cases can be selected by ("suite.*").
 * @suite_init: once per process before the first of its cases; non-zero fails them all.
 * @suite_exit: after the last of its cases when suite_init() succeeded.
 * @init: before each case (each parameter); non-zero fails the case.
 * @exit: after each case whose init() succeeded, including one ended by ASSERT_*.
 */
struct ktest_suite {
	const char *name;
	int (*suite_init)(void);
	void (*suite_exit)(void);
	int (*init)(struct ktest *t);
	void (*exit)(struct ktest *t);
};

/*
 * A parameter generator: given the previous parameter (NULL the first time)
 * returns the next one, or NULL when there are no more, and may describe it
 * in desc (KTEST_PARAM_DESC_SIZE bytes).
 */
typedef const void *(*ktest_gen_params_t)(const void *prev, char *desc);

struct ktest_case {
	const char *name;
	void (*fn)(void);
	struct ktest_case *next;
	const struct ktest_suite *suite;
	ktest_gen_params_t gen_params;
};

void ktest_register(struct ktest_case *c);
void ktest_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ktest_skip(const char *file, int line, const char *why) __attribute__((noreturn));
void ktest_abort_case(void) __attribute__((noreturn));
/* Seed for randomized cases: KTEST_SEED from the environment or time; printed. */
uint64_t ktest_seed(void);
/* PRNG seeded from ktest_seed() and the case's number, per case and thread. */
uint64_t ktest_rand(void);
/* Iteration budget multiplier: KTEST_SCALE (default 1). */
unsigned ktest_scale(void);

/* The running case's context; NULL outside a case. */
struct ktest *ktest_current(void);
/* The current parameter of a parameterized case (NULL in a plain case). */
const void *ktest_param(void);
/* The running case's priv, as set by its suite's init(). */
void *ktest_priv(void);

/**
 * ktest_add_action() - run @fn(@ctx) when the current case ends.
 * @fn: the deferred action.
 * @ctx: its argument.
 *
 * Actions run last-in first-out after the suite's exit(), whether the case
 * returned, failed an ASSERT_* or skipped; registered from suite_init() they
 * run after suite_exit(). Thread-safe.
 *
 * Return: 0, or -ENOMEM (@fn was not registered and has not run).
 */
int ktest_add_action(void (*fn)(void *), void *ctx);
/**
 * ktest_add_action_or_reset() - ktest_add_action(), running @fn(@ctx) at once on failure.
 * @fn: the deferred action.
 * @ctx: its argument.
 *
 * Return: 0, or -ENOMEM after @fn(@ctx) ran.
 */
int ktest_add_action_or_reset(void (*fn)(void *), void *ctx);
/**
 * ktest_remove_action() - cancel the latest action registered as (@fn, @ctx), unrun.
 * @fn: the deferred action.
 * @ctx: its argument.
 */
void ktest_remove_action(void (*fn)(void *), void *ctx);
/**
 * ktest_release_action() - run the latest action registered as (@fn, @ctx) now.
 * @fn: the deferred action.
 * @ctx: its argument.
 *
 * The action is removed, so it does not run again when the case ends.
 */
void ktest_release_action(void (*fn)(void *), void *ctx);
/**
 * ktest_zalloc() - zeroed memory freed when the current case ends.
 * @size: bytes.
 *
 * Return: the memory, or NULL when out of memory (ASSERT_NOT_NULL it).
 */
void *ktest_zalloc(size_t size);

#define KTEST_CASE_(fname, suite_ptr, gen)                                                         \
	static void fname(void);                                                                   \
	static struct ktest_case ktest_case_##fname = {                                            \
	    .name = #fname, .fn = fname, .suite = (suite_ptr), .gen_params = (gen)};               \
	static void __attribute__((constructor)) ktest_register_##fname(void)                      \
	{                                                                                          \
		ktest_register(&ktest_case_##fname);                                               \
	}                                                                                          \
	static void fname(void)

#define KTEST(fname) KTEST_CASE_(fname, NULL, NULL)
#define KTEST_F(suite, fname) KTEST_CASE_(fname, &ktest_suite_##suite, NULL)
#define KTEST_PARAM(fname, gen) KTEST_CASE_(fname, NULL, gen)
#define KTEST_PARAM_F(suite, fname, gen) KTEST_CASE_(fname, &ktest_suite_##suite, gen)

#define KTEST_SUITE(sname, ...)                                                                    \
	static const struct ktest_suite ktest_suite_##sname = {.name = #sname, __VA_ARGS__}

/*
 * Defines name##_gen_params() walking @array; @get_desc(const T *, char *desc)
 * describes an element, or is NULL.
 */
#define KTEST_ARRAY_PARAM(name, array, get_desc)                                                   \
	static const void *name##_gen_params(const void *prev, char *desc)                         \
	{                                                                                          \
		__typeof__(&(array)[0]) next_ =                                                    \
		    prev ? ((__typeof__(&(array)[0]))prev) + 1 : &(array)[0];                      \
		void (*desc_)(__typeof__(&(array)[0]), char *) = (get_desc);                       \
		if (next_ - &(array)[0] >= (ptrdiff_t)(sizeof(array) / sizeof((array)[0])))        \
			return NULL;                                                               \
		if (desc_)                                                                         \
			desc_(next_, desc);                                                        \
		return next_;                                                                      \
	}

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
		KTEST_CHECK_(ktest_a_ op ktest_b_, fatal,                                          \
			     "%s %s %s (%llu / 0x%llx vs %llu / 0x%llx)", #a, #op, #b, ktest_a_,   \
			     ktest_a_, ktest_b_, ktest_b_);                                        \
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
		KTEST_CHECK_(ktest_sa_ &&ktest_sb_ && !strcmp(ktest_sa_, ktest_sb_), false,        \
			     "%s == %s (\"%s\" vs \"%s\")", #a, #b,                                \
			     ktest_sa_ ? ktest_sa_ : "(null)", ktest_sb_ ? ktest_sb_ : "(null)");  \
	} while (0)
#define EXPECT_MEMEQ(a, b, n)                                                                      \
	KTEST_CHECK_(!memcmp((a), (b), (n)), false, "memory differs: %s vs %s", #a, #b)
#define ASSERT_MEMEQ(a, b, n)                                                                      \
	KTEST_CHECK_(!memcmp((a), (b), (n)), true, "memory differs: %s vs %s", #a, #b)

#endif /* KTEST_H */
