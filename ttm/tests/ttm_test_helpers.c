// SPDX-License-Identifier: MIT
/*
 * The mock driver and fixtures shared by the core's unit tests; see
 * ttm_test_helpers.h for what each one stands in for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <testlib/checksum.h>
#include <testlib/prng.h>

#include "ttm_test_helpers.h"

/* --- the mock driver --- */

static const struct ttm_place ttm_test_tt_place = {.mem_type = TTM_PL_TT};
static const struct ttm_place ttm_test_sys_place = {.mem_type = TTM_PL_SYSTEM};

static void ttm_test_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	struct ttm_test_device *tdev = to_ttm_test_device(bo->bdev);
	unsigned type = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;

	atomic_fetch_add(&tdev->evict_flags_calls, 1);
	placement->num_placement = 0;
	placement->placement = NULL;
	/* VRAM spills into the aperture when there is one, the aperture into SYSTEM. */
	if (type == TTM_PL_VRAM && tdev->cfg.tt_pages) {
		placement->num_placement = 1;
		placement->placement = &ttm_test_tt_place;
	} else if (type == TTM_PL_VRAM || type == TTM_PL_TT) {
		placement->num_placement = 1;
		placement->placement = &ttm_test_sys_place;
	}
}

static int ttm_test_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_test_device *tdev = to_ttm_test_device(bo->bdev);
	struct ttm_resource *old = bo->resource;

	if (tdev->cfg.multihop && old &&
	    ((old->mem_type == TTM_PL_VRAM && new_mem->mem_type == TTM_PL_SYSTEM) ||
	     (old->mem_type == TTM_PL_SYSTEM && new_mem->mem_type == TTM_PL_VRAM))) {
		*hop = ttm_test_tt_place;
		atomic_fetch_add(&tdev->multihops, 1);
		return -EMULTIHOP;
	}
	atomic_fetch_add(&tdev->moves, 1);
	return ttm_bo_move_memcpy(bo, ctx, new_mem);
}

static void ttm_test_delete_mem_notify(struct ttm_buffer_object *bo)
{
	atomic_fetch_add(&to_ttm_test_device(bo->bdev)->delete_mem_notifies, 1);
}

static void ttm_test_swap_notify(struct ttm_buffer_object *bo)
{
	atomic_fetch_add(&to_ttm_test_device(bo->bdev)->swap_notifies, 1);
}

static void ttm_test_release_notify(struct ttm_buffer_object *bo)
{
	atomic_fetch_add(&to_ttm_test_device(bo->bdev)->release_notifies, 1);
}

