// SPDX-License-Identifier: MIT
/*
 * The sync_file -> dma_fence bridge, with eventfds from the recording fake
 * standing in for sync_files (they poll readable once "signalled", and the
 * fake answers SYNC_IOC_FILE_INFO with the status the test chose).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <linux/sync_file.h>

#include <testlib/prng.h>

#include "hw_fake.h"
#include "hw_fence.h"
#include "ktest.h"

#define WAIT_NS (5ll * 1000 * 1000 * 1000)

/* A fake and a waiter on it (ASSERT-checked); fake_with_waiter_fini() ends both. */
static struct hw_fake *fake_with_waiter(struct hw_fence_waiter *w)
{
	struct hw_fake *fake = hw_fake_new();

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(hw_fence_waiter_init(w, &hw_fake_ops, fake), 0);
	return fake;
}

static void fake_with_waiter_fini(struct hw_fake *fake, struct hw_fence_waiter *w)
{
	hw_fence_waiter_fini(w);
	hw_fake_free(fake);
}

/*
 * A new fake sync_file handed to @w, its fence in *@f; returns the fake's
 * index of it (ASSERT-checked).
 */
static int fake_fence_add(struct hw_fake *fake, struct hw_fence_waiter *w, struct dma_fence **f)
{
	int fd, idx = hw_fake_new_fence(fake, &fd);

	ASSERT_GE(idx, 0);
	ASSERT_EQ(hw_fence_waiter_add(w, fd, f), 0);
	return idx;
}

static bool fake_fence_closed(struct hw_fake *fake, int idx)
{
	bool closed;

	pthread_mutex_lock(&fake->lock);
	closed = fake->fences[idx].closed;
	pthread_mutex_unlock(&fake->lock);
	return closed;
}

