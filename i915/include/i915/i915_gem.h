/* SPDX-License-Identifier: MIT */
/*
 * i915_gem: buffer objects of the Intel driver on top of TTM, and the
 * execbuffer that runs batches on them.
 *
 * i915_gem_init() registers the device's memory types with its ttm_device:
 * TTM_PL_TT is the GGTT (binding = PTE writes over the tt pages, eviction
 * = unbind, no copy), I915_PL_STOLEN and TTM_PL_VRAM are stolen and
 * device-local memory, moved to and from by the blitter (BCS) with the copy
 * pipelined behind its fence; the CPU copy remains as the fallback when the
 * blitter cannot run. Objects in stolen or lmem reach the GPU through a
 * GGTT range (a "vma") mapped over their pages while they stay put.
 *
 * Lock order: object reservations (ww class reservation_ww_class), then the
 * device's engine locks (see i915_drv.h).
 */
#ifndef I915_GEM_H
#define I915_GEM_H

#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_bo.h>

#include <i915/i915_drv.h>

/**
 * enum i915_gem_region - where an object prefers to live.
 * @I915_GEM_REGION_SMEM: system memory, bound into the GGTT for the GPU.
 * @I915_GEM_REGION_LMEM: device-local memory (discrete parts).
 * @I915_GEM_REGION_STOLEN: stolen memory (not CPU-reachable).
 */
enum i915_gem_region {
	I915_GEM_REGION_SMEM,
	I915_GEM_REGION_LMEM,
	I915_GEM_REGION_STOLEN,
};

/**
 * struct i915_gem_object - an i915 buffer object.
 * @base: the TTM object (first, so &@base is the object).
 * @i915: the device.
 * @region: the preferred region, where execbuffer validates the object to.
 *
 * Protected by the reservation:
 * @ggtt_bound: the PTEs of a TT resource point at the tt pages (cleared
 *	when the pages go: swap-out, move away from TT).
 * @vma: GGTT range mapping a VRAM/stolen resource, NULL when none.
 */
struct i915_gem_object {
	struct ttm_buffer_object base;
	struct i915_device *i915;
	enum i915_gem_region region;

	/* Protected by base.resv. */
	bool ggtt_bound;
	struct ttm_resource *vma;
};

/*
 * Driver counters live in i915_device.gem_stats (atomics): blit_moves
 * (moves done by the blitter), memcpy_moves (CPU fallback), multihops
 * (moves bounced through TT), eb_backoffs (execbuffer ww back-offs after
 * -EDEADLK), relocs_written and relocs_skipped (presumed offset held).
 */

/**
 * i915_gem_init() - bring up the TTM side of @i915: its ttm_device with
 * the driver's funcs and every memory type registered. Return: 0; the
 * errors of ttm_device_init(); nothing left behind on failure.
 */
int i915_gem_init(struct i915_device *i915);

/**
 * i915_gem_fini() - free delayed-destroy objects and tear the ttm_device
 * down.
 * @i915: the device.
 *
 * Return: 0; -EBUSY while objects are alive (nothing torn down).
 */
int i915_gem_fini(struct i915_device *i915);

/**
 * i915_gem_object_create() - a new object.
 * @i915: the device.
 * @size: bytes, a page multiple.
 * @region: where it is placed (SMEM objects start in SYSTEM: their pages
 *	appear on first use, zeroed).
 * @out: the object.
 *
 * Return: 0 with one reference in *@out; -EINVAL (bad
 * size, region the part lacks); -ENOMEM; -ENOSPC-like validate errors.
 */
int i915_gem_object_create(struct i915_device *i915, uint64_t size, enum i915_gem_region region,
			   struct i915_gem_object **out);

/**
 * i915_gem_object_put() - drop a reference; the last one frees the object.
 * @obj: the object; NULL is a no-op.
 */
void i915_gem_object_put(struct i915_gem_object *obj);

/**
 * i915_gem_object_access() - CPU copy between a buffer and the object,
 * wherever it lives; waits for the GPU as ttm_bo_access() does.
 * @obj: the object.
 * @offset: byte offset in the object.
 * @buf: the caller's bytes.
 * @len: how many.
 * @write: true: @buf to the object; false: the object to @buf.
 *
 * Context: takes the reservation.
 * Return: 0;
 * -EINVAL; -EIO (stolen memory, lmem outside the CPU window); -EINTR.
 */
int i915_gem_object_access(struct i915_gem_object *obj, uint64_t offset, void *buf, size_t len,
			   bool write);

