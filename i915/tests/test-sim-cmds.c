/* SPDX-License-Identifier: MIT */
/*
 * The command parser in synchronous mode: every modelled command, its
 * malformed forms, GPU page faults, blits against a CPU reference over
 * scattered host pages, batch nesting and the error-state dump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <i915/i915_cmds.h>

#include "ktest.h"
#include "sim_gpu.h"
#include "sim_test_common.h"

#define DATA_PAGES 512
#define NPAGES (64 + DATA_PAGES)
#define UNMAPPED (1024 * PG)

struct fx {
	struct sim_gpu *gpu;
	uint8_t *host;
	unsigned int irq_calls;
	uint32_t irq_bits;
};

static void fx_init(struct fx *fx, uint32_t hangcheck_ms)
{
	struct sim_gpu_config cfg;
	unsigned int perm[NPAGES];

	memset(fx, 0, sizeof(*fx));
	sim_test_config(&cfg, hangcheck_ms);
	cfg.stolen_size = 1ull << 20;
	cfg.synchronous = true;
	ASSERT_EQ(sim_gpu_create(&cfg, &fx->gpu), 0);
	fx->host = sim_test_host(NPAGES);
	/* Shuffle the host pages behind the GGTT so that no run is host-contiguous by luck. */
	for (unsigned int i = 0; i < NPAGES; i++)
		perm[i] = i;
	for (unsigned int i = NPAGES - 1; i > 0; i--) {
		unsigned int j = (unsigned int)(ktest_rand() % (i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned int i = 0; i < NPAGES; i++)
		ASSERT_EQ(
		    sim_ggtt_write_pte(fx->gpu, i, sim_pte_host(fx->host + (size_t)perm[i] * PG)),
		    0);
	sim_test_rings(fx->gpu);
}

static void fx_fini(struct fx *fx)
{
	sim_gpu_destroy(fx->gpu);
	free(fx->host);
}

static int run_ring(struct fx *fx, enum sim_engine_id e, const uint32_t *dw, unsigned int n)
{
	int ret = sim_engine_submit(fx->gpu, e, dw, n);

	return ret ? ret : sim_engine_run_until_idle(fx->gpu, e);
}

/* Copy @dw to the batch area and start it from the ring. */
static int run_batch(struct fx *fx, enum sim_engine_id e, const uint32_t *dw, unsigned int n)
{
	uint32_t start[3];

	if (sim_aperture_write(fx->gpu, BATCH, dw, 4 * n))
		return -EFAULT;
	i915_emit_bb_start(start, BATCH);
	return run_ring(fx, e, start, 3);
}

static uint32_t rd32(struct fx *fx, uint64_t addr)
{
	uint32_t v = 0;

	sim_aperture_read(fx->gpu, addr, &v, 4);
	return v;
}

static uint64_t rd64(struct fx *fx, uint64_t addr)
{
	uint64_t v = 0;

	sim_aperture_read(fx->gpu, addr, &v, 8);
	return v;
}

static enum sim_error_reason last_reason(struct fx *fx, enum sim_engine_id e)
{
	struct sim_error_state es;

	return sim_error_state_get(fx->gpu, e, &es) ? SIM_ERR_NONE : es.reason;
}

KTEST(cmd_store_dword_imm_readback)
{
	struct fx fx;
	uint32_t b[64], *cs = b;

	fx_init(&fx, 100);
	for (int i = 0; i < 8; i++)
		cs = i915_emit_store_dword_imm(cs, DATA + 4096 * i + 4 * i, 0x1000u + i);
	cs = i915_emit_store_qword_imm(cs, DATA + 8 * PG, 0x1122334455667788ull);
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	for (int i = 0; i < 8; i++)
		EXPECT_UEQ(rd32(&fx, DATA + 4096 * i + 4 * i), 0x1000u + i);
	EXPECT_UEQ(rd64(&fx, DATA + 8 * PG), 0x1122334455667788ull);
	EXPECT_EQ(sim_engine_batch_count(fx.gpu, SIM_RCS), 1);
	EXPECT_EQ(sim_engine_cmd_count(fx.gpu, SIM_RCS), 1 + 9 + 1 + 1); /* + ring pad NOOP */
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_NONE);
	fx_fini(&fx);
}

