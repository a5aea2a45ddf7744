// SPDX-License-Identifier: MIT
/*
 * i915 through the uAPI: a 2008-style client (i915_uapi_client.c, compat
 * headers only) runs a relocated store-dword batch and reads the GPU's
 * write back; both execbuffer forms refuse hostile arguments with a
 * negative errno, leaving buffers, arguments and reservations untouched;
 * execbuffer2 returns offsets, skips relocations whose presumed offset
 * holds, and gives an out fence; an interrupted superioctl returns
 * -EAGAIN with nothing done and runs when called again; buffers created in
 * lmem above the CPU-visible window or in stolen memory take the GPU's
 * writes there and are read through BO_MAP after one move; those memory
 * types stay the driver's (no MM_INIT/TAKEDOWN/LOCK of them).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include <fault_inject.h>

#include <i915/i915_gem.h>
#include <i915/i915_uapi.h>
#include <i915_drm.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

#include "i915_test_common.h"
#include "i915_uapi_client.h"
#include "ttm_uapi_helpers.h"

static struct i915_device *uapi_device(void)
{
	struct i915_device *i915 = i915_test_device(false);

	if (i915 && i915_gem_init(i915)) {
		i915_device_destroy(i915);
		return NULL;
	}
	return i915;
}

static int uapi_device_destroy(struct i915_device *i915)
{
	int ret = i915_gem_fini(i915);

	return ret ? ret : i915_device_destroy(i915);
}

/*
 * The 2008 client (compat headers only): handle-named 32-bit relocations
 * and cliprects; each store lands in the buffer its relocation names.
 */
KTEST(uapi_client_2008_store_dword)
{
	struct i915_device *i915 = uapi_device();
	uint32_t got[2];

	ASSERT_NOT_NULL(i915);
	for (unsigned i = 0; i < 4; i++) {
		uint32_t value = (uint32_t)ktest_rand() | 1u, delta = 64u * (i + 1);

		got[0] = got[1] = 0;
		ASSERT_EQ(client_store_dword(i915_drm_name(i915), value, delta, got), 0);
		EXPECT_UEQ(got[0], value);
		EXPECT_UEQ(got[1], value + 1);
	}
	EXPECT_EQ(uapi_device_destroy(i915), 0);
}

/* --- a client fixture with a target and a batch buffer --- */

struct uapi_client {
	struct i915_device *i915;
	int fd;
	uint32_t target, batch;
};

/* A one-page buffer with @flags; its handle into *@handle on success. */
static int uapi_bo(int fd, uint64_t flags, uint32_t *handle)
{
	struct drm_bo_info_rep rep;
	int ret = uapi_create_bo(fd, flags, 4096, &rep);

	if (!ret)
		*handle = rep.handle;
	return ret;
}

/* CPU access through BO_MAP, as a client does it. */
static int uapi_rw(struct uapi_client *c, uint32_t handle, uint32_t off, void *buf, size_t len,
		   bool write)
{
	struct drm_bo_info_rep rep;
	char *p;
	int ret, err = 0;

	ret = uapi_bo_map_ioctl(c->fd, handle, &rep);
	if (ret)
		return ret;
	p = ttm_drm_mmap(c->fd, rep.arg_handle, rep.size, &err);
	if (p) {
		if (write)
			memcpy(p + off, buf, len);
		else
			memcpy(buf, p + off, len);
	}
	uapi_bo_unmap(c->fd, handle);
	return p ? 0 : err;
}

/*
 * A device, an open client, its target and its batch (a store of 0xc0ffee
 * through one relocation): each step ASSERTed, so only on the case's own
 * thread.
 */
static void uapi_client_init(struct uapi_client *c)
{
	uint32_t cs[8] = {
	    MI_STORE_DWORD_IMM_GEN8 | MI_USE_GGTT, 0, 0, 0xc0ffee, MI_BATCH_BUFFER_END, 0,
	};

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->i915 = uapi_device();
	ASSERT_NOT_NULL(c->i915);
	c->fd = i915_drm_open(c->i915);
	ASSERT_GE(c->fd, 0);
	ASSERT_EQ(uapi_bo(c->fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE,
			  &c->target),
		  0);
	ASSERT_EQ(uapi_bo(c->fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_EXE, &c->batch), 0);
	ASSERT_EQ(uapi_rw(c, c->batch, 0, cs, sizeof(cs), true), 0);
}

static int uapi_client_fini(struct uapi_client *c)
{
	ttm_drm_close(c->fd);
	return uapi_device_destroy(c->i915);
}

static uint32_t uapi_target_dword(struct uapi_client *c, uint32_t off)
{
	uint32_t v = 0xdeadbeef;

	uapi_rw(c, c->target, off, &v, sizeof(v), false);
	return v;
}

/* Nobody holds @handle's reservation: a no-wait reserve succeeds. */
static bool uapi_unreserved(struct uapi_client *c, uint32_t handle)
{
	struct ttm_drm_file *file = ttm_drm_file_get_fd(c->fd);
	struct ttm_drm_object *obj;
	bool ok = false;

	if (!file)
		return false;
	obj = ttm_drm_object_lookup(file, handle, TTM_DRM_OBJECT_BO);
	if (obj) {
		struct ttm_buffer_object *bo = &to_ttm_drm_bo(obj)->tbo;

		ok = !ttm_bo_reserve(bo, false, true, NULL);
		if (ok)
			ttm_bo_unreserve(bo);
		ttm_drm_object_put(obj);
	}
	ttm_drm_file_put(file);
	return ok;
}

static uint64_t uapi_fence_wait(struct uapi_client *c, uint32_t handle)
{
	struct drm_fence_arg arg = {
	    .handle = handle, .type = DRM_FENCE_TYPE_EXE, .flags = DRM_FENCE_FLAG_WAIT_LAZY};
	struct drm_fence_arg unref = {.handle = handle};
	int ret = ttm_drm_ioctl(c->fd, DRM_IOCTL_FENCE_WAIT, &arg);

	ttm_drm_ioctl(c->fd, DRM_IOCTL_FENCE_UNREFERENCE, &unref);
	return (uint64_t)ret;
}

/* --- form (1) --- */

struct eb1 {
	uint32_t reloc[I915_RELOC_HEADER + I915_RELOC0_STRIDE];
	struct drm_i915_op_arg op[3];
	struct drm_i915_execbuffer eb;
};

