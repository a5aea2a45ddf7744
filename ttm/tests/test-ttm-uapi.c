// SPDX-License-Identifier: MIT
/*
 * The uAPI through ttm_drm_ioctl(): hostile arguments for every entry point
 * (table-driven, each one bad field at a time, with the device state and a
 * buffer's content checked unchanged afterwards), handle visibility between
 * clients, lifetime by the last reference, fences signalled by FENCE_FLUSH
 * and by another thread, FENCE_BUFFERS, MM_LOCK, and the info dump.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fault_inject.h>
#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

#include <testlib/checksum.h>

#include "ktest.h"
#include "test-ttm-uapi-mock.h"

#define RW (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE)

static int fence_op(int fd, unsigned long req, struct drm_fence_arg *arg)
{
	return ttm_drm_ioctl(fd, req, arg);
}

/* BO_WAIT_IDLE of @handle with DONT_BLOCK, into *@w. */
static int wait_idle_nonblock(int fd, uint32_t handle, struct drm_bo_map_wait_idle_arg *w)
{
	memset(w, 0, sizeof(*w));
	w->d.req.handle = handle;
	w->d.req.hint = DRM_BO_HINT_DONT_BLOCK;
	return ttm_drm_ioctl(fd, DRM_IOCTL_BO_WAIT_IDLE, w);
}

/* The start of a two-client case: a mock device @name and two open clients. */
static struct ttm_drm_device *start_two_clients(const char *name, int *fd, int *fd2)
{
	struct ttm_drm_device *dev = mock_uapi_start(name);

	ASSERT_NOT_NULL(dev);
	*fd = ttm_drm_open(dev);
	*fd2 = ttm_drm_open(dev);
	ASSERT_GE(*fd, 0);
	ASSERT_GE(*fd2, 0);
	return dev;
}

/* The end of a two-client case: closing both frees every buffer, then the device stops. */
static void close_both_and_stop(struct ttm_drm_device *dev, int fd, int fd2)
{
	EXPECT_EQ(ttm_drm_close(fd2), 0);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
	return testlib_checksum(p, n);
}

KTEST(ttm_drm_ioctl_bad_descriptor_and_request)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-req");
	struct drm_bo_version_arg ver;
	unsigned char small[8] = {0};
	int fd;

	ASSERT_NOT_NULL(dev);
	fd = ttm_drm_open(dev);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ttm_drm_ioctl(-1, DRM_IOCTL_BO_VERSION, &ver), -EBADF);
	EXPECT_EQ(ttm_drm_ioctl(1 << 20, DRM_IOCTL_BO_VERSION, &ver), -EBADF);
	EXPECT_EQ(ttm_drm_ioctl(0, DRM_IOCTL_BO_VERSION, &ver), -EBADF);
	/* Right number, wrong size; the unused 0xce slot; a foreign type. */
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOWR(0xcd, small), small), -ENOTTY);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOWR(0xce, struct drm_bo_op_arg), small), -ENOTTY);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_VERSION ^ ('d' << 8) ^ ('x' << 8), &ver), -ENOTTY);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOWR(0xd8, struct drm_fence_arg), small), -ENOTTY);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_VERSION, NULL), -EFAULT);
	/* No driver commands in the mock. */
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IO(DRM_COMMAND_BASE), NULL), -EINVAL);
	memset(&ver, 0, sizeof(ver));
	ASSERT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_VERSION, &ver), 0);
	EXPECT_EQ(ver.major, DRM_BO_INIT_MAJOR);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(ttm_drm_close(fd), -EBADF);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_VERSION, &ver), -EBADF);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

/* ---- hostile arguments ------------------------------------------------ */

/* What the hostile table's entries build on: valid handles of every kind. */
struct hctx {
	uint32_t bo;	   /* a VRAM buffer holding a pattern */
	uint32_t other_bo; /* another client's non-shareable buffer */
	uint32_t fence;	   /* an emitted fence */
	uint32_t unemitted;
	uint32_t other_fence; /* another client's non-shareable fence */
	uint32_t shared_bo;   /* a shareable buffer of this client */
};

union harg {
	struct drm_bo_create_arg create;
	struct drm_bo_map_wait_idle_arg mwi;
	struct drm_bo_reference_info_arg ri;
	struct drm_bo_handle_arg h;
	struct drm_fence_arg fence;
	struct drm_mm_init_arg init;
	struct drm_mm_type_arg type;
	struct drm_mm_info_arg info;
};

struct hostile {
	const char *what;
	unsigned long request;
	int expect;
	void (*build)(union harg *a, const struct hctx *c);
};

#define H(name, req, err, body)                                                                    \
	static void build_##name(union harg *a, const struct hctx *c)                              \
	{                                                                                          \
		(void)c;                                                                           \
		body;                                                                              \
	}
#define HE(name, req, err)                                                                         \
	{                                                                                          \
#name, req, err, build_##name                                                      \
	}

/* Valid bases, each mutated by one entry. */
static void base_create(union harg *a)
{
	a->create.d.req.flags = RW | DRM_BO_FLAG_MEM_LOCAL;
	a->create.d.req.size = 4096;
}

static void base_setstatus(union harg *a, const struct hctx *c)
{
	a->mwi.d.req.handle = c->bo;
	a->mwi.d.req.flags = DRM_BO_FLAG_MEM_TT;
	a->mwi.d.req.mask = DRM_BO_MASK_MEM;
}

static void base_map(union harg *a, const struct hctx *c)
{
	a->mwi.d.req.handle = c->bo;
	a->mwi.d.req.mask = DRM_BO_FLAG_READ;
}

static void base_fence_create(union harg *a)
{
	a->fence.type = DRM_FENCE_TYPE_EXE;
	a->fence.flags = DRM_FENCE_FLAG_EMIT;
}

static void base_init(union harg *a)
{
	a->init.magic = DRM_BO_INIT_MAGIC;
	a->init.major = DRM_BO_INIT_MAJOR;
	a->init.mem_type = DRM_BO_MEM_PRIV0;
	a->init.p_size = 16;
}