KTEST(cmd_store_dword_in_ring_and_index)
{
	struct fx fx;
	uint32_t b[16], *cs = b;

	fx_init(&fx, 100);
	cs = i915_emit_store_dword_imm(cs, DATA, 7);
	cs = i915_emit_store_dword_index(cs, 0x40, 99);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 7);
	EXPECT_UEQ(sim_engine_read_hws(fx.gpu, SIM_RCS, 0x10), 99);
	EXPECT_UEQ(rd32(&fx, RCS_HWS + 0x40), 99);
	fx_fini(&fx);
}

KTEST(cmd_store_dword_misaligned_or_ppgtt)
{
	struct fx fx;
	uint32_t b[8], *cs = b;

	fx_init(&fx, 100);
	cs = i915_emit_store_dword_imm(cs, DATA + 2, 7);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_CMD);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	i915_emit_store_dword_imm(b, DATA, 7);
	b[0] &= ~MI_USE_GGTT;
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 4), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_CMD);
	fx_fini(&fx);
}

KTEST(cmd_flush_dw_post_sync)
{
	struct fx fx;
	uint32_t b[32], *cs = b;

	fx_init(&fx, 100);
	cs = i915_emit_flush_dw_store(cs, DATA + 16, 0xdead);
	cs = i915_emit_flush_dw_store_qword(cs, DATA + 24, 0xabcdef0123ull);
	*cs++ = (MI_FLUSH_DW | MI_FLUSH_DW_OP_STOREDW | MI_FLUSH_DW_STORE_INDEX) + 1;
	*cs++ = 0x80;
	*cs++ = 0;
	*cs++ = 42;
	*cs++ = (MI_FLUSH_DW | MI_INVALIDATE_TLB) + 1;
	*cs++ = 0;
	*cs++ = 0;
	*cs++ = 0;
	EXPECT_EQ(run_ring(&fx, SIM_BCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_UEQ(rd32(&fx, DATA + 16), 0xdead);
	EXPECT_UEQ(rd64(&fx, DATA + 24), 0xabcdef0123ull);
	EXPECT_UEQ(sim_engine_read_hws(fx.gpu, SIM_BCS, 0x20), 42);
	/* Not a render command. */
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 4), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_WRONG_ENGINE);
	fx_fini(&fx);
}

KTEST(cmd_pipe_control_qword_write)
{
	struct fx fx;
	uint32_t b[8], *cs = b;

	fx_init(&fx, 100);
	cs = i915_emit_pipe_control_store(cs, DATA + 64, 0x55aa55aa12345678ull);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_UEQ(rd64(&fx, DATA + 64), 0x55aa55aa12345678ull);
	EXPECT_EQ(run_ring(&fx, SIM_BCS, b, 6), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_WRONG_ENGINE);
	fx_fini(&fx);
}

KTEST(cmd_lri_ccid_and_srm_gpr)
{
	struct fx fx;
	uint32_t b[32], *cs = b;
	struct sim_error_state es;

	fx_init(&fx, 100);
	cs = i915_emit_lri(cs, SIM_RING_CCID(SIM_RCS_BASE), 0xc0ffee);
	*cs++ = MI_LOAD_REGISTER_IMM(2);
	*cs++ = SIM_RING_GPR(SIM_RCS_BASE, 2);
	*cs++ = 0x11111111;
	*cs++ = SIM_RING_GPR(SIM_RCS_BASE, 2) + 4;
	*cs++ = 0x22222222;
	cs = i915_emit_store_register_mem(cs, SIM_RING_GPR(SIM_RCS_BASE, 2) + 4, DATA);
	cs = i915_emit_store_register_mem(cs, SIM_RING_CCID(SIM_RCS_BASE), DATA + 4);
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_UEQ(sim_reg_read(fx.gpu, SIM_RING_CCID(SIM_RCS_BASE)), 0xc0ffee);
	EXPECT_UEQ(sim_reg_read(fx.gpu, SIM_RING_GPR(SIM_RCS_BASE, 2)), 0x11111111);
	EXPECT_UEQ(rd32(&fx, DATA), 0x22222222);
	EXPECT_UEQ(rd32(&fx, DATA + 4), 0xc0ffee);
	/* An unmodelled register is a bad command; the error carries the context tag. */
	cs = i915_emit_lri(b, 0x4000, 1);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_BAD_CMD);
	EXPECT_UEQ(es.ctx_id, 0xc0ffee);
	fx_fini(&fx);
}

