/* SPDX-License-Identifier: MIT */
/*
 * The harness's own tests. The fixtures, actions and parameters that pass
 * are exercised in this process; the failure paths (an ASSERT_* while a lock
 * is held, a failing parameter, a crash) run in ktest-selftest-cases, a
 * child program whose KTAP output and exit status are checked here.
 */
#include "ktest.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <testlib/checksum.h>
#include <testlib/prng.h>

/* --- in-process: fixtures, actions, parameters --- */

static int suite_inits, suite_exits, case_inits, case_exits;
static int order[8], norder;

static int fixtures_suite_init(void)
{
	suite_inits++;
	return 0;
}

static void fixtures_suite_exit(void)
{
	suite_exits++;
}

static int fixtures_init(struct ktest *t)
{
	case_inits++;
	t->priv = &case_inits;
	return 0;
}

static void fixtures_exit(struct ktest *t)
{
	case_exits++;
	order[norder++ % 8] = 100;
}

KTEST_SUITE(fixtures, .suite_init = fixtures_suite_init, .suite_exit = fixtures_suite_exit,
	    .init = fixtures_init, .exit = fixtures_exit);

static void record(void *v)
{
	order[norder++ % 8] = (int)(intptr_t)v;
}

KTEST_F(fixtures, ktest_fixtures_run_around_each_case)
{
	EXPECT_EQ(suite_inits, 1);
	EXPECT_EQ(suite_exits, 0);
	EXPECT_EQ(case_inits, 1);
	EXPECT_EQ(case_exits, 0);
	EXPECT_TRUE(ktest_priv() == &case_inits);
	EXPECT_STREQ(ktest_current()->name, "ktest_fixtures_run_around_each_case");
	norder = 0;
	ASSERT_EQ(ktest_add_action(record, (void *)1), 0);
	ASSERT_EQ(ktest_add_action(record, (void *)2), 0);
	ASSERT_EQ(ktest_add_action(record, (void *)3), 0);
	ktest_remove_action(record, (void *)2);
	ktest_release_action(record, (void *)3);
	EXPECT_EQ(norder, 1);
	EXPECT_EQ(order[0], 3);
}

KTEST_F(fixtures, ktest_fixtures_exit_then_actions_lifo)
{
	/* The previous case: released 3 at once, then exit() (100), then action 1; 2 was removed.
	 */
	EXPECT_EQ(norder, 3);
	EXPECT_EQ(order[0], 3);
	EXPECT_EQ(order[1], 100);
	EXPECT_EQ(order[2], 1);
	EXPECT_EQ(case_inits, 2);
	EXPECT_EQ(case_exits, 1);
	EXPECT_EQ(suite_inits, 1);
}

KTEST(ktest_zalloc_is_zeroed_and_freed_by_teardown)
{
	unsigned char *p = ktest_zalloc(4096);

	ASSERT_NOT_NULL(p);
	for (int i = 0; i < 4096; i++)
		ASSERT_EQ(p[i], 0);
	/* LeakSanitizer and valgrind runs prove the free. */
}

struct range_param {
	unsigned int lo, hi;
};

/* A generator (not an array): 1..5, describing each. */
static const void *counter_gen(const void *prev, char *desc)
{
	static const unsigned int v[] = {1, 2, 3, 4, 5};
	const unsigned int *p = prev ? (const unsigned int *)prev + 1 : v;

	if (p == v + 5)
		return NULL;
	snprintf(desc, KTEST_PARAM_DESC_SIZE, "n=%u", *p);
	return p;
}

static unsigned int param_sum, param_runs;

KTEST_PARAM(ktest_param_generator_visits_each, counter_gen)
{
	const unsigned int *n = ktest_param();

	ASSERT_NOT_NULL(n);
	param_sum += *n;
	param_runs++;
	EXPECT_TRUE(!strncmp(ktest_current()->param_desc, "n=", 2));
}

KTEST(ktest_param_generator_saw_all)
{
	EXPECT_EQ(param_runs, 5);
	EXPECT_EQ(param_sum, 15);
	EXPECT_NULL(ktest_param());
}

KTEST(ktest_suite_exit_ran_after_its_last_case)
{
	EXPECT_EQ(suite_inits, 1);
	EXPECT_EQ(suite_exits, 1);
}

/* --- testlib reference values --- */

KTEST(testlib_prng_matches_splitmix64_reference)
{
	struct prng r;

	/* The reference splitmix64.c from seed 0. */
	prng_seed(&r, 0);
	EXPECT_UEQ(prng_next(&r), 0xe220a8397b1dcdafull);
	EXPECT_UEQ(prng_next(&r), 0x6e789e6aa1b965f4ull);
	EXPECT_UEQ(prng_next(&r), 0x06c45d188009454full);
	for (int i = 0; i < 1000; i++)
		EXPECT_ULE(prng_below(&r, 7), 6);
	EXPECT_UEQ(prng_below(&r, 0), 0);
}

KTEST(testlib_checksum_matches_fnv1a_reference)
{
	EXPECT_UEQ(testlib_checksum("", 0), 0xcbf29ce484222325ull);
	EXPECT_UEQ(testlib_checksum("a", 1), 0xaf63dc4c8601ec8cull);
	EXPECT_UEQ(testlib_checksum("foobar", 6), 0x85944171f73967e8ull);
	EXPECT_UEQ(testlib_checksum_update(testlib_checksum("foo", 3), "bar", 3),
		   testlib_checksum("foobar", 6));
}

/* --- the failure paths, through a child program --- */

