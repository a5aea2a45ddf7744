// SPDX-License-Identifier: MIT
/*
 * i915_engine: rings, requests and their seqno fences, retirement from the
 * interrupt handler and recovery of a stopped engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <i915/i915_cmds.h>
#include <i915/i915_drv_types.h>
#include <i915/i915_engine.h>
#include <i915/i915_faults.h>
#include <i915/i915_ggtt.h>
#include <i915/i915_vm.h>

#include "i915_backend.h"
#include "i915_priv.h"

/* The real parts' engines (i915_reg.h); RING_CCID sits at +0x180 on each. */
static const struct {
	uint32_t mmio;
	const char *name;
	uint8_t class;
	uint8_t instance;
} i915_engine_info[I915_NUM_ENGINES] = {
    [I915_ENGINE_RCS] = {0x02000, "rcs0", I915_ENGINE_CLASS_ID_RENDER, 0},
    [I915_ENGINE_BCS] = {0x22000, "bcs0", I915_ENGINE_CLASS_ID_COPY, 0},
    [I915_ENGINE_VCS0] = {0x1c0000, "vcs0", I915_ENGINE_CLASS_ID_VIDEO, 0},
    [I915_ENGINE_VCS1] = {0x1c4000, "vcs1", I915_ENGINE_CLASS_ID_VIDEO, 1},
    [I915_ENGINE_VCS2] = {0x1d0000, "vcs2", I915_ENGINE_CLASS_ID_VIDEO, 2},
    [I915_ENGINE_VCS3] = {0x1d4000, "vcs3", I915_ENGINE_CLASS_ID_VIDEO, 3},
    [I915_ENGINE_VECS0] = {0x1c8000, "vecs0", I915_ENGINE_CLASS_ID_VIDEO_ENHANCE, 0},
    [I915_ENGINE_VECS1] = {0x1d8000, "vecs1", I915_ENGINE_CLASS_ID_VIDEO_ENHANCE, 1},
    [I915_ENGINE_CCS0] = {0x1a000, "ccs0", I915_ENGINE_CLASS_ID_COMPUTE, 0},
    [I915_ENGINE_CCS1] = {0x1c000, "ccs1", I915_ENGINE_CLASS_ID_COMPUTE, 1},
    [I915_ENGINE_CCS2] = {0x1e000, "ccs2", I915_ENGINE_CLASS_ID_COMPUTE, 2},
    [I915_ENGINE_CCS3] = {0x26000, "ccs3", I915_ENGINE_CLASS_ID_COMPUTE, 3},
};

#define I915_RING_CCID(base) ((base) + 0x180)
/* RING_PDP0 pair: the VM a request runs in (the @vm_create handle, i915_backend.h). */
#define I915_RING_PDP0_LDW(base) ((base) + 0x270)
#define I915_RING_PDP0_UDW(base) ((base) + 0x274)
/* Dwords a request adds around the caller's: CCID load, PDP0 load, bb start, seqno, irq, pad. */
#define I915_REQ_OVERHEAD_DW (3 + 5 + I915_BB_START_DWORDS + 3 + 1 + 1)

static const char *i915_fence_driver_name(struct dma_fence *fence)
{
	(void)fence;
	return "i915";
}

static const char *i915_fence_timeline_name(struct dma_fence *fence)
{
	return container_of(fence, struct i915_request, fence)->engine->name;
}

/*
 * No .signaled poll: the interrupt handler is the only signaller of a
 * completed request, which is what keeps signalling in ring order.
 */
static const struct dma_fence_ops i915_fence_ops = {
    .get_driver_name = i915_fence_driver_name,
    .get_timeline_name = i915_fence_timeline_name,
};

struct i915_request *to_i915_request(struct dma_fence *fence)
{
	return fence && fence->ops == &i915_fence_ops
		   ? container_of(fence, struct i915_request, fence)
		   : NULL;
}

int i915_context_create(struct i915_device *i915, struct i915_context **out)
{
	struct i915_context *ctx;

	if (!i915 || !out)
		return -EINVAL;
	ctx =
	    fault_should_fail(&i915_fault_ctx_alloc, sizeof(*ctx)) ? NULL : calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->i915 = i915;
	ctx->id = atomic_fetch_add(&i915->next_ctx_id, 1);
	atomic_init(&ctx->refcount, 1);
	atomic_init(&ctx->guilty, 0);
	atomic_init(&ctx->active, 0);
	*out = ctx;
	return 0;
}