static void eb1_init(struct eb1 *e, struct uapi_client *c)
{
	memset(e, 0, sizeof(*e));
	e->reloc[0] = 1;
	e->reloc[1] = I915_RELOC_TYPE_0;
	e->reloc[I915_RELOC_HEADER + 0] = 4;
	e->reloc[I915_RELOC_HEADER + 1] = 128;
	e->reloc[I915_RELOC_HEADER + 2] = c->target; /* a handle of the list */
	e->op[0].next = (uint64_t)(uintptr_t)&e->op[1];
	e->op[0].d.req.bo_req.handle = c->target;
	e->op[0].d.req.bo_req.flags = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_WRITE;
	e->op[0].d.req.bo_req.mask = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_WRITE;
	e->op[1].reloc_ptr = (uint64_t)(uintptr_t)e->reloc;
	e->op[1].d.req.bo_req.handle = c->batch;
	e->op[1].d.req.bo_req.flags = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_EXE;
	e->op[1].d.req.bo_req.mask = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_EXE;
	e->op[2] = e->op[1];
	e->op[2].reloc_ptr = 0;
	e->eb.ops_list = (uint64_t)(uintptr_t)&e->op[0];
	e->eb.num_buffers = 2;
	e->eb.batch.used = 24;
	e->eb.fence_arg.flags = DRM_I915_FENCE_FLAG_FLUSHED;
}

static int eb1_call(struct uapi_client *c, struct eb1 *e)
{
	return ttm_drm_ioctl(c->fd, DRM_IOCTL_I915_EXECBUFFER, &e->eb);
}

enum eb1_case {
	EB1_FENCE_FLAGS,
	EB1_FENCE_CLASS,
	EB1_BAD_HANDLE,
	EB1_ZERO_BUFFERS,
	EB1_LIST_SHORT,
	EB1_LIST_LONG,
	EB1_DUP_HANDLE,
	EB1_RELOC_OUTSIDE,
	EB1_RELOC_UNALIGNED,
	EB1_RELOC_TYPE,
	EB1_RELOC_TARGET,
	EB1_BATCH_BEYOND,
	EB1_BATCH_EMPTY,
	EB1_BAD_OP,
	EB1_BAD_HINT,
	EB1_NEGATIVE_CLIPRECTS,
	EB1_NCASES,
};

static void eb1_break(struct eb1 *e, enum eb1_case which, struct uapi_client *c)
{
	switch (which) {
	case EB1_FENCE_FLAGS:
		e->eb.fence_arg.flags |= 0x00400000u;
		break;
	case EB1_FENCE_CLASS:
		e->eb.fence_arg.fence_class = 1;
		break;
	case EB1_BAD_HANDLE:
		e->op[0].d.req.bo_req.handle = 0x7777;
		break;
	case EB1_ZERO_BUFFERS:
		e->eb.num_buffers = 0;
		break;
	case EB1_LIST_SHORT:
		e->eb.num_buffers = 3;
		break;
	case EB1_LIST_LONG:
		e->op[1].next = (uint64_t)(uintptr_t)&e->op[2];
		break;
	case EB1_DUP_HANDLE:
		e->op[0].d.req.bo_req.handle = c->batch;
		break;
	case EB1_RELOC_OUTSIDE:
		e->reloc[I915_RELOC_HEADER + 0] = 4096;
		break;
	case EB1_RELOC_UNALIGNED:
		e->reloc[I915_RELOC_HEADER + 0] = 6;
		break;
	case EB1_RELOC_TYPE:
		e->reloc[1] = 1;
		break;
	case EB1_RELOC_TARGET:
		/* A list index, as 2008's relocations never were: no such handle. */
		e->reloc[I915_RELOC_HEADER + 2] = 0x7777;
		break;
	case EB1_BATCH_BEYOND:
		e->eb.batch.used = 8192;
		break;
	case EB1_BATCH_EMPTY:
		e->eb.batch.used = 0;
		break;
	case EB1_BAD_OP:
		e->op[0].d.req.op = drm_bo_fence;
		break;
	case EB1_BAD_HINT:
		e->op[1].d.req.bo_req.hint = 0x80000000u;
		break;
	case EB1_NEGATIVE_CLIPRECTS:
		e->eb.batch.num_cliprects = -1;
		break;
	case EB1_NCASES:
		break;
	}
}