/* RING_TIMESTAMP: read-only, both dwords, in order with the CPU's samples and each other. */
KTEST(cmd_srm_ring_timestamp)
{
	const uint32_t base = SIM_BCS_BASE;
	struct timespec nap = {.tv_nsec = 2000000};
	struct fx fx;
	uint32_t b[32], *cs = b;
	uint64_t before, after, first, second, t0, t1;

	fx_init(&fx, 100);
	cs = i915_emit_store_register_mem(cs, SIM_RING_TIMESTAMP(base), DATA);
	cs = i915_emit_store_register_mem(cs, SIM_RING_TIMESTAMP_UDW(base), DATA + 4);
	cs = i915_emit_color_blt(cs, 4, DATA + 4096, 4096, 0, 0, 1024, 16, 0x5a5a5a5a);
	cs = i915_emit_store_register_mem(cs, SIM_RING_TIMESTAMP(base), DATA + 8);
	cs = i915_emit_store_register_mem(cs, SIM_RING_TIMESTAMP_UDW(base), DATA + 12);
	cs = i915_emit_bb_end(cs);
	before = sim_engine_timestamp(fx.gpu, SIM_BCS);
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), 0);
	after = sim_engine_timestamp(fx.gpu, SIM_BCS);
	first = rd64(&fx, DATA);
	second = rd64(&fx, DATA + 8);
	EXPECT_ULE(before, first);
	EXPECT_ULE(first, second);
	EXPECT_ULE(second, after);
	/* One clock for all engines, readable through MMIO, and it runs. */
	t0 = sim_engine_timestamp(fx.gpu, SIM_RCS);
	EXPECT_ULE(after, t0);
	nanosleep(&nap, NULL);
	t1 = ((uint64_t)sim_reg_read(fx.gpu, SIM_RING_TIMESTAMP_UDW(SIM_RCS_BASE)) << 32) |
	     sim_reg_read(fx.gpu, SIM_RING_TIMESTAMP(SIM_RCS_BASE));
	/* 2 ms at 19.2 MHz; the high dword read first may only make it smaller by a wrap. */
	EXPECT_TRUE(t1 - t0 >= 2 * SIM_CS_TIMESTAMP_HZ / 1000 || t1 < t0);
	EXPECT_UEQ(sim_engine_timestamp(fx.gpu, SIM_NUM_ENGINES), 0);
	/* Read-only: MMIO writes are refused, LRI to it stops the engine. */
	EXPECT_EQ(sim_reg_write(fx.gpu, SIM_RING_TIMESTAMP(base), 0), -EINVAL);
	cs = i915_emit_lri(b, SIM_RING_TIMESTAMP(base), 0);
	EXPECT_EQ(run_ring(&fx, SIM_BCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_BAD_CMD);
	fx_fini(&fx);
}

static void count_irq(void *data, enum sim_engine_id e, uint32_t iir)
{
	struct fx *fx = data;

	(void)e;
	fx->irq_calls++;
	fx->irq_bits |= iir;
}

KTEST(cmd_user_interrupt_coalesced_in_sync_mode)
{
	struct fx fx;
	uint32_t b[8] = {MI_NOOP,	    MI_ARB_CHECK,      MI_USER_INTERRUPT,
			 MI_USER_INTERRUPT, MI_USER_INTERRUPT, MI_NOOP};

	fx_init(&fx, 100);
	sim_set_irq_handler(fx.gpu, count_irq, &fx);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 6), 0);
	EXPECT_EQ(fx.irq_calls, 1);
	EXPECT_EQ(fx.irq_bits, SIM_IRQ_USER);
	/* Masked in IMR: dropped. */
	fx.irq_calls = 0;
	EXPECT_EQ(sim_reg_write(fx.gpu, SIM_RING_IMR(SIM_RCS_BASE), SIM_IRQ_USER), 0);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 6), 0);
	EXPECT_EQ(fx.irq_calls, 0);
	fx_fini(&fx);
}