struct i915_context *i915_context_get(struct i915_context *ctx)
{
	if (ctx)
		atomic_fetch_add_explicit(&ctx->refcount, 1, memory_order_relaxed);
	return ctx;
}

void i915_context_put(struct i915_context *ctx)
{
	if (ctx && atomic_fetch_sub_explicit(&ctx->refcount, 1, memory_order_acq_rel) == 1) {
		i915_vm_put(ctx->vm);
		free(ctx);
	}
}

int i915_context_create_vm(struct i915_device *i915, struct i915_context **out)
{
	struct i915_address_space *vm = NULL;
	struct i915_context *ctx = NULL;
	int ret;

	if (!out)
		return -EINVAL;
	ret = i915_context_create(i915, &ctx);
	if (!ret)
		ret = i915_vm_create(i915, &vm);
	if (!ret)
		ret = i915_context_set_vm(ctx, vm);
	/* The context holds the VM's reference from here on. */
	i915_vm_put(vm);
	if (ret) {
		i915_context_put(ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

struct i915_engine *i915_engine_get(struct i915_device *i915, enum i915_engine_id id)
{
	return i915 && (unsigned)id < I915_NUM_ENGINES && i915->engine[id].present
		   ? &i915->engine[id]
		   : NULL;
}

struct i915_engine *i915_engine_lookup(struct i915_device *i915, unsigned int class,
				       unsigned int uabi_instance)
{
	if (!i915)
		return NULL;
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		struct i915_engine *e = &i915->engine[id];

		if (e->present && e->class == class && e->uabi_instance == uabi_instance)
			return e;
	}
	return NULL;
}

uint32_t i915_engine_hws_seqno(struct i915_engine *engine)
{
	struct i915_backend *be = engine->i915->be;

	if (!be->ops->engine_read_hws)
		return 0; /* no status page of ours: the device owns the rings */
	return be->ops->engine_read_hws(be, engine->id, I915_HWS_SEQNO);
}

int i915_engine_cs_cycles(struct i915_engine *engine, struct i915_cs_cycles *out)
{
	struct i915_backend *be;
	int64_t t0, t1;

	if (!engine || !out)
		return -EINVAL;
	be = engine->i915->be;
	if (!be->ops->engine_timestamp)
		return -EOPNOTSUPP;
	t0 = dma_fence_now_ns();
	out->cycles = be->ops->engine_timestamp(be, engine->id);
	t1 = dma_fence_now_ns();
	out->cpu_ns = t0 + (t1 - t0) / 2;
	out->cpu_delta_ns = t1 - t0;
	out->frequency = be->cs_timestamp_hz;
	return 0;
}

int64_t i915_cs_cycles_to_ns(const struct i915_cs_cycles *ref, uint64_t cycles)
{
	/* Signed, so that a sample from before @ref converts too. */
	int64_t d = (int32_t)(uint32_t)(cycles - ref->cycles);

	if (!ref->frequency)
		return ref->cpu_ns;
	return ref->cpu_ns + d * 1000000000ll / (int64_t)ref->frequency;
}

/* Wrap-safe "seqno @a has been reached by @hws". */
static bool i915_seqno_passed(uint32_t hws, uint32_t a)
{
	return (int32_t)(hws - a) >= 0;
}

static void i915_request_finish(struct i915_request *rq, int error)
{
	if (error)
		dma_fence_set_error(&rq->fence, error);
	else
		atomic_fetch_add(&rq->engine->stats.retired, 1);
	atomic_fetch_sub(&rq->ctx->active, 1);
	/*
	 * References go before the fence signals, so that a waiter woken by it
	 * finds the context (and its VM) released by the request. The VM's
	 * last reference may go here: no lock of ours is held.
	 */
	i915_context_put(rq->ctx);
	rq->ctx = NULL;
	i915_vm_put(rq->vm);
	rq->vm = NULL;
	dma_fence_signal(&rq->fence);
	dma_fence_put(&rq->fence);
}

/* @rq leaves @engine at @now: its run time goes to its context. Under @lock. */
static void i915_request_account(struct i915_request *rq, int64_t now)
{
	struct i915_engine *engine = rq->engine;
	int64_t start = rq->submit_ns > engine->last_end_ns ? rq->submit_ns : engine->last_end_ns;

	if (now > start)
		atomic_fetch_add(&rq->ctx->runtime_ns[engine->id],
				 (unsigned long long)(now - start));
	if (now > engine->last_end_ns)
		engine->last_end_ns = now;
}

uint64_t i915_context_runtime_ns(struct i915_context *ctx, enum i915_engine_id id)
{
	struct i915_engine *engine;
	struct i915_request *rq;
	uint64_t total;

	if (!ctx || (unsigned int)id >= I915_NUM_ENGINES)
		return 0;
	engine = i915_engine_get(ctx->i915, id);
	if (!engine)
		return 0;
	pthread_mutex_lock(&engine->lock);
	total = atomic_load(&ctx->runtime_ns[id]);
	if (!list_empty(&engine->requests)) {
		rq = list_first_entry(&engine->requests, struct i915_request, link);
		if (rq->ctx == ctx) {
			int64_t now = dma_fence_now_ns();
			int64_t start = rq->submit_ns > engine->last_end_ns ? rq->submit_ns
									    : engine->last_end_ns;

			if (now > start)
				total += (uint64_t)(now - start);
		}
	}
	pthread_mutex_unlock(&engine->lock);
	return total;
}

/*
 * Pop the completed requests under @lock, signal them after dropping it.
 * @signal_lock spans both so that two retirers (interrupt thread, reset
 * worker) cannot interleave their signalling out of order.
 */
void i915_engine_retire(struct i915_engine *engine)
{
	struct i915_request *rq, *tmp;
	struct list_head done;
	uint32_t hws;
	int64_t now;

	INIT_LIST_HEAD(&done);
	pthread_mutex_lock(&engine->signal_lock);
	pthread_mutex_lock(&engine->lock);
	/* Read under @lock: a submission that held it is older than now. */
	now = dma_fence_now_ns();
	hws = i915_engine_hws_seqno(engine);
	list_for_each_entry_safe (rq, tmp, &engine->requests, struct i915_request, link) {
		if (!i915_seqno_passed(hws, rq->seqno))
			break;
		i915_request_account(rq, now);
		list_move_tail(&rq->link, &done);
	}
	pthread_mutex_unlock(&engine->lock);
	list_for_each_entry_safe (rq, tmp, &done, struct i915_request, link) {
		list_del_init(&rq->link);
		i915_request_finish(rq, 0);
	}
	pthread_mutex_unlock(&engine->signal_lock);
}

void i915_engine_recover(struct i915_engine *engine)
{
	struct i915_backend *be = engine->i915->be;
	struct i915_request *guilty = NULL;
	uint32_t head = I915_BACKEND_RESET_TO_TAIL;

	/* Whatever completed before the hang completed successfully. */
	i915_engine_retire(engine);
	pthread_mutex_lock(&engine->signal_lock);
	pthread_mutex_lock(&engine->lock);
	engine->reset_pending = false;
	if (!list_empty(&engine->requests)) {
		guilty = list_first_entry(&engine->requests, struct i915_request, link);
		i915_request_account(guilty, dma_fence_now_ns());
		list_del_init(&guilty->link);
		head = guilty->ring_tail;
	}
	pthread_mutex_unlock(&engine->lock);
	/*
	 * Counted before anything it caused becomes visible: a waiter woken by
	 * the guilty request's -EIO, or by a request run after the restart,
	 * already sees this reset in the stats and the error-state dump.
	 */
	atomic_fetch_add(&engine->stats.resets, 1);
	if (guilty) {
		atomic_fetch_add(&guilty->ctx->guilty, 1);
		i915_request_finish(guilty, -EIO);
	}
	pthread_mutex_unlock(&engine->signal_lock);
	/*
	 * Restart after the guilty request: its seqno store was skipped, the
	 * requests behind it are intact in the ring.
	 */
	be->ops->engine_reset(be, engine->id, head);
}

/* Synchronous devices: run the ring now, recovering as many times as it stops. */
static void i915_engine_run_sync(struct i915_engine *engine)
{
	struct i915_backend *be = engine->i915->be;

	while (be->ops->engine_run(be, engine->id) == -EIO)
		i915_engine_recover(engine);
	/* The error callback only flagged the engine; nothing is left to do. */
	pthread_mutex_lock(&engine->lock);
	engine->reset_pending = false;
	pthread_mutex_unlock(&engine->lock);
}

static unsigned int i915_request_build(uint32_t *dw, struct i915_engine *engine,
				       struct i915_context *ctx, struct i915_address_space *vm,
				       const uint32_t *cmds, unsigned int ndw, bool has_batch,
				       uint64_t batch, uint32_t seqno)
{
	uint32_t base = engine->mmio_base, *cs = dw;

	cs = i915_emit_lri(cs, I915_RING_CCID(base), ctx->id);
	if (vm) {
		/* The context's page table, as gen8 ring-buffer mode loads its PDPs. */
		*cs++ = MI_LOAD_REGISTER_IMM(2);
		*cs++ = I915_RING_PDP0_UDW(base);
		*cs++ = (uint32_t)(vm->handle >> 32);
		*cs++ = I915_RING_PDP0_LDW(base);
		*cs++ = (uint32_t)vm->handle;
	}
	if (ndw) {
		memcpy(cs, cmds, ndw * sizeof(*cs));
		cs += ndw;
	}
	if (has_batch && vm)
		cs = i915_emit_bb_start_ppgtt(cs, batch);
	else if (has_batch)
		cs = i915_emit_bb_start(cs, batch);
	cs = i915_emit_store_dword_index(cs, I915_HWS_SEQNO * 4, seqno);
	cs = i915_emit_user_interrupt(cs);
	/* An even count keeps our tail equal to the device's (it pads to qwords). */
	if ((cs - dw) & 1)
		cs = i915_emit_noop(cs);
	return (unsigned int)(cs - dw);
}

static int64_t i915_now_ms(void)
{
	return dma_fence_now_ns() / 1000000;
}

static int i915_request_submit_common(struct i915_engine *engine, struct i915_context *ctx,
				      const uint32_t *cmds, unsigned int ndw, bool has_batch,
				      uint64_t batch, struct dma_fence **out)
{
	struct i915_backend *be;
	struct i915_request *rq;
	uint32_t stack_dw[64], *dw = stack_dw;
	int64_t deadline;
	unsigned int n;
	int ret;

	if (!engine || (ndw && !cmds) || (batch & 7) || batch >> 48)
		return -EINVAL;
	be = engine->i915->be;
	if (!be->ops->engine_submit)
		return -EOPNOTSUPP; /* the device owns its rings: i915_request_submit_objects() */
	if (ndw > engine->ring_size / 4 - I915_REQ_OVERHEAD_DW - 8)
		return -EINVAL;
	if (atomic_load(&engine->wedged))
		return -EIO;
	if (!ctx)
		ctx = engine->i915->kernel_ctx;
	if (ndw + I915_REQ_OVERHEAD_DW > 64) {
		size_t bytes = (ndw + I915_REQ_OVERHEAD_DW) * sizeof(*dw);

		dw = fault_should_fail(&i915_fault_request_dw_alloc, bytes) ? NULL : malloc(bytes);
		if (!dw)
			return -ENOMEM;
	}
	rq = dma_fence_alloc(sizeof(*rq));
	if (!rq) {
		ret = -ENOMEM;
		goto out_dw;
	}
	rq->engine = engine;
	rq->ctx = i915_context_get(ctx);
	rq->vm = i915_context_get_vm(ctx);
	deadline = i915_now_ms() +
		   (be->hangcheck_ms == UINT32_MAX ? 10000 : 2 * (int64_t)be->hangcheck_ms + 1000);

	pthread_mutex_lock(&engine->lock);
	for (;;) {
		struct i915_request *oldest;

		rq->seqno = engine->next_seqno;
		n = i915_request_build(dw, engine, ctx, rq->vm, cmds, ndw, has_batch, batch,
				       rq->seqno);
		ret = be->ops->engine_submit(be, engine->id, dw, n);
		if (ret != -ENOSPC)
			break;
		/* Ring full: wait for the oldest request without holding the lock. */
		atomic_fetch_add(&engine->stats.ring_waits, 1);
		oldest = list_empty(&engine->requests)
			     ? NULL
			     : list_first_entry(&engine->requests, struct i915_request, link);
		if (oldest)
			dma_fence_get(&oldest->fence);
		pthread_mutex_unlock(&engine->lock);
		if (be->ops->is_synchronous(be)) {
			i915_engine_run_sync(engine);
		} else if (oldest) {
			dma_fence_wait_timeout(&oldest->fence, false, 10 * 1000000ll);
		} else {
			struct timespec ts = {0, 100000};

			nanosleep(&ts, NULL);
		}
		dma_fence_put(oldest ? &oldest->fence : NULL);
		pthread_mutex_lock(&engine->lock);
		if (i915_now_ms() > deadline) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	if (ret) {
		pthread_mutex_unlock(&engine->lock);
		i915_context_put(rq->ctx);
		i915_vm_put(rq->vm);
		free(rq);
		if (ret != -ETIMEDOUT && ret != -EINVAL)
			ret = -EIO;
		goto out_dw;
	}
	dma_fence_init(&rq->fence, &i915_fence_ops, engine->fence_context, rq->seqno);
	engine->next_seqno++;
	engine->tail = (engine->tail + n * 4) % engine->ring_size;
	rq->ring_tail = engine->tail;
	rq->submit_ns = dma_fence_now_ns();
	atomic_fetch_add(&ctx->active, 1);
	/* The list's reference; the caller's comes below. */
	list_add_tail(&rq->link, &engine->requests);
	if (out)
		*out = dma_fence_get(&rq->fence);
	atomic_fetch_add(&engine->stats.submitted, 1);
	pthread_mutex_unlock(&engine->lock);
	if (be->ops->is_synchronous(be))
		i915_engine_run_sync(engine);
	ret = 0;
out_dw:
	if (dw != stack_dw)
		free(dw);
	return ret;
}

int i915_request_submit(struct i915_engine *engine, struct i915_context *ctx, const uint32_t *cmds,
			unsigned int ndw, uint64_t batch, struct dma_fence **out)
{
	return i915_request_submit_common(engine, ctx, cmds, ndw, batch != 0, batch, out);
}

int i915_request_submit_batch(struct i915_engine *engine, struct i915_context *ctx, uint64_t batch,
			      struct dma_fence **out)
{
	return i915_request_submit_common(engine, ctx, NULL, 0, true, batch, out);
}

int i915_engine_wait_idle(struct i915_engine *engine, unsigned int timeout_ms)
{
	struct dma_fence *last = NULL;
	int64_t left;

	pthread_mutex_lock(&engine->lock);
	if (!list_empty(&engine->requests))
		last = dma_fence_get(
		    &list_entry(engine->requests.prev, struct i915_request, link)->fence);
	pthread_mutex_unlock(&engine->lock);
	if (!last)
		return 0;
	left = dma_fence_wait_timeout(last, false, (int64_t)timeout_ms * 1000000);
	dma_fence_put(last);
	return left > 0 ? 0 : -ETIMEDOUT;
}

int i915_engine_init(struct i915_engine *engine, struct i915_device *i915, enum i915_engine_id id)
{
	struct i915_backend *be = i915->be;
	const struct ttm_place place = {
	    .mem_type = TTM_PL_TT,
	    .flags = TTM_PL_FLAG_TOPDOWN,
	};
	uint32_t size = be->ring_size[id];
	uint32_t pages = size / TTM_PAGE_SIZE;
	void *host_pages[(I915_RING_MAX_SIZE / TTM_PAGE_SIZE) + 1];
	uint64_t first;
	int ret;

	memset(engine, 0, sizeof(*engine));
	if ((unsigned int)id >= I915_NUM_ENGINES)
		return -EINVAL;
	engine->i915 = i915;
	engine->id = id;
	engine->name = i915_engine_info[id].name;
	engine->class = i915_engine_info[id].class;
	engine->instance = i915_engine_info[id].instance;
	engine->mmio_base = i915_engine_info[id].mmio;
	INIT_LIST_HEAD(&engine->requests);
	if (!(be->engine_mask & (1u << id))) {
		/* Absent: idle forever, safe to lock and to look at. */
		pthread_mutex_init(&engine->lock, NULL);
		pthread_mutex_init(&engine->signal_lock, NULL);
		return 0;
	}
	/* The uAPI numbers the present engines of a class densely. */
	for (unsigned int i = 0; i < (unsigned int)id; i++)
		if ((be->engine_mask & (1u << i)) && i915_engine_info[i].class == engine->class)
			engine->uabi_instance++;
	if (!be->ops->engine_submit) {
		/* The device runs its own rings: requests go through @request_submit. */
		engine->fence_context = dma_fence_context_alloc(1);
		pthread_mutex_init(&engine->lock, NULL);
		pthread_mutex_init(&engine->signal_lock, NULL);
		engine->present = true;
		return 0;
	}
	if (!size || size % TTM_PAGE_SIZE || size > be->ring_max_size || size > I915_RING_MAX_SIZE)
		return -EINVAL;
	engine->fence_context = dma_fence_context_alloc(1);
	engine->ring_size = size;
	/* Seqno 0 is what a fresh status page reads: start above it. */
	engine->next_seqno = 1;
	/* Ring pages then one status page, one allocation, one GGTT range. */
	engine->ring = fault_should_fail(&i915_fault_device_alloc, (size_t)size + TTM_PAGE_SIZE)
			   ? NULL
			   : aligned_alloc(TTM_PAGE_SIZE, (size_t)size + TTM_PAGE_SIZE);
	if (!engine->ring)
		return -ENOMEM;
	memset(engine->ring, 0, (size_t)size + TTM_PAGE_SIZE);
	engine->hws = (char *)engine->ring + size;
	ret = ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place,
				 (uint64_t)size + TTM_PAGE_SIZE, 0, &engine->ggtt_res);
	if (ret)
		goto err_free;
	first = engine->ggtt_res->start;
	for (uint32_t i = 0; i <= pages; i++)
		host_pages[i] = (char *)engine->ring + (size_t)i * TTM_PAGE_SIZE;
	ret = i915_ggtt_bind_host(&i915->ggtt, first, host_pages, pages + 1);
	if (ret)
		goto err_res;
	engine->ring_ggtt = (uint32_t)(first << TTM_PAGE_SHIFT);
	engine->hws_ggtt = engine->ring_ggtt + size;
	if (i915_ggtt_offset(engine->ggtt_res) + size + TTM_PAGE_SIZE > 1ull << 32) {
		/* Ring registers hold 32-bit addresses: the status page must end by 4 GiB. */
		ret = -EINVAL;
		goto err_unbind;
	}
	ret = be->ops->engine_setup(be, id, engine->ring_ggtt, size, engine->hws_ggtt);
	if (ret)
		goto err_unbind;
	pthread_mutex_init(&engine->lock, NULL);
	pthread_mutex_init(&engine->signal_lock, NULL);
	engine->present = true;
	return 0;

err_unbind:
	i915_ggtt_unbind(&i915->ggtt, first, pages + 1);
err_res:
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &engine->ggtt_res);
err_free:
	free(engine->ring);
	engine->ring = NULL;
	return ret;
}

void i915_engine_fini(struct i915_engine *engine)
{
	struct i915_device *i915 = engine->i915;

	if (i915 && !engine->ring) {
		pthread_mutex_destroy(&engine->lock);
		pthread_mutex_destroy(&engine->signal_lock);
		engine->i915 = NULL;
		return;
	}
	if (!engine->ring)
		return;
	/* With the device already gone there is no page table left to clear. */
	if (i915->be)
		i915_ggtt_unbind(&i915->ggtt, engine->ggtt_res->start,
				 engine->ggtt_res->size >> TTM_PAGE_SHIFT);
	ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &engine->ggtt_res);
	pthread_mutex_destroy(&engine->lock);
	pthread_mutex_destroy(&engine->signal_lock);
	free(engine->ring);
	engine->ring = NULL;
}

