/* SPDX-License-Identifier: MIT */
/*
 * i915_engine_types: the engines', contexts' and requests' structures and
 * the request arguments of the back-end interface; i915_engine.h declares
 * their functions. Apart from them so that the device's structure
 * (i915_drv_types.h), which embeds the engines, and the back ends
 * (i915_backend.h) can name these types without depending on the engine
 * code: the function calls among the driver's files go one way (device ->
 * engine -> GGTT/VM), and so do the includes.
 */
#ifndef I915_ENGINE_TYPES_H
#define I915_ENGINE_TYPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/list.h>

struct i915_address_space;
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

#endif /* I915_ENGINE_TYPES_H */
