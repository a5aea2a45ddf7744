// SPDX-License-Identifier: MIT
#include <ttm/dma_fence.h>
#include <ttm/ttm_faults.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ttm_test_helpers.h"

static atomic_int enable_calls;

static bool test_enable(struct dma_fence *f)
{
	(void)f;
	atomic_fetch_add(&enable_calls, 1);
	return true;
}

static const struct dma_fence_ops test_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
    .enable_signaling = test_enable,
};

static struct dma_fence *new_fence(uint64_t ctx, uint64_t seqno)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	if (f)
		dma_fence_init(f, &test_ops, ctx, seqno);
	return f;
}

struct counting_cb {
	struct dma_fence_cb base;
	atomic_int calls;
};

static void count_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	(void)f;
	atomic_fetch_add(&container_of(cb, struct counting_cb, base)->calls, 1);
}

KTEST(dma_fence_signal_once)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	int64_t before, after, ts = -1;

	ASSERT_NOT_NULL(f);
	EXPECT_FALSE(dma_fence_is_signaled(f));
	EXPECT_EQ(dma_fence_get_status(f), 0);
	EXPECT_EQ(dma_fence_get_timestamp(f, &ts), -EBUSY);
	EXPECT_EQ(ts, -1);
	before = dma_fence_now_ns();
	EXPECT_EQ(dma_fence_signal(f), 0);
	after = dma_fence_now_ns();
	EXPECT_TRUE(dma_fence_is_signaled(f));
	EXPECT_EQ(dma_fence_signal(f), -EINVAL);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	/* The signal's own clock reading, taken between the two here. */
	EXPECT_EQ(dma_fence_get_timestamp(f, &ts), 0);
	EXPECT_GE(ts, before);
	EXPECT_LE(ts, after);
	EXPECT_EQ(dma_fence_get_timestamp(NULL, &ts), -EINVAL);
	EXPECT_EQ(dma_fence_get_timestamp(f, NULL), -EINVAL);
	dma_fence_put(f);
}

KTEST(dma_fence_signal_timestamp_second_signal_keeps_first)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	int64_t ts = 0;

	ASSERT_NOT_NULL(f);
	EXPECT_EQ(dma_fence_signal_timestamp(f, 777), 0);
	EXPECT_EQ(dma_fence_signal_timestamp(f, 888), -EINVAL);
	EXPECT_EQ(dma_fence_signal(f), -EINVAL);
	EXPECT_EQ(dma_fence_get_timestamp(f, &ts), 0);
	EXPECT_EQ(ts, 777);
	EXPECT_EQ(dma_fence_signal_timestamp(NULL, 1), -EINVAL);
	EXPECT_EQ(dma_fence_signal(NULL), -EINVAL);
	dma_fence_put(f);
}

KTEST(dma_fence_set_error_visible_after_signal)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);

	EXPECT_EQ(dma_fence_set_error(f, 5), -EINVAL);
	EXPECT_EQ(dma_fence_set_error(f, -EIO), 0);
	EXPECT_EQ(dma_fence_get_status(f), 0);
	dma_fence_signal(f);
	EXPECT_EQ(dma_fence_get_status(f), -EIO);
	EXPECT_EQ(dma_fence_set_error(f, -ENOMEM), -EINVAL);
	EXPECT_EQ(dma_fence_get_status(f), -EIO);
	dma_fence_put(f);
}

KTEST(dma_fence_add_callback_runs_once)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	struct counting_cb cb = {.calls = 0};

	atomic_store(&enable_calls, 0);
	EXPECT_EQ(dma_fence_add_callback(f, &cb.base, count_cb), 0);
	EXPECT_EQ(atomic_load(&enable_calls), 1);
	EXPECT_EQ(atomic_load(&cb.calls), 0);
	dma_fence_signal(f);
	EXPECT_EQ(atomic_load(&cb.calls), 1);
	EXPECT_EQ(dma_fence_signal(f), -EINVAL);
	EXPECT_EQ(atomic_load(&cb.calls), 1);
	dma_fence_put(f);
}

