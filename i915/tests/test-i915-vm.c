// SPDX-License-Identifier: MIT
/*
 * ppGTT address spaces in the driver: execbuffer in a context's VM (softpin
 * and relocations), two VMs at one address, faults at unmapped addresses,
 * unbinding when TTM moves or frees an object and rebinding on the next
 * execbuffer, softpin errnos, and VM lifetime with the contexts using it.
 */
#include <errno.h>
#include <pthread.h>

#include <fault_inject.h>
#include <i915/i915_gem.h>
#include <i915/i915_vm.h>
#include <ttm/ttm_tt.h>

#include "i915_test_common.h"

#define HIGH (1ull << 40)

struct vm_fixture {
	struct i915_device *i915;
	struct i915_gem_object *objs[16];
	unsigned int count;
};

/* A device with the test config, hangcheck @hangcheck_ms. */
static struct i915_device *vm_fixture_init_hc(struct vm_fixture *fx, uint32_t hangcheck_ms)
{
	struct sim_gpu_config cfg;

	memset(fx, 0, sizeof(*fx));
	i915_test_config(&cfg);
	cfg.hangcheck_ms = hangcheck_ms;
	ASSERT_EQ(i915_device_create_sim(&cfg, &fx->i915), 0);
	ASSERT_EQ(i915_gem_init(fx->i915), 0);
	return fx->i915;
}

static struct i915_device *vm_fixture_init(struct vm_fixture *fx)
{
	return vm_fixture_init_hc(fx, 100);
}

static struct i915_gem_object *vm_fixture_obj(struct vm_fixture *fx, uint64_t size,
					      enum i915_gem_region region)
{
	struct i915_gem_object *obj = NULL;

	ASSERT_LT(fx->count, 16);
	ASSERT_EQ(i915_gem_object_create(fx->i915, size, region, &obj), 0);
	fx->objs[fx->count++] = obj;
	return obj;
}

static void vm_fixture_fini(struct vm_fixture *fx)
{
	for (unsigned int i = 0; i < fx->count; i++)
		i915_gem_object_put(fx->objs[i]);
	EXPECT_EQ(i915_gem_fini(fx->i915), 0);
	EXPECT_EQ(i915_device_destroy(fx->i915), 0);
}

/* A context running in a new VM of its own; *@vm gets a reference too. */
static struct i915_context *vm_context(struct i915_device *i915, struct i915_address_space **vm)
{
	struct i915_context *ctx = NULL;

	ASSERT_EQ(i915_context_create(i915, &ctx), 0);
	ASSERT_EQ(i915_vm_create(i915, vm), 0);
	ASSERT_EQ(i915_context_set_vm(ctx, *vm), 0);
	return ctx;
}

static uint32_t *emit_sdi_ppgtt(uint32_t *cs, uint64_t addr, uint32_t value)
{
	uint32_t *start = cs;

	cs = i915_emit_store_dword_imm(cs, addr, value);
	start[0] &= ~MI_USE_GGTT;
	return cs;
}

/* Write a batch storing @value at @addr of the running VM into @batch. */
static void write_store_batch(struct i915_gem_object *batch, uint64_t addr, uint32_t value)
{
	uint32_t cs[8], *p = cs;

	p = emit_sdi_ppgtt(p, addr, value);
	p = i915_emit_bb_end(p);
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, 4 * (size_t)(p - cs), true), 0);
}

/* Run and wait: 0, the execbuffer's error, or the fence's. */
static int exec_wait(struct i915_device *i915, struct i915_exec_object *objs, unsigned int count,
		     struct i915_context *ctx)
{
	struct i915_execbuffer eb = {.objects = objs, .count = count, .ctx = ctx};
	int ret = i915_gem_execbuffer(i915, &eb);

	if (ret)
		return ret;
	ret = dma_fence_wait(eb.out_fence, false);
	if (!ret)
		ret = dma_fence_get_status(eb.out_fence);
	dma_fence_put(eb.out_fence);
	return ret == 1 ? 0 : ret ? ret : -EBUSY;
}

