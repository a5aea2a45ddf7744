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

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/list.h>

struct i915_device;
struct ttm_resource;

/* The largest ring an engine gets, bytes; a back end may allow less. */
#define I915_RING_MAX_SIZE (2u << 20)

/**
 * enum i915_engine_id - the engines the driver drives, by physical id (the
 * kernel's RCS0, BCS0, VCS0..3, VECS0..1, CCS0..3; every back end numbers
 * its engines so). A device has the subset its back end reports
 * (i915_backend.engine_mask): render and blitter always, the gen12 video,
 * video-enhance and compute engines per part (Tiger Lake: vcs0, vcs2,
 * vecs0; DG2 adds vecs1, ccs0..3).
 * @I915_ENGINE_RCS: render.
 * @I915_ENGINE_BCS: blitter (copies and fills, MI_FLUSH_DW).
 * @I915_ENGINE_VCS0: first video engine; @I915_ENGINE_VCS1 .. VCS3 the others.
 * @I915_ENGINE_VECS0, @I915_ENGINE_VECS1: video enhancement.
 * @I915_ENGINE_CCS0 .. @I915_ENGINE_CCS3: compute.
 * @I915_NUM_ENGINES: count.
 */
enum i915_engine_id {
	I915_ENGINE_RCS = 0,
	I915_ENGINE_BCS = 1,
	I915_ENGINE_VCS0,
	I915_ENGINE_VCS1,
	I915_ENGINE_VCS2,
	I915_ENGINE_VCS3,
	I915_ENGINE_VECS0,
	I915_ENGINE_VECS1,
	I915_ENGINE_CCS0,
	I915_ENGINE_CCS1,
	I915_ENGINE_CCS2,
	I915_ENGINE_CCS3,
	I915_NUM_ENGINES
};

/* The uAPI engine classes (I915_ENGINE_CLASS_* of <drm/i915_drm.h>). */
enum i915_engine_class_id {
	I915_ENGINE_CLASS_ID_RENDER = 0,
	I915_ENGINE_CLASS_ID_COPY = 1,
	I915_ENGINE_CLASS_ID_VIDEO = 2,
	I915_ENGINE_CLASS_ID_VIDEO_ENHANCE = 3,
	I915_ENGINE_CLASS_ID_COMPUTE = 4,
};

/* Status-page dword where each request stores its seqno (the kernel's slot). */
#define I915_HWS_SEQNO 0x30

/**
 * struct i915_context - a client's hardware context: the tag its requests
 * carry so a hang is attributed to it. Refcounted; requests hold a
 * reference until they retire.
 * @i915: the device.
 * @id: the tag written to RING_CCID (0 is the device's kernel context).
 * @refcount: references.
 * @guilty: requests of this context reset for hanging; atomic.
 * @active: requests of this context in flight; atomic.
 * @runtime_ns: per engine (enum i915_engine_id), the time its retired
 *	requests ran there (i915_context_runtime_ns()); atomic.
 * @vm: the ppGTT its requests run in (a reference), NULL for the GGTT;
 *	protected by i915_device.vm_lock, set with i915_context_set_vm()
 *	(i915_vm.h).
 */
struct i915_context {
	struct i915_device *i915;
	uint32_t id;
	atomic_int refcount;
	atomic_uint guilty;
	atomic_uint active;
	atomic_ullong runtime_ns[I915_NUM_ENGINES];
	struct i915_address_space *vm;
};

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
 * struct i915_request - one submission.
 * @fence: the completion fence (engine timeline, seqno = @seqno).
 * @engine: where it runs.
 * @ctx: its context (a reference).
 * @vm: the VM the request runs in (a reference), NULL for the GGTT.
 * @seqno: the 32-bit value stored to the status page on completion.
 * @ring_tail: ring offset just past this request's dwords (reset target).
 * @submit_ns: when it was written to the ring (dma_fence_now_ns()).
 * @link: in the engine's request list, protected by the engine lock.
 */
struct i915_request {
	struct dma_fence fence;
	struct i915_engine *engine;
	struct i915_context *ctx;
	struct i915_address_space *vm;
	uint32_t seqno;
	uint32_t ring_tail;
	int64_t submit_ns;
	struct list_head link;
};

/**
 * struct i915_engine_stats - counters, all atomic.
 * @submitted: requests submitted.
 * @retired: requests signalled successfully.
 * @resets: engine resets after an error.
 * @ring_waits: submissions that had to wait for ring space.
 */
struct i915_engine_stats {
	atomic_ulong submitted;
	atomic_ulong retired;
	atomic_ulong resets;
	atomic_ulong ring_waits;
};

