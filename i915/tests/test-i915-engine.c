// SPDX-License-Identifier: MIT
/* Engines, requests and seqno fences, interrupts, hang recovery. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <i915/i915_faults.h>

#include "i915_test_common.h"

KTEST(request_submit_seqno_reaches_status_page)
{
	struct i915_device *i915 = i915_test_device(false);
	struct i915_engine *rcs;
	struct dma_fence *f[8];

	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(i915_request_submit(rcs, NULL, NULL, 0, 0, &f[i]), 0);
	EXPECT_EQ(dma_fence_wait(f[7], false), 0);
	EXPECT_EQ(i915_engine_hws_seqno(rcs), 8);
	for (int i = 0; i < 8; i++) {
		EXPECT_EQ(dma_fence_get_status(f[i]), 1);
		EXPECT_EQ(f[i]->seqno, (uint64_t)i + 1);
		EXPECT_EQ(f[i]->context, rcs->fence_context);
		EXPECT_TRUE(to_i915_request(f[i]) != NULL);
		dma_fence_put(f[i]);
	}
	EXPECT_EQ(atomic_load(&rcs->stats.retired), 8);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

struct order_cb {
	struct dma_fence_cb cb;
	atomic_uint *pos;
	atomic_uint *done;
	unsigned int *order;
	unsigned int index;
};

static void order_cb_fn(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct order_cb *o = container_of(cb, struct order_cb, cb);

	(void)fence;
	o->order[atomic_fetch_add(o->pos, 1)] = o->index;
	/* Published after the slot is written: the reader waits for @done. */
	atomic_fetch_add_explicit(o->done, 1, memory_order_release);
}