static int ttm_test_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct ttm_test_device *tdev = to_ttm_test_device(bdev);

	switch (res->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		return 0;
	case TTM_PL_VRAM:
		/*
		 * The first page's address; a buddy resource's later blocks are
		 * found from it through the manager's io_segment.
		 */
		res->bus.addr = (char *)tdev->vram_mem + (res->start << TTM_PAGE_SHIFT);
		res->bus.offset = res->start << TTM_PAGE_SHIFT;
		res->bus.is_iomem = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static void ttm_test_io_mem_free(struct ttm_device *bdev, struct ttm_resource *res)
{
	(void)bdev;
	res->bus.addr = NULL;
}

static const struct ttm_device_funcs ttm_test_funcs = {
    .evict_flags = ttm_test_evict_flags,
    .move = ttm_test_move,
    .delete_mem_notify = ttm_test_delete_mem_notify,
    .swap_notify = ttm_test_swap_notify,
    .io_mem_reserve = ttm_test_io_mem_reserve,
    .io_mem_free = ttm_test_io_mem_free,
    .release_notify = ttm_test_release_notify,
};

int ttm_test_device_init(struct ttm_test_device *tdev, const struct ttm_test_device_cfg *cfg)
{
	int ret;

	memset(tdev, 0, sizeof(*tdev));
	tdev->cfg = *cfg;
	tdev->funcs = ttm_test_funcs;
	tdev->funcs.eviction_valuable = cfg->eviction_valuable;
	ret = ttm_device_init(&tdev->bdev, &tdev->funcs, cfg->use_dma32);
	if (ret)
		return ret;
	if (cfg->tt_pages) {
		ret = ttm_range_manager_init(&tdev->tt, true, cfg->tt_pages);
		if (ret)
			goto err_dev;
		ttm_set_driver_manager(&tdev->bdev, TTM_PL_TT, &tdev->tt.manager);
	}
	if (cfg->vram_pages) {
		tdev->vram_mem = mmap(NULL, cfg->vram_pages << TTM_PAGE_SHIFT,
				      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tdev->vram_mem == MAP_FAILED) {
			tdev->vram_mem = NULL;
			ret = -ENOMEM;
			goto err_tt;
		}
		if (cfg->vram_buddy)
			ret = ttm_buddy_manager_init(&tdev->vram_buddy, cfg->vram_pages, 0, 0);
		else
			ret = ttm_range_manager_init(&tdev->vram, false, cfg->vram_pages);
		if (ret)
			goto err_map;
		ttm_set_driver_manager(&tdev->bdev, TTM_PL_VRAM,
				       cfg->vram_buddy ? &tdev->vram_buddy.manager
						       : &tdev->vram.manager);
	}
	return 0;

err_map:
	munmap(tdev->vram_mem, cfg->vram_pages << TTM_PAGE_SHIFT);
	tdev->vram_mem = NULL;
err_tt:
	if (cfg->tt_pages) {
		ttm_set_driver_manager(&tdev->bdev, TTM_PL_TT, NULL);
		ttm_range_manager_fini(&tdev->tt);
	}
err_dev:
	ttm_device_fini(&tdev->bdev);
	return ret;
}

int ttm_test_device_fini(struct ttm_test_device *tdev)
{
	int ret;

	/* Deleted BOs still hold aperture space until the worker frees them. */
	ttm_device_flush_delayed(&tdev->bdev, true);
	if (atomic_load(&tdev->bdev.stats.bo_count))
		return -EBUSY;
	if (tdev->cfg.vram_pages && tdev->vram_mem) {
		ret = tdev->cfg.vram_buddy ? ttm_buddy_manager_fini(&tdev->vram_buddy)
					   : ttm_range_manager_fini(&tdev->vram);
		if (ret)
			return ret;
		ttm_set_driver_manager(&tdev->bdev, TTM_PL_VRAM, NULL);
		munmap(tdev->vram_mem, tdev->cfg.vram_pages << TTM_PAGE_SHIFT);
		tdev->vram_mem = NULL;
	}
	if (tdev->cfg.tt_pages && ttm_manager_type(&tdev->bdev, TTM_PL_TT)) {
		ret = ttm_range_manager_fini(&tdev->tt);
		if (ret)
			return ret;
		ttm_set_driver_manager(&tdev->bdev, TTM_PL_TT, NULL);
	}
	return ttm_device_fini(&tdev->bdev);
}

/* --- mock managers --- */

static int ttm_mock_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
			  const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
			  struct ttm_resource **res)
{
	struct ttm_mock_manager *mock = container_of(man, struct ttm_mock_manager, man);

	atomic_fetch_add(&mock->allocs, 1);
	*res = NULL;
	return mock->ret;
}

static void ttm_mock_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	/* Never reached: alloc never succeeds. Kept correct anyway. */
	ttm_resource_fini(man, res);
	free(res);
}

static const struct ttm_resource_manager_func ttm_mock_manager_func = {
    .alloc = ttm_mock_alloc,
    .free = ttm_mock_free,
};

int ttm_mock_manager_init(struct ttm_mock_manager *mock, struct ttm_device *bdev, unsigned mem_type,
			  int ret, uint64_t pages)
{
	int err;

	if (ret >= 0)
		return -EINVAL;
	memset(mock, 0, sizeof(*mock));
	mock->ret = ret;
	err = ttm_resource_manager_init(&mock->man, &ttm_mock_manager_func, pages);
	if (err)
		return err;
	mock->man.use_type = true;
	err = ttm_set_driver_manager(bdev, mem_type, &mock->man);
	if (err)
		ttm_resource_manager_fini(&mock->man);
	return err;
}