static uint32_t read32(struct i915_gem_object *obj, uint64_t offset)
{
	uint32_t v = 0;

	EXPECT_EQ(i915_gem_object_access(obj, offset, &v, sizeof(v), false), 0);
	return v;
}

#define PIN48 (EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS)

KTEST(vm_store_dword_lands_in_each_vms_object)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm[2];
	struct i915_context *ctx[2];
	struct i915_gem_object *target[2], *batch[2];
	uint64_t where;
	bool bound;

	for (int i = 0; i < 2; i++) {
		ctx[i] = vm_context(i915, &vm[i]);
		target[i] = vm_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
		batch[i] = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
		/* The same addresses in both VMs, different objects behind them. */
		write_store_batch(batch[i], HIGH + 4096 + 64, 0x1000u + (uint32_t)i);
	}
	for (int i = 0; i < 2; i++) {
		struct i915_exec_object eo[2] = {
		    {.obj = target[i], .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH},
		    {.obj = batch[i], .flags = PIN48, .offset = HIGH + 65536},
		};

		ASSERT_EQ(exec_wait(i915, eo, 2, ctx[i]), 0);
		EXPECT_UEQ(eo[0].offset, HIGH);
		EXPECT_UEQ(eo[1].offset, HIGH + 65536);
	}
	EXPECT_UEQ(read32(target[0], 4096 + 64), 0x1000);
	EXPECT_UEQ(read32(target[1], 4096 + 64), 0x1001);
	ASSERT_EQ(i915_vm_lookup(vm[0], &target[0]->base, &where, &bound), 0);
	EXPECT_UEQ(where, HIGH);
	EXPECT_TRUE(bound);
	EXPECT_EQ(i915_vm_lookup(vm[0], &target[1]->base, &where, &bound), -ENOENT);
	EXPECT_NE(i915_vm_read_pte(vm[0], HIGH >> 12), 0);
	EXPECT_NE(i915_vm_read_pte(vm[0], HIGH >> 12), i915_vm_read_pte(vm[1], HIGH >> 12));
	/* The GGTT was not used for any of it. */
	EXPECT_EQ(i915_gem_object_mem_type(target[0]), TTM_PL_SYSTEM);
	for (int i = 0; i < 2; i++) {
		i915_context_put(ctx[i]);
		i915_vm_put(vm[i]);
	}
	vm_fixture_fini(&fx);
}

KTEST(vm_relocations_use_canonical_vm_addresses)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *target = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_reloc rel = {.target = 0,
				      .delta = 8,
				      .offset = 4,
				      .presumed_offset = ~0ull, /* the batch holds no address yet */
				      .write_domain = I915_GEM_DOMAIN_RENDER,
				      .read_domains = I915_GEM_DOMAIN_RENDER};
	struct i915_exec_object eo[2] = {
	    {.obj = target},
	    {.obj = batch, .relocs = &rel, .nreloc = 1},
	};

	write_store_batch(batch, 0, 0xcafe);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_UEQ(read32(target, 8), 0xcafe);
	/* It presumed 0 in a fresh VM: placed there, as the kernel's eb_pin_vma() does. */
	EXPECT_EQ(eo[0].offset, 0);
	EXPECT_UEQ(eo[0].offset, i915_vm_canonical(eo[0].offset));
	/* Without SUPPORTS_48B_ADDRESS the object stays in the low 4 GiB. */
	EXPECT_LE(eo[0].offset + 4096, I915_VM_4G);
	EXPECT_UEQ(rel.presumed_offset, eo[0].offset);
	/* Run again: the address held, the relocation is skipped. */
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_UEQ(rel.presumed_offset, eo[0].offset);
	/* A new object goes to the address it presumes when that is free. */
	{
		struct i915_gem_object *c = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
		struct i915_exec_object eo2[2] = {
		    {.obj = c, .flags = EXEC_OBJECT_SUPPORTS_48B_ADDRESS, .offset = HIGH},
		    {.obj = batch},
		};

		ASSERT_EQ(exec_wait(i915, eo2, 2, ctx), 0);
		EXPECT_UEQ(eo2[0].offset, HIGH);
	}
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

