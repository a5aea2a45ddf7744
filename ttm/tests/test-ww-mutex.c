// SPDX-License-Identifier: MIT
#include <ttm/ww_lockdep.h>
#include <ttm/ww_mutex.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <testlib/prng.h>

static DEFINE_WD_CLASS(wd_class);
static DEFINE_WW_CLASS(ww_class);

KTEST(ww_mutex_lock_aa_returns_ealready)
{
	struct ww_mutex m;
	struct ww_acquire_ctx ctx;

	ww_mutex_init(&m, &wd_class);
	ww_acquire_init(&ctx, &wd_class);
	EXPECT_EQ(ww_mutex_lock(&m, &ctx), 0);
	EXPECT_EQ(ww_mutex_lock(&m, &ctx), -EALREADY);
	EXPECT_TRUE(ww_mutex_owner_ctx(&m) == &ctx);
	EXPECT_EQ(ctx.acquired, 1);
	ww_mutex_unlock(&m);
	EXPECT_FALSE(ww_mutex_is_locked(&m));
	ww_acquire_fini(&ctx);
	ww_mutex_destroy(&m);
}

KTEST(ww_mutex_trylock_contended_fails)
{
	struct ww_mutex m;

	ww_mutex_init(&m, &wd_class);
	EXPECT_TRUE(ww_mutex_trylock(&m, NULL));
	EXPECT_FALSE(ww_mutex_trylock(&m, NULL));
	ww_mutex_unlock(&m);
	EXPECT_TRUE(ww_mutex_trylock(&m, NULL));
	ww_mutex_unlock(&m);
	ww_mutex_destroy(&m);
}

KTEST(ww_mutex_lock_class_mismatch_einval)
{
	struct ww_mutex m;
	struct ww_acquire_ctx ctx;

	ww_mutex_init(&m, &wd_class);
	ww_acquire_init(&ctx, &ww_class);
	EXPECT_EQ(ww_mutex_lock(&m, &ctx), -EINVAL);
	ww_acquire_done(&ctx);
	ww_acquire_fini(&ctx);
	ww_acquire_init(&ctx, &wd_class);
	ww_acquire_done(&ctx);
	EXPECT_EQ(ww_mutex_lock(&m, &ctx), -EINVAL);
	ww_acquire_fini(&ctx);
	ww_mutex_destroy(&m);
}

/* ABBA without threads: the younger ticket holding a lock must back off. */
static void abba_same_thread(struct ww_class *cls)
{
	struct ww_mutex a, b;
	struct ww_acquire_ctx old_ctx, young_ctx;

	ww_mutex_init(&a, cls);
	ww_mutex_init(&b, cls);
	ww_acquire_init(&old_ctx, cls);
	ww_acquire_init(&young_ctx, cls);
	EXPECT_EQ(ww_mutex_lock(&a, &old_ctx), 0);
	/* One thread plays both transactions: the checker would take it for one. */
	ww_lockdep_nest_ok(&b);
	EXPECT_EQ(ww_mutex_lock(&b, &young_ctx), 0);
	if (cls->is_wait_die) {
		/* The younger, holding b, asks for a held by the older: dies. */
		EXPECT_EQ(ww_mutex_lock(&a, &young_ctx), -EDEADLK);
	} else {
		/* The older wants b: it wounds the younger (trylock path to not block). */
		EXPECT_FALSE(ww_mutex_trylock(&b, &old_ctx));
		atomic_store(&young_ctx.wounded, true);
		EXPECT_EQ(ww_mutex_lock(&a, &young_ctx), -EDEADLK);
	}
	ww_mutex_unlock(&b);
	EXPECT_EQ(young_ctx.acquired, 0);
	ww_mutex_unlock(&a);
	ww_acquire_fini(&old_ctx);
	ww_acquire_fini(&young_ctx);
	ww_mutex_destroy(&a);
	ww_mutex_destroy(&b);
}

KTEST(ww_mutex_lock_abba_wait_die_edeadlk)
{
	abba_same_thread(&wd_class);
}

KTEST(ww_mutex_lock_abba_wound_wait_edeadlk)
{
	abba_same_thread(&ww_class);
}

KTEST(ww_mutex_lock_edeadlk_only_when_holding)
{
	struct ww_mutex a;
	struct ww_acquire_ctx old_ctx, young_ctx;

	ww_mutex_init(&a, &wd_class);
	ww_acquire_init(&old_ctx, &wd_class);
	ww_acquire_init(&young_ctx, &wd_class);
	EXPECT_EQ(ww_mutex_lock(&a, &old_ctx), 0);
	/* Holding nothing, the younger would wait rather than die. */
	EXPECT_FALSE(ww_mutex_trylock(&a, &young_ctx));
	ww_mutex_unlock(&a);
	EXPECT_EQ(ww_mutex_lock(&a, &young_ctx), 0);
	ww_mutex_unlock(&a);
	ww_acquire_fini(&old_ctx);
	ww_acquire_fini(&young_ctx);
	ww_mutex_destroy(&a);
}

/* Threaded transactions over a lock set, with full back-off/slow-path handling. */
struct txn_arg {
	struct ww_mutex *locks;
	unsigned nlocks;
	struct ww_class *cls;
	unsigned iters;
	unsigned seed;
	unsigned order_mode; /* 0 random, 1 ascending from start, 2 descending */
	unsigned start;
	atomic_int *shared; /* protected by every lock in its txn */
	unsigned deadlocks;
	int errors;
};

