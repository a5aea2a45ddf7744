// SPDX-License-Identifier: MIT
/*
 * CPU/GPU coherency on the simulated GPU: the device is registered with
 * ttm_bo_vm_set_cpu_cache(), so CPU writes through a cached mapping stay in
 * the modelled CPU cache (the mapping's page copies) until a flush. The GPU
 * reads CPU-written data (here: a batch's command stream, fetched by the
 * command streamer) only because execbuffer flushes every object of its
 * list; a batch reached without being in the list (chained to from another
 * batch) is fetched stale, which shows the model is real. A write-combined
 * mapping needs no flush.
 */
#include <errno.h>

#include <i915/i915_gem.h>
#include <ttm/ttm_bo_vm.h>

#include "i915_test_common.h"

static struct i915_device *coherency_device(void)
{
	struct i915_device *i915 = i915_test_device(true);

	if (!i915)
		return NULL;
	if (i915_gem_init(i915)) {
		i915_device_destroy(i915);
		return NULL;
	}
	if (ttm_bo_vm_set_cpu_cache(&i915->drm.bdev, true)) {
		i915_gem_fini(i915);
		i915_device_destroy(i915);
		return NULL;
	}
	return i915;
}

static int coherency_device_destroy(struct i915_device *i915)
{
	int ret;

	ttm_bo_vm_set_cpu_cache(&i915->drm.bdev, false);
	ret = i915_gem_fini(i915);
	return ret ? ret : i915_device_destroy(i915);
}

/* Run @n objects, the batch last; 0 when the batch completed. */
static int run(struct i915_device *i915, struct i915_exec_object *objs, unsigned int n)
{
	struct i915_execbuffer eb;
	int ret;

	memset(&eb, 0, sizeof(eb));
	eb.objects = objs;
	eb.count = n;
	ret = i915_gem_execbuffer(i915, &eb);
	if (ret)
		return ret;
	ret = dma_fence_wait(eb.out_fence, false);
	if (!ret && dma_fence_get_status(eb.out_fence) != 1)
		ret = -EIO;
	dma_fence_put(eb.out_fence);
	return ret;
}

static uint32_t read_u32(struct i915_gem_object *obj, uint64_t offset)
{
	uint32_t v = 0;

	EXPECT_EQ(i915_gem_object_access(obj, offset, &v, sizeof(v), false), 0);
	return v;
}

/*
 * Write into @batch, through memory, a batch that stores @value with
 * MI_STORE_DWORD_IMM (the value at byte 12) and ends; @cs (8 words) keeps
 * the commands written.
 */
static void store_batch(struct i915_gem_object *batch, uint32_t *cs, uint32_t value)
{
	memset(cs, 0, 8 * sizeof(*cs));
	i915_emit_store_dword_imm(cs, 0, value);
	cs[4] = MI_BATCH_BUFFER_END;
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, 8 * sizeof(*cs), true), 0);
}

/* The relocation aiming a store_batch() at @delta into the first object of the list. */
static struct i915_exec_reloc store_reloc(uint64_t delta)
{
	return (struct i915_exec_reloc){
	    .target = 0,
	    .delta = delta,
	    .offset = 4,
	    .write_domain = I915_GEM_DOMAIN_RENDER,
	    .read_domains = I915_GEM_DOMAIN_RENDER,
	};
}

/*
 * Run @batch (a store_batch() relocated by @rel) with @target first in the
 * list @objs, which keeps the offsets execbuffer chose. 0: the batch ran.
 */
static int run_store(struct i915_device *i915, struct i915_exec_object *objs,
		     struct i915_gem_object *target, struct i915_gem_object *batch,
		     struct i915_exec_reloc *rel)
{
	memset(objs, 0, 2 * sizeof(*objs));
	objs[0].obj = target;
	objs[1].obj = batch;
	objs[1].relocs = rel;
	objs[1].nreloc = 1;
	return run(i915, objs, 2);
}

/* A CPU mapping of all of @obj (ASSERT-checked). */
static void *cpu_map(struct i915_gem_object *obj)
{
	struct ttm_operation_ctx ctx = {0};
	void *addr = NULL;

	ASSERT_EQ(ttm_bo_mmap(&obj->base, NULL, &ctx, &addr), 0);
	return addr;
}

static void cpu_unmap(struct i915_gem_object *obj)
{
	EXPECT_EQ(ttm_bo_munmap(&obj->base), 0);
	ttm_bo_vm_release(&obj->base);
}

