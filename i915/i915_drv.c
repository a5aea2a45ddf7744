// SPDX-License-Identifier: MIT
/* i915_drv: device probe and teardown, interrupt and reset plumbing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/drm_buddy.h>

#include <i915/i915_cmds.h>
#include <i915/i915_drv.h>
#include <i915/i915_faults.h>

#include "i915_backend.h"
#include "i915_priv.h"

static void i915_irq_handler(void *data, enum i915_engine_id id, uint32_t iir)
{
	struct i915_device *i915 = data;

	(void)iir;
	/* Any interrupt may mean progress: a user interrupt or the error stop. */
	if ((unsigned)id < I915_NUM_ENGINES && i915->engine[id].ring)
		i915_engine_retire(&i915->engine[id]);
}

static void i915_error_handler(void *data, enum i915_engine_id id, int reason, uint32_t ctx_id)
{
	struct i915_device *i915 = data;
	struct i915_engine *engine;

	(void)reason;
	(void)ctx_id;
	if ((unsigned)id >= I915_NUM_ENGINES)
		return;
	engine = &i915->engine[id];
	pthread_mutex_lock(&engine->lock);
	engine->reset_pending = true;
	pthread_mutex_unlock(&engine->lock);
	if (i915->be->ops->is_synchronous(i915->be))
		return; /* the submitter recovers after its run */
	pthread_mutex_lock(&i915->reset_lock);
	i915->reset_mask |= 1u << id;
	pthread_cond_signal(&i915->reset_cond);
	pthread_mutex_unlock(&i915->reset_lock);
}

/*
 * The back end forbids resets from its callbacks (a reset waits for the
 * interrupt thread), so stopped engines are recovered here.
 */
static void *i915_reset_worker(void *arg)
{
	struct i915_device *i915 = arg;

	pthread_mutex_lock(&i915->reset_lock);
	for (;;) {
		unsigned int mask;

		while (!i915->reset_mask && !i915->reset_stop)
			pthread_cond_wait(&i915->reset_cond, &i915->reset_lock);
		if (!i915->reset_mask && i915->reset_stop)
			break;
		mask = i915->reset_mask;
		i915->reset_mask = 0;
		pthread_mutex_unlock(&i915->reset_lock);
		for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
			if (mask & (1u << id))
				i915_engine_recover(&i915->engine[id]);
		pthread_mutex_lock(&i915->reset_lock);
	}
	pthread_mutex_unlock(&i915->reset_lock);
	return NULL;
}

static const struct i915_backend_callbacks i915_backend_cb = {
    .irq = i915_irq_handler,
    .error = i915_error_handler,
};

static void i915_device_free_managers(struct i915_device *i915)
{
	if (i915->ggtt_guard)
		ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &i915->ggtt_guard);
	if (i915->has_lmem)
		ttm_buddy_manager_fini(&i915->lmem);
	if (i915->has_stolen)
		ttm_range_manager_fini(&i915->stolen);
	i915_ggtt_fini(&i915->ggtt);
}

int i915_device_probe(i915_backend_create_fn create, const void *cfg, struct i915_device **out)
{
	struct i915_device *i915;
	struct i915_backend *be;
	const struct ttm_place guard_place = {.fpfn = 0, .lpfn = 1, .mem_type = TTM_PL_TT};
	unsigned int id;
	int ret;

	if (!create || !cfg || !out)
		return -EINVAL;
	i915 = fault_should_fail(&i915_fault_device_alloc, sizeof(*i915))
		   ? NULL
		   : calloc(1, sizeof(*i915));
	if (!i915)
		return -ENOMEM;
	atomic_init(&i915->next_ctx_id, 0);
	pthread_mutex_init(&i915->reset_lock, NULL);
	pthread_cond_init(&i915->reset_cond, NULL);
	pthread_mutex_init(&i915->held_lock, NULL);
	pthread_cond_init(&i915->held_cond, NULL);
	INIT_LIST_HEAD(&i915->held_ready);
	ret = i915_context_create(i915, &i915->kernel_ctx);
	if (ret)
		goto err_free;
	ret = create(cfg, &i915_backend_cb, i915, &be);
	if (ret)
		goto err_ctx;
	i915->be = be;
	ret = i915_ggtt_init(&i915->ggtt, be);
	if (ret)
		goto err_be;
	/*
	 * GGTT page 0 stays reserved and unmapped: no object ever sits at
	 * address 0 (which means "no batch" to i915_request_submit()), and a
	 * stray access through a zero address faults on the GPU.
	 */
	ret = ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &guard_place, TTM_PAGE_SIZE,
				 0, &i915->ggtt_guard);
	if (ret)
		goto err_mgr;
	if (be->stolen_size) {
		ret =
		    ttm_range_manager_init(&i915->stolen, false, be->stolen_size >> TTM_PAGE_SHIFT);
		if (ret)
			goto err_mgr;
		i915->has_stolen = true;
	}
	if (be->lmem_size) {
		ret = ttm_buddy_manager_init(&i915->lmem, be->lmem_size >> TTM_PAGE_SHIFT,
					     be->lmem_visible_size >> TTM_PAGE_SHIFT, 0);
		if (ret)
			goto err_mgr;
		i915->has_lmem = true;
	}
	for (id = 0; id < I915_NUM_ENGINES; id++) {
		ret = i915_engine_init(&i915->engine[id], i915, id);
		if (ret)
			goto err_engines;
	}
	if (!be->ops->is_synchronous(be)) {
		ret = -pthread_create(&i915->reset_thread, NULL, i915_reset_worker, i915);
		if (ret)
			goto err_engines;
		i915->reset_started = true;
	}
	*out = i915;
	return 0;