KTEST(uapi_execbuffer_runs_and_fences)
{
	struct uapi_client c;
	struct eb1 e;

	uapi_client_init(&c);
	eb1_init(&e, &c);
	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_EQ(e.op[0].handled, 1);
	EXPECT_EQ(e.op[1].handled, 1);
	EXPECT_NE(e.eb.fence_arg.handle, 0u);
	EXPECT_UEQ(e.eb.fence_arg.type & DRM_I915_FENCE_TYPE_RW, DRM_I915_FENCE_TYPE_RW);
	/* The reply says where the GPU saw the buffers: in the GGTT. */
	EXPECT_UEQ(e.op[0].d.rep.bo_info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	EXPECT_NE(e.op[0].d.rep.bo_info.offset, 0u);
	EXPECT_UEQ((uint32_t)e.eb.batch.start, (uint32_t)e.op[1].d.rep.bo_info.offset);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	EXPECT_TRUE(uapi_unreserved(&c, c.target));
	EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * The superioctl's restart: a wait inside execbuffer that is interrupted
 * (the target's reservation held elsewhere, an interrupt pending on the
 * calling thread: the stand-in for a signal) makes the call return
 * -EAGAIN with nothing done and the argument as it was, as 2008's
 * -ERESTART did; the client's second call then runs the batch.
 */
KTEST(uapi_execbuffer_interrupted_returns_eagain_then_restarts)
{
	struct dma_fence_interrupt intr;
	struct ttm_drm_object *obj;
	struct ttm_drm_file *file;
	struct ttm_buffer_object *bo;
	struct uapi_client c;
	struct eb1 e, before;

	uapi_client_init(&c);
	eb1_init(&e, &c);
	before = e;
	file = ttm_drm_file_get_fd(c.fd);
	ASSERT_NOT_NULL(file);
	obj = ttm_drm_object_lookup(file, c.target, TTM_DRM_OBJECT_BO);
	ASSERT_NOT_NULL(obj);
	bo = &to_ttm_drm_bo(obj)->tbo;
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);

	dma_fence_interrupt_init(&intr);
	dma_fence_interrupt_install(&intr);
	dma_fence_interrupt_raise(&intr);
	EXPECT_EQ(eb1_call(&c, &e), -EAGAIN);
	dma_fence_interrupt_clear(&intr);
	dma_fence_interrupt_install(NULL);
	ttm_bo_unreserve(bo);
	ttm_drm_object_put(obj);
	ttm_drm_file_put(file);
	EXPECT_EQ(memcmp(&e, &before, sizeof(e)), 0);
	EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0);

	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_EQ(e.op[0].handled, 1);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	EXPECT_TRUE(uapi_unreserved(&c, c.target));
	EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

KTEST(uapi_execbuffer_hostile_arguments)
{
	struct uapi_client c;
	struct eb1 e, before;

	uapi_client_init(&c);
	for (int k = 0; k < EB1_NCASES; k++) {
		eb1_init(&e, &c);
		eb1_break(&e, (enum eb1_case)k, &c);
		before = e;
		EXPECT_EQ(eb1_call(&c, &e), -EINVAL);
		/* Nothing written back, nothing ran, nothing left locked. */
		if (memcmp(&e.eb, &before.eb, sizeof(e.eb)) ||
		    memcmp(e.op, before.op, sizeof(e.op)))
			KTEST_CHECK_(false, false, "case %d changed the caller's arguments", k);
		EXPECT_UEQ(uapi_target_dword(&c, 128), 0);
		EXPECT_TRUE(uapi_unreserved(&c, c.target));
		EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	}
	/* A wrong argument size never reaches the driver's parser. */
	EXPECT_NE(
	    ttm_drm_ioctl(c.fd, DRM_IOWR(DRM_COMMAND_BASE + DRM_I915_EXECBUFFER, uint64_t), &e.eb),
	    0);
	/* And after all that, the valid call still works. */
	eb1_init(&e, &c);
	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * Cliprects, as 2008 X clients passed them: with a count of 0 and a
 * pointer, or with a count and a readable array, the batch runs (the
 * driver has no display and ignores them); an unreadable array is -EFAULT
 * and a negative count -EINVAL, as the 2008 kernel's area check said.
 */
KTEST(uapi_execbuffer_cliprects_accepted_and_ignored)
{
	struct drm_clip_rect clip[3] = {{0, 0, 16, 16}, {16, 0, 32, 16}, {0, 16, 32, 32}};
	struct uapi_client c;
	struct eb1 e;

	uapi_client_init(&c);
	for (int count = 0; count <= 3; count += 3) {
		eb1_init(&e, &c);
		e.eb.batch.cliprects = clip;
		e.eb.batch.num_cliprects = count;
		ASSERT_EQ(eb1_call(&c, &e), 0);
		EXPECT_EQ(e.op[0].handled, 1);
		EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
		EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
		EXPECT_EQ(uapi_rw(&c, c.target, 128, &(uint32_t){0}, 4, true), 0);
	}
	eb1_init(&e, &c);
	e.eb.batch.num_cliprects = 1; /* and no array */
	EXPECT_EQ(eb1_call(&c, &e), -EFAULT);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0);
	EXPECT_TRUE(uapi_unreserved(&c, c.target));
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * 2008 relocations patch 32 bits: the dword after the patched one keeps
 * what it held (a 64-bit patch would zero it).
 */
KTEST(uapi_execbuffer_reloc_patches_32_bits_by_handle)
{
	uint32_t words[2] = {0, 0x5a5a5a5a}, got[2] = {0, 0};
	uint32_t dreloc[I915_RELOC_HEADER + I915_RELOC0_STRIDE] = {0};
	struct uapi_client c;
	uint32_t data;
	struct eb1 e;

	uapi_client_init(&c);
	ASSERT_EQ(
	    uapi_bo(c.fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE, &data), 0);
	ASSERT_EQ(uapi_rw(&c, data, 64, words, sizeof(words), true), 0);
	/* List: target, data, batch. The batch stores to the target as usual. */
	eb1_init(&e, &c);
	e.op[2] = e.op[1];
	e.op[1] = e.op[0];
	e.op[0].next = (uint64_t)(uintptr_t)&e.op[1];
	e.op[1].next = (uint64_t)(uintptr_t)&e.op[2];
	e.op[1].d.req.bo_req.handle = data;
	e.eb.num_buffers = 3;
	/* @data's own chain: its dword at 64 gets the batch's address + 0x10. */
	dreloc[0] = 1;
	dreloc[1] = I915_RELOC_TYPE_0;
	dreloc[I915_RELOC_HEADER + 0] = 64; /* 4096 - 4 would fit too: 4 bytes of room */
	dreloc[I915_RELOC_HEADER + 1] = 0x10;
	dreloc[I915_RELOC_HEADER + 2] = c.batch;
	e.op[1].reloc_ptr = (uint64_t)(uintptr_t)dreloc;
	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	ASSERT_EQ(uapi_rw(&c, data, 64, got, sizeof(got), false), 0);
	/* The batch (entry 2 of the list, named by its handle) + delta... */
	EXPECT_UEQ(got[0], (uint32_t)e.op[2].d.rep.bo_info.offset + 0x10);
	/* ...in 32 bits: the next dword kept what it held. */
	EXPECT_UEQ(got[1], 0x5a5a5a5a);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/* A page no access reaches: a user pointer that must give -EFAULT. */
static void *uapi_bad_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

enum eb1_fault {
	EB1_FAULT_ARG,
	EB1_FAULT_OPS_LIST,
	EB1_FAULT_NEXT,
	EB1_FAULT_RELOC,
	EB1_FAULT_RELOC_ENTRIES,
	EB1_FAULT_RELOC_NEXT,
	EB1_FAULT_CLIPRECTS,
	EB1_NFAULTS,
};

/*
 * Every user pointer of the superioctl, made bad in turn: -EFAULT, the
 * batch never ran, nothing reserved, the caller's arguments unchanged, the
 * buffers' contents intact; the leak checks of the fixture (device destroy,
 * ASan) see nothing left.
 */
KTEST(uapi_execbuffer_bad_pointer_efault)
{
	uint8_t *bad = uapi_bad_page();
	uint32_t *tail;
	struct uapi_client c;
	struct eb1 e, before;
	uint8_t *page;

	ASSERT_NOT_NULL(bad);
	/* Relocation entries that run off a readable page into @bad. */
	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(page != MAP_FAILED);
	ASSERT_EQ(mprotect(page + 4096, 4096, PROT_NONE), 0);
	tail = (uint32_t *)(page + 4096 - 4 * I915_RELOC_HEADER);
	uapi_client_init(&c);
	for (int k = 0; k < EB1_NFAULTS; k++) {
		void *arg;

		eb1_init(&e, &c);
		arg = &e.eb;
		switch ((enum eb1_fault)k) {
		case EB1_FAULT_ARG:
			arg = bad;
			break;
		case EB1_FAULT_OPS_LIST:
			e.eb.ops_list = (uint64_t)(uintptr_t)bad;
			break;
		case EB1_FAULT_NEXT:
			e.op[0].next = (uint64_t)(uintptr_t)bad;
			break;
		case EB1_FAULT_RELOC:
			e.op[1].reloc_ptr = (uint64_t)(uintptr_t)bad;
			break;
		case EB1_FAULT_RELOC_ENTRIES:
			/* A header saying 1 relocation, the entry itself unreadable. */
			memcpy(tail, e.reloc, 4 * I915_RELOC_HEADER);
			e.op[1].reloc_ptr = (uint64_t)(uintptr_t)tail;
			break;
		case EB1_FAULT_RELOC_NEXT:
			memcpy(&e.reloc[2], &(uint64_t){(uint64_t)(uintptr_t)bad}, 8);
			break;
		case EB1_FAULT_CLIPRECTS:
			e.eb.batch.num_cliprects = 2;
			e.eb.batch.cliprects = (struct drm_clip_rect *)bad;
			break;
		case EB1_NFAULTS:
			break;
		}
		before = e;
		EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_I915_EXECBUFFER, arg), -EFAULT);
		if (memcmp(&e.eb, &before.eb, sizeof(e.eb)) ||
		    memcmp(e.op, before.op, sizeof(e.op)))
			KTEST_CHECK_(false, false, "case %d changed the caller's arguments", k);
		EXPECT_UEQ(uapi_target_dword(&c, 128), 0);
		EXPECT_TRUE(uapi_unreserved(&c, c.target));
		EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	}
	/* The core ioctls copy their argument through the same check. */
	EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_BO_INFO, bad), -EFAULT);
	EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_BO_VERSION, bad), -EFAULT);
	/* And the valid call still works. */
	eb1_init(&e, &c);
	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
	munmap(page, 8192);
	munmap(bad, 4096);
}