/**
 * i915_gem_object_migrate() - move the object now.
 * @obj: the object.
 * @region: where to (SMEM means SYSTEM: unbound).
 *
 * Context: takes the reservation.
 * Return: 0; validate's errors.
 */
int i915_gem_object_migrate(struct i915_gem_object *obj, enum i915_gem_region region);

/**
 * i915_gem_object_mem_type() - the TTM memory type the object is in now,
 * an unlocked snapshot.
 * @obj: the object.
 *
 * Return: the memory type; TTM_NUM_MEM_TYPES when it has no resource.
 */
unsigned int i915_gem_object_mem_type(struct i915_gem_object *obj);

/**
 * i915_gem_object_wait() - wait for every fence of the object.
 * @obj: the object.
 *
 * Return: 0; the first fence error (-EIO).
 */
int i915_gem_object_wait(struct i915_gem_object *obj);

/* Relocation and object flags of execbuffer (execbuffer2 spelling). */
#define I915_GEM_DOMAIN_RENDER 0x2u
#define I915_GEM_DOMAIN_INSTRUCTION 0x10u
#define I915_GEM_DOMAIN_GTT 0x40u
#define I915_GEM_DOMAIN_MASK 0x7eu

/**
 * struct i915_exec_reloc - patch one 64-bit GPU address into an object.
 * @target: index of the target object in the execbuffer's list (or, with
 *	I915_EXEC_HANDLE_LUT off, the same: lists are always indexed here).
 * @delta: added to the target's address.
 * @offset: byte offset in the object being patched, 4-aligned, with room for
 *	the write (8 bytes; 4 with I915_EXEC_RELOC_32).
 * @presumed_offset: the address the caller assumed; when it still holds,
 *	the write is skipped. Updated to the real address on return.
 * @read_domains: I915_GEM_DOMAIN_* the batch reads the target through.
 * @write_domain: at most one domain the batch writes the target through;
 *	non-zero makes the target's fence a write fence.
 * @flags: I915_EXEC_RELOC_*; other bits are -EINVAL.
 */
struct i915_exec_reloc {
	uint32_t target;
	uint32_t delta;
	uint64_t offset;
	uint64_t presumed_offset;
	uint32_t read_domains;
	uint32_t write_domain;
	uint32_t flags;
};

/*
 * Patch 32 bits, the low half of target address + delta (the 2007
 * superioctl's relocations), instead of 64.
 */
#define I915_EXEC_RELOC_32 (1u << 0)

#define EXEC_OBJECT_WRITE (1u << 2)
#define EXEC_OBJECT_SUPPORTS_48B_ADDRESS (1u << 3)
#define EXEC_OBJECT_PINNED (1u << 4)
#define EXEC_OBJECT_NEEDS_MAPPABLE (1u << 6) /* driver extension: in the aperture */
#define EXEC_OBJECT_FLAGS_MASK                                                                     \
	(EXEC_OBJECT_WRITE | EXEC_OBJECT_SUPPORTS_48B_ADDRESS | EXEC_OBJECT_PINNED |               \
	 EXEC_OBJECT_NEEDS_MAPPABLE)

/**
 * struct i915_exec_object - one object of an execbuffer.
 * @obj: the object (a reference is held by the caller), or NULL when @bo
 *	is set.
 * @bo: instead of @obj, a buffer of the device created through the uAPI
 *	(struct ttm_drm_bo; a reference is held by the caller). Such buffers
 *	are validated into the GGTT like SMEM objects (in a VM: like SMEM
 *	objects there, SYSTEM or TT with pages, or where they are).
 * @flags: EXEC_OBJECT_*. EXEC_OBJECT_SUPPORTS_48B_ADDRESS only matters in
 *	a VM: without it the object is placed below 4 GiB (a softpin ending
 *	above is -EINVAL).
 * @offset: in: the softpin address with EXEC_OBJECT_PINNED (page aligned,
 *	inside the GGTT; in a VM: inside the 48-bit VM, canonical form
 *	accepted); out: the GPU address the object had (in a VM: canonical,
 *	i915_vm_canonical()).
 * @relocs: @nreloc relocations to apply to this object, may be NULL.
 * @nreloc: count.
 */
struct i915_exec_object {
	struct i915_gem_object *obj;
	struct ttm_buffer_object *bo;
	uint32_t flags;
	uint64_t offset;
	struct i915_exec_reloc *relocs;
	uint32_t nreloc;
};