H(create_unknown_flag, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.flags |= 1ull << 40;
})
H(create_driver_flag, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.flags |= 1ull << 63;
})
H(create_no_memory_type, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.flags = RW;
})
H(create_memory_type_without_manager, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.flags = DRM_BO_FLAG_MEM_PRIV3;
})
H(create_zero_size, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.size = 0;
})
H(create_overflowing_size, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.size = UINT64_MAX - 100;
})
H(create_size_beyond_type, DRM_IOCTL_BO_CREATE, -ENOMEM, {
	base_create(a);
	a->create.d.req.flags = DRM_BO_FLAG_MEM_VRAM;
	a->create.d.req.size = 1ull << 40;
})
H(create_alignment_not_pow2, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.page_alignment = 3;
})
H(create_unknown_hint, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.hint = 0x100;
})
H(create_misaligned_user_buffer, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.buffer_start = 0x1001;
})
H(create_user_buffer_in_vram, DRM_IOCTL_BO_CREATE, -EINVAL, {
	base_create(a);
	a->create.d.req.buffer_start = 0x10000;
	a->create.d.req.flags = DRM_BO_FLAG_MEM_VRAM;
})
H(setstatus_bad_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.handle = 0x7fff;
})
H(setstatus_zero_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.handle = 0;
})
H(setstatus_fence_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.handle = c->fence;
})
H(setstatus_other_clients_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.handle = c->other_bo;
})
H(setstatus_unknown_flag, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.mask |= 1ull << 41;
	a->mwi.d.req.flags |= 1ull << 41;
})
H(setstatus_flags_outside_mask, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.flags |= DRM_BO_FLAG_NO_EVICT;
})
H(setstatus_no_memory_type, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.flags = 0;
})
H(setstatus_type_without_manager, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.flags = DRM_BO_FLAG_MEM_PRIV2;
})
H(setstatus_bad_fence_class, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.fence_class = 2;
})
H(setstatus_unknown_hint, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.hint = 1;
})
H(setstatus_pad, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.pad64 = 1;
})
H(setstatus_unshare, DRM_IOCTL_BO_SETSTATUS, -EINVAL, {
	base_setstatus(a, c);
	a->mwi.d.req.handle = c->shared_bo;
	a->mwi.d.req.mask |= DRM_BO_FLAG_SHAREABLE;
})
H(map_bad_handle, DRM_IOCTL_BO_MAP, -EINVAL, {
	base_map(a, c);
	a->mwi.d.req.handle = 999;
})
H(map_other_clients_handle, DRM_IOCTL_BO_MAP, -EINVAL, {
	base_map(a, c);
	a->mwi.d.req.handle = c->other_bo;
})
H(map_no_access, DRM_IOCTL_BO_MAP, -EINVAL, {
	base_map(a, c);
	a->mwi.d.req.mask = 0;
})
H(map_exe_access, DRM_IOCTL_BO_MAP, -EINVAL, {
	base_map(a, c);
	a->mwi.d.req.mask = DRM_BO_FLAG_EXE;
})
H(map_flags_set, DRM_IOCTL_BO_MAP, -EINVAL, {
	base_map(a, c);
	a->mwi.d.req.flags = DRM_BO_FLAG_MEM_TT;
})
H(map_fence_hint, DRM_IOCTL_BO_MAP, -EINVAL, {
	base_map(a, c);
	a->mwi.d.req.hint = DRM_BO_HINT_DONT_FENCE;
})
H(unmap_not_mapped, DRM_IOCTL_BO_UNMAP, -EINVAL, { a->h.handle = c->bo; })
H(unmap_bad_handle, DRM_IOCTL_BO_UNMAP, -EINVAL, { a->h.handle = 12345; })
H(reference_non_shareable, DRM_IOCTL_BO_REFERENCE, -EINVAL, { a->ri.d.req.handle = c->other_bo; })
H(reference_bad_handle, DRM_IOCTL_BO_REFERENCE, -EINVAL, { a->ri.d.req.handle = 4242; })
H(reference_fence_as_bo, DRM_IOCTL_BO_REFERENCE, -EINVAL, { a->ri.d.req.handle = c->fence; })
H(unreference_other_clients, DRM_IOCTL_BO_UNREFERENCE, -EINVAL, { a->h.handle = c->other_bo; })
H(unreference_fence_as_bo, DRM_IOCTL_BO_UNREFERENCE, -EINVAL, { a->h.handle = c->fence; })
H(info_other_clients, DRM_IOCTL_BO_INFO, -EINVAL, { a->ri.d.req.handle = c->other_bo; })
H(wait_idle_unknown_hint, DRM_IOCTL_BO_WAIT_IDLE, -EINVAL, {
	a->mwi.d.req.handle = c->bo;
	a->mwi.d.req.hint = DRM_BO_HINT_DONT_FENCE;
})
H(wait_idle_mask, DRM_IOCTL_BO_WAIT_IDLE, -EINVAL, {
	a->mwi.d.req.handle = c->bo;
	a->mwi.d.req.mask = 1;
})
H(wait_idle_other_clients, DRM_IOCTL_BO_WAIT_IDLE, -EINVAL, { a->mwi.d.req.handle = c->other_bo; })
H(fence_create_bad_class, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.fence_class = 2;
})
H(fence_create_no_type, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.type = 0;
})
H(fence_create_unknown_type, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.type |= 0x4;
})
H(fence_create_unknown_flag, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.flags |= 0x8;
})
H(fence_create_driver_flag, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.flags |= 0x1000000;
})
H(fence_create_pad, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.pad64 = 1;
})
H(fence_create_expand_pad, DRM_IOCTL_FENCE_CREATE, -EINVAL, {
	base_fence_create(a);
	a->fence.expand_pad[1] = 1;
})
H(fence_signaled_bad_handle, DRM_IOCTL_FENCE_SIGNALED, -EINVAL, { a->fence.handle = 777; })
H(fence_signaled_bo_handle, DRM_IOCTL_FENCE_SIGNALED, -EINVAL, { a->fence.handle = c->bo; })
H(fence_signaled_other_clients, DRM_IOCTL_FENCE_SIGNALED, -EINVAL,
  { a->fence.handle = c->other_fence; })
H(fence_reference_non_shareable, DRM_IOCTL_FENCE_REFERENCE, -EINVAL,
  { a->fence.handle = c->other_fence; })
H(fence_unreference_other_clients, DRM_IOCTL_FENCE_UNREFERENCE, -EINVAL,
  { a->fence.handle = c->other_fence; })
H(fence_flush_type_not_in_fence, DRM_IOCTL_FENCE_FLUSH, -EINVAL, {
	a->fence.handle = c->fence;
	a->fence.type = 0x2;
})
H(fence_flush_unemitted, DRM_IOCTL_FENCE_FLUSH, -EINVAL, {
	a->fence.handle = c->unemitted;
	a->fence.type = DRM_FENCE_TYPE_EXE;
})
H(fence_wait_unemitted, DRM_IOCTL_FENCE_WAIT, -EINVAL, {
	a->fence.handle = c->unemitted;
	a->fence.type = DRM_FENCE_TYPE_EXE;
})
H(fence_wait_no_type, DRM_IOCTL_FENCE_WAIT, -EINVAL, { a->fence.handle = c->fence; })
H(fence_wait_emit_flag, DRM_IOCTL_FENCE_WAIT, -EINVAL, {
	a->fence.handle = c->fence;
	a->fence.type = DRM_FENCE_TYPE_EXE;
	a->fence.flags = DRM_FENCE_FLAG_EMIT;
})
H(fence_emit_bad_class, DRM_IOCTL_FENCE_EMIT, -EINVAL, {
	a->fence.handle = c->unemitted;
	a->fence.type = DRM_FENCE_TYPE_EXE;
	a->fence.fence_class = 9;
})
H(fence_emit_make_shareable, DRM_IOCTL_FENCE_EMIT, -EINVAL, {
	a->fence.handle = c->unemitted;
	a->fence.type = DRM_FENCE_TYPE_EXE;
	a->fence.flags = DRM_FENCE_FLAG_SHAREABLE;
})
H(fence_buffers_bad_class, DRM_IOCTL_FENCE_BUFFERS, -EINVAL, { a->fence.fence_class = 5; })
H(fence_buffers_emit_flag, DRM_IOCTL_FENCE_BUFFERS, -EINVAL,
  { a->fence.flags = DRM_FENCE_FLAG_EMIT; })
