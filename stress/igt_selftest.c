// SPDX-License-Identifier: MIT
/*
 * igt_selftest - demo program for the harness self-tests: one subtest per
 * outcome the protocol knows, dynamic subtests, and a fixture that skips
 * when IGT_SELFTEST_FIXTURE=skip (or fails with =fail), so
 * stress/tests/test-igt-protocol.sh can check lines and exit codes.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "igt.h"

igt_main_description("Self-test of the igt harness: pass, skip, fail, crash, dynamic.")
{
	const char *mode = getenv("IGT_SELFTEST_FIXTURE");
	volatile int *volatile bad = NULL;

	igt_fixture igt_debug("first fixture ran\n");

	igt_subtest("pass")
	{
		igt_debug("debug-from-pass\n");
		igt_report_checks(10, 4096, 2);
	}

	igt_subtest("skip") igt_require(getenv("IGT_SELFTEST_NEVER_SET_THIS") != NULL);

	igt_subtest("fail")
	{
		igt_debug("debug-from-fail\n");
		igt_assert_eq(1, 2);
	}

	igt_subtest("crash")
	{
		igt_debug("debug-from-crash\n");
		*bad = 1;
	}

	igt_subtest("abort-signal") raise(SIGABRT);

	igt_subtest_with_dynamic("dyn")
	{
		igt_dynamic("one") igt_info("in dynamic one\n");
		igt_dynamic("two") igt_skip("two skips\n");
		igt_dynamic("three") igt_info("in dynamic three\n");
	}

	igt_subtest_with_dynamic("dyn-fail")
	{
		igt_dynamic("ok") igt_info("ok\n");
		igt_dynamic("bad") igt_assert(0);
	}

	igt_subtest_with_dynamic("dyn-empty")
	{
		igt_debug("no dynamic subtests\n");
	}

	igt_subtest("params") igt_info("budget=%.3f seed=%llu\n", igt_stress_budget_s(),
				       (unsigned long long)igt_seed());

	igt_fixture
	{
		if (mode && !strcmp(mode, "skip"))
			igt_require_f(false, "fixture skip requested\n");
		if (mode && !strcmp(mode, "fail"))
			igt_assert_f(false, "fixture fail requested\n");
	}

	igt_subtest("after-fixture-a") igt_info("after-a ran\n");
	igt_subtest("after-fixture-b") igt_info("after-b ran\n");
}
