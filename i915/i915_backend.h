/* SPDX-License-Identifier: MIT */
/*
 * i915_backend - the private boundary between the driver (the i915/ sources) and the
 * device it drives, in the manner of libdrm's intel_bufmgr_priv.h: the
 * driver core only ever calls through struct i915_backend_ops and reads the
 * facts of struct i915_backend, and each back end fills one static const
 * table (the simulated GPU: i915_backend_sim.c over i915/sim/). Neither this
 * header nor the driver core includes a back end's own headers; nothing
 * outside i915/ includes this header.
 *
 * Two levels of ops. The request level is what every back end implements
 * and what a real i915 kernel accepts (execbuffer2): run a batch with its
 * objects at GPU addresses the caller chose, after the fences it awaits,
 * and get a fence back (@request_submit), on memory the back end allocates
 * (@mem_create). The ring level (page-table entries, rings, status pages) is
 * for a back end whose rings the driver itself drives (the sim): it
 * implements @request_submit with i915_ring_request_submit() over those ops.
 * A back end that owns its rings (hw: the kernel does) leaves the ring-level
 * slots NULL, and the driver paths that need them answer -EOPNOTSUPP.
 *
 * A ring back end owns the device: GGTT and ppGTT page-table entries, ring
 * and status page registers, the interrupt source and the error state. It
 * calls the driver back through struct i915_backend_callbacks, on a thread
 * of its own (the interrupt thread) or, for a synchronous device, on the
 * thread that called @engine_run.
 */
#ifndef I915_BACKEND_H
#define I915_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <i915/i915_engine_types.h>

struct i915_backend;
struct i915_device;
struct i915_device_config;

/* Interrupt bits of struct i915_backend_callbacks' @irq. */
#define I915_IRQ_USER (1u << 0)	    /* MI_USER_INTERRUPT executed */
#define I915_IRQ_CS_ERROR (1u << 1) /* the engine stopped on an error or a hang */

/* @engine_reset's head meaning "drop everything queued": head = tail. */
#define I915_BACKEND_RESET_TO_TAIL UINT32_MAX

/**
 * enum i915_pte_kind - what a GGTT entry points at.
 * @I915_PTE_HOST: a 4 KiB host page of this process (system memory).
 * @I915_PTE_STOLEN: a byte offset into stolen memory.
 * @I915_PTE_LMEM: a byte offset into device-local memory.
 */
enum i915_pte_kind {
	I915_PTE_HOST,
	I915_PTE_STOLEN,
	I915_PTE_LMEM,
};

/**
 * struct i915_backend_callbacks - how the device reaches the driver.
 * @irq: an engine raised interrupts (I915_IRQ_* bits in @iir). Runs without
 *	any back-end lock; may call every op except @destroy, @engine_reset.
 * @error: an engine stopped (hang, fault, bad command); @reason is a
 *	back-end reason code (for error reports only), @ctx_id the context
 *	tag the engine was running. Same context rules as @irq; the driver
 *	schedules the reset elsewhere.
 */
struct i915_backend_callbacks {
	void (*irq)(void *data, enum i915_engine_id engine, uint32_t iir);
	void (*error)(void *data, enum i915_engine_id engine, int reason, uint32_t ctx_id);
};

/**
 * struct i915_mem - the head of every back end's memory object (embedded
 * first; the opaque type of i915_engine.h).
 * @size: bytes, a multiple of 4096.
 * @cpu: the CPU view of all of it, for the object's lifetime.
 */
struct i915_mem {
	uint64_t size;
	void *cpu;
};

/**
 * struct i915_backend_ops - one back end. Request level: @name, @destroy,
 * @request_submit, @mem_create, @mem_destroy, @describe, @pte_encode, @is_synchronous,
 * @error_state_dump and @lmem_cpu_ptr are required of every back end. Ring
 * level: @ggtt_insert to @engine_run, all set by a back end whose rings the
 * driver drives, all NULL otherwise (the driver's GGTT binds, ring
 * submission, status-page reads and engine clock then answer -EOPNOTSUPP
 * or nothing). The vm_* ones may be NULL for a back end without ppGTT
 * (i915_vm_create() then answers -EOPNOTSUPP). Every call may come from any
 * thread unless said otherwise.
 */