H(mm_init_bad_magic, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.magic = 1;
})
H(mm_init_bad_major, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.major = 2;
})
H(mm_init_newer_minor, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.minor = 1;
})
H(mm_init_local, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.mem_type = 0;
})
H(mm_init_unknown_type, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.mem_type = 8;
})
H(mm_init_zero_size, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.p_size = 0;
})
H(mm_init_overflowing_range, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.p_offset = UINT64_MAX - 4;
})
H(mm_init_twice, DRM_IOCTL_MM_INIT, -EINVAL, {
	base_init(a);
	a->init.mem_type = DRM_BO_MEM_TT;
})
H(mm_takedown_uninitialised, DRM_IOCTL_MM_TAKEDOWN, -EINVAL,
  { a->type.mem_type = DRM_BO_MEM_PRIV1; })
H(mm_takedown_flags, DRM_IOCTL_MM_TAKEDOWN, -EINVAL, {
	a->type.mem_type = DRM_BO_MEM_TT;
	a->type.lock_flags = 1;
})
H(mm_takedown_busy, DRM_IOCTL_MM_TAKEDOWN, -EBUSY, { a->type.mem_type = DRM_BO_MEM_TT; })
H(mm_lock_busy, DRM_IOCTL_MM_LOCK, -EBUSY, { a->type.mem_type = DRM_BO_MEM_TT; })
H(mm_lock_unknown_flag, DRM_IOCTL_MM_LOCK, -EINVAL, {
	a->type.mem_type = DRM_BO_MEM_TT;
	a->type.lock_flags = 4;
})
H(mm_lock_local, DRM_IOCTL_MM_LOCK, -EINVAL, { a->type.mem_type = DRM_BO_MEM_LOCAL; })
H(mm_unlock_not_locked, DRM_IOCTL_MM_UNLOCK, -EINVAL, { a->type.mem_type = DRM_BO_MEM_TT; })
H(mm_info_unknown_type, DRM_IOCTL_MM_INFO, -EINVAL, { a->info.mem_type = 8; })
H(mm_info_uninitialised, DRM_IOCTL_MM_INFO, -EINVAL, { a->info.mem_type = DRM_BO_MEM_PRIV4; })
H(mm_info_pad, DRM_IOCTL_MM_INFO, -EINVAL, {
	a->info.mem_type = DRM_BO_MEM_TT;
	a->info.pad64 = 1;
})

