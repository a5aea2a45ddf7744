// SPDX-License-Identifier: MIT
#include <ttm/dma_fence_chain.h>
#include <ttm/ttm_faults.h>
#include <ktest.h>

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

static const char *cname(struct dma_fence *f)
{
	(void)f;
	return "chain-test";
}

static const struct dma_fence_ops cops = { .get_driver_name = cname, .get_timeline_name = cname };

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
