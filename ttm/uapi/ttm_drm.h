/* SPDX-License-Identifier: MIT */
/*
 * ttm_drm.h: the frozen TTM user interface, as 2008 libdrm and the 2008 DRM
 * kernel module spoke it: the ioctl numbers (DRM_IOCTL_MM_*, _BO_*,
 * _FENCE_*), the argument structs, the DRM_BO_FLAG_* / DRM_BO_HINT_* /
 * DRM_FENCE_* bits. Names, field order and meanings are those of 2008;
 * only the field types are spelled with explicit widths and the one struct
 * whose padding was implicit (drm_mm_info_arg) names its pad, so the layout
 * is the same on every ABI. Sizes and numbers are frozen by the static
 * assertions at the end and by test-ttm-uapi-abi.c: changing either is an
 * ABI break.
 *
 * Every request is an _IOWR/_IOR number in the 'd' space; the argument is
 * read and written in place. Calls return 0 or a negative errno and leave
 * no state changed on failure.
 */
#ifndef TTM_DRM_H
#define TTM_DRM_H

#include <stdint.h>

/* Linux's generic _IOC layout, written out so the numbers do not depend on
 * which <sys/ioctl.h> the client has. */
#define TTM_DRM_IOC_NONE 0u
#define TTM_DRM_IOC_WRITE 1u
#define TTM_DRM_IOC_READ 2u
#define TTM_DRM_IOC(dir, type, nr, size)                                                           \
	((unsigned long)(((dir) << 30) | ((uint32_t)(size) << 16) | ((type) << 8) | (nr)))
#define TTM_DRM_IOC_NR(req) ((unsigned)((req)&0xffu))
#define TTM_DRM_IOC_TYPE(req) ((unsigned)(((req) >> 8) & 0xffu))
#define TTM_DRM_IOC_SIZE(req) ((unsigned)(((req) >> 16) & 0x3fffu))
#define TTM_DRM_IOC_DIR(req) ((unsigned)(((req) >> 30) & 0x3u))

#define DRM_IOCTL_BASE 'd'
#define DRM_IO(nr) TTM_DRM_IOC(TTM_DRM_IOC_NONE, DRM_IOCTL_BASE, nr, 0)
#define DRM_IOR(nr, type) TTM_DRM_IOC(TTM_DRM_IOC_READ, DRM_IOCTL_BASE, nr, sizeof(type))
#define DRM_IOW(nr, type) TTM_DRM_IOC(TTM_DRM_IOC_WRITE, DRM_IOCTL_BASE, nr, sizeof(type))
#define DRM_IOWR(nr, type)                                                                         \
	TTM_DRM_IOC(TTM_DRM_IOC_READ | TTM_DRM_IOC_WRITE, DRM_IOCTL_BASE, nr, sizeof(type))

/* Driver-private requests (drmCommand*()) are DRM_COMMAND_BASE + index. */
#define DRM_COMMAND_BASE 0x40
#define DRM_COMMAND_END 0xA0

/*
 * Fences. A fence object belongs to a fence class (one timeline of the
 * driver, e.g. one ring) and has a type mask: DRM_FENCE_TYPE_EXE (the
 * commands executed) plus driver-defined types in the bits the driver
 * declares (e.g. "reads and writes flushed"). @signaled reports which of
 * the types have signalled.
 */
#define DRM_FENCE_FLAG_EMIT 0x00000001u	     /* create: emit at once */
#define DRM_FENCE_FLAG_SHAREABLE 0x00000002u /* other clients may reference it */
#define DRM_FENCE_FLAG_WAIT_LAZY 0x00000004u /* sleep rather than poll */
#define DRM_FENCE_FLAG_NO_USER 0x00000010u   /* buffers: no user object, fence only */
#define DRM_FENCE_MASK_DRIVER 0xFF000000u    /* reserved for the driver */

#define DRM_FENCE_TYPE_EXE 0x00000001u

/**
 * struct drm_fence_arg - every FENCE_* request.
 * @handle: in (all but CREATE/BUFFERS), out (CREATE/BUFFERS/REFERENCE).
 * @fence_class: in (CREATE/EMIT/BUFFERS), out.
 * @type: in: fence types (CREATE/EMIT), types to flush or wait for
 *	(FLUSH/WAIT/SIGNALED); out: the fence's types.
 * @flags: DRM_FENCE_FLAG_*.
 * @signaled: out: the types that have signalled.
 * @error: out: 0, or the positive errno the fence signalled with.
 * @sequence: out: the seqno on the class's timeline.
 * @pad64, @expand_pad: must be zero.
 */
