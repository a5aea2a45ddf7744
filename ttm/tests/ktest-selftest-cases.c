/* SPDX-License-Identifier: MIT */
/*
 * Cases that fail on purpose, for test-ktest.c to run as a child process and
 * read the KTAP of: an ASSERT_* failing while the case holds a mutex that an
 * action releases, the next case taking that mutex, a failing parameter
 * among passing ones, a suite whose exit() must run after a failed
 * assertion, a crashing case, and cases after all of them that must still
 * run. Not a test on its own (it is expected to report failures).
 */
#include "ktest.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void unlock_action(void *m)
{
	pthread_mutex_unlock(m);
}

KTEST(selftest_assert_holding_lock)
{
	ASSERT_EQ(pthread_mutex_lock(&shared_lock), 0);
	ASSERT_EQ(ktest_add_action(unlock_action, &shared_lock), 0);
	ASSERT_TRUE(1 + 1 == 3); /* fails: the action must still unlock */
	printf("# BUG: reached past a failed ASSERT\n");
}

KTEST(selftest_takes_same_lock)
{
	struct timespec deadline;

	/* A bounded wait, so a broken teardown fails here instead of hanging. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 20;
	ASSERT_EQ(pthread_mutex_timedlock(&shared_lock, &deadline), 0);
	pthread_mutex_unlock(&shared_lock);
	printf("# took the lock\n");
}

static int fixture_inits, fixture_exits;

static int counting_init(struct ktest *t)
{
	fixture_inits++;
	t->priv = &fixture_inits;
	return 0;
}

static void counting_exit(struct ktest *t)
{
	fixture_exits++;
	printf("# exit %s inits=%d exits=%d priv=%s\n", t->name, fixture_inits, fixture_exits,
	       t->priv == &fixture_inits ? "kept" : "lost");
}

KTEST_SUITE(counting, .init = counting_init, .exit = counting_exit);

KTEST_F(counting, selftest_fixture_assert)
{
	ASSERT_NOT_NULL(ktest_priv());
	ASSERT_EQ(*(int *)ktest_priv(), -1); /* fails: exit() must still run */
}

static const int values[] = {1, 2, 3, 4};

static void value_desc(const int *v, char *desc)
{
	snprintf(desc, KTEST_PARAM_DESC_SIZE, "value %d", *v);
}

KTEST_ARRAY_PARAM(values, values, value_desc);

KTEST_PARAM_F(counting, selftest_param_one_fails, values_gen_params)
{
	const int *v = ktest_param();

	ASSERT_NE(*v, 3); /* the third parameter fails, the fourth still runs */
	printf("# param %d ran\n", *v);
}

KTEST(selftest_crash)
{
	ASSERT_EQ(ktest_add_action(unlock_action, &shared_lock), 0);
	raise(SIGSEGV);
}

KTEST(selftest_skip)
{
	KTEST_SKIP("skipped on purpose");
}

KTEST(selftest_last_still_runs)
{
	EXPECT_EQ(pthread_mutex_trylock(&shared_lock), 0);
	pthread_mutex_unlock(&shared_lock);
}
