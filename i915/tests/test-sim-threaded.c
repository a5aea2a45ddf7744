/* SPDX-License-Identifier: MIT */
/*
 * The threaded device: streamer threads woken by tail writes, the interrupt
 * thread, semaphores released by the CPU, hangcheck and reset, the gpu_hang
 * fault point, concurrent submitters and the latency model.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <testlib/clock.h>

#include <i915/i915_cmds.h>

#include "ktest.h"
#include "sim_gpu.h"
#include "sim_test_common.h"

#define NPAGES 128

struct fx {
	struct sim_gpu *gpu;
	uint8_t *host;
	atomic_uint irq_calls;
	atomic_uint irq_bits;
	atomic_uint err_calls;
	atomic_int err_reason;
	atomic_uint err_ctx;
	atomic_uint hws_seen;
};

/* @idle_poll_us: UINT32_MAX keeps the default. */
static void fx_init_cfg(struct fx *fx, uint32_t hangcheck_ms, const struct sim_latency *lat,
			uint32_t idle_poll_us)
{
	struct sim_gpu_config cfg;

	memset(fx, 0, sizeof(*fx));
	sim_test_config(&cfg, hangcheck_ms);
	cfg.stolen_size = 0;
	if (lat)
		cfg.latency = *lat;
	if (idle_poll_us != UINT32_MAX)
		cfg.idle_poll_us = idle_poll_us;
	ASSERT_EQ(sim_gpu_create(&cfg, &fx->gpu), 0);
	fx->host = sim_test_host(NPAGES);
	ASSERT_EQ(sim_ggtt_insert_host(fx->gpu, 0, fx->host, NPAGES), 0);
	sim_test_rings(fx->gpu);
}

static void fx_init_lat(struct fx *fx, uint32_t hangcheck_ms, const struct sim_latency *lat)
{
	fx_init_cfg(fx, hangcheck_ms, lat, UINT32_MAX);
}

static void fx_init(struct fx *fx, uint32_t hangcheck_ms)
{
	fx_init_lat(fx, hangcheck_ms, NULL);
}

static void fx_fini(struct fx *fx)
{
	sim_gpu_destroy(fx->gpu);
	free(fx->host);
}

static uint32_t *host32(struct fx *fx, uint64_t ggtt)
{
	return (uint32_t *)(fx->host + ggtt);
}

static uint32_t rd32(struct fx *fx, uint64_t ggtt)
{
	return __atomic_load_n(host32(fx, ggtt), __ATOMIC_ACQUIRE);
}

static void on_irq(void *data, enum sim_engine_id e, uint32_t iir)
{
	struct fx *fx = data;

	atomic_fetch_add(&fx->irq_calls, 1);
	atomic_fetch_or(&fx->irq_bits, iir);
	/* Handlers may read device state: the seqno the interrupt announces. */
	atomic_store(&fx->hws_seen, sim_engine_read_hws(fx->gpu, e, 0x10));
}

static void on_error(void *data, enum sim_engine_id e, enum sim_error_reason reason, uint32_t ctx)
{
	struct fx *fx = data;

	(void)e;
	atomic_fetch_add(&fx->err_calls, 1);
	atomic_store(&fx->err_reason, (int)reason);
	atomic_store(&fx->err_ctx, ctx);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

KTEST(threaded_store_dword_wakes_on_tail)
{
	struct fx fx;
	uint32_t b[16], *cs = b;

	fx_init(&fx, 1000);
	cs = i915_emit_store_dword_imm(cs, DATA, 0x600d);
	cs = i915_emit_store_dword_index(cs, 0x40, 1);
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 0x600d);
	EXPECT_UEQ(sim_engine_read_hws(fx.gpu, SIM_RCS, 0x10), 1);
	EXPECT_EQ(sim_engine_run_until_idle(fx.gpu, SIM_RCS), -EINVAL);
	fx_fini(&fx);
}

/*
 * Work submitted while the engine thread polls its doorbell (right after it
 * went idle) and after it gave up and slept must both run, through
 * sim_engine_submit() and through a TAIL register write, with the poll off,
 * at its default and at its longest.
 */