struct drm_fence_arg {
	uint32_t handle;
	uint32_t fence_class;
	uint32_t type;
	uint32_t flags;
	uint32_t signaled;
	uint32_t error;
	uint32_t sequence;
	uint32_t pad64;
	uint64_t expand_pad[2];
};

/* Access: how the GPU uses the buffer; these become the fence types. */
#define DRM_BO_FLAG_READ (1ULL << 0)
#define DRM_BO_FLAG_WRITE (1ULL << 1)
#define DRM_BO_FLAG_EXE (1ULL << 2)
#define DRM_BO_MASK_ACCESS (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE | DRM_BO_FLAG_EXE)
/* Never evicted, not even by MM_LOCK without IGNORE_NO_EVICT. */
#define DRM_BO_FLAG_NO_EVICT (1ULL << 4)
/* Mask: must be CPU-mappable when validated. Flags: it is. */
#define DRM_BO_FLAG_MAPPABLE (1ULL << 5)
/* Other clients may reference the buffer by its handle. */
#define DRM_BO_FLAG_SHAREABLE (1ULL << 6)
/* Cache-coherent memory when available. */
#define DRM_BO_FLAG_CACHED (1ULL << 7)
/* Stays where it is on every later validate with the same memory mask. */
#define DRM_BO_FLAG_NO_MOVE (1ULL << 8)
#define DRM_BO_FLAG_FORCE_CACHING (1ULL << 13)
#define DRM_BO_FLAG_FORCE_MAPPABLE (1ULL << 14)
#define DRM_BO_FLAG_TILE (1ULL << 15)
/* Cached when mapped by the CPU. */
#define DRM_BO_FLAG_CACHED_MAPPED (1ULL << 19)
/* Memory types: any number in a mask, exactly one in the reply flags. */
#define DRM_BO_FLAG_MEM_LOCAL (1ULL << 24)
#define DRM_BO_FLAG_MEM_TT (1ULL << 25)
#define DRM_BO_FLAG_MEM_VRAM (1ULL << 26)
#define DRM_BO_FLAG_MEM_PRIV0 (1ULL << 27)
#define DRM_BO_FLAG_MEM_PRIV1 (1ULL << 28)
#define DRM_BO_FLAG_MEM_PRIV2 (1ULL << 29)
#define DRM_BO_FLAG_MEM_PRIV3 (1ULL << 30)
#define DRM_BO_FLAG_MEM_PRIV4 (1ULL << 31)
#define DRM_BO_MASK_MEM 0x00000000FF000000ULL
#define DRM_BO_MASK_MEMTYPE                                                                        \
	(DRM_BO_MASK_MEM | DRM_BO_FLAG_CACHED_MAPPED | DRM_BO_FLAG_CACHED | DRM_BO_FLAG_MAPPABLE)
#define DRM_BO_MASK_DRIVER 0xFFFF000000000000ULL

/* Hints (struct drm_bo_info_req.hint / create hint / map hint). */
#define DRM_BO_HINT_DONT_BLOCK 0x00000002u	/* -EBUSY instead of waiting */
#define DRM_BO_HINT_DONT_FENCE 0x00000004u	/* not put on the unfenced list */
#define DRM_BO_HINT_WAIT_LAZY 0x00000008u	/* sleep rather than poll */
#define DRM_BO_HINT_PRESUMED_OFFSET 0x00000010u /* @presumed_offset is meaningful */

#define DRM_BO_INIT_MAGIC 0xfe769812u
#define DRM_BO_INIT_MAJOR 1
#define DRM_BO_INIT_MINOR 0
#define DRM_BO_INIT_PATCH 0

/**
 * struct drm_bo_info_req - a request on an existing buffer.
 * @mask: which bits of @flags are to be changed (SETSTATUS), or the map
 *	access (MAP: READ/WRITE).
 * @flags: the new values of the bits in @mask.
 * @handle: the buffer.
 * @hint: DRM_BO_HINT_*.
 * @fence_class: class of the fence the buffer will be fenced with.
 * @desired_tile_stride, @tile_info: tiling, stored and reported.
 * @pad64: must be zero.
 * @presumed_offset: with DRM_BO_HINT_PRESUMED_OFFSET, where the client
 *	believes the buffer is.
 */