KTEST(dma_fence_add_callback_signaled_returns_enoent)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	struct counting_cb cb = {.calls = 0};

	dma_fence_signal(f);
	EXPECT_EQ(dma_fence_add_callback(f, &cb.base, count_cb), -ENOENT);
	EXPECT_EQ(atomic_load(&cb.calls), 0);
	EXPECT_FALSE(dma_fence_remove_callback(f, &cb.base));
	EXPECT_EQ(dma_fence_add_callback(NULL, &cb.base, count_cb), -EINVAL);
	dma_fence_put(f);
}

KTEST(dma_fence_remove_callback_pending_and_done)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	struct counting_cb a = {.calls = 0}, b = {.calls = 0};

	EXPECT_EQ(dma_fence_add_callback(f, &a.base, count_cb), 0);
	EXPECT_EQ(dma_fence_add_callback(f, &b.base, count_cb), 0);
	EXPECT_TRUE(dma_fence_remove_callback(f, &a.base));
	EXPECT_FALSE(dma_fence_remove_callback(f, &a.base));
	dma_fence_signal(f);
	EXPECT_EQ(atomic_load(&a.calls), 0);
	EXPECT_EQ(atomic_load(&b.calls), 1);
	EXPECT_FALSE(dma_fence_remove_callback(f, &b.base));
	dma_fence_put(f);
}

KTEST(dma_fence_is_later_wraps)
{
	uint64_t ctx = dma_fence_context_alloc(2);
	struct dma_fence *a = ttm_test_fence_create_on(ctx, UINT64_MAX - 1);
	struct dma_fence *b = ttm_test_fence_create_on(ctx, 2); /* after a wrap */
	struct dma_fence *c = ttm_test_fence_create_on(ctx + 1, 100);

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ASSERT_NOT_NULL(c);
	EXPECT_TRUE(dma_fence_is_later(b, a));
	EXPECT_FALSE(dma_fence_is_later(a, b));
	EXPECT_FALSE(dma_fence_is_later(c, a)); /* other timeline */
	EXPECT_TRUE(dma_fence_is_later_or_same(a, a));
	EXPECT_TRUE(__dma_fence_is_later(10, 9));
	EXPECT_FALSE(__dma_fence_is_later(9, 9));
	dma_fence_put(a);
	dma_fence_put(b);
	dma_fence_put(c);
}

KTEST(dma_fence_context_alloc_unique)
{
	uint64_t a = dma_fence_context_alloc(4);
	uint64_t b = dma_fence_context_alloc(1);

	EXPECT_GE(b, a + 4);
}

KTEST(dma_fence_wait_timeout_poll_and_timeout)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);

	EXPECT_EQ(dma_fence_wait_timeout(f, false, 0), 0);
	EXPECT_EQ(dma_fence_wait_timeout(f, false, 2000000), 0);
	EXPECT_EQ(dma_fence_wait_timeout(f, false, -1), -EINVAL);
	dma_fence_signal(f);
	EXPECT_EQ(dma_fence_wait_timeout(f, false, 0), 1);
	EXPECT_GT(dma_fence_wait_timeout(f, false, 1000), 0);
	EXPECT_EQ(dma_fence_wait(f, true), 0);
	dma_fence_put(f);
}

static void *signal_later(void *p)
{
	usleep(2000);
	dma_fence_signal(p);
	return NULL;
}

KTEST(dma_fence_wait_woken_by_signal)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, signal_later, f), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, 5000000000ll), 0);
	EXPECT_TRUE(dma_fence_is_signaled(f));
	pthread_join(t, NULL);
	dma_fence_put(f);
}

struct intr_arg {
	struct dma_fence *f;
	struct dma_fence_interrupt intr;
	atomic_int installed;
	int64_t ret;
};

static void *wait_interruptible(void *p)
{
	struct intr_arg *a = p;

	dma_fence_interrupt_install(&a->intr);
	atomic_store(&a->installed, 1);
	a->ret = dma_fence_wait_timeout(a->f, true, MAX_SCHEDULE_TIMEOUT);
	dma_fence_interrupt_install(NULL);
	return NULL;
}

