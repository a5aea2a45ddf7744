/* SPDX-License-Identifier: MIT */
/*
 * The simulated GPU's per-process GTTs: page-table writes and reads, the
 * VM an engine runs in (RING_PDP0 loaded by MI_LOAD_REGISTER_IMM), every
 * command with a ppGTT address translated through that VM, ppGTT batches,
 * page faults at unmapped ppGTT addresses and VMs destroyed under an
 * engine. Synchronous mode throughout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <i915/i915_cmds.h>

#include "ktest.h"
#include "sim_gpu.h"
#include "sim_test_common.h"

#define NPAGES 64
/* A high ppGTT address with bit 47 set, written in canonical form in commands. */
#define HIGH 0x0000ff0012345000ull
#define HIGH_CANON (HIGH | 0xffff000000000000ull)

struct fx {
	struct sim_gpu *gpu;
	uint8_t *host; /* GGTT pages 0..NPAGES-1 (rings, status pages) */
	uint8_t *mem;  /* pages for the VMs */
};

static void fx_init(struct fx *fx)
{
	struct sim_gpu_config cfg;

	memset(fx, 0, sizeof(*fx));
	sim_test_config(&cfg, 200);
	cfg.synchronous = true;
	ASSERT_EQ(sim_gpu_create(&cfg, &fx->gpu), 0);
	fx->host = sim_test_host(NPAGES);
	fx->mem = sim_test_host(NPAGES);
	ASSERT_EQ(sim_ggtt_insert_host(fx->gpu, 0, fx->host, NPAGES), 0);
	sim_test_rings(fx->gpu);
}

static void fx_fini(struct fx *fx)
{
	sim_gpu_destroy(fx->gpu);
	free(fx->host);
	free(fx->mem);
}

static uint8_t *mem_page(struct fx *fx, unsigned int i)
{
	return fx->mem + (size_t)i * PG;
}

/* Map @count pages of fx->mem from page @first on at VM address @addr. */
static void map(struct fx *fx, uint64_t vm, uint64_t addr, unsigned int first, unsigned int count)
{
	uint64_t ptes[16];

	ASSERT_TRUE(count <= 16);
	for (unsigned int i = 0; i < count; i++)
		ptes[i] = sim_pte_host(mem_page(fx, first + i));
	ASSERT_EQ(sim_vm_insert(fx->gpu, vm, addr >> SIM_PAGE_SHIFT, ptes, count), 0);
}

/* Ring dwords loading @vm into @e's RING_PDP0. */
static uint32_t *emit_load_vm(uint32_t *cs, enum sim_engine_id e, uint64_t vm)
{
	uint32_t base = sim_engine_mmio_base(e);

	cs = i915_emit_lri(cs, SIM_RING_PDP0_UDW(base), (uint32_t)(vm >> 32));
	return i915_emit_lri(cs, SIM_RING_PDP0_LDW(base), (uint32_t)vm);
}

static uint32_t *emit_sdi_ppgtt(uint32_t *cs, uint64_t addr, uint32_t value)
{
	uint32_t *start = cs;

	cs = i915_emit_store_dword_imm(cs, addr, value);
	start[0] &= ~MI_USE_GGTT;
	return cs;
}

static int run_ring(struct fx *fx, enum sim_engine_id e, const uint32_t *dw, unsigned int n)
{
	int ret = sim_engine_submit(fx->gpu, e, dw, n);

	return ret ? ret : sim_engine_run_until_idle(fx->gpu, e);
}

static uint32_t rd(const uint8_t *page, unsigned int off)
{
	uint32_t v;

	memcpy(&v, page + off, 4);
	return v;
}