KTEST(cmd_malformed_length_stops_engine)
{
	struct fx fx;
	uint32_t b[8] = {MI_INSTR(0x20, 5) | MI_USE_GGTT, DATA, 0, 1, 2, 3, 4, 5};
	uint32_t ok[4];
	struct sim_error_state es;

	fx_init(&fx, 100);
	sim_set_irq_handler(fx.gpu, count_irq, &fx);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 8), -EIO);
	EXPECT_TRUE(sim_engine_is_stopped(fx.gpu, SIM_RCS));
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_BAD_LENGTH);
	EXPECT_EQ(es.head, 0);
	EXPECT_UEQ(es.acthd, RCS_RING);
	EXPECT_UEQ(es.cmd[0], b[0]);
	EXPECT_EQ(es.batch_depth, 0);
	EXPECT_EQ(es.count, 1);
	EXPECT_TRUE(fx.irq_bits & SIM_IRQ_CS_ERROR);
	/* Stopped: new work waits; a reset to the tail drops the bad command. */
	i915_emit_store_dword_imm(ok, DATA, 5);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, ok, 4), -EIO);
	EXPECT_UEQ(rd32(&fx, DATA), 0);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, 32), 0);
	EXPECT_EQ(sim_engine_run_until_idle(fx.gpu, SIM_RCS), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 5);
	fx_fini(&fx);
}

KTEST(cmd_length_crossing_tail)
{
	struct fx fx;
	uint32_t b[4];

	fx_init(&fx, 100);
	i915_emit_store_dword_imm(b, DATA, 1); /* only the header dword goes in */
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 1), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_LENGTH);
	fx_fini(&fx);
}

KTEST(cmd_unknown_opcodes)
{
	static const uint32_t bad[] = {
	    MI_INSTR(0x3f, 0),				/* unknown MI */
	    (1u << 29) | 5,				/* reserved client */
	    (I915_CLIENT_2D << 29) | (0x7fu << 22) | 8, /* unknown 2D */
	    (I915_CLIENT_3D << 29) | (0x1u << 24),	/* 3D but not PIPE_CONTROL */
	};
	struct fx fx;

	fx_init(&fx, 100);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t b[2] = {bad[i], 0};

		EXPECT_EQ(run_ring(&fx, SIM_BCS, b, 2), -EIO);
		EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_UNKNOWN_CMD);
		EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_BCS, SIM_RESET_TO_TAIL), 0);
	}
	fx_fini(&fx);
}

static int sem_run(struct fx *fx, uint32_t op, uint32_t data)
{
	uint32_t b[8], *cs = b;

	cs = i915_emit_semaphore_wait(cs, DATA + 128, op, data);
	cs = i915_emit_store_dword_imm(cs, DATA + 132, data);
	return run_ring(fx, SIM_RCS, b, (unsigned int)(cs - b));
}

KTEST(cmd_semaphore_compare_ops)
{
	struct fx fx;
	uint32_t v = 10;

	fx_init(&fx, 30);
	ASSERT_EQ(sim_aperture_write(fx.gpu, DATA + 128, &v, 4), 0);
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_GT_SDD, 9), 0);
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_GTE_SDD, 10), 0);
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_LT_SDD, 11), 0);
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_LTE_SDD, 10), 0);
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_EQ_SDD, 10), 0);
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_NEQ_SDD, 3), 0);
	EXPECT_UEQ(rd32(&fx, DATA + 132), 3);
	/* Never satisfied: hangcheck stops the engine. */
	EXPECT_EQ(sem_run(&fx, MI_SEMAPHORE_SAD_EQ_SDD, 11), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_HANG);
	EXPECT_UEQ(rd32(&fx, DATA + 132), 3);
	fx_fini(&fx);
}

KTEST(cmd_page_fault_recorded)
{
	struct fx fx;
	uint32_t b[16], *cs = b;
	struct sim_error_state es;

	fx_init(&fx, 100);
	cs = i915_emit_store_dword_imm(cs, DATA, 1);
	cs = i915_emit_store_dword_imm(cs, UNMAPPED + 12, 2);
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_PAGE_FAULT);
	EXPECT_UEQ(es.fault_addr, UNMAPPED + 12);
	EXPECT_UEQ(es.acthd, BATCH + 16);
	EXPECT_EQ(es.batch_depth, 1);
	EXPECT_EQ(es.head, 0);
	EXPECT_UEQ(es.cmd[1], UNMAPPED + 12);
	EXPECT_UEQ(rd32(&fx, DATA), 1);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	/* A batch that is not mapped at all faults on the fetch; so does one beyond the GGTT. */
	i915_emit_bb_start(b, UNMAPPED);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 3), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_PAGE_FAULT);
	EXPECT_UEQ(es.fault_addr, UNMAPPED);
	EXPECT_EQ(es.count, 2);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	i915_emit_bb_start(b, 1ull << 40);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, b, 3), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_PAGE_FAULT);
	fx_fini(&fx);
}