void i915_engine_set_wedged(struct i915_engine *engine, bool wedged)
{
	atomic_store(&engine->wedged, wedged);
}

int i915_ring_request_submit(struct i915_device *i915, enum i915_engine_id id,
			     const struct i915_request_args *args, struct dma_fence **out)
{
	struct i915_engine *engine = i915_engine_get(i915, id);

	if (!engine || !args)
		return -EINVAL;
	/*
	 * The ring has no semaphore on another timeline's fence: the request
	 * is written only once the fences it awaits have signalled (the driver
	 * holds requests whose fences are pending, so these are done).
	 */
	for (unsigned int i = 0; i < args->nawait; i++)
		dma_fence_wait(args->await[i], false);
	return i915_request_submit_common(engine, args->ctx, NULL, 0, true, args->batch, out);
}

/* The object of @args holding @addr, or NULL. */
static const struct i915_request_object *i915_request_find(const struct i915_request_args *args,
							   uint64_t addr)
{
	for (unsigned int i = 0; i < args->nobjects; i++) {
		const struct i915_request_object *o = &args->objects[i];

		if (addr >= o->gpu_addr && addr - o->gpu_addr < o->mem->size)
			return o;
	}
	return NULL;
}

/* The driver's checks of a raw request: what no back end needs to repeat. */
static int i915_request_args_check(const struct i915_request_args *args)
{
	struct i915_address_space *vm;

	if (!args || !args->ctx || !args->objects || !args->nobjects ||
	    (args->nawait && !args->await) || (args->batch & 7))
		return -EINVAL;
	for (unsigned int i = 0; i < args->nawait; i++)
		if (!args->await[i])
			return -EINVAL;
	for (unsigned int i = 0; i < args->nobjects; i++) {
		const struct i915_request_object *o = &args->objects[i];

		if (!o->mem || (o->gpu_addr & (TTM_PAGE_SIZE - 1)) ||
		    o->gpu_addr >= I915_VM_TOTAL || o->mem->size > I915_VM_TOTAL - o->gpu_addr ||
		    (o->flags & ~I915_REQUEST_OBJECT_WRITE))
			return -EINVAL;
		for (unsigned int j = 0; j < i; j++) {
			const struct i915_request_object *p = &args->objects[j];

			if (o->gpu_addr < p->gpu_addr + p->mem->size &&
			    p->gpu_addr < o->gpu_addr + o->mem->size)
				return -EINVAL;
		}
	}
	if (!i915_request_find(args, args->batch))
		return -EINVAL;
	vm = i915_context_get_vm(args->ctx);
	i915_vm_put(vm);
	return vm ? 0 : -EINVAL;
}