err_engines:
	while (id--)
		i915_engine_fini(&i915->engine[id]);
err_mgr:
	i915_device_free_managers(i915);
err_be:
	be->ops->destroy(be);
err_ctx:
	i915_context_put(i915->kernel_ctx);
err_free:
	pthread_cond_destroy(&i915->reset_cond);
	pthread_mutex_destroy(&i915->reset_lock);
	pthread_cond_destroy(&i915->held_cond);
	pthread_mutex_destroy(&i915->held_lock);
	free(i915);
	return ret;
}

int i915_device_destroy(struct i915_device *i915)
{
	uint64_t ring_bytes = TTM_PAGE_SIZE; /* the guard page */

	if (!i915)
		return 0;
	if (i915->gem_ready)
		return -EBUSY;
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
		ring_bytes += i915->engine[id].ggtt_res ? i915->engine[id].ggtt_res->size : 0;
	if (ttm_resource_manager_usage(i915_ggtt_manager(&i915->ggtt)) != ring_bytes ||
	    (i915->has_stolen && ttm_resource_manager_usage(&i915->stolen.manager)) ||
	    (i915->has_lmem && ttm_resource_manager_usage(&i915->lmem.manager)))
		return -EBUSY;
	/* Held requests reach the back end first: they are queued work too. */
	i915_held_fini(i915);
	/* Let queued work finish (or hang and be reset) before the rings go. */
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
		i915_engine_wait_idle(&i915->engine[id], UINT32_MAX / 2);
	if (i915->reset_started) {
		pthread_mutex_lock(&i915->reset_lock);
		i915->reset_stop = true;
		pthread_cond_signal(&i915->reset_cond);
		pthread_mutex_unlock(&i915->reset_lock);
		pthread_join(i915->reset_thread, NULL);
	}
	/* Stop the device first: no interrupt may find a freed engine. */
	i915->be->ops->destroy(i915->be);
	i915->be = NULL;
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
		i915_engine_fini(&i915->engine[id]);
	i915_device_free_managers(i915);
	i915_context_put(i915->kernel_ctx);
	pthread_cond_destroy(&i915->held_cond);
	pthread_mutex_destroy(&i915->held_lock);
	pthread_cond_destroy(&i915->reset_cond);
	pthread_mutex_destroy(&i915->reset_lock);
	free(i915);
	return 0;
}

void i915_device_error_state_dump(struct i915_device *i915, FILE *out)
{
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		struct i915_engine *engine = &i915->engine[id];
		unsigned long pending = 0;
		struct i915_request *rq;
		uint32_t next;

		if (!engine->present)
			continue;
		pthread_mutex_lock(&engine->lock);
		list_for_each_entry (rq, &engine->requests, struct i915_request, link)
			pending++;
		next = engine->next_seqno;
		pthread_mutex_unlock(&engine->lock);
		fprintf(out,
			"%s: hws seqno %u, next seqno %u, pending %lu, submitted %lu, retired %lu, "
			"resets %lu, ring waits %lu\n",
			engine->name, i915_engine_hws_seqno(engine), next, pending,
			(unsigned long)atomic_load(&engine->stats.submitted),
			(unsigned long)atomic_load(&engine->stats.retired),
			(unsigned long)atomic_load(&engine->stats.resets),
			(unsigned long)atomic_load(&engine->stats.ring_waits));
	}
	i915->be->ops->error_state_dump(i915->be, out);
}

int i915_io_mem_reserve(struct i915_device *i915, struct ttm_resource *res)
{
	struct ttm_buddy_resource *bres;
	struct drm_buddy_block *block;
	uint64_t start, expect, end;
	void *ptr;

	if (!res || res->mem_type != TTM_PL_VRAM || !i915->has_lmem)
		return -EINVAL;
	/* One CPU pointer covers the resource only if its blocks are one run. */
	bres = to_ttm_buddy_resource(res);
	if (list_empty(&bres->blocks))
		return -EINVAL;
	start = expect =
	    drm_buddy_block_offset(list_first_entry(&bres->blocks, struct drm_buddy_block, link));
	list_for_each_entry (block, &bres->blocks, struct drm_buddy_block, link) {
		if (drm_buddy_block_offset(block) != expect)
			return -EINVAL;
		expect += drm_buddy_block_size(&i915->lmem.mm, block);
	}
	end = start + res->size;
	if (end > i915->be->lmem_visible_size)
		return -EINVAL;
	ptr = i915->be->ops->lmem_cpu_ptr(i915->be, start);
	if (!ptr)
		return -EINVAL;
	res->bus.addr = ptr;
	res->bus.offset = start;
	res->bus.is_iomem = true;
	return 0;
}

