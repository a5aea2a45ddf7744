/* SPDX-License-Identifier: MIT */
/*
 * i915_engine: the command streamers as the driver sees them. Each engine
 * has a ring (host memory mapped through the GGTT, above the aperture), a
 * hardware status page where every request stores its seqno, and a list of
 * requests in submission order.
 *
 * A request is a few ring dwords (context tag, optional inline commands,
 * optional MI_BATCH_BUFFER_START, seqno store, MI_USER_INTERRUPT) plus a
 * dma_fence on the engine's timeline. The interrupt handler reads the status
 * page and signals every completed request's fence, oldest first; fences are
 * never signalled by polling, so the signalling order is the ring order.
 *
 * Hangs: when an engine stops (hangcheck, page fault, bad command) the
 * oldest incomplete request is the guilty one: its fence gets -EIO and
 * signals, its context's guilty count goes up, and the engine restarts right
 * after that request, so later requests (of any context) still run.
 *
 * Lock order: @lock of an engine is taken after any BO reservation and is
 * never held while a fence is signalled or waited for.
 */
#ifndef I915_ENGINE_H
#define I915_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <i915/i915_engine_types.h>

struct i915_device;

/**
 * i915_context_create() - a new context with a unique id and one reference.
 * @i915: the device.
 * @out: the context.
 *
 * Return: 0; -ENOMEM; -EINVAL (NULL argument).
 */
int i915_context_create(struct i915_device *i915, struct i915_context **out);

/**
 * i915_context_get() - take a reference.
 * @ctx: the context.
 *
 * Return: @ctx.
 */
struct i915_context *i915_context_get(struct i915_context *ctx);

/**
 * i915_context_put() - drop a reference; the last one frees the context.
 * @ctx: the context; NULL is a no-op.
 */
void i915_context_put(struct i915_context *ctx);

/**
 * i915_context_create_vm() - a new context on a ppGTT of its own, as the
 * kernel creates a client's context on a part with full ppGTT.
 * @i915: the device, with GEM initialised (i915_gem_init()).
 * @out: the context; its VM is (*@out)->vm, whose only reference the
 *	context holds: i915_context_put() releases both.
 *
 * Return: 0; the errors of i915_context_create() and i915_vm_create()
 * (-EINVAL: NULL argument or GEM not initialised; -EOPNOTSUPP: the back
 * end has no ppGTT; -ENOMEM); nothing is left behind on failure.
 */
int i915_context_create_vm(struct i915_device *i915, struct i915_context **out);

/**
 * i915_context_runtime_ns() - how long @ctx has run on engine @id, as the
 * kernel's intel_context_get_total_runtime_ns(): its retired requests' time
 * there, plus the time so far of its request running there now. A request
 * runs from its submission or the end of the one before it on the engine,
 * whichever is later, to its retirement.
 * @ctx: the context.
 * @id: the engine.
 *
 * Return: nanoseconds; 0 for a bad @id or an engine the part lacks.
 */
uint64_t i915_context_runtime_ns(struct i915_context *ctx, enum i915_engine_id id);

/**
 * i915_engine_get() - an engine of a device by physical id.
 * @i915: the device.
 * @id: the engine.
 *
 * Return: the engine; NULL for a bad id or one the part lacks.
 */
struct i915_engine *i915_engine_get(struct i915_device *i915, enum i915_engine_id id);

/**
 * i915_engine_lookup() - an engine of a device by its uAPI name
 * (I915_CONTEXT_PARAM_ENGINES, QUERY_ENGINE_INFO).
 * @i915: the device.
 * @class: uAPI engine class (enum drm_i915_gem_engine_class).
 * @uabi_instance: instance within @class, counting present engines only.
 *
 * Return: the present engine; NULL when the part has none.
 */
struct i915_engine *i915_engine_lookup(struct i915_device *i915, unsigned int class,
				       unsigned int uabi_instance);

/**
 * i915_request_submit() - queue one request on an engine.
 * @engine: the engine.
 * @ctx: the context it runs for (NULL: the device's kernel context).
 * @cmds: @ndw dwords copied inline into the ring before the batch (for
 *	driver work such as blits), or NULL.
 * @ndw: dwords at @cmds (0 with NULL).
 * @batch: address of a first-level batch to start, or 0 for none: in
 *	@ctx's VM (started with the ppGTT bit) when it has one, else GGTT.
 * @out: a reference to the request's fence, or NULL when not wanted.
 *
 * Waits for ring space when the ring is full. On a synchronous device the
 * engine runs before the call returns, so the fence has signalled.
 * Return: 0; -EINVAL (bad arguments, @ndw too large for the ring, misaligned
 * batch); -ENOMEM; -ETIMEDOUT (no ring space within the hangcheck time,
 * the engine is wedged); -EIO (the back end refused the ring).
 */
int i915_request_submit(struct i915_engine *engine, struct i915_context *ctx, const uint32_t *cmds,
			unsigned int ndw, uint64_t batch, struct dma_fence **out);

