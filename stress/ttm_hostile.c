// SPDX-License-Identifier: MIT
/*
 * ttm_hostile - a malformed-ioctl client next to a well-behaved one.
 *
 * One uAPI device (ttm_drm_device on a tiny driver whose fences signal as
 * they are emitted), two clients. The good client creates buffers, maps
 * them through ttm_drm_mmap() and writes a pattern. The hostile client
 * sends every request with random and boundary values in every field, bad
 * descriptors, the good client's handles, its own freed handles and bad
 * request numbers and sizes; now and then it closes and reopens.
 *
 * Proven: every hostile call returns 0 or a negative errno; a request that
 * names a handle the hostile client cannot see is refused; the good
 * client's buffers keep their size, handle and exact content (read back
 * through the mapping every 64 hostile calls, wherever the hostile
 * MM_LOCK/TAKEDOWN requests pushed them); once both clients close, the
 * device tears down with no buffer left and no fence outlives the run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/dma_fence.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>
#include <ttm/ttm_drm_device.h>

#include "igt.h"
#include "stress_util.h"
#include "ttm_mock.h"
#include "ttm_uapi_helpers.h"
#include "ttm_uapi_mock.h"

#define GOOD_BOS 8
#define MAX_ARG 256
#define MAX_HANDLES 64

/* A request and the offsets of the handle it reads and the one it returns. */
struct hs_request {
	unsigned long nr;
	int handle_in;
	int handle_out;
	bool bo_handle; /* handle_in names a buffer (else a fence) */
};

static const struct hs_request hs_requests[] = {
    {DRM_IOCTL_MM_INIT, -1, -1, false},	      {DRM_IOCTL_MM_TAKEDOWN, -1, -1, false},
    {DRM_IOCTL_MM_LOCK, -1, -1, false},	      {DRM_IOCTL_MM_UNLOCK, -1, -1, false},
    {DRM_IOCTL_MM_INFO, -1, -1, false},	      {DRM_IOCTL_FENCE_CREATE, -1, 0, false},
    {DRM_IOCTL_FENCE_REFERENCE, 0, 0, false}, {DRM_IOCTL_FENCE_UNREFERENCE, 0, -1, false},
    {DRM_IOCTL_FENCE_SIGNALED, 0, -1, false}, {DRM_IOCTL_FENCE_FLUSH, 0, -1, false},
    {DRM_IOCTL_FENCE_WAIT, 0, -1, false},     {DRM_IOCTL_FENCE_EMIT, 0, -1, false},
    {DRM_IOCTL_FENCE_BUFFERS, -1, 0, false},  {DRM_IOCTL_BO_CREATE, -1, 48, false},
    {DRM_IOCTL_BO_MAP, 16, -1, true},	      {DRM_IOCTL_BO_UNMAP, 0, -1, true},
    {DRM_IOCTL_BO_REFERENCE, 0, 48, true},    {DRM_IOCTL_BO_UNREFERENCE, 0, -1, true},
    {DRM_IOCTL_BO_SETSTATUS, 16, -1, true},   {DRM_IOCTL_BO_INFO, 0, -1, true},
    {DRM_IOCTL_BO_WAIT_IDLE, 16, -1, true},   {DRM_IOCTL_BO_VERSION, -1, -1, false},
};

#define N_REQUESTS (sizeof(hs_requests) / sizeof(hs_requests[0]))

struct good_bo {
	uint32_t handle;
	uint64_t size;
	uint64_t seed;
	uint64_t *ptr;
};

struct hostile_ctx {
	struct ttm_drm_device ddev;
	int good_fd, bad_fd;
	struct good_bo good[GOOD_BOS];
	uint32_t bad_handles[MAX_HANDLES]; /* the hostile client's own, live or freed */
	unsigned nbad;
	uint64_t rng;
	uint64_t calls, refused, foreign, verified;
	long fences;
};

static void good_create(struct hostile_ctx *c)
{
	for (unsigned i = 0; i < GOOD_BOS; i++) {
		struct good_bo *g = &c->good[i];
		uint64_t flags = DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE;
		struct drm_bo_info_rep rep;
		int err = 0;

		igt_assert_eq(uapi_create_bo(c->good_fd, flags, (1 + i % 4) * TTM_PAGE_SIZE, &rep),
			      0);
		g->handle = rep.handle;
		g->size = rep.size;
		igt_assert_eq_u64(g->size, (1 + i % 4) * TTM_PAGE_SIZE);
		g->ptr = uapi_bo_map(c->good_fd, g->handle, NULL, &err);
		igt_assert_f(g->ptr, "map of the good client's buffer: %d\n", err);
		g->seed = 0x600d0000ull + i;
		for (uint64_t w = 0; w < g->size / 8; w++)
			g->ptr[w] = ttm_mock_pattern(g->seed, w);
	}
}

