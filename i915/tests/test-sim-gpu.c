/* SPDX-License-Identifier: MIT */
/*
 * Device creation, GGTT entries and address resolution, CPU access through
 * the aperture and lmem, and the register file of the simulated GPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "sim_gpu.h"

static struct sim_gpu *make_gpu(uint64_t lmem)
{
	struct sim_gpu_config cfg;
	struct sim_gpu *gpu = NULL;

	sim_gpu_config_init(&cfg);
	cfg.ggtt_size = 64ull << 20;
	cfg.aperture_size = 16ull << 20;
	cfg.stolen_size = 1ull << 20;
	cfg.lmem_size = lmem;
	cfg.lmem_visible_size = lmem / 2;
	cfg.synchronous = true;
	if (sim_gpu_create(&cfg, &gpu))
		return NULL;
	return gpu;
}

KTEST(sim_gpu_create_defaults)
{
	struct sim_gpu_config cfg;
	struct sim_gpu *gpu = NULL;

	sim_gpu_config_init(&cfg);
	EXPECT_EQ(cfg.gen, 12);
	EXPECT_UEQ(cfg.ggtt_size, 4ull << 30);
	EXPECT_EQ(cfg.hangcheck_ms, 1000);
	EXPECT_FALSE(cfg.synchronous);
	EXPECT_GT(cfg.idle_poll_us, 0);
	EXPECT_LE(cfg.idle_poll_us, SIM_IDLE_POLL_MAX_US);
	ASSERT_EQ(sim_gpu_create(&cfg, &gpu), 0);
	EXPECT_EQ(sim_gpu_get_config(gpu)->ring_size[SIM_BCS], 32u << 10);
	EXPECT_TRUE(sim_engine_is_idle(gpu, SIM_RCS));
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_CTL(SIM_RCS_BASE)), SIM_RING_CTL_SIZE(32u << 10));
	sim_gpu_destroy(gpu);
}

KTEST(sim_gpu_create_alloc_fails)
{
	struct sim_gpu_config cfg;
	struct sim_gpu *gpu = NULL;

	sim_gpu_config_init(&cfg);
	cfg.synchronous = true;
	/* The first hit is the state itself, the second its GGTT entries and memories. */
	for (unsigned long nth = 1; FAULT_INJECT_ENABLED && nth <= 2; nth++) {
		fault_thread_fail_nth(&sim_fault_gpu_alloc, nth);
		EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -ENOMEM);
		EXPECT_EQ(fault_thread_nth_pending(), 0ul);
		fault_thread_fail_nth(NULL, 0);
	}
	ASSERT_EQ(sim_gpu_create(&cfg, &gpu), 0);
	sim_gpu_destroy(gpu);
}

KTEST(sim_gpu_create_rejects_bad_config)
{
	struct sim_gpu_config cfg;
	struct sim_gpu *gpu = NULL;

	sim_gpu_config_init(&cfg);
	cfg.gen = 7;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
	sim_gpu_config_init(&cfg);
	cfg.idle_poll_us = SIM_IDLE_POLL_MAX_US + 1;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
	sim_gpu_config_init(&cfg);
	cfg.gen = 11;
	cfg.lmem_size = 1 << 20;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
	sim_gpu_config_init(&cfg);
	cfg.aperture_size = cfg.ggtt_size * 2;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
	sim_gpu_config_init(&cfg);
	cfg.ggtt_size = 12345;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
	sim_gpu_config_init(&cfg);
	cfg.ring_size[SIM_RCS] = 100;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
	sim_gpu_config_init(&cfg);
	cfg.lmem_size = 1 << 20;
	cfg.lmem_visible_size = 2 << 20;
	EXPECT_EQ(sim_gpu_create(&cfg, &gpu), -EINVAL);
}