/*
 * A request held until the fences it awaits have signalled, as the kernel's
 * i915_sw_fence holds a request out of the hardware queue: the caller gets
 * @fence at once; the submit worker hands the request to the back end once
 * the last awaited fence signalled, and @fence signals with the back end's.
 */
struct i915_held_wait {
	struct dma_fence_cb cb;
	struct i915_held_request *hr;
};

struct i915_held_request {
	struct dma_fence fence;
	struct i915_engine *engine;
	struct i915_request_args args; /* @objects copied, @ctx referenced, no awaits */
	struct dma_fence_cb done;
	struct list_head link;
	atomic_uint pending;
	unsigned int nwait;
	struct i915_held_wait waits[];
};

static const char *i915_held_name(struct dma_fence *fence)
{
	return container_of(fence, struct i915_held_request, fence)->engine->name;
}

static const struct dma_fence_ops i915_held_fence_ops = {
    .get_driver_name = i915_fence_driver_name,
    .get_timeline_name = i915_held_name,
};

/* Signal the request's fence with @error (0: none) and drop the worker's reference. */
static void i915_held_finish(struct i915_held_request *hr, int error)
{
	if (error)
		dma_fence_set_error(&hr->fence, error);
	dma_fence_signal(&hr->fence);
	dma_fence_put(&hr->fence);
}