KTEST(dma_fence_wait_interruptible_returns_eintr)
{
	struct intr_arg a = {.f = new_fence(dma_fence_context_alloc(1), 1), .installed = 0};
	pthread_t t;

	dma_fence_interrupt_init(&a.intr);
	ASSERT_EQ(pthread_create(&t, NULL, wait_interruptible, &a), 0);
	while (!atomic_load(&a.installed))
		usleep(100);
	usleep(2000);
	dma_fence_interrupt_raise(&a.intr);
	pthread_join(t, NULL);
	EXPECT_EQ(a.ret, -EINTR);
	EXPECT_FALSE(dma_fence_is_signaled(a.f));
	/* Non-interruptible waits ignore it. */
	dma_fence_interrupt_install(&a.intr);
	EXPECT_EQ(dma_fence_wait_timeout(a.f, false, 1000000), 0);
	EXPECT_EQ(dma_fence_wait_timeout(a.f, true, 1000000), -EINTR);
	dma_fence_interrupt_clear(&a.intr);
	EXPECT_EQ(dma_fence_wait_timeout(a.f, true, 1000000), 0);
	dma_fence_interrupt_install(NULL);
	dma_fence_signal(a.f);
	dma_fence_put(a.f);
}

KTEST(dma_fence_get_stub_is_signaled)
{
	struct dma_fence *s = dma_fence_get_stub();
	struct dma_fence *p = dma_fence_allocate_private_stub(1234);
	int64_t ts = -1;

	EXPECT_TRUE(dma_fence_is_signaled(s));
	ASSERT_NOT_NULL(p);
	EXPECT_TRUE(dma_fence_is_signaled(p));
	EXPECT_EQ(dma_fence_get_timestamp(p, &ts), 0);
	EXPECT_EQ(ts, 1234);
	EXPECT_EQ(dma_fence_get_timestamp(s, &ts), 0);
	EXPECT_EQ(ts, 0);
	EXPECT_EQ(dma_fence_wait_timeout(s, false, 0), 1);
	dma_fence_put(s);
	dma_fence_put(p);
}

KTEST(dma_fence_alloc_fault_point_fails_cleanly)
{
	long live = dma_fence_live_count();

	fault_set_nth(&ttm_fault_fence_alloc, 1);
	EXPECT_NULL(dma_fence_allocate_private_stub(0));
	EXPECT_EQ(dma_fence_live_count(), live);
	fault_reset(&ttm_fault_fence_alloc);
}

KTEST(dma_fence_wait_any_returns_signaled_index)
{
	uint64_t ctx = dma_fence_context_alloc(1);
	struct dma_fence *f[3] = {new_fence(ctx, 1), new_fence(ctx, 2), new_fence(ctx, 3)};
	unsigned idx = 99;
	pthread_t t;

	EXPECT_EQ(dma_fence_wait_any_timeout(f, 3, false, 0, &idx), 0);
	EXPECT_EQ(dma_fence_wait_any_timeout(f, 0, false, 0, &idx), -EINVAL);
	ASSERT_EQ(pthread_create(&t, NULL, signal_later, f[2]), 0);
	EXPECT_GT(dma_fence_wait_any_timeout(f, 3, false, 5000000000ll, &idx), 0);
	EXPECT_EQ(idx, 2);
	pthread_join(t, NULL);
	for (int i = 0; i < 3; i++) {
		dma_fence_signal(f[i]);
		dma_fence_put(f[i]);
	}
}

/* The race the signal protocol exists for: adder vs signaller. */
struct race {
	struct dma_fence *f;
	struct counting_cb cb;
	atomic_int go;
	int add_ret;
};

static void *race_adder(void *p)
{
	struct race *r = p;

	while (!atomic_load(&r->go))
		;
	r->add_ret = dma_fence_add_callback(r->f, &r->cb.base, count_cb);
	return NULL;
}

KTEST(dma_fence_add_callback_races_signal)
{
	unsigned iters = 2000 * ktest_scale(), ran = 0, refused = 0;

	for (unsigned i = 0; i < iters; i++) {
		struct race r = {.f = new_fence(dma_fence_context_alloc(1), 1), .go = 0};
		pthread_t t;

		r.cb.calls = 0;
		ASSERT_EQ(pthread_create(&t, NULL, race_adder, &r), 0);
		atomic_store(&r.go, 1);
		dma_fence_signal(r.f);
		pthread_join(t, NULL);
		/* Exactly one of: the callback ran once, or add said -ENOENT. */
		if (r.add_ret == 0) {
			EXPECT_EQ(atomic_load(&r.cb.calls), 1);
			ran++;
		} else {
			EXPECT_EQ(r.add_ret, -ENOENT);
			EXPECT_EQ(atomic_load(&r.cb.calls), 0);
			refused++;
		}
		dma_fence_put(r.f);
	}
	EXPECT_EQ(ran + refused, iters);
}

