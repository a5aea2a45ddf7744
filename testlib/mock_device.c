// SPDX-License-Identifier: MIT
/*
 * The one mock TTM driver; see testlib/mock_device.h for what each setting
 * stands in for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <testlib/mock_device.h>

static const struct ttm_place mock_tt_place = {.mem_type = TTM_PL_TT};
static const struct ttm_place mock_sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place mock_tt_then_sys[] = {
    {.mem_type = TTM_PL_TT},
    {.mem_type = TTM_PL_SYSTEM, .flags = TTM_PL_FLAG_FALLBACK},
};

/*
 * Set while this thread runs one of the mock's moves: the copy engine
 * reaches every page of VRAM, the CPU only the visible window.
 */
static _Thread_local bool mock_in_move;

static void mock_count(struct testlib_mock_device *md, _Atomic unsigned long *counter)
{
	if (!md->cfg.bare)
		atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

static void mock_place(struct ttm_placement *placement, const struct ttm_place *places, unsigned n)
{
	placement->num_placement = n;
	placement->placement = n ? places : NULL;
}

static void mock_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	struct testlib_mock_device *md = to_testlib_mock(bo->bdev);
	uint32_t from = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;

	mock_count(md, &md->evict_flags_calls);
	if (md->cfg.evict_flags) {
		md->cfg.evict_flags(bo, placement);
		return;
	}
	switch (md->cfg.evict) {
	case TESTLIB_MOCK_EVICT_DOWN:
		/* VRAM spills into the aperture when there is one, the aperture into SYSTEM. */
		if (from == TTM_PL_VRAM && md->cfg.tt_pages)
			mock_place(placement, &mock_tt_place, 1);
		else if (from == TTM_PL_VRAM || from == TTM_PL_TT)
			mock_place(placement, &mock_sys_place, 1);
		else
			mock_place(placement, NULL, 0);
		return;
	case TESTLIB_MOCK_EVICT_DOWN_FALLBACK:
		if (from == TTM_PL_VRAM && ttm_manager_type(bo->bdev, TTM_PL_TT))
			mock_place(placement, mock_tt_then_sys, 2);
		else
			mock_place(placement, &mock_sys_place, 1);
		return;
	case TESTLIB_MOCK_EVICT_SYSTEM:
	default:
		mock_place(placement, &mock_sys_place, 1);
		return;
	}
}

static bool mock_keeps_tt_pages(struct ttm_device *bdev, uint32_t mem_type)
{
	struct ttm_resource_manager *man = ttm_manager_type(bdev, mem_type);

	return man && man->use_tt;
}

static int mock_move_bind(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx,
			  struct ttm_resource *new_mem)
{
	struct ttm_resource *old = bo->resource;
	int ret;

	if (bo->ttm && (!old || mock_keeps_tt_pages(bo->bdev, old->mem_type)) &&
	    mock_keeps_tt_pages(bo->bdev, new_mem->mem_type)) {
		/* Same pages, new binding; an aperture needs them present. */
		if (new_mem->mem_type != TTM_PL_SYSTEM) {
			ret = ttm_bo_populate(bo, ctx);
			if (ret)
				return ret;
		}
		ttm_bo_move_null(bo, new_mem);
		return 0;
	}
	return ttm_bo_move_memcpy(bo, ctx, new_mem);
}

static int mock_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		     struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct testlib_mock_device *md = to_testlib_mock(bo->bdev);
	struct ttm_resource *old = bo->resource;
	int ret;

	(void)evict;
	if (md->cfg.multihop && old &&
	    ((old->mem_type == TTM_PL_VRAM && new_mem->mem_type == TTM_PL_SYSTEM) ||
	     (old->mem_type == TTM_PL_SYSTEM && new_mem->mem_type == TTM_PL_VRAM))) {
		*hop = mock_tt_place;
		mock_count(md, &md->multihops);
		return -EMULTIHOP;
	}
	mock_count(md, &md->moves);
	mock_in_move = true;
	if (md->cfg.move == TESTLIB_MOCK_MOVE_BIND)
		ret = mock_move_bind(bo, ctx, new_mem);
	else
		ret = ttm_bo_move_memcpy(bo, ctx, new_mem);
	mock_in_move = false;
	if (ret)
		return ret;
	if (md->cfg.moved)
		md->cfg.moved(bo);
	return 0;
}