static void i915_held_done(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct i915_held_request *hr = container_of(cb, struct i915_held_request, done);

	i915_held_finish(hr, f->error);
}

static void *i915_held_worker(void *arg)
{
	struct i915_device *i915 = arg;

	pthread_mutex_lock(&i915->held_lock);
	for (;;) {
		struct i915_held_request *hr;
		struct i915_backend *be = i915->be;
		struct dma_fence *f = NULL;
		int ret;

		while (list_empty(&i915->held_ready) && !i915->held_stop)
			pthread_cond_wait(&i915->held_cond, &i915->held_lock);
		if (list_empty(&i915->held_ready))
			break;
		hr = list_first_entry(&i915->held_ready, struct i915_held_request, link);
		list_del_init(&hr->link);
		pthread_mutex_unlock(&i915->held_lock);
		ret = atomic_load(&hr->engine->wedged)
			  ? -EIO
			  : be->ops->request_submit(be, hr->engine->id, &hr->args, &f);
		/* The back end holds what its request needs (the sim: the context). */
		i915_context_put(hr->args.ctx);
		hr->args.ctx = NULL;
		if (ret)
			i915_held_finish(hr, ret);
		else if (dma_fence_add_callback(f, &hr->done, i915_held_done))
			i915_held_done(f, &hr->done);
		dma_fence_put(f);
		pthread_mutex_lock(&i915->held_lock);
		i915->held_count--;
		pthread_cond_broadcast(&i915->held_cond);
	}
	pthread_mutex_unlock(&i915->held_lock);
	return NULL;
}