KTEST(vm_unmapped_address_faults_and_engine_recovers)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *target = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_object eo[2] = {
	    {.obj = target, .flags = PIN48, .offset = HIGH},
	    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
	};

	/* Nothing is mapped a page past the target. */
	write_store_batch(batch, HIGH + 4096, 1);
	EXPECT_EQ(exec_wait(i915, eo, 2, ctx), -EIO);
	EXPECT_EQ(atomic_load(&ctx->guilty), 1);
	write_store_batch(batch, HIGH, 2);
	EXPECT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_UEQ(read32(target, 0), 2);
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

KTEST(vm_move_unbinds_from_every_vm_and_next_exec_rebinds)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm[2];
	struct i915_context *ctx[2];
	struct i915_gem_object *target = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_LMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	uint64_t where;
	bool bound;

	for (int i = 0; i < 2; i++) {
		struct i915_exec_object eo[2] = {
		    {.obj = target, .flags = PIN48, .offset = HIGH + (uint64_t)i * 65536},
		    {.obj = batch, .flags = PIN48, .offset = HIGH + 8 * 65536},
		};

		ctx[i] = vm_context(i915, &vm[i]);
		write_store_batch(batch, eo[0].offset + 16, 10u + (uint32_t)i);
		ASSERT_EQ(exec_wait(i915, eo, 2, ctx[i]), 0);
		EXPECT_UEQ(read32(target, 16), 10u + (uint32_t)i);
	}
	EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_VRAM);
	/* TTM moves it out of lmem: no VM may keep pointing at the old pages. */
	ASSERT_EQ(i915_gem_object_migrate(target, I915_GEM_REGION_SMEM), 0);
	EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_SYSTEM);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(i915_vm_lookup(vm[i], &target->base, &where, &bound), 0);
		EXPECT_FALSE(bound);
		EXPECT_UEQ(where, HIGH + (uint64_t)i * 65536);
		EXPECT_UEQ(i915_vm_read_pte(vm[i], where >> 12), 0);
	}
	EXPECT_UEQ(read32(target, 16), 11);
	/* The next execbuffer takes it back to lmem and binds it again, same place. */
	{
		struct i915_exec_object eo[2] = {
		    {.obj = target, .flags = EXEC_OBJECT_SUPPORTS_48B_ADDRESS},
		    {.obj = batch, .flags = PIN48, .offset = HIGH + 8 * 65536},
		};

		write_store_batch(batch, HIGH + 16, 12);
		ASSERT_EQ(exec_wait(i915, eo, 2, ctx[0]), 0);
		EXPECT_UEQ(eo[0].offset, HIGH);
		EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_VRAM);
		EXPECT_UEQ(read32(target, 16), 12);
	}
	ASSERT_EQ(i915_vm_lookup(vm[0], &target->base, &where, &bound), 0);
	EXPECT_TRUE(bound);
	ASSERT_EQ(i915_vm_lookup(vm[1], &target->base, &where, &bound), 0);
	EXPECT_FALSE(bound);
	for (int i = 0; i < 2; i++) {
		i915_context_put(ctx[i]);
		i915_vm_put(vm[i]);
	}
	vm_fixture_fini(&fx);
}

KTEST(vm_object_freed_leaves_no_vma)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *target = NULL, *batch;
	struct i915_exec_object eo[2];

	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &target), 0);
	batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	memset(eo, 0, sizeof(eo));
	eo[0] = (struct i915_exec_object){.obj = target, .flags = PIN48, .offset = HIGH};
	eo[1] = (struct i915_exec_object){.obj = batch, .flags = PIN48, .offset = HIGH + 65536};
	write_store_batch(batch, HIGH, 5);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_EQ(atomic_load(&i915->vmas.count), 2);
	i915_gem_object_put(target);
	ttm_device_flush_delayed(&i915->drm.bdev, true);
	EXPECT_EQ(atomic_load(&i915->vmas.count), 1);
	EXPECT_UEQ(i915_vm_read_pte(vm, HIGH >> 12), 0);
	/* Its range is free for another object. */
	target = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	eo[0].obj = target;
	eo[0].offset = HIGH;
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_UEQ(read32(target, 0), 5);
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