static void *race_waiter(void *p)
{
	struct race *r = p;

	while (!atomic_load(&r->go))
		;
	r->add_ret = (int)dma_fence_wait_timeout(r->f, false, 10000000000ll);
	return NULL;
}

KTEST(dma_fence_wait_races_signal_no_lost_wakeup)
{
	unsigned iters = 2000 * ktest_scale();

	for (unsigned i = 0; i < iters; i++) {
		struct race r = {.f = new_fence(dma_fence_context_alloc(1), 1), .go = 0};
		pthread_t t;

		ASSERT_EQ(pthread_create(&t, NULL, race_waiter, &r), 0);
		atomic_store(&r.go, 1);
		dma_fence_signal(r.f);
		pthread_join(t, NULL);
		EXPECT_GT(r.add_ret, 0);
		dma_fence_put(r.f);
	}
}

KTEST(dma_fence_live_count_back_to_start)
{
	long live = dma_fence_live_count();
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);

	EXPECT_EQ(dma_fence_live_count(), live + 1);
	dma_fence_get(f);
	dma_fence_put(f);
	EXPECT_EQ(dma_fence_live_count(), live + 1);
	dma_fence_put(f);
	EXPECT_EQ(dma_fence_live_count(), live);
}

/*
 * The per-thread block cache: a reused block must come back as a fresh
 * fence (no stale callbacks, error or signalled bit), the live count must
 * not count cached blocks, and only bare fences are kept. Under ASan the
 * cache is compiled out and the count stays 0; the fence checks still run.
 */
KTEST(dma_fence_cache_reuse_is_a_fresh_fence)
{
	long live = dma_fence_live_count();
	uint64_t ctx = dma_fence_context_alloc(1);
	struct counting_cb cb = {.calls = 0};
	struct dma_fence *f = new_fence(ctx, 1), *g;
	unsigned cached;

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(dma_fence_add_callback(f, &cb.base, count_cb), 0);
	EXPECT_EQ(dma_fence_set_error(f, -EIO), 0);
	dma_fence_signal(f);
	EXPECT_EQ(atomic_load(&cb.calls), 1);
	cached = dma_fence_cache_count();
	dma_fence_put(f);
	EXPECT_EQ(dma_fence_live_count(), live);
	EXPECT_UGE(dma_fence_cache_count(), cached);

	g = new_fence(ctx, 2);
	ASSERT_TRUE(g != NULL);
	EXPECT_EQ(dma_fence_live_count(), live + 1);
	EXPECT_FALSE(dma_fence_test_signaled_flag(g));
	EXPECT_EQ(dma_fence_get_status(g), 0);
	EXPECT_EQ(dma_fence_add_callback(g, &cb.base, count_cb), 0);
	EXPECT_EQ(atomic_load(&cb.calls), 1);
	dma_fence_signal(g);
	EXPECT_EQ(atomic_load(&cb.calls), 2);
	EXPECT_EQ(dma_fence_get_status(g), 1);
	dma_fence_put(g);
	EXPECT_EQ(dma_fence_live_count(), live);
}

KTEST(dma_fence_cache_bounded_and_bare_only)
{
	enum { N = 100 };
	struct dma_fence *f[N], *big;
	long live = dma_fence_live_count();
	unsigned before;

	for (unsigned i = 0; i < N; i++) {
		f[i] = new_fence(dma_fence_context_alloc(1), 1);
		ASSERT_TRUE(f[i] != NULL);
	}
	EXPECT_EQ(dma_fence_live_count(), live + N);
	for (unsigned i = 0; i < N; i++)
		dma_fence_put(f[i]);
	EXPECT_EQ(dma_fence_live_count(), live);
	EXPECT_ULE(dma_fence_cache_count(), 32u);

	/* A fence embedded in a bigger object is freed, not kept. */
	before = dma_fence_cache_count();
	big = dma_fence_alloc(4096);
	ASSERT_TRUE(big != NULL);
	dma_fence_init(big, &test_ops, dma_fence_context_alloc(1), 1);
	dma_fence_put(big);
	EXPECT_UEQ(dma_fence_cache_count(), before);
	EXPECT_EQ(dma_fence_live_count(), live);
}