/* --- form (2) --- */

struct eb2 {
	struct drm_i915_gem_relocation_entry reloc[1];
	struct drm_i915_gem_exec_object2 obj[2];
	struct drm_i915_gem_execbuffer2 eb;
};

static void eb2_init(struct eb2 *e, struct uapi_client *c)
{
	memset(e, 0, sizeof(*e));
	e->reloc[0] = (struct drm_i915_gem_relocation_entry){
	    .target_handle = c->target,
	    .delta = 256,
	    .offset = 4,
	    .presumed_offset = ~0ull,
	    .read_domains = I915_GEM_DOMAIN_RENDER,
	    .write_domain = I915_GEM_DOMAIN_RENDER,
	};
	e->obj[0].handle = c->target;
	e->obj[1].handle = c->batch;
	e->obj[1].relocation_count = 1;
	e->obj[1].relocs_ptr = (uint64_t)(uintptr_t)e->reloc;
	e->eb.buffers_ptr = (uint64_t)(uintptr_t)e->obj;
	e->eb.buffer_count = 2;
	e->eb.batch_len = 24;
	e->eb.flags = I915_EXEC_RENDER | I915_EXEC_FENCE_OUT;
}

static int eb2_call(struct uapi_client *c, struct eb2 *e)
{
	return ttm_drm_ioctl(c->fd, DRM_IOCTL_I915_GEM_EXECBUFFER2, &e->eb);
}

KTEST(uapi_execbuffer2_relocates_then_skips)
{
	struct uapi_client c;
	struct eb2 e;
	unsigned long skipped;

	uapi_client_init(&c);
	eb2_init(&e, &c);
	ASSERT_EQ(eb2_call(&c, &e), 0);
	EXPECT_NE(e.eb.rsvd2 >> 32, 0u);
	EXPECT_NE(e.obj[0].offset, 0u);
	EXPECT_UEQ(e.reloc[0].presumed_offset, e.obj[0].offset);
	EXPECT_UEQ(uapi_fence_wait(&c, (uint32_t)(e.eb.rsvd2 >> 32)), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 256), 0xc0ffee);

	/* Same call with the offsets it returned: the relocation is skipped. */
	skipped = atomic_load(&c.i915->gem_stats.relocs_skipped);
	e.eb.rsvd2 = 0;
	e.eb.flags = I915_EXEC_RENDER | I915_EXEC_NO_RELOC | I915_EXEC_HANDLE_LUT;
	e.reloc[0].target_handle = 0;
	ASSERT_EQ(eb2_call(&c, &e), 0);
	EXPECT_UEQ(e.eb.rsvd2, 0);
	EXPECT_GE(atomic_load(&c.i915->gem_stats.relocs_skipped), skipped + 1);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

enum eb2_case {
	EB2_FLAGS,
	EB2_OBJ_FLAGS,
	EB2_BAD_HANDLE,
	EB2_ZERO_BUFFERS,
	EB2_DUP_HANDLE,
	EB2_RELOC_OUTSIDE,
	EB2_RELOC_UNALIGNED,
	EB2_TWO_WRITE_DOMAINS,
	EB2_UNKNOWN_DOMAIN,
	EB2_RELOC_TARGET,
	EB2_LUT_TARGET,
	EB2_BATCH_BEYOND,
	EB2_BATCH_START,
	EB2_CONTEXT,
	EB2_CLIPRECTS,
	EB2_ALIGNMENT,
	EB2_SOFTPIN_MISALIGNED,
	EB2_NCASES,
};

static void eb2_break(struct eb2 *e, enum eb2_case which, struct uapi_client *c)
{
	switch (which) {
	case EB2_FLAGS:
		e->eb.flags |= 1ull << 40;
		break;
	case EB2_OBJ_FLAGS:
		e->obj[0].flags = 1ull << 20;
		break;
	case EB2_BAD_HANDLE:
		e->obj[0].handle = 0x7777;
		break;
	case EB2_ZERO_BUFFERS:
		e->eb.buffer_count = 0;
		break;
	case EB2_DUP_HANDLE:
		e->obj[0].handle = c->batch;
		break;
	case EB2_RELOC_OUTSIDE:
		e->reloc[0].offset = 4096;
		break;
	case EB2_RELOC_UNALIGNED:
		e->reloc[0].offset = 6;
		break;
	case EB2_TWO_WRITE_DOMAINS:
		e->reloc[0].write_domain = I915_GEM_DOMAIN_RENDER | I915_GEM_DOMAIN_GTT;
		break;
	case EB2_UNKNOWN_DOMAIN:
		e->reloc[0].read_domains = 0x80000000u;
		break;
	case EB2_RELOC_TARGET:
		e->reloc[0].target_handle = 0x7777;
		break;
	case EB2_LUT_TARGET:
		e->eb.flags |= I915_EXEC_HANDLE_LUT;
		e->reloc[0].target_handle = 2;
		break;
	case EB2_BATCH_BEYOND:
		e->eb.batch_len = 8192;
		break;
	case EB2_BATCH_START:
		e->eb.batch_start_offset = 4;
		break;
	case EB2_CONTEXT:
		e->eb.rsvd1 = 5;
		break;
	case EB2_CLIPRECTS:
		e->eb.num_cliprects = 1;
		break;
	case EB2_ALIGNMENT:
		e->obj[0].alignment = 3;
		break;
	case EB2_SOFTPIN_MISALIGNED:
		e->obj[0].flags = EXEC_OBJECT_PINNED;
		e->obj[0].offset = (1u << 20) + 12;
		break;
	case EB2_NCASES:
		break;
	}
}

KTEST(uapi_execbuffer2_hostile_arguments)
{
	struct uapi_client c;
	struct eb2 e, before;

	uapi_client_init(&c);
	for (int k = 0; k < EB2_NCASES; k++) {
		eb2_init(&e, &c);
		eb2_break(&e, (enum eb2_case)k, &c);
		before = e;
		EXPECT_EQ(eb2_call(&c, &e), -EINVAL);
		if (memcmp(&e, &before, sizeof(e)))
			KTEST_CHECK_(false, false, "case %d changed the caller's arguments", k);
		EXPECT_UEQ(uapi_target_dword(&c, 256), 0);
		EXPECT_TRUE(uapi_unreserved(&c, c.target));
		EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	}
	/* Another client's handle is invisible, like a bad one. */
	{
		int other = i915_drm_open(c.i915);

		ASSERT_GE(other, 0);
		eb2_init(&e, &c);
		EXPECT_EQ(ttm_drm_ioctl(other, DRM_IOCTL_I915_GEM_EXECBUFFER2, &e.eb), -EINVAL);
		ttm_drm_close(other);
	}
	eb2_init(&e, &c);
	ASSERT_EQ(eb2_call(&c, &e), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, (uint32_t)(e.eb.rsvd2 >> 32)), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 256), 0xc0ffee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * Execbuffer2's object array and relocation array, made bad in turn:
 * -EFAULT with nothing run or changed.
 */
