/* SPDX-License-Identifier: MIT */
/*
 * igt.h - a small harness that speaks the igt (intel-gpu-tools) protocol.
 *
 * A stress program is written like an igt test:
 *
 *	igt_main
 *	{
 *		struct ctx c;
 *
 *		igt_fixture {
 *			igt_require(setup(&c) == 0);
 *		}
 *		igt_subtest("basic")
 *			igt_assert_eq(run(&c), 0);
 *		igt_subtest_with_dynamic("engines") {
 *			for (int i = 0; i < 2; i++)
 *				igt_dynamic_f("engine-%d", i)
 *					igt_assert(run_on(&c, i));
 *		}
 *		igt_fixture
 *			teardown(&c);
 *	}
 *
 * Execution model (why fork): igt_main's body runs once per invocation. A
 * subtest block is a for-loop header: when the subtest is selected the parent
 * forks, the child runs the block and leaves with its result as exit status,
 * the parent waits and prints the result line. A crashing subtest (SIGSEGV,
 * SIGBUS, SIGFPE, SIGABRT, or a sanitizer's own error exit) therefore only
 * kills the child and is reported as CRASH, and state a subtest leaves behind
 * (leaks, locks held) never reaches the next one. Dynamic subtests nest the
 * same way: the subtest child forks one grandchild per selected
 * igt_dynamic(). Consequence for users: a subtest cannot pass data back to the
 * body through memory; use fixtures for shared setup.
 *
 * Fixtures run in the parent, so what they set up is inherited by every later
 * subtest. A fixture that skips (igt_require) or fails (igt_assert) leaves its
 * block through siglongjmp; every later subtest is then reported SKIP or FAIL
 * without running, as igt does. Fixtures do not run under --list-subtests.
 *
 * The igt_assert / igt_require / igt_skip / igt_fail family does not return
 * when it fires. It is only valid inside igt_main (subtest, dynamic subtest
 * or fixture); outside of blocks a failure ends the program with
 * IGT_EXIT_FAILURE. This harness is test code: it calls _exit()/exit() by
 * design, it is not a library in the project's sense.
 *
 * Command line (igt's):
 *   --list-subtests          one subtest name per line on stdout, nothing
 *                            else, exit 0.
 *   --show-testlist          "igt@<program>@<subtest>" per line, exit 0.
 *   --run-subtest PATTERN    run only subtests matching PATTERN (uwildmat:
 *                            '*', '?', "[a-z]", "[^x]", '\' escapes; a comma
 *                            separates alternatives; an alternative with a
 *                            leading '!' excludes; the last alternative that
 *                            matches decides). No match at all: prints
 *                            "Unknown subtest: PATTERN" on stderr, exit 79.
 *   --dynamic-subtest PAT    same, for the dynamic subtests inside; only
 *                            subtests with dynamic parts run. No dynamic
 *                            subtest matched anywhere: "Unknown dynamic
 *                            subtest: PAT" on stderr, exit 79.
 *   TTM_FAULTS (env)         a spec that does not parse: one line naming the
 *                            bad token on stderr, exit 79 before any subtest.
 *   --debug                  print igt_debug() output live on stderr.
 *   --duration S, --soak     time budget for stress loops (igt_stress_budget_s(),
 *                            seconds > 0, at most 86400); env IGT_STRESS_DURATION
 *                            is used when no option. --soak runs every loop for
 *                            the whole budget (3600 s unless given), ignoring
 *                            the caps of a default run.
 *   --seed N                 seed (igt_seed()); env IGT_SEED otherwise.
 *   --clients N, --threads N, --waiters N
 *                            concurrency of the stress loops (igt_opt_count()):
 *                            1..4096, and at most what the program supports.
 *   --help-description, --help
 *   Unknown options: usage on stderr, exit 79.
 *
 * Output (stdout): "IGT-Version: 1.28-<gitrev> (x86_64) (Linux: <rel> x86_64)"
 * first; per subtest "Starting subtest: NAME" and
 * "Subtest NAME: SUCCESS (0.123s)" (FAIL, SKIP, CRASH); dynamic subtests
 * "Starting dynamic subtest: NAME" / "Dynamic subtest NAME: SUCCESS (0.001s)".
 * igt_info() goes to stdout, igt_warn() to stderr; igt_debug() is kept in a
 * per-subtest buffer which is dumped on stderr only when the subtest fails or
 * crashes (or printed live with --debug).
 *
 * Exit status: 0 when a subtest passed and none failed; 77 (IGT_EXIT_SKIP)
 * when everything skipped; 98 (IGT_EXIT_FAILURE) when anything failed or
 * crashed; 79 (IGT_EXIT_INVALID) for bad options / unknown subtests;
 * 112 (IGT_EXIT_ABORT) after igt_abort_on_f().
 *
 * Registering with meson: subtest names are only known at run time, so each
 * program's entry in stress/meson.build lists them and a test runs
 * stress/tests/check-subtests.sh to keep that list equal to --list-subtests
 * (see the harness block in stress/meson.build for the pattern to copy).
 *
 * Caveats, as in igt: code between blocks in igt_main runs on every
 * invocation, --list-subtests included, so keep real work in fixtures and
 * subtests. A fixture that jumps out (skip/fail) leaves the locals it
 * assigned indeterminate (siglongjmp); nothing later reads them because every
 * later fixture and subtest is then skipped. The assert family may be called
 * from helper threads of a subtest: it ends the whole subtest process with
 * _exit(), which is the intended result. Not for use from signal handlers.
 */
