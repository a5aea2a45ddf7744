/* SPDX-License-Identifier: MIT */
/*
 * i915_drm.h (compatibility): the execbuffer part of the 2008 libdrm
 * i915_drm.h for 2008 clients built against this project, plus the
 * execbuffer2 shape of the GEM era. Reached only through meson's
 * i915_compat_dep, never installed over a system libdrm header.
 *
 * Form (1), the 2007 "superioctl": DRM_I915_EXECBUFFER through
 * drmCommandWriteRead(). @ops_list is a chain of struct drm_i915_op_arg
 * (one per buffer, linked by @next, @num_buffers of them, the last one is
 * the batch); each entry may carry a chain of type-0 relocation blocks at
 * @reloc_ptr. One fence covers all buffers and is returned in @fence_arg.
 * -EAGAIN means "interrupted, call again unchanged".
 *
 * Form (2), execbuffer2: DRM_I915_GEM_EXECBUFFER2, an array of exec
 * objects with relocation entries; see struct drm_i915_gem_execbuffer2.
 */
#ifndef I915_COMPAT_I915_DRM_H
#define I915_COMPAT_I915_DRM_H

#include <stdint.h>

#include <ttm_drm.h>

typedef unsigned int drm_context_t;

/** struct drm_clip_rect - a cliprect of 2008 batches (accepted and ignored: no display). */
struct drm_clip_rect {
	unsigned short x1;
	unsigned short y1;
	unsigned short x2;
	unsigned short y2;
};

/* Driver command indices (drmCommand*(), added to DRM_COMMAND_BASE). */
#define DRM_I915_EXECBUFFER 0x12
#define DRM_I915_GEM_EXECBUFFER2 0x29

/* The fence class of the render ring, and its driver fence type. */
#define DRM_I915_FENCE_CLASS_ACCEL 0
/* Reads and writes of the fenced commands are flushed to memory. */
#define DRM_I915_FENCE_TYPE_RW 2
/* fence_arg.flags: the batch ends with a flush (the fence gets TYPE_RW). */
#define DRM_I915_FENCE_FLAG_FLUSHED 0x01000000

/*
 * Relocation block of form (1), in 32-bit words: a header of
 * I915_RELOC_HEADER words ([0] number of relocations, [1] type, [2..3] the
 * user address of the next block or 0), then per relocation
 * I915_RELOC0_STRIDE words for type 0: [0] byte offset in the buffer being
 * patched, [1] delta added to the target's GPU address, [2] the buffer
 * handle of the target, which must be on the validate list (the 2008
 * kernel matched it against the list's handles), [3] reserved (0). The
 * patch is 32 bits (the low half of the target's address + delta), so 4
 * bytes must fit at the offset.
 */
#define I915_RELOC_HEADER 4
#define I915_RELOC_TYPE_0 0
#define I915_RELOC0_STRIDE 4

/**
 * struct drm_i915_op_arg - one entry of the validate list.
 * @next: user address of the next entry, 0 after the last.
 * @reloc_ptr: user address of the first relocation block, or 0.
 * @handled: out: 1 once the buffer was validated and fenced.
 * @pad64: zero.
 * @d: in: the request (op must be drm_bo_validate; bo_req.handle, its
 *	access flags READ/WRITE/EXE, MAPPABLE); out: the buffer's state.
 */
struct drm_i915_op_arg {
	uint64_t next;
	uint64_t reloc_ptr;
	int handled;
	unsigned int pad64;
	union {
		struct drm_bo_op_req req;
		struct drm_bo_arg_rep rep;
	} d;
};

/**
 * struct drm_i915_batchbuffer - the batch of form (1).
 * @start: out: the GPU address the batch ran at (ignored on input: the
 *	batch is the last buffer of the list, run from its first byte).
 * @used: bytes of batch (non-zero, within the buffer).
 * @DR1, @DR4: drawing-rectangle state of 2008 parts; ignored.
 * @num_cliprects, @cliprects: any count >= 0 with a readable array of
 *	that many (-EFAULT otherwise); the driver has no display and ignores
 *	them, as a headless i915 would.
 */
struct drm_i915_batchbuffer {
	int start;
	int used;
	int DR1;
	int DR4;
	int num_cliprects;
	struct drm_clip_rect *cliprects;
};

/**
 * struct drm_i915_execbuffer - DRM_I915_EXECBUFFER.
 * @ops_list: user address of the first struct drm_i915_op_arg.
 * @num_buffers: entries in the list (the last is the batch).
 * @batch: the batch.
 * @context: reserved, 0.
 * @fence_arg: in: flags (DRM_FENCE_FLAG_SHAREABLE, _NO_USER,
 *	DRM_I915_FENCE_FLAG_FLUSHED), fence_class ACCEL; out: the fence
 *	covering every buffer (handle unless NO_USER, type, sequence).
 */
