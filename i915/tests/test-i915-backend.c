// SPDX-License-Identifier: MIT
/*
 * The request level of the i915 driver's back ends: one code path
 * (i915_mem_create(), i915_request_submit_objects(), fences) run on every
 * back end, each case once per back end: "sim" (the simulated GPU) and "hw"
 * (a real i915 kernel on a render node: the emulated one under
 * LD_PRELOAD=node/libttm-i915-node.so, or an Intel GPU; skipped where there
 * is none). The hw-fake cases drive the hw back end against the recording
 * fake i915: the execbuffer2 a request becomes, and the driver's ring-level
 * paths refusing with -EOPNOTSUPP on a device that owns its rings.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <i915_drm.h>

#include <i915/i915_cmds.h>
#include <i915/i915_drv.h>
#include <i915/i915_faults.h>
#include <i915/i915_vm.h>

#include "backend_dev.h"
#include "hw_fake.h"
#include "hw_faults.h"
#include "hw_gpu.h"
#include "ktest.h"

#define WAIT_NS (10ll * 1000 * 1000 * 1000)

static const char *const backends[] = {"sim", "hw"};

static void backend_desc(const char *const *b, char *desc)
{
	snprintf(desc, KTEST_PARAM_DESC_SIZE, "%s", *b);
}

KTEST_ARRAY_PARAM(backend, backends, backend_desc);

static int dev_open_args(struct backend_dev *d, const char *name, const struct hw_open_args *hw)
{
	return backend_dev_open(d, name, hw);
}

static void dev_close(struct backend_dev *d)
{
	EXPECT_EQ(backend_dev_close(d), 0);
}

static void dev_open(struct backend_dev *d)
{
	char why[160] = "";
	struct hw_open_args hw = {.why = why, .why_len = sizeof(why)};
	const char *name = *(const char *const *)ktest_param();
	int ret = dev_open_args(d, name, &hw);

	if (ret && !d->i915 && strcmp(name, "sim") && hw_err_is_skip(ret))
		KTEST_SKIP(why[0] ? why : "no i915 render node");
	ASSERT_EQ(ret, 0);
}

/* A batch at @batch_addr that stores @value at @addr and ends. */
static void write_store_batch(struct i915_mem *batch, struct i915_device *i915, uint64_t addr,
			      uint32_t value)
{
	uint32_t *cs = i915_mem_cpu(i915, batch);

	cs = i915_emit_store_dword_imm(cs, addr, value);
	/* A user batch addresses its VM: no GGTT bit, as igt writes it on gen8+. */
	cs[-4] &= ~MI_USE_GGTT;
	cs = i915_emit_bb_end(cs);
	*cs = 0;
}

static int submit_store(struct backend_dev *d, enum i915_engine_id id, struct i915_mem *batch,
			uint64_t batch_addr, struct i915_mem *target, uint64_t target_addr,
			struct dma_fence *const *await, unsigned int nawait, struct dma_fence **out)
{
	const struct i915_request_object objs[] = {
	    {.mem = target, .gpu_addr = target_addr, .flags = I915_REQUEST_OBJECT_WRITE},
	    {.mem = batch, .gpu_addr = batch_addr & ~4095ull},
	};
	const struct i915_request_args args = {
	    .ctx = d->ctx,
	    .batch = batch_addr,
	    .objects = objs,
	    .nobjects = 2,
	    .await = await,
	    .nawait = nawait,
	};

	return i915_request_submit_objects(i915_engine_get(d->i915, id), &args, out);
}

