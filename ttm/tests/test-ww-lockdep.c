// SPDX-License-Identifier: MIT
/*
 * Tests of the ww_mutex lock-order checker (ww_lockdep.h), through the
 * ww_mutex API: deliberate class inversions (direct, through a third
 * class, across threads), ww_mutexes taken outside their acquire context
 * or under a second one while a classmate is held, orders that are fine
 * (one context, trylocks, released locks), and the exit status of a
 * process that had a report. Skipped in builds without -Dww_lockdep=true.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ttm/ww_lockdep.h>
#include <ttm/ww_mutex.h>

#include "ktest.h"

static DEFINE_WW_CLASS(class_a);
static DEFINE_WD_CLASS(class_b);
static DEFINE_WW_CLASS(class_c);

struct fixture {
	struct ww_mutex a1, a2, b, c;
};

static struct fixture fx;

static void setup(void)
{
	if (!WW_LOCKDEP_ENABLED)
		KTEST_SKIP("built without -Dww_lockdep=true");
	ww_lockdep_reset();
	ww_mutex_init(&fx.a1, &class_a);
	ww_mutex_init(&fx.a2, &class_a);
	ww_mutex_init(&fx.b, &class_b);
	ww_mutex_init(&fx.c, &class_c);
}

/* The checks of a case are done: forget its reports so the process exits 0. */
static void teardown(void)
{
	EXPECT_EQ(ww_lockdep_held(), 0);
	ww_lockdep_reset();
	ww_mutex_destroy(&fx.a1);
	ww_mutex_destroy(&fx.a2);
	ww_mutex_destroy(&fx.b);
	ww_mutex_destroy(&fx.c);
}

/* Takes @first then @second (each under its own class's context), releases both. */
static void take_pair(struct ww_mutex *first, struct ww_mutex *second)
{
	struct ww_acquire_ctx c1, c2;

	ww_acquire_init(&c1, first->ww_class);
	ww_acquire_init(&c2, second->ww_class);
	EXPECT_EQ(ww_mutex_lock(first, &c1), 0);
	EXPECT_EQ(ww_mutex_lock(second, &c2), 0);
	EXPECT_EQ(ww_lockdep_held(), 2);
	ww_mutex_unlock(second);
	ww_mutex_unlock(first);
	ww_acquire_fini(&c2);
	ww_acquire_fini(&c1);
}

KTEST(ww_lockdep_inversion_direct)
{
	setup();
	take_pair(&fx.a1, &fx.b);
	take_pair(&fx.a2, &fx.b); /* the same order again, another lock of class a */
	EXPECT_EQ(ww_lockdep_reports(), 0);
	take_pair(&fx.b, &fx.a1);
	EXPECT_EQ(ww_lockdep_reports(), 1);
	take_pair(&fx.b, &fx.a2); /* each pair of classes is reported once */
	EXPECT_EQ(ww_lockdep_reports(), 1);
	teardown();
}

KTEST(ww_lockdep_inversion_through_third_class)
{
	setup();
	take_pair(&fx.a1, &fx.b);
	take_pair(&fx.b, &fx.c);
	EXPECT_EQ(ww_lockdep_reports(), 0);
	take_pair(&fx.c, &fx.a1); /* a -> b -> c, now c -> a */
	EXPECT_EQ(ww_lockdep_reports(), 1);
	teardown();
}

static void *order_ab(void *arg)
{
	(void)arg;
	take_pair(&fx.a1, &fx.b);
	return NULL;
}

/* One thread takes a then b, another b then a: the graph is process-wide. */
KTEST(ww_lockdep_inversion_across_threads)
{
	pthread_t t;

	setup();
	ASSERT_EQ(pthread_create(&t, NULL, order_ab, NULL), 0);
	pthread_join(t, NULL);
	EXPECT_EQ(ww_lockdep_reports(), 0);
	take_pair(&fx.b, &fx.a1);
	EXPECT_EQ(ww_lockdep_reports(), 1);
	teardown();
}

/* Released before the other is taken: no order between the classes. */
KTEST(ww_lockdep_released_is_no_order)
{
	struct ww_acquire_ctx ca, cb;

	setup();
	ww_acquire_init(&ca, &class_a);
	ww_acquire_init(&cb, &class_b);
	EXPECT_EQ(ww_mutex_lock(&fx.a1, &ca), 0);
	ww_mutex_unlock(&fx.a1);
	EXPECT_EQ(ww_mutex_lock(&fx.b, &cb), 0);
	ww_mutex_unlock(&fx.b);
	take_pair(&fx.b, &fx.a1);
	EXPECT_EQ(ww_lockdep_reports(), 0);
	ww_acquire_fini(&cb);
	ww_acquire_fini(&ca);
	teardown();
}

