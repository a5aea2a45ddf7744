// SPDX-License-Identifier: MIT
/*
 * ttm_fence_storm - races on dma_fence, dma_fence_chain and dma_resv.
 *
 * Every subtest runs rounds of signallers against waiters (or callback
 * adders/removers, chain builders, reservation users) until the stress
 * budget or an iteration cap runs out, then checks what must hold whatever
 * the interleaving: each fence signals exactly once, every wait returns
 * before its (generous) timeout, each callback is delivered exactly once
 * unless it was refused or removed, and no fence outlives its round
 * (dma_fence_live_count() is back where it started).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <ttm/dma_fence.h>
#include <ttm/dma_fence_chain.h>
#include <ttm/dma_resv.h>
#include <ttm/ww_mutex.h>

#include "igt.h"
#include "stress_fence.h"
#include "stress_util.h"

/*
 * A wait that is only ever satisfied by a running signaller must never get
 * near this; it is long so that a slow sanitizer build on a loaded machine
 * is not mistaken for a lost wake-up.
 */
#define STORM_WAIT_NS (10ll * 1000 * 1000 * 1000)

/* ---- helpers ------------------------------------------------------------ */

static void storm_shuffle(unsigned *idx, unsigned n, uint64_t *rng)
{
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(prng_step(rng) % i);
		unsigned t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

/*
 * The loop bound every subtest shares: the stress budget, and an iteration
 * cap so the default run stays far below it on a quick machine.
 */
struct storm_clock {
	double deadline;
};

static void storm_clock_start(struct storm_clock *clk)
{
	clk->deadline = testlib_now_s() + igt_stress_budget_s();
}

static bool storm_clock_expired(const struct storm_clock *clk)
{
	return testlib_now_s() >= clk->deadline;
}

/* "Interrupt-like" jitter: a signaller sometimes yields so waiters get to sleep. */
static void storm_jitter(uint64_t *rng)
{
	if ((prng_step(rng) & 7) == 0)
		sched_yield();
}

static void storm_start_threads(pthread_t *tids, unsigned n, void *(*fn)(void *), void *args,
				size_t arg_size)
{
	for (unsigned i = 0; i < n; i++)
		igt_assert_eq(pthread_create(&tids[i], NULL, fn, (char *)args + i * arg_size), 0);
}

static void storm_join_threads(pthread_t *tids, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		igt_assert_eq(pthread_join(tids[i], NULL), 0);
}

/*
 * The end every subtest shares: account the operations, then prove that
 * every fence of the subtest has been freed.
 */
static void storm_finish(uint64_t ops, long live0)
{
	igt_report_checks(ops, 0, 0);
	igt_assert_eq(dma_fence_live_count(), live0);
}

/**
 * struct storm_count_cb - a fence callback that counts its runs.
 * @cb: passed to dma_fence_add_callback() with storm_count().
 * @runs: deliveries so far.
 */
struct storm_count_cb {
	struct dma_fence_cb cb;
	atomic_uint runs;
};

static void storm_count(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct storm_count_cb *c = container_of(cb, struct storm_count_cb, cb);

	(void)fence;
	atomic_fetch_add(&c->runs, 1);
}

/* ---- rounds: a main thread and a crew of workers in lock step ---------- */

/**
 * struct storm_gate - the two barriers that make a round.
 * @start: the main thread and every worker meet here before a round (or
 *	before stopping, when @stop is set).
 * @done: and here once every worker has finished the round; the main thread
 *	checks the round's outcome only after it.
 * @stop: set by the main thread before its last wait on @start.
 */
struct storm_gate {
	pthread_barrier_t start, done;
	atomic_bool stop;
};

/**
 * struct storm_thread - a crew member.
 * @round: the subtest's round object, shared by the crew.
 * @gate: the crew's gate.
 * @work: the member's part of one round, run between the two barriers.
 * @rng: the member's own PRNG state.
 * @index: the member's place in the crew (0 first).
 */
struct storm_thread {
	void *round;
	struct storm_gate *gate;
	void (*work)(struct storm_thread *t);
	uint64_t rng;
	unsigned index;
};

static void *storm_crew_member(void *arg)
{
	struct storm_thread *t = arg;

	for (;;) {
		pthread_barrier_wait(&t->gate->start);
		if (atomic_load(&t->gate->stop))
			return NULL;
		t->work(t);
		pthread_barrier_wait(&t->gate->done);
	}
}

#define STORM_CREW_MAX 8

/**
 * struct storm_crew - workers of two kinds running rounds in lock step with
 * the main thread.
 * @gate: the rounds' gate.
 * @th: the members, those of the first kind first.
 * @tids: their threads.
 * @n: how many.
 */
struct storm_crew {
	struct storm_gate gate;
	struct storm_thread th[STORM_CREW_MAX];
	pthread_t tids[STORM_CREW_MAX];
	unsigned n;
};

/*
 * Start @na members doing @wa then @nb doing @wb each round, over @round;
 * member i is seeded with igt_seed() * @seed_mul + i so that each subtest
 * replays from --seed.
 */
static void storm_crew_start(struct storm_crew *c, void *round, uint64_t seed_mul,
			     void (*wa)(struct storm_thread *), unsigned na,
			     void (*wb)(struct storm_thread *), unsigned nb)
{
	igt_assert(na + nb <= STORM_CREW_MAX);
	c->n = na + nb;
	atomic_init(&c->gate.stop, false);
	pthread_barrier_init(&c->gate.start, NULL, c->n + 1);
	pthread_barrier_init(&c->gate.done, NULL, c->n + 1);
	for (unsigned i = 0; i < c->n; i++)
		c->th[i] = (struct storm_thread){.round = round,
						 .gate = &c->gate,
						 .work = i < na ? wa : wb,
						 .rng = igt_seed() * seed_mul + i,
						 .index = i};
	storm_start_threads(c->tids, c->n, storm_crew_member, c->th, sizeof(c->th[0]));
}

/* Main side: let the crew into a round; the round's work may follow. */
static void storm_crew_open(struct storm_crew *c)
{
	pthread_barrier_wait(&c->gate.start);
}

/* Main side: wait until every member has finished the round. */
static void storm_crew_close(struct storm_crew *c)
{
	pthread_barrier_wait(&c->gate.done);
}

/* Tell the crew to stop, join it and destroy the gate's barriers. */
static void storm_crew_stop(struct storm_crew *c)
{
	atomic_store(&c->gate.stop, true);
	pthread_barrier_wait(&c->gate.start);
	storm_join_threads(c->tids, c->n);
	pthread_barrier_destroy(&c->gate.start);
	pthread_barrier_destroy(&c->gate.done);
}

/* ---- signal-vs-wait ---------------------------------------------------- */

#define SVW_FENCES 512
#define SVW_SIGNALLERS 2
#define SVW_WAITERS 2
#define SVW_MAX_ROUNDS 200

/**
 * struct svw_slot - one fence of a signal-vs-wait round.
 * @delivered: the fence's callback, counting its runs; must end at one.
 * @fence: the fence, one reference held by the round.
 * @won: dma_fence_signal() calls that returned 0; must end at exactly one.
 */
struct svw_slot {
	struct storm_count_cb delivered;
	struct dma_fence *fence;
	atomic_uint won;
};

struct svw_round {
	struct svw_slot slot[SVW_FENCES];
	/*
	 * The round's signalling order, shared by the signallers so that
	 * they race for each fence, and followed by the first waiter so that
	 * it chases them and sleeps on fences about to be signalled.
	 */
	unsigned order[SVW_FENCES];
	atomic_ulong timeouts, lost_races, waits, bad_returns;
	/* Waits that found the fence pending, i.e. really raced a signaller. */
	atomic_ulong pending_waits;
};

static void svw_signal(struct storm_thread *t)
{
	struct svw_round *r = t->round;

	/* Every signaller tries every fence: only one may win each. */
	for (unsigned i = 0; i < SVW_FENCES; i++) {
		struct svw_slot *s = &r->slot[r->order[i]];
		int ret = dma_fence_signal(s->fence);

		if (ret == 0)
			atomic_fetch_add(&s->won, 1);
		else if (ret == -EINVAL)
			atomic_fetch_add(&r->lost_races, 1);
		else
			atomic_fetch_add(&r->bad_returns, 1);
		storm_jitter(&t->rng);
	}
}

static void svw_wait(struct storm_thread *t)
{
	struct svw_round *r = t->round;
	unsigned order[SVW_FENCES];

	if (t->index % 2)
		storm_shuffle(order, SVW_FENCES, &t->rng);
	else
		memcpy(order, r->order, sizeof(order));
	for (unsigned i = 0; i < SVW_FENCES; i++) {
		struct dma_fence *f = r->slot[order[i]].fence;
		int64_t left;

		if (!dma_fence_test_signaled_flag(f))
			atomic_fetch_add(&r->pending_waits, 1);
		left = dma_fence_wait_timeout(f, false, STORM_WAIT_NS);
		if (left == 0)
			atomic_fetch_add(&r->timeouts, 1);
		else if (left < 0)
			atomic_fetch_add(&r->bad_returns, 1);
		atomic_fetch_add(&r->waits, 1);
	}
}

static void subtest_signal_vs_wait(void)
{
	long live0 = dma_fence_live_count();
	struct svw_round *r = calloc(1, sizeof(*r));
	struct storm_crew crew;
	struct storm_clock clk;
	uint64_t ops = 0, rng = igt_seed();
	unsigned rounds = 0;

	igt_assert(r);
	storm_crew_start(&crew, r, 31, svw_signal, SVW_SIGNALLERS, svw_wait, SVW_WAITERS);

	storm_clock_start(&clk);
	do {
		uint64_t ctx = dma_fence_context_alloc(1);

		for (unsigned i = 0; i < SVW_FENCES; i++) {
			struct svw_slot *s = &r->slot[i];

			s->fence = stress_fence_create(ctx, i + 1);
			igt_assert(s->fence);
			atomic_store(&s->delivered.runs, 0);
			atomic_store(&s->won, 0);
			igt_assert_eq(
			    dma_fence_add_callback(s->fence, &s->delivered.cb, storm_count), 0);
		}
		storm_shuffle(r->order, SVW_FENCES, &rng);
		storm_crew_open(&crew);
		storm_crew_close(&crew);
		for (unsigned i = 0; i < SVW_FENCES; i++) {
			struct svw_slot *s = &r->slot[i];

			igt_assert_eq(atomic_load(&s->won), 1);
			igt_assert_eq(atomic_load(&s->delivered.runs), 1);
			igt_assert(dma_fence_test_signaled_flag(s->fence));
			/* A late signal is refused and delivers nothing. */
			igt_assert_eq(dma_fence_signal(s->fence), -EINVAL);
			igt_assert_eq(atomic_load(&s->delivered.runs), 1);
			dma_fence_put(s->fence);
		}
		ops += SVW_FENCES * SVW_SIGNALLERS;
		rounds++;
	} while (rounds < stress_cap(SVW_MAX_ROUNDS) && !storm_clock_expired(&clk));
	storm_crew_stop(&crew);

	ops += atomic_load(&r->waits);
	igt_info("signal-vs-wait: %u rounds, %lu waits (%lu on a pending fence), "
		 "%lu lost signal races\n",
		 rounds, atomic_load(&r->waits), atomic_load(&r->pending_waits),
		 atomic_load(&r->lost_races));
	igt_assert_eq_u64(atomic_load(&r->timeouts), 0);
	igt_assert_eq_u64(atomic_load(&r->bad_returns), 0);
	igt_assert_eq_u64(atomic_load(&r->lost_races),
			  (uint64_t)rounds * SVW_FENCES * (SVW_SIGNALLERS - 1));
	free(r);
	storm_finish(ops, live0);
}

/* ---- signal-vs-callback ------------------------------------------------ */

#define SVC_FENCES 256
#define SVC_ADDERS 3
#define SVC_MAX_ROUNDS 200

/**
 * struct svc_cb - one adder's callback on one fence.
 * @cb: the callback.
 * @count: the callback, counting its deliveries.
 * @add_ret: what dma_fence_add_callback() returned.
 * @removed: dma_fence_remove_callback() returned true.
 */
struct svc_cb {
	struct storm_count_cb count;
	int add_ret;
	bool removed;
};

struct svc_round {
	struct dma_fence *fence[SVC_FENCES];
	struct svc_cb cbs[SVC_ADDERS][SVC_FENCES];
};

static void svc_signal(struct storm_thread *t)
{
	struct svc_round *r = t->round;
	unsigned order[SVC_FENCES];

	storm_shuffle(order, SVC_FENCES, &t->rng);
	for (unsigned i = 0; i < SVC_FENCES; i++) {
		igt_assert_eq(dma_fence_signal(r->fence[order[i]]), 0);
		storm_jitter(&t->rng);
	}
}

static void svc_add(struct storm_thread *t)
{
	struct svc_round *r = t->round;
	unsigned order[SVC_FENCES];

	storm_shuffle(order, SVC_FENCES, &t->rng);
	for (unsigned i = 0; i < SVC_FENCES; i++) {
		struct svc_cb *c = &r->cbs[t->index][order[i]];
		struct dma_fence *f = r->fence[order[i]];

		c->add_ret = dma_fence_add_callback(f, &c->count.cb, storm_count);
		/* Remove about half, at once or after a yield. */
		if (prng_step(&t->rng) & 1) {
			if (prng_step(&t->rng) & 1)
				sched_yield();
			c->removed = dma_fence_remove_callback(f, &c->count.cb);
		}
	}
}

static void subtest_signal_vs_callback(void)
{
	long live0 = dma_fence_live_count();
	struct svc_round *r = calloc(1, sizeof(*r));
	struct storm_crew crew;
	struct storm_clock clk;
	uint64_t ops = 0, refused = 0, removed = 0, delivered = 0;
	unsigned rounds = 0;

	igt_assert(r);
	/* The adders first: their crew index is their row of @cbs. */
	storm_crew_start(&crew, r, 37, svc_add, SVC_ADDERS, svc_signal, 1);

	storm_clock_start(&clk);
	do {
		uint64_t ctx = dma_fence_context_alloc(1);

		for (unsigned i = 0; i < SVC_FENCES; i++) {
			r->fence[i] = stress_fence_create(ctx, i + 1);
			igt_assert(r->fence[i]);
			for (unsigned a = 0; a < SVC_ADDERS; a++) {
				atomic_store(&r->cbs[a][i].count.runs, 0);
				r->cbs[a][i].add_ret = 1;
				r->cbs[a][i].removed = false;
			}
		}
		storm_crew_open(&crew);
		storm_crew_close(&crew);
		for (unsigned i = 0; i < SVC_FENCES; i++) {
			for (unsigned a = 0; a < SVC_ADDERS; a++) {
				struct svc_cb *c = &r->cbs[a][i];
				unsigned runs = atomic_load(&c->count.runs);

				if (c->add_ret == -ENOENT) {
					igt_assert_eq(runs, 0);
					igt_assert(!c->removed);
					refused++;
				} else {
					igt_assert_eq(c->add_ret, 0);
					/* Exactly one of: delivered once, removed in time. */
					igt_assert_eq((int)runs + (int)c->removed, 1);
					removed += c->removed;
					delivered += runs;
				}
			}
			dma_fence_put(r->fence[i]);
		}
		ops += SVC_FENCES * (SVC_ADDERS + 1);
		rounds++;
	} while (rounds < stress_cap(SVC_MAX_ROUNDS) && !storm_clock_expired(&clk));
	storm_crew_stop(&crew);
	igt_info("signal-vs-callback: %u rounds: %" PRIu64 " delivered, %" PRIu64
		 " removed, %" PRIu64 " refused\n",
		 rounds, delivered, removed, refused);
	free(r);
	storm_finish(ops, live0);
}

/* ---- many-waiters ------------------------------------------------------ */

#define MW_WAITERS 100
#define MW_MAX_ROUNDS 20

struct mw_round {
	struct dma_fence *fence;
	atomic_uint arrived;
	atomic_uint woken;
	atomic_uint failed;
};

static void *mw_waiter(void *arg)
{
	struct mw_round *r = arg;
	int64_t left;

	atomic_fetch_add(&r->arrived, 1);
	left = dma_fence_wait_timeout(r->fence, false, STORM_WAIT_NS);
	if (left > 0 && dma_fence_test_signaled_flag(r->fence))
		atomic_fetch_add(&r->woken, 1);
	else
		atomic_fetch_add(&r->failed, 1);
	return NULL;
}

static void subtest_many_waiters(void)
{
	long live0 = dma_fence_live_count();
	const unsigned int nwait = igt_opt_count(IGT_WAITERS, MW_WAITERS, 1000);
	pthread_t *tids = calloc(nwait, sizeof(*tids));
	struct storm_clock clk;
	uint64_t ops = 0;
	unsigned rounds = 0;

	igt_assert(tids);
	storm_clock_start(&clk);
	do {
		struct mw_round r = {0};

		r.fence = stress_fence_create(dma_fence_context_alloc(1), 1);
		igt_assert(r.fence);
		for (unsigned i = 0; i < nwait; i++)
			igt_assert_eq(pthread_create(&tids[i], NULL, mw_waiter, &r), 0);
		/*
		 * Signal once all have arrived; some are asleep on the futex,
		 * some still on their way in: both must come out.
		 */
		while (atomic_load(&r.arrived) < nwait)
			sched_yield();
		igt_assert_eq(dma_fence_signal(r.fence), 0);
		storm_join_threads(tids, nwait);
		igt_assert_eq(atomic_load(&r.failed), 0);
		igt_assert_eq(atomic_load(&r.woken), nwait);
		dma_fence_put(r.fence);
		ops += nwait;
		rounds++;
	} while (rounds < stress_cap(MW_MAX_ROUNDS) && !storm_clock_expired(&clk));
	free(tids);
	igt_info("many-waiters: %u rounds of %u waiters\n", rounds, nwait);
	storm_finish(ops, live0);
}

/* ---- chain-storm ------------------------------------------------------- */

#define CS_LINKS 128
#define CS_SIGNALLERS 2
#define CS_WAITERS 2
#define CS_MAX_ROUNDS 200

/**
 * struct cs_round - one chain of CS_LINKS links over as many payloads.
 * @payload: the wrapped fences, one reference each held by the round.
 * @link: the links, one reference each; published before @built moves.
 * @built: links published so far (release/acquire with @link).
 */
struct cs_round {
	struct dma_fence *payload[CS_LINKS];
	struct dma_fence *link[CS_LINKS];
	atomic_uint built;
	atomic_ulong timeouts, waits, signals;
};

static void cs_signal(struct storm_thread *t)
{
	struct cs_round *r = t->round;
	unsigned order[CS_LINKS];

	/* Both signallers walk all payloads: random order, races for each. */
	storm_shuffle(order, CS_LINKS, &t->rng);
	for (unsigned i = 0; i < CS_LINKS; i++) {
		if (dma_fence_signal(r->payload[order[i]]) == 0)
			atomic_fetch_add(&r->signals, 1);
		storm_jitter(&t->rng);
	}
}

static void cs_wait(struct storm_thread *t)
{
	struct cs_round *r = t->round;
	unsigned built;

	/* Wait on random links while the chain grows, then on its head. */
	do {
		built = atomic_load_explicit(&r->built, memory_order_acquire);
		if (built) {
			unsigned i = (unsigned)(prng_step(&t->rng) % built);

			if (dma_fence_wait_timeout(r->link[i], false, STORM_WAIT_NS) <= 0)
				atomic_fetch_add(&r->timeouts, 1);
			atomic_fetch_add(&r->waits, 1);
		} else {
			sched_yield();
		}
	} while (built < CS_LINKS);
	if (dma_fence_wait_timeout(r->link[CS_LINKS - 1], false, STORM_WAIT_NS) <= 0)
		atomic_fetch_add(&r->timeouts, 1);
	atomic_fetch_add(&r->waits, 1);
}

static void cs_build(struct cs_round *r)
{
	struct dma_fence *prev = NULL;

	for (unsigned i = 0; i < CS_LINKS; i++) {
		struct dma_fence_chain *chain = dma_fence_chain_alloc();

		igt_assert(chain);
		dma_fence_chain_init(chain, dma_fence_get(prev), dma_fence_get(r->payload[i]),
				     i + 1);
		r->link[i] = &chain->base;
		prev = &chain->base;
		atomic_store_explicit(&r->built, i + 1, memory_order_release);
	}
}

static void subtest_chain_storm(void)
{
	long live0 = dma_fence_live_count();
	struct cs_round *r = calloc(1, sizeof(*r));
	struct storm_crew crew;
	struct storm_clock clk;
	uint64_t ops = 0;
	unsigned rounds = 0;

	igt_assert(r);
	storm_crew_start(&crew, r, 41, cs_signal, CS_SIGNALLERS, cs_wait, CS_WAITERS);

	storm_clock_start(&clk);
	do {
		uint64_t ctx = dma_fence_context_alloc(1);
		uint64_t seqno;

		atomic_store(&r->built, 0);
		atomic_store(&r->signals, 0);
		for (unsigned i = 0; i < CS_LINKS; i++) {
			r->payload[i] = stress_fence_create(ctx, i + 1);
			igt_assert(r->payload[i]);
		}
		storm_crew_open(&crew);
		/* The builder races the signallers: some payloads are done already. */
		cs_build(r);
		storm_crew_close(&crew);

		igt_assert_eq_u64(atomic_load(&r->signals), CS_LINKS);
		seqno = r->link[CS_LINKS - 1]->seqno;
		igt_assert_eq_u64(seqno, CS_LINKS);
		for (unsigned i = 0; i < CS_LINKS; i++) {
			igt_assert(dma_fence_is_signaled(r->link[i]));
			igt_assert(dma_fence_wait_timeout(r->link[i], false, 0) > 0);
		}
		for (unsigned i = 0; i < CS_LINKS; i++) {
			dma_fence_put(r->link[i]);
			dma_fence_put(r->payload[i]);
		}
		ops += CS_LINKS * 2;
		rounds++;
	} while (rounds < stress_cap(CS_MAX_ROUNDS) && !storm_clock_expired(&clk));
	storm_crew_stop(&crew);
	ops += atomic_load(&r->waits);
	igt_info("chain-storm: %u chains of %d links, %lu waits\n", rounds, CS_LINKS,
		 atomic_load(&r->waits));
	igt_assert_eq_u64(atomic_load(&r->timeouts), 0);
	free(r);
	storm_finish(ops, live0);
}

/* ---- resv-storm -------------------------------------------------------- */

#define RS_OBJS 4
#define RS_WORKERS 3
#define RS_SIGNALLERS 2
#define RS_MAX_ITERS 4000

/**
 * struct rs_shared - reservation objects and the queue of pending fences.
 * @obj: shared by every worker; fences are added under the ww lock.
 * @lock: protects @pending and @npending.
 * @pending: fences not yet signalled, one reference each, taken by
 *	signallers in random order.
 * @workers_left: workers still adding; signallers stop when it is zero and
 *	the queue is empty.
 */
struct rs_shared {
	struct dma_resv obj[RS_OBJS];
	pthread_mutex_t lock;
	struct dma_fence **pending;
	unsigned npending;
	atomic_uint workers_left;
	atomic_ulong timeouts, backoffs, adds, waits, signals, bad_returns;
	struct storm_clock clk;
};

struct rs_thread {
	struct rs_shared *sh;
	uint64_t rng;
	uint64_t context;
};

/*
 * Lock @a then @b under @ctx, backing off on -EDEADLK the way a validate
 * list does: drop everything, sleep on the contended lock, retry.
 */
static int rs_lock_pair(struct dma_resv *a, struct dma_resv *b, struct ww_acquire_ctx *ctx,
			atomic_ulong *backoffs)
{
	struct dma_resv *first = a, *second = b;
	int ret;

	ret = dma_resv_lock(first, ctx);
	if (ret)
		return ret;
	for (;;) {
		struct dma_resv *t;

		ret = dma_resv_lock(second, ctx);
		if (ret != -EDEADLK)
			break;
		atomic_fetch_add(backoffs, 1);
		dma_resv_unlock(first);
		dma_resv_lock_slow(second, ctx);
		t = first;
		first = second;
		second = t;
	}
	if (ret)
		dma_resv_unlock(first);
	return ret;
}

static void *rs_worker(void *arg)
{
	struct rs_thread *t = arg;
	struct rs_shared *sh = t->sh;

	for (unsigned it = 0; it < RS_MAX_ITERS && !storm_clock_expired(&sh->clk); it++) {
		unsigned ia = (unsigned)(prng_step(&t->rng) % RS_OBJS);
		unsigned ib = (ia + 1 + (unsigned)(prng_step(&t->rng) % (RS_OBJS - 1))) % RS_OBJS;
		enum dma_resv_usage usage =
		    (prng_step(&t->rng) & 1) ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ;
		struct ww_acquire_ctx ctx;
		struct dma_fence *f;
		int64_t left;
		int ret;

		f = stress_fence_create(t->context, it + 1);
		igt_assert(f);
		ww_acquire_init(&ctx, &reservation_ww_class);
		ret = rs_lock_pair(&sh->obj[ia], &sh->obj[ib], &ctx, &sh->backoffs);
		igt_assert_eq(ret, 0);
		ww_acquire_done(&ctx);
		igt_assert_eq(dma_resv_reserve_fences(&sh->obj[ia], 1), 0);
		igt_assert_eq(dma_resv_reserve_fences(&sh->obj[ib], 1), 0);
		igt_assert_eq(dma_resv_add_fence(&sh->obj[ia], f, usage), 0);
		igt_assert_eq(dma_resv_add_fence(&sh->obj[ib], f, usage), 0);
		if ((it & 15) == 0)
			dma_resv_prune(&sh->obj[ia]);
		dma_resv_unlock(&sh->obj[ib]);
		dma_resv_unlock(&sh->obj[ia]);
		ww_acquire_fini(&ctx);
		atomic_fetch_add(&sh->adds, 2);

		/* Hand our reference to the signallers. */
		pthread_mutex_lock(&sh->lock);
		sh->pending[sh->npending++] = f;
		pthread_mutex_unlock(&sh->lock);

		left = dma_resv_wait_timeout(&sh->obj[prng_step(&t->rng) % RS_OBJS],
					     DMA_RESV_USAGE_BOOKKEEP, false, STORM_WAIT_NS);
		if (left == 0)
			atomic_fetch_add(&sh->timeouts, 1);
		else if (left < 0)
			atomic_fetch_add(&sh->bad_returns, 1);
		atomic_fetch_add(&sh->waits, 1);
	}
	atomic_fetch_sub(&sh->workers_left, 1);
	return NULL;
}

static void *rs_signaller(void *arg)
{
	struct rs_thread *t = arg;
	struct rs_shared *sh = t->sh;

	for (;;) {
		struct dma_fence *f = NULL;
		bool last = atomic_load(&sh->workers_left) == 0;

		pthread_mutex_lock(&sh->lock);
		if (sh->npending) {
			unsigned i = (unsigned)(prng_step(&t->rng) % sh->npending);

			f = sh->pending[i];
			sh->pending[i] = sh->pending[--sh->npending];
		}
		pthread_mutex_unlock(&sh->lock);
		if (!f) {
			/* workers_left was read before the queue: nothing can follow. */
			if (last)
				return NULL;
			sched_yield();
			continue;
		}
		if (dma_fence_signal(f) == 0)
			atomic_fetch_add(&sh->signals, 1);
		else
			atomic_fetch_add(&sh->bad_returns, 1);
		dma_fence_put(f);
		storm_jitter(&t->rng);
	}
}

static void subtest_resv_storm(void)
{
	enum { NTHREADS = RS_WORKERS + RS_SIGNALLERS };
	long live0 = dma_fence_live_count();
	struct rs_shared *sh = calloc(1, sizeof(*sh));
	struct rs_thread th[NTHREADS];
	pthread_t tids[NTHREADS];
	uint64_t ops;

	igt_assert(sh);
	sh->pending = calloc((size_t)RS_WORKERS * RS_MAX_ITERS, sizeof(*sh->pending));
	igt_assert(sh->pending);
	for (unsigned i = 0; i < RS_OBJS; i++)
		dma_resv_init(&sh->obj[i]);
	pthread_mutex_init(&sh->lock, NULL);
	atomic_store(&sh->workers_left, RS_WORKERS);
	for (unsigned i = 0; i < NTHREADS; i++)
		th[i] = (struct rs_thread){
		    .sh = sh, .rng = igt_seed() * 43 + i, .context = dma_fence_context_alloc(1)};
	storm_clock_start(&sh->clk);
	storm_start_threads(tids, RS_WORKERS, rs_worker, th, sizeof(th[0]));
	storm_start_threads(tids + RS_WORKERS, RS_SIGNALLERS, rs_signaller, th + RS_WORKERS,
			    sizeof(th[0]));
	storm_join_threads(tids, NTHREADS);

	igt_assert_eq(sh->npending, 0);
	igt_assert_eq_u64(atomic_load(&sh->signals), atomic_load(&sh->adds) / 2);
	igt_assert_eq_u64(atomic_load(&sh->timeouts), 0);
	igt_assert_eq_u64(atomic_load(&sh->bad_returns), 0);
	for (unsigned i = 0; i < RS_OBJS; i++) {
		igt_assert(dma_resv_test_signaled(&sh->obj[i], DMA_RESV_USAGE_BOOKKEEP));
		igt_assert_eq(dma_resv_count_pending(&sh->obj[i]), 0);
		dma_resv_fini(&sh->obj[i]);
	}
	ops = atomic_load(&sh->adds) + atomic_load(&sh->waits) + atomic_load(&sh->signals);
	igt_info("resv-storm: %lu fences added, %lu waits, %lu ww back-offs\n",
		 atomic_load(&sh->adds), atomic_load(&sh->waits), atomic_load(&sh->backoffs));
	pthread_mutex_destroy(&sh->lock);
	free(sh->pending);
	free(sh);
	storm_finish(ops, live0);
}

igt_main_description("Races on dma_fence signalling, waiting, callbacks, fence chains and "
		     "dma_resv: every waiter wakes, every fence signals and delivers once, "
		     "nothing leaks.")
{
	igt_subtest("signal-vs-wait") subtest_signal_vs_wait();
	igt_subtest("signal-vs-callback") subtest_signal_vs_callback();
	igt_subtest("many-waiters") subtest_many_waiters();
	igt_subtest("chain-storm") subtest_chain_storm();
	igt_subtest("resv-storm") subtest_resv_storm();
}