struct cache_thread {
	struct dma_fence *made[8];
	unsigned cached_after;
};

static void *cache_thread_fn(void *p)
{
	struct cache_thread *ct = p;

	/* Make fences for the main thread, and fill this thread's cache. */
	for (unsigned i = 0; i < 8; i++)
		ct->made[i] = new_fence(dma_fence_context_alloc(1), 1);
	for (unsigned i = 0; i < 40; i++)
		dma_fence_put(new_fence(dma_fence_context_alloc(1), 1));
	ct->cached_after = dma_fence_cache_count();
	return NULL;
}

KTEST(dma_fence_cache_across_threads)
{
	long live = dma_fence_live_count();
	struct cache_thread ct = {.cached_after = 0};
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, cache_thread_fn, &ct), 0);
	pthread_join(t, NULL);
	EXPECT_ULE(ct.cached_after, 32u);
	/* Created there, released here: the sum stays exact. */
	EXPECT_EQ(dma_fence_live_count(), live + 8);
	for (unsigned i = 0; i < 8; i++) {
		ASSERT_TRUE(ct.made[i] != NULL);
		dma_fence_signal(ct.made[i]);
		dma_fence_put(ct.made[i]);
	}
	EXPECT_EQ(dma_fence_live_count(), live);
}

/*
 * The last put skips the locked decrement when it sees a count of 1: with
 * puts racing from several threads the fence must still be released
 * exactly once, by whichever put was last, and never while a reference is
 * held.
 */
struct put_race {
	struct dma_fence base;
	atomic_int released;
	atomic_int holders;
	atomic_int go;
	atomic_int early;
};

static void put_race_release(struct dma_fence *f)
{
	struct put_race *p = container_of(f, struct put_race, base);

	if (atomic_load(&p->holders))
		atomic_fetch_add(&p->early, 1);
	atomic_fetch_add(&p->released, 1);
}

static const struct dma_fence_ops put_race_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
    .release = put_race_release,
};

static void *put_race_thread(void *arg)
{
	struct put_race *p = arg;

	while (!atomic_load(&p->go))
		;
	atomic_fetch_sub(&p->holders, 1);
	dma_fence_put(&p->base);
	return NULL;
}

KTEST(dma_fence_put_last_reference_releases_once)
{
	enum { T = 4 };
	unsigned iters = 500 * ktest_scale();

	for (unsigned i = 0; i < iters; i++) {
		struct put_race p = {.released = 0, .holders = T + 1, .go = 0, .early = 0};
		pthread_t t[T];

		dma_fence_init(&p.base, &put_race_ops, dma_fence_context_alloc(1), 1);
		for (unsigned k = 0; k < T; k++)
			dma_fence_get(&p.base);
		for (unsigned k = 0; k < T; k++)
			ASSERT_EQ(pthread_create(&t[k], NULL, put_race_thread, &p), 0);
		atomic_store(&p.go, 1);
		atomic_fetch_sub(&p.holders, 1);
		dma_fence_put(&p.base);
		for (unsigned k = 0; k < T; k++)
			pthread_join(t[k], NULL);
		EXPECT_EQ(atomic_load(&p.released), 1);
		EXPECT_EQ(atomic_load(&p.early), 0);
	}
}

/* A waiter woken on another thread reads the timestamp the signal took. */
struct ts_wait {
	struct dma_fence *f;
	atomic_int waiting;
	int64_t waited, ts;
	int ts_ret;
};

static void *ts_waiter(void *arg)
{
	struct ts_wait *w = arg;

	atomic_store(&w->waiting, 1);
	w->waited = dma_fence_wait_timeout(w->f, false, 10000000000ll);
	w->ts_ret = dma_fence_get_timestamp(w->f, &w->ts);
	return NULL;
}

KTEST(dma_fence_get_timestamp_seen_by_woken_waiter)
{
	struct ts_wait w = {.f = new_fence(dma_fence_context_alloc(1), 1), .waiting = 0};
	int64_t before, after;
	pthread_t t;

	ASSERT_NOT_NULL(w.f);
	ASSERT_EQ(pthread_create(&t, NULL, ts_waiter, &w), 0);
	while (!atomic_load(&w.waiting))
		usleep(100);
	usleep(1000);
	before = dma_fence_now_ns();
	EXPECT_EQ(dma_fence_signal(w.f), 0);
	after = dma_fence_now_ns();
	pthread_join(t, NULL);
	EXPECT_GT(w.waited, 0);
	EXPECT_EQ(w.ts_ret, 0);
	EXPECT_GE(w.ts, before);
	EXPECT_LE(w.ts, after);
	dma_fence_put(w.f);
}