struct drm_bo_info_req {
	uint64_t mask;
	uint64_t flags;
	uint32_t handle;
	uint32_t hint;
	uint32_t fence_class;
	uint32_t desired_tile_stride;
	uint32_t tile_info;
	uint32_t pad64;
	uint64_t presumed_offset;
};

/**
 * struct drm_bo_create_req - BO_CREATE.
 * @flags: DRM_BO_FLAG_* the buffer is validated with (memory types,
 *	access, NO_EVICT, SHAREABLE, ...).
 * @size: bytes; rounded up to pages.
 * @buffer_start: 0, or a page-aligned user address backing the buffer
 *	(user buffer, LOCAL/TT only).
 * @hint: DRM_BO_HINT_*.
 * @page_alignment: alignment in pages: 0 or a power of two.
 */
struct drm_bo_create_req {
	uint64_t flags;
	uint64_t size;
	uint64_t buffer_start;
	uint32_t hint;
	uint32_t page_alignment;
};

/* rep_flags: the buffer has unsignalled fences. */
#define DRM_BO_REP_BUSY 0x00000001u

/**
 * struct drm_bo_info_rep - the state of a buffer, returned by every BO
 * request that has a reply.
 * @flags: the buffer's current flags (exactly one memory type bit).
 * @proposed_flags: the flags of the last validate (the "mask").
 * @size: bytes.
 * @offset: GPU offset in its memory type (bytes, including the type's
 *	p_offset).
 * @arg_handle: the map handle to hand to the device's mmap.
 * @buffer_start: the user address of a user buffer, else 0.
 * @handle: the buffer's handle.
 * @fence_flags: types of the buffer's last fence.
 * @rep_flags: DRM_BO_REP_*.
 * @page_alignment: as created.
 * @desired_tile_stride, @hw_tile_stride, @tile_info: tiling state.
 * @pad64, @expand_pad: zero.
 */
struct drm_bo_info_rep {
	uint64_t flags;
	uint64_t proposed_flags;
	uint64_t size;
	uint64_t offset;
	uint64_t arg_handle;
	uint64_t buffer_start;
	uint32_t handle;
	uint32_t fence_flags;
	uint32_t rep_flags;
	uint32_t page_alignment;
	uint32_t desired_tile_stride;
	uint32_t hw_tile_stride;
	uint32_t tile_info;
	uint32_t pad64;
	uint64_t expand_pad[4];
};

/** struct drm_bo_arg_rep - a reply with a per-operation return code. */
struct drm_bo_arg_rep {
	struct drm_bo_info_rep bo_info;
	int32_t ret;
	uint32_t pad64;
};

/** struct drm_bo_create_arg - BO_CREATE: request in, reply out. */
struct drm_bo_create_arg {
	union {
		struct drm_bo_create_req req;
		struct drm_bo_info_rep rep;
	} d;
};

/** struct drm_bo_handle_arg - BO_UNMAP, BO_UNREFERENCE. */
struct drm_bo_handle_arg {
	uint32_t handle;
};

/** struct drm_bo_reference_info_arg - BO_REFERENCE, BO_INFO. */
struct drm_bo_reference_info_arg {
	union {
		struct drm_bo_handle_arg req;
		struct drm_bo_info_rep rep;
	} d;
};

/** struct drm_bo_map_wait_idle_arg - BO_MAP, BO_SETSTATUS, BO_WAIT_IDLE. */
struct drm_bo_map_wait_idle_arg {
	union {
		struct drm_bo_info_req req;
		struct drm_bo_info_rep rep;
	} d;
};

/* The operations of the 2007 validation list (struct drm_bo_op_req.op). */
enum drm_bo_op {
	drm_bo_validate,
	drm_bo_fence,
	drm_bo_ref_fence,
};

/**
 * struct drm_bo_op_req - one entry of a validation list (used by drivers'
 * execbuffer requests).
 * @op: enum drm_bo_op.
 * @arg_handle: fence handle for drm_bo_ref_fence.
 * @bo_req: the buffer request.
 */
struct drm_bo_op_req {
	uint32_t op;
	uint32_t arg_handle;
	struct drm_bo_info_req bo_req;
};

/**
 * struct drm_bo_op_arg - a validation list entry: @next is the user
 * address of the next entry (0 ends the list); @handled is set once done.
 */
struct drm_bo_op_arg {
	uint64_t next;
	union {
		struct drm_bo_op_req req;
		struct drm_bo_arg_rep rep;
	} d;
	int32_t handled;
	uint32_t pad64;
};