KTEST(vm_insert_read_clear)
{
	struct fx fx;
	uint64_t a, b, pte = 0;

	fx_init(&fx);
	ASSERT_EQ(sim_vm_create(fx.gpu, &a), 0);
	ASSERT_EQ(sim_vm_create(fx.gpu, &b), 0);
	EXPECT_NE(a, 0);
	EXPECT_NE(a, b);
	EXPECT_EQ(a & (PG - 1), 0);
	EXPECT_EQ(sim_vm_table_pages(fx.gpu, a), 1);
	map(&fx, a, HIGH, 0, 2);
	/* One table per level below the PML4 for two neighbouring pages. */
	EXPECT_EQ(sim_vm_table_pages(fx.gpu, a), 4);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, HIGH >> 12), sim_pte_host(mem_page(&fx, 0)));
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, (HIGH >> 12) + 1), sim_pte_host(mem_page(&fx, 1)));
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, b, HIGH >> 12), 0);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, 0), 0);
	EXPECT_EQ(sim_vm_clear(fx.gpu, a, HIGH >> 12, 1), 0);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, HIGH >> 12), 0);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, (HIGH >> 12) + 1), sim_pte_host(mem_page(&fx, 1)));
	/* Clearing where nothing was ever mapped is fine and allocates nothing. */
	EXPECT_EQ(sim_vm_clear(fx.gpu, a, 0, 4096), 0);
	EXPECT_EQ(sim_vm_table_pages(fx.gpu, a), 4);
	/* Ranges leaving the 48-bit space, unknown handles. */
	EXPECT_EQ(sim_vm_insert(fx.gpu, a, SIM_VM_SIZE >> 12, &pte, 1), -EINVAL);
	EXPECT_EQ(sim_vm_clear(fx.gpu, a, (SIM_VM_SIZE >> 12) - 1, 2), -EINVAL);
	EXPECT_EQ(sim_vm_insert(fx.gpu, a | 0x10000000ull, 0, &pte, 1), -ENOENT);
	EXPECT_EQ(sim_vm_insert(fx.gpu, 0, 0, &pte, 1), -ENOENT);
	EXPECT_EQ(sim_vm_destroy(fx.gpu, a), 0);
	EXPECT_EQ(sim_vm_destroy(fx.gpu, a), -ENOENT);
	EXPECT_EQ(sim_vm_clear(fx.gpu, a, 0, 1), -ENOENT);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, HIGH >> 12), 0);
	/* The slot is reused with the same handle; the old tables are gone. */
	ASSERT_EQ(sim_vm_create(fx.gpu, &a), 0);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, (HIGH >> 12) + 1), 0);
	fx_fini(&fx);
}

KTEST(vm_insert_table_alloc_fails)
{
	struct fx fx;
	uint64_t a, pte;

	fx_init(&fx);
	ASSERT_EQ(sim_vm_create(fx.gpu, &a), 0);
	pte = sim_pte_host(mem_page(&fx, 0));
	ASSERT_EQ(fault_configure("sim_vm_table:probability=100,times=1", NULL, 0), 0);
	EXPECT_EQ(sim_vm_insert(fx.gpu, a, 7, &pte, 1), FAULT_INJECT_ENABLED ? -ENOMEM : 0);
	fault_reset(&sim_fault_vm_table);
	EXPECT_EQ(sim_vm_insert(fx.gpu, a, 7, &pte, 1), 0);
	EXPECT_UEQ(sim_vm_read_pte(fx.gpu, a, 7), pte);
	fx_fini(&fx);
}

KTEST(store_dword_two_vms_same_address)
{
	struct fx fx;
	uint64_t a, b;
	uint32_t ring[64], *cs = ring;

	fx_init(&fx);
	ASSERT_EQ(sim_vm_create(fx.gpu, &a), 0);
	ASSERT_EQ(sim_vm_create(fx.gpu, &b), 0);
	map(&fx, a, HIGH, 0, 1);
	map(&fx, b, HIGH, 1, 1);
	cs = emit_load_vm(cs, SIM_RCS, a);
	cs = emit_sdi_ppgtt(cs, HIGH_CANON + 16, 0xaaaa);
	cs = emit_load_vm(cs, SIM_RCS, b);
	cs = emit_sdi_ppgtt(cs, HIGH + 16, 0xbbbb);
	ASSERT_EQ(run_ring(&fx, SIM_RCS, ring, (unsigned int)(cs - ring)), 0);
	EXPECT_UEQ(rd(mem_page(&fx, 0), 16), 0xaaaa);
	EXPECT_UEQ(rd(mem_page(&fx, 1), 16), 0xbbbb);
	/* The register reads back what was loaded. */
	EXPECT_UEQ(sim_reg_read(fx.gpu, SIM_RING_PDP0_LDW(SIM_RCS_BASE)), (uint32_t)b);
	EXPECT_UEQ(sim_reg_read(fx.gpu, SIM_RING_PDP0_UDW(SIM_RCS_BASE)), (uint32_t)(b >> 32));
	fx_fini(&fx);
}