KTEST(sim_ggtt_pte_range_checks)
{
	struct sim_gpu *gpu = make_gpu(0);
	uint64_t n = (64ull << 20) >> SIM_PAGE_SHIFT, ptes[2] = {0, 0};
	void *page = aligned_alloc(SIM_PAGE_SIZE, SIM_PAGE_SIZE);

	ASSERT_NOT_NULL(gpu);
	ASSERT_NOT_NULL(page);
	EXPECT_EQ(sim_ggtt_write_pte(gpu, 5, sim_pte_host(page)), 0);
	EXPECT_UEQ(sim_ggtt_read_pte(gpu, 5), sim_pte_host(page));
	EXPECT_UEQ(sim_ggtt_read_pte(gpu, 5) & SIM_PTE_PRESENT, SIM_PTE_PRESENT);
	EXPECT_EQ(sim_ggtt_write_pte(gpu, n, 1), -EINVAL);
	EXPECT_UEQ(sim_ggtt_read_pte(gpu, n), 0);
	EXPECT_EQ(sim_ggtt_insert(gpu, n - 1, ptes, 2), -EINVAL);
	EXPECT_EQ(sim_ggtt_insert(gpu, n - 2, ptes, 2), 0);
	EXPECT_EQ(sim_ggtt_clear(gpu, 5, 1), 0);
	EXPECT_UEQ(sim_ggtt_read_pte(gpu, 5), 0);
	EXPECT_EQ(sim_ggtt_clear(gpu, n, 1), -EINVAL);
	EXPECT_EQ(sim_ggtt_insert_host(gpu, 0, (char *)page + 1, 1), -EINVAL);
	EXPECT_UEQ(sim_pte_stolen(0x3000), 0x3000 | SIM_PTE_STOLEN | SIM_PTE_PRESENT);
	EXPECT_UEQ(sim_pte_lmem(0x5000), 0x5000 | SIM_PTE_LM | SIM_PTE_PRESENT);
	sim_gpu_destroy(gpu);
	free(page);
}

KTEST(sim_aperture_rw_across_scattered_pages)
{
	struct sim_gpu *gpu = make_gpu(0);
	enum { N = 8 };
	uint8_t *host = aligned_alloc(SIM_PAGE_SIZE, N * SIM_PAGE_SIZE);
	uint8_t *src = malloc(N * SIM_PAGE_SIZE), *dst = malloc(N * SIM_PAGE_SIZE);

	ASSERT_NOT_NULL(gpu);
	ASSERT_NOT_NULL(host);
	ASSERT_NOT_NULL(src);
	ASSERT_NOT_NULL(dst);
	/* GGTT page i -> host page N-1-i: contiguous for the GPU, reversed for the CPU. */
	for (int i = 0; i < N; i++)
		ASSERT_EQ(sim_ggtt_write_pte(gpu, 16 + i,
					     sim_pte_host(host + (N - 1 - i) * SIM_PAGE_SIZE)),
			  0);
	for (int i = 0; i < N * (int)SIM_PAGE_SIZE; i++)
		src[i] = (uint8_t)(ktest_rand() >> 7);
	ASSERT_EQ(sim_aperture_write(gpu, 16 * SIM_PAGE_SIZE + 100, src, N * SIM_PAGE_SIZE - 200),
		  0);
	ASSERT_EQ(sim_aperture_read(gpu, 16 * SIM_PAGE_SIZE + 100, dst, N * SIM_PAGE_SIZE - 200),
		  0);
	EXPECT_MEMEQ(src, dst, N * SIM_PAGE_SIZE - 200);
	/* Page 0 of the GGTT range is the host's last page. */
	EXPECT_MEMEQ(host + (N - 1) * SIM_PAGE_SIZE + 100, src, SIM_PAGE_SIZE - 100);
	EXPECT_TRUE(sim_aperture_map(gpu, 17 * SIM_PAGE_SIZE) == host + (N - 2) * SIM_PAGE_SIZE);
	EXPECT_NULL(sim_aperture_map(gpu, 40 * SIM_PAGE_SIZE));
	EXPECT_NULL(sim_aperture_map(gpu, 16ull << 20));
	sim_gpu_destroy(gpu);
	free(host);
	free(src);
	free(dst);
}