static const struct hostile hostile_table[] = {
    HE(create_unknown_flag, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_driver_flag, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_no_memory_type, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_memory_type_without_manager, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_zero_size, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_overflowing_size, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_size_beyond_type, DRM_IOCTL_BO_CREATE, -ENOMEM),
    HE(create_alignment_not_pow2, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_unknown_hint, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_misaligned_user_buffer, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(create_user_buffer_in_vram, DRM_IOCTL_BO_CREATE, -EINVAL),
    HE(setstatus_bad_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_zero_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_fence_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_other_clients_handle, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_unknown_flag, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_flags_outside_mask, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_no_memory_type, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_type_without_manager, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_bad_fence_class, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_unknown_hint, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_pad, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(setstatus_unshare, DRM_IOCTL_BO_SETSTATUS, -EINVAL),
    HE(map_bad_handle, DRM_IOCTL_BO_MAP, -EINVAL),
    HE(map_other_clients_handle, DRM_IOCTL_BO_MAP, -EINVAL),
    HE(map_no_access, DRM_IOCTL_BO_MAP, -EINVAL),
    HE(map_exe_access, DRM_IOCTL_BO_MAP, -EINVAL),
    HE(map_flags_set, DRM_IOCTL_BO_MAP, -EINVAL),
    HE(map_fence_hint, DRM_IOCTL_BO_MAP, -EINVAL),
    HE(unmap_not_mapped, DRM_IOCTL_BO_UNMAP, -EINVAL),
    HE(unmap_bad_handle, DRM_IOCTL_BO_UNMAP, -EINVAL),
    HE(reference_non_shareable, DRM_IOCTL_BO_REFERENCE, -EINVAL),
    HE(reference_bad_handle, DRM_IOCTL_BO_REFERENCE, -EINVAL),
    HE(reference_fence_as_bo, DRM_IOCTL_BO_REFERENCE, -EINVAL),
    HE(unreference_other_clients, DRM_IOCTL_BO_UNREFERENCE, -EINVAL),
    HE(unreference_fence_as_bo, DRM_IOCTL_BO_UNREFERENCE, -EINVAL),
    HE(info_other_clients, DRM_IOCTL_BO_INFO, -EINVAL),
    HE(wait_idle_unknown_hint, DRM_IOCTL_BO_WAIT_IDLE, -EINVAL),
    HE(wait_idle_mask, DRM_IOCTL_BO_WAIT_IDLE, -EINVAL),
    HE(wait_idle_other_clients, DRM_IOCTL_BO_WAIT_IDLE, -EINVAL),
    HE(fence_create_bad_class, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_create_no_type, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_create_unknown_type, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_create_unknown_flag, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_create_driver_flag, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_create_pad, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_create_expand_pad, DRM_IOCTL_FENCE_CREATE, -EINVAL),
    HE(fence_signaled_bad_handle, DRM_IOCTL_FENCE_SIGNALED, -EINVAL),
    HE(fence_signaled_bo_handle, DRM_IOCTL_FENCE_SIGNALED, -EINVAL),
    HE(fence_signaled_other_clients, DRM_IOCTL_FENCE_SIGNALED, -EINVAL),
    HE(fence_reference_non_shareable, DRM_IOCTL_FENCE_REFERENCE, -EINVAL),
    HE(fence_unreference_other_clients, DRM_IOCTL_FENCE_UNREFERENCE, -EINVAL),
    HE(fence_flush_type_not_in_fence, DRM_IOCTL_FENCE_FLUSH, -EINVAL),
    HE(fence_flush_unemitted, DRM_IOCTL_FENCE_FLUSH, -EINVAL),
    HE(fence_wait_unemitted, DRM_IOCTL_FENCE_WAIT, -EINVAL),
    HE(fence_wait_no_type, DRM_IOCTL_FENCE_WAIT, -EINVAL),
    HE(fence_wait_emit_flag, DRM_IOCTL_FENCE_WAIT, -EINVAL),
    HE(fence_emit_bad_class, DRM_IOCTL_FENCE_EMIT, -EINVAL),
    HE(fence_emit_make_shareable, DRM_IOCTL_FENCE_EMIT, -EINVAL),
    HE(fence_buffers_bad_class, DRM_IOCTL_FENCE_BUFFERS, -EINVAL),
    HE(fence_buffers_emit_flag, DRM_IOCTL_FENCE_BUFFERS, -EINVAL),
    HE(mm_init_bad_magic, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_bad_major, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_newer_minor, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_local, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_unknown_type, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_zero_size, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_overflowing_range, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_init_twice, DRM_IOCTL_MM_INIT, -EINVAL),
    HE(mm_takedown_uninitialised, DRM_IOCTL_MM_TAKEDOWN, -EINVAL),
    HE(mm_takedown_flags, DRM_IOCTL_MM_TAKEDOWN, -EINVAL),
    HE(mm_takedown_busy, DRM_IOCTL_MM_TAKEDOWN, -EBUSY),
    HE(mm_lock_busy, DRM_IOCTL_MM_LOCK, -EBUSY),
    HE(mm_lock_unknown_flag, DRM_IOCTL_MM_LOCK, -EINVAL),
    HE(mm_lock_local, DRM_IOCTL_MM_LOCK, -EINVAL),
    HE(mm_unlock_not_locked, DRM_IOCTL_MM_UNLOCK, -EINVAL),
    HE(mm_info_unknown_type, DRM_IOCTL_MM_INFO, -EINVAL),
    HE(mm_info_uninitialised, DRM_IOCTL_MM_INFO, -EINVAL),
    HE(mm_info_pad, DRM_IOCTL_MM_INFO, -EINVAL),
};

/* Everything a failed request must leave as it was. */
struct hstate {
	uint32_t objects;
	uint32_t handles;
	unsigned long bos;
	unsigned long pending;
	struct drm_bo_info_rep rep;
};

static void hstate_take(struct ttm_drm_device *dev, int fd, uint32_t bo, struct hstate *s)
{
	struct ttm_drm_file *file = ttm_drm_file_get_fd(fd);

	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&dev->lock);
	s->objects = dev->objects.count;
	s->handles = file->refs.count;
	pthread_mutex_unlock(&dev->lock);
	ttm_drm_file_put(file);
	s->bos = (unsigned long)atomic_load(&dev->bdev.stats.bo_count);
	s->pending = mock_uapi_pending(dev);
	uapi_bo_info(fd, bo, &s->rep);
}

KTEST(ttm_drm_ioctl_hostile_arguments_change_nothing)
{
	struct ttm_drm_device *dev;
	struct drm_bo_info_rep rep;
	struct drm_fence_arg f;
	struct hstate before, after;
	struct hctx c;
	unsigned char *p;
	uint64_t sum;
	int fd, fd2, err;

	dev = start_two_clients("uapi-hostile", &fd, &fd2);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, 256), 0);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_VRAM, 0, 128), 0);

	/* The victim: a VRAM buffer with a known pattern, then unmapped. */
	ASSERT_EQ(uapi_create_bo(fd, RW | DRM_BO_FLAG_MEM_VRAM, 16384, &rep), 0);
	c.bo = rep.handle;
	p = uapi_bo_map(fd, c.bo, NULL, &err);
	ASSERT_NOT_NULL(p);
	for (int i = 0; i < 16384; i++)
		p[i] = (unsigned char)(ktest_rand() >> 13);
	sum = checksum(p, 16384);
	ASSERT_EQ(uapi_bo_unmap(fd, c.bo), 0);

	ASSERT_EQ(uapi_create_bo(fd2, DRM_BO_FLAG_MEM_LOCAL, 4096, &rep), 0);
	c.other_bo = rep.handle;
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_MEM_LOCAL, 4096, &rep), 0);
	c.shared_bo = rep.handle;
	/* Pinned in TT: takedown and lock of TT must fail. */
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_NO_EVICT | DRM_BO_FLAG_MEM_TT, 4096, &rep), 0);
	memset(&f, 0, sizeof(f));
	f.type = DRM_FENCE_TYPE_EXE;
	f.flags = DRM_FENCE_FLAG_EMIT;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_CREATE, &f), 0);
	c.fence = f.handle;
	memset(&f, 0, sizeof(f));
	f.type = DRM_FENCE_TYPE_EXE;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_CREATE, &f), 0);
	c.unemitted = f.handle;
	memset(&f, 0, sizeof(f));
	f.type = DRM_FENCE_TYPE_EXE;
	f.flags = DRM_FENCE_FLAG_EMIT;
	ASSERT_EQ(fence_op(fd2, DRM_IOCTL_FENCE_CREATE, &f), 0);
	c.other_fence = f.handle;

	for (size_t i = 0; i < sizeof(hostile_table) / sizeof(hostile_table[0]); i++) {
		const struct hostile *h = &hostile_table[i];
		union harg a;
		int ret;

		memset(&a, 0, sizeof(a));
		h->build(&a, &c);
		hstate_take(dev, fd, c.bo, &before);
		ret = ttm_drm_ioctl(fd, h->request, &a);
		hstate_take(dev, fd, c.bo, &after);
		if (ret != h->expect || memcmp(&before, &after, sizeof(before)))
			printf("# hostile %s: %d (expected %d)\n", h->what, ret, h->expect);
		EXPECT_EQ(ret, h->expect);
		EXPECT_EQ(after.objects, before.objects);
		EXPECT_EQ(after.handles, before.handles);
		EXPECT_EQ(after.bos, before.bos);
		EXPECT_EQ(after.pending, before.pending);
		EXPECT_MEMEQ(&after.rep, &before.rep, sizeof(before.rep));
	}

	/* The bases themselves are good: the errors came from the one bad field. */
	{
		union harg a;

		memset(&a, 0, sizeof(a));
		base_map(&a, &c);
		EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_MAP, &a), 0);
		EXPECT_EQ(uapi_bo_unmap(fd, c.bo), 0);
		memset(&a, 0, sizeof(a));
		base_init(&a);
		EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_MM_INIT, &a), 0);
		memset(&a, 0, sizeof(a));
		base_create(&a);
		EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_CREATE, &a), 0);
		EXPECT_EQ(uapi_bo_unref(fd, a.create.d.rep.handle), 0);
		memset(&a, 0, sizeof(a));
		base_setstatus(&a, &c);
		EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_SETSTATUS, &a), 0);
		EXPECT_UEQ(a.mwi.d.rep.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	}
	/* Back in VRAM, the content is exactly what was written. */
	ASSERT_EQ(uapi_bo_setstatus(fd, c.bo, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM, 0, NULL), 0);
	p = uapi_bo_map(fd, c.bo, NULL, &err);
	ASSERT_NOT_NULL(p);
	EXPECT_UEQ(checksum(p, 16384), sum);
	EXPECT_EQ(uapi_bo_unmap(fd, c.bo), 0);

	close_both_and_stop(dev, fd, fd2);
}