/* One count of @hr went: the last queues the request for the worker. */
static void i915_held_put_pending(struct i915_held_request *hr)
{
	struct i915_device *i915 = hr->engine->i915;

	if (atomic_fetch_sub(&hr->pending, 1) != 1)
		return;
	pthread_mutex_lock(&i915->held_lock);
	list_add_tail(&hr->link, &i915->held_ready);
	pthread_cond_broadcast(&i915->held_cond);
	pthread_mutex_unlock(&i915->held_lock);
}

static void i915_held_wait_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	(void)f;
	i915_held_put_pending(container_of(cb, struct i915_held_wait, cb)->hr);
}

static int i915_request_hold(struct i915_engine *engine, const struct i915_request_args *args,
			     struct dma_fence **out)
{
	struct i915_device *i915 = engine->i915;
	struct i915_held_request *hr;
	size_t objs = args->nobjects * sizeof(*args->objects);
	size_t bytes = sizeof(*hr) + args->nawait * sizeof(hr->waits[0]);
	struct i915_request_object *copy;
	int ret = 0;

	hr = fault_should_fail(&i915_fault_mem_alloc, bytes + objs) ? NULL
								    : dma_fence_alloc(bytes + objs);
	if (!hr)
		return -ENOMEM;
	pthread_mutex_lock(&i915->held_lock);
	if (!i915->held_started) {
		ret = -pthread_create(&i915->held_thread, NULL, i915_held_worker, i915);
		i915->held_started = !ret;
	}
	if (!ret)
		i915->held_count++;
	pthread_mutex_unlock(&i915->held_lock);
	if (ret) {
		free(hr);
		return ret;
	}
	copy = (struct i915_request_object *)((char *)hr + bytes);
	memcpy(copy, args->objects, objs);
	hr->engine = engine;
	hr->args = *args;
	hr->args.objects = copy;
	hr->args.await = NULL;
	hr->args.nawait = 0;
	i915_context_get(args->ctx);
	INIT_LIST_HEAD(&hr->link);
	hr->nwait = args->nawait;
	dma_fence_init(&hr->fence, &i915_held_fence_ops, dma_fence_context_alloc(1), 1);
	if (out)
		*out = dma_fence_get(&hr->fence);
	/* One count for each fence and one for the set-up, so none fires early. */
	atomic_init(&hr->pending, args->nawait + 1);
	for (unsigned int i = 0; i < args->nawait; i++) {
		hr->waits[i].hr = hr;
		if (dma_fence_add_callback(args->await[i], &hr->waits[i].cb, i915_held_wait_cb))
			i915_held_wait_cb(args->await[i], &hr->waits[i].cb);
	}
	i915_held_put_pending(hr);
	return 0;
}