/* The good client's view: its buffers are there, unchanged, and intact. */
static void good_verify(struct hostile_ctx *c)
{
	for (unsigned i = 0; i < GOOD_BOS; i++) {
		struct good_bo *g = &c->good[i];
		struct drm_bo_info_rep info;

		igt_assert_eq(uapi_bo_info(c->good_fd, g->handle, &info), 0);
		igt_assert_eq_u64(info.size, g->size);
		igt_assert_eq(info.handle, g->handle);
		for (uint64_t w = 0; w < g->size / 8; w++)
			igt_assert_f(g->ptr[w] == ttm_mock_pattern(g->seed, w),
				     "good buffer %u: word %" PRIu64 " changed\n", i, w);
		c->verified += g->size;
	}
}

static void good_destroy(struct hostile_ctx *c)
{
	for (unsigned i = 0; i < GOOD_BOS; i++) {
		igt_assert_eq(uapi_bo_unmap(c->good_fd, c->good[i].handle), 0);
		igt_assert_eq(uapi_bo_unref(c->good_fd, c->good[i].handle), 0);
	}
}

static void setup(struct hostile_ctx *c)
{
	struct ttm_global_config cfg = {.limit_pages = 8192};

	memset(c, 0, sizeof(*c));
	igt_assert_eq(ttm_global_config(&cfg), 0);
	ttm_uapi_mock_timelines_init();
	c->fences = dma_fence_live_count();
	c->rng = igt_seed();
	igt_assert_eq(ttm_drm_device_init(&c->ddev, &ttm_uapi_mock_funcs, &ttm_uapi_mock_driver,
					  "hostile", false),
		      0);
	c->good_fd = ttm_drm_open(&c->ddev);
	c->bad_fd = ttm_drm_open(&c->ddev);
	igt_assert(c->good_fd >= 0 && c->bad_fd >= 0);
	good_create(c);
}

static void teardown(struct hostile_ctx *c)
{
	good_verify(c);
	good_destroy(c);
	igt_assert_eq(ttm_drm_close(c->bad_fd), 0);
	igt_assert_eq(ttm_drm_close(c->good_fd), 0);
	igt_assert_eq(ttm_drm_device_fini(&c->ddev), 0);
	igt_assert_eq_s64(dma_fence_live_count(), c->fences);
	igt_info("%" PRIu64 " hostile calls, %" PRIu64 " refused (%" PRIu64
		 " naming the other client's handles), %" PRIu64
		 " bytes of the good client verified\n",
		 c->calls, c->refused, c->foreign, c->verified);
	igt_report_checks(c->calls, c->verified, 0);
}