KTEST(cmd_batch_chain_and_second_level)
{
	struct fx fx;
	uint32_t b[64], *cs = b, sub[8], *s = sub, deep[4];

	fx_init(&fx, 100);
	/* Second-level batch at BATCH + 0x800: store, then return. */
	s = i915_emit_store_dword_imm(s, DATA + 4, 22);
	s = i915_emit_bb_end(s);
	ASSERT_EQ(sim_aperture_write(fx.gpu, BATCH + 0x800, sub, 4 * (unsigned int)(s - sub)), 0);
	/* First-level chain target at BATCH + 0x400: store, end. */
	s = i915_emit_store_dword_imm(sub, DATA + 8, 33);
	s = i915_emit_bb_end(s);
	ASSERT_EQ(sim_aperture_write(fx.gpu, BATCH + 0x400, sub, 4 * (unsigned int)(s - sub)), 0);
	cs = i915_emit_store_dword_imm(cs, DATA, 11);
	cs = i915_emit_bb_call(cs, BATCH + 0x800);
	cs = i915_emit_bb_start(cs, BATCH + 0x400);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_UEQ(rd32(&fx, DATA), 11);
	EXPECT_UEQ(rd32(&fx, DATA + 4), 22);
	EXPECT_UEQ(rd32(&fx, DATA + 8), 33);
	EXPECT_EQ(sim_engine_batch_count(fx.gpu, SIM_RCS), 1);
	/* A second-level batch calling another is too deep. */
	i915_emit_bb_call(deep, BATCH + 0x800);
	ASSERT_EQ(sim_aperture_write(fx.gpu, BATCH + 0x800, deep, 12), 0);
	cs = i915_emit_bb_call(b, BATCH + 0x800);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_CMD);
	fx_fini(&fx);
}

KTEST(cmd_endless_batch_hangs)
{
	struct fx fx;
	uint32_t b[4], *cs = b;

	fx_init(&fx, 30);
	cs = i915_emit_noop(cs);
	cs = i915_emit_bb_start(cs, BATCH);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_HANG);
	EXPECT_GT(sim_engine_cmd_count(fx.gpu, SIM_RCS), 1000);
	fx_fini(&fx);
}

/* A GGTT MI_CONDITIONAL_BATCH_BUFFER_END on DATA with @flags, then a store of 1. */
static uint32_t *emit_cond_end_ggtt(uint32_t *cs, uint32_t flags, uint32_t data)
{
	*cs++ = MI_CONDITIONAL_BATCH_BUFFER_END | MI_COND_BB_END_GGTT | flags;
	*cs++ = data;
	*cs++ = (uint32_t)DATA;
	*cs++ = 0;
	return i915_emit_store_dword_imm(cs, DATA + 8, 1);
}