struct i915_backend_ops {
	/** @name: static name, "sim" or "hw". */
	const char *name;
	/** @destroy: stop the device and free @be; nothing may race with it. */
	void (*destroy)(struct i915_backend *be);
	/**
	 * @request_submit: run @args (checked by the driver: a context with a
	 * VM, objects of this back end at page-aligned disjoint addresses, the
	 * batch inside one) on @engine once every fence of @args->await has
	 * signalled; *@out (when not NULL) gets a reference to a fence that
	 * signals when the batch is done, with -EIO when it was reset.
	 * Return: 0; -EOPNOTSUPP (this back end cannot run on @engine);
	 * -ENOMEM; -EIO; the device's errors. Nothing is submitted on failure.
	 */
	int (*request_submit)(struct i915_backend *be, enum i915_engine_id engine,
			      const struct i915_request_args *args, struct dma_fence **out);
	/**
	 * @mem_create: @size bytes (a positive multiple of 4096) of zeroed
	 * memory that @request_submit's objects name, with its CPU view.
	 * Return: 0; -ENOMEM; the device's errors.
	 */
	int (*mem_create)(struct i915_backend *be, uint64_t size, struct i915_mem **out);
	/** @mem_destroy: wait until no request uses @mem, unbind and free it. */
	void (*mem_destroy)(struct i915_backend *be, struct i915_mem *mem);
	/**
	 * @describe: the device's facts as key/value pairs, in a fixed order,
	 * for a results file's machine block (i915_device_describe()).
	 */
	void (*describe)(struct i915_backend *be,
			 void (*emit)(void *data, const char *key, const char *value), void *data);
	/**
	 * @pte_encode: the GGTT entry for @addr of @kind (a host pointer cast
	 * to an integer for I915_PTE_HOST, a byte offset otherwise).
	 */
	uint64_t (*pte_encode)(struct i915_backend *be, enum i915_pte_kind kind, uint64_t addr);
	/**
	 * @ggtt_insert: write @count entries from @ptes at page @first.
	 * Return: 0; -EINVAL when the range leaves the GGTT.
	 */
	int (*ggtt_insert)(struct i915_backend *be, uint64_t first, const uint64_t *ptes,
			   uint64_t count);
	/** @ggtt_clear: mark @count entries at @first not present; 0 or -EINVAL. */
	int (*ggtt_clear)(struct i915_backend *be, uint64_t first, uint64_t count);
	/** @ggtt_read_pte: the entry at @index (0 beyond the GGTT). */
	uint64_t (*ggtt_read_pte)(struct i915_backend *be, uint64_t index);
	/**
	 * @engine_setup: point @engine's ring at GGTT @ring (@size bytes) and
	 * its status page at GGTT @hws. Engine idle. Return: 0; -EINVAL.
	 */
	int (*engine_setup)(struct i915_backend *be, enum i915_engine_id engine, uint32_t ring,
			    uint32_t size, uint32_t hws);
	/**
	 * @engine_submit: append @ndw dwords (an even number) at the ring tail
	 * and start the engine on them. Return: 0; -ENOSPC (ring full: retire
	 * and retry); -EFAULT; -EINVAL.
	 */
	int (*engine_submit)(struct i915_backend *be, enum i915_engine_id engine,
			     const uint32_t *dw, unsigned int ndw);
	/** @engine_read_hws: dword @index of @engine's status page. */
	uint32_t (*engine_read_hws)(struct i915_backend *be, enum i915_engine_id engine,
				    uint32_t index);
	/**
	 * @engine_timestamp: @engine's command streamer timestamp (RING_TIMESTAMP
	 * and its high dword, read as one value), in ticks of @cs_timestamp_hz.
	 */
	uint64_t (*engine_timestamp)(struct i915_backend *be, enum i915_engine_id engine);
	/** @engine_is_stopped: the engine stopped on an error and awaits reset. */
	bool (*engine_is_stopped)(struct i915_backend *be, enum i915_engine_id engine);
	/**
	 * @engine_reset: abandon what @engine executes, restart it at ring
	 * offset @head (I915_BACKEND_RESET_TO_TAIL: drop everything queued). Must not
	 * be called from a callback. Return: 0; -EINVAL.
	 */
	int (*engine_reset)(struct i915_backend *be, enum i915_engine_id engine, uint32_t head);
	/**
	 * @engine_run: synchronous devices only: execute @engine's ring on the
	 * calling thread until it is empty or stopped, delivering the
	 * callbacks. Return: 0; -EIO (stopped); -EINVAL (threaded device).
	 */
	int (*engine_run)(struct i915_backend *be, enum i915_engine_id engine);
	/** @is_synchronous: engines only run inside @engine_run. */
	bool (*is_synchronous)(struct i915_backend *be);
	/** @error_state_dump: print the device's error states as text. */
	void (*error_state_dump)(struct i915_backend *be, FILE *out);
	/**
	 * @vm_create: a new empty ppGTT (48-bit, 4 KiB pages); *@handle gets
	 * its non-zero id, the value a request loads into RING_PDP0 so that
	 * the engine runs in it. Return: 0; -ENOMEM;
	 * -EOPNOTSUPP (a back end without ppGTT: then every other vm_* op is
	 * unused).
	 */
	int (*vm_create)(struct i915_backend *be, uint64_t *handle);
	/**
	 * @vm_destroy: free the ppGTT @handle. The driver calls it once no
	 * request of the VM remains queued.
	 */
	void (*vm_destroy)(struct i915_backend *be, uint64_t handle);
	/**
	 * @vm_insert: write @count entries from @ptes (@pte_encode values) at
	 * page @first (address >> 12) of @handle. Return: 0; -EINVAL (outside
	 * the 48-bit space); -ENOENT (no such VM); -ENOMEM (a page-table page;
	 * entries before stay written).
	 */
	int (*vm_insert)(struct i915_backend *be, uint64_t handle, uint64_t first,
			 const uint64_t *ptes, uint64_t count);
	/** @vm_clear: mark @count entries at @first not present; 0, -EINVAL, -ENOENT. */
	int (*vm_clear)(struct i915_backend *be, uint64_t handle, uint64_t first, uint64_t count);
	/** @vm_read_pte: the entry at page @index of @handle, 0 when none. */
	uint64_t (*vm_read_pte)(struct i915_backend *be, uint64_t handle, uint64_t index);
	/**
	 * @lmem_cpu_ptr: CPU pointer to byte @offset of device-local memory,
	 * NULL outside the CPU-visible window.
	 */
	void *(*lmem_cpu_ptr)(struct i915_backend *be, uint64_t offset);
};