/* ---- handles and lifetime --------------------------------------------- */

KTEST(ttm_drm_bo_reference_shareable_only_and_last_reference_frees)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-share");
	struct drm_bo_info_rep priv, shared, rep;
	int a, b;

	ASSERT_NOT_NULL(dev);
	a = ttm_drm_open(dev);
	b = ttm_drm_open(dev);
	ASSERT_EQ(uapi_create_bo(a, DRM_BO_FLAG_MEM_LOCAL, 4096, &priv), 0);
	ASSERT_EQ(uapi_create_bo(a, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_SHAREABLE, 8192, &shared),
		  0);
	EXPECT_NE(priv.handle, shared.handle);
	EXPECT_EQ(mock_uapi_bo_count(dev), 2);

	/* The private one does not exist for b, whatever b tries. */
	EXPECT_EQ(uapi_bo_info(b, priv.handle, NULL), -EINVAL);
	EXPECT_EQ(uapi_bo_ref(b, priv.handle, NULL), -EINVAL);
	EXPECT_EQ(uapi_bo_unref(b, priv.handle), -EINVAL);
	/* The shared one can be referenced, then used, by b. */
	EXPECT_EQ(uapi_bo_info(b, shared.handle, NULL), -EINVAL);
	ASSERT_EQ(uapi_bo_ref(b, shared.handle, NULL), 0);
	ASSERT_EQ(uapi_bo_info(b, shared.handle, &rep), 0);
	EXPECT_EQ(rep.size, 8192);

	/* Two references by a to the private one: the second unreference frees it. */
	ASSERT_EQ(uapi_bo_ref(a, priv.handle, NULL), 0);
	EXPECT_EQ(uapi_bo_unref(a, priv.handle), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 2);
	EXPECT_EQ(uapi_bo_unref(a, priv.handle), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 1);
	EXPECT_EQ(uapi_bo_unref(a, priv.handle), -EINVAL);
	EXPECT_EQ(uapi_bo_info(a, priv.handle, NULL), -EINVAL);

	/* The creator lets the shared one go; b keeps it alive until it closes. */
	EXPECT_EQ(uapi_bo_unref(a, shared.handle), 0);
	EXPECT_EQ(uapi_bo_info(a, shared.handle, NULL), -EINVAL);
	EXPECT_EQ(mock_uapi_bo_count(dev), 1);
	EXPECT_EQ(uapi_bo_info(b, shared.handle, NULL), 0);
	EXPECT_EQ(ttm_drm_close(b), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);
	EXPECT_EQ(ttm_drm_close(a), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(ttm_drm_close_releases_maps_and_references)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-close");
	struct drm_bo_info_rep rep;
	int fd, err;

	ASSERT_NOT_NULL(dev);
	fd = ttm_drm_open(dev);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_VRAM, 0, 64), 0);
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_MEM_VRAM | DRM_BO_FLAG_NO_EVICT, 4096, &rep), 0);
	{
		void *p = uapi_bo_map(fd, rep.handle, NULL, &err);

		EXPECT_TRUE(p != NULL);
	}
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_MEM_LOCAL, 4096, NULL), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 2);
	/* Unreferenced while mapped: the map keeps it until close. */
	EXPECT_EQ(uapi_bo_unref(fd, rep.handle), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 2);
	EXPECT_EQ(mock_uapi_stop(dev), -EBUSY);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

/* ---- mapping ------------------------------------------------------------ */

KTEST(ttm_drm_bo_map_follows_moves_in_every_memory_type)
{
	struct ttm_drm_device *dev;
	struct drm_bo_info_rep vram, local;
	unsigned char *p, *q;
	int fd, fd2, err;

	dev = start_two_clients("uapi-map", &fd, &fd2);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, 64), 0);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_VRAM, 0, 64), 0);
	ASSERT_EQ(
	    uapi_create_bo(fd, RW | DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_MEM_VRAM, 8192, &vram), 0);
	ASSERT_EQ(uapi_create_bo(fd, RW | DRM_BO_FLAG_MEM_LOCAL, 8192, &local), 0);

	p = uapi_bo_map(fd, vram.handle, NULL, &err);
	ASSERT_NOT_NULL(p);
	memset(p, 0x5a, 8192);
	/*
	 * A mapped buffer moves: its view is invalidated first, and the same
	 * address shows the same bytes at the new home; a write after the move
	 * lands there, and a move back keeps it.
	 */
	EXPECT_EQ(uapi_bo_setstatus(fd, vram.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM,
				    DRM_BO_HINT_DONT_FENCE, NULL),
		  0);
	EXPECT_EQ(p[0], 0x5a);
	EXPECT_EQ(p[8191], 0x5a);
	p[4096] = 0xa5;
	EXPECT_EQ(uapi_bo_setstatus(fd, vram.handle, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM,
				    DRM_BO_HINT_DONT_FENCE, NULL),
		  0);
	EXPECT_EQ(p[4096], 0xa5);
	p[4096] = 0x5a;
	/* The other client sees the same bytes. */
	ASSERT_EQ(uapi_bo_ref(fd2, vram.handle, NULL), 0);
	q = uapi_bo_map(fd2, vram.handle, NULL, &err);
	ASSERT_NOT_NULL(q);
	EXPECT_EQ(q[8191], 0x5a);
	EXPECT_EQ(uapi_bo_unmap(fd2, vram.handle), 0);
	EXPECT_EQ(uapi_bo_unmap(fd2, vram.handle), -EINVAL);
	/* Not mapped by this client: mmap refuses. */
	EXPECT_NULL(ttm_drm_mmap(fd2, vram.arg_handle, 8192, &err));
	EXPECT_EQ(err, -EINVAL);
	EXPECT_NULL(ttm_drm_mmap(fd, vram.arg_handle, 8193, &err));
	EXPECT_EQ(err, -EINVAL);
	EXPECT_EQ(uapi_bo_unmap(fd, vram.handle), 0);
	EXPECT_EQ(uapi_bo_setstatus(fd, vram.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, NULL),
		  0);

	/* System pages map too (ttm_bo_vm), and the content follows a move. */
	p = uapi_bo_map(fd, local.handle, NULL, &err);
	ASSERT_NOT_NULL(p);
	for (int i = 0; i < 8192; i++)
		p[i] = (unsigned char)(i * 7);
	EXPECT_EQ(uapi_bo_unmap(fd, local.handle), 0);
	ASSERT_EQ(uapi_bo_setstatus(fd, local.handle, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_MEM_TT,
				    DRM_BO_MASK_MEM, DRM_BO_HINT_DONT_FENCE, NULL),
		  0);
	ASSERT_EQ(uapi_bo_setstatus(fd, local.handle, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM,
				    DRM_BO_HINT_DONT_FENCE, NULL),
		  0);
	q = uapi_bo_map(fd, local.handle, NULL, &err);
	ASSERT_TRUE(q == p);
	for (int i = 0; i < 8192; i += 511)
		EXPECT_EQ(q[i], (unsigned char)(i * 7));
	EXPECT_EQ(uapi_bo_unmap(fd, local.handle), 0);
	close_both_and_stop(dev, fd, fd2);
}