/* Random, boundary-heavy 64-bit values. */
static uint64_t hostile_value(uint64_t *rng)
{
	static const uint64_t edges[] = {
	    0,		1,	    2,		4095,		4096,		4097,
	    0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, UINT64_MAX / 2, UINT64_MAX - 4095,
	    UINT64_MAX};

	switch (stress_rand_below(rng, 3)) {
	case 0:
		return edges[stress_rand_below(rng, sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return stress_rand_below(rng, 64);
	default:
		return prng_step(rng);
	}
}

enum handle_mode { HANDLES_ANY, HANDLES_FOREIGN, HANDLES_FREED };

static void hostile_call(struct hostile_ctx *c, enum handle_mode mode)
{
	const struct hs_request *rq = &hs_requests[stress_rand_below(&c->rng, N_REQUESTS)];
	uint64_t arg[MAX_ARG / 8];
	unsigned long nr = rq->nr;
	size_t size = (nr >> 16) & 0x3fff;
	bool foreign = false;
	int fd = c->bad_fd, ret;

	igt_assert(size <= sizeof(arg));
	for (size_t i = 0; i < sizeof(arg) / 8; i++)
		arg[i] = hostile_value(&c->rng);
	/* Fields of 32 bits get their own boundary values too. */
	for (size_t off = 0; off + 4 <= size; off += 4)
		if (stress_rand_below(&c->rng, 4) == 0) {
			uint32_t v = (uint32_t)hostile_value(&c->rng);

			memcpy((uint8_t *)arg + off, &v, 4);
		}
	if (rq->handle_in >= 0) {
		uint32_t h;

		if (mode == HANDLES_FOREIGN ||
		    (mode == HANDLES_ANY && stress_rand_below(&c->rng, 3) == 0)) {
			h = c->good[stress_rand_below(&c->rng, GOOD_BOS)].handle;
			foreign = rq->bo_handle;
		} else if (c->nbad && (mode == HANDLES_FREED || stress_rand_below(&c->rng, 2))) {
			h = c->bad_handles[stress_rand_below(&c->rng, c->nbad)];
		} else {
			h = (uint32_t)hostile_value(&c->rng);
		}
		memcpy((uint8_t *)arg + rq->handle_in, &h, 4);
	}
	if (nr == DRM_IOCTL_BO_CREATE)
		((struct drm_bo_create_req *)arg)->buffer_start = 0; /* the one pointer */
	switch (stress_rand_below(&c->rng, 32)) {
	case 0:
		nr = (unsigned long)prng_step(&c->rng); /* unknown number */
		break;
	case 1:
		nr += 1ul << 16; /* known number, wrong size */
		break;
	case 2:
		fd = (int)stress_rand_below(&c->rng, 3) - 2; /* -2..0: never ours */
		break;
	case 3:
		fd = c->good_fd + 1000;
		break;
	default:
		break;
	}
	ret = ttm_drm_ioctl(fd, nr, arg);
	c->calls++;
	igt_assert_f(ret <= 0 && ret > -4096, "request %#lx returned %d\n", nr, ret);
	if (ret) {
		c->refused++;
	} else if (rq->handle_out >= 0 && nr == rq->nr && c->nbad < MAX_HANDLES) {
		memcpy(&c->bad_handles[c->nbad++], (uint8_t *)arg + rq->handle_out, 4);
	}
	/* The good client's buffers are not shareable: naming them must fail. */
	if (foreign && nr == rq->nr && fd == c->bad_fd) {
		igt_assert_f(ret != 0, "request %#lx on the other client's handle succeeded\n", nr);
		c->foreign++;
	}
}

static void hostile_run(enum handle_mode mode)
{
	struct hostile_ctx *c = calloc(1, sizeof(*c));
	struct stress_budget budget;

	igt_assert(c);
	setup(c);
	if (mode == HANDLES_FREED) {
		/* Own buffers and fences, all freed again: their handles are stale. */
		for (unsigned i = 0; i < 16; i++) {
			uint64_t flags = DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ;
			struct drm_bo_info_rep rep;
			struct drm_fence_arg f = {0};

			igt_assert_eq(uapi_create_bo(c->bad_fd, flags, TTM_PAGE_SIZE, &rep), 0);
			igt_assert_eq(uapi_bo_unref(c->bad_fd, rep.handle), 0);
			igt_assert_eq(uapi_bo_info(c->bad_fd, rep.handle, NULL), -EINVAL);
			c->bad_handles[c->nbad++] = rep.handle;
			f.type = DRM_FENCE_TYPE_EXE;
			f.flags = DRM_FENCE_FLAG_EMIT;
			igt_assert_eq(ttm_drm_ioctl(c->bad_fd, DRM_IOCTL_FENCE_CREATE, &f), 0);
			c->bad_handles[c->nbad++] = f.handle;
			igt_assert_eq(ttm_drm_ioctl(c->bad_fd, DRM_IOCTL_FENCE_UNREFERENCE, &f), 0);
		}
	}
	stress_budget_init(&budget, igt_stress_budget_s(), 200000);
	while (!stress_budget_done(&budget, c->calls)) {
		hostile_call(c, mode);
		if (c->calls % 64 == 0)
			good_verify(c);
		if (stress_rand_below(&c->rng, 500) == 0) {
			/* The hostile client leaves mid-session and comes back. */
			igt_assert_eq(ttm_drm_close(c->bad_fd), 0);
			c->bad_fd = ttm_drm_open(&c->ddev);
			igt_assert(c->bad_fd >= 0);
		}
	}
	teardown(c);
	free(c);
}

igt_main_description("A client sending malformed ioctls (random and boundary fields, bad "
		     "descriptors, foreign and freed handles) next to a well-behaved client "
		     "whose buffers must stay intact.")
{
	igt_subtest("random-ioctls") hostile_run(HANDLES_ANY);
	igt_subtest("foreign-handles") hostile_run(HANDLES_FOREIGN);
	igt_subtest("freed-handles") hostile_run(HANDLES_FREED);
}