KTEST(hw_fence_waiter_signals_on_readable_fd)
{
	struct hw_fence_waiter w;
	struct hw_fake *fake = fake_with_waiter(&w);
	struct dma_fence *f;
	long live = dma_fence_live_count();
	int idx;

	idx = fake_fence_add(fake, &w, &f);
	EXPECT_TRUE(hw_fence_is_hw(f));
	EXPECT_FALSE(dma_fence_is_signaled(f));
	EXPECT_EQ(dma_fence_wait_timeout(f, false, 1000 * 1000), 0);
	ASSERT_EQ(hw_fake_signal(fake, (unsigned int)idx, 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	/* The waiter closed the sync_file before it signalled. */
	EXPECT_TRUE(fake_fence_closed(fake, idx));
	dma_fence_put(f);
	fake_with_waiter_fini(fake, &w);
	EXPECT_EQ(dma_fence_live_count(), live);
}

KTEST(hw_fence_waiter_reports_sync_file_error)
{
	struct hw_fence_waiter w;
	struct hw_fake *fake = fake_with_waiter(&w);
	struct dma_fence *f;
	int idx;

	idx = fake_fence_add(fake, &w, &f);
	/* A request cancelled by a GPU reset: its fence signals with -EIO. */
	ASSERT_EQ(hw_fake_signal(fake, (unsigned int)idx, -EIO), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(dma_fence_get_status(f), -EIO);
	dma_fence_put(f);
	fake_with_waiter_fini(fake, &w);
}

KTEST(hw_fence_waiter_fini_cancels_pending)
{
	struct hw_fence_waiter w;
	struct hw_fake *fake = fake_with_waiter(&w);
	struct dma_fence *f[3];
	long live = dma_fence_live_count();
	int idx[3], i;

	for (i = 0; i < 3; i++)
		idx[i] = fake_fence_add(fake, &w, &f[i]);
	EXPECT_TRUE(dma_fence_is_later(f[1], f[0]));
	EXPECT_TRUE(dma_fence_is_later(f[2], f[1]));
	ASSERT_EQ(hw_fake_signal(fake, (unsigned int)idx[1], 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f[1], false, WAIT_NS), 0);
	hw_fence_waiter_fini(&w);
	for (i = 0; i < 3; i++) {
		EXPECT_TRUE(dma_fence_test_signaled_flag(f[i]));
		EXPECT_EQ(dma_fence_get_status(f[i]), i == 1 ? 1 : -ENODEV);
		EXPECT_TRUE(fake_fence_closed(fake, idx[i]));
		dma_fence_put(f[i]);
	}
	EXPECT_EQ(dma_fence_live_count(), live);
	hw_fake_free(fake);
}

KTEST(hw_fence_waiter_status_query_failure_is_the_error)
{
	struct hw_fence_waiter w;
	struct hw_fake *fake = fake_with_waiter(&w);
	struct dma_fence *f;
	int idx;

	fake->fail_request = SYNC_IOC_FILE_INFO;
	fake->fail_err = -ENOTTY;
	fake->fail_times = -1;
	idx = fake_fence_add(fake, &w, &f);
	ASSERT_EQ(hw_fake_signal(fake, (unsigned int)idx, 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(dma_fence_get_status(f), -ENOTTY);
	dma_fence_put(f);
	fake_with_waiter_fini(fake, &w);
}

KTEST(hw_fence_waiter_add_rejects_bad_fd)
{
	struct hw_fence_waiter w;
	struct hw_fake *fake = fake_with_waiter(&w);
	struct dma_fence *f = (void *)1;

	EXPECT_EQ(hw_fence_waiter_add(&w, -1, &f), -EINVAL);
	EXPECT_NULL(f);
	fake_with_waiter_fini(fake, &w);
}

struct cb_count {
	struct dma_fence_cb cb;
	atomic_int *runs;
};

static void count_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct cb_count *c = (struct cb_count *)cb;

	atomic_fetch_add(c->runs, 1);
}

struct signaller {
	struct hw_fake *fake;
	int *idx;
	unsigned int n;
	uint64_t seed;
};

/* Signal every fence once, in a shuffled order, some with an error. */
static void *signal_thread(void *arg)
{
	struct signaller *s = arg;
	unsigned int *order = calloc(s->n, sizeof(*order));
	struct prng rng = {s->seed};
	unsigned int i;

	if (!order)
		return (void *)1;
	for (i = 0; i < s->n; i++)
		order[i] = i;
	for (i = s->n - 1; i > 0; i--) {
		unsigned int j, t;

		j = (unsigned int)prng_below(&rng, i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < s->n; i++) {
		unsigned int k = order[i];

		if (hw_fake_signal(s->fake, (unsigned int)s->idx[k], k % 7 == 3 ? -EIO : 1))
			break;
	}
	free(order);
	return i == s->n ? NULL : (void *)1;
}

KTEST(hw_fence_waiter_many_fences_signal_once_each)
{
	unsigned int n = 200 * ktest_scale(), i;
	struct hw_fake *fake = hw_fake_new();
	struct hw_fence_waiter w;
	struct dma_fence **f = calloc(n, sizeof(*f));
	struct cb_count *cbs = calloc(n, sizeof(*cbs));
	int *idx = calloc(n, sizeof(*idx));
	long live = dma_fence_live_count();
	atomic_int runs = 0;
	struct signaller s;
	pthread_t t;
	void *res;

	/* Each fence is an open fd: stay well below the usual 1024 limit. */
	if (n > 512)
		n = 512;
	ASSERT_NOT_NULL(fake);
	ASSERT_NOT_NULL(f);
	ASSERT_NOT_NULL(cbs);
	ASSERT_NOT_NULL(idx);
	ASSERT_EQ(hw_fence_waiter_init(&w, &hw_fake_ops, fake), 0);
	for (i = 0; i < n; i++) {
		idx[i] = fake_fence_add(fake, &w, &f[i]);
		cbs[i].runs = &runs;
		EXPECT_EQ(dma_fence_add_callback(f[i], &cbs[i].cb, count_cb), 0);
	}
	s = (struct signaller){.fake = fake, .idx = idx, .n = n, .seed = ktest_rand()};
	ASSERT_EQ(pthread_create(&t, NULL, signal_thread, &s), 0);
	for (i = 0; i < n; i++) {
		EXPECT_GT(dma_fence_wait_timeout(f[i], false, WAIT_NS), 0);
		EXPECT_EQ(dma_fence_get_status(f[i]), i % 7 == 3 ? -EIO : 1);
	}
	pthread_join(t, &res);
	EXPECT_NULL(res);
	hw_fence_waiter_fini(&w);
	EXPECT_EQ(atomic_load(&runs), (int)n);
	for (i = 0; i < n; i++) {
		EXPECT_TRUE(fake_fence_closed(fake, idx[i]));
		dma_fence_put(f[i]);
	}
	EXPECT_EQ(dma_fence_live_count(), live);
	free(f);
	free(cbs);
	free(idx);
	hw_fake_free(fake);
}