KTEST(sim_aperture_faults_and_limits)
{
	struct sim_gpu *gpu = make_gpu(0);
	uint8_t *host = aligned_alloc(SIM_PAGE_SIZE, SIM_PAGE_SIZE);
	uint8_t buf[64];

	ASSERT_NOT_NULL(gpu);
	ASSERT_NOT_NULL(host);
	memset(host, 0x5a, SIM_PAGE_SIZE);
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 3, sim_pte_host(host)), 0);
	memset(buf, 0xee, sizeof(buf));
	/* Crosses into non-present page 4: nothing may be written. */
	EXPECT_EQ(sim_aperture_write(gpu, 4 * SIM_PAGE_SIZE - 32, buf, 64), -EFAULT);
	EXPECT_EQ(host[SIM_PAGE_SIZE - 1], 0x5a);
	EXPECT_EQ(sim_aperture_read(gpu, 4 * SIM_PAGE_SIZE - 32, buf, 64), -EFAULT);
	EXPECT_EQ(sim_aperture_read(gpu, (16ull << 20) - 8, buf, 16), -EINVAL);
	/* Stolen PTE beyond the stolen size is not valid memory. */
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 6, sim_pte_stolen(2ull << 20)), 0);
	EXPECT_EQ(sim_aperture_read(gpu, 6 * SIM_PAGE_SIZE, buf, 4), -EFAULT);
	/* A null host address is never dereferenced. */
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 7, SIM_PTE_PRESENT), 0);
	EXPECT_EQ(sim_aperture_read(gpu, 7 * SIM_PAGE_SIZE, buf, 4), -EFAULT);
	sim_gpu_destroy(gpu);
	free(host);
}

KTEST(sim_stolen_reachable_only_through_aperture)
{
	struct sim_gpu *gpu = make_gpu(0);
	uint32_t v = 0xcafef00d, r = 0;

	ASSERT_NOT_NULL(gpu);
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 9, sim_pte_stolen(0x10000)), 0);
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 10, sim_pte_stolen(0x10000)), 0);
	EXPECT_EQ(sim_aperture_write(gpu, 9 * SIM_PAGE_SIZE + 8, &v, 4), 0);
	/* Two GGTT pages aliasing one stolen page see the same bytes. */
	EXPECT_EQ(sim_aperture_read(gpu, 10 * SIM_PAGE_SIZE + 8, &r, 4), 0);
	EXPECT_UEQ(r, v);
	sim_gpu_destroy(gpu);
}

KTEST(sim_lmem_cpu_visible_prefix)
{
	struct sim_gpu *gpu = make_gpu(4ull << 20);
	uint32_t *p, r = 0;

	ASSERT_NOT_NULL(gpu);
	p = sim_lmem_cpu_ptr(gpu, 0x2000);
	ASSERT_NOT_NULL(p);
	*p = 0x1234;
	EXPECT_NULL(sim_lmem_cpu_ptr(gpu, 2ull << 20));
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 20, sim_pte_lmem(0x2000)), 0);
	EXPECT_EQ(sim_aperture_read(gpu, 20 * SIM_PAGE_SIZE, &r, 4), 0);
	EXPECT_UEQ(r, 0x1234);
	ASSERT_EQ(sim_ggtt_write_pte(gpu, 21, sim_pte_lmem(4ull << 20)), 0);
	EXPECT_EQ(sim_aperture_read(gpu, 21 * SIM_PAGE_SIZE, &r, 4), -EFAULT);
	sim_gpu_destroy(gpu);
}

KTEST(sim_reg_ring_registers)
{
	struct sim_gpu *gpu = make_gpu(0);
	uint32_t b = SIM_BCS_BASE;

	ASSERT_NOT_NULL(gpu);
	EXPECT_EQ(sim_engine_mmio_base(SIM_RCS), SIM_RCS_BASE);
	EXPECT_EQ(sim_engine_mmio_base((enum sim_engine_id)SIM_NUM_ENGINES), 0);
	EXPECT_STREQ(sim_engine_name(SIM_BCS), "bcs0");
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_START(b), 0x10000), 0);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_START(b)), 0x10000);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_START(b), 0x10010), -EINVAL);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_CTL(b), SIM_RING_CTL_SIZE(8192)), 0);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_TAIL(b), 4), -EINVAL);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_TAIL(b), 8192), -EINVAL);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_ACTHD(b), 0), -EINVAL);
	EXPECT_EQ(sim_reg_write(gpu, 0x12345, 0), -EINVAL);
	EXPECT_EQ(sim_reg_read(gpu, 0x12345), 0);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_CCID(b), 77), 0);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_CCID(b)), 77);
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_GPR(b, 3) + 4, 0xabc), 0);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_GPR(b, 3) + 4), 0xabc);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_GPR(b, 3)), 0);
	EXPECT_EQ(sim_engine_set_ring(gpu, SIM_BCS, 0x20000, 3000), -EINVAL);
	EXPECT_EQ(sim_engine_set_ring(gpu, SIM_BCS, 0x20000, 16384), 0);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_CTL(b)), SIM_RING_CTL_SIZE(16384));
	EXPECT_EQ(sim_engine_set_hws(gpu, SIM_BCS, 0x30000), 0);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_HWS_PGA(b)), 0x30000);
	/* No memory mapped behind the status page: reads give 0. */
	EXPECT_EQ(sim_engine_read_hws(gpu, SIM_BCS, 4), 0);
	sim_gpu_destroy(gpu);
}

