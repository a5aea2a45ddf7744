// SPDX-License-Identifier: MIT
#include <fault_inject.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

DEFINE_FAULT_POINT(pa, "test_a")
DEFINE_FAULT_POINT(pb, "test_b")
DEFINE_FAULT_POINT(pc, "test_c")
DEFINE_FAULT_POINT(psite, "test_site")

static unsigned count_failures(struct fault_attr *a, unsigned calls, size_t size)
{
	unsigned n = 0;

	for (unsigned i = 0; i < calls; i++)
		n += fault_should_fail(a, size);
	return n;
}

KTEST(fault_should_fail_unconfigured_never_fails)
{
	fault_reset_all();
	EXPECT_EQ(count_failures(&pa, 1000, 0), 0);
	EXPECT_EQ(fault_hits(&pa), 1000);
	EXPECT_EQ(atomic_load(&pa.fired), 0);
}

KTEST(fault_configure_good_spec_applies)
{
	char err[128];

	fault_reset_all();
	ASSERT_EQ(fault_configure("test_a:probability=10,times=5;test_b:nth=3", err, sizeof(err)),
		  0);
	EXPECT_EQ(atomic_load(&pa.probability), 10);
	EXPECT_EQ(atomic_load(&pa.times), 5);
	EXPECT_EQ(atomic_load(&pb.nth), 3);
}

KTEST(fault_configure_unknown_point_names_it)
{
	char err[128];

	fault_reset_all();
	EXPECT_EQ(fault_configure("test_a:times=1;tset_b:nth=2", err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "tset_b") != NULL);
	/* Nothing of a rejected spec is applied, not even the good part. */
	EXPECT_EQ(atomic_load(&pa.times), 0);
}

KTEST(fault_configure_bad_key_and_value_named)
{
	char err[128];

	fault_reset_all();
	EXPECT_EQ(fault_configure("test_a:prob=10", err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "'prob'") != NULL);
	EXPECT_EQ(fault_configure("test_a:probability=x", err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "'x'") != NULL);
	EXPECT_EQ(fault_configure("test_a:probability=101", err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "101") != NULL);
	EXPECT_EQ(fault_configure("test_a", err, sizeof(err)), -EINVAL);
	EXPECT_EQ(fault_configure("test_a:", err, sizeof(err)), -EINVAL);
	EXPECT_EQ(fault_configure("test_a:times", err, sizeof(err)), -EINVAL);
	EXPECT_EQ(fault_configure("seed=abc", err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "abc") != NULL);
	EXPECT_EQ(atomic_load(&pa.probability), 0);
}

KTEST(fault_configure_all_applies_to_every_point)
{
	char err[128];

	fault_reset_all();
	ASSERT_EQ(fault_configure("all:interval=7", err, sizeof(err)), 0);
	EXPECT_EQ(atomic_load(&pa.interval), 7);
	EXPECT_EQ(atomic_load(&pb.interval), 7);
	EXPECT_EQ(atomic_load(&pc.interval), 7);
	fault_reset_all();
}

KTEST(fault_should_fail_times_limits_failures)
{
	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, 3);
	EXPECT_EQ(count_failures(&pa, 100, 0), 3);
	EXPECT_EQ(atomic_load(&pa.fired), 3);
	EXPECT_EQ(atomic_load(&pa.times), 0);
}

KTEST(fault_should_fail_unlimited_times)
{
	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	EXPECT_EQ(count_failures(&pa, 50, 0), 50);
}

KTEST(fault_should_fail_interval_every_nth_call)
{
	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	atomic_store(&pa.interval, 4);
	for (unsigned i = 1; i <= 20; i++)
		EXPECT_EQ(fault_should_fail(&pa, 0), i % 4 == 0);
}

KTEST(fault_should_fail_space_budget_consumed_first)
{
	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	atomic_store(&pa.space, 10000);
	/* 4096 + 4096 = 8192 < 10000: both pass; the third crosses the budget. */
	EXPECT_FALSE(fault_should_fail(&pa, 4096));
	EXPECT_FALSE(fault_should_fail(&pa, 4096));
	EXPECT_TRUE(fault_should_fail(&pa, 4096));
	EXPECT_TRUE(fault_should_fail(&pa, 4096));
}

KTEST(fault_should_fail_nth_is_one_shot)
{
	fault_reset_all();
	fault_set_nth(&pa, 3);
	EXPECT_FALSE(fault_should_fail(&pa, 0));
	EXPECT_FALSE(fault_should_fail(&pa, 0));
	EXPECT_TRUE(fault_should_fail(&pa, 0));
	EXPECT_EQ(count_failures(&pa, 100, 0), 0);
}