/**
 * struct i915_backend - base of every back end (embedded first).
 * @ops: the table.
 * @ggtt_size: GGTT bytes.
 * @aperture_size: CPU-mappable low part of the GGTT, bytes.
 * @stolen_size: stolen memory bytes (0: none).
 * @lmem_size: device-local memory bytes (0: integrated part).
 * @lmem_visible_size: CPU-visible prefix of lmem, bytes.
 * @ring_size: bytes of ring the driver should give each engine.
 * @engine_mask: the engines the device has, bit (1 << enum i915_engine_id)
 *	each; render and blitter always.
 * @hangcheck_ms: how long the device lets a batch run before it declares a
 *	hang (UINT32_MAX: never), so waits for ring space can give up.
 * @cs_timestamp_hz: the frequency RING_TIMESTAMP counts at.
 * @ring_max_size: the largest ring the device takes, bytes, at most
 *	I915_RING_MAX_SIZE.
 * @gpu_snoops: the GPU's accesses to system memory snoop the CPU cache (an
 *	LLC-sharing part); false: a cached CPU mapping must be flushed before
 *	the GPU reads what the CPU wrote through it.
 */
struct i915_backend {
	const struct i915_backend_ops *ops;
	uint64_t ggtt_size;
	uint64_t aperture_size;
	uint64_t stolen_size;
	uint64_t lmem_size;
	uint64_t lmem_visible_size;
	uint32_t ring_size[I915_NUM_ENGINES];
	uint32_t engine_mask;
	uint32_t hangcheck_ms;
	uint32_t cs_timestamp_hz;
	uint32_t ring_max_size;
	bool gpu_snoops;
};

/**
 * typedef i915_backend_create_fn - a back end's constructor, as
 * i915_device_probe() calls it.
 * @cfg: the back end's own configuration (for the sim, a struct
 *	sim_gpu_config).
 * @cb: the driver's callbacks (@irq and @error set).
 * @data: their cookie.
 * @out: the new back end, its facts filled.
 *
 * Return: 0; -EINVAL (bad @cfg or @cb); -ENOMEM; the device's own errors.
 */
typedef int (*i915_backend_create_fn)(const void *cfg, const struct i915_backend_callbacks *cb,
				      void *data, struct i915_backend **out);

/**
 * i915_device_probe() - the driver over a back end made by @create from @cfg:
 * GGTT, stolen and lmem managers, engines with their rings and status pages,
 * interrupt and reset handling. Defined in i915_drv.c; each back end's public
 * constructor (i915_device_create_sim()) calls it.
 * @create: the back end's constructor.
 * @cfg: its configuration, passed through.
 * @out: the new device.
 *
 * Return: 0; -EINVAL; -ENOMEM; the back end's errors. Nothing is left
 * behind on failure.
 */
int i915_device_probe(i915_backend_create_fn create, const void *cfg, struct i915_device **out);

/**
 * i915_ring_request_submit() - @request_submit for a back end whose rings
 * the driver drives: waits on the CPU for every fence of @args->await, then
 * queues @args->batch on @engine's ring in @args->ctx (its VM). The back end
 * binds the objects first. Defined in i915_engine.c.
 * @i915: the device (the callbacks' cookie the back end was given).
 * @engine: the engine.
 * @args: the request, checked by i915_request_submit_objects().
 * @out: the fence, or NULL.
 *
 * Return: as i915_request_submit(); -EINTR never (the waits are not
 * interruptible).
 */
int i915_ring_request_submit(struct i915_device *i915, enum i915_engine_id engine,
			     const struct i915_request_args *args, struct dma_fence **out);

/**
 * i915_sim_config_defaults() - the sim's defaults in a neutral device
 * configuration (i915_device_config_init()). Defined in i915_backend_sim.c.
 * @cfg: the fields of the device's shape are filled.
 */
void i915_sim_config_defaults(struct i915_device_config *cfg);

/**
 * i915_device_create_sim_config() - i915_device_create() of the sim.
 * @cfg: the device.
 * @out: the new device.
 *
 * Return: as i915_device_create_sim().
 */
int i915_device_create_sim_config(const struct i915_device_config *cfg, struct i915_device **out);

#endif /* I915_BACKEND_H */