KTEST(threaded_submit_reaches_polling_and_sleeping_engine)
{
	const uint32_t polls[] = {0, UINT32_MAX, SIM_IDLE_POLL_MAX_US};

	for (unsigned int p = 0; p < sizeof(polls) / sizeof(polls[0]); p++) {
		struct fx fx;
		uint32_t window_ms, value = 0;

		fx_init_cfg(&fx, 1000, NULL, polls[p]);
		window_ms = sim_gpu_get_config(fx.gpu)->idle_poll_us / 1000 + 1;
		for (int round = 0; round < 6; round++) {
			uint32_t b[8], *cs = b;

			/* Even rounds: at once (polling); odd: after the window (asleep). */
			if (round & 1)
				sleep_ms(2 * window_ms);
			cs = i915_emit_store_dword_imm(cs, DATA, ++value);
			if (round < 4) {
				ASSERT_EQ(
				    sim_engine_submit(fx.gpu, SIM_BCS, b, (unsigned int)(cs - b)),
				    0);
			} else {
				/* Write the ring by hand, then ring through TAIL. */
				uint32_t tail = sim_reg_read(fx.gpu, SIM_RING_TAIL(SIM_BCS_BASE));

				memcpy(fx.host + BCS_RING + tail, b, sizeof(uint32_t) * 4);
				ASSERT_EQ(sim_reg_write(fx.gpu, SIM_RING_TAIL(SIM_BCS_BASE),
							(tail + 16) % RING_SIZE),
					  0);
			}
			EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_BCS, 5000), 0);
			EXPECT_UEQ(rd32(&fx, DATA), value);
		}
		fx_fini(&fx);
	}
}

KTEST(threaded_interrupts_delivered_and_coalesced)
{
	struct fx fx;
	unsigned int n = 200 * ktest_scale();

	fx_init(&fx, 1000);
	sim_set_irq_handler(fx.gpu, on_irq, &fx);
	for (unsigned int i = 1; i <= n; i++) {
		uint32_t b[8], *cs = b;
		int ret;

		cs = i915_emit_store_dword_index(cs, 0x40, i);
		cs = i915_emit_user_interrupt(cs);
		while ((ret = sim_engine_submit(fx.gpu, SIM_BCS, b, (unsigned int)(cs - b))) ==
		       -ENOSPC)
			sleep_ms(1);
		ASSERT_EQ(ret, 0);
	}
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_BCS, 5000), 0);
	/* wait_idle returns only once the interrupt thread has delivered everything. */
	EXPECT_GE(atomic_load(&fx.irq_calls), 1);
	EXPECT_LE(atomic_load(&fx.irq_calls), n);
	EXPECT_EQ(atomic_load(&fx.irq_bits), SIM_IRQ_USER);
	EXPECT_EQ(atomic_load(&fx.hws_seen), n);
	EXPECT_EQ(sim_engine_read_hws(fx.gpu, SIM_BCS, 0x10), n);
	fx_fini(&fx);
}

KTEST(threaded_semaphore_released_by_cpu)
{
	struct fx fx;
	uint32_t b[16], *cs = b;

	fx_init(&fx, 5000);
	cs = i915_emit_semaphore_wait(cs, DATA + 64, MI_SEMAPHORE_SAD_GTE_SDD, 5);
	cs = i915_emit_store_dword_imm(cs, DATA, 1);
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	sleep_ms(20);
	EXPECT_FALSE(sim_engine_is_idle(fx.gpu, SIM_RCS));
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 10), -ETIMEDOUT);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	__atomic_store_n(host32(&fx, DATA + 64), 4, __ATOMIC_RELEASE);
	sleep_ms(5);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	__atomic_store_n(host32(&fx, DATA + 64), 5, __ATOMIC_RELEASE);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 1);
	fx_fini(&fx);
}

KTEST(threaded_hang_detected_then_reset_recovers)
{
	struct fx fx;
	uint32_t b[32], *cs = b;
	struct sim_error_state es;
	uint64_t t0;

	fx_init(&fx, 50);
	sim_set_irq_handler(fx.gpu, on_irq, &fx);
	sim_set_error_handler(fx.gpu, on_error, &fx);
	cs = i915_emit_lri(cs, SIM_RING_CCID(SIM_RCS_BASE), 0x77);
	cs = i915_emit_semaphore_wait(cs, DATA + 64, MI_SEMAPHORE_SAD_EQ_SDD, 1);
	cs = i915_emit_store_dword_imm(cs, DATA, 1);
	t0 = (testlib_now_ns() / 1000000);
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), -EIO);
	EXPECT_GE((testlib_now_ns() / 1000000) - t0, 50);
	EXPECT_TRUE(sim_engine_is_stopped(fx.gpu, SIM_RCS));
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_HANG);
	EXPECT_UEQ(es.ctx_id, 0x77);
	EXPECT_EQ(atomic_load(&fx.err_calls), 1);
	EXPECT_EQ(atomic_load(&fx.err_reason), SIM_ERR_HANG);
	EXPECT_UEQ(atomic_load(&fx.err_ctx), 0x77);
	EXPECT_TRUE(atomic_load(&fx.irq_bits) & SIM_IRQ_CS_ERROR);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	/* Drop the hung work; a later request runs normally. */
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	EXPECT_FALSE(sim_engine_is_stopped(fx.gpu, SIM_RCS));
	cs = i915_emit_store_dword_imm(b, DATA + 4, 2);
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), 0);
	EXPECT_UEQ(rd32(&fx, DATA + 4), 2);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	fx_fini(&fx);
}