#ifndef IGT_H
#define IGT_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define IGT_EXIT_SUCCESS 0
#define IGT_EXIT_SKIP 77
#define IGT_EXIT_INVALID 79
#define IGT_EXIT_FAILURE 98
#define IGT_EXIT_ABORT 112

#define igt_printf_fmt(a, b) __attribute__((format(printf, a, b)))
#define igt_noreturn __attribute__((noreturn))

/* ---- entry point -------------------------------------------------------- */

/**
 * igt_main - defines main(): parses the igt options, runs the body once,
 * then exits with the worst result (see the exit codes above).
 */
#define igt_main                                                                                   \
	static void igt_main_body_(void);                                                          \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		igt_subtest_init_(argc, argv, NULL);                                               \
		igt_main_body_();                                                                  \
		return igt_exit_();                                                                \
	}                                                                                          \
	static void igt_main_body_(void)

/**
 * igt_main_description - like igt_main with a --help-description text.
 * @desc: one paragraph, printed by --help-description.
 */
#define igt_main_description(desc)                                                                 \
	static void igt_main_body_(void);                                                          \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		igt_subtest_init_(argc, argv, (desc));                                             \
		igt_main_body_();                                                                  \
		return igt_exit_();                                                                \
	}                                                                                          \
	static void igt_main_body_(void)

/* ---- blocks ------------------------------------------------------------- */

/**
 * igt_fixture - block run in the main process before/after subtests.
 *
 * Runs unless listing, and unless an earlier fixture already skipped or
 * failed. A skip or failure inside it jumps out of the block (siglongjmp) and
 * marks every later subtest SKIP/FAIL.
 */
#define igt_fixture                                                                                \
	for (int igt_fx_ = igt_fixture_begin_(); igt_fx_; igt_fx_ = igt_fixture_end_())            \
		if (sigsetjmp(igt_fixture_jmp_, 1) == 0)

/**
 * igt_subtest - a subtest named @name (string literal or pointer; the
 * characters [A-Za-z0-9_-] only, as igt requires). The block runs in a forked
 * child only when selected by --run-subtest (or none given).
 */
#define igt_subtest(name)                                                                          \
	for (int igt_st_ = igt_subtest_begin_((name), false); igt_st_; igt_st_ = igt_subtest_end_())

/** igt_subtest_f - igt_subtest with a printf-formatted name. */
#define igt_subtest_f(...)                                                                         \
	for (int igt_st_ = igt_subtest_begin_(igt_fmt_name_(__VA_ARGS__), false); igt_st_;         \
	     igt_st_ = igt_subtest_end_())

/**
 * igt_subtest_with_dynamic - a subtest whose results come from igt_dynamic()
 * blocks inside it. Its result is the worst of its dynamic subtests; SKIP
 * when it ran none.
 */
#define igt_subtest_with_dynamic(name)                                                             \
	for (int igt_st_ = igt_subtest_begin_((name), true); igt_st_; igt_st_ = igt_subtest_end_())