KTEST(vm_softpin_errnos)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *a = vm_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_object eo[2] = {
	    {.obj = a, .flags = PIN48},
	    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
	};
	struct i915_execbuffer eb = {.objects = eo, .count = 2, .ctx = ctx};
	static const uint64_t bad[] = {
	    HIGH + 2048,		  /* misaligned */
	    1ull << 47,			  /* bit 47 set but not sign-extended */
	    (1ull << 48) - 4096,	  /* canonical form missing, and ends at the top */
	    0xffffffffffffe000ull + 4096, /* canonical top page: the object runs past the end */
	};

	write_store_batch(batch, HIGH, 1);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eo[0].offset = bad[i];
		EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	}
	/* Above 4 GiB without SUPPORTS_48B_ADDRESS. */
	eo[0].flags = EXEC_OBJECT_PINNED;
	eo[0].offset = I915_VM_4G - 4096;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	/* Two softpinned objects of one call overlapping. */
	eo[0].flags = PIN48;
	eo[0].offset = HIGH + 65536 - 4096;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	/* The top page of the canonical upper half is fine. */
	eo[0].offset = 0xffffffffffffe000ull;
	write_store_batch(batch, 0xffffffffffffe000ull, 1);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_UEQ(eo[0].offset, 0xffffffffffffe000ull);
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

KTEST(vm_softpin_over_pinned_vma_is_enospc_over_idle_one_evicts)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *a = vm_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *b = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct ttm_operation_ctx tctx = {.interruptible = false};
	struct i915_vma *va = NULL, *vb = NULL;
	uint64_t off = HIGH;
	bool bound;

	ASSERT_EQ(ttm_bo_reserve(&a->base, false, false, NULL), 0);
	ASSERT_EQ(ttm_bo_populate(&a->base, &tctx), 0);
	ASSERT_EQ(i915_vm_bind(vm, &a->base, &off, true, false, false, &va), 0);
	ttm_bo_unreserve(&a->base);
	/* @a is pinned in the VM (an execbuffer in flight): b cannot take its range. */
	ASSERT_EQ(ttm_bo_reserve(&b->base, false, false, NULL), 0);
	ASSERT_EQ(ttm_bo_populate(&b->base, &tctx), 0);
	off = HIGH + 4096;
	EXPECT_EQ(i915_vm_bind(vm, &b->base, &off, true, false, false, &vb), -ENOSPC);
	ttm_bo_unreserve(&b->base);
	i915_vma_unpin(va, NULL);
	/* Unpinned, @a is evicted by a softpin over it, through execbuffer. */
	{
		struct i915_exec_object eo[2] = {
		    {.obj = b, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH + 4096},
		    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
		};

		write_store_batch(batch, HIGH + 4096, 77);
		ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
		EXPECT_UEQ(read32(b, 0), 77);
	}
	EXPECT_EQ(i915_vm_lookup(vm, &a->base, &off, &bound), -ENOENT);
	/* And @a comes back elsewhere when used without softpin. */
	{
		struct i915_exec_object eo[2] = {
		    {.obj = a, .flags = EXEC_OBJECT_SUPPORTS_48B_ADDRESS},
		    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
		};

		ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
		EXPECT_TRUE(eo[0].offset + 8192 <= HIGH + 4096 || eo[0].offset >= HIGH + 8192);
	}
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