/* Memory types: MM_* mem_type values and the bit order of DRM_BO_FLAG_MEM_*. */
#define DRM_BO_MEM_LOCAL 0
#define DRM_BO_MEM_TT 1
#define DRM_BO_MEM_VRAM 2
#define DRM_BO_MEM_PRIV0 3
#define DRM_BO_MEM_PRIV1 4
#define DRM_BO_MEM_PRIV2 5
#define DRM_BO_MEM_PRIV3 6
#define DRM_BO_MEM_PRIV4 7
#define DRM_BO_MEM_TYPES 8

/* MM_LOCK / MM_UNLOCK lock_flags. */
#define DRM_BO_LOCK_UNLOCK_BM (1u << 0)
#define DRM_BO_LOCK_IGNORE_NO_EVICT (1u << 1)

/** struct drm_bo_version_arg - BO_VERSION: out, the interface version. */
struct drm_bo_version_arg {
	uint32_t major;
	uint32_t minor;
	uint32_t patchlevel;
};

/** struct drm_mm_type_arg - MM_TAKEDOWN, MM_LOCK, MM_UNLOCK. */
struct drm_mm_type_arg {
	uint32_t mem_type;
	uint32_t lock_flags;
};

/**
 * struct drm_mm_init_arg - MM_INIT: a manager for @mem_type over pages
 * [@p_offset, @p_offset + @p_size).
 * @magic: DRM_BO_INIT_MAGIC. @major, @minor: the client's version (major
 *	must match DRM_BO_INIT_MAJOR, minor be at most DRM_BO_INIT_MINOR).
 */
struct drm_mm_init_arg {
	uint32_t magic;
	uint32_t major;
	uint32_t minor;
	uint32_t mem_type;
	uint64_t p_offset;
	uint64_t p_size;
};

/**
 * struct drm_mm_info_arg - MM_INFO: in @mem_type, out @p_size (pages).
 * @pad64 was implicit padding in 2008; it must be zero.
 */
struct drm_mm_info_arg {
	uint32_t mem_type;
	uint32_t pad64;
	uint64_t p_size;
};

#define DRM_IOCTL_MM_INIT DRM_IOWR(0xc0, struct drm_mm_init_arg)
#define DRM_IOCTL_MM_TAKEDOWN DRM_IOWR(0xc1, struct drm_mm_type_arg)
#define DRM_IOCTL_MM_LOCK DRM_IOWR(0xc2, struct drm_mm_type_arg)
#define DRM_IOCTL_MM_UNLOCK DRM_IOWR(0xc3, struct drm_mm_type_arg)

#define DRM_IOCTL_FENCE_CREATE DRM_IOWR(0xc4, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_REFERENCE DRM_IOWR(0xc6, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_UNREFERENCE DRM_IOWR(0xc7, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_SIGNALED DRM_IOWR(0xc8, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_FLUSH DRM_IOWR(0xc9, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_WAIT DRM_IOWR(0xca, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_EMIT DRM_IOWR(0xcb, struct drm_fence_arg)
#define DRM_IOCTL_FENCE_BUFFERS DRM_IOWR(0xcc, struct drm_fence_arg)

#define DRM_IOCTL_BO_CREATE DRM_IOWR(0xcd, struct drm_bo_create_arg)
#define DRM_IOCTL_BO_MAP DRM_IOWR(0xcf, struct drm_bo_map_wait_idle_arg)
#define DRM_IOCTL_BO_UNMAP DRM_IOWR(0xd0, struct drm_bo_handle_arg)
#define DRM_IOCTL_BO_REFERENCE DRM_IOWR(0xd1, struct drm_bo_reference_info_arg)
#define DRM_IOCTL_BO_UNREFERENCE DRM_IOWR(0xd2, struct drm_bo_handle_arg)
#define DRM_IOCTL_BO_SETSTATUS DRM_IOWR(0xd3, struct drm_bo_map_wait_idle_arg)
#define DRM_IOCTL_BO_INFO DRM_IOWR(0xd4, struct drm_bo_reference_info_arg)
#define DRM_IOCTL_BO_WAIT_IDLE DRM_IOWR(0xd5, struct drm_bo_map_wait_idle_arg)
#define DRM_IOCTL_BO_VERSION DRM_IOR(0xd6, struct drm_bo_version_arg)
#define DRM_IOCTL_MM_INFO DRM_IOWR(0xd7, struct drm_mm_info_arg)

