// SPDX-License-Identifier: MIT
#include <ttm/dma_fence_chain.h>
#include <ttm/ttm_faults.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static const char *cname(struct dma_fence *f)
{
	(void)f;
	return "chain-test";
}

static const struct dma_fence_ops cops = {.get_driver_name = cname, .get_timeline_name = cname};

static struct dma_fence *mk(void)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	dma_fence_init(f, &cops, dma_fence_context_alloc(1), 1);
	return f;
}

/* Build a chain of @n links at seqnos 1..n; payloads returned in @payload. */
static struct dma_fence *build(unsigned n, struct dma_fence **payload)
{
	struct dma_fence *head = NULL;

	for (unsigned i = 0; i < n; i++) {
		struct dma_fence_chain *c = dma_fence_chain_alloc();

		payload[i] = mk();
		dma_fence_chain_init(c, head, dma_fence_get(payload[i]), i + 1);
		head = &c->base;
	}
	return head;
}

KTEST(dma_fence_chain_signals_only_after_every_earlier_link)
{
	struct dma_fence *p[4];
	long live = dma_fence_live_count();
	struct dma_fence *head = build(4, p);

	EXPECT_EQ(head->seqno, 4);
	/* The newest payload alone does not complete the point. */
	dma_fence_signal(p[3]);
	EXPECT_FALSE(dma_fence_is_signaled(head));
	dma_fence_signal(p[0]);
	dma_fence_signal(p[2]);
	EXPECT_FALSE(dma_fence_is_signaled(head));
	dma_fence_signal(p[1]);
	EXPECT_TRUE(dma_fence_is_signaled(head));
	dma_fence_put(head);
	for (int i = 0; i < 4; i++)
		dma_fence_put(p[i]);
	EXPECT_EQ(dma_fence_live_count(), live);
}

KTEST(dma_fence_chain_links_share_context)
{
	struct dma_fence *p[3];
	struct dma_fence *head = build(3, p);
	struct dma_fence_chain *c = to_dma_fence_chain(head);

	ASSERT_NOT_NULL(c);
	EXPECT_EQ(c->prev_seqno, 2);
	EXPECT_UEQ(c->prev->context, head->context);
	EXPECT_NULL(to_dma_fence_chain(p[0]));
	for (int i = 0; i < 3; i++) {
		dma_fence_signal(p[i]);
		dma_fence_put(p[i]);
	}
	dma_fence_put(head);
}

KTEST(dma_fence_chain_find_seqno_finds_covering_link)
{
	struct dma_fence *p[5];
	struct dma_fence *head = build(5, p);
	struct dma_fence *f;

	f = dma_fence_get(head);
	EXPECT_EQ(dma_fence_chain_find_seqno(&f, 6), -EINVAL);
	EXPECT_EQ(dma_fence_chain_find_seqno(&f, 3), 0);
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(f->seqno, 3);
	/* Point 3 signals when payloads 1..3 have, regardless of 4 and 5. */
	dma_fence_signal(p[0]);
	dma_fence_signal(p[1]);
	dma_fence_signal(p[2]);
	EXPECT_TRUE(dma_fence_is_signaled(f));
	EXPECT_FALSE(dma_fence_is_signaled(head));
	dma_fence_put(f);
	/* A signalled point comes back as NULL. */
	f = dma_fence_get(head);
	EXPECT_EQ(dma_fence_chain_find_seqno(&f, 2), 0);
	EXPECT_NULL(f);
	f = p[0];
	EXPECT_EQ(dma_fence_chain_find_seqno(&f, 1), -EINVAL);
	for (int i = 0; i < 5; i++) {
		dma_fence_signal(p[i]);
		dma_fence_put(p[i]);
	}
	dma_fence_put(head);
}

static void *signal_all_later(void *arg)
{
	struct dma_fence **p = arg;

	for (int i = 3; i >= 0; i--) {
		usleep(500);
		dma_fence_signal(p[i]);
	}
	return NULL;
}

KTEST(dma_fence_chain_wait_wakes_when_complete)
{
	struct dma_fence *p[4];
	struct dma_fence *head = build(4, p);
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, signal_all_later, p), 0);
	EXPECT_GT(dma_fence_wait_timeout(head, false, 5000000000ll), 0);
	pthread_join(t, NULL);
	EXPECT_TRUE(dma_fence_test_signaled_flag(head));
	dma_fence_put(head);
	for (int i = 0; i < 4; i++)
		dma_fence_put(p[i]);
}

KTEST(dma_fence_chain_long_chain_released_without_recursion)
{
	long live = dma_fence_live_count();
	struct dma_fence *head = NULL, *payload = mk();

	dma_fence_signal(payload);
	for (unsigned i = 0; i < 200000; i++) {
		struct dma_fence_chain *c = dma_fence_chain_alloc();

		ASSERT_NOT_NULL(c);
		dma_fence_chain_init(c, head, dma_fence_get(payload), i + 1);
		head = &c->base;
	}
	dma_fence_put(head);
	dma_fence_put(payload);
	EXPECT_EQ(dma_fence_live_count(), live);
}

KTEST(dma_fence_chain_alloc_fault_returns_null)
{
	fault_set_nth(&ttm_fault_fence_alloc, 1);
	EXPECT_NULL(dma_fence_chain_alloc());
	fault_reset(&ttm_fault_fence_alloc);
}