KTEST(cmd_conditional_batch_end)
{
	static const struct {
		uint32_t mem, data, op;
		bool ends;
	} cases[] = {
	    /* The gen8 compare: go on while memory > data. */
	    {0xffffffffu, MI_BATCH_BUFFER_END, MI_SEMAPHORE_SAD_GT_SDD, false},
	    {MI_BATCH_BUFFER_END, MI_BATCH_BUFFER_END, MI_SEMAPHORE_SAD_GT_SDD, true},
	    {0, 1, MI_SEMAPHORE_SAD_GT_SDD, true},
	    {5, 5, MI_SEMAPHORE_SAD_GTE_SDD, false},
	    {4, 5, MI_SEMAPHORE_SAD_GTE_SDD, true},
	    {4, 5, MI_SEMAPHORE_SAD_LT_SDD, false},
	    {5, 5, MI_SEMAPHORE_SAD_LTE_SDD, false},
	    {6, 5, MI_SEMAPHORE_SAD_LTE_SDD, true},
	    {5, 5, MI_SEMAPHORE_SAD_EQ_SDD, false},
	    {5, 5, MI_SEMAPHORE_SAD_NEQ_SDD, true},
	    {6, 5, MI_SEMAPHORE_SAD_NEQ_SDD, false},
	};
	struct fx fx;
	uint32_t b[32], *cs, sub[16], *s;

	fx_init(&fx, 100);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t zero = 0;

		ASSERT_EQ(sim_aperture_write(fx.gpu, DATA, &cases[i].mem, 4), 0);
		ASSERT_EQ(sim_aperture_write(fx.gpu, DATA + 8, &zero, 4), 0);
		cs = emit_cond_end_ggtt(b, MI_DO_COMPARE | cases[i].op, cases[i].data);
		cs = i915_emit_bb_end(cs);
		EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
		EXPECT_UEQ(rd32(&fx, DATA + 8), cases[i].ends ? 0 : 1);
	}
	/* Without MI_DO_COMPARE the command does nothing. */
	cs = emit_cond_end_ggtt(b, 0, 0xffffffffu);
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
	EXPECT_UEQ(rd32(&fx, DATA + 8), 1);

	/*
	 * In a second-level batch (DATA holds 0, so the compare ends): the
	 * whole batch ends, or with CURRENT_LEVEL only the called one.
	 */
	for (int level = 0; level < 2; level++) {
		uint32_t zero = 0;

		ASSERT_EQ(sim_aperture_write(fx.gpu, DATA, &zero, 4), 0);
		ASSERT_EQ(sim_aperture_write(fx.gpu, DATA + 8, &zero, 4), 0);
		ASSERT_EQ(sim_aperture_write(fx.gpu, DATA + 12, &zero, 4), 0);
		s = emit_cond_end_ggtt(
		    sub, MI_DO_COMPARE | (level ? MI_COND_BB_END_CURRENT_LEVEL : 0), 0);
		s = i915_emit_bb_end(s);
		ASSERT_EQ(
		    sim_aperture_write(fx.gpu, BATCH + 0x800, sub, 4 * (unsigned int)(s - sub)), 0);
		cs = i915_emit_bb_call(b, BATCH + 0x800);
		cs = i915_emit_store_dword_imm(cs, DATA + 12, 7);
		cs = i915_emit_bb_end(cs);
		EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), 0);
		EXPECT_UEQ(rd32(&fx, DATA + 8), 0);
		EXPECT_UEQ(rd32(&fx, DATA + 12), level ? 7 : 0);
	}

	/* Malformed: a bad compare mode, a wrong length, an unmapped address, a ppGTT one. */
	cs = emit_cond_end_ggtt(b, MI_DO_COMPARE | (6u << MI_SEMAPHORE_COMPARE_SHIFT), 0);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_CMD);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	cs = emit_cond_end_ggtt(b, MI_DO_COMPARE, 0);
	b[0] += 1;
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_LENGTH);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	cs = emit_cond_end_ggtt(b, MI_DO_COMPARE, 0);
	b[2] = (uint32_t)UNMAPPED;
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_PAGE_FAULT);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	cs = emit_cond_end_ggtt(b, MI_DO_COMPARE, 0);
	b[0] &= ~MI_COND_BB_END_GGTT;
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_BAD_CMD);
	fx_fini(&fx);
}

/* ---- blits --------------------------------------------------------------- */

#define REGION (DATA_PAGES / 2 * PG)

static void fill_random(struct fx *fx, uint64_t addr, size_t len, uint8_t *shadow)
{
	for (size_t i = 0; i < len; i++)
		shadow[i] = (uint8_t)(ktest_rand() >> 11);
	ASSERT_EQ(sim_aperture_write(fx->gpu, addr, shadow, len), 0);
}