/**
 * struct i915_engine - one command streamer.
 * @i915: the device.
 * @id: which one.
 * @name: the physical name, "rcs0", "bcs0", "vcs2", ...
 * @present: the device has this engine; an absent one has only @i915,
 *	@id, @name, its locks and an empty @requests (so loops over every
 *	id may lock it and find it idle), and i915_engine_get() returns NULL.
 * @class: enum i915_engine_class_id.
 * @instance: physical instance within the class (VCS2: 2).
 * @uabi_instance: instance as the uAPI numbers them, counting only the
 *	present engines of the class (Tiger Lake's vcs2 is uAPI vcs1).
 * @mmio_base: the real part's MMIO base.
 * @fence_context: the timeline of its fences.
 * @ring: host memory of the ring, @ring_size bytes, GGTT-mapped at
 *	@ring_ggtt.
 * @hws: host page of the status page, GGTT-mapped at @hws_ggtt.
 * @ggtt_res: the GGTT range holding ring and status page.
 * @signal_lock: held by whoever takes requests off @requests to signal
 *	them, across the signalling, so fences signal in ring order; taken
 *	before @lock.
 * @lock: protects everything below, and serialises ring writes so that
 *	ring order equals seqno order.
 * @requests: incomplete requests, oldest first (each holds a reference).
 * @next_seqno: seqno of the next request.
 * @tail: ring offset where the next request goes.
 * @reset_pending: the engine stopped; the reset worker will recover it.
 * @last_end_ns: when the engine last finished a request as the retirer saw
 *	it (dma_fence_now_ns()): the next request started then or at its
 *	submission, whichever is later.
 * @wedged: submissions are refused with -EIO (i915_engine_set_wedged());
 *	atomic, read without @lock.
 * @stats: counters.
 */
struct i915_engine {
	struct i915_device *i915;
	enum i915_engine_id id;
	const char *name;
	bool present;
	uint8_t class;
	uint8_t instance;
	uint8_t uabi_instance;
	uint32_t mmio_base;
	uint64_t fence_context;
	void *ring;
	uint32_t ring_size;
	uint32_t ring_ggtt;
	void *hws;
	uint32_t hws_ggtt;
	struct ttm_resource *ggtt_res;

	pthread_mutex_t signal_lock;
	pthread_mutex_t lock;
	/* Protected by @lock. */
	struct list_head requests;
	uint32_t next_seqno;
	uint32_t tail;
	bool reset_pending;
	int64_t last_end_ns;

	atomic_bool wedged;
	struct i915_engine_stats stats;
};

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
 * struct i915_cs_cycles - one sample of an engine's command streamer clock
 * against the CPU's, what DRM_I915_QUERY_CS_CYCLES returns.
 * @cycles: RING_TIMESTAMP, in ticks of @frequency.
 * @cpu_ns: CLOCK_MONOTONIC (dma_fence_now_ns()) at the same moment: the
 *	midpoint of two CPU reads around the register read.
 * @cpu_delta_ns: how far apart those two reads were, the error bound.
 * @frequency: ticks per second.
 *
 * A timestamp a batch stored with MI_STORE_REGISTER_MEM of RING_TIMESTAMP
 * at cycle count t happened at CPU time i915_cs_cycles_to_ns(sample, t).
 */
struct i915_cs_cycles {
	uint64_t cycles;
	int64_t cpu_ns;
	int64_t cpu_delta_ns;
	uint32_t frequency;
};

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
 * struct i915_mem - device memory a back end allocated for raw requests
 * (i915_mem_create()): host pages on the sim, a GEM object on hw. Opaque;
 * each back end defines it.
 */
struct i915_mem;

/* struct i915_request_object flags. */
#define I915_REQUEST_OBJECT_WRITE (1u << 0) /* the batch writes the object */

/**
 * struct i915_request_object - one object a raw request uses.
 * @mem: the memory (i915_mem_create() of the same device).
 * @gpu_addr: where the batch finds it in the context's VM, chosen by the
 *	caller: page aligned, below 2^48, the ranges of one request disjoint.
 *	The object is bound there before the batch runs and stays bound
 *	until i915_mem_destroy() or another object claims the range.
 * @flags: I915_REQUEST_OBJECT_*.
 */
struct i915_request_object {
	struct i915_mem *mem;
	uint64_t gpu_addr;
	uint32_t flags;
};

/**
 * struct i915_request_args - a request at the level every back end takes:
 * a batch with its objects and their GPU addresses, and what it waits for.
 * @ctx: the context; it must have a VM (i915_context_set_vm()), whose
 *	address space the caller owns for these objects (no GEM object of the
 *	driver may be bound over their ranges).
 * @batch: GPU address of the batch's first command, inside one of
 *	@objects, qword aligned.
 * @objects: every object the batch touches, the batch's own included.
 * @nobjects: entries of @objects (1 or more).
 * @await: fences the batch must not start before (any timeline), or NULL.
 * @nawait: entries of @await.
 */
struct i915_request_args {
	struct i915_context *ctx;
	uint64_t batch;
	const struct i915_request_object *objects;
	unsigned int nobjects;
	struct dma_fence *const *await;
	unsigned int nawait;
};

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