KTEST(uapi_execbuffer2_bad_pointer_efault)
{
	void *bad = uapi_bad_page();
	struct uapi_client c;
	struct eb2 e, before;

	ASSERT_NOT_NULL(bad);
	uapi_client_init(&c);
	for (int k = 0; k < 3; k++) {
		void *arg;

		eb2_init(&e, &c);
		arg = &e.eb;
		if (k == 0)
			arg = bad;
		else if (k == 1)
			e.eb.buffers_ptr = (uint64_t)(uintptr_t)bad;
		else
			e.obj[1].relocs_ptr = (uint64_t)(uintptr_t)bad;
		before = e;
		EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_I915_GEM_EXECBUFFER2, arg), -EFAULT);
		if (memcmp(&e, &before, sizeof(e)))
			KTEST_CHECK_(false, false, "case %d changed the caller's arguments", k);
		EXPECT_UEQ(uapi_target_dword(&c, 256), 0);
		EXPECT_TRUE(uapi_unreserved(&c, c.target));
		EXPECT_TRUE(uapi_unreserved(&c, c.batch));
	}
	eb2_init(&e, &c);
	ASSERT_EQ(eb2_call(&c, &e), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, (uint32_t)(e.eb.rsvd2 >> 32)), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 256), 0xc0ffee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
	munmap(bad, 4096);
}

/* --- two clients submitting at once --- */

struct uapi_thread {
	struct i915_device *i915;
	unsigned iters;
	int failures;
};

static void *uapi_thread_main(void *p)
{
	struct uapi_thread *t = p;

	for (unsigned i = 0; i < t->iters; i++) {
		uint32_t value = (uint32_t)(i * 2654435761u) | 1u, got[2] = {0, 0};

		/* Each round opens its own client, as separate 2008 processes would. */
		if (client_store_dword(i915_drm_name(t->i915), value, 8u * (i % 64 + 1), got) ||
		    got[0] != value || got[1] != value + 1)
			t->failures++;
	}
	return NULL;
}