KTEST(vm_lives_as_long_as_its_contexts)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm = NULL;
	struct i915_context *c1 = NULL, *c2 = NULL;

	ASSERT_EQ(i915_vm_create(i915, &vm), 0);
	ASSERT_EQ(i915_context_create(i915, &c1), 0);
	ASSERT_EQ(i915_context_create(i915, &c2), 0);
	ASSERT_EQ(i915_context_set_vm(c1, vm), 0);
	ASSERT_EQ(i915_context_set_vm(c2, vm), 0);
	i915_vm_put(vm);
	EXPECT_EQ(atomic_load(&i915->vm_count), 1);
	/* gem_fini refuses while a VM lives. */
	EXPECT_EQ(i915_gem_fini(i915), -EBUSY);
	i915_context_put(c1);
	EXPECT_EQ(atomic_load(&i915->vm_count), 1);
	{
		struct i915_address_space *got = i915_context_get_vm(c2);

		EXPECT_TRUE(got == vm);
		i915_vm_put(got);
	}
	/* Back to the GGTT: the VM's last reference goes. */
	ASSERT_EQ(i915_context_set_vm(c2, NULL), 0);
	EXPECT_EQ(atomic_load(&i915->vm_count), 0);
	EXPECT_NULL(i915_context_get_vm(c2));
	i915_context_put(c2);
	vm_fixture_fini(&fx);
}

KTEST(vm_create_alloc_fails)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm = NULL;

	ASSERT_EQ(fault_configure("vm_alloc:probability=100,times=1", NULL, 0), 0);
	EXPECT_EQ(i915_vm_create(i915, &vm), FAULT_INJECT_ENABLED ? -ENOMEM : 0);
	fault_reset_all();
	if (vm)
		i915_vm_put(vm);
	EXPECT_EQ(atomic_load(&i915->vm_count), 0);
	vm_fixture_fini(&fx);
}

/*
 * A DG2-configured device drives its whole gen12 engine set: every present
 * engine runs a ppGTT batch through execbuffer, the uAPI numbering skips
 * the absent ones, and the legacy ring bits reach the video engines.
 */
KTEST(vm_execbuffer_on_every_gen12_engine)
{
	struct sim_gpu_config cfg;
	struct i915_device *i915 = NULL;
	struct i915_address_space *vm;
	struct i915_context *ctx;
	struct i915_gem_object *target = NULL, *batch = NULL;
	unsigned int ran = 0;

	i915_test_config(&cfg);
	cfg.engine_mask = SIM_ENGINES_DG2;
	ASSERT_EQ(i915_device_create_sim(&cfg, &i915), 0);
	ASSERT_EQ(i915_gem_init(i915), 0);
	EXPECT_NULL(i915_engine_get(i915, I915_ENGINE_VCS1));
	EXPECT_TRUE(i915_engine_lookup(i915, I915_ENGINE_CLASS_ID_VIDEO, 1) ==
		    i915_engine_get(i915, I915_ENGINE_VCS2));
	EXPECT_NULL(i915_engine_lookup(i915, I915_ENGINE_CLASS_ID_VIDEO, 2));
	EXPECT_TRUE(i915_engine_lookup(i915, I915_ENGINE_CLASS_ID_COMPUTE, 3) ==
		    i915_engine_get(i915, I915_ENGINE_CCS3));
	EXPECT_UEQ(i915_engine_get(i915, I915_ENGINE_VECS1)->mmio_base, 0x1d8000);
	ctx = vm_context(i915, &vm);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &target), 0);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &batch), 0);
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		struct i915_engine *engine = i915_engine_get(i915, (enum i915_engine_id)id);
		struct i915_exec_object eo[2] = {
		    {.obj = target, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH},
		    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
		};
		struct i915_execbuffer eb = {
		    .objects = eo, .count = 2, .ctx = ctx, .engine = engine};

		if (!engine)
			continue;
		write_store_batch(batch, HIGH + 4 * id, 0x100u + id);
		ASSERT_EQ(i915_gem_execbuffer(i915, &eb), 0);
		EXPECT_EQ(dma_fence_wait(eb.out_fence, false), 0);
		EXPECT_EQ(dma_fence_get_status(eb.out_fence), 1);
		EXPECT_TRUE(to_i915_request(eb.out_fence)->engine == engine);
		dma_fence_put(eb.out_fence);
		EXPECT_UEQ(read32(target, 4 * id), 0x100u + id);
		ran++;
	}
	EXPECT_EQ(ran, 10);
	{
		struct i915_exec_object eo[2] = {
		    {.obj = target, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH},
		    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
		};
		struct i915_execbuffer eb = {
		    .objects = eo, .count = 2, .ctx = ctx, .flags = I915_EXEC_BSD};

		write_store_batch(batch, HIGH + 256, 0xb5d);
		ASSERT_EQ(i915_gem_execbuffer(i915, &eb), 0);
		EXPECT_TRUE(to_i915_request(eb.out_fence)->engine ==
			    i915_engine_get(i915, I915_ENGINE_VCS0));
		EXPECT_EQ(dma_fence_wait(eb.out_fence, false), 0);
		dma_fence_put(eb.out_fence);
		EXPECT_UEQ(read32(target, 256), 0xb5d);
	}
	i915_gem_object_put(target);
	i915_gem_object_put(batch);
	i915_context_put(ctx);
	i915_vm_put(vm);
	EXPECT_EQ(i915_gem_fini(i915), 0);
	EXPECT_EQ(i915_device_destroy(i915), 0);
}