KTEST(ppgtt_batch_runs_every_command_in_the_vm)
{
	struct fx fx;
	uint64_t vm, batch = HIGH, data = HIGH + 4 * PG;
	uint32_t ring[32], *cs = ring, *b = (uint32_t *)mem_page(&fx, 0);
	uint32_t gpr = SIM_RING_GPR(SIM_BCS_BASE, 0);

	fx_init(&fx);
	b = (uint32_t *)mem_page(&fx, 0);
	ASSERT_EQ(sim_vm_create(fx.gpu, &vm), 0);
	map(&fx, vm, batch, 0, 1);
	map(&fx, vm, data, 4, 4);
	memset(mem_page(&fx, 6), 0x5a, PG);
	cs = b;
	cs = emit_sdi_ppgtt(cs, data, 1);
	/* LRM from the VM into a GPR, SRM of it back to another place in the VM. */
	*cs++ = MI_LOAD_REGISTER_MEM_GEN8;
	*cs++ = gpr;
	*cs++ = (uint32_t)data;
	*cs++ = (uint32_t)(data >> 32);
	*cs++ = MI_STORE_REGISTER_MEM_GEN8;
	*cs++ = gpr;
	*cs++ = (uint32_t)(data + 8);
	*cs++ = (uint32_t)(data >> 32);
	{
		uint32_t *f = cs;

		cs = i915_emit_flush_dw_store(cs, data + 16, 0xf1u);
		f[1] &= ~MI_FLUSH_DW_USE_GTT;
	}
	/* A blit inside a ppGTT batch copies within the VM: page 6 to page 7. */
	cs = i915_emit_fast_copy_blt(cs, data + 3 * PG, PG, data + 2 * PG, PG, PG / 4, 1);
	cs = i915_emit_bb_end(cs);
	cs = emit_load_vm(ring, SIM_BCS, vm);
	cs = i915_emit_bb_start_ppgtt(cs, batch | 0xffff000000000000ull);
	ASSERT_EQ(run_ring(&fx, SIM_BCS, ring, (unsigned int)(cs - ring)), 0);
	EXPECT_UEQ(rd(mem_page(&fx, 4), 0), 1);
	EXPECT_UEQ(rd(mem_page(&fx, 4), 8), 1);
	EXPECT_UEQ(rd(mem_page(&fx, 4), 16), 0xf1);
	EXPECT_UEQ(rd(mem_page(&fx, 7), 100), 0x5a5a5a5a);
	EXPECT_UEQ(sim_engine_batch_count(fx.gpu, SIM_BCS), 1);
	fx_fini(&fx);
}

KTEST(ppgtt_unmapped_address_stops_the_engine)
{
	struct fx fx;
	struct sim_error_state es;
	uint64_t vm;
	uint32_t ring[32], *cs = ring;

	fx_init(&fx);
	ASSERT_EQ(sim_vm_create(fx.gpu, &vm), 0);
	map(&fx, vm, HIGH, 0, 1);
	cs = emit_load_vm(cs, SIM_RCS, vm);
	cs = emit_sdi_ppgtt(cs, HIGH + PG, 7);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, ring, (unsigned int)(cs - ring)), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_PAGE_FAULT);
	EXPECT_TRUE(es.fault_ppgtt);
	EXPECT_UEQ(es.fault_addr, HIGH + PG);
	EXPECT_TRUE(sim_engine_is_stopped(fx.gpu, SIM_RCS));
	ASSERT_EQ(sim_engine_reset(fx.gpu, SIM_RCS, SIM_RESET_TO_TAIL), 0);
	/* A ppGTT batch whose first page is not mapped faults on the fetch. */
	cs = i915_emit_bb_start_ppgtt(ring, HIGH + 8 * PG);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, ring, (unsigned int)(cs - ring)), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_PAGE_FAULT);
	EXPECT_TRUE(es.fault_ppgtt);
	EXPECT_EQ(es.batch_depth, 1);
	fx_fini(&fx);
}

KTEST(ppgtt_without_a_vm_is_a_bad_command)
{
	struct fx fx;
	uint32_t ring[16], *cs;

	fx_init(&fx);
	cs = i915_emit_bb_start_ppgtt(ring, HIGH);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, ring, (unsigned int)(cs - ring)), -EIO);
	{
		struct sim_error_state es;

		ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
		EXPECT_EQ(es.reason, SIM_ERR_BAD_CMD);
		EXPECT_FALSE(es.fault_ppgtt);
	}
	fx_fini(&fx);
}

KTEST(vm_destroyed_while_loaded_faults)
{
	struct fx fx;
	struct sim_error_state es;
	uint64_t vm;
	uint32_t ring[32], *cs = ring;

	fx_init(&fx);
	ASSERT_EQ(sim_vm_create(fx.gpu, &vm), 0);
	map(&fx, vm, HIGH, 0, 1);
	cs = emit_load_vm(cs, SIM_RCS, vm);
	cs = emit_sdi_ppgtt(cs, HIGH, 3);
	ASSERT_EQ(run_ring(&fx, SIM_RCS, ring, (unsigned int)(cs - ring)), 0);
	EXPECT_UEQ(rd(mem_page(&fx, 0), 0), 3);
	ASSERT_EQ(sim_vm_destroy(fx.gpu, vm), 0);
	cs = emit_sdi_ppgtt(ring, HIGH, 4);
	EXPECT_EQ(run_ring(&fx, SIM_RCS, ring, (unsigned int)(cs - ring)), -EIO);
	ASSERT_EQ(sim_error_state_get(fx.gpu, SIM_RCS, &es), 0);
	EXPECT_EQ(es.reason, SIM_ERR_PAGE_FAULT);
	EXPECT_UEQ(rd(mem_page(&fx, 0), 0), 3);
	fx_fini(&fx);
}