KTEST(threaded_gpu_hang_fault_point)
{
	struct fx fx;
	uint32_t batch[8], *bb = batch, b[4];
	struct sim_error_state es;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out (fault_inject=false)");
	fx_init(&fx, 40);
	bb = i915_emit_store_dword_imm(bb, DATA, 9);
	bb = i915_emit_bb_end(bb);
	ASSERT_EQ(sim_aperture_write(fx.gpu, BATCH, batch, 4 * (unsigned int)(bb - batch)), 0);
	i915_emit_bb_start(b, BATCH);
	fault_reset(&sim_fault_gpu_hang);
	fault_set_nth(&sim_fault_gpu_hang, 1);
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_BCS, b, 3), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_BCS, 5000), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_BCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_HANG);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	EXPECT_EQ(sim_fault_gpu_hang.fired, 1);
	/* Replay the same batch after a reset to its start: the point is spent. */
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_BCS, es.head), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_BCS, 5000), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 9);
	fault_reset(&sim_fault_gpu_hang);
	fx_fini(&fx);
}

KTEST(threaded_reset_abandons_wait)
{
	struct fx fx;
	uint32_t b[16], *cs = b;

	fx_init(&fx, SIM_HANGCHECK_OFF);
	cs = i915_emit_semaphore_wait(cs, DATA + 64, MI_SEMAPHORE_SAD_EQ_SDD, 1);
	cs = i915_emit_store_dword_imm(cs, DATA, 1);
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	sleep_ms(10);
	EXPECT_FALSE(sim_engine_is_idle(fx.gpu, SIM_RCS));
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	/* Work left waiting at destroy must not keep the device alive. */
	ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	fx_fini(&fx);
}

struct submitter {
	struct fx *fx;
	enum sim_engine_id e;
	unsigned int n;
	uint64_t slot;
	int failures;
};

static void *submit_thread(void *arg)
{
	struct submitter *s = arg;

	for (unsigned int i = 1; i <= s->n; i++) {
		uint32_t b[8], *cs = i915_emit_store_dword_imm(b, s->slot, i);
		int ret;

		while ((ret = sim_engine_submit(s->fx->gpu, s->e, b, (unsigned int)(cs - b))) ==
		       -ENOSPC)
			sched_yield();
		if (ret)
			s->failures++;
	}
	return NULL;
}

KTEST(threaded_concurrent_submitters)
{
	struct fx fx;
	struct submitter s[4];
	pthread_t t[4];

	fx_init(&fx, 1000);
	for (int i = 0; i < 4; i++) {
		s[i] = (struct submitter){&fx, i < 2 ? SIM_RCS : SIM_BCS, 500 * ktest_scale(),
					  DATA + 8 * (uint64_t)i, 0};
		ASSERT_EQ(pthread_create(&t[i], NULL, submit_thread, &s[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_BCS, 5000), 0);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(s[i].failures, 0);
		/* Per submitter order is kept: the last store wins. */
		EXPECT_UEQ(rd32(&fx, s[i].slot), s[i].n);
	}
	EXPECT_EQ(sim_engine_cmd_count(fx.gpu, SIM_RCS), 2 * 500 * ktest_scale());
	fx_fini(&fx);
}

KTEST(threaded_latency_model_costs_time)
{
	struct fx fx;
	struct sim_latency lat = {.cmd_ns = 0, .byte_ps = 0, .batch_ns = 3000000};
	uint32_t batch[2] = {MI_BATCH_BUFFER_END, MI_NOOP}, b[4];
	uint64_t t0;

	fx_init_lat(&fx, 1000, &lat);
	ASSERT_EQ(sim_aperture_write(fx.gpu, BATCH, batch, 8), 0);
	i915_emit_bb_start(b, BATCH);
	b[3] = MI_NOOP;
	t0 = (testlib_now_ns() / 1000000);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(sim_engine_submit(fx.gpu, SIM_RCS, b, 4), 0);
	EXPECT_EQ(sim_engine_wait_idle(fx.gpu, SIM_RCS, 5000), 0);
	/* Four batches at 3 ms each cannot finish in less than 12 ms. */
	EXPECT_GE((testlib_now_ns() / 1000000) - t0, 12);
	EXPECT_EQ(sim_engine_batch_count(fx.gpu, SIM_RCS), 4);
	fx_fini(&fx);
}