/* ---- fences ----------------------------------------------------------- */

struct signaller {
	struct ttm_drm_device *dev;
	unsigned delay_ms;
};

static void *signal_later(void *data)
{
	struct signaller *s = data;
	struct timespec ts = {0, (long)s->delay_ms * 1000000};

	nanosleep(&ts, NULL);
	mock_uapi_signal_all(s->dev);
	return NULL;
}

KTEST(ttm_drm_fence_create_emit_flush_wait)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-fence");
	struct signaller s = {dev, 20};
	struct drm_fence_arg f, g;
	pthread_t thr;
	int fd;

	ASSERT_NOT_NULL(dev);
	fd = ttm_drm_open(dev);
	memset(&f, 0, sizeof(f));
	f.type = DRM_FENCE_TYPE_EXE | 0x2;
	f.fence_class = 1;
	f.flags = DRM_FENCE_FLAG_EMIT;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_CREATE, &f), 0);
	EXPECT_NE(f.handle, 0);
	EXPECT_EQ(f.fence_class, 1);
	EXPECT_EQ(f.signaled, 0);
	EXPECT_EQ(f.sequence, 1);
	/* FLUSH makes the mock signal. */
	f.type = DRM_FENCE_TYPE_EXE;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_FLUSH, &f), 0);
	EXPECT_EQ(f.signaled, DRM_FENCE_TYPE_EXE | 0x2);
	EXPECT_EQ(f.error, 0);

	/* Unemitted, then emitted and signalled by another thread during WAIT. */
	memset(&g, 0, sizeof(g));
	g.type = DRM_FENCE_TYPE_EXE;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_CREATE, &g), 0);
	g.type = DRM_FENCE_TYPE_EXE;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_EMIT, &g), 0);
	EXPECT_EQ(g.sequence, 1); /* class 0's first */
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_SIGNALED, &g), 0);
	EXPECT_EQ(g.signaled, 0);
	ASSERT_EQ(pthread_create(&thr, NULL, signal_later, &s), 0);
	g.type = DRM_FENCE_TYPE_EXE;
	g.flags = DRM_FENCE_FLAG_WAIT_LAZY;
	EXPECT_EQ(fence_op(fd, DRM_IOCTL_FENCE_WAIT, &g), 0);
	pthread_join(thr, NULL);
	EXPECT_EQ(g.signaled, DRM_FENCE_TYPE_EXE);

	g.flags = 0;
	EXPECT_EQ(fence_op(fd, DRM_IOCTL_FENCE_UNREFERENCE, &g), 0);
	EXPECT_EQ(fence_op(fd, DRM_IOCTL_FENCE_SIGNALED, &g), -EINVAL);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(ttm_drm_fence_buffers_fences_the_unfenced)
{
	struct ttm_drm_device *dev;
	struct drm_bo_info_rep rw, ro, nf, rep;
	struct drm_bo_map_wait_idle_arg w;
	struct drm_fence_arg f;
	int fd, fd2;

	dev = start_two_clients("uapi-fbufs", &fd, &fd2);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, 64), 0);
	ASSERT_EQ(uapi_create_bo(fd, RW | DRM_BO_FLAG_MEM_LOCAL, 4096, &rw), 0);
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_EXE | DRM_BO_FLAG_MEM_LOCAL, 4096, &ro), 0);
	ASSERT_EQ(uapi_create_bo(fd, RW | DRM_BO_FLAG_MEM_LOCAL, 4096, &nf), 0);
	/* Creation does not put buffers on the list; validation does. */
	ASSERT_EQ(uapi_bo_setstatus(fd, rw.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, NULL),
		  0);
	ASSERT_EQ(uapi_bo_setstatus(fd, ro.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, NULL),
		  0);
	ASSERT_EQ(uapi_bo_setstatus(fd, nf.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM,
				    DRM_BO_HINT_DONT_FENCE, NULL),
		  0);
	/* Another client's fence covers only its own list (empty): an EXE fence. */
	memset(&f, 0, sizeof(f));
	ASSERT_EQ(fence_op(fd2, DRM_IOCTL_FENCE_BUFFERS, &f), 0);
	EXPECT_EQ(f.type, DRM_FENCE_TYPE_EXE);
	ASSERT_EQ(uapi_bo_info(fd, rw.handle, &rep), 0);
	EXPECT_EQ(rep.rep_flags & DRM_BO_REP_BUSY, 0);

	memset(&f, 0, sizeof(f));
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_BUFFERS, &f), 0);
	EXPECT_EQ(f.type, DRM_FENCE_TYPE_EXE | 0x2); /* RW from the READ|WRITE buffer */
	EXPECT_NE(f.handle, 0);
	ASSERT_EQ(uapi_bo_info(fd, rw.handle, &rep), 0);
	EXPECT_EQ(rep.rep_flags & DRM_BO_REP_BUSY, DRM_BO_REP_BUSY);
	EXPECT_EQ(rep.fence_flags, DRM_FENCE_TYPE_EXE | 0x2);
	ASSERT_EQ(uapi_bo_info(fd, ro.handle, &rep), 0);
	EXPECT_EQ(rep.rep_flags & DRM_BO_REP_BUSY, DRM_BO_REP_BUSY);
	ASSERT_EQ(uapi_bo_info(fd, nf.handle, &rep), 0);
	EXPECT_EQ(rep.rep_flags & DRM_BO_REP_BUSY, 0);

	/* Busy: DONT_BLOCK says so, and a move with DONT_BLOCK too. */
	EXPECT_EQ(wait_idle_nonblock(fd, rw.handle, &w), -EBUSY);
	EXPECT_EQ(uapi_bo_setstatus(fd, rw.handle, DRM_BO_FLAG_MEM_LOCAL, DRM_BO_MASK_MEM,
				    DRM_BO_HINT_DONT_BLOCK, NULL),
		  -EBUSY);
	ASSERT_EQ(uapi_bo_info(fd, rw.handle, &rep), 0);
	EXPECT_UEQ(rep.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	/* A second FENCE_BUFFERS finds the list empty. */
	{
		struct drm_fence_arg g;

		memset(&g, 0, sizeof(g));
		g.flags = DRM_FENCE_FLAG_NO_USER;
		ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_BUFFERS, &g), 0);
		EXPECT_EQ(g.handle, 0);
		EXPECT_EQ(g.type, DRM_FENCE_TYPE_EXE);
	}
	f.type = DRM_FENCE_TYPE_EXE;
	ASSERT_EQ(fence_op(fd, DRM_IOCTL_FENCE_WAIT, &f), 0);
	EXPECT_EQ(wait_idle_nonblock(fd, rw.handle, &w), 0);
	EXPECT_EQ(w.d.rep.rep_flags & DRM_BO_REP_BUSY, 0);
	close_both_and_stop(dev, fd, fd2);
}