/*
 * Every waiter after the first finds WAITERS already set and sleeps without
 * an RMW of its own: the one signal must still wake them all.
 */
struct many_wait {
	struct dma_fence *f;
	atomic_int entered;
	atomic_int woken;
};

static void *many_waiter(void *arg)
{
	struct many_wait *m = arg;

	atomic_fetch_add(&m->entered, 1);
	if (dma_fence_wait_timeout(m->f, false, 10000000000ll) > 0)
		atomic_fetch_add(&m->woken, 1);
	return NULL;
}

KTEST(dma_fence_wait_many_waiters_all_woken)
{
	enum { W = 16 };
	struct many_wait m = {.f = new_fence(dma_fence_context_alloc(1), 1), .entered = 0};
	pthread_t t[W];

	ASSERT_NOT_NULL(m.f);
	atomic_init(&m.woken, 0);
	for (unsigned i = 0; i < W; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, many_waiter, &m), 0);
	while (atomic_load(&m.entered) < W)
		usleep(100);
	usleep(2000);
	EXPECT_EQ(dma_fence_signal(m.f), 0);
	for (unsigned i = 0; i < W; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(atomic_load(&m.woken), W);
	dma_fence_put(m.f);
}

/* A callback sees its own fence signalled, with its timestamp. */
struct self_check_cb {
	struct dma_fence_cb base;
	int status;
	int ts_ret;
	int add_ret;
	struct dma_fence_cb inner;
};

static void self_check_func(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct self_check_cb *s = container_of(cb, struct self_check_cb, base);
	int64_t ts;

	s->status = dma_fence_get_status(f);
	s->ts_ret = dma_fence_get_timestamp(f, &ts);
	s->add_ret = dma_fence_add_callback(f, &s->inner, count_cb);
}

KTEST(dma_fence_signal_callback_sees_own_fence_signaled)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	struct self_check_cb s = {.status = -1};

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(dma_fence_add_callback(f, &s.base, self_check_func), 0);
	EXPECT_EQ(dma_fence_signal(f), 0);
	EXPECT_EQ(s.status, 1);
	EXPECT_EQ(s.ts_ret, 0);
	EXPECT_EQ(s.add_ret, -ENOENT);
	EXPECT_EQ(dma_fence_signal(f), -EINVAL);
	dma_fence_put(f);
}

/* A class with its own wait: dma_fence_wait_timeout() must call it. */
static atomic_int custom_wait_calls;

static int64_t custom_wait(struct dma_fence *f, bool intr, int64_t timeout)
{
	(void)intr;
	atomic_fetch_add(&custom_wait_calls, 1);
	/* This class's hardware is done once it is asked. */
	dma_fence_signal(f);
	return timeout == MAX_SCHEDULE_TIMEOUT ? timeout : timeout / 2 + 1;
}

static const struct dma_fence_ops custom_wait_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
    .wait = custom_wait,
};

KTEST(dma_fence_wait_timeout_uses_ops_wait)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	ASSERT_NOT_NULL(f);
	dma_fence_init(f, &custom_wait_ops, dma_fence_context_alloc(1), 1);
	atomic_store(&custom_wait_calls, 0);
	EXPECT_EQ(dma_fence_wait_timeout(f, true, 1000), 501);
	EXPECT_EQ(atomic_load(&custom_wait_calls), 1);
	EXPECT_TRUE(dma_fence_is_signaled(f));
	/* Signalled: the fast path answers, the class is not asked again. */
	EXPECT_GT(dma_fence_wait_timeout(f, false, 1000000), 0);
	EXPECT_EQ(atomic_load(&custom_wait_calls), 1);
	dma_fence_put(f);

	/* The default wait stays callable by a class that wraps it. */
	f = new_fence(dma_fence_context_alloc(1), 1);
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(dma_fence_default_wait(f, false, 0), 0);
	dma_fence_signal(f);
	EXPECT_GT(dma_fence_default_wait(f, false, 1000), 0);
	dma_fence_put(f);
}