KTEST(vm_execbuffer_ring_bits_of_an_absent_engine)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_object eo = {.obj = batch};
	struct i915_execbuffer eb = {.objects = &eo, .count = 1, .flags = I915_EXEC_BSD};

	/* The default part has render and blitter only. */
	EXPECT_NULL(i915_engine_get(i915, I915_ENGINE_VCS0));
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	eb.flags = I915_EXEC_VEBOX;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	vm_fixture_fini(&fx);
}

/*
 * lmem pressure evicts an object bound in a VM: its PTEs go before its
 * pages do, the content survives in system memory, and its next execbuffer
 * brings it back and binds it again at the same address.
 */
KTEST(vm_eviction_unbinds_and_next_exec_rebinds)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	/* The test part has 16 MiB of lmem: two of these cannot both stay. */
	struct i915_gem_object *a = vm_fixture_obj(&fx, 10u << 20, I915_GEM_REGION_LMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *b;
	struct i915_exec_object eo[2] = {
	    {.obj = a, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH},
	    {.obj = batch, .flags = PIN48, .offset = HIGH - 65536},
	};
	uint64_t where;
	bool bound;

	write_store_batch(batch, HIGH + (5u << 20), 0x5a5a);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_EQ(i915_gem_object_mem_type(a), TTM_PL_VRAM);
	b = vm_fixture_obj(&fx, 10u << 20, I915_GEM_REGION_LMEM);
	EXPECT_EQ(i915_gem_object_mem_type(b), TTM_PL_VRAM);
	EXPECT_NE(i915_gem_object_mem_type(a), TTM_PL_VRAM);
	ASSERT_EQ(i915_vm_lookup(vm, &a->base, &where, &bound), 0);
	EXPECT_FALSE(bound);
	EXPECT_UEQ(i915_vm_read_pte(vm, (HIGH + (5u << 20)) >> 12), 0);
	EXPECT_UEQ(read32(a, 5u << 20), 0x5a5a);
	/* Back in, evicting @b this time; same address, content intact. */
	write_store_batch(batch, HIGH + (5u << 20) + 4, 0x6b6b);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_EQ(i915_gem_object_mem_type(a), TTM_PL_VRAM);
	ASSERT_EQ(i915_vm_lookup(vm, &a->base, &where, &bound), 0);
	EXPECT_TRUE(bound);
	EXPECT_UEQ(where, HIGH);
	/* lmem beyond the CPU window: read it back through system memory. */
	ASSERT_EQ(i915_gem_object_migrate(a, I915_GEM_REGION_SMEM), 0);
	EXPECT_UEQ(read32(a, 5u << 20), 0x5a5a);
	EXPECT_UEQ(read32(a, (5u << 20) + 4), 0x6b6b);
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

struct vm_racer {
	struct i915_device *i915;
	struct i915_context *ctx;
	struct i915_gem_object *target, *batch;
	unsigned int id, ran, refused;
	int error;
};

/*
 * Softpin @target at one of two addresses the other racer uses too: the
 * range is held by the other's vma, pinned (-ENOSPC) or not (evicted after
 * its last use), and every batch that ran stored where it should.
 */
static void *vm_racer_run(void *arg)
{
	struct vm_racer *r = arg;

	for (unsigned int i = 0; i < 200 && !r->error; i++) {
		uint64_t at = HIGH + (uint64_t)((i + r->id) & 1) * 8192;
		struct i915_exec_object eo[2] = {
		    {.obj = r->target, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = at},
		    {.obj = r->batch, .flags = PIN48, .offset = HIGH + (1u + r->id) * 65536},
		};
		uint32_t cs[8], *p = emit_sdi_ppgtt(cs, at + 4 * (i % 64), i);
		int ret;

		p = i915_emit_bb_end(p);
		ret = i915_gem_object_access(r->batch, 0, cs, 4 * (size_t)(p - cs), true);
		if (!ret)
			ret = exec_wait(r->i915, eo, 2, r->ctx);
		if (ret == -ENOSPC) {
			r->refused++;
			continue;
		}
		if (ret) {
			r->error = ret;
			break;
		}
		if (read32(r->target, 4 * (i % 64)) != i)
			r->error = -EIO;
		r->ran++;
	}
	return NULL;
}

KTEST(vm_shared_by_racing_contexts)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct vm_racer r[2];
	pthread_t t[2];

	ASSERT_EQ(i915_vm_create(i915, &vm), 0);
	for (unsigned int i = 0; i < 2; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].i915 = i915;
		r[i].id = i;
		ASSERT_EQ(i915_context_create(i915, &r[i].ctx), 0);
		ASSERT_EQ(i915_context_set_vm(r[i].ctx, vm), 0);
		r[i].target = vm_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
		r[i].batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	}
	i915_vm_put(vm);
	for (unsigned int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, vm_racer_run, &r[i]), 0);
	for (unsigned int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(r[i].error, 0);
		EXPECT_GT(r[i].ran, 0);
		EXPECT_EQ(r[i].ran + r[i].refused, 200);
		i915_context_put(r[i].ctx);
	}
	vm_fixture_fini(&fx);
}