KTEST_PARAM(request_runs_batch_with_objects_at_their_addresses, backend_gen_params)
{
	struct i915_mem *batch = NULL, *target = NULL;
	struct dma_fence *f = NULL;
	const uint64_t batch_addr = 0x100000, target_addr = 0x7f0000000ull;
	uint32_t *t;
	struct backend_dev d;

	dev_open(&d);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &batch), 0);
	ASSERT_EQ(i915_mem_create(d.i915, 8192, &target), 0);
	t = i915_mem_cpu(d.i915, target);
	EXPECT_UEQ(t[1024 + 5], 0);
	/* Twice at the same addresses, then once with the target moved. */
	for (unsigned int round = 0; round < 3; round++) {
		uint64_t at = target_addr + (round == 2 ? 0x200000 : 0);

		write_store_batch(batch, d.i915, at + 4096 + 20, 0xc0de0000 + round);
		ASSERT_EQ(
		    submit_store(&d, I915_ENGINE_RCS, batch, batch_addr, target, at, NULL, 0, &f),
		    0);
		ASSERT_TRUE(f != NULL);
		EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
		EXPECT_EQ(f->error, 0);
		dma_fence_put(f);
		f = NULL;
		EXPECT_UEQ(t[1024 + 5], 0xc0de0000 + round);
	}
	/* The blitter engine takes the same request (MI_STORE_DWORD_IMM is common). */
	write_store_batch(batch, d.i915, target_addr + 8, 0xb17);
	ASSERT_EQ(
	    submit_store(&d, I915_ENGINE_BCS, batch, batch_addr, target, target_addr, NULL, 0, &f),
	    0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	dma_fence_put(f);
	EXPECT_UEQ(t[2], 0xb17);
	i915_mem_destroy(d.i915, batch);
	i915_mem_destroy(d.i915, target);
	dev_close(&d);
}

static const char *test_fence_name(struct dma_fence *f)
{
	(void)f;
	return "test";
}

static const struct dma_fence_ops test_fence_ops = {
    .get_driver_name = test_fence_name,
    .get_timeline_name = test_fence_name,
};

static struct dma_fence *test_fence(void)
{
	struct dma_fence *f = dma_fence_alloc(sizeof(*f));

	if (f)
		dma_fence_init(f, &test_fence_ops, dma_fence_context_alloc(1), 1);
	return f;
}

/*
 * A request awaiting unsignalled fences is held, not the engine: the call
 * returns at once, the batch has not run, a later request runs meanwhile,
 * and the held one runs once the last fence signalled.
 */
KTEST_PARAM(request_is_held_until_the_fences_it_awaits, backend_gen_params)
{
	struct i915_mem *batch = NULL, *batch2 = NULL, *target = NULL;
	struct dma_fence *a = NULL, *b = NULL, *f = NULL, *g = NULL;
	struct backend_dev d;
	uint32_t *t;

	dev_open(&d);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &batch), 0);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &batch2), 0);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &target), 0);
	t = i915_mem_cpu(d.i915, target);
	a = test_fence();
	b = test_fence();
	ASSERT_TRUE(a && b);
	write_store_batch(batch, d.i915, 0x200000, 77);
	{
		struct dma_fence *const await[] = {a, b};

		ASSERT_EQ(submit_store(&d, I915_ENGINE_RCS, batch, 0x300000, target, 0x200000,
				       await, 2, &f),
			  0);
	}
	ASSERT_TRUE(f != NULL);
	/* Not free to run: nothing it awaits has signalled. */
	write_store_batch(batch2, d.i915, 0x200004, 88);
	ASSERT_EQ(
	    submit_store(&d, I915_ENGINE_RCS, batch2, 0x400000, target, 0x200000, NULL, 0, &g), 0);
	EXPECT_GT(dma_fence_wait_timeout(g, false, WAIT_NS), 0);
	EXPECT_UEQ(t[1], 88);
	EXPECT_FALSE(dma_fence_is_signaled(f));
	EXPECT_UEQ(t[0], 0);
	dma_fence_signal(a);
	EXPECT_EQ(dma_fence_wait_timeout(f, false, 20 * 1000 * 1000), 0);
	EXPECT_UEQ(t[0], 0);
	dma_fence_signal(b);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(f->error, 0);
	EXPECT_UEQ(t[0], 77);
	dma_fence_put(f);
	dma_fence_put(g);
	dma_fence_put(a);
	dma_fence_put(b);
	/* An already signalled await is no hold at all. */
	write_store_batch(batch, d.i915, 0x200008, 99);
	a = test_fence();
	ASSERT_TRUE(a != NULL);
	dma_fence_signal(a);
	ASSERT_EQ(submit_store(&d, I915_ENGINE_RCS, batch, 0x300000, target, 0x200000, &a, 1, &f),
		  0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_UEQ(t[2], 99);
	dma_fence_put(f);
	dma_fence_put(a);
	i915_mem_destroy(d.i915, batch);
	i915_mem_destroy(d.i915, batch2);
	i915_mem_destroy(d.i915, target);
	dev_close(&d);
}