/**
 * i915_request_submit_batch() - i915_request_submit() of a batch only.
 * @engine: the engine.
 * @ctx: the context (NULL: the kernel context).
 * @batch: address of the batch, started even when it is 0 (a valid
 *	address in a VM).
 * @out: a reference to the request's fence, or NULL when not wanted.
 *
 * Return: as i915_request_submit().
 */
int i915_request_submit_batch(struct i915_engine *engine, struct i915_context *ctx, uint64_t batch,
			      struct dma_fence **out);

/**
 * to_i915_request() - the request behind a fence.
 * @fence: any fence.
 *
 * Return: the request of an i915 request fence, NULL for another fence.
 */
struct i915_request *to_i915_request(struct dma_fence *fence);

/**
 * i915_engine_set_wedged() - declare an engine unusable or usable again.
 * @engine: the engine.
 * @wedged: true: unusable.
 *
 * While wedged, i915_request_submit() fails with -EIO at once, so
 * the driver takes its CPU fallbacks (memcpy moves) instead of queueing
 * behind an engine that will not run. Requests already queued are not
 * touched.
 */
void i915_engine_set_wedged(struct i915_engine *engine, bool wedged);

/**
 * i915_engine_cs_cycles() - sample an engine's command streamer clock and
 * the CPU clock together.
 * @engine: the engine.
 * @out: the sample; its frequency is the back end's cs_timestamp_hz.
 *
 * Return: 0; -EINVAL (NULL argument).
 */
int i915_engine_cs_cycles(struct i915_engine *engine, struct i915_cs_cycles *out);

/**
 * i915_cs_cycles_to_ns() - CPU time of an engine clock value.
 * @ref: a sample of i915_engine_cs_cycles().
 * @cycles: the engine clock value.
 *
 * Extrapolated from @ref. Only the low 32 bits of the
 * difference count, so a value sampled from RING_TIMESTAMP alone (its low
 * dword) converts as well as a full one, within 2^31 ticks (~110 s at
 * 19.2 MHz) of @ref.
 *
 * Return: CLOCK_MONOTONIC nanoseconds.
 */
int64_t i915_cs_cycles_to_ns(const struct i915_cs_cycles *ref, uint64_t cycles);

/**
 * i915_engine_hws_seqno() - the last seqno an engine stored in its status page.
 * @engine: the engine.
 *
 * Return: the seqno (0 before the first request completed).
 */
uint32_t i915_engine_hws_seqno(struct i915_engine *engine);

/**
 * i915_engine_wait_idle() - wait until every request submitted to an engine
 * so far has signalled.
 * @engine: the engine.
 * @timeout_ms: how long to wait at most.
 *
 * Return: 0; -ETIMEDOUT after @timeout_ms.
 */
int i915_engine_wait_idle(struct i915_engine *engine, unsigned int timeout_ms);

/**
 * i915_request_submit_objects() - run a batch on an engine through the
 * back end's request op, the one submission path both back ends implement
 * (the sim binds the objects in its page tables and writes the ring; hw
 * softpins them in one execbuffer2).
 * @engine: the engine.
 * @args: the request.
 * @out: a reference to the request's fence (signals when the batch is
 *	done; error -EIO when it was reset), or NULL when not wanted.
 *
 * A request whose awaited fences have not all signalled is held, not the
 * engine: the call returns at once with the fence, and the request reaches
 * the back end from the device's submit worker once the last one signalled
 * (as the kernel's i915_sw_fence holds a request). Work submitted meanwhile
 * runs ahead of it. i915_device_destroy() waits for held requests.
 *
 * Return: 0; -EINVAL (bad @args: no VM, misaligned or overlapping
 * addresses, a batch outside the objects); -EOPNOTSUPP (the back end cannot
 * run on this engine); -ENOMEM; -EIO (the engine is wedged); the back
 * end's errors (on hw the kernel's). Nothing was submitted on failure.
 */
int i915_request_submit_objects(struct i915_engine *engine, const struct i915_request_args *args,
				struct dma_fence **out);

/**
 * i915_mem_create() - device memory for raw requests.
 * @i915: the device.
 * @size: bytes, a positive multiple of 4096.
 * @out: the memory, zeroed, CPU mapped (i915_mem_cpu()).
 *
 * Return: 0; -EINVAL; -ENOMEM; the back end's errors.
 */
int i915_mem_create(struct i915_device *i915, uint64_t size, struct i915_mem **out);

/**
 * i915_mem_cpu() - the CPU view of device memory.
 * @i915: the device.
 * @mem: the memory.
 *
 * Coherent with the GPU once a request's fence that used @mem signalled.
 * Return: the address of its first byte.
 */
void *i915_mem_cpu(struct i915_device *i915, struct i915_mem *mem);

/**
 * i915_mem_destroy() - wait until no request uses @mem, unbind and free it.
 * @i915: the device.
 * @mem: the memory, or NULL.
 */
void i915_mem_destroy(struct i915_device *i915, struct i915_mem *mem);

#endif /* I915_ENGINE_H */