/*
 * Swapping an object's pages out (it stays in SYSTEM) unbinds it from its
 * VM before the pages go; the next execbuffer swaps them in and binds them
 * again, the content intact.
 */
KTEST(vm_swapout_unbinds_and_next_exec_rebinds)
{
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init(&fx);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *target = vm_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct ttm_operation_ctx tctx = {.interruptible = false};
	struct i915_exec_object eo[2] = {
	    {.obj = target, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH},
	    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
	};
	uint64_t where;
	bool bound;

	write_store_batch(batch, HIGH + 4096, 0x77);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_SYSTEM);
	ASSERT_EQ(ttm_bo_reserve(&target->base, false, false, NULL), 0);
	EXPECT_GT(ttm_bo_swapout(&target->base, &tctx), 0);
	ttm_bo_unreserve(&target->base);
	ASSERT_EQ(i915_vm_lookup(vm, &target->base, &where, &bound), 0);
	EXPECT_FALSE(bound);
	EXPECT_UEQ(i915_vm_read_pte(vm, (HIGH + 4096) >> 12), 0);
	write_store_batch(batch, HIGH + 4100, 0x88);
	ASSERT_EQ(exec_wait(i915, eo, 2, ctx), 0);
	ASSERT_EQ(i915_vm_lookup(vm, &target->base, &where, &bound), 0);
	EXPECT_TRUE(bound);
	EXPECT_UEQ(read32(target, 4096), 0x77);
	EXPECT_UEQ(read32(target, 4100), 0x88);
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}