/* The frozen ABI. */
_Static_assert(sizeof(struct drm_fence_arg) == 48, "drm_fence_arg ABI");
_Static_assert(sizeof(struct drm_bo_info_req) == 48, "drm_bo_info_req ABI");
_Static_assert(sizeof(struct drm_bo_create_req) == 32, "drm_bo_create_req ABI");
_Static_assert(sizeof(struct drm_bo_info_rep) == 112, "drm_bo_info_rep ABI");
_Static_assert(sizeof(struct drm_bo_arg_rep) == 120, "drm_bo_arg_rep ABI");
_Static_assert(sizeof(struct drm_bo_create_arg) == 112, "drm_bo_create_arg ABI");
_Static_assert(sizeof(struct drm_bo_handle_arg) == 4, "drm_bo_handle_arg ABI");
_Static_assert(sizeof(struct drm_bo_reference_info_arg) == 112, "reference_info ABI");
_Static_assert(sizeof(struct drm_bo_map_wait_idle_arg) == 112, "map_wait_idle ABI");
_Static_assert(sizeof(struct drm_bo_op_req) == 56, "drm_bo_op_req ABI");
_Static_assert(sizeof(struct drm_bo_op_arg) == 136, "drm_bo_op_arg ABI");
_Static_assert(sizeof(struct drm_bo_version_arg) == 12, "drm_bo_version_arg ABI");
_Static_assert(sizeof(struct drm_mm_type_arg) == 8, "drm_mm_type_arg ABI");
_Static_assert(sizeof(struct drm_mm_init_arg) == 32, "drm_mm_init_arg ABI");
_Static_assert(sizeof(struct drm_mm_info_arg) == 16, "drm_mm_info_arg ABI");

_Static_assert(DRM_IOCTL_MM_INIT == 0xc02064c0ul, "MM_INIT number");
_Static_assert(DRM_IOCTL_MM_TAKEDOWN == 0xc00864c1ul, "MM_TAKEDOWN number");
_Static_assert(DRM_IOCTL_MM_LOCK == 0xc00864c2ul, "MM_LOCK number");
_Static_assert(DRM_IOCTL_MM_UNLOCK == 0xc00864c3ul, "MM_UNLOCK number");
_Static_assert(DRM_IOCTL_FENCE_CREATE == 0xc03064c4ul, "FENCE_CREATE number");
_Static_assert(DRM_IOCTL_FENCE_REFERENCE == 0xc03064c6ul, "FENCE_REFERENCE number");
_Static_assert(DRM_IOCTL_FENCE_UNREFERENCE == 0xc03064c7ul, "FENCE_UNREFERENCE number");
_Static_assert(DRM_IOCTL_FENCE_SIGNALED == 0xc03064c8ul, "FENCE_SIGNALED number");
_Static_assert(DRM_IOCTL_FENCE_FLUSH == 0xc03064c9ul, "FENCE_FLUSH number");
_Static_assert(DRM_IOCTL_FENCE_WAIT == 0xc03064caul, "FENCE_WAIT number");
_Static_assert(DRM_IOCTL_FENCE_EMIT == 0xc03064cbul, "FENCE_EMIT number");
_Static_assert(DRM_IOCTL_FENCE_BUFFERS == 0xc03064ccul, "FENCE_BUFFERS number");
_Static_assert(DRM_IOCTL_BO_CREATE == 0xc07064cdul, "BO_CREATE number");
_Static_assert(DRM_IOCTL_BO_MAP == 0xc07064cful, "BO_MAP number");
_Static_assert(DRM_IOCTL_BO_UNMAP == 0xc00464d0ul, "BO_UNMAP number");
_Static_assert(DRM_IOCTL_BO_REFERENCE == 0xc07064d1ul, "BO_REFERENCE number");
_Static_assert(DRM_IOCTL_BO_UNREFERENCE == 0xc00464d2ul, "BO_UNREFERENCE number");
_Static_assert(DRM_IOCTL_BO_SETSTATUS == 0xc07064d3ul, "BO_SETSTATUS number");
_Static_assert(DRM_IOCTL_BO_INFO == 0xc07064d4ul, "BO_INFO number");
_Static_assert(DRM_IOCTL_BO_WAIT_IDLE == 0xc07064d5ul, "BO_WAIT_IDLE number");
_Static_assert(DRM_IOCTL_BO_VERSION == 0x800c64d6ul, "BO_VERSION number");
_Static_assert(DRM_IOCTL_MM_INFO == 0xc01064d7ul, "MM_INFO number");

#endif /* TTM_DRM_H */