KTEST(uapi_two_clients_concurrently)
{
	struct i915_device *i915 = uapi_device();
	struct uapi_thread t[2];
	pthread_t th[2];

	ASSERT_NOT_NULL(i915);
	for (int i = 0; i < 2; i++) {
		t[i] = (struct uapi_thread){.i915 = i915, .iters = 20 * ktest_scale()};
		ASSERT_EQ(pthread_create(&th[i], NULL, uapi_thread_main, &t[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(t[i].failures, 0);
	}
	EXPECT_EQ(uapi_device_destroy(i915), 0);
}

/*
 * A client's batch that never finishes (a semaphore wait on a value nobody
 * writes) is reset by hangcheck: its fence reports EIO through FENCE_WAIT,
 * and another client's batch afterwards completes normally.
 */
KTEST(uapi_hang_reports_eio_other_client_continues)
{
	uint32_t cs[6] = {
	    MI_SEMAPHORE_WAIT | MI_SEMAPHORE_GLOBAL_GTT | MI_SEMAPHORE_POLL |
		MI_SEMAPHORE_SAD_EQ_SDD,
	    1,
	    0,
	    0,
	    MI_BATCH_BUFFER_END,
	    0,
	};
	struct drm_fence_arg wait = {.type = DRM_FENCE_TYPE_EXE};
	struct uapi_client c;
	uint32_t hang, got[2] = {0, 0};
	struct eb2 e;

	uapi_client_init(&c);
	ASSERT_EQ(uapi_bo(c.fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_EXE, &hang), 0);
	ASSERT_EQ(uapi_rw(&c, hang, 0, cs, sizeof(cs), true), 0);
	eb2_init(&e, &c);
	e.obj[1].handle = hang;
	e.reloc[0].offset = 8;
	e.reloc[0].write_domain = 0;
	ASSERT_EQ(eb2_call(&c, &e), 0);
	wait.handle = (uint32_t)(e.eb.rsvd2 >> 32);
	ASSERT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_FENCE_WAIT, &wait), 0);
	EXPECT_UEQ(wait.error, EIO);
	EXPECT_UEQ(uapi_fence_wait(&c, wait.handle), 0);

	ASSERT_EQ(client_store_dword(i915_drm_name(c.i915), 0x5eed, 64, got), 0);
	EXPECT_UEQ(got[0], 0x5eed);
	EXPECT_UEQ(got[1], 0x5eee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * After one client's batch hung and was reset, buffers reused from a
 * buffer cache (Mesa's bufmgr reuses freed buffers: here the hung batch's
 * target, written by nothing) and buffers of other clients map and
 * validate normally: the error is the hung request's (FENCE_WAIT reports
 * it), not a property the buffers keep, as the kernel's waits for idle
 * report no fence error.
 */
KTEST(uapi_gpu_reset_other_buffers_map_and_validate)
{
	uint32_t cs[6] = {
	    MI_SEMAPHORE_WAIT | MI_SEMAPHORE_GLOBAL_GTT | MI_SEMAPHORE_POLL |
		MI_SEMAPHORE_SAD_EQ_SDD,
	    1,
	    0,
	    0,
	    MI_BATCH_BUFFER_END,
	    0,
	};
	struct drm_fence_arg wait = {.type = DRM_FENCE_TYPE_EXE};
	struct drm_bo_map_wait_idle_arg idle;
	struct uapi_client c;
	uint32_t hang;
	struct eb2 e;
	struct eb1 e1;

	uapi_client_init(&c);
	ASSERT_EQ(uapi_bo(c.fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_EXE, &hang), 0);
	ASSERT_EQ(uapi_rw(&c, hang, 0, cs, sizeof(cs), true), 0);
	eb2_init(&e, &c);
	e.obj[1].handle = hang;
	e.reloc[0].offset = 8;
	e.reloc[0].write_domain = 0;
	ASSERT_EQ(eb2_call(&c, &e), 0);
	wait.handle = (uint32_t)(e.eb.rsvd2 >> 32);
	ASSERT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_FENCE_WAIT, &wait), 0);
	EXPECT_UEQ(wait.error, EIO);
	EXPECT_UEQ(uapi_fence_wait(&c, wait.handle), 0);

	/* The target was on the hung batch's list: reused, it maps... */
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0);
	memset(&idle, 0, sizeof(idle));
	idle.d.req.handle = c.target;
	EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_BO_WAIT_IDLE, &idle), 0);
	/* ...and validates into a batch that runs. */
	eb1_init(&e1, &c);
	ASSERT_EQ(eb1_call(&c, &e1), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, e1.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/* The driver's fence class: FENCE_CREATE with EMIT queues a render request. */
KTEST(uapi_fence_emit_is_a_render_request)
{
	struct uapi_client c;
	struct drm_fence_arg arg = {
	    .fence_class = DRM_I915_FENCE_CLASS_ACCEL,
	    .type = DRM_FENCE_TYPE_EXE | DRM_I915_FENCE_TYPE_RW,
	    .flags = DRM_FENCE_FLAG_EMIT,
	};
	struct drm_fence_arg bad = arg;
	unsigned long submitted;

	uapi_client_init(&c);
	submitted = atomic_load(&i915_engine_get(c.i915, I915_ENGINE_RCS)->stats.submitted);
	ASSERT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_FENCE_CREATE, &arg), 0);
	EXPECT_EQ(atomic_load(&i915_engine_get(c.i915, I915_ENGINE_RCS)->stats.submitted),
		  submitted + 1);
	EXPECT_UEQ(uapi_fence_wait(&c, arg.handle), 0);
	bad.fence_class = 1;
	EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_FENCE_CREATE, &bad), -EINVAL);
	bad = arg;
	bad.type = 0x4;
	EXPECT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_FENCE_CREATE, &bad), -EINVAL);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * Fail each allocation/reservation of one valid superioctl in turn (the
 * calling thread's n-th fault point hit): every failure comes back as a
 * negative errno with nothing handled, no fence and nothing reserved, and
 * nothing leaks (LeakSanitizer in the ASan build).
 */
KTEST(uapi_execbuffer_fault_sweep)
{
	struct uapi_client c;
	unsigned long failures = 0;
	struct eb1 e;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	uapi_client_init(&c);
	for (unsigned long nth = 1; nth < 200; nth++) {
		bool reached;
		int ret;

		eb1_init(&e, &c);
		fault_thread_fail_nth(NULL, nth);
		ret = eb1_call(&c, &e);
		reached = fault_thread_nth_pending() == 0;
		fault_thread_fail_nth(NULL, 0);
		if (ret) {
			failures++;
			EXPECT_LT(ret, 0);
			EXPECT_EQ(e.op[0].handled, 0);
			EXPECT_EQ(e.eb.fence_arg.handle, 0u);
		} else {
			EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
		}
		EXPECT_TRUE(uapi_unreserved(&c, c.target));
		EXPECT_TRUE(uapi_unreserved(&c, c.batch));
		if (!reached)
			break; /* the call has fewer hits than nth: all were covered */
	}
	EXPECT_GT(failures, 0u);
	eb1_init(&e, &c);
	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	EXPECT_UEQ(uapi_target_dword(&c, 128), 0xc0ffee);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/* --- buffers in device-local and stolen memory --- */

#define LOCAL_PAGES 16u

/* The dword the GPU stores in page @pg of the target. */
static uint32_t local_value(uint32_t seed, unsigned pg)
{
	return (seed ^ (pg * 0x9e3779b9u)) | 1u;
}

/* Where in page @pg it goes: a different place on every page. */
static uint32_t local_offset(unsigned pg)
{
	return pg * 4096u + (pg * 136u) % 4096u;
}

static uint64_t fnv1a(const uint8_t *p, size_t len)
{
	return testlib_checksum(p, len);
}

/*
 * Another client of @c's device whose NO_EVICT buffer holds the whole
 * CPU-visible lmem window (@window bytes, at offset 0), so that lmem
 * buffers made after it land above the window. Return its fd.
 */
static int window_filler(struct uapi_client *c, uint64_t window)
{
	struct drm_bo_info_rep filler;
	int fd = i915_drm_open(c->i915);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(uapi_create_bo(fd,
				 DRM_BO_FLAG_MEM_VRAM | DRM_BO_FLAG_MAPPABLE |
				     DRM_BO_FLAG_NO_EVICT | DRM_BO_FLAG_READ,
				 window, &filler),
		  0);
	EXPECT_UEQ(filler.offset, 0);
	return fd;
}

/*
 * BO_MAP @handle (@size bytes) and write random bytes through the mapping.
 * Return the mapping; *@expect is a malloc'ed copy of what was written.
 */
static uint8_t *map_and_fill(struct uapi_client *c, uint32_t handle, size_t size, uint8_t **expect)
{
	uint8_t *p;
	int err = 0;

	p = uapi_bo_map(c->fd, handle, NULL, &err);
	ASSERT_EQ(err, 0);
	ASSERT_NOT_NULL(p);
	*expect = malloc(size);
	ASSERT_NOT_NULL(*expect);
	for (size_t i = 0; i < size; i++)
		(*expect)[i] = (uint8_t)(ktest_rand() >> 7);
	memcpy(p, *expect, size);
	return p;
}

/*
 * A buffer created through BO_CREATE in @mem (lmem or stolen) that the CPU
 * cannot reach where it is: lmem with the CPU-visible window held by a
 * NO_EVICT buffer of another client (so it lands above it), or stolen. The
 * GPU stores one dword into each of its pages (a relocated 2007
 * superioctl batch); the client waits on the fence, BO_MAPs the buffer and
 * reads every page: the GPU's dwords where it wrote, zeroes elsewhere (the
 * driver clears new local buffers), checked by a checksum of the whole
 * buffer. The first access moved it exactly once, into the window when
 * @room (the other client gone by then), else to the GGTT (TT).
 */
static void run_local_gpu_write(uint64_t mem, bool room)
{
	const size_t size = LOCAL_PAGES * 4096u;
	uint32_t cs[LOCAL_PAGES * 4 + 2], seed = (uint32_t)ktest_rand();
	uint32_t reloc[I915_RELOC_HEADER + LOCAL_PAGES * I915_RELOC0_STRIDE];
	struct drm_bo_info_rep bo, info;
	struct ttm_bo_vm_stats st;
	struct sim_gpu_config cfg;
	struct uapi_client c;
	uint8_t *expect, *p;
	uint64_t window;
	int ffill, err = 0;
	struct eb1 e;

	i915_test_config(&cfg);
	window = cfg.lmem_visible_size;
	uapi_client_init(&c);
	ffill = mem == DRM_BO_FLAG_MEM_VRAM ? window_filler(&c, window) : i915_drm_open(c.i915);
	ASSERT_GE(ffill, 0);
	ASSERT_EQ(uapi_create_bo(c.fd, mem | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE, size, &bo), 0);
	EXPECT_UEQ(bo.flags & DRM_BO_MASK_MEM, mem);
	if (mem == DRM_BO_FLAG_MEM_VRAM)
		EXPECT_UGE(bo.offset, window);

	memset(reloc, 0, sizeof(reloc));
	reloc[0] = LOCAL_PAGES;
	reloc[1] = I915_RELOC_TYPE_0;
	for (unsigned pg = 0; pg < LOCAL_PAGES; pg++) {
		uint32_t *r = reloc + I915_RELOC_HEADER + pg * I915_RELOC0_STRIDE;

		cs[pg * 4 + 0] = MI_STORE_DWORD_IMM_GEN8 | MI_USE_GGTT;
		cs[pg * 4 + 1] = 0;
		cs[pg * 4 + 2] = 0;
		cs[pg * 4 + 3] = local_value(seed, pg);
		r[0] = pg * 16u + 4u;
		r[1] = local_offset(pg);
		r[2] = bo.handle;
	}
	cs[LOCAL_PAGES * 4] = MI_BATCH_BUFFER_END;
	cs[LOCAL_PAGES * 4 + 1] = 0;
	ASSERT_EQ(uapi_rw(&c, c.batch, 0, cs, sizeof(cs), true), 0);

	eb1_init(&e, &c);
	e.op[0].d.req.bo_req.handle = bo.handle;
	e.op[0].d.req.bo_req.flags = mem | DRM_BO_FLAG_WRITE;
	e.op[0].d.req.bo_req.mask = mem | DRM_BO_FLAG_WRITE;
	e.op[1].reloc_ptr = (uint64_t)(uintptr_t)reloc;
	e.eb.batch.used = (int)sizeof(cs);
	ASSERT_EQ(eb1_call(&c, &e), 0);
	EXPECT_EQ(e.op[0].handled, 1);
	/* The GPU wrote it where it was. */
	EXPECT_UEQ(e.op[0].d.rep.bo_info.flags & DRM_BO_MASK_MEM, mem);
	EXPECT_UEQ(uapi_fence_wait(&c, e.eb.fence_arg.handle), 0);
	ASSERT_EQ(uapi_bo_info(c.fd, bo.handle, &info), 0);
	EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, mem);
	EXPECT_UEQ(info.offset, bo.offset);

	if (room)
		EXPECT_EQ(ttm_drm_close(ffill), 0);
	p = uapi_bo_map(c.fd, bo.handle, NULL, &err);
	ASSERT_EQ(err, 0);
	ASSERT_NOT_NULL(p);
	expect = calloc(1, size);
	ASSERT_NOT_NULL(expect);
	for (unsigned pg = 0; pg < LOCAL_PAGES; pg++) {
		uint32_t v = local_value(seed, pg), got;

		memcpy(expect + local_offset(pg), &v, sizeof(v));
		/* Last page first: the fault order does not matter. */
		memcpy(&got, p + local_offset(LOCAL_PAGES - 1 - pg), sizeof(got));
		EXPECT_UEQ(got, local_value(seed, LOCAL_PAGES - 1 - pg));
	}
	EXPECT_UEQ(fnv1a(p, size), fnv1a(expect, size));
	free(expect);
	ASSERT_EQ(ttm_drm_bo_map_stats(c.fd, bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 1);
	EXPECT_UEQ(st.bytes_migrated, size);
	EXPECT_UEQ(st.sigbus, 0);
	ASSERT_EQ(uapi_bo_info(c.fd, bo.handle, &info), 0);
	if (room) {
		EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_VRAM);
		EXPECT_ULE(info.offset + size, window);
	} else {
		EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	}
	EXPECT_EQ(uapi_bo_unmap(c.fd, bo.handle), 0);
	if (!room)
		EXPECT_EQ(ttm_drm_close(ffill), 0);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

KTEST(uapi_lmem_above_window_gpu_write_then_map)
{
	run_local_gpu_write(DRM_BO_FLAG_MEM_VRAM, true);
}

KTEST(uapi_lmem_above_window_full_window_maps_from_ggtt)
{
	run_local_gpu_write(DRM_BO_FLAG_MEM_VRAM, false);
}

KTEST(uapi_stolen_gpu_write_then_map)
{
	run_local_gpu_write(DRM_BO_FLAG_MEM_PRIV0, true);
}

/*
 * The CPU's bytes survive the trip into lmem above the window and back: a
 * buffer filled through a LOCAL mapping (the write sits in the modelled CPU
 * cache until the move writes it back), moved by SETSTATUS into lmem (by
 * the blitter through a GGTT hop, the window held by another client's
 * NO_EVICT buffer so it lands above), is read through the same mapping:
 * one move at the first access, back to where the CPU reaches it, and a
 * checksum of every page equal to what was written.
 */
KTEST(uapi_lmem_setstatus_from_local_then_map_keeps_content)
{
	const size_t size = LOCAL_PAGES * 4096u;
	struct drm_bo_info_rep bo, info, moved;
	struct ttm_bo_vm_stats st;
	struct sim_gpu_config cfg;
	struct uapi_client c;
	uint8_t *p, *expect;
	int ffill;

	i915_test_config(&cfg);
	uapi_client_init(&c);
	ffill = window_filler(&c, cfg.lmem_visible_size);
	ASSERT_EQ(uapi_create_bo(c.fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE,
				 size, &bo),
		  0);
	p = map_and_fill(&c, bo.handle, size, &expect);

	ASSERT_EQ(uapi_bo_setstatus(c.fd, bo.handle, DRM_BO_FLAG_MEM_VRAM, DRM_BO_MASK_MEM,
				    DRM_BO_HINT_DONT_FENCE, &moved),
		  0);
	EXPECT_UEQ(moved.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_VRAM);
	EXPECT_UGE(moved.offset, cfg.lmem_visible_size);
	ASSERT_EQ(ttm_drm_bo_map_stats(c.fd, bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 0);

	EXPECT_UEQ(fnv1a(p, size), fnv1a(expect, size));
	ASSERT_EQ(ttm_drm_bo_map_stats(c.fd, bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 1);
	EXPECT_UEQ(st.sigbus, 0);
	ASSERT_EQ(uapi_bo_info(c.fd, bo.handle, &info), 0);
	/* The window is full: the GGTT, where the CPU reaches the pages. */
	EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	free(expect);
	EXPECT_EQ(uapi_bo_unmap(c.fd, bo.handle), 0);
	EXPECT_EQ(ttm_drm_close(ffill), 0);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * A CPU write lands just before an eviction and the GPU then reads it: a
 * buffer in the CPU-visible lmem window is mapped and filled through the
 * mapping; at once another client creates a NO_EVICT buffer the size of the
 * window, which evicts it (by the blitter, to system memory: the mapping is
 * torn down first). The GPU then copies the buffer into a system buffer with
 * XY_FAST_COPY_BLT (execbuffer2 on the blitter, relocated, which binds both
 * into the GGTT); after the fence the copy and the buffer itself, read again
 * through the first mapping (which faults again), carry every byte the CPU
 * wrote.
 */
KTEST(uapi_cpu_write_then_eviction_then_gpu_read)
{
	const size_t size = LOCAL_PAGES * 4096u;
	struct drm_i915_gem_relocation_entry reloc[2];
	struct drm_bo_info_rep src, dst, info;
	struct drm_i915_gem_exec_object2 obj[3];
	struct drm_i915_gem_execbuffer2 eb;
	struct ttm_bo_vm_stats st;
	struct sim_gpu_config cfg;
	struct uapi_client c;
	uint32_t cs[16] = {0};
	uint64_t faults;
	uint8_t *p, *q, *expect;
	int ffill, err = 0;

	i915_test_config(&cfg);
	ASSERT_TRUE(cfg.lmem_visible_size >= size);
	uapi_client_init(&c);
	ASSERT_EQ(uapi_create_bo(c.fd,
				 DRM_BO_FLAG_MEM_VRAM | DRM_BO_FLAG_MAPPABLE | DRM_BO_FLAG_READ |
				     DRM_BO_FLAG_WRITE,
				 size, &src),
		  0);
	EXPECT_UEQ(src.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_VRAM);
	EXPECT_ULE(src.offset + size, cfg.lmem_visible_size);
	ASSERT_EQ(uapi_create_bo(c.fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE,
				 size, &dst),
		  0);
	p = map_and_fill(&c, src.handle, size, &expect);

	/* The eviction, right after the last store. */
	ffill = window_filler(&c, cfg.lmem_visible_size);
	ASSERT_EQ(uapi_bo_info(c.fd, src.handle, &info), 0);
	EXPECT_TRUE((info.flags & DRM_BO_MASK_MEM) != DRM_BO_FLAG_MEM_VRAM);
	ASSERT_EQ(ttm_drm_bo_map_stats(c.fd, src.handle, &st), 0);
	EXPECT_UGE(st.invalidations, 1);
	faults = st.faults;

	/* The GPU reads it: the blitter copies src -> dst, LOCAL_PAGES rows of a page. */
	i915_emit_bb_end(i915_emit_fast_copy_blt(cs, 0, 4096, 0, 4096, 4096, LOCAL_PAGES));
	ASSERT_EQ(uapi_rw(&c, c.batch, 0, cs, sizeof(cs), true), 0);
	reloc[0] = (struct drm_i915_gem_relocation_entry){
	    .target_handle = dst.handle,
	    .offset = 4 * 4, /* the destination address */
	    .presumed_offset = ~0ull,
	    .read_domains = I915_GEM_DOMAIN_RENDER,
	    .write_domain = I915_GEM_DOMAIN_RENDER,
	};
	reloc[1] = (struct drm_i915_gem_relocation_entry){
	    .target_handle = src.handle,
	    .offset = 8 * 4, /* the source address */
	    .presumed_offset = ~0ull,
	    .read_domains = I915_GEM_DOMAIN_RENDER,
	};
	memset(obj, 0, sizeof(obj));
	memset(&eb, 0, sizeof(eb));
	obj[0].handle = dst.handle;
	obj[1].handle = src.handle;
	obj[2].handle = c.batch;
	obj[2].relocation_count = 2;
	obj[2].relocs_ptr = (uint64_t)(uintptr_t)reloc;
	eb.buffers_ptr = (uint64_t)(uintptr_t)obj;
	eb.buffer_count = 3;
	eb.batch_len = sizeof(cs);
	eb.flags = I915_EXEC_BLT | I915_EXEC_FENCE_OUT;
	ASSERT_EQ(ttm_drm_ioctl(c.fd, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	EXPECT_UEQ(uapi_fence_wait(&c, (uint32_t)(eb.rsvd2 >> 32)), 0);

	q = uapi_bo_map(c.fd, dst.handle, NULL, &err);
	ASSERT_EQ(err, 0);
	ASSERT_NOT_NULL(q);
	EXPECT_UEQ(fnv1a(q, size), fnv1a(expect, size));
	EXPECT_EQ(memcmp(q, expect, size), 0);
	EXPECT_EQ(uapi_bo_unmap(c.fd, dst.handle), 0);
	/* The CPU's own view, faulted in again at the buffer's new home. */
	EXPECT_EQ(memcmp(p, expect, size), 0);
	ASSERT_EQ(ttm_drm_bo_map_stats(c.fd, src.handle, &st), 0);
	EXPECT_UGE(st.faults, faults + 1);
	EXPECT_UEQ(st.sigbus, 0);
	free(expect);
	EXPECT_EQ(uapi_bo_unmap(c.fd, src.handle), 0);
	EXPECT_EQ(ttm_drm_close(ffill), 0);
	EXPECT_EQ(uapi_client_fini(&c), 0);
}

/*
 * lmem and stolen are the driver's: MM_INIT, MM_TAKEDOWN and MM_LOCK of
 * them are -EINVAL, the info dump lists them with their size, and on a part
 * without lmem BO_CREATE in VRAM is -EINVAL while stolen still works.
 */
KTEST(uapi_driver_memory_types_are_the_drivers)
{
	static const uint32_t types[] = {DRM_BO_MEM_VRAM, DRM_BO_MEM_PRIV0};
	struct drm_bo_info_rep rep;
	struct sim_gpu_config cfg;
	struct i915_device *i915;
	char *text = NULL, line[96];
	size_t len = 0;
	FILE *f;
	int fd;

	i915 = uapi_device();
	ASSERT_NOT_NULL(i915);
	fd = i915_drm_open(i915);
	ASSERT_GE(fd, 0);
	for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		EXPECT_EQ(uapi_mm_init(fd, types[t], 0, 16), -EINVAL);
		EXPECT_EQ(uapi_mm_takedown(fd, types[t]), -EINVAL);
		EXPECT_EQ(uapi_mm_lock(fd, types[t], true), -EINVAL);
	}
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(ttm_drm_info_print(fd, f), 0);
	fclose(f);
	i915_test_config(&cfg);
	snprintf(line, sizeof(line), "mem type %u: pages 0+%llu (driver's)", DRM_BO_MEM_VRAM,
		 (unsigned long long)(cfg.lmem_size >> 12));
	EXPECT_TRUE(strstr(text, line) != NULL);
	snprintf(line, sizeof(line), "mem type %u: pages 0+%llu (driver's)", DRM_BO_MEM_PRIV0,
		 (unsigned long long)(cfg.stolen_size >> 12));
	EXPECT_TRUE(strstr(text, line) != NULL);
	free(text);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(uapi_device_destroy(i915), 0);

	cfg.lmem_size = 0;
	cfg.lmem_visible_size = 0;
	i915 = NULL;
	ASSERT_EQ(i915_device_create_sim(&cfg, &i915), 0);
	ASSERT_EQ(i915_gem_init(i915), 0);
	fd = i915_drm_open(i915);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_MEM_VRAM | DRM_BO_FLAG_READ, 4096, &rep), -EINVAL);
	ASSERT_EQ(uapi_create_bo(fd, DRM_BO_FLAG_MEM_PRIV0 | DRM_BO_FLAG_READ, 4096, &rep), 0);
	EXPECT_UEQ(rep.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_PRIV0);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(uapi_device_destroy(i915), 0);
}