/* Rows of one page: every field of XY_FAST_COPY_BLT stays in range. */
#define I915_BLT_ROW TTM_PAGE_SIZE
#define I915_BLT_MAX_ROWS I915_BLT_MAX_COORD

/*
 * A command buffer for @rows rows of blits of @chunk_dwords each (a blit
 * covers at most I915_BLT_MAX_ROWS rows) plus @tail_dwords, or NULL.
 */
static uint32_t *i915_blt_alloc(uint64_t rows, unsigned int chunk_dwords, unsigned int tail_dwords)
{
	unsigned int chunks = (unsigned int)((rows + I915_BLT_MAX_ROWS - 1) / I915_BLT_MAX_ROWS);
	size_t bytes = (chunks * chunk_dwords + tail_dwords) * sizeof(uint32_t);

	return fault_should_fail(&i915_fault_blt_alloc, bytes) ? NULL : malloc(bytes);
}

/*
 * End the blits in @cmds (written up to @cs) with a flush and submit them on
 * the blitter; frees @cmds. Return: errors of i915_request_submit().
 */
static int i915_blt_submit(struct i915_device *i915, struct i915_context *ctx, uint32_t *cmds,
			   uint32_t *cs, struct dma_fence **out)
{
	int ret;

	/* The flush orders the blits' writes before the seqno store. */
	*cs++ = (MI_FLUSH_DW | MI_FLUSH_DW_OP_NONE) + 1;
	*cs++ = 0;
	*cs++ = 0;
	*cs++ = 0;
	ret = i915_request_submit(&i915->engine[I915_ENGINE_BCS], ctx, cmds,
				  (unsigned int)(cs - cmds), 0, out);
	free(cmds);
	return ret;
}

int i915_blt_copy(struct i915_device *i915, struct i915_context *ctx, uint64_t dst, uint64_t src,
		  uint64_t size, struct dma_fence **out)
{
	uint64_t rows = size / I915_BLT_ROW;
	uint32_t *cmds, *cs;

	if (!i915 || !out || !size || size % I915_BLT_ROW || (dst | src) & (TTM_PAGE_SIZE - 1))
		return -EINVAL;
	cmds = i915_blt_alloc(rows, I915_FAST_COPY_BLT_DWORDS, I915_FLUSH_DW_DWORDS);
	if (!cmds)
		return -ENOMEM;
	cs = cmds;
	for (uint64_t done = 0; done < rows;) {
		uint64_t n = rows - done < I915_BLT_MAX_ROWS ? rows - done : I915_BLT_MAX_ROWS;
		uint64_t off = done * I915_BLT_ROW;

		cs = i915_emit_fast_copy_blt(cs, dst + off, I915_BLT_ROW, src + off, I915_BLT_ROW,
					     I915_BLT_ROW, (uint32_t)n);
		done += n;
	}
	return i915_blt_submit(i915, ctx, cmds, cs, out);
}

int i915_blt_clear(struct i915_device *i915, struct i915_context *ctx, uint64_t dst, uint64_t size,
		   struct dma_fence **out)
{
	uint64_t rows = size / I915_BLT_ROW;
	uint32_t *cmds, *cs;

	if (!i915 || !out || !size || size % I915_BLT_ROW || (dst & (TTM_PAGE_SIZE - 1)))
		return -EINVAL;
	/* One spare dword for the noop that pads the blits to an even length. */
	cmds = i915_blt_alloc(rows, I915_COLOR_BLT_DWORDS, 1 + I915_FLUSH_DW_DWORDS);
	if (!cmds)
		return -ENOMEM;
	cs = cmds;
	for (uint64_t done = 0; done < rows;) {
		uint64_t n = rows - done < I915_BLT_MAX_ROWS ? rows - done : I915_BLT_MAX_ROWS;

		/* 32 bpp: a 4 KiB row is 1024 pixels. */
		cs = i915_emit_color_blt(cs, 4, dst + done * I915_BLT_ROW, I915_BLT_ROW, 0, 0,
					 I915_BLT_ROW / 4, (uint32_t)n, 0);
		done += n;
	}
	if ((cs - cmds) & 1)
		cs = i915_emit_noop(cs);
	return i915_blt_submit(i915, ctx, cmds, cs, out);
}