KTEST(fault_should_fail_probability_roughly_honoured)
{
	unsigned n;

	fault_reset_all();
	fault_set_seed(1234);
	atomic_store(&pa.probability, 25);
	atomic_store(&pa.times, -1);
	n = count_failures(&pa, 10000, 0);
	/* Binomial(10000, 0.25): sd ~43; 10 sd either side. */
	EXPECT_GT(n, 2070);
	EXPECT_LT(n, 2930);
}

static void record_pattern(uint64_t seed, unsigned char *out, unsigned n)
{
	fault_reset_all();
	fault_set_seed(seed);
	atomic_store(&pb.probability, 30);
	atomic_store(&pb.times, -1);
	for (unsigned i = 0; i < n; i++)
		out[i] = fault_should_fail(&pb, 0);
}

KTEST(fault_set_seed_replays_exactly)
{
	unsigned char a[512], b[512], c[512];

	record_pattern(42, a, sizeof(a));
	record_pattern(42, b, sizeof(b));
	record_pattern(43, c, sizeof(c));
	EXPECT_MEMEQ(a, b, sizeof(a));
	EXPECT_TRUE(memcmp(a, c, sizeof(a)) != 0);
	EXPECT_EQ(fault_get_seed(), 43);
}

static void *other_thread_hits(void *arg)
{
	for (int i = 0; i < 10; i++)
		(void)fault_should_fail(arg, 0);
	return NULL;
}

KTEST(fault_thread_fail_nth_counts_only_this_thread)
{
	pthread_t t;

	fault_reset_all();
	fault_thread_fail_nth(NULL, 2);
	ASSERT_EQ(pthread_create(&t, NULL, other_thread_hits, &pa), 0);
	pthread_join(t, NULL);
	EXPECT_EQ(atomic_load(&pa.fired), 0);
	EXPECT_EQ(fault_thread_nth_pending(), 2);
	EXPECT_FALSE(fault_should_fail(&pb, 0));
	EXPECT_TRUE(fault_should_fail(&pc, 0));
	EXPECT_EQ(fault_thread_nth_pending(), 0);
	EXPECT_FALSE(fault_should_fail(&pc, 0));
}

KTEST(fault_thread_fail_nth_filtered_by_point)
{
	fault_reset_all();
	fault_thread_fail_nth(&pb, 1);
	EXPECT_FALSE(fault_should_fail(&pa, 0));
	EXPECT_FALSE(fault_should_fail(&pc, 0));
	EXPECT_TRUE(fault_should_fail(&pb, 0));
	EXPECT_FALSE(fault_should_fail(&pb, 0));
}

static void collect(struct fault_attr *a, void *data)
{
	char *buf = data;

	if (!strncmp(a->name, "test_", 5)) {
		strcat(buf, a->name);
		strcat(buf, " ");
	}
}

KTEST(fault_for_each_in_name_order)
{
	char buf[128] = "";

	fault_for_each(collect, buf);
	EXPECT_STREQ(buf, "test_a test_b test_c test_site ");
	EXPECT_TRUE(fault_lookup("test_b") == &pb);
	EXPECT_NULL(fault_lookup("test_zz"));
	EXPECT_GE(fault_count(), 3);
}

KTEST(fault_reset_all_clears_counters)
{
	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	(void)count_failures(&pa, 5, 0);
	EXPECT_EQ(fault_total_fired(), 5);
	fault_reset_all();
	EXPECT_EQ(fault_total_fired(), 0);
	EXPECT_EQ(fault_hits(&pa), 0);
	EXPECT_FALSE(fault_should_fail(&pa, 0));
}

struct race_arg {
	struct fault_attr *a;
	unsigned fired;
};

static void *race_thread(void *p)
{
	struct race_arg *r = p;

	for (int i = 0; i < 20000; i++)
		r->fired += fault_should_fail(r->a, 0);
	return NULL;
}

