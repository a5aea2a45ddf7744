/* SPDX-License-Identifier: MIT */
/*
 * What the command-streamer tests of the simulated GPU (test-sim-cmds,
 * test-sim-threaded) share: one GGTT layout (the two engines' rings and
 * status pages, a batch area, data above them), a small device, host pages
 * to back the GGTT, and the rings set up. ASSERTs: the case's own thread.
 */
#ifndef SIM_TEST_COMMON_H
#define SIM_TEST_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "sim_gpu.h"

#define PG SIM_PAGE_SIZE
#define RCS_RING (0 * PG)
#define BCS_RING (8 * PG)
#define RING_SIZE (8 * PG)
#define RCS_HWS (16 * PG)
#define BCS_HWS (17 * PG)
#define BATCH (32 * PG)
#define DATA (64 * PG)

/* A 64 MiB GGTT with a 16 MiB aperture; the caller sets stolen, sync mode, latency. */
static inline void sim_test_config(struct sim_gpu_config *cfg, uint32_t hangcheck_ms)
{
	sim_gpu_config_init(cfg);
	cfg->ggtt_size = 64ull << 20;
	cfg->aperture_size = 16ull << 20;
	cfg->hangcheck_ms = hangcheck_ms;
}

/* @pages zeroed host pages, page-aligned, for the GGTT to point at; free() them. */
static inline uint8_t *sim_test_host(size_t pages)
{
	uint8_t *host = aligned_alloc(PG, pages * PG);

	ASSERT_NOT_NULL(host);
	memset(host, 0, pages * PG);
	return host;
}

/* Both engines' rings and status pages at their place in the layout. */
static inline void sim_test_rings(struct sim_gpu *gpu)
{
	ASSERT_EQ(sim_engine_set_ring(gpu, SIM_RCS, RCS_RING, RING_SIZE), 0);
	ASSERT_EQ(sim_engine_set_ring(gpu, SIM_BCS, BCS_RING, RING_SIZE), 0);
	ASSERT_EQ(sim_engine_set_hws(gpu, SIM_RCS, RCS_HWS), 0);
	ASSERT_EQ(sim_engine_set_hws(gpu, SIM_BCS, BCS_HWS), 0);
}

#endif /* SIM_TEST_COMMON_H */