/** igt_subtest_with_dynamic_f - formatted-name variant. */
#define igt_subtest_with_dynamic_f(...)                                                            \
	for (int igt_st_ = igt_subtest_begin_(igt_fmt_name_(__VA_ARGS__), true); igt_st_;          \
	     igt_st_ = igt_subtest_end_())

/**
 * igt_dynamic - a dynamic subtest; only valid directly inside an
 * igt_subtest_with_dynamic block. Filtered by --dynamic-subtest.
 */
#define igt_dynamic(name)                                                                          \
	for (int igt_dy_ = igt_dynamic_begin_(name); igt_dy_; igt_dy_ = igt_dynamic_end_())

/** igt_dynamic_f - formatted-name variant. */
#define igt_dynamic_f(...)                                                                         \
	for (int igt_dy_ = igt_dynamic_begin_(igt_fmt_name_(__VA_ARGS__)); igt_dy_;                \
	     igt_dy_ = igt_dynamic_end_())

/* ---- results ------------------------------------------------------------ */

/** igt_skip - skip the current subtest (or, in a fixture, all later ones). */
#define igt_skip(...) igt_skip_(__FILE__, __LINE__, __func__, __VA_ARGS__)
/** igt_fail - fail the current block; @code is kept for igt compatibility. */
#define igt_fail(code) igt_fail_(__FILE__, __LINE__, __func__, (code))