KTEST(coherency_cached_write_reaches_gpu_only_through_execbuffer_flush)
{
	struct i915_device *i915 = coherency_device();
	struct i915_gem_object *target, *batch, *jump;
	struct i915_exec_reloc rel = store_reloc(64);
	struct i915_exec_object objs[2];
	uint32_t cs[8], zero = 0;
	uint64_t target_addr, batch_addr;
	uint32_t *map;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &target), 0);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &batch), 0);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &jump), 0);

	/* A store of 0xaaaa to target+64, its address patched by the reloc. */
	store_batch(batch, cs, 0xaaaa);
	ASSERT_EQ(run_store(i915, objs, target, batch, &rel), 0);
	EXPECT_UEQ(read_u32(target, 64), 0xaaaa);
	target_addr = objs[0].offset;
	batch_addr = objs[1].offset;

	/* The CPU rewrites the stored value through a cached mapping. */
	map = cpu_map(batch);
	EXPECT_EQ(map[0], cs[0]);
	EXPECT_EQ(ttm_bo_vm_caching(&batch->base), ttm_cached);
	map[3] = 0xbbbb;
	/* Memory (what the GPU reads) does not have it yet. */
	EXPECT_UEQ(read_u32(batch, 12), 0xaaaa);

	/*
	 * Bypass: a batch in the list jumps to the mapped one, which is not in
	 * the list, so nothing flushes it: the GPU fetches the stale store.
	 */
	ASSERT_EQ(i915_gem_object_access(target, 64, &zero, sizeof(zero), true), 0);
	i915_emit_bb_start(cs, batch_addr);
	ASSERT_EQ(i915_gem_object_access(jump, 0, cs, 3 * sizeof(uint32_t), true), 0);
	memset(objs, 0, sizeof(objs));
	objs[0].obj = target;
	objs[0].flags = EXEC_OBJECT_PINNED;
	objs[0].offset = target_addr;
	objs[1].obj = jump;
	ASSERT_EQ(run(i915, objs, 2), 0);
	EXPECT_UEQ(read_u32(target, 64), 0xaaaa);
	EXPECT_EQ(map[3], 0xbbbb);

	/* Through the list: execbuffer flushes the mapping, the GPU sees it. */
	ASSERT_EQ(run_store(i915, objs, target, batch, &rel), 0);
	EXPECT_UEQ(read_u32(target, 64), 0xbbbb);
	EXPECT_UEQ(read_u32(batch, 12), 0xbbbb);
	/* The CPU view faults back in and still shows its write. */
	EXPECT_EQ(map[3], 0xbbbb);

	cpu_unmap(batch);
	i915_gem_object_put(target);
	i915_gem_object_put(batch);
	i915_gem_object_put(jump);
	EXPECT_EQ(coherency_device_destroy(i915), 0);
}

/* A write-combined view writes memory at once: no flush needed. */
KTEST(coherency_write_combined_needs_no_flush)
{
	struct i915_device *i915 = coherency_device();
	struct i915_gem_object *obj;
	uint32_t v = 0x1234;
	uint32_t *map;

	ASSERT_NOT_NULL(i915);
	/* An lmem-capable object keeps a write-combined tt in system memory. */
	ASSERT_EQ(i915_gem_object_create(i915, 8192, I915_GEM_REGION_LMEM, &obj), 0);
	ASSERT_EQ(i915_gem_object_access(obj, 0, &v, sizeof(v), true), 0);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM), 0);
	ASSERT_NOT_NULL(obj->base.ttm);
	ASSERT_EQ(obj->base.ttm->caching, ttm_write_combined);
	map = cpu_map(obj);
	EXPECT_EQ(map[0], 0x1234);
	EXPECT_EQ(ttm_bo_vm_caching(&obj->base), ttm_write_combined);
	map[1] = 0x5678;
	EXPECT_UEQ(read_u32(obj, 4), 0x5678);
	cpu_unmap(obj);
	i915_gem_object_put(obj);
	EXPECT_EQ(coherency_device_destroy(i915), 0);
}

/* Without the model (a snooping device) a cached view is coherent at once. */
KTEST(coherency_unmodelled_device_is_coherent)
{
	struct i915_device *i915 = coherency_device();
	struct i915_gem_object *obj;
	uint32_t *map;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(ttm_bo_vm_set_cpu_cache(&i915->drm.bdev, false), 0);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &obj), 0);
	map = cpu_map(obj);
	map[2] = 0x4242;
	EXPECT_EQ(ttm_bo_vm_caching(&obj->base), ttm_cached);
	EXPECT_UEQ(read_u32(obj, 8), 0x4242);
	cpu_unmap(obj);
	i915_gem_object_put(obj);
	EXPECT_EQ(coherency_device_destroy(i915), 0);
}

KTEST(coherency_set_cpu_cache_arguments)
{
	EXPECT_EQ(ttm_bo_vm_set_cpu_cache(NULL, true), -EINVAL);
}