struct drm_i915_execbuffer {
	uint64_t ops_list;
	uint32_t num_buffers;
	struct drm_i915_batchbuffer batch;
	drm_context_t context;
	struct drm_fence_arg fence_arg;
};

/* Execbuffer2. */
#ifndef I915_GEM_DOMAIN_RENDER
#define I915_GEM_DOMAIN_RENDER 0x2u
#define I915_GEM_DOMAIN_INSTRUCTION 0x10u
#define I915_GEM_DOMAIN_GTT 0x40u
#endif

/**
 * struct drm_i915_gem_relocation_entry - one relocation of execbuffer2:
 * write the target's GPU address + @delta (64 bits) at @offset of the
 * object, unless @presumed_offset already equals the target's address.
 * @target_handle: handle (index with I915_EXEC_HANDLE_LUT) of an object
 *	of the same call.
 * @read_domains, @write_domain: I915_GEM_DOMAIN_*; at most one write bit.
 */
struct drm_i915_gem_relocation_entry {
	uint32_t target_handle;
	uint32_t delta;
	uint64_t offset;
	uint64_t presumed_offset;
	uint32_t read_domains;
	uint32_t write_domain;
};

#ifndef EXEC_OBJECT_WRITE
#define EXEC_OBJECT_WRITE (1u << 2)
#define EXEC_OBJECT_PINNED (1u << 4)
#endif

/**
 * struct drm_i915_gem_exec_object2 - one object of execbuffer2.
 * @handle: a buffer handle of the uAPI.
 * @relocation_count, @relocs_ptr: its relocations.
 * @alignment: 0 or a power of two up to the page size.
 * @offset: in: the address with EXEC_OBJECT_PINNED; out: the GPU address.
 * @flags: EXEC_OBJECT_WRITE, EXEC_OBJECT_PINNED.
 * @rsvd1, @rsvd2: zero.
 */
struct drm_i915_gem_exec_object2 {
	uint32_t handle;
	uint32_t relocation_count;
	uint64_t relocs_ptr;
	uint64_t alignment;
	uint64_t offset;
	uint64_t flags;
	uint64_t rsvd1;
	uint64_t rsvd2;
};

#ifndef I915_EXEC_RING_MASK
#define I915_EXEC_RING_MASK 0x3fu
#define I915_EXEC_RENDER 1u
#define I915_EXEC_BLT 3u
#define I915_EXEC_NO_RELOC (1u << 11)
#define I915_EXEC_HANDLE_LUT (1u << 12)
#define I915_EXEC_BATCH_FIRST (1u << 18)
#endif
/* Return a fence object handle in the upper 32 bits of @rsvd2. */
#define I915_EXEC_FENCE_OUT (1u << 17)

/**
 * struct drm_i915_gem_execbuffer2 - DRM_I915_GEM_EXECBUFFER2.
 * @buffers_ptr, @buffer_count: the exec objects (batch last, first with
 *	I915_EXEC_BATCH_FIRST).
 * @batch_start_offset: 8-aligned start in the batch; @batch_len: bytes
 *	(0: to the end of the object).
 * @DR1, @DR4, @num_cliprects, @cliprects_ptr: zero.
 * @flags: I915_EXEC_* (ring RENDER/BLT, NO_RELOC, HANDLE_LUT,
 *	BATCH_FIRST, FENCE_OUT).
 * @rsvd1: context id: 0 (the default context).
 * @rsvd2: in 0; out with I915_EXEC_FENCE_OUT: fence handle << 32.
 */
struct drm_i915_gem_execbuffer2 {
	uint64_t buffers_ptr;
	uint32_t buffer_count;
	uint32_t batch_start_offset;
	uint32_t batch_len;
	uint32_t DR1;
	uint32_t DR4;
	uint32_t num_cliprects;
	uint64_t cliprects_ptr;
	uint64_t flags;
	uint64_t rsvd1;
	uint64_t rsvd2;
};

#define DRM_IOCTL_I915_EXECBUFFER                                                                  \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_I915_EXECBUFFER, struct drm_i915_execbuffer)
#define DRM_IOCTL_I915_GEM_EXECBUFFER2                                                             \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_I915_GEM_EXECBUFFER2, struct drm_i915_gem_execbuffer2)

#endif /* I915_COMPAT_I915_DRM_H */