/* ---- memory types and info -------------------------------------------- */

KTEST(ttm_drm_mm_takedown_evicts_and_info_reports)
{
	struct ttm_drm_device *dev;
	struct drm_bo_info_rep rep;
	struct drm_mm_info_arg info;
	struct drm_mm_type_arg type;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd, fd2;

	dev = start_two_clients("uapi-mm", &fd, &fd2);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 100, 32), 0);
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_MEM_LOCAL, 4096, &rep), 0);
	EXPECT_UEQ(rep.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	EXPECT_GE(rep.offset, 100ull * 4096);
	memset(&info, 0, sizeof(info));
	info.mem_type = DRM_BO_MEM_TT;
	ASSERT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_MM_INFO, &info), 0);
	EXPECT_EQ(info.p_size, 32);

	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(ttm_drm_info_print(fd, f), 0);
	fclose(f);
	EXPECT_TRUE(strstr(text, "clients: 2") != NULL);
	EXPECT_TRUE(strstr(text, "1 buffer(s)") != NULL);
	EXPECT_TRUE(strstr(text, "pages 100+32") != NULL);
	EXPECT_TRUE(strstr(text, "(this): 1 handle(s)") != NULL);
	free(text);
	EXPECT_EQ(ttm_drm_info_print(-1, stdout), -EBADF);

	/* Takedown moves the buffer out, then the type is gone. */
	memset(&type, 0, sizeof(type));
	type.mem_type = DRM_BO_MEM_TT;
	ASSERT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_MM_TAKEDOWN, &type), 0);
	ASSERT_EQ(uapi_bo_info(fd, rep.handle, &rep), 0);
	EXPECT_UEQ(rep.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_LOCAL);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_MM_TAKEDOWN, &type), -EINVAL);
	EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_MM_INFO, &info), -EINVAL);
	EXPECT_EQ(uapi_bo_setstatus(fd, rep.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, NULL),
		  -EINVAL);
	close_both_and_stop(dev, fd, fd2);
}

KTEST(ttm_drm_device_init_checks_and_names)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-names");
	int fd;

	ASSERT_NOT_NULL(dev);
	/* A second device under a taken name is refused (the mock frees it). */
	EXPECT_NULL(mock_uapi_start("uapi-names"));
	EXPECT_NULL(mock_uapi_start(""));
	EXPECT_NULL(mock_uapi_start("a-name-that-is-much-too-long-for-a-device"));
	fd = ttm_drm_open_by_name("uapi-names");
	EXPECT_GE(fd, 0);
	EXPECT_EQ(ttm_drm_open_by_name("uapi-none"), -ENODEV);
	EXPECT_EQ(mock_uapi_stop(dev), -EBUSY);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(ttm_drm_bo_create_user_buffer)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-user");
	struct drm_bo_create_arg arg;
	struct drm_bo_info_rep rep;
	unsigned char *mem = aligned_alloc(4096, 3 * 4096);
	int fd;

	ASSERT_NOT_NULL(dev);
	ASSERT_NOT_NULL(mem);
	memset(mem, 0xa5, 3 * 4096);
	fd = ttm_drm_open(dev);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, 16), 0);
	memset(&arg, 0, sizeof(arg));
	arg.d.req.flags = RW | DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_MEM_TT;
	arg.d.req.size = 3 * 4096;
	arg.d.req.buffer_start = (uint64_t)(uintptr_t)mem;
	ASSERT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_BO_CREATE, &arg), 0);
	EXPECT_UEQ(arg.d.rep.buffer_start, (uint64_t)(uintptr_t)mem);
	EXPECT_EQ(arg.d.rep.size, 3 * 4096);
	/* A user buffer never goes to VRAM. */
	EXPECT_EQ(
	    uapi_bo_setstatus(fd, arg.d.rep.handle, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM, 0, NULL),
	    -EINVAL);
	ASSERT_EQ(uapi_bo_info(fd, arg.d.rep.handle, &rep), 0);
	EXPECT_UEQ(rep.buffer_start, (uint64_t)(uintptr_t)mem);
	EXPECT_EQ(uapi_bo_unref(fd, arg.d.rep.handle), 0);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_bo_count(dev), 0);
	/* The client's memory is its own again, untouched. */
	EXPECT_EQ(mem[0], 0xa5);
	EXPECT_EQ(mem[3 * 4096 - 1], 0xa5);
	free(mem);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

/* ---- fault sweep -------------------------------------------------------- */

static bool is_errno(int ret)
{
	return ret < 0 && ret > -4096;
}

/*
 * One client session touching every allocating path of the layer; each step
 * may fail (negative errno) and the session carries on with what it has.
 * Returns the number of steps that failed.
 */
static unsigned sweep_session(struct ttm_drm_device *dev, bool *bad)
{
	struct drm_bo_info_rep rep = {0}, rep2 = {0};
	struct drm_fence_arg f;
	unsigned failed = 0;
	int fd, fd2, ret;

#define STEP(expr)                                                                                 \
	do {                                                                                       \
		ret = (expr);                                                                      \
		if (ret) {                                                                         \
			failed++;                                                                  \
			if (!is_errno(ret))                                                        \
				*bad = true;                                                       \
		}                                                                                  \
	} while (0)

	fd = ttm_drm_open(dev);
	fd2 = ttm_drm_open(dev);
	if (fd < 0 || fd2 < 0) {
		/* An open may fail only for memory (uapi_alloc), leaving nothing open. */
		if ((fd < 0 && fd != -ENOMEM) || (fd2 < 0 && fd2 != -ENOMEM))
			*bad = true;
		if (fd >= 0 && ttm_drm_close(fd))
			*bad = true;
		if (fd2 >= 0 && ttm_drm_close(fd2))
			*bad = true;
		return failed + 1;
	}
	STEP(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, 64));
	STEP(uapi_create_bo(fd, RW | DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_MEM_LOCAL, 8192, &rep));
	STEP(uapi_create_bo(fd, DRM_BO_FLAG_EXE | DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_MEM_LOCAL, 4096,
			    &rep2));
	if (rep.handle) {
		STEP(uapi_bo_setstatus(fd, rep.handle, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0,
				       NULL));
		STEP(uapi_bo_ref(fd2, rep.handle, NULL));
	}
	if (rep2.handle)
		STEP(uapi_bo_setstatus(fd, rep2.handle, DRM_BO_FLAG_NO_EVICT, DRM_BO_FLAG_NO_EVICT,
				       0, NULL));
	memset(&f, 0, sizeof(f));
	f.type = DRM_FENCE_TYPE_EXE;
	f.flags = DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_SHAREABLE;
	STEP(fence_op(fd, DRM_IOCTL_FENCE_CREATE, &f));
	memset(&f, 0, sizeof(f));
	f.flags = DRM_FENCE_FLAG_SHAREABLE;
	STEP(fence_op(fd, DRM_IOCTL_FENCE_BUFFERS, &f));
	if (!ret) {
		struct drm_fence_arg g = {.handle = f.handle};

		STEP(fence_op(fd2, DRM_IOCTL_FENCE_REFERENCE, &g));
	}
	/* The mock's GPU is done (its fences signal only when told). */
	mock_uapi_signal_all(dev);
	{
		struct drm_mm_type_arg lock = {.mem_type = DRM_BO_MEM_TT,
					       .lock_flags = DRM_BO_LOCK_IGNORE_NO_EVICT};

		STEP(ttm_drm_ioctl(fd, DRM_IOCTL_MM_LOCK, &lock));
		if (!ret) {
			lock.lock_flags = 0;
			STEP(ttm_drm_ioctl(fd, DRM_IOCTL_MM_UNLOCK, &lock));
		}
	}
	if (ttm_drm_close(fd2) || ttm_drm_close(fd))
		*bad = true;