/*
 * race_signal_callback, as the kernel's dma-fence selftest: one thread
 * signals a fence that carries a sibling callback, another learns that the
 * fence signalled through a wait or through dma_fence_add_callback()
 * returning -ENOENT, and must then find the sibling's side effect done
 * (the kernel runs the list under the fence lock those calls take). The
 * side effect is a plain int: under ThreadSanitizer a missing
 * happens-before is a report even when the value happens to be right.
 */
enum observe_mode {
	OBSERVE_WAIT,
	OBSERVE_POLL,
	OBSERVE_ADD_CALLBACK,
	OBSERVE_WAIT_ANY,
	OBSERVE_MODES,
};

/*
 * @running: set when the list runs; @arrived: set by an observer that
 * waits for @running, just before it looks at the fence. The callback holds
 * the list open until then (at most 2 ms), and @spin iterations more, so
 * that the observer's call overlaps the list.
 */
struct sibling_cb {
	struct dma_fence_cb base;
	unsigned spin;
	atomic_int running;
	atomic_int arrived;
	int effect;
};

static void sibling_func(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct sibling_cb *s = container_of(cb, struct sibling_cb, base);
	int64_t until = dma_fence_now_ns() + 2000000;

	(void)f;
	atomic_store(&s->running, 1);
	while (!atomic_load(&s->arrived) && dma_fence_now_ns() < until)
		;
	for (volatile unsigned i = 0; i < s->spin; i++)
		;
	s->effect = 1;
}

struct signaller {
	struct dma_fence *f;
	atomic_int started;
};

static void *signaller_thread(void *arg)
{
	struct signaller *s = arg;

	atomic_store(&s->started, 1);
	dma_fence_signal(s->f);
	return NULL;
}

/*
 * One round: returns the sibling's effect as the observer found it. With
 * @during the observer arrives while the list runs, else at any time.
 */
static int observe_round(enum observe_mode mode, bool during, unsigned spin)
{
	struct sibling_cb sib = {.spin = spin, .running = 0, .arrived = 0, .effect = 0};
	struct signaller s = {.f = new_fence(dma_fence_context_alloc(1), 1), .started = 0};
	struct counting_cb late = {.calls = 0};
	struct dma_fence *one[1];
	pthread_t t;
	bool failed = false;
	int seen;

	if (!s.f)
		return -1;
	if (dma_fence_add_callback(s.f, &sib.base, sibling_func) ||
	    pthread_create(&t, NULL, signaller_thread, &s)) {
		dma_fence_signal(s.f);
		dma_fence_put(s.f);
		return -1;
	}
	while (!atomic_load(&s.started))
		sched_yield();
	if (during)
		while (!atomic_load(&sib.running))
			;
	atomic_store(&sib.arrived, 1);
	switch (mode) {
	case OBSERVE_WAIT:
		failed = dma_fence_wait(s.f, false) != 0;
		break;
	case OBSERVE_POLL:
		while (dma_fence_wait_timeout(s.f, false, 0) == 0)
			sched_yield();
		break;
	case OBSERVE_ADD_CALLBACK:
		while (!dma_fence_add_callback(s.f, &late.base, count_cb)) {
			dma_fence_remove_callback(s.f, &late.base);
			sched_yield();
		}
		break;
	default:
		one[0] = s.f;
		failed = dma_fence_wait_any_timeout(one, 1, false, MAX_SCHEDULE_TIMEOUT, NULL) <= 0;
		break;
	}
	seen = failed ? -1 : sib.effect;
	pthread_join(t, NULL);
	dma_fence_put(s.f);
	return seen;
}

static const char *const observe_names[OBSERVE_MODES] = {
    [OBSERVE_WAIT] = "wait",
    [OBSERVE_POLL] = "poll",
    [OBSERVE_ADD_CALLBACK] = "add_callback_enoent",
    [OBSERVE_WAIT_ANY] = "wait_any",
};

static const enum observe_mode observe_modes[] = {
    OBSERVE_WAIT,
    OBSERVE_POLL,
    OBSERVE_ADD_CALLBACK,
    OBSERVE_WAIT_ANY,
};

static void observe_desc(const enum observe_mode *m, char *desc)
{
	snprintf(desc, KTEST_PARAM_DESC_SIZE, "%s", observe_names[*m]);
}