/* Four threads hit @a 20000 times each at once; the failures they saw, summed. */
static unsigned race_four(struct fault_attr *a)
{
	struct race_arg r[4];
	pthread_t t[4];
	unsigned total = 0;

	for (int i = 0; i < 4; i++) {
		r[i] = (struct race_arg){a, 0};
		ASSERT_EQ(pthread_create(&t[i], NULL, race_thread, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		total += r[i].fired;
	}
	return total;
}

KTEST(fault_should_fail_times_exact_under_concurrency)
{
	unsigned total;

	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, 777);
	total = race_four(&pa);
	EXPECT_EQ(total, 777);
	EXPECT_EQ(fault_hits(&pa), 80000);
}

KTEST(fault_should_fail_interval_counts_only_armed_candidates)
{
	fault_reset_all();
	/* Calls while the point is disarmed are hits, not interval candidates. */
	EXPECT_EQ(count_failures(&pa, 3, 0), 0);
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	atomic_store(&pa.interval, 4);
	for (unsigned i = 1; i <= 12; i++)
		EXPECT_EQ(fault_should_fail(&pa, 0), i % 4 == 0);
	EXPECT_EQ(fault_hits(&pa), 15);
	EXPECT_EQ(atomic_load(&pa.fired), 3);
}

KTEST(fault_should_fail_interval_skips_space_budget_calls)
{
	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	atomic_store(&pa.space, 100);
	atomic_store(&pa.interval, 2);
	/* 60 of 100 bytes: absorbed by the budget, not a candidate. */
	EXPECT_FALSE(fault_should_fail(&pa, 60));
	/* Crosses the budget: candidate 1, not a multiple of 2. */
	EXPECT_FALSE(fault_should_fail(&pa, 60));
	EXPECT_TRUE(fault_should_fail(&pa, 60));
	EXPECT_FALSE(fault_should_fail(&pa, 60));
	EXPECT_TRUE(fault_should_fail(&pa, 60));
}

KTEST(fault_should_fail_interval_exact_under_concurrency)
{
	unsigned total;

	fault_reset_all();
	atomic_store(&pa.probability, 100);
	atomic_store(&pa.times, -1);
	atomic_store(&pa.interval, 8);
	total = race_four(&pa);
	/* One global order of candidates: exactly every 8th of 80000 fails. */
	EXPECT_EQ(total, 10000);
	EXPECT_EQ(fault_hits(&pa), 80000);
}

/* A thread that hits a point, then stays alive until told to go. */
struct live_arg {
	struct fault_attr *a;
	unsigned calls;
	pthread_barrier_t *hit_done, *may_exit, *hit_again;
};

static void *live_thread(void *p)
{
	struct live_arg *l = p;

	(void)count_failures(l->a, l->calls, 0);
	pthread_barrier_wait(l->hit_done);
	pthread_barrier_wait(l->may_exit);
	(void)count_failures(l->a, l->calls, 0);
	pthread_barrier_wait(l->hit_again);
	return NULL;
}

KTEST(fault_hits_sums_live_and_exited_threads)
{
	pthread_barrier_t b1, b2, b3;
	struct live_arg l = {&pb, 1000, &b1, &b2, &b3};
	pthread_t t;

	pthread_barrier_init(&b1, NULL, 2);
	pthread_barrier_init(&b2, NULL, 2);
	pthread_barrier_init(&b3, NULL, 2);
	fault_reset_all();
	(void)count_failures(&pb, 7, 0);
	ASSERT_EQ(pthread_create(&t, NULL, live_thread, &l), 0);
	pthread_barrier_wait(&b1);
	/* The other thread is alive: its counter is read in place. */
	EXPECT_EQ(fault_hits(&pb), 1007);
	pthread_barrier_wait(&b2);
	pthread_barrier_wait(&b3);
	pthread_join(t, NULL);
	/* It has exited: its counts were folded into the point. */
	EXPECT_EQ(fault_hits(&pb), 2007);
	(void)count_failures(&pb, 3, 0);
	EXPECT_EQ(fault_hits(&pb), 2010);
	pthread_barrier_destroy(&b1);
	pthread_barrier_destroy(&b2);
	pthread_barrier_destroy(&b3);
}

KTEST(fault_reset_clears_a_live_threads_hits)
{
	pthread_barrier_t b1, b2, b3;
	struct live_arg l = {&pc, 500, &b1, &b2, &b3};
	pthread_t t;

	pthread_barrier_init(&b1, NULL, 2);
	pthread_barrier_init(&b2, NULL, 2);
	pthread_barrier_init(&b3, NULL, 2);
	fault_reset_all();
	ASSERT_EQ(pthread_create(&t, NULL, live_thread, &l), 0);
	pthread_barrier_wait(&b1);
	EXPECT_EQ(fault_hits(&pc), 500);
	fault_reset(&pc);
	EXPECT_EQ(fault_hits(&pc), 0);
	pthread_barrier_wait(&b2);
	pthread_barrier_wait(&b3);
	/* Counted from the reset on, before and after the thread's exit. */
	EXPECT_EQ(fault_hits(&pc), 500);
	pthread_join(t, NULL);
	EXPECT_EQ(fault_hits(&pc), 500);
	pthread_barrier_destroy(&b1);
	pthread_barrier_destroy(&b2);
	pthread_barrier_destroy(&b3);
}

KTEST(fault_hits_counts_an_unregistered_point)
{
	static struct fault_attr loose = FAULT_ATTR_INITIALIZER("test_unregistered");

	EXPECT_EQ(count_failures(&loose, 10, 0), 0);
	EXPECT_EQ(fault_hits(&loose), 10);
	EXPECT_NULL(fault_lookup("test_unregistered"));
	fault_set_nth(&loose, 2);
	EXPECT_FALSE(fault_should_fail(&loose, 0));
	EXPECT_TRUE(fault_should_fail(&loose, 0));
	fault_reset(&loose);
	EXPECT_EQ(fault_hits(&loose), 0);
}

static void *hit_ten(void *arg)
{
	(void)count_failures(arg, 10, 0);
	return NULL;
}

/*
 * ThreadSanitizer refuses to start a thread in the child of a multi-threaded
 * fork, so the new-thread check runs without it only (gcc says so with
 * __SANITIZE_THREAD__, clang with __has_feature).
 */
#if defined(__SANITIZE_THREAD__)
#define CHILD_MAY_START_THREADS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHILD_MAY_START_THREADS 0
#endif
#endif
#ifndef CHILD_MAY_START_THREADS
#define CHILD_MAY_START_THREADS 1
#endif

/* In a child of fork(): 0 when the hits add up, a code naming the check. */
static int child_checks(struct fault_attr *a)
{
	unsigned long want = 300;
	pthread_t t;

	if (fault_hits(a) != want)
		return 1;
	/* A new thread may get the storage of the one the fork left behind. */
	if (CHILD_MAY_START_THREADS) {
		if (pthread_create(&t, NULL, hit_ten, a))
			return 2;
		pthread_join(t, NULL);
		want += 10;
		if (fault_hits(a) != want)
			return 3;
	}
	(void)count_failures(a, 5, 0);
	return fault_hits(a) == want + 5 ? 0 : 4;
}

KTEST(fault_hits_in_a_forked_child_keep_the_parents_threads)
{
	pthread_barrier_t b1, b2, b3;
	struct live_arg l = {&pa, 200, &b1, &b2, &b3};
	pthread_t t;
	pid_t pid;
	int status = -1;

	pthread_barrier_init(&b1, NULL, 2);
	pthread_barrier_init(&b2, NULL, 2);
	pthread_barrier_init(&b3, NULL, 2);
	fault_reset_all();
	(void)count_failures(&pa, 100, 0);
	ASSERT_EQ(pthread_create(&t, NULL, live_thread, &l), 0);
	pthread_barrier_wait(&b1);
	pid = fork();
	if (pid == 0)
		_exit(child_checks(&pa));
	EXPECT_GT(pid, 0);
	if (pid > 0) {
		EXPECT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 0);
	}
	pthread_barrier_wait(&b2);
	pthread_barrier_wait(&b3);
	pthread_join(t, NULL);
	/* The parent is untouched by its child's hits. */
	EXPECT_EQ(fault_hits(&pa), 500);
	pthread_barrier_destroy(&b1);
	pthread_barrier_destroy(&b2);
	pthread_barrier_destroy(&b3);
}