/*
 * Chain 1-2-3 with only payload 2 signalled: point 2 is reached when 1 is
 * too, so the lookup hands back link 1 (link 2 is collected on the way), as
 * the kernel's selftest find_out_of_order expects.
 */
KTEST(dma_fence_chain_find_out_of_order)
{
	struct dma_fence *p[3];
	struct dma_fence *head = build(3, p);
	struct dma_fence_chain *link2 = to_dma_fence_chain(to_dma_fence_chain(head)->prev);
	struct dma_fence_chain *link1;
	struct dma_fence *f;

	ASSERT_NOT_NULL(link2);
	link1 = to_dma_fence_chain(link2->prev);
	ASSERT_NOT_NULL(link1);
	EXPECT_EQ(link1->base.seqno, 1);
	dma_fence_signal(p[1]);
	f = dma_fence_get(head);
	EXPECT_EQ(dma_fence_chain_find_seqno(&f, 2), 0);
	EXPECT_TRUE(f == &link1->base);
	dma_fence_put(f);
	/* The walk unlinked link 2: the head now follows link 1 directly. */
	EXPECT_TRUE(to_dma_fence_chain(head)->prev == &link1->base);
	for (int i = 0; i < 3; i++) {
		dma_fence_signal(p[i]);
		dma_fence_put(p[i]);
	}
	dma_fence_put(head);
}

/* The kernel's find_signaled: a point already reached comes back as NULL or its link. */
KTEST(dma_fence_chain_find_signaled)
{
	struct dma_fence *p[2];
	struct dma_fence *head = build(2, p);
	struct dma_fence *link1 = to_dma_fence_chain(head)->prev;
	struct dma_fence *f;

	dma_fence_signal(p[0]);
	f = dma_fence_get(head);
	EXPECT_EQ(dma_fence_chain_find_seqno(&f, 1), 0);
	EXPECT_TRUE(f == NULL || f == link1);
	dma_fence_put(f);
	for (int i = 0; i < 2; i++) {
		dma_fence_signal(p[i]);
		dma_fence_put(p[i]);
	}
	dma_fence_put(head);
}

/* dma_fence_chain_for_each() visits the pending links, newest first, collecting the rest. */
KTEST(dma_fence_chain_walk_collects_signaled_links)
{
	struct dma_fence *p[5];
	long live = dma_fence_live_count();
	struct dma_fence *head = build(5, p);
	struct dma_fence *iter;
	uint64_t seen[5];
	unsigned n = 0;

	dma_fence_signal(p[1]);
	dma_fence_signal(p[2]);
	dma_fence_chain_for_each(iter, head)
	{
		ASSERT_LT(n, 5);
		seen[n++] = iter->seqno;
		EXPECT_TRUE(dma_fence_chain_contained(iter) == p[iter->seqno - 1]);
	}
	/* 5 (the start), then 4, then 1: 3 and 2 are signalled and skipped. */
	ASSERT_EQ(n, 3);
	EXPECT_EQ(seen[0], 5);
	EXPECT_EQ(seen[1], 4);
	EXPECT_EQ(seen[2], 1);
	/* Links 3 and 2 were only referenced by the chain: collected. */
	EXPECT_EQ(dma_fence_live_count(), live + 5 + 3);
	for (int i = 0; i < 5; i++) {
		dma_fence_signal(p[i]);
		dma_fence_put(p[i]);
	}
	dma_fence_put(head);
	EXPECT_EQ(dma_fence_live_count(), live);
}

#define WAIT_CHAIN_LINKS 4096

struct chain_waiter {
	struct dma_fence *head;
	int64_t ret;
};

static void *wait_chain(void *arg)
{
	struct chain_waiter *w = arg;

	w->ret = dma_fence_wait_timeout(w->head, false, 60000000000ll);
	return NULL;
}

/*
 * The kernel's wait_backward: a waiter on the newest link while the payloads
 * signal newest first. Each signal re-arms the waiter's callback one link
 * further down; the links passed are collected, so the re-arm does not walk
 * them again (linear in the chain, not quadratic): once every payload but
 * the oldest has signalled, only the head and the oldest link are left.
 */
KTEST(dma_fence_chain_wait_backward)
{
	static struct dma_fence *p[WAIT_CHAIN_LINKS];
	long live = dma_fence_live_count();
	struct dma_fence *head = build(WAIT_CHAIN_LINKS, p);
	struct chain_waiter w = {.head = head, .ret = -1};
	pthread_t t;

	/* Armed the way the waiter arms it, before any payload signals. */
	dma_fence_enable_sw_signaling(head);
	ASSERT_EQ(pthread_create(&t, NULL, wait_chain, &w), 0);
	/* Past its first poll and asleep: it holds no link while we count them. */
	while (!(atomic_load(&head->flags) & DMA_FENCE_FLAG_WAITERS))
		sched_yield();
	for (int i = WAIT_CHAIN_LINKS - 1; i > 0; i--)
		dma_fence_signal(p[i]);
	EXPECT_FALSE(dma_fence_is_signaled(head));
	EXPECT_EQ(dma_fence_live_count(), live + WAIT_CHAIN_LINKS + 2);
	dma_fence_signal(p[0]);
	pthread_join(t, NULL);
	EXPECT_GT(w.ret, 0);
	EXPECT_TRUE(dma_fence_test_signaled_flag(head));
	dma_fence_put(head);
	for (int i = 0; i < WAIT_CHAIN_LINKS; i++)
		dma_fence_put(p[i]);
	EXPECT_EQ(dma_fence_live_count(), live);
}