void ttm_mock_manager_fini(struct ttm_mock_manager *mock, struct ttm_device *bdev,
			   unsigned mem_type)
{
	ttm_set_driver_manager(bdev, mem_type, NULL);
	ttm_resource_manager_fini(&mock->man);
}

/* --- placements and BOs --- */

struct ttm_placement *ttm_test_placement(struct ttm_test_placement *p, uint32_t mem_type,
					 uint32_t flags)
{
	p->placement.num_placement = 0;
	p->placement.placement = p->places;
	return ttm_test_placement_add(p, mem_type, flags);
}

struct ttm_placement *ttm_test_placement_add(struct ttm_test_placement *p, uint32_t mem_type,
					     uint32_t flags)
{
	unsigned n = p->placement.num_placement;

	if (n < sizeof(p->places) / sizeof(p->places[0])) {
		p->places[n] = (struct ttm_place){.mem_type = mem_type, .flags = flags};
		p->placement.num_placement = n + 1;
	}
	return &p->placement;
}

void ttm_test_bo_destroy(struct ttm_buffer_object *bo)
{
	free(bo);
}

int ttm_test_bo_create(struct ttm_device *bdev, uint64_t size, enum ttm_bo_type type,
		       const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
		       bool reserved, struct ttm_buffer_object **out)
{
	struct ttm_operation_ctx local = {0};
	struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));
	int ret;

	*out = NULL;
	if (!bo)
		return -ENOMEM;
	ret = ttm_bo_init_reserved(bdev, bo, size, type, placement, 0, ctx ? ctx : &local, NULL,
				   ttm_test_bo_destroy);
	if (ret)
		return ret; /* destroy() already freed it */
	if (!reserved)
		ttm_bo_unreserve(bo);
	*out = bo;
	return 0;
}

int ttm_test_bo_create_in(struct ttm_device *bdev, uint64_t size, uint32_t mem_type,
			  struct ttm_buffer_object **out)
{
	struct ttm_test_placement p;

	return ttm_test_bo_create(bdev, size, ttm_bo_type_device,
				  ttm_test_placement(&p, mem_type, 0), NULL, false, out);
}

/* --- fences --- */

const char *ttm_test_fence_name(struct dma_fence *fence)
{
	(void)fence;
	return "ttm-test";
}

static const struct dma_fence_ops ttm_test_fence_ops = {
    .get_driver_name = ttm_test_fence_name,
    .get_timeline_name = ttm_test_fence_name,
};

struct dma_fence *ttm_test_fence_create_on(uint64_t context, uint64_t seqno)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	if (!f)
		return NULL;
	dma_fence_init(f, &ttm_test_fence_ops, context, seqno);
	return f;
}

struct dma_fence *ttm_test_fence_create(void)
{
	return ttm_test_fence_create_on(dma_fence_context_alloc(1), 1);
}

int ttm_test_bo_add_fence(struct ttm_buffer_object *bo, struct dma_fence *fence,
			  enum dma_resv_usage usage)
{
	int ret = dma_resv_reserve_fences(bo->resv, 1);

	if (ret)
		return ret;
	return dma_resv_add_fence(bo->resv, fence, usage);
}

struct dma_fence *ttm_test_bo_busy(struct ttm_buffer_object *bo, enum dma_resv_usage usage)
{
	struct dma_fence *f = ttm_test_fence_create();
	int ret;

	if (!f)
		return NULL;
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (!ret) {
		ret = ttm_test_bo_add_fence(bo, f, usage);
		ttm_bo_unreserve(bo);
	}
	if (ret) {
		dma_fence_put(f);
		return NULL;
	}
	return f;
}

/* --- content pattern --- */

/* splitmix64 of the word index: every word differs, every seed differs. */
static uint64_t ttm_test_pattern(uint64_t seed, uint64_t word)
{
	return prng_mix64(seed + word * PRNG_GOLDEN);
}

#define TTM_TEST_CHUNK 4096u