/* Two call sites of one point, each its own noinline function. */
static __attribute__((noinline)) bool site_one(void)
{
	return fault_should_fail(&psite, 0);
}

static __attribute__((noinline)) bool site_two(void)
{
	return fault_should_fail(&psite, 0);
}

struct site_seen {
	unsigned n;
	unsigned long fired[4];
};

static void collect_site(const struct fault_attr *a, const void *ret, unsigned long fired,
			 void *data)
{
	struct site_seen *s = data;

	(void)ret;
	if (a == &psite && s->n < 4)
		s->fired[s->n++] = fired;
}

KTEST(fault_sites_recorded_per_call_site)
{
	struct site_seen seen = {0};
	char err[128];

	fault_reset_all();
	/* Site one fails 3 times, site two once; hits that did not fire are not sites. */
	ASSERT_EQ(fault_configure("test_site:probability=100,times=3", err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(site_one());
	EXPECT_FALSE(site_two());
	ASSERT_EQ(fault_configure("test_site:probability=100,times=1", err, sizeof(err)), 0);
	EXPECT_TRUE(site_two());
	EXPECT_FALSE(site_one());
	/* A reset keeps the record. */
	fault_reset_all();
	fault_for_each_site(collect_site, &seen);
	ASSERT_EQ(seen.n, 2);
	EXPECT_EQ(seen.fired[0], 3);
	EXPECT_EQ(seen.fired[1], 1);
	EXPECT_EQ(fault_sites_lost_count(), 0);
}