#define I915_EXEC_RENDER 1u
#define I915_EXEC_BLT 3u
/* Spelled as in <drm/i915_drm.h>, so both headers may be included. */
/* clang-format off */
#ifndef I915_EXEC_BSD
#define I915_EXEC_BSD (2<<0) /* the first video engine */
#endif
#ifndef I915_EXEC_VEBOX
#define I915_EXEC_VEBOX (4<<0) /* the first video-enhance engine */
#endif
/* clang-format on */
#define I915_EXEC_RING_MASK 0x3fu
#define I915_EXEC_NO_RELOC (1u << 11)
#define I915_EXEC_HANDLE_LUT (1u << 12)
#define I915_EXEC_BATCH_FIRST (1u << 18)
#define I915_EXEC_FLAGS_MASK                                                                       \
	(I915_EXEC_RING_MASK | I915_EXEC_NO_RELOC | I915_EXEC_HANDLE_LUT | I915_EXEC_BATCH_FIRST)

/**
 * struct i915_execbuffer - arguments of i915_gem_execbuffer().
 * @objects: the objects; the batch is the last one (the first with
 *	I915_EXEC_BATCH_FIRST).
 * @count: entries (at least one).
 * @batch_start_offset: byte offset of the first batch command (8-aligned).
 * @batch_len: bytes of batch from there (0: to the end of the object).
 * @flags: I915_EXEC_* (engine in the ring bits: 0/RENDER, BLT, BSD, VEBOX;
 *	BSD and VEBOX are -EINVAL on a part without such an engine).
 * @ctx: context to run in (NULL: the kernel context).
 * @engine: the engine to run on (any present one of the device, e.g. from
 *	i915_engine_lookup()); NULL: the one of the ring bits of @flags.
 * @out_fence: out: a reference to the batch's fence.
 */
struct i915_execbuffer {
	struct i915_exec_object *objects;
	uint32_t count;
	uint32_t batch_start_offset;
	uint32_t batch_len;
	uint32_t flags;
	struct i915_context *ctx;
	struct i915_engine *engine;
	struct dma_fence *out_fence;
};

/**
 * i915_gem_execbuffer() - run a batch over a list of objects: reserve them
 * all under one ww ticket (backing off and retrying on -EDEADLK), validate
 * each into a GPU-reachable place (softpinned ones exactly at their
 * address), apply relocations whose presumed offset is stale, wait for
 * foreign fences, submit, and attach the one fence to every object (write
 * usage for objects written: EXEC_OBJECT_WRITE or a write domain).
 * @i915: the device.
 * @eb: the arguments; @eb->out_fence is set on success.
 *
 * When @eb->ctx has a VM (i915_context_set_vm()), addresses are that VM's:
 * each object is validated where the GPU reaches it without the GGTT
 * (SMEM: SYSTEM or TT, populated; LMEM: VRAM; STOLEN: stolen), bound into
 * the VM at its softpin address or at a free range (its previous one when
 * it still has it), relocations are written with canonical VM addresses,
 * @offset reports the canonical VM address, and the batch starts in ppGTT
 * space. Softpin in a VM: misaligned, non-canonical, outside the VM, or
 * above 4 GiB without EXEC_OBJECT_SUPPORTS_48B_ADDRESS is -EINVAL;
 * overlapping another softpinned object of the call is -EINVAL (found
 * before anything is locked); overlapping a vma pinned by another
 * execbuffer in flight is -ENOSPC; an idle or busy unpinned vma in the way
 * is evicted (waiting for its last use), as the kernel's
 * i915_gem_evict_for_node() does.
 *
 * Return: 0 with @eb->out_fence set; -EINVAL (no objects, unknown flags,
 * duplicated objects, bad target index, relocation outside the object or
 * misaligned, more than one write domain, batch range outside the batch
 * object, softpin misaligned / outside the GGTT / overlapping another
 * softpinned object, or a softpin range held by objects that cannot move,
 * pinned ones, even after eviction); -ENOMEM (no room for an object without
 * softpin in its memory type, or an allocation failed, softpin or not);
 * -ENOSPC (no GGTT range for a local-memory object; in a VM see above);
 * -EINTR; -EIO. On error nothing is left reserved or pinned, no fence was
 * attached and the objects keep their content.
 */
int i915_gem_execbuffer(struct i915_device *i915, struct i915_execbuffer *eb);

#endif /* I915_GEM_H */