static void mock_delete_mem_notify(struct ttm_buffer_object *bo)
{
	struct testlib_mock_device *md = to_testlib_mock(bo->bdev);

	mock_count(md, &md->delete_mem_notifies);
}

static void mock_swap_notify(struct ttm_buffer_object *bo)
{
	struct testlib_mock_device *md = to_testlib_mock(bo->bdev);

	mock_count(md, &md->swap_notifies);
}

static void mock_release_notify(struct ttm_buffer_object *bo)
{
	struct testlib_mock_device *md = to_testlib_mock(bo->bdev);

	mock_count(md, &md->release_notifies);
}

static int mock_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	struct testlib_mock_device *md = to_testlib_mock(bdev);

	switch (res->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		return 0;
	case TTM_PL_VRAM:
		if (!md->vram_mem)
			return -EINVAL;
		/* A small BAR: the CPU reaches only the window (a range resource). */
		if (md->cfg.vram_visible_pages && !mock_in_move &&
		    res->start + (res->size >> TTM_PAGE_SHIFT) > md->cfg.vram_visible_pages)
			return -EINVAL;
		/*
		 * The first page's address; a buddy resource's later blocks are
		 * found from it through the manager's io_segment.
		 */
		res->bus.addr = (char *)md->vram_mem + (res->start << TTM_PAGE_SHIFT);
		res->bus.offset = res->start << TTM_PAGE_SHIFT;
		res->bus.is_iomem = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static void mock_io_mem_free(struct ttm_device *bdev, struct ttm_resource *res)
{
	(void)bdev;
	res->bus.addr = NULL;
}

int testlib_mock_driver_init(struct testlib_mock_device *md, const struct testlib_mock_cfg *cfg)
{
	memset(md, 0, sizeof(*md));
	md->cfg = *cfg;
	md->funcs.evict_flags = mock_evict_flags;
	md->funcs.eviction_valuable = cfg->eviction_valuable;
	md->funcs.io_mem_reserve = mock_io_mem_reserve;
	md->funcs.io_mem_free = mock_io_mem_free;
	if (cfg->move != TESTLIB_MOCK_MOVE_CORE || cfg->multihop || cfg->moved)
		md->funcs.move = mock_move;
	if (!cfg->bare) {
		md->funcs.delete_mem_notify = mock_delete_mem_notify;
		md->funcs.swap_notify = mock_swap_notify;
		md->funcs.release_notify = mock_release_notify;
	}
	if (cfg->vram_pages) {
		md->vram_mem = mmap(NULL, cfg->vram_pages << TTM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (md->vram_mem == MAP_FAILED) {
			md->vram_mem = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

void testlib_mock_driver_fini(struct testlib_mock_device *md)
{
	if (md->vram_mem)
		munmap(md->vram_mem, md->cfg.vram_pages << TTM_PAGE_SHIFT);
	md->vram_mem = NULL;
}

int testlib_mock_device_init(struct testlib_mock_device *md, const struct testlib_mock_cfg *cfg)
{
	int ret = testlib_mock_driver_init(md, cfg);

	if (ret)
		return ret;
	ret = ttm_device_init(&md->bdev, &md->funcs, cfg->use_dma32);
	if (ret)
		goto err_drv;
	if (cfg->tt_pages) {
		ret = ttm_range_manager_init(&md->tt, true, cfg->tt_pages);
		if (ret)
			goto err_dev;
		ttm_set_driver_manager(&md->bdev, TTM_PL_TT, &md->tt.manager);
	}
	if (cfg->vram_pages) {
		if (cfg->vram_buddy)
			ret = ttm_buddy_manager_init(&md->vram_buddy, cfg->vram_pages, 0, 0);
		else
			ret = ttm_range_manager_init(&md->vram, false, cfg->vram_pages);
		if (ret)
			goto err_tt;
		ttm_set_driver_manager(&md->bdev, TTM_PL_VRAM,
				       cfg->vram_buddy ? &md->vram_buddy.manager
						       : &md->vram.manager);
	}
	return 0;

err_tt:
	if (cfg->tt_pages) {
		ttm_set_driver_manager(&md->bdev, TTM_PL_TT, NULL);
		ttm_range_manager_fini(&md->tt);
	}
err_dev:
	ttm_device_fini(&md->bdev);
err_drv:
	testlib_mock_driver_fini(md);
	return ret;
}

int testlib_mock_device_fini(struct testlib_mock_device *md)
{
	int ret;

	/* Deleted BOs still hold aperture space until the worker frees them. */
	ttm_device_flush_delayed(&md->bdev, true);
	if (atomic_load(&md->bdev.stats.bo_count))
		return -EBUSY;
	if (md->cfg.vram_pages && ttm_manager_type(&md->bdev, TTM_PL_VRAM)) {
		ret = md->cfg.vram_buddy ? ttm_buddy_manager_fini(&md->vram_buddy)
					 : ttm_range_manager_fini(&md->vram);
		if (ret)
			return ret;
		ttm_set_driver_manager(&md->bdev, TTM_PL_VRAM, NULL);
	}
	if (md->cfg.tt_pages && ttm_manager_type(&md->bdev, TTM_PL_TT)) {
		ret = ttm_range_manager_fini(&md->tt);
		if (ret)
			return ret;
		ttm_set_driver_manager(&md->bdev, TTM_PL_TT, NULL);
	}
	ret = ttm_device_fini(&md->bdev);
	if (ret)
		return ret;
	testlib_mock_driver_fini(md);
	return 0;
}

void testlib_mock_bo_destroy(struct ttm_buffer_object *bo)
{
	free(bo);
}

int testlib_mock_bo_create(struct ttm_device *bdev, uint64_t size,
			   const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
			   bool reserved, struct ttm_buffer_object **out)
{
	return testlib_mock_bo_create_type(bdev, size, ttm_bo_type_device, placement, ctx, reserved,
					   out);
}

int testlib_mock_bo_create_type(struct ttm_device *bdev, uint64_t size, enum ttm_bo_type type,
				const struct ttm_placement *placement,
				struct ttm_operation_ctx *ctx, bool reserved,
				struct ttm_buffer_object **out)
{
	struct ttm_operation_ctx local = {0};
	struct ttm_buffer_object *bo = calloc(1, sizeof(*bo));
	int ret;

	*out = NULL;
	if (!bo)
		return -ENOMEM;
	ret = ttm_bo_init_reserved(bdev, bo, size, type, placement, 0, ctx ? ctx : &local, NULL,
				   testlib_mock_bo_destroy);
	if (ret)
		return ret; /* destroy() already freed it */
	if (!reserved)
		ttm_bo_unreserve(bo);
	*out = bo;
	return 0;
}

struct ttm_placement *testlib_mock_placement(struct ttm_placement *placement,
					     struct ttm_place *place, uint32_t mem_type,
					     uint32_t flags)
{
	*place = (struct ttm_place){.mem_type = mem_type, .flags = flags};
	placement->num_placement = 1;
	placement->placement = place;
	return placement;
}

/* --- a manager that never has space --- */

static int mock_manager_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
			      const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
			      struct ttm_resource **res)
{
	struct testlib_mock_manager *mock = container_of(man, struct testlib_mock_manager, man);

	atomic_fetch_add(&mock->allocs, 1);
	*res = NULL;
	return mock->ret;
}

static void mock_manager_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	/* Never reached: alloc never succeeds. Kept correct anyway. */
	ttm_resource_fini(man, res);
	free(res);
}

static const struct ttm_resource_manager_func mock_manager_func = {
    .alloc = mock_manager_alloc,
    .free = mock_manager_free,
};

int testlib_mock_manager_init(struct testlib_mock_manager *mock, struct ttm_device *bdev,
			      unsigned mem_type, int ret, uint64_t pages)
{
	int err;

	if (ret >= 0)
		return -EINVAL;
	memset(mock, 0, sizeof(*mock));
	mock->ret = ret;
	err = ttm_resource_manager_init(&mock->man, &mock_manager_func, pages);
	if (err)
		return err;
	mock->man.use_type = true;
	err = ttm_set_driver_manager(bdev, mem_type, &mock->man);
	if (err)
		ttm_resource_manager_fini(&mock->man);
	return err;
}

void testlib_mock_manager_fini(struct testlib_mock_manager *mock, struct ttm_device *bdev,
			       unsigned mem_type)
{
	ttm_set_driver_manager(bdev, mem_type, NULL);
	ttm_resource_manager_fini(&mock->man);
}