KTEST(sim_reg_busy_while_work_queued)
{
	struct sim_gpu *gpu = make_gpu(0);
	uint8_t *ring = aligned_alloc(SIM_PAGE_SIZE, SIM_PAGE_SIZE);
	uint32_t noop[2] = {0, 0};

	ASSERT_NOT_NULL(gpu);
	ASSERT_NOT_NULL(ring);
	ASSERT_EQ(sim_ggtt_insert_host(gpu, 0, ring, 1), 0);
	ASSERT_EQ(sim_engine_set_ring(gpu, SIM_RCS, 0, SIM_PAGE_SIZE), 0);
	ASSERT_EQ(sim_engine_submit(gpu, SIM_RCS, noop, 2), 0);
	EXPECT_FALSE(sim_engine_is_idle(gpu, SIM_RCS));
	EXPECT_EQ(sim_reg_write(gpu, SIM_RING_HEAD(SIM_RCS_BASE), 0), -EBUSY);
	EXPECT_EQ(sim_engine_set_ring(gpu, SIM_RCS, 0, SIM_PAGE_SIZE), -EBUSY);
	EXPECT_EQ(sim_engine_run_until_idle(gpu, SIM_RCS), 0);
	EXPECT_EQ(sim_engine_get_head(gpu, SIM_RCS), 8);
	EXPECT_TRUE(sim_engine_is_idle(gpu, SIM_RCS));
	EXPECT_EQ(sim_engine_wait_idle(gpu, SIM_RCS, 10), -EINVAL);
	EXPECT_EQ(sim_error_state_get(gpu, SIM_RCS, &(struct sim_error_state){0}), -ENOENT);
	sim_gpu_destroy(gpu);
	free(ring);
}

KTEST(sim_engine_submit_space_and_wrap)
{
	struct sim_gpu *gpu = make_gpu(0);
	uint8_t *ring = aligned_alloc(SIM_PAGE_SIZE, SIM_PAGE_SIZE);
	uint32_t cmds[1000];

	ASSERT_NOT_NULL(gpu);
	ASSERT_NOT_NULL(ring);
	memset(cmds, 0, sizeof(cmds));
	EXPECT_EQ(sim_engine_submit(gpu, SIM_RCS, cmds, 2), -EFAULT);
	ASSERT_EQ(sim_ggtt_insert_host(gpu, 0, ring, 1), 0);
	ASSERT_EQ(sim_engine_set_ring(gpu, SIM_RCS, 0, SIM_PAGE_SIZE), 0);
	/* 1024 dwords of ring, a qword kept free. */
	EXPECT_EQ(sim_engine_submit(gpu, SIM_RCS, cmds, 1000), 0);
	EXPECT_EQ(sim_engine_submit(gpu, SIM_RCS, cmds, 30), -ENOSPC);
	EXPECT_EQ(sim_engine_run_until_idle(gpu, SIM_RCS), 0);
	/* Odd count: padded with one MI_NOOP; then wraps past the end. */
	EXPECT_EQ(sim_engine_submit(gpu, SIM_RCS, cmds, 99), 0);
	EXPECT_EQ(sim_reg_read(gpu, SIM_RING_TAIL(SIM_RCS_BASE)), (4000 + 400) % 4096);
	EXPECT_EQ(sim_engine_run_until_idle(gpu, SIM_RCS), 0);
	EXPECT_EQ(sim_engine_cmd_count(gpu, SIM_RCS), 1100);
	sim_gpu_destroy(gpu);
	free(ring);
}