/* Two classmates under one context, as a transaction takes them: fine. */
KTEST(ww_lockdep_one_context_is_fine)
{
	struct ww_acquire_ctx ctx;

	setup();
	ww_acquire_init(&ctx, &class_a);
	EXPECT_EQ(ww_mutex_lock(&fx.a1, &ctx), 0);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, &ctx), 0);
	ww_mutex_unlock(&fx.a2);
	ww_mutex_unlock(&fx.a1);
	ww_acquire_fini(&ctx);
	/* A trylock cannot deadlock: a classmate taken by trylock is not checked. */
	EXPECT_TRUE(ww_mutex_trylock(&fx.a1, NULL));
	ww_acquire_init(&ctx, &class_a);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, &ctx), 0);
	ww_mutex_unlock(&fx.a2);
	ww_acquire_fini(&ctx);
	EXPECT_TRUE(ww_mutex_trylock(&fx.a2, NULL));
	ww_mutex_unlock(&fx.a2);
	ww_mutex_unlock(&fx.a1);
	EXPECT_EQ(ww_lockdep_reports(), 0);
	teardown();
}

/* A classmate taken without the held one's context: reported. */
KTEST(ww_lockdep_outside_acquire_context)
{
	struct ww_acquire_ctx ctx;

	setup();
	ww_acquire_init(&ctx, &class_a);
	EXPECT_EQ(ww_mutex_lock(&fx.a1, &ctx), 0);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, NULL), 0);
	EXPECT_EQ(ww_lockdep_reports(), 1);
	ww_mutex_unlock(&fx.a2);
	ww_mutex_unlock(&fx.a1);
	ww_acquire_fini(&ctx);
	teardown();
}

/* Annotated as safe to nest (ww_lockdep_nest_ok()): not reported, once. */
KTEST(ww_lockdep_nest_ok_annotation)
{
	struct ww_acquire_ctx ctx;

	setup();
	ww_acquire_init(&ctx, &class_a);
	EXPECT_EQ(ww_mutex_lock(&fx.a1, &ctx), 0);
	ww_lockdep_nest_ok(&fx.a2);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, NULL), 0);
	ww_mutex_unlock(&fx.a2);
	EXPECT_EQ(ww_lockdep_reports(), 0);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, NULL), 0); /* the annotation was for one acquisition */
	EXPECT_EQ(ww_lockdep_reports(), 1);
	ww_mutex_unlock(&fx.a2);
	ww_mutex_unlock(&fx.a1);
	ww_acquire_fini(&ctx);
	teardown();
}

/* Both without a context: the same hazard. */
KTEST(ww_lockdep_nested_without_context)
{
	setup();
	EXPECT_EQ(ww_mutex_lock(&fx.a1, NULL), 0);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, NULL), 0);
	EXPECT_EQ(ww_lockdep_reports(), 1);
	ww_mutex_unlock(&fx.a2);
	ww_mutex_unlock(&fx.a1);
	teardown();
}

/* Two acquire contexts of one class on one thread: reported. */
KTEST(ww_lockdep_second_context)
{
	struct ww_acquire_ctx c1, c2;

	setup();
	ww_acquire_init(&c1, &class_a);
	ww_acquire_init(&c2, &class_a);
	EXPECT_EQ(ww_mutex_lock(&fx.a1, &c1), 0);
	EXPECT_EQ(ww_mutex_lock(&fx.a2, &c2), 0);
	EXPECT_EQ(ww_lockdep_reports(), 1);
	ww_mutex_unlock(&fx.a2);
	ww_mutex_unlock(&fx.a1);
	ww_acquire_fini(&c2);
	ww_acquire_fini(&c1);
	teardown();
}

/* A process that had a report exits with the checker's status, like a sanitizer's. */
KTEST(ww_lockdep_report_fails_the_process)
{
	int status = 0;
	pid_t pid;

	setup();
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		take_pair(&fx.a1, &fx.b);
		take_pair(&fx.b, &fx.a1);
		exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), WW_LOCKDEP_EXITCODE);
	/* Without a report the same process exits 0. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		take_pair(&fx.a1, &fx.b);
		exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	teardown();
}