KTEST_ARRAY_PARAM(observe, observe_modes, observe_desc);

KTEST_PARAM(dma_fence_race_signal_callback_observer_sees_callbacks_done, observe_gen_params)
{
	const enum observe_mode *mode = ktest_param();
	unsigned rounds = 100 * ktest_scale(), missed = 0;

	for (unsigned i = 0; i < rounds; i++) {
		unsigned spin = (unsigned)(ktest_rand() % 4000);
		int seen = observe_round(*mode, ktest_rand() & 1, spin);

		ASSERT_GE(seen, 0);
		missed += seen == 0;
	}
	EXPECT_EQ(missed, 0u);
}

/*
 * Inside a fence's callback the fence is signalled for its own signaller:
 * waiting on it or adding to it answers at once, no self-deadlock.
 */
struct self_wait_cb {
	struct dma_fence_cb base;
	struct dma_fence_cb inner;
	int64_t wait_ret;
	int add_ret;
};

static void self_wait_func(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct self_wait_cb *s = container_of(cb, struct self_wait_cb, base);

	s->wait_ret = dma_fence_wait_timeout(f, false, MAX_SCHEDULE_TIMEOUT);
	s->add_ret = dma_fence_add_callback(f, &s->inner, count_cb);
}

KTEST(dma_fence_callback_waits_on_own_fence_without_deadlock)
{
	struct dma_fence *f = new_fence(dma_fence_context_alloc(1), 1);
	struct self_wait_cb s = {.wait_ret = 0};

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(dma_fence_add_callback(f, &s.base, self_wait_func), 0);
	EXPECT_EQ(dma_fence_signal(f), 0);
	EXPECT_GT(s.wait_ret, 0);
	EXPECT_EQ(s.add_ret, -ENOENT);
	EXPECT_TRUE(dma_fence_test_callbacks_done(f));
	dma_fence_put(f);
}

/*
 * Two signallers whose callbacks each arm a callback on the other's fence
 * (as chains re-arming across timelines do): neither may wait for the
 * other's list while running its own.
 */
struct cross_cb {
	struct dma_fence_cb base;
	struct dma_fence_cb inner;
	struct dma_fence *other;
	int add_ret;
};

static void cross_func(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct cross_cb *c = container_of(cb, struct cross_cb, base);

	(void)f;
	c->add_ret = dma_fence_add_callback(c->other, &c->inner, count_cb);
}

struct cross_signal {
	struct dma_fence *f;
	atomic_int *go;
};

static void *cross_signal_thread(void *arg)
{
	struct cross_signal *cs = arg;

	while (!atomic_load(cs->go))
		;
	dma_fence_signal(cs->f);
	return NULL;
}

KTEST(dma_fence_callbacks_cross_signalling_threads_no_deadlock)
{
	unsigned rounds = 200 * ktest_scale();

	for (unsigned i = 0; i < rounds; i++) {
		struct dma_fence *a = new_fence(dma_fence_context_alloc(1), 1);
		struct dma_fence *b = new_fence(dma_fence_context_alloc(1), 1);
		struct cross_cb ca = {.other = b}, cb = {.other = a};
		atomic_int go = 0;
		struct cross_signal sa = {.f = a, .go = &go}, sb = {.f = b, .go = &go};
		pthread_t ta, tb;

		ASSERT_NOT_NULL(a);
		ASSERT_NOT_NULL(b);
		ASSERT_EQ(dma_fence_add_callback(a, &ca.base, cross_func), 0);
		ASSERT_EQ(dma_fence_add_callback(b, &cb.base, cross_func), 0);
		ASSERT_EQ(pthread_create(&ta, NULL, cross_signal_thread, &sa), 0);
		ASSERT_EQ(pthread_create(&tb, NULL, cross_signal_thread, &sb), 0);
		atomic_store(&go, 1);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		/* Each inner add either queued (and then ran) or found the other signalled. */
		EXPECT_TRUE(ca.add_ret == 0 || ca.add_ret == -ENOENT);
		EXPECT_TRUE(cb.add_ret == 0 || cb.add_ret == -ENOENT);
		EXPECT_TRUE(dma_fence_test_callbacks_done(a));
		EXPECT_TRUE(dma_fence_test_callbacks_done(b));
		dma_fence_put(a);
		dma_fence_put(b);
	}
}