/* Random rectangle copies/fills; each result compared with the CPU model. */
static void blit_round(struct fx *fx, int kind, unsigned int cpp, uint8_t *src, uint8_t *ref,
		       uint8_t *got)
{
	uint32_t w = 1 + (uint32_t)(ktest_rand() % 300), h = 1 + (uint32_t)(ktest_rand() % 40);
	uint32_t dx = (uint32_t)(ktest_rand() % 64), dy = (uint32_t)(ktest_rand() % 8);
	uint32_t sx = (uint32_t)(ktest_rand() % 64), sy = (uint32_t)(ktest_rand() % 8);
	uint32_t dpitch = (dx + w) * cpp + (uint32_t)(ktest_rand() % 3) * 1000;
	uint32_t spitch = (sx + w) * cpp + (uint32_t)(ktest_rand() % 3) * 700;
	uint32_t color = (uint32_t)ktest_rand();
	uint64_t dst = DATA + REGION, srca = DATA;
	uint32_t b[16], *cs = b;

	if (ktest_rand() % 2) { /* pitch == row: the linear fast path */
		dx = sx = 0;
		dpitch = spitch = w * cpp;
	}
	if (kind == 0)
		cs = i915_emit_color_blt(cs, cpp, dst, dpitch, dx, dy, w, h, color);
	else if (kind == 1)
		cs = i915_emit_src_copy_blt(cs, cpp, dst, dpitch, dx, dy, srca, spitch, sx, sy, w,
					    h);
	else
		cs = i915_emit_fast_copy_blt(cs, dst + (uint64_t)dy * dpitch + dx * cpp, dpitch,
					     srca + (uint64_t)sy * spitch + sx * cpp, spitch,
					     w * cpp, h);
	cs = i915_emit_bb_end(cs);
	for (uint32_t y = 0; y < h; y++) {
		uint8_t *d = ref + (size_t)(dy + y) * dpitch + (size_t)dx * cpp;

		if (kind == 0)
			for (uint32_t i = 0; i < w * cpp; i++)
				d[i] = (uint8_t)(color >> (8 * (i % cpp)));
		else
			memmove(d, src + (size_t)(sy + y) * spitch + (size_t)sx * cpp, w * cpp);
	}
	ASSERT_EQ(run_batch(fx, SIM_BCS, b, (unsigned int)(cs - b)), 0);
	ASSERT_EQ(sim_aperture_read(fx->gpu, dst, got, REGION), 0);
	EXPECT_MEMEQ(got, ref, REGION);
}

KTEST(cmd_blits_match_cpu_reference)
{
	struct fx fx;
	uint8_t *src = malloc(REGION), *ref = malloc(REGION), *got = malloc(REGION);
	static const unsigned int cpps[] = {1, 2, 4};

	ASSERT_NOT_NULL(src);
	ASSERT_NOT_NULL(ref);
	ASSERT_NOT_NULL(got);
	fx_init(&fx, 1000);
	fill_random(&fx, DATA, REGION, src);
	fill_random(&fx, DATA + REGION, REGION, ref);
	for (unsigned int round = 0; round < 6 * ktest_scale(); round++)
		for (int kind = 0; kind < 3; kind++)
			for (unsigned int c = 0; c < 3; c++)
				blit_round(&fx, kind, cpps[c], src, ref, got);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_NONE);
	fx_fini(&fx);
	free(src);
	free(ref);
	free(got);
}

/*
 * Colour fills whose pixels straddle page edges: an odd destination base,
 * an odd width and a pitch that is no multiple of the depth, strided and
 * linear (pitch == row, more than one replicated block long), at each
 * depth, compared byte for byte with a CPU model.
 */
KTEST(cmd_color_blt_odd_base_pitch_each_depth)
{
	static const unsigned int cpps[] = {1, 2, 4};
	uint8_t *ref = malloc(REGION), *got = malloc(REGION);
	struct fx fx;

	ASSERT_NOT_NULL(ref);
	ASSERT_NOT_NULL(got);
	fx_init(&fx, 1000);
	fill_random(&fx, DATA + REGION, REGION, ref);
	for (unsigned int c = 0; c < 3; c++) {
		for (int linear = 0; linear < 2; linear++) {
			unsigned int cpp = cpps[c];
			uint32_t w = linear ? 3001 : 1237, h = linear ? 5 : 9, x = linear ? 0 : 3;
			uint32_t pitch = linear ? w * cpp : (x + w) * cpp + 5;
			uint32_t color = 0x89abcdefu ^ (c * 0x01010101u);
			uint64_t base = 7 + 4096 * c + 1024 * (uint64_t)linear;
			uint32_t b[16], *cs = b;

			cs = i915_emit_color_blt(cs, cpp, DATA + REGION + base, pitch, x, 1, w, h,
						 color);
			cs = i915_emit_bb_end(cs);
			for (uint32_t y = 1; y <= h; y++) {
				uint8_t *d = ref + base + (size_t)y * pitch + (size_t)x * cpp;

				for (uint32_t i = 0; i < w * cpp; i++)
					d[i] = (uint8_t)(color >> (8 * (i % cpp)));
			}
			ASSERT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), 0);
			ASSERT_EQ(sim_aperture_read(fx.gpu, DATA + REGION, got, REGION), 0);
			EXPECT_MEMEQ(got, ref, REGION);
		}
	}
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_NONE);
	fx_fini(&fx);
	free(ref);
	free(got);
}