/*
 * igt's spinner (lib/igt_dummyload.c, gen8+): a poll write, then a loop of
 * MI_ARB_CHECK, NOOPs, MI_CONDITIONAL_BATCH_BUFFER_END on a dword of the
 * batch and a ppGTT MI_BATCH_BUFFER_START back to the loop. It stays busy
 * well past hangcheck (it passes arbitration points), the context is not
 * guilty, and the CPU writing MI_BATCH_BUFFER_END over the condition ends it.
 */
KTEST(vm_igt_spinner_runs_until_the_cpu_ends_it)
{
	enum { LOOP = 64, COND = 4096 - 8 };
	struct vm_fixture fx;
	struct i915_device *i915 = vm_fixture_init_hc(&fx, 500);
	struct i915_address_space *vm;
	struct i915_context *ctx = vm_context(i915, &vm);
	struct i915_gem_object *poll = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = vm_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_object eo[2] = {
	    {.obj = poll, .flags = PIN48 | EXEC_OBJECT_WRITE, .offset = HIGH},
	    {.obj = batch, .flags = PIN48, .offset = HIGH + 65536},
	};
	struct i915_execbuffer eb = {.objects = eo, .count = 2, .ctx = ctx};
	uint32_t cs[1024] = {0}, *p = cs, end = MI_BATCH_BUFFER_END, *cond;
	uint64_t base = HIGH + 65536;

	p = emit_sdi_ppgtt(p, HIGH, 1);
	p = cs + LOOP / 4;
	*p++ = MI_ARB_CHECK;
	p += 960; /* MI_NOOP */
	p = i915_emit_cond_bb_end_ppgtt(p, base + COND, MI_BATCH_BUFFER_END);
	p = i915_emit_bb_start_ppgtt(p, base + LOOP);
	ASSERT_LT((size_t)(p - cs), COND / 4);
	cs[COND / 4] = 0xffffffffu;
	cs[COND / 4 + 1] = 0xffffffffu;
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);

	ASSERT_EQ(i915_gem_execbuffer(i915, &eb), 0);
	/*
	 * Spinning for two hangcheck periods (wall clock: a loaded machine may
	 * deschedule the engine thread for a while, so not a tighter one).
	 */
	for (int i = 0; i < 100; i++) {
		struct timespec ts = {0, 10 * 1000000l};

		nanosleep(&ts, NULL);
		EXPECT_FALSE(dma_fence_is_signaled(eb.out_fence));
	}
	/*
	 * i915_gem_object_access() would wait for the batch: read and write
	 * through the pages as a CPU mapping (igt's mmap) does, while it runs.
	 */
	EXPECT_UEQ(
	    __atomic_load_n((uint32_t *)ttm_tt_page_ptr(poll->base.ttm, 0), __ATOMIC_ACQUIRE), 1);
	EXPECT_EQ(atomic_load(&ctx->guilty), 0);
	cond = (uint32_t *)ttm_tt_page_ptr(batch->base.ttm, COND / 4096) + (COND % 4096) / 4;
	__atomic_store_n(cond, end, __ATOMIC_RELEASE);
	EXPECT_GT(dma_fence_wait_timeout(eb.out_fence, false, 5000ll * 1000000), 0);
	EXPECT_EQ(dma_fence_get_status(eb.out_fence), 1);
	EXPECT_EQ(atomic_load(&ctx->guilty), 0);
	dma_fence_put(eb.out_fence);

	/* Without its arbitration point the same loop is a hang: -EIO, guilty. */
	cs[LOOP / 4] = MI_NOOP;
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);
	EXPECT_EQ(exec_wait(i915, eo, 2, ctx), -EIO);
	EXPECT_EQ(atomic_load(&ctx->guilty), 1);
	i915_context_put(ctx);
	i915_vm_put(vm);
	vm_fixture_fini(&fx);
}