int ttm_test_bo_fill(struct ttm_buffer_object *bo, uint64_t seed)
{
	struct ttm_operation_ctx ctx = {0};
	uint64_t buf[TTM_TEST_CHUNK / 8];

	for (uint64_t off = 0; off < bo->size; off += TTM_TEST_CHUNK) {
		size_t len = bo->size - off < TTM_TEST_CHUNK ? bo->size - off : TTM_TEST_CHUNK;
		int ret;

		for (size_t i = 0; i < len / 8; i++)
			buf[i] = ttm_test_pattern(seed, off / 8 + i);
		ret = ttm_bo_access(bo, off, buf, len, true, &ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int ttm_test_bo_verify(struct ttm_buffer_object *bo, uint64_t seed)
{
	struct ttm_operation_ctx ctx = {0};
	uint64_t buf[TTM_TEST_CHUNK / 8];

	for (uint64_t off = 0; off < bo->size; off += TTM_TEST_CHUNK) {
		size_t len = bo->size - off < TTM_TEST_CHUNK ? bo->size - off : TTM_TEST_CHUNK;
		int ret = ttm_bo_access(bo, off, buf, len, false, &ctx);

		if (ret)
			return ret;
		for (size_t i = 0; i < len / 8; i++)
			if (buf[i] != ttm_test_pattern(seed, off / 8 + i))
				return -EILSEQ;
	}
	return 0;
}

/* @op (fill or verify) of the unreserved @bo, reserving it around the call. */
static int ttm_test_bo_reserved_op(struct ttm_buffer_object *bo, uint64_t seed,
				   int (*op)(struct ttm_buffer_object *bo, uint64_t seed))
{
	int ret;

	ttm_bo_reserve(bo, false, false, NULL);
	ret = op(bo, seed);
	ttm_bo_unreserve(bo);
	return ret;
}

int ttm_test_bo_reserve_fill(struct ttm_buffer_object *bo, uint64_t seed)
{
	return ttm_test_bo_reserved_op(bo, seed, ttm_test_bo_fill);
}

int ttm_test_bo_reserve_verify(struct ttm_buffer_object *bo, uint64_t seed)
{
	return ttm_test_bo_reserved_op(bo, seed, ttm_test_bo_verify);
}

int ttm_test_bo_reserve_validate(struct ttm_buffer_object *bo,
				 const struct ttm_placement *placement,
				 struct ttm_operation_ctx *ctx)
{
	int ret;

	ttm_bo_reserve(bo, false, false, NULL);
	ret = ttm_bo_validate(bo, placement, ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

int ttm_test_bo_validate_to(struct ttm_buffer_object *bo, uint32_t mem_type, uint32_t flags,
			    struct ttm_operation_ctx *ctx)
{
	struct ttm_test_placement p;

	return ttm_test_bo_reserve_validate(bo, ttm_test_placement(&p, mem_type, flags), ctx);
}

void ttm_test_bo_pin(struct ttm_buffer_object *bo)
{
	ttm_bo_reserve(bo, false, false, NULL);
	ttm_bo_pin(bo);
	ttm_bo_unreserve(bo);
}

unsigned ttm_test_bo_mem_type(const struct ttm_buffer_object *bo)
{
	return bo->resource ? bo->resource->mem_type : TTM_NUM_MEM_TYPES;
}

int ttm_test_bo_checksum(struct ttm_buffer_object *bo, uint64_t *sum)
{
	struct ttm_operation_ctx ctx = {0};
	unsigned char buf[TTM_TEST_CHUNK];
	uint64_t h = TESTLIB_CHECKSUM_INIT;

	for (uint64_t off = 0; off < bo->size; off += TTM_TEST_CHUNK) {
		size_t len = bo->size - off < TTM_TEST_CHUNK ? bo->size - off : TTM_TEST_CHUNK;
		int ret = ttm_bo_access(bo, off, buf, len, false, &ctx);

		if (ret)
			return ret;
		h = testlib_checksum_update(h, buf, len);
	}
	*sum = h;
	return 0;
}