KTEST_PARAM(request_bad_arguments_are_refused_before_the_back_end, backend_gen_params)
{
	struct i915_mem *batch = NULL, *target = NULL;
	struct i915_context *bare = NULL;
	struct dma_fence *f = NULL;
	struct backend_dev d;

	dev_open(&d);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &batch), 0);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &target), 0);
	EXPECT_EQ(i915_mem_create(d.i915, 100, &target), -EINVAL);
	EXPECT_EQ(i915_mem_create(d.i915, 0, &target), -EINVAL);
	write_store_batch(batch, d.i915, 0x10000, 1);
	/* Misaligned object, overlapping objects, batch outside them, unaligned batch. */
	EXPECT_EQ(submit_store(&d, I915_ENGINE_RCS, batch, 0x20000, target, 0x10010, NULL, 0, &f),
		  -EINVAL);
	EXPECT_EQ(submit_store(&d, I915_ENGINE_RCS, batch, 0x10000, target, 0x10000, NULL, 0, &f),
		  -EINVAL);
	EXPECT_EQ(
	    submit_store(&d, I915_ENGINE_RCS, batch, 0x20000, target, 1ull << 48, NULL, 0, &f),
	    -EINVAL);
	{
		const struct i915_request_object objs[] = {{.mem = batch, .gpu_addr = 0x20000}};
		struct i915_request_args args = {
		    .ctx = d.ctx, .batch = 0x30000, .objects = objs, .nobjects = 1};

		EXPECT_EQ(i915_request_submit_objects(i915_engine_get(d.i915, I915_ENGINE_RCS),
						      &args, &f),
			  -EINVAL);
		args.batch = 0x20004;
		EXPECT_EQ(i915_request_submit_objects(i915_engine_get(d.i915, I915_ENGINE_RCS),
						      &args, &f),
			  -EINVAL);
		/* A context without a VM of its own. */
		ASSERT_EQ(i915_context_create(d.i915, &bare), 0);
		args.ctx = bare;
		args.batch = 0x20000;
		EXPECT_EQ(i915_request_submit_objects(i915_engine_get(d.i915, I915_ENGINE_RCS),
						      &args, &f),
			  -EINVAL);
		i915_context_put(bare);
	}
	EXPECT_TRUE(f == NULL);
	i915_mem_destroy(d.i915, batch);
	i915_mem_destroy(d.i915, target);
	dev_close(&d);
}

/* --- the hw back end against the recording fake i915 --- */

struct fake_dev {
	struct hw_fake *fake;
	struct backend_dev d;
};

static void fake_open(struct fake_dev *fd)
{
	struct hw_open_args oa = {.sys = &hw_fake_ops};

	fd->fake = hw_fake_new();
	ASSERT_TRUE(fd->fake != NULL);
	oa.sys_data = fd->fake;
	ASSERT_EQ(dev_open_args(&fd->d, "hw", &oa), 0);
}

static void fake_close(struct fake_dev *fd)
{
	char why[128] = "";

	dev_close(&fd->d);
	KTEST_CHECK_(hw_fake_clean(fd->fake, why, sizeof(why)), false, "%s", why);
	hw_fake_free(fd->fake);
}