/*
 * An object in lmem the CPU cannot see (past the 4 MiB visible window of
 * the test part): the first CPU touch migrates it once, the whole object,
 * and the content the GPU-side path wrote is what the CPU reads; later
 * touches of every page find it in place.
 */
KTEST(coherency_nonvisible_lmem_migrates_once_on_first_touch)
{
	struct i915_device *i915 = coherency_device();
	struct i915_gem_object *filler, *obj;
	const size_t size = 256 << 10;
	struct ttm_bo_vm_stats st;
	uint64_t moved, visible_pages = (4ull << 20) >> 12;
	unsigned char *map, *buf;

	ASSERT_NOT_NULL(i915);
	buf = malloc(size);
	ASSERT_NOT_NULL(buf);
	for (size_t i = 0; i < size; i++)
		buf[i] = (unsigned char)(i * 29 + 3);
	/* Take the visible window first, so the object lands past it. */
	ASSERT_EQ(i915_gem_object_create(i915, 4ull << 20, I915_GEM_REGION_LMEM, &filler), 0);
	ASSERT_EQ(i915_gem_object_access(filler, 0, buf, 4096, true), 0);
	/* Written where the CPU reaches, then moved into lmem by the blitter. */
	ASSERT_EQ(i915_gem_object_create(i915, size, I915_GEM_REGION_SMEM, &obj), 0);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, size, true), 0);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_LMEM), 0);
	ASSERT_EQ(i915_gem_object_mem_type(obj), TTM_PL_VRAM);
	if (obj->base.resource->start < visible_pages) {
		KTEST_SKIP("lmem placement put the object in the visible window");
		goto out;
	}
	moved = atomic_load(&i915->drm.bdev.stats.bytes_moved);
	map = cpu_map(obj);
	EXPECT_EQ(map[size - 1], buf[size - 1]);
	for (size_t i = 0; i < size; i += 4096)
		EXPECT_EQ(map[i + 7], buf[i + 7]);
	EXPECT_MEMEQ(map, buf, size);
	ASSERT_EQ(ttm_bo_vm_get_stats(&obj->base, &st), 0);
	EXPECT_UEQ(st.migrations, 1);
	/*
	 * One migration of the whole object, counted per hop: lmem -> TT (the
	 * blit, the only copy) -> SYSTEM (an unbind of the same pages).
	 */
	EXPECT_UGE(st.bytes_migrated, size);
	EXPECT_ULE(st.bytes_migrated, 2 * size);
	EXPECT_GE(atomic_load(&i915->drm.bdev.stats.bytes_moved) - moved, size);
	cpu_unmap(obj);
out:
	i915_gem_object_put(obj);
	i915_gem_object_put(filler);
	free(buf);
	EXPECT_EQ(coherency_device_destroy(i915), 0);
}

/*
 * A CPU write through a cached mapping, then at once an eviction of the
 * object into lmem (the move writes the modelled cache back first), then a
 * GPU read: the batch the CPU patched runs with the patched value.
 */
KTEST(coherency_cpu_write_then_eviction_then_gpu_read)
{
	struct i915_device *i915 = coherency_device();
	struct i915_gem_object *target, *batch;
	struct i915_exec_reloc rel = store_reloc(128);
	struct i915_exec_object objs[2];
	struct ttm_bo_vm_stats st;
	uint32_t cs[8];
	uint32_t *map;

	ASSERT_NOT_NULL(i915);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &target), 0);
	ASSERT_EQ(i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &batch), 0);
	store_batch(batch, cs, 0x1111);
	map = cpu_map(batch);
	/* Read first, so the page is in the mapping before it is written. */
	EXPECT_EQ(map[4], MI_BATCH_BUFFER_END);
	/* Cached, so the write stays in the modelled CPU cache for now. */
	EXPECT_EQ(ttm_bo_vm_caching(&batch->base), ttm_cached);
	map[3] = 0x2222;
	EXPECT_UEQ(read_u32(batch, 12), 0x1111);
	ASSERT_EQ(i915_gem_object_migrate(batch, I915_GEM_REGION_LMEM), 0);
	ASSERT_EQ(i915_gem_object_mem_type(batch), TTM_PL_VRAM);
	ASSERT_EQ(ttm_bo_vm_get_stats(&batch->base, &st), 0);
	EXPECT_GE(st.invalidations, 1);
	EXPECT_GE(st.pages_written_back, 1);

	ASSERT_EQ(run_store(i915, objs, target, batch, &rel), 0);
	EXPECT_UEQ(read_u32(target, 128), 0x2222);

	cpu_unmap(batch);
	i915_gem_object_put(target);
	i915_gem_object_put(batch);
	EXPECT_EQ(coherency_device_destroy(i915), 0);
}