static int run_txn(struct txn_arg *a, const unsigned *idx, unsigned n)
{
	struct ww_acquire_ctx ctx;
	struct ww_mutex *contended = NULL;
	bool held[64] = {false};
	int ret;

	ww_acquire_init(&ctx, a->cls);
retry:
	for (unsigned i = 0; i < n; i++) {
		struct ww_mutex *m = &a->locks[idx[i]];

		if (m == contended) {
			contended = NULL;
			continue;
		}
		ret = ww_mutex_lock(m, &ctx);
		if (ret == -EALREADY)
			continue;
		if (ret == -EDEADLK) {
			a->deadlocks++;
			for (unsigned j = 0; j < n; j++) {
				if (held[j]) {
					ww_mutex_unlock(&a->locks[idx[j]]);
					held[j] = false;
				}
			}
			if (ctx.acquired) {
				a->errors++;
				return -1;
			}
			ww_mutex_lock_slow(m, &ctx);
			contended = m;
			held[i] = true;
			goto retry;
		}
		if (ret) {
			a->errors++;
			return ret;
		}
		held[i] = true;
	}
	ww_acquire_done(&ctx);
	/* Critical section over every held lock. */
	for (unsigned i = 0; i < n; i++)
		atomic_fetch_add(&a->shared[idx[i]], 1);
	for (unsigned i = 0; i < n; i++)
		if (held[i])
			ww_mutex_unlock(&a->locks[idx[i]]);
	ww_acquire_fini(&ctx);
	return 0;
}

static void *txn_thread(void *p)
{
	struct txn_arg *a = p;
	uint64_t s = a->seed;

	for (unsigned it = 0; it < a->iters; it++) {
		unsigned idx[8], n = 2 + (unsigned)prng_step(&s) % 4;

		for (unsigned i = 0; i < n; i++) {
			uint64_t r = prng_step(&s);

			if (a->order_mode == 0)
				idx[i] = (unsigned)(r % a->nlocks);
			else if (a->order_mode == 1)
				idx[i] = (a->start + i) % a->nlocks;
			else
				idx[i] = (a->start + a->nlocks - i) % a->nlocks;
		}
		/* Duplicates are allowed: -EALREADY is part of the contract. */
		if (run_txn(a, idx, n))
			break;
	}
	return NULL;
}

static void run_threads(struct ww_class *cls, unsigned nthreads, unsigned nlocks, unsigned iters,
			unsigned mode, unsigned *deadlocks)
{
	struct ww_mutex *locks = calloc(nlocks, sizeof(*locks));
	atomic_int *shared = calloc(nlocks, sizeof(*shared));
	struct txn_arg args[8];
	pthread_t t[8];

	*deadlocks = 0;
	for (unsigned i = 0; i < nlocks; i++)
		ww_mutex_init(&locks[i], cls);
	for (unsigned i = 0; i < nthreads; i++) {
		args[i] = (struct txn_arg){.locks = locks,
					   .nlocks = nlocks,
					   .cls = cls,
					   .iters = iters,
					   .seed = (unsigned)ktest_rand() | 1,
					   .order_mode = mode,
					   .start = i * (nlocks / nthreads),
					   .shared = shared};
		pthread_create(&t[i], NULL, txn_thread, &args[i]);
	}
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(args[i].errors, 0);
		*deadlocks += args[i].deadlocks;
	}
	for (unsigned i = 0; i < nlocks; i++) {
		EXPECT_FALSE(ww_mutex_is_locked(&locks[i]));
		ww_mutex_destroy(&locks[i]);
	}
	free(locks);
	free(shared);
}

KTEST(ww_mutex_lock_abba_threads_resolve_wait_die)
{
	unsigned d;

	/* Two threads taking two locks in opposite orders. */
	run_threads(&wd_class, 2, 2, 3000 * ktest_scale(), 2, &d);
}

KTEST(ww_mutex_lock_abba_threads_resolve_wound_wait)
{
	unsigned d;

	run_threads(&ww_class, 2, 2, 3000 * ktest_scale(), 2, &d);
}

KTEST(ww_mutex_lock_cycle_n_threads)
{
	unsigned d;

	/* Each thread takes a window starting at its own lock: a ring of waits. */
	run_threads(&wd_class, 4, 4, 1000 * ktest_scale(), 1, &d);
	run_threads(&ww_class, 4, 4, 1000 * ktest_scale(), 1, &d);
}

KTEST(ww_mutex_lock_random_order_stress)
{
	unsigned d1, d2;

	run_threads(&wd_class, 4, 16, 2000 * ktest_scale(), 0, &d1);
	run_threads(&ww_class, 4, 16, 2000 * ktest_scale(), 0, &d2);
}

struct slow_arg {
	struct ww_mutex *m;
	atomic_int locked;
};

static void *hold_then_release(void *p)
{
	struct slow_arg *a = p;

	ww_mutex_lock(a->m, NULL);
	atomic_store(&a->locked, 1);
	usleep(3000);
	ww_mutex_unlock(a->m);
	return NULL;
}

KTEST(ww_mutex_lock_slow_waits_for_release)
{
	struct ww_mutex m;
	struct ww_acquire_ctx ctx;
	struct slow_arg a = {.m = &m, .locked = 0};
	pthread_t t;

	ww_mutex_init(&m, &wd_class);
	ASSERT_EQ(pthread_create(&t, NULL, hold_then_release, &a), 0);
	while (!atomic_load(&a.locked))
		usleep(100);
	ww_acquire_init(&ctx, &wd_class);
	ww_mutex_lock_slow(&m, &ctx);
	EXPECT_TRUE(ww_mutex_owner_ctx(&m) == &ctx);
	ww_mutex_unlock(&m);
	pthread_join(t, NULL);
	ww_acquire_fini(&ctx);
	ww_mutex_destroy(&m);
}