/* Stop the submit worker once every held request reached the back end. */
void i915_held_fini(struct i915_device *i915)
{
	pthread_mutex_lock(&i915->held_lock);
	while (i915->held_count)
		pthread_cond_wait(&i915->held_cond, &i915->held_lock);
	i915->held_stop = true;
	pthread_cond_broadcast(&i915->held_cond);
	pthread_mutex_unlock(&i915->held_lock);
	if (i915->held_started)
		pthread_join(i915->held_thread, NULL);
}

int i915_request_submit_objects(struct i915_engine *engine, const struct i915_request_args *args,
				struct dma_fence **out)
{
	struct i915_backend *be;
	int ret;

	if (out)
		*out = NULL;
	if (!engine || !engine->present)
		return -EINVAL;
	ret = i915_request_args_check(args);
	if (ret)
		return ret;
	if (args->ctx->i915 != engine->i915)
		return -EINVAL;
	if (atomic_load(&engine->wedged))
		return -EIO;
	be = engine->i915->be;
	for (unsigned int i = 0; i < args->nawait; i++)
		if (!dma_fence_is_signaled(args->await[i]))
			return i915_request_hold(engine, args, out);
	return be->ops->request_submit(be, engine->id, args, out);
}

int i915_mem_create(struct i915_device *i915, uint64_t size, struct i915_mem **out)
{
	if (!i915 || !out || !size || size % TTM_PAGE_SIZE)
		return -EINVAL;
	return i915->be->ops->mem_create(i915->be, size, out);
}

void *i915_mem_cpu(struct i915_device *i915, struct i915_mem *mem)
{
	(void)i915;
	return mem ? mem->cpu : NULL;
}

void i915_mem_destroy(struct i915_device *i915, struct i915_mem *mem)
{
	if (i915 && mem)
		i915->be->ops->mem_destroy(i915->be, mem);
}