struct child_run {
	char *out;
	int status;
};

static void free_out(void *p)
{
	free(p);
}

/* Runs the selftest program with @env and @args; its stdout lands in run->out. */
static void run_selftest(struct child_run *run, const char *env, const char *args)
{
	const char *prog = getenv("KTEST_SELFTEST");
	char cmd[1024];
	size_t len = 0, cap = 1 << 16;
	FILE *f;

	if (!prog)
		KTEST_SKIP("KTEST_SELFTEST (the ktest-selftest-cases program) not set");
	snprintf(cmd, sizeof(cmd), "env KTEST_SEED=1 %s '%s' %s 2>&1", env, prog, args);
	run->out = malloc(cap);
	ASSERT_NOT_NULL(run->out);
	ASSERT_EQ(ktest_add_action(free_out, run->out), 0);
	f = popen(cmd, "r");
	ASSERT_NOT_NULL(f);
	while (len + 1 < cap) {
		size_t got = fread(run->out + len, 1, cap - 1 - len, f);

		if (!got)
			break;
		len += got;
	}
	run->out[len] = 0;
	run->status = pclose(f);
	/* Echo the child's KTAP as diagnostics, so a failure here shows it. */
	for (char *line = run->out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		printf("#  | %.*s\n", (int)(nl - line), line);
	}
}

static bool has_line(const char *out, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = out; (p = strstr(p, line)); p += n)
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
			return true;
	return false;
}

#define EXPECT_LINE(out, l) KTEST_CHECK_(has_line((out), (l)), false, "no line \"%s\"", (l))
#define EXPECT_NOT_NULL_(p) KTEST_CHECK_((p) != NULL, false, "expected non-NULL: %s", #p)
#define EXPECT_NO_LINE(out, l)                                                                     \
	KTEST_CHECK_(!has_line((out), (l)), false, "unexpected line \"%s\"", (l))

KTEST(ktest_failed_assert_releases_lock_and_later_cases_run)
{
	struct child_run run;

	run_selftest(&run, "", "");
	EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 1);
	EXPECT_TRUE(!strncmp(run.out, "KTAP version 1\n", 15));
	/* The failed ASSERT ended case 1; its action unlocked; case 2 took the lock. */
	EXPECT_LINE(run.out, "not ok 1 selftest_assert_holding_lock");
	EXPECT_NO_LINE(run.out, "# BUG: reached past a failed ASSERT");
	EXPECT_LINE(run.out, "# took the lock");
	EXPECT_LINE(run.out, "ok 2 selftest_takes_same_lock");
	/* The suite's exit() ran after the failed assertion, with priv intact. */
	EXPECT_LINE(run.out, "not ok 3 selftest_fixture_assert");
	EXPECT_LINE(run.out, "# exit selftest_fixture_assert inits=1 exits=1 priv=kept");
	/* Parameters: the third fails, the fourth still runs, each with init/exit. */
	EXPECT_LINE(run.out, "    # Subtest: selftest_param_one_fails");
	EXPECT_LINE(run.out, "    ok 1 value 1");
	EXPECT_LINE(run.out, "    ok 2 value 2");
	EXPECT_LINE(run.out, "    not ok 3 value 3");
	EXPECT_LINE(run.out, "    ok 4 value 4");
	EXPECT_LINE(run.out, "# param 4 ran");
	EXPECT_NO_LINE(run.out, "# param 3 ran");
	EXPECT_LINE(run.out, "    1..4");
	EXPECT_LINE(run.out, "# exit selftest_param_one_fails inits=5 exits=5 priv=kept");
	EXPECT_LINE(run.out, "not ok 4 selftest_param_one_fails");
	/* A crash fails its case only; a fresh process runs the rest. */
	/* (killed by SIGSEGV, or exited/aborted by a sanitizer's SEGV handler) */
	EXPECT_NOT_NULL_(strstr(run.out, " during selftest_crash\n"));
	EXPECT_LINE(run.out, "not ok 5 selftest_crash");
	EXPECT_LINE(run.out, "ok 6 selftest_skip # SKIP skipped on purpose");
	EXPECT_LINE(run.out, "ok 7 selftest_last_still_runs");
	EXPECT_LINE(run.out, "1..7");
	EXPECT_LINE(run.out, "# 2 passed, 4 failed, 1 skipped");
}

KTEST(ktest_failed_assert_releases_lock_without_fork)
{
	struct child_run run;

	/* The same teardown holds when every case shares one process. */
	run_selftest(&run, "KTEST_FORK=0", "selftest_assert_holding_lock selftest_takes_same_lock");
	EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 1);
	EXPECT_LINE(run.out, "not ok 1 selftest_assert_holding_lock");
	EXPECT_LINE(run.out, "ok 2 selftest_takes_same_lock");
	EXPECT_LINE(run.out, "1..2");
	EXPECT_LINE(run.out, "# 1 passed, 1 failed, 0 skipped");
}

KTEST(ktest_selects_by_suite_and_lists)
{
	struct child_run run;

	run_selftest(&run, "", "'counting.*'");
	EXPECT_LINE(run.out, "not ok 1 selftest_fixture_assert");
	EXPECT_LINE(run.out, "not ok 2 selftest_param_one_fails");
	EXPECT_LINE(run.out, "1..2");

	run_selftest(&run, "", "--list");
	EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0);
	EXPECT_LINE(run.out, "selftest_assert_holding_lock");
	EXPECT_LINE(run.out, "selftest_last_still_runs");

	run_selftest(&run, "", "selftest_skip");
	EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 77);
}