#undef STEP
	return failed;
}

KTEST(ttm_drm_fault_sweep_cleans_up)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-faults");
	long fences = dma_fence_live_count();
	unsigned long nth;

	ASSERT_NOT_NULL(dev);
	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	for (nth = 1; nth < 2000; nth++) {
		bool bad = false;
		unsigned failed;

		fault_thread_fail_nth(NULL, nth);
		failed = sweep_session(dev, &bad);
		/* Past the last hit: nothing fired, the sweep is complete. */
		if (fault_thread_nth_pending()) {
			fault_thread_fail_nth(NULL, 0);
			EXPECT_EQ(failed, 0);
			break;
		}
		EXPECT_FALSE(bad);
		mock_uapi_signal_all(dev);
		/* Whatever failed, both clients closed and left nothing behind. */
		EXPECT_EQ(mock_uapi_bo_count(dev), 0);
		EXPECT_EQ(dev->objects.count, 0);
		if (dev->mem[DRM_BO_MEM_TT].rman) {
			struct drm_mm_type_arg t = {.mem_type = DRM_BO_MEM_TT};
			int fd = ttm_drm_open(dev);

			EXPECT_EQ(ttm_drm_ioctl(fd, DRM_IOCTL_MM_TAKEDOWN, &t), 0);
			ttm_drm_close(fd);
		}
	}
	printf("# %lu injection points swept\n", nth - 1);
	EXPECT_GT(nth, 10);
	EXPECT_LT(nth, 2000);
	EXPECT_EQ(dma_fence_live_count(), fences);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

/* ---- concurrency ------------------------------------------------------ */

#define SHARE_THREADS 4
#define SHARE_SLOTS 16

struct share_ctx {
	struct ttm_drm_device *dev;
	_Atomic uint32_t slots[SHARE_SLOTS]; /* published shareable handles */
	_Atomic int stop;
	_Atomic unsigned long refs_ok;
	_Atomic int errors;
};

struct share_thread {
	struct share_ctx *ctx;
	unsigned id;
	uint64_t seed;
};

static uint64_t share_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *share_worker(void *data)
{
	struct share_thread *t = data;
	struct share_ctx *ctx = t->ctx;
	unsigned iters = 200 * ktest_scale();
	int fd = ttm_drm_open(ctx->dev);

	if (fd < 0) {
		atomic_fetch_add(&ctx->errors, 1);
		return NULL;
	}
	for (unsigned i = 0; i < iters; i++) {
		unsigned op = (unsigned)(share_rand(&t->seed) % 4);
		unsigned slot = (unsigned)(share_rand(&t->seed) % SHARE_SLOTS);
		struct drm_bo_info_rep rep;
		struct drm_fence_arg f;
		uint32_t h;
		int ret;

		switch (op) {
		case 0: /* publish a new buffer in one of our slots, drop the old one */
			ret = uapi_create_bo(fd,
					     RW | DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_MEM_LOCAL |
						 DRM_BO_FLAG_MEM_TT,
					     4096, &rep);
			if (ret) {
				atomic_fetch_add(&ctx->errors, 1);
				break;
			}
			slot = t->id * (SHARE_SLOTS / SHARE_THREADS) +
			       slot % (SHARE_SLOTS / SHARE_THREADS);
			h = atomic_exchange(&ctx->slots[slot], rep.handle);
			/* The creator's reference goes: only referencers keep the old one. */
			if (h && uapi_bo_unref(fd, h))
				atomic_fetch_add(&ctx->errors, 1);
			break;
		case 1: /* reference whatever is published, use it, drop it */
			h = atomic_load(&ctx->slots[slot]);
			if (!h || uapi_bo_ref(fd, h, NULL))
				break; /* gone meanwhile: -EINVAL is the right answer */
			atomic_fetch_add(&ctx->refs_ok, 1);
			ret =
			    uapi_bo_setstatus(fd, h, DRM_BO_FLAG_MEM_TT, DRM_BO_MASK_MEM, 0, NULL);
			if (ret && ret != -EBUSY && ret != -ENOMEM)
				atomic_fetch_add(&ctx->errors, 1);
			if (uapi_bo_unref(fd, h))
				atomic_fetch_add(&ctx->errors, 1);
			break;
		case 2: /* fence what this client validated */
			memset(&f, 0, sizeof(f));
			f.flags = DRM_FENCE_FLAG_NO_USER;
			if (fence_op(fd, DRM_IOCTL_FENCE_BUFFERS, &f))
				atomic_fetch_add(&ctx->errors, 1);
			break;
		default:
			mock_uapi_signal_all(ctx->dev);
			break;
		}
	}
	mock_uapi_signal_all(ctx->dev);
	if (ttm_drm_close(fd))
		atomic_fetch_add(&ctx->errors, 1);
	return NULL;
}

KTEST(ttm_drm_clients_share_concurrently)
{
	struct share_ctx ctx = {0};
	struct share_thread t[SHARE_THREADS];
	pthread_t thr[SHARE_THREADS];
	int fd;

	ctx.dev = mock_uapi_start("uapi-race");
	ASSERT_NOT_NULL(ctx.dev);
	fd = ttm_drm_open(ctx.dev);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, 32), 0);
	for (unsigned i = 0; i < SHARE_THREADS; i++) {
		t[i] = (struct share_thread){&ctx, i, ktest_rand() | 1};
		ASSERT_EQ(pthread_create(&thr[i], NULL, share_worker, &t[i]), 0);
	}
	for (unsigned i = 0; i < SHARE_THREADS; i++)
		pthread_join(thr[i], NULL);
	EXPECT_EQ(atomic_load(&ctx.errors), 0);
	/* Handles really crossed clients (a creator drops its own at once). */
	EXPECT_GT(atomic_load(&ctx.refs_ok), 0);
	/* Every client closed: every buffer went with its last reference. */
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_bo_count(ctx.dev), 0);
	EXPECT_EQ(ctx.dev->objects.count, 0);
	EXPECT_EQ(mock_uapi_stop(ctx.dev), 0);
}