KTEST(request_fences_signal_by_interrupt_in_order)
{
	enum { N = 300 };
	struct i915_device *i915 = i915_test_device(false);
	static struct order_cb cbs[N];
	static unsigned int order[N];
	atomic_uint pos = 0, done = 0;
	struct dma_fence *last = NULL;
	struct i915_engine *bcs;

	ASSERT_NOT_NULL(i915);
	bcs = i915_engine_get(i915, I915_ENGINE_BCS);
	for (unsigned int i = 0; i < N; i++) {
		struct dma_fence *f;

		ASSERT_EQ(i915_request_submit(bcs, NULL, NULL, 0, 0, &f), 0);
		cbs[i].pos = &pos;
		cbs[i].done = &done;
		cbs[i].order = order;
		cbs[i].index = i;
		if (dma_fence_add_callback(f, &cbs[i].cb, order_cb_fn) == -ENOENT)
			order_cb_fn(f, &cbs[i].cb); /* already signalled: its turn was now */
		dma_fence_put(last);
		last = f;
	}
	EXPECT_EQ(dma_fence_wait(last, false), 0);
	dma_fence_put(last);
	ASSERT_EQ(i915_engine_wait_idle(bcs, 5000), 0);
	/*
	 * A waiter may wake before the signalling thread has run the last
	 * callbacks: wait (bounded) until every callback has finished writing.
	 */
	for (unsigned int spins = 0;
	     atomic_load_explicit(&done, memory_order_acquire) < N && spins < 5000; spins++)
		usleep(1000);
	EXPECT_EQ(atomic_load_explicit(&done, memory_order_acquire), N);
	EXPECT_EQ(atomic_load(&pos), N);
	for (unsigned int i = 0; i < N; i++)
		EXPECT_EQ(order[i], i);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

/* A batch of stores into @target, one dword per value. */
static void write_store_batch(struct i915_test_buf *batch, uint64_t target, unsigned int n,
			      uint32_t base)
{
	uint32_t *cs = batch->mem;

	for (unsigned int i = 0; i < n; i++)
		cs = i915_emit_store_dword_imm(cs, target + 4 * i, base + i);
	i915_emit_bb_end(cs);
}

KTEST(request_batch_writes_reach_memory)
{
	struct i915_device *i915 = i915_test_device(false);
	struct i915_test_buf batch, target;
	struct dma_fence *f;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(i915_test_buf_init(&batch, i915, 4096, 0), 0);
	ASSERT_EQ(i915_test_buf_init(&target, i915, 4096, TTM_PL_FLAG_TOPDOWN), 0);
	write_store_batch(&batch, target.addr, 16, 0xc0de0000);
	ASSERT_EQ(i915_request_submit(i915_engine_get(i915, I915_ENGINE_RCS), NULL, NULL, 0,
				      batch.addr, &f),
		  0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	for (unsigned int i = 0; i < 16; i++)
		EXPECT_EQ(i915_test_read32(&target, 4 * i), 0xc0de0000u + i);
	dma_fence_put(f);
	i915_test_buf_fini(&batch);
	i915_test_buf_fini(&target);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

/*
 * A batch's RING_TIMESTAMP samples, converted with i915_engine_cs_cycles(),
 * fall between the CPU times around the request and before its fence's
 * signal time; the low dword alone converts to the same time.
 */
KTEST(engine_cs_cycles_correlate_batch_timestamps)
{
	struct i915_device *i915 = i915_test_device(false);
	struct i915_test_buf batch, target;
	struct i915_engine *bcs;
	struct i915_cs_cycles ref, later;
	struct dma_fence *f;
	uint32_t cmds[32], *cs = cmds, reg = 0x22000u + 0x358;
	uint64_t t;
	int64_t before, ns, signalled;

	ASSERT_NOT_NULL(i915);
	bcs = i915_engine_get(i915, I915_ENGINE_BCS);
	EXPECT_EQ(i915_engine_cs_cycles(NULL, &ref), -EINVAL);
	EXPECT_EQ(i915_engine_cs_cycles(bcs, NULL), -EINVAL);
	ASSERT_EQ(i915_test_buf_init(&batch, i915, 4096, 0), 0);
	ASSERT_EQ(i915_test_buf_init(&target, i915, 4096, TTM_PL_FLAG_TOPDOWN), 0);
	cs = i915_emit_store_register_mem(cs, reg, target.addr);
	cs = i915_emit_store_register_mem(cs, reg + 4, target.addr + 4);
	i915_emit_bb_end(cs);
	memcpy(batch.mem, cmds, sizeof(cmds));
	ASSERT_EQ(i915_engine_cs_cycles(bcs, &ref), 0);
	EXPECT_EQ(ref.frequency, 19200000u);
	EXPECT_GE(ref.cpu_delta_ns, 0);
	before = dma_fence_now_ns();
	ASSERT_EQ(i915_request_submit(bcs, NULL, NULL, 0, batch.addr, &f), 0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	ASSERT_EQ(i915_engine_cs_cycles(bcs, &later), 0);
	ASSERT_EQ(dma_fence_get_timestamp(f, &signalled), 0);
	t = ((uint64_t)i915_test_read32(&target, 4) << 32) | i915_test_read32(&target, 0);
	EXPECT_ULE(ref.cycles, t);
	EXPECT_ULE(t, later.cycles);
	ns = i915_cs_cycles_to_ns(&ref, t);
	/* One tick (52 ns) and the sample's own uncertainty either way. */
	EXPECT_GE(ns, before - 53 - ref.cpu_delta_ns);
	EXPECT_LE(ns, signalled + 53 + ref.cpu_delta_ns);
	EXPECT_EQ(i915_cs_cycles_to_ns(&ref, (uint32_t)t), ns);
	/* Converting back from the later sample agrees within a tick or two. */
	EXPECT_LE(llabs(i915_cs_cycles_to_ns(&later, t) - ns),
		  106 + later.cpu_delta_ns + ref.cpu_delta_ns);
	dma_fence_put(f);
	i915_test_buf_fini(&batch);
	i915_test_buf_fini(&target);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(request_synchronous_device_completes_before_return)
{
	struct i915_device *i915 = i915_test_device(true);
	struct i915_test_buf batch, target;
	struct dma_fence *f;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(i915_test_buf_init(&batch, i915, 4096, 0), 0);
	ASSERT_EQ(i915_test_buf_init(&target, i915, 4096, 0), 0);
	write_store_batch(&batch, target.addr, 4, 7);
	ASSERT_EQ(i915_request_submit(i915_engine_get(i915, I915_ENGINE_RCS), NULL, NULL, 0,
				      batch.addr, &f),
		  0);
	EXPECT_TRUE(dma_fence_test_signaled_flag(f));
	EXPECT_EQ(i915_test_read32(&target, 12), 10);
	dma_fence_put(f);
	i915_test_buf_fini(&batch);
	i915_test_buf_fini(&target);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(request_ring_wraps_and_waits_for_space)
{
	struct i915_device *i915 = i915_test_device(false);
	struct i915_engine *rcs;
	struct dma_fence *f = NULL;
	unsigned int n = 4000 * ktest_scale();
	/* Inline padding makes each request big so the 32 KiB ring fills fast. */
	uint32_t pad[64];

	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	for (unsigned int i = 0; i < 64; i++)
		pad[i] = MI_NOOP;
	for (unsigned int i = 0; i < n; i++) {
		dma_fence_put(f);
		ASSERT_EQ(i915_request_submit(rcs, NULL, pad, 64, 0, &f), 0);
	}
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	EXPECT_EQ(f->seqno, n);
	dma_fence_put(f);
	EXPECT_EQ(i915_engine_hws_seqno(rcs), n);
	EXPECT_GT(atomic_load(&rcs->stats.ring_waits), 0);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(request_rejects_bad_arguments)
{
	struct i915_device *i915 = i915_test_device(false);
	struct i915_engine *rcs;
	uint32_t dw = MI_NOOP;
	struct dma_fence *f = NULL;

	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	EXPECT_EQ(i915_request_submit(NULL, NULL, NULL, 0, 0, &f), -EINVAL);
	EXPECT_EQ(i915_request_submit(rcs, NULL, NULL, 1, 0, &f), -EINVAL);
	EXPECT_EQ(i915_request_submit(rcs, NULL, &dw, 1u << 20, 0, &f), -EINVAL);
	EXPECT_EQ(i915_request_submit(rcs, NULL, NULL, 0, 0x1004, &f), -EINVAL);
	EXPECT_NULL(f);
	EXPECT_TRUE(i915_engine_get(i915, I915_NUM_ENGINES) == NULL);
	EXPECT_EQ(atomic_load(&rcs->stats.submitted), 0);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

static void hang_and_recover(bool synchronous)
{
	struct i915_device *i915 = i915_test_device(synchronous);
	struct i915_test_buf hang, good, target;
	struct i915_context *bad_ctx, *good_ctx;
	struct dma_fence *fh, *fg, *fk;
	struct sim_error_state es;
	struct i915_engine *rcs;
	char *dump = NULL;
	size_t dump_len = 0;
	FILE *mem;
	uint32_t *cs;

	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	ASSERT_EQ(i915_context_create(i915, &bad_ctx), 0);
	ASSERT_EQ(i915_context_create(i915, &good_ctx), 0);
	EXPECT_NE(bad_ctx->id, good_ctx->id);
	ASSERT_EQ(i915_test_buf_init(&hang, i915, 4096, 0), 0);
	ASSERT_EQ(i915_test_buf_init(&good, i915, 4096, 0), 0);
	ASSERT_EQ(i915_test_buf_init(&target, i915, 4096, 0), 0);
	/* Wait for a dword nobody will ever write. */
	cs = i915_emit_semaphore_wait(hang.mem, target.addr + 64, MI_SEMAPHORE_SAD_EQ_SDD, 1);
	i915_emit_bb_end(cs);
	write_store_batch(&good, target.addr, 4, 100);

	ASSERT_EQ(i915_request_submit(rcs, bad_ctx, NULL, 0, hang.addr, &fh), 0);
	ASSERT_EQ(i915_request_submit(rcs, good_ctx, NULL, 0, good.addr, &fg), 0);
	ASSERT_EQ(
	    i915_request_submit(i915_engine_get(i915, I915_ENGINE_BCS), good_ctx, NULL, 0, 0, &fk),
	    0);
	EXPECT_EQ(dma_fence_wait(fh, false), 0);
	EXPECT_EQ(dma_fence_get_status(fh), -EIO);
	EXPECT_EQ(dma_fence_wait(fg, false), 0);
	EXPECT_EQ(dma_fence_get_status(fg), 1);
	EXPECT_EQ(dma_fence_wait(fk, false), 0);
	EXPECT_EQ(dma_fence_get_status(fk), 1);
	EXPECT_EQ(i915_test_read32(&target, 0), 100);
	EXPECT_EQ(i915_test_read32(&target, 12), 103);
	EXPECT_EQ(atomic_load(&bad_ctx->guilty), 1);
	EXPECT_EQ(atomic_load(&good_ctx->guilty), 0);
	EXPECT_EQ(atomic_load(&rcs->stats.resets), 1);
	ASSERT_EQ(sim_error_state_get(i915_device_sim(i915), SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_HANG);
	EXPECT_EQ(es.ctx_id, bad_ctx->id);

	/* The engine keeps working after the reset. */
	dma_fence_put(fg);
	ASSERT_EQ(i915_request_submit(rcs, good_ctx, NULL, 0, good.addr, &fg), 0);
	EXPECT_EQ(dma_fence_wait(fg, false), 0);
	EXPECT_EQ(dma_fence_get_status(fg), 1);

	mem = open_memstream(&dump, &dump_len);
	ASSERT_NOT_NULL(mem);
	i915_device_error_state_dump(i915, mem);
	fclose(mem);
	EXPECT_TRUE(strstr(dump, "rcs0: hws seqno") != NULL);
	EXPECT_TRUE(strstr(dump, "resets 1") != NULL);
	free(dump);

	dma_fence_put(fh);
	dma_fence_put(fg);
	dma_fence_put(fk);
	i915_context_put(bad_ctx);
	i915_context_put(good_ctx);
	i915_test_buf_fini(&hang);
	i915_test_buf_fini(&good);
	i915_test_buf_fini(&target);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(request_hang_gets_eio_later_requests_run)
{
	hang_and_recover(false);
}

KTEST(request_hang_gets_eio_synchronous)
{
	hang_and_recover(true);
}

struct submitter {
	struct i915_device *i915;
	struct i915_context *ctx;
	struct i915_test_buf *target;
	unsigned int slot;
	unsigned int n;
	int errors;
	uint64_t last_seqno;
	int order_errors;
};

static void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct i915_engine *rcs = i915_engine_get(s->i915, I915_ENGINE_RCS);
	struct dma_fence *prev = NULL;

	for (unsigned int i = 0; i < s->n; i++) {
		uint32_t cmds[4];
		struct dma_fence *f;

		/* Each request stores its index into the thread's own slot. */
		i915_emit_store_dword_imm(cmds, s->target->addr + 4 * s->slot, i + 1);
		if (i915_request_submit(rcs, s->ctx, cmds, 4, 0, &f)) {
			s->errors++;
			break;
		}
		if (f->seqno <= s->last_seqno)
			s->order_errors++;
		s->last_seqno = f->seqno;
		if (prev && (i % 16) == 0 && dma_fence_wait(prev, false))
			s->errors++;
		dma_fence_put(prev);
		prev = f;
	}
	if (prev) {
		if (dma_fence_wait(prev, false) || dma_fence_get_status(prev) != 1)
			s->errors++;
		dma_fence_put(prev);
	}
	return NULL;
}

KTEST(request_two_threads_submit_concurrently)
{
	struct i915_device *i915 = i915_test_device(false);
	struct submitter s[2];
	struct i915_test_buf target;
	pthread_t t[2];

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(i915_test_buf_init(&target, i915, 4096, 0), 0);
	for (int i = 0; i < 2; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].i915 = i915;
		s[i].target = &target;
		s[i].slot = (unsigned int)i;
		s[i].n = 1000 * ktest_scale();
		ASSERT_EQ(i915_context_create(i915, &s[i].ctx), 0);
	}
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, submit_thread, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(s[i].errors, 0);
		EXPECT_EQ(s[i].order_errors, 0);
		EXPECT_EQ(i915_test_read32(&target, 4 * (size_t)i), s[i].n);
		EXPECT_EQ(atomic_load(&s[i].ctx->active), 0);
		i915_context_put(s[i].ctx);
	}
	EXPECT_EQ(i915_engine_hws_seqno(i915_engine_get(i915, I915_ENGINE_RCS)), 2 * s[0].n);
	i915_test_buf_fini(&target);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

/* --- the driver's fault points --- */

/*
 * A refused context allocation (ctx_alloc) is -ENOMEM: no context comes
 * back and no id is used up (the next context gets the one the failed call
 * would have had) and the next context runs requests. A device whose kernel
 * context cannot be allocated is not made; LeakSanitizer checks its unwind.
 */
KTEST(context_create_alloc_failure_enomem)
{
	struct i915_device *i915, *none = NULL;
	struct i915_context *a = NULL, *b = NULL;
	struct sim_gpu_config cfg;
	struct i915_engine *rcs;
	struct dma_fence *f;
	int ret;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	i915 = i915_test_device(false);
	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	ASSERT_EQ(i915_context_create(i915, &a), 0);
	i915_test_fail_next(&i915_fault_ctx_alloc);
	ret = i915_context_create(i915, &b);
	EXPECT_TRUE(i915_test_fault_fired());
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_NULL(b);
	ASSERT_EQ(i915_context_create(i915, &b), 0);
	EXPECT_EQ(b->id, a->id + 1);
	ASSERT_EQ(i915_request_submit(rcs, b, NULL, 0, 0, &f), 0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	EXPECT_EQ(atomic_load(&b->active), 0);
	dma_fence_put(f);
	i915_context_put(a);
	i915_context_put(b);
	EXPECT_EQ(i915_device_destroy(i915), 0);

	i915_test_config(&cfg);
	i915_test_fail_next(&i915_fault_ctx_alloc);
	ret = i915_device_create_sim(&cfg, &none);
	EXPECT_TRUE(i915_test_fault_fired());
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_NULL(none);
}

/*
 * A request longer than the submit's stack buffer (a store and 60 noops
 * inline) whose dwords cannot be allocated (request_dw_alloc) is refused
 * with -ENOMEM before the ring is touched: no fence, no seqno used, the
 * ring tail and the request list as they were, no fence left alive. The
 * same request then runs with the seqno the refused one would have had and
 * its store lands.
 */
KTEST(request_dw_alloc_failure_leaves_ring_untouched)
{
	enum { NDW = 64 };
	uint32_t cmds[NDW] = {0}, seqno, tail;
	struct i915_test_buf target;
	struct dma_fence *f = NULL;
	struct i915_device *i915;
	struct i915_engine *rcs;
	unsigned long submitted;
	long fences;
	int ret;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	i915 = i915_test_device(false);
	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	ASSERT_EQ(i915_test_buf_init(&target, i915, 4096, 0), 0);
	i915_emit_store_dword_imm(cmds, target.addr + 16, 0x600d);
	/* One short request first, so the ring is not at its start. */
	ASSERT_EQ(i915_request_submit(rcs, NULL, NULL, 0, 0, &f), 0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	dma_fence_put(f);
	f = NULL;
	pthread_mutex_lock(&rcs->lock);
	seqno = rcs->next_seqno;
	tail = rcs->tail;
	pthread_mutex_unlock(&rcs->lock);
	submitted = atomic_load(&rcs->stats.submitted);
	fences = dma_fence_live_count();

	i915_test_fail_next(&i915_fault_request_dw_alloc);
	ret = i915_request_submit(rcs, NULL, cmds, NDW, 0, &f);
	EXPECT_TRUE(i915_test_fault_fired());
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_NULL(f);
	pthread_mutex_lock(&rcs->lock);
	EXPECT_UEQ(rcs->next_seqno, seqno);
	EXPECT_UEQ(rcs->tail, tail);
	EXPECT_TRUE(list_empty(&rcs->requests));
	pthread_mutex_unlock(&rcs->lock);
	EXPECT_UEQ(atomic_load(&rcs->stats.submitted), submitted);
	EXPECT_EQ(dma_fence_live_count(), fences);
	EXPECT_EQ(i915_test_read32(&target, 16), 0);

	ASSERT_EQ(i915_request_submit(rcs, NULL, cmds, NDW, 0, &f), 0);
	EXPECT_UEQ(f->seqno, seqno);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	EXPECT_UEQ(i915_engine_hws_seqno(rcs), seqno);
	EXPECT_EQ(i915_test_read32(&target, 16), 0x600d);
	dma_fence_put(f);
	i915_test_buf_fini(&target);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

/*
 * Probing fails cleanly at each of its device_alloc hits (the device, the
 * back end, each engine's ring): -ENOMEM, no device, nothing left behind (the
 * sanitizer build checks the memory); once the countdown passes every hit,
 * the probe succeeds.
 */
KTEST(device_create_alloc_failure_each_hit_enomem)
{
	struct sim_gpu_config cfg;
	unsigned int failed = 0;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	i915_test_config(&cfg);
	for (unsigned long nth = 1; nth < 64; nth++) {
		struct i915_device *i915 = NULL;
		int ret;

		fault_thread_fail_nth(&i915_fault_device_alloc, nth);
		ret = i915_device_create_sim(&cfg, &i915);
		if (!i915_test_fault_fired()) {
			ASSERT_EQ(ret, 0);
			EXPECT_EQ(i915_device_destroy(i915), 0);
			break;
		}
		EXPECT_EQ(ret, -ENOMEM);
		EXPECT_NULL(i915);
		failed++;
	}
	/* The device, the back end and at least render and blitter rings. */
	EXPECT_TRUE(failed >= 4);
}

/*
 * A blitter copy whose command buffer cannot be allocated (blt_alloc) is
 * -ENOMEM with no fence and nothing submitted; the same copy then runs.
 */
KTEST(blt_copy_alloc_failure_submits_nothing)
{
	struct i915_test_buf src, dst;
	struct dma_fence *f = NULL;
	struct i915_device *i915;
	struct i915_engine *bcs;
	unsigned long submitted;
	int ret;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	i915 = i915_test_device(false);
	ASSERT_NOT_NULL(i915);
	bcs = i915_engine_get(i915, I915_ENGINE_BCS);
	ASSERT_EQ(i915_test_buf_init(&src, i915, 4096, 0), 0);
	ASSERT_EQ(i915_test_buf_init(&dst, i915, 4096, 0), 0);
	memset(src.mem, 0x5a, 4096);
	submitted = atomic_load(&bcs->stats.submitted);

	i915_test_fail_next(&i915_fault_blt_alloc);
	ret = i915_blt_copy(i915, NULL, dst.addr, src.addr, 4096, &f);
	EXPECT_TRUE(i915_test_fault_fired());
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_NULL(f);
	EXPECT_UEQ(atomic_load(&bcs->stats.submitted), submitted);

	ASSERT_EQ(i915_blt_copy(i915, NULL, dst.addr, src.addr, 4096, &f), 0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	dma_fence_put(f);
	EXPECT_UEQ(i915_test_read32(&dst, 0), 0x5a5a5a5a);
	i915_test_buf_fini(&dst);
	i915_test_buf_fini(&src);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

/*
 * Run time per context and engine: a context's requests count on the
 * engine they ran on and nowhere else, another context's not at all; a
 * request queued behind another counts from when that one ended, so the
 * contexts of one engine never add up to more than the time that passed.
 */
KTEST(context_runtime_counts_its_requests_on_their_engine)
{
	struct i915_device *i915 = i915_test_device(false);
	struct i915_context *a, *b;
	struct i915_engine *rcs;
	struct dma_fence *f = NULL;
	int64_t t0, t1;
	uint64_t ra, rb;

	ASSERT_NOT_NULL(i915);
	rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	ASSERT_EQ(i915_context_create(i915, &a), 0);
	ASSERT_EQ(i915_context_create(i915, &b), 0);
	EXPECT_EQ(i915_context_runtime_ns(a, I915_ENGINE_RCS), 0);
	t0 = dma_fence_now_ns();
	for (int i = 0; i < 16; i++) {
		dma_fence_put(f);
		ASSERT_EQ(i915_request_submit(rcs, i & 1 ? b : a, NULL, 0, 0, &f), 0);
	}
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	dma_fence_put(f);
	t1 = dma_fence_now_ns();
	ra = i915_context_runtime_ns(a, I915_ENGINE_RCS);
	rb = i915_context_runtime_ns(b, I915_ENGINE_RCS);
	EXPECT_GT(ra, 0);
	EXPECT_GT(rb, 0);
	EXPECT_LE(ra + rb, (uint64_t)(t1 - t0));
	EXPECT_EQ(i915_context_runtime_ns(a, I915_ENGINE_BCS), 0);
	EXPECT_EQ(i915_context_runtime_ns(b, I915_ENGINE_BCS), 0);
	/* Idle: nothing grows. */
	EXPECT_EQ(i915_context_runtime_ns(a, I915_ENGINE_RCS), ra);
	/* Only the submitting context gains. */
	ASSERT_EQ(i915_request_submit(rcs, b, NULL, 0, 0, &f), 0);
	EXPECT_EQ(dma_fence_wait(f, false), 0);
	dma_fence_put(f);
	EXPECT_EQ(i915_context_runtime_ns(a, I915_ENGINE_RCS), ra);
	EXPECT_GT(i915_context_runtime_ns(b, I915_ENGINE_RCS), rb);
	EXPECT_EQ(i915_context_runtime_ns(NULL, I915_ENGINE_RCS), 0);
	EXPECT_EQ(i915_context_runtime_ns(a, I915_NUM_ENGINES), 0);
	i915_context_put(a);
	i915_context_put(b);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}