KTEST(hw_fake_request_is_one_softpinned_execbuffer)
{
	struct i915_mem *batch = NULL, *target = NULL;
	const struct drm_i915_gem_execbuffer2 *eb;
	const struct drm_i915_gem_exec_object2 *obj;
	struct dma_fence *f = NULL;
	struct fake_dev fd;
	int i;

	fake_open(&fd);
	ASSERT_EQ(i915_mem_create(fd.d.i915, 4096, &batch), 0);
	ASSERT_EQ(i915_mem_create(fd.d.i915, 8192, &target), 0);
	hw_fake_clear_calls(fd.fake);
	/* The batch starts 64 bytes into its object; the batch object goes last. */
	ASSERT_EQ(submit_store(&fd.d, I915_ENGINE_BCS, batch, 0x100040, target, 0x7f0000000ull,
			       NULL, 0, &f),
		  0);
	i = hw_fake_find(fd.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, 0);
	ASSERT_GE(i, 0);
	eb = (const struct drm_i915_gem_execbuffer2 *)fd.fake->calls[i].arg;
	obj = (const struct drm_i915_gem_exec_object2 *)(uintptr_t)eb->buffers_ptr;
	EXPECT_UEQ(eb->buffer_count, 2);
	EXPECT_UEQ(eb->batch_start_offset, 0x40);
	EXPECT_UEQ(eb->flags & I915_EXEC_RING_MASK, I915_EXEC_BLT);
	EXPECT_TRUE(eb->flags & I915_EXEC_FENCE_OUT);
	EXPECT_UEQ(obj[0].offset, 0x7f0000000ull);
	EXPECT_TRUE(obj[0].flags & EXEC_OBJECT_PINNED);
	EXPECT_TRUE(obj[0].flags & EXEC_OBJECT_WRITE);
	EXPECT_UEQ(obj[1].offset, 0x100000);
	EXPECT_FALSE(obj[1].flags & EXEC_OBJECT_WRITE);
	/* The kernel's completion (fence status 1) is the fence's. */
	ASSERT_EQ(hw_fake_signal(fd.fake, 0, 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(f->error, 0);
	dma_fence_put(f);
	/* A reset's -EIO reaches the fence's error. */
	ASSERT_EQ(submit_store(&fd.d, I915_ENGINE_RCS, batch, 0x100000, target, 0x7f0000000ull,
			       NULL, 0, &f),
		  0);
	ASSERT_EQ(hw_fake_signal(fd.fake, 1, -EIO), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(f->error, -EIO);
	dma_fence_put(f);
	i915_mem_destroy(fd.d.i915, batch);
	i915_mem_destroy(fd.d.i915, target);
	fake_close(&fd);
}

KTEST(hw_fake_ring_level_paths_refuse)
{
	struct i915_mem *batch = NULL, *target = NULL;
	struct dma_fence *f = NULL;
	struct i915_cs_cycles cycles;
	struct fake_dev fd;

	fake_open(&fd);
	/* The render and blitter engines exist; the others are not reachable. */
	EXPECT_TRUE(i915_engine_get(fd.d.i915, I915_ENGINE_RCS) != NULL);
	EXPECT_TRUE(i915_engine_get(fd.d.i915, I915_ENGINE_BCS) != NULL);
	EXPECT_TRUE(i915_engine_get(fd.d.i915, I915_ENGINE_VCS0) == NULL);
	/* Ring submission, the engine clock and GGTT blits need rings of ours. */
	EXPECT_EQ(i915_request_submit_batch(i915_engine_get(fd.d.i915, I915_ENGINE_RCS), NULL,
					    0x1000, &f),
		  -EOPNOTSUPP);
	EXPECT_EQ(i915_engine_cs_cycles(i915_engine_get(fd.d.i915, I915_ENGINE_RCS), &cycles),
		  -EOPNOTSUPP);
	EXPECT_EQ(i915_blt_clear(fd.d.i915, NULL, 0x1000, 4096, &f), -EOPNOTSUPP);
	EXPECT_TRUE(f == NULL);
	/* GEM objects of the driver are TTM BOs with host pages: no GGTT or VM of ours. */
	EXPECT_EQ(backend_dev_gem_exec(&fd.d, false), -EOPNOTSUPP);
	EXPECT_EQ(backend_dev_gem_exec(&fd.d, true), -EOPNOTSUPP);
	/* A failing execbuffer2 leaves no fence and nothing submitted. */
	ASSERT_EQ(i915_mem_create(fd.d.i915, 4096, &batch), 0);
	ASSERT_EQ(i915_mem_create(fd.d.i915, 4096, &target), 0);
	fd.fake->fail_request = DRM_IOCTL_I915_GEM_EXECBUFFER2_WR;
	fd.fake->fail_err = -ENOSPC;
	fd.fake->fail_times = 1;
	EXPECT_EQ(
	    submit_store(&fd.d, I915_ENGINE_RCS, batch, 0x100000, target, 0x200000, NULL, 0, &f),
	    -ENOSPC);
	EXPECT_TRUE(f == NULL);
	i915_mem_destroy(fd.d.i915, batch);
	i915_mem_destroy(fd.d.i915, target);
	fake_close(&fd);
}

/* The sim runs the driver's GEM execbuffer too, in the GGTT and in a VM. */
KTEST(sim_gem_execbuffer_beside_raw_requests)
{
	struct i915_mem *batch = NULL, *target = NULL;
	struct dma_fence *f = NULL;
	struct backend_dev d;

	ASSERT_EQ(backend_dev_open(&d, "sim", NULL), 0);
	EXPECT_EQ(backend_dev_gem_exec(&d, false), 0);
	EXPECT_EQ(backend_dev_gem_exec(&d, true), 0);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &batch), 0);
	ASSERT_EQ(i915_mem_create(d.i915, 4096, &target), 0);
	write_store_batch(batch, d.i915, 0x40000000, 5);
	ASSERT_EQ(
	    submit_store(&d, I915_ENGINE_RCS, batch, 0x40001000, target, 0x40000000, NULL, 0, &f),
	    0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	dma_fence_put(f);
	EXPECT_UEQ(*(uint32_t *)i915_mem_cpu(d.i915, target), 5);
	i915_mem_destroy(d.i915, batch);
	i915_mem_destroy(d.i915, target);
	EXPECT_EQ(backend_dev_close(&d), 0);
}

/* Each allocation of the request level fails cleanly with -ENOMEM. */
KTEST(mem_alloc_failures_leave_nothing)
{
	struct i915_mem *mem = NULL;
	struct backend_dev d;
	struct fake_dev fd;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	ASSERT_EQ(backend_dev_open(&d, "sim", NULL), 0);
	/* The record, then its pages. */
	for (unsigned long nth = 1; nth <= 2; nth++) {
		fault_thread_fail_nth(&i915_fault_mem_alloc, nth);
		EXPECT_EQ(i915_mem_create(d.i915, 8192, &mem), -ENOMEM);
		EXPECT_EQ(fault_thread_nth_pending(), 0);
		fault_thread_fail_nth(NULL, 0);
	}
	EXPECT_TRUE(mem == NULL);
	/* A request held for a pending fence: its record. */
	{
		struct i915_mem *batch = NULL, *target = NULL;
		struct dma_fence *a = test_fence(), *f = NULL;

		ASSERT_TRUE(a != NULL);
		ASSERT_EQ(i915_mem_create(d.i915, 4096, &batch), 0);
		ASSERT_EQ(i915_mem_create(d.i915, 4096, &target), 0);
		fault_thread_fail_nth(&i915_fault_mem_alloc, 1);
		EXPECT_EQ(
		    submit_store(&d, I915_ENGINE_RCS, batch, 0x100000, target, 0x200000, &a, 1, &f),
		    -ENOMEM);
		EXPECT_EQ(fault_thread_nth_pending(), 0);
		fault_thread_fail_nth(NULL, 0);
		EXPECT_TRUE(f == NULL);
		dma_fence_signal(a);
		dma_fence_put(a);
		i915_mem_destroy(d.i915, batch);
		i915_mem_destroy(d.i915, target);
	}
	EXPECT_EQ(backend_dev_close(&d), 0);

	/* hw: the record of a GEM object, the record of a VM (fake_close checks no leak). */
	fake_open(&fd);
	fault_thread_fail_nth(&hw_fault_alloc, 1);
	EXPECT_EQ(i915_mem_create(fd.d.i915, 4096, &mem), -ENOMEM);
	EXPECT_EQ(fault_thread_nth_pending(), 0);
	fault_thread_fail_nth(&hw_fault_alloc, 1);
	{
		struct i915_address_space *vm = NULL;

		EXPECT_EQ(i915_vm_create(fd.d.i915, &vm), -ENOMEM);
		EXPECT_TRUE(vm == NULL);
	}
	EXPECT_EQ(fault_thread_nth_pending(), 0);
	fault_thread_fail_nth(NULL, 0);
	fake_close(&fd);
}

/*
 * i915_context_create_vm(): each context on a VM of its own, which only it
 * holds; a failure at the context or at the VM leaves neither behind.
 */
KTEST(context_create_vm_gives_each_context_its_own_vm)
{
	struct i915_context *ctx = NULL, *other = NULL;
	struct backend_dev d;

	ASSERT_EQ(backend_dev_open(&d, "sim", NULL), 0);
	ASSERT_EQ(i915_context_create_vm(d.i915, &ctx), 0);
	ASSERT_TRUE(ctx->vm != NULL);
	EXPECT_TRUE(ctx->vm != d.ctx->vm);
	EXPECT_EQ(atomic_load(&ctx->vm->refcount), 1);
	EXPECT_UEQ(atomic_load(&d.i915->vm_count), 2);

	fault_thread_fail_nth(&i915_fault_vm_alloc, 1);
	EXPECT_EQ(i915_context_create_vm(d.i915, &other), -ENOMEM);
	EXPECT_EQ(fault_thread_nth_pending(), 0);
	fault_thread_fail_nth(&i915_fault_ctx_alloc, 1);
	EXPECT_EQ(i915_context_create_vm(d.i915, &other), -ENOMEM);
	EXPECT_EQ(fault_thread_nth_pending(), 0);
	fault_thread_fail_nth(NULL, 0);
	EXPECT_TRUE(other == NULL);
	EXPECT_EQ(i915_context_create_vm(d.i915, NULL), -EINVAL);
	EXPECT_UEQ(atomic_load(&d.i915->vm_count), 2);

	/* The context's put releases its VM. */
	i915_context_put(ctx);
	EXPECT_UEQ(atomic_load(&d.i915->vm_count), 1);
	EXPECT_EQ(backend_dev_close(&d), 0);
}

struct pairs {
	char keys[16][32];
	char first_value[32];
	unsigned int n;
};

static void pair_emit(void *data, const char *key, const char *value)
{
	struct pairs *p = data;

	if (!p->n)
		snprintf(p->first_value, sizeof(p->first_value), "%s", value);
	if (p->n < 16)
		snprintf(p->keys[p->n], sizeof(p->keys[0]), "%s", key);
	p->n++;
}

/* The neutral configuration and description: no back end's header needed. */
KTEST(device_config_is_back_end_neutral)
{
	struct i915_device_config cfg;
	struct i915_device *i915 = NULL;
	enum i915_backend_kind kind;
	struct pairs p = {0};
	struct fake_dev fd;
	char why[128] = "";

	EXPECT_EQ(i915_backend_parse("sim", &kind), 0);
	EXPECT_EQ(kind, I915_BACKEND_SIM);
	EXPECT_EQ(i915_backend_parse("hw", &kind), 0);
	EXPECT_EQ(kind, I915_BACKEND_HW);
	EXPECT_EQ(i915_backend_parse("gpu", &kind), -EINVAL);
	EXPECT_EQ(i915_backend_parse(NULL, &kind), -EINVAL);

	i915_device_config_init(&cfg, I915_BACKEND_SIM);
	cfg.ggtt_size = 64ull << 20;
	cfg.aperture_size = 16ull << 20;
	cfg.lmem_size = 8ull << 20;
	cfg.lmem_visible_size = 8ull << 20;
	ASSERT_EQ(i915_device_create(&cfg, &i915), 0);
	EXPECT_UEQ(i915->ggtt.size, 64ull << 20);
	EXPECT_TRUE(i915->has_lmem);
	i915_device_describe(i915, pair_emit, &p);
	EXPECT_STREQ(p.keys[0], "backend");
	EXPECT_STREQ(p.first_value, "sim");
	EXPECT_GT(p.n, 1);
	EXPECT_EQ(i915_device_destroy(i915), 0);
	/* A bad shape is the sim's -EINVAL. */
	cfg.aperture_size = cfg.ggtt_size * 2;
	EXPECT_EQ(i915_device_create(&cfg, &i915), -EINVAL);

	/* hw: a node that does not exist is a reason to skip, with the reason. */
	i915_device_config_init(&cfg, I915_BACKEND_HW);
	cfg.device = "/nonexistent/renderD200";
	cfg.why = why;
	cfg.why_len = sizeof(why);
	EXPECT_TRUE(hw_err_is_skip(i915_device_create(&cfg, &i915)));
	EXPECT_NE(why[0], '\0');

	fake_open(&fd);
	memset(&p, 0, sizeof(p));
	i915_device_describe(fd.d.i915, pair_emit, &p);
	EXPECT_STREQ(p.first_value, "hw");
	EXPECT_STREQ(p.keys[1], "device");
	fake_close(&fd);
}