/*
 * The gen12 engine set: a DG2-configured device has video, video-enhance
 * and compute engines at their real MMIO bases, executing the MI commands
 * (in a ppGTT too) and refusing what their class lacks; a Tiger Lake one
 * has no compute engine at all.
 */
KTEST(engine_set_per_configuration)
{
	struct sim_gpu_config cfg;
	struct sim_gpu *gpu;
	uint8_t *host = sim_test_host(NPAGES), *mem = sim_test_host(4);
	static const enum sim_engine_id ids[] = {SIM_VCS0, SIM_VCS2, SIM_VECS0, SIM_VECS1,
						 SIM_CCS3};
	uint32_t ring[32], *cs;
	uint64_t vm, pte = sim_pte_host(mem);

	sim_test_config(&cfg, 200);
	cfg.synchronous = true;
	cfg.engine_mask = SIM_ENGINES_TGL;
	ASSERT_EQ(sim_gpu_create(&cfg, &gpu), 0);
	EXPECT_TRUE(sim_engine_present(gpu, SIM_VCS2));
	EXPECT_FALSE(sim_engine_present(gpu, SIM_VCS1));
	EXPECT_FALSE(sim_engine_present(gpu, SIM_CCS0));
	EXPECT_EQ(sim_engine_set_ring(gpu, SIM_CCS0, 0, RING_SIZE), -EINVAL);
	EXPECT_EQ(sim_engine_submit(gpu, SIM_VCS1, ring, 2), -EINVAL);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_CTL(0x1c4000)), 0);
	sim_gpu_destroy(gpu);

	cfg.engine_mask = SIM_ENGINES_DG2;
	ASSERT_EQ(sim_gpu_create(&cfg, &gpu), 0);
	ASSERT_EQ(sim_ggtt_insert_host(gpu, 0, host, NPAGES), 0);
	ASSERT_EQ(sim_vm_create(gpu, &vm), 0);
	ASSERT_EQ(sim_vm_insert(gpu, vm, HIGH >> 12, &pte, 1), 0);
	EXPECT_EQ(sim_engine_class(SIM_CCS3), SIM_CLASS_COMPUTE);
	EXPECT_EQ(sim_engine_instance(SIM_VCS2), 2);
	EXPECT_EQ(sim_engine_mmio_base(SIM_VECS1), 0x1d8000);
	for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		enum sim_engine_id e = ids[i];
		struct sim_error_state es;

		ASSERT_EQ(sim_engine_set_ring(gpu, e, (uint32_t)(8 * i) * PG, 8 * PG), 0);
		ASSERT_EQ(sim_engine_set_hws(gpu, e, (uint32_t)(48 + i) * PG), 0);
		cs = emit_load_vm(ring, e, vm);
		cs = emit_sdi_ppgtt(cs, HIGH + 4 * i, 100 + i);
		cs = i915_emit_store_dword_index(cs, 0x40, 7 + i);
		if (sim_engine_class(e) == SIM_CLASS_COMPUTE)
			cs = i915_emit_pipe_control_store(cs, (uint64_t)(48 + i) * PG + 0x80, 9);
		else
			cs = i915_emit_flush_dw_store(cs, (uint64_t)(48 + i) * PG + 0x80, 9);
		ASSERT_EQ(run_ring(&(struct fx){.gpu = gpu}, e, ring, (unsigned int)(cs - ring)),
			  0);
		EXPECT_UEQ(rd(mem, 4 * i), 100 + i);
		EXPECT_UEQ(sim_engine_read_hws(gpu, e, 0x10), 7 + i);
		EXPECT_UEQ(sim_engine_read_hws(gpu, e, 0x20), 9);
		/* Blits belong to the blitter alone. */
		cs = i915_emit_color_blt(ring, 4, 32 * PG, PG, 0, 0, 1, 1, 0);
		EXPECT_EQ(run_ring(&(struct fx){.gpu = gpu}, e, ring, (unsigned int)(cs - ring)),
			  -EIO);
		ASSERT_EQ(sim_error_state_get(gpu, e, &es), 0);
		EXPECT_EQ(es.reason, SIM_ERR_WRONG_ENGINE);
		EXPECT_EQ(sim_engine_reset(gpu, e, SIM_RESET_TO_TAIL), 0);
	}
	sim_gpu_destroy(gpu);
	free(host);
	free(mem);
}