/** igt_assert - fail unless @expr holds. */
#define igt_assert(expr)                                                                           \
	do {                                                                                       \
		if (!(expr))                                                                       \
			igt_assert_failed_(__FILE__, __LINE__, __func__, #expr, NULL);             \
	} while (0)

/** igt_assert_f - igt_assert with an explanation. */
#define igt_assert_f(expr, ...)                                                                    \
	do {                                                                                       \
		if (!(expr))                                                                       \
			igt_assert_failed_(__FILE__, __LINE__, __func__, #expr, __VA_ARGS__);      \
	} while (0)

#define igt_assert_cmp_(T, fmt, a, op, b)                                                          \
	do {                                                                                       \
		T igt_a_ = (a), igt_b_ = (b);                                                      \
		if (!(igt_a_ op igt_b_))                                                           \
			igt_assert_failed_(__FILE__, __LINE__, __func__, #a " " #op " " #b,        \
					   "error: %" fmt " " #op " %" fmt " is false", igt_a_,    \
					   igt_b_);                                                \
	} while (0)

/** igt_assert_eq/neq/lt/lte - int comparisons that print both values. */
#define igt_assert_eq(a, b) igt_assert_cmp_(int, "d", a, ==, b)
#define igt_assert_neq(a, b) igt_assert_cmp_(int, "d", a, !=, b)
#define igt_assert_lt(a, b) igt_assert_cmp_(int, "d", a, <, b)
#define igt_assert_lte(a, b) igt_assert_cmp_(int, "d", a, <=, b)
/** igt_assert_eq_u64 - unsigned 64-bit comparison. */
#define igt_assert_eq_u64(a, b) igt_assert_cmp_(uint64_t, PRIu64, a, ==, b)
/** igt_assert_eq_s64 - signed 64-bit comparison. */
#define igt_assert_eq_s64(a, b) igt_assert_cmp_(int64_t, PRId64, a, ==, b)

/** igt_require - skip unless @expr holds. */
#define igt_require(expr)                                                                          \
	do {                                                                                       \
		if (!(expr))                                                                       \
			igt_skip_(__FILE__, __LINE__, __func__, "Test requirement not met: %s",    \
				  #expr);                                                          \
	} while (0)

/** igt_require_f - igt_require with an explanation. */
#define igt_require_f(expr, ...)                                                                   \
	do {                                                                                       \
		if (!(expr))                                                                       \
			igt_skip_(__FILE__, __LINE__, __func__, __VA_ARGS__);                      \
	} while (0)

/**
 * igt_abort_on_f - the state is unrecoverable (e.g. the device is wedged for
 * every later subtest): print the reason and end the whole program with
 * IGT_EXIT_ABORT after reporting the current subtest as FAIL.
 */
#define igt_abort_on_f(expr, ...)                                                                  \
	do {                                                                                       \
		if (expr)                                                                          \
			igt_abort_(__FILE__, __LINE__, __func__, #expr, __VA_ARGS__);              \
	} while (0)

/* ---- logging ------------------------------------------------------------ */

/** igt_info - progress message on stdout. */
void igt_info(const char *fmt, ...) igt_printf_fmt(1, 2);
/** igt_warn - warning on stderr; does not change the result. */
void igt_warn(const char *fmt, ...) igt_printf_fmt(1, 2);
/**
 * igt_debug - buffered per subtest (last 64 KiB kept); dumped on stderr when
 * the subtest fails or crashes, printed live with --debug.
 */
void igt_debug(const char *fmt, ...) igt_printf_fmt(1, 2);

/**
 * igt_report_checks - print "checks: operations=N bytes_verified=N
 * faults_injected=N" on stdout for scripts/stress-report.sh. Call once per
 * subtest (the last line printed wins in the report).
 */
void igt_report_checks(uint64_t operations, uint64_t bytes_verified, uint64_t faults_injected);

/* ---- parameters --------------------------------------------------------- */

/**
 * igt_stress_budget_s - seconds a stress loop may run: --duration S, --soak
 * (with no duration: 3600 s), else env IGT_STRESS_DURATION, else the default 2 s
 * that keeps a meson run short.
 */
double igt_stress_budget_s(void);
/**
 * igt_soak - --soak was given: stress loops run for the whole
 * igt_stress_budget_s() and ignore the operation or round caps that keep a
 * default run short (stress_budget_init(), stress_cap()).
 */
bool igt_soak(void);
/**
 * enum igt_count_kind - the concurrency options every stress program takes.
 * @IGT_CLIENTS: --clients N, clients (files, device users) of a subtest.
 * @IGT_THREADS: --threads N, worker threads of a subtest.
 * @IGT_WAITERS: --waiters N, threads blocking on fences in a subtest.
 * @IGT_NUM_COUNTS: how many there are.
 */
enum igt_count_kind { IGT_CLIENTS, IGT_THREADS, IGT_WAITERS, IGT_NUM_COUNTS };
/**
 * igt_opt_count - the count the command line gave for @kind (1..4096 checked at
 * parse time), or @def when it gave none. A count above @max, this program's
 * bound, ends the run with one line on stderr and IGT_EXIT_INVALID (called in
 * a subtest, the whole run ends so, not just the subtest).
 * @kind: which option.
 * @def: the program's default.
 * @max: the most the program supports.
 *
 * Return: the count to use.
 */
unsigned int igt_opt_count(enum igt_count_kind kind, unsigned int def, unsigned int max);
/** igt_seed - --seed N, else env IGT_SEED, else a fixed default (1). */
uint64_t igt_seed(void);
/** igt_only_list_subtests - true under --list-subtests / --show-testlist. */
bool igt_only_list_subtests(void);
/** igt_test_name - the program's name (basename of argv[0]). */
const char *igt_test_name(void);

/* ---- internals used by the macros (not API) ----------------------------- */
extern sigjmp_buf igt_fixture_jmp_;
void igt_subtest_init_(int argc, char **argv, const char *description);
int igt_exit_(void);
int igt_fixture_begin_(void);
int igt_fixture_end_(void);
int igt_subtest_begin_(const char *name, bool dynamic);
int igt_subtest_end_(void);
int igt_dynamic_begin_(const char *name);
int igt_dynamic_end_(void);
const char *igt_fmt_name_(const char *fmt, ...) igt_printf_fmt(1, 2);
igt_noreturn void igt_skip_(const char *file, int line, const char *func, const char *fmt, ...)
    igt_printf_fmt(4, 5);
igt_noreturn void igt_fail_(const char *file, int line, const char *func, int code);
igt_noreturn void igt_assert_failed_(const char *file, int line, const char *func, const char *expr,
				     const char *fmt, ...) igt_printf_fmt(5, 6);
igt_noreturn void igt_abort_(const char *file, int line, const char *func, const char *expr,
			     const char *fmt, ...) igt_printf_fmt(5, 6);
/* uwildmat-style matcher, exposed for the self-tests. */
bool igt_wildmat(const char *text, const char *pattern);

#endif /* IGT_H */