KTEST(cmd_fast_copy_wide_pixels)
{
	struct fx fx;
	uint32_t b[16], *cs = b;
	uint8_t src[512], got[512];

	fx_init(&fx, 100);
	for (int i = 0; i < 512; i++)
		src[i] = (uint8_t)i;
	ASSERT_EQ(sim_aperture_write(fx.gpu, DATA, src, 512), 0);
	/* 128 bpp, 4 x 2 pixels, pitch 128 both sides. */
	cs = i915_emit_fast_copy_blt(cs, DATA + PG, 128, DATA, 128, 4, 2);
	b[1] = XY_FAST_COPY_BPP_128 | 128;
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), 0);
	ASSERT_EQ(sim_aperture_read(fx.gpu, DATA + PG, got, 256), 0);
	EXPECT_MEMEQ(got, src, 64);
	EXPECT_MEMEQ(got + 128, src + 128, 64);
	EXPECT_EQ(got[64], 0);
	/* Tiled or a reserved depth is refused. */
	b[0] |= 1u << 20;
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_BAD_CMD);
	fx_fini(&fx);
}

KTEST(cmd_blit_bad_geometry_and_engine)
{
	struct fx fx;
	uint32_t b[16], *cs;

	fx_init(&fx, 100);
	cs = i915_emit_color_blt(b, 4, DATA, 64, 0, 0, 16, 2, 1);
	b[3] = (1u << 16) | 0; /* x2 < x1 is not the empty rectangle */
	b[2] = (0u << 16) | 4;
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_BAD_CMD);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_BCS, SIM_RESET_TO_TAIL), 0);
	cs = i915_emit_color_blt(b, 4, DATA, 32, 0, 0, 16, 2, 1); /* 64 bytes > pitch 32 */
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_BAD_CMD);
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_BCS, SIM_RESET_TO_TAIL), 0);
	cs = i915_emit_src_copy_blt(b, 4, DATA, 64, 0, 0, DATA + PG, 64, 0, 0, 16, 2);
	b[0] |= XY_SRC_COPY_BLT_DST_TILED;
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_BAD_CMD);
	/* Blits are for the blitter. */
	cs = i915_emit_color_blt(b, 4, DATA, 64, 0, 0, 16, 2, 1);
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_RCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_RCS), SIM_ERR_WRONG_ENGINE);
	/* A copy whose source runs into an unmapped page faults there. */
	EXPECT_EQ(sim_engine_reset(fx.gpu, SIM_BCS, SIM_RESET_TO_TAIL), 0);
	cs = i915_emit_fast_copy_blt(b, DATA, PG, UNMAPPED - PG, PG, 1024, 2);
	cs = i915_emit_bb_end(cs);
	EXPECT_EQ(run_batch(&fx, SIM_BCS, b, (unsigned int)(cs - b)), -EIO);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_PAGE_FAULT);
	fx_fini(&fx);
}

KTEST(sim_error_state_dump_text)
{
	struct fx fx;
	uint32_t b[4];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	fx_init(&fx, 100);
	i915_emit_store_dword_imm(b, UNMAPPED, 1);
	EXPECT_EQ(run_ring(&fx, SIM_BCS, b, 4), -EIO);
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	sim_error_state_dump(fx.gpu, f);
	fclose(f);
	ASSERT_NOT_NULL(text);
	EXPECT_TRUE(strstr(text, "rcs0: no error") != NULL);
	EXPECT_TRUE(strstr(text, "bcs0: error #1: page fault") != NULL);
	EXPECT_TRUE(strstr(text, "fault addr 0x0000000000400000") != NULL);
	EXPECT_TRUE(strstr(text, "cmd 0x10400002") != NULL);
	free(text);
	EXPECT_STREQ(sim_error_reason_name(SIM_ERR_HANG), "hang");
	sim_error_state_clear(fx.gpu, SIM_BCS);
	EXPECT_EQ(last_reason(&fx, SIM_BCS), SIM_ERR_NONE);
	fx_fini(&fx);
}
