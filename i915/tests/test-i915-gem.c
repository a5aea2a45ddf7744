// SPDX-License-Identifier: MIT
/* GEM objects over TTM: placements, blitter moves, execbuffer, hangs. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include <fault_inject.h>

#include <testlib/prng.h>
#include <i915/i915_faults.h>
#include <i915/i915_gem.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_faults.h>

#include "i915_test_common.h"

static struct i915_device *gem_device(uint64_t aperture)
{
	struct sim_gpu_config cfg;
	struct i915_device *i915 = NULL;

	i915_test_config(&cfg);
	if (aperture)
		cfg.aperture_size = aperture;
	if (i915_device_create_sim(&cfg, &i915))
		return NULL;
	if (i915_gem_init(i915)) {
		i915_device_destroy(i915);
		return NULL;
	}
	return i915;
}

static int gem_device_destroy(struct i915_device *i915)
{
	int ret = i915_gem_fini(i915);

	return ret ? ret : i915_device_destroy(i915);
}

/**
 * struct gem_fixture - a device and the objects a test made on it, all put
 * by gem_fixture_fini().
 * @i915: the device.
 * @objs: the objects, in creation order.
 * @count: entries of @objs in use.
 */
struct gem_fixture {
	struct i915_device *i915;
	struct i915_gem_object *objs[32];
	unsigned int count;
};

/* A device as gem_device(@aperture); the case ends here without one. */
static struct i915_device *gem_fixture_init(struct gem_fixture *fx, uint64_t aperture)
{
	memset(fx, 0, sizeof(*fx));
	fx->i915 = gem_device(aperture);
	ASSERT_NOT_NULL(fx->i915);
	return fx->i915;
}

/* A new object of @fx; the case ends here when it cannot be made. */
static struct i915_gem_object *gem_fixture_obj(struct gem_fixture *fx, uint64_t size,
					       enum i915_gem_region region)
{
	struct i915_gem_object *obj = NULL;

	ASSERT_LT(fx->count, sizeof(fx->objs) / sizeof(fx->objs[0]));
	ASSERT_EQ(i915_gem_object_create(fx->i915, size, region, &obj), 0);
	fx->objs[fx->count++] = obj;
	return obj;
}

/* Put every object of @fx; the device must then come down cleanly. */
static void gem_fixture_fini(struct gem_fixture *fx)
{
	for (unsigned int i = 0; i < fx->count; i++)
		i915_gem_object_put(fx->objs[i]);
	fx->count = 0;
	EXPECT_EQ(gem_device_destroy(fx->i915), 0);
}

/*
 * Run @objs[0..@count) (batch last) as one execbuffer in @ctx and wait for
 * its fence. Return: 0 when the batch ran and its fence signalled without
 * error; the execbuffer's error; the fence's error.
 */
static int gem_exec_wait(struct i915_device *i915, struct i915_exec_object *objs,
			 unsigned int count, struct i915_context *ctx)
{
	struct i915_execbuffer eb = {.objects = objs, .count = count, .ctx = ctx};
	int ret = i915_gem_execbuffer(i915, &eb);

	if (ret)
		return ret;
	ret = dma_fence_wait(eb.out_fence, false);
	if (!ret)
		ret = dma_fence_get_status(eb.out_fence); /* 1: signalled without error */
	dma_fence_put(eb.out_fence);
	return ret == 1 ? 0 : ret ? ret : -EBUSY;
}

static void fill(void *p, size_t len, uint64_t seed)
{
	uint64_t *q = p;

	for (size_t i = 0; i < len / 8; i++)
		q[i] = prng_step(&seed);
}

KTEST(gem_object_create_lands_in_its_region)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *s = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *l = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_LMEM);
	struct i915_gem_object *st = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_STOLEN);
	uint32_t in[64], out[64];

	EXPECT_EQ(i915_gem_object_mem_type(s), TTM_PL_SYSTEM);
	EXPECT_EQ(i915_gem_object_mem_type(l), TTM_PL_VRAM);
	EXPECT_EQ(i915_gem_object_mem_type(st), I915_PL_STOLEN);
	for (int i = 0; i < 64; i++)
		in[i] = 0x1000u + (uint32_t)i;
	EXPECT_EQ(i915_gem_object_access(s, 100 * 4, in, sizeof(in), true), 0);
	EXPECT_EQ(i915_gem_object_access(s, 100 * 4, out, sizeof(out), false), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	/* Stolen memory is not CPU-reachable. */
	EXPECT_EQ(i915_gem_object_access(st, 0, out, 4, false), -EIO);
	EXPECT_EQ(i915_gem_object_create(i915, 100, I915_GEM_REGION_SMEM, &s), -EINVAL);
	gem_fixture_fini(&fx);
}

/*
 * The system pages of an object that may live in lmem are write-combined;
 * those of a plain system object are cached (snooped by the LLC).
 */
KTEST(gem_object_tt_caching_by_region)
{
	struct gem_fixture fx;
	struct i915_gem_object *s, *l;
	uint32_t v = 0x12345678, r = 0;

	gem_fixture_init(&fx, 0);
	s = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	l = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_LMEM);
	EXPECT_EQ(i915_gem_object_access(s, 0, &v, sizeof(v), true), 0);
	ASSERT_NOT_NULL(s->base.ttm);
	EXPECT_EQ(s->base.ttm->caching, ttm_cached);
	EXPECT_EQ(i915_gem_object_access(l, 0, &v, sizeof(v), true), 0);
	ASSERT_EQ(i915_gem_object_migrate(l, I915_GEM_REGION_SMEM), 0);
	ASSERT_NOT_NULL(l->base.ttm);
	EXPECT_EQ(l->base.ttm->caching, ttm_write_combined);
	EXPECT_EQ(i915_gem_object_access(l, 0, &r, sizeof(r), false), 0);
	EXPECT_UEQ(r, v);
	gem_fixture_fini(&fx);
}

/*
 * SYSTEM -> LMEM and back by blitter (through TT hops), checksums equal.
 * With @evict the way back starts as an eviction: into the GGTT's eviction
 * part (one blit, one move), or, when the aperture takes the whole GGTT
 * (@aperture) and leaves no such part, on to SYSTEM (a blit to the TT hop,
 * then an unbind: two moves, one copy).
 */
static void round_trip(enum i915_gem_region region, bool evict, uint64_t aperture)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, aperture);
	struct ttm_operation_ctx ctx = {0};
	struct i915_gem_object *obj;
	const size_t len = 37 * TTM_PAGE_SIZE;
	unsigned char *buf = malloc(len);
	uint64_t sum;

	ASSERT_NOT_NULL(buf);
	obj = gem_fixture_obj(&fx, len, I915_GEM_REGION_SMEM);
	fill(buf, len, ktest_rand());
	sum = i915_test_checksum(buf, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, true), 0);
	ASSERT_EQ(i915_gem_object_migrate(obj, region), 0);
	EXPECT_EQ(i915_gem_object_mem_type(obj),
		  region == I915_GEM_REGION_LMEM ? TTM_PL_VRAM : I915_PL_STOLEN);
	EXPECT_GE(atomic_load(&i915->gem_stats.blit_moves), 1);
	EXPECT_GE(atomic_load(&i915->gem_stats.multihops), 1);
	if (evict) {
		ASSERT_EQ(ttm_bo_evict_mem_type(
			      &i915->drm.bdev,
			      region == I915_GEM_REGION_LMEM ? TTM_PL_VRAM : I915_PL_STOLEN, &ctx),
			  0);
		EXPECT_UEQ(ctx.bytes_copied, len);
		if (aperture) {
			EXPECT_UEQ(ctx.bytes_moved, 2 * len);
		} else {
			EXPECT_UEQ(ctx.bytes_moved, len);
			EXPECT_EQ(i915_gem_object_mem_type(obj), TTM_PL_TT);
			EXPECT_TRUE(obj->ggtt_bound);
			/* Above the aperture, inside the part kept for evictions. */
			EXPECT_GE(obj->base.resource->start, i915->evict_places[0].fpfn);
			EXPECT_LE(obj->base.resource->start + (len >> TTM_PAGE_SHIFT),
				  i915->evict_places[0].lpfn);
			ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM), 0);
		}
	} else {
		ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM), 0);
	}
	EXPECT_EQ(i915_gem_object_mem_type(obj), TTM_PL_SYSTEM);
	EXPECT_GE(atomic_load(&i915->gem_stats.blit_moves), 2);
	memset(buf, 0, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, false), 0);
	EXPECT_UEQ(i915_test_checksum(buf, len), sum);
	EXPECT_EQ(atomic_load(&i915->gem_stats.memcpy_moves), 0);
	free(buf);
	gem_fixture_fini(&fx);
}

KTEST(gem_blit_eviction_lmem_to_tt_preserves_content)
{
	round_trip(I915_GEM_REGION_LMEM, true, 0);
}

KTEST(gem_blit_eviction_stolen_to_tt_preserves_content)
{
	round_trip(I915_GEM_REGION_STOLEN, true, 0);
}

/* i915_test_config()'s GGTT is 256 MiB: an aperture that big leaves no eviction part. */
KTEST(gem_blit_eviction_lmem_to_system_without_ggtt_room)
{
	round_trip(I915_GEM_REGION_LMEM, true, 256ull << 20);
}

KTEST(gem_blit_migration_stolen_round_trip_preserves_content)
{
	round_trip(I915_GEM_REGION_STOLEN, false, 0);
}

/* A batch storing @value at the address a relocation puts in dwords 1-2. */
static void write_reloc_batch(struct i915_gem_object *batch, uint32_t value)
{
	uint32_t cs[8] = {0};

	i915_emit_store_dword_imm(cs, 0xdead000, value); /* address patched by the reloc */
	cs[4] = MI_BATCH_BUFFER_END;
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);
}

KTEST(gem_execbuffer_relocation_resolved_then_skipped)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_reloc rel = {
	    .target = 0,
	    .delta = 40,
	    .offset = 4,
	    .presumed_offset = 0,
	    .write_domain = I915_GEM_DOMAIN_RENDER,
	    .read_domains = I915_GEM_DOMAIN_RENDER,
	};
	uint32_t v = 0;

	write_reloc_batch(batch, 0x12345678);
	for (int round = 0; round < 2; round++) {
		struct i915_exec_object objs[2] = {
		    {.obj = target},
		    {.obj = batch, .relocs = &rel, .nreloc = 1},
		};

		ASSERT_EQ(gem_exec_wait(i915, objs, 2, NULL), 0);
		EXPECT_UEQ(rel.presumed_offset, objs[0].offset);
		EXPECT_NE(objs[0].offset, 0);
		EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_TT);
		EXPECT_EQ(i915_gem_object_access(target, 40, &v, 4, false), 0);
		EXPECT_EQ(v, 0x12345678);
		EXPECT_EQ(atomic_load(&i915->gem_stats.relocs_written), 1);
		EXPECT_EQ(atomic_load(&i915->gem_stats.relocs_skipped), (unsigned long)round);
		v = 0;
		EXPECT_EQ(i915_gem_object_access(target, 40, &v, 4, true), 0);
	}
	/* The target was written: its fence is a write fence. */
	EXPECT_TRUE(dma_resv_test_signaled(target->base.resv, DMA_RESV_USAGE_WRITE));
	gem_fixture_fini(&fx);
}

/*
 * I915_EXEC_RELOC_32 patches the low 32 bits of target address + delta and
 * needs only 4 bytes of room: at an object's last dword it writes that dword
 * and nothing before it, where a 64-bit relocation is -EINVAL; an unknown
 * flag bit is -EINVAL.
 */
KTEST(gem_execbuffer_relocation_32bit_writes_one_dword)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *data = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	uint32_t fill[4] = {0xaaaaaaaa, 0xaaaaaaaa, 0xaaaaaaaa, 0xaaaaaaaa},
		 end = MI_BATCH_BUFFER_END;
	struct i915_exec_reloc rel = {.target = 1, .delta = 0x40, .offset = 4092};
	struct i915_exec_object objs[3] = {
	    {.obj = data, .relocs = &rel, .nreloc = 1},
	    {.obj = target},
	    {.obj = batch},
	};
	uint32_t v[4];

	ASSERT_EQ(i915_gem_object_access(data, 4080, fill, sizeof(fill), true), 0);
	ASSERT_EQ(i915_gem_object_access(batch, 0, &end, sizeof(end), true), 0);
	EXPECT_EQ(gem_exec_wait(i915, objs, 3, NULL), -EINVAL);
	rel.flags = 1u << 1;
	EXPECT_EQ(gem_exec_wait(i915, objs, 3, NULL), -EINVAL);
	rel.flags = I915_EXEC_RELOC_32;
	ASSERT_EQ(gem_exec_wait(i915, objs, 3, NULL), 0);
	EXPECT_NE(objs[1].offset, 0);
	EXPECT_UEQ(rel.presumed_offset, objs[1].offset);
	ASSERT_EQ(i915_gem_object_access(data, 4080, v, sizeof(v), false), 0);
	EXPECT_UEQ(v[0], 0xaaaaaaaa);
	EXPECT_UEQ(v[1], 0xaaaaaaaa);
	EXPECT_UEQ(v[2], 0xaaaaaaaa);
	EXPECT_UEQ(v[3], (uint32_t)(objs[1].offset + 0x40));
	gem_fixture_fini(&fx);
}

KTEST(gem_execbuffer_softpin_honoured_and_rejected)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *other = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_object objs[3];
	struct i915_execbuffer eb;
	const uint64_t pin = 100ull << 20;
	uint32_t cs[8] = {0}, v = 0;

	i915_emit_bb_end(i915_emit_store_dword_imm(cs, pin + 4100, 0xabcd));
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);
	memset(objs, 0, sizeof(objs));
	objs[0] = (struct i915_exec_object){
	    .obj = target, .flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE, .offset = pin};
	objs[1] = (struct i915_exec_object){.obj = batch};
	memset(&eb, 0, sizeof(eb));
	eb.objects = objs;
	eb.count = 2;
	ASSERT_EQ(i915_gem_execbuffer(i915, &eb), 0);
	EXPECT_UEQ(objs[0].offset, pin);
	EXPECT_EQ(target->base.resource->start, pin >> TTM_PAGE_SHIFT);
	EXPECT_EQ(dma_fence_wait(eb.out_fence, false), 0);
	dma_fence_put(eb.out_fence);
	EXPECT_EQ(i915_gem_object_access(target, 4100, &v, 4, false), 0);
	EXPECT_EQ(v, 0xabcd);

	/* Misaligned, overlapping another softpin, or at the guard page. */
	objs[0].offset = pin + 8;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	objs[0].offset = 0;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	objs[0].offset = pin;
	objs[2] = objs[1];
	objs[1] = (struct i915_exec_object){
	    .obj = other, .flags = EXEC_OBJECT_PINNED, .offset = pin + 4096};
	eb.count = 3;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	EXPECT_NULL(eb.out_fence);
	/* Nothing was left reserved by the failures. */
	EXPECT_EQ(ttm_bo_reserve(&target->base, false, true, NULL), 0);
	ttm_bo_unreserve(&target->base);
	gem_fixture_fini(&fx);
}

/*
 * A long list is checked as a whole: disjoint softpins given in descending
 * order pass; two ranges that overlap without being neighbours in the list,
 * and an object listed twice far apart, are refused and change nothing.
 */
KTEST(gem_execbuffer_long_list_duplicates_and_overlaps_rejected)
{
	enum { N = 24 };
	const uint64_t base = 64ull << 20, stride = 16384;
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *obj[N], *batch;
	struct i915_exec_object objs[N + 1];
	struct i915_execbuffer eb;
	uint32_t cs[2] = {0};

	for (unsigned int k = 0; k < N; k++)
		obj[k] = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	i915_emit_bb_end(cs);
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);
	memset(objs, 0, sizeof(objs));
	for (unsigned int k = 0; k < N; k++)
		objs[k] = (struct i915_exec_object){.obj = obj[k],
						    .flags = EXEC_OBJECT_PINNED,
						    .offset = base + (N - 1 - k) * stride};
	objs[N] = (struct i915_exec_object){.obj = batch};
	memset(&eb, 0, sizeof(eb));
	eb.objects = objs;
	eb.count = N + 1;
	ASSERT_EQ(gem_exec_wait(i915, objs, N + 1, NULL), 0);
	for (unsigned int k = 0; k < N; k++)
		EXPECT_EQ(obj[k]->base.resource->start,
			  (base + (N - 1 - k) * stride) >> TTM_PAGE_SHIFT);

	/* The last object onto the first one's second page. */
	objs[N - 1].offset = objs[0].offset + 4096;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	EXPECT_NULL(eb.out_fence);
	objs[N - 1].offset = base;

	/* Object 1 again, 21 entries later (not pinned: only the duplicate is wrong). */
	objs[N - 2] = (struct i915_exec_object){.obj = obj[1]};
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	EXPECT_NULL(eb.out_fence);
	objs[N - 2] = (struct i915_exec_object){
	    .obj = obj[N - 2], .flags = EXEC_OBJECT_PINNED, .offset = base + stride};

	/* The refusals left nothing reserved or moved. */
	for (unsigned int k = 0; k < N; k++) {
		EXPECT_EQ(ttm_bo_reserve(&obj[k]->base, false, true, NULL), 0);
		EXPECT_EQ(obj[k]->base.resource->start,
			  (base + (N - 1 - k) * stride) >> TTM_PAGE_SHIFT);
		ttm_bo_unreserve(&obj[k]->base);
	}
	EXPECT_EQ(gem_exec_wait(i915, objs, N + 1, NULL), 0);
	gem_fixture_fini(&fx);
}

/* Fill @obj with the pattern of @seed; return its checksum. */
static uint64_t gem_fill(struct i915_gem_object *obj, uint64_t seed)
{
	size_t len = obj->base.size;
	unsigned char *buf = malloc(len);
	uint64_t sum;

	ASSERT_NOT_NULL(buf);
	fill(buf, len, seed);
	sum = i915_test_checksum(buf, len);
	EXPECT_EQ(i915_gem_object_access(obj, 0, buf, len, true), 0);
	free(buf);
	return sum;
}

/* The checksum of what @obj holds now (0 when it cannot be read). */
static uint64_t gem_checksum(struct i915_gem_object *obj)
{
	size_t len = obj->base.size;
	unsigned char *buf = malloc(len);
	uint64_t sum = 0;

	ASSERT_NOT_NULL(buf);
	if (!i915_gem_object_access(obj, 0, buf, len, false))
		sum = i915_test_checksum(buf, len);
	free(buf);
	return sum;
}

/* Bind @obj (SMEM) into the GGTT at @addr and pin it there, as a scanout. */
static void gem_pin_at(struct i915_gem_object *obj, uint64_t addr)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_place place = {
	    .mem_type = TTM_PL_TT,
	    .fpfn = (uint32_t)(addr >> TTM_PAGE_SHIFT),
	    .lpfn = (uint32_t)((addr + obj->base.size) >> TTM_PAGE_SHIFT),
	};
	struct ttm_placement placement = {1, &place};

	ASSERT_EQ(ttm_bo_reserve(&obj->base, false, false, NULL), 0);
	EXPECT_EQ(ttm_bo_validate(&obj->base, &placement, &ctx), 0);
	ttm_bo_pin(&obj->base);
	ttm_bo_unreserve(&obj->base);
}

/* Nobody holds @obj's reservation any more. */
static bool gem_unreserved(struct i915_gem_object *obj)
{
	if (ttm_bo_reserve(&obj->base, false, true, NULL))
		return false;
	ttm_bo_unreserve(&obj->base);
	return true;
}

/*
 * A softpin over a range that a pinned object holds: nothing can make room,
 * the address is the caller's mistake (-EINVAL), nothing runs and nothing
 * moves or changes. Once the holder is unpinned it is evicted and the same
 * call succeeds.
 */
KTEST(gem_execbuffer_softpin_into_pinned_range_einval)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *holder = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_engine *rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	const uint64_t pin = 100ull << 20;
	uint64_t target_sum, holder_sum, batch_sum;
	uint32_t cs[8] = {0}, v = 0;
	struct i915_exec_object objs[2];
	struct i915_execbuffer eb = {.objects = objs, .count = 2};
	unsigned long submitted;

	target_sum = gem_fill(target, ktest_rand());
	holder_sum = gem_fill(holder, ktest_rand());
	i915_emit_bb_end(i915_emit_store_dword_imm(cs, pin + 4100, 0xabcd));
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);
	batch_sum = gem_checksum(batch);
	gem_pin_at(holder, pin);
	ASSERT_EQ(i915_gem_object_mem_type(holder), TTM_PL_TT);
	ASSERT_UEQ(holder->base.resource->start, pin >> TTM_PAGE_SHIFT);
	submitted = atomic_load(&rcs->stats.submitted);

	objs[0] = (struct i915_exec_object){
	    .obj = target, .flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE, .offset = pin};
	objs[1] = (struct i915_exec_object){.obj = batch};
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	EXPECT_NULL(eb.out_fence);
	EXPECT_UEQ(atomic_load(&rcs->stats.submitted), submitted);
	EXPECT_TRUE(gem_unreserved(target));
	EXPECT_TRUE(gem_unreserved(batch));
	EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_SYSTEM);
	EXPECT_UEQ(holder->base.resource->start, pin >> TTM_PAGE_SHIFT);
	EXPECT_UEQ(gem_checksum(target), target_sum);
	EXPECT_UEQ(gem_checksum(holder), holder_sum);
	EXPECT_UEQ(gem_checksum(batch), batch_sum);

	ASSERT_EQ(ttm_bo_reserve(&holder->base, false, false, NULL), 0);
	ttm_bo_unpin(&holder->base);
	ttm_bo_unreserve(&holder->base);
	ASSERT_EQ(gem_exec_wait(i915, objs, 2, NULL), 0);
	EXPECT_UEQ(objs[0].offset, pin);
	EXPECT_EQ(i915_gem_object_access(target, 4100, &v, 4, false), 0);
	EXPECT_EQ(v, 0xabcd);
	EXPECT_UEQ(gem_checksum(holder), holder_sum);
	gem_fixture_fini(&fx);
}

/*
 * A softpin whose GGTT allocation fails (the resource_alloc fault point:
 * the TT range of a system object, the vma of a local-memory one) is a
 * failed allocation, -ENOMEM, not a bad address: userspace may retry it.
 * Nothing runs, nothing is left reserved, no range is kept and every byte
 * stays; without the fault the same call succeeds.
 */
KTEST(gem_execbuffer_softpin_alloc_failure_enomem)
{
	static const enum i915_gem_region regions[] = {I915_GEM_REGION_SMEM, I915_GEM_REGION_LMEM};
	const uint64_t pin = 100ull << 20;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	for (unsigned int r = 0; r < 2; r++) {
		struct gem_fixture fx;
		struct i915_device *i915 = gem_fixture_init(&fx, 0);
		struct i915_gem_object *target = gem_fixture_obj(&fx, 8192, regions[r]);
		struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
		struct ttm_resource_manager *ggtt = i915_ggtt_manager(&i915->ggtt);
		struct i915_engine *rcs = i915_engine_get(i915, I915_ENGINE_RCS);
		unsigned int mem_type = i915_gem_object_mem_type(target);
		uint64_t target_sum, batch_sum, ggtt_used;
		uint32_t cs[8] = {0}, v = 0;
		struct i915_exec_object objs[2];
		struct i915_execbuffer eb = {.objects = objs, .count = 2};
		unsigned long submitted;
		bool fired;
		int ret;

		target_sum = gem_fill(target, ktest_rand());
		i915_emit_bb_end(i915_emit_store_dword_imm(cs, pin + 8, 0x5eed + r));
		ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);
		batch_sum = gem_checksum(batch);
		ggtt_used = ttm_resource_manager_usage(ggtt);
		submitted = atomic_load(&rcs->stats.submitted);

		objs[0] = (struct i915_exec_object){
		    .obj = target, .flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE, .offset = pin};
		objs[1] = (struct i915_exec_object){.obj = batch};
		fault_thread_fail_nth(&ttm_fault_resource_alloc, 1);
		ret = i915_gem_execbuffer(i915, &eb);
		fired = fault_thread_nth_pending() == 0;
		fault_thread_fail_nth(NULL, 0);
		EXPECT_TRUE(fired);
		EXPECT_EQ(ret, -ENOMEM);
		EXPECT_NULL(eb.out_fence);
		EXPECT_UEQ(atomic_load(&rcs->stats.submitted), submitted);
		EXPECT_UEQ(ttm_resource_manager_usage(ggtt), ggtt_used);
		EXPECT_NULL(target->vma);
		EXPECT_TRUE(gem_unreserved(target));
		EXPECT_TRUE(gem_unreserved(batch));
		EXPECT_EQ(i915_gem_object_mem_type(target), mem_type);
		EXPECT_UEQ(gem_checksum(target), target_sum);
		EXPECT_UEQ(gem_checksum(batch), batch_sum);

		ASSERT_EQ(gem_exec_wait(i915, objs, 2, NULL), 0);
		EXPECT_UEQ(objs[0].offset, pin);
		EXPECT_EQ(i915_gem_object_access(target, 8, &v, 4, false), 0);
		EXPECT_EQ(v, 0x5eed + r);
		gem_fixture_fini(&fx);
	}
}

KTEST(gem_execbuffer_rejects_bad_arguments)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *a = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_reloc rel = {.target = 0, .offset = 4};
	struct i915_exec_object objs[2];
	struct i915_execbuffer eb;

#define RESET()                                                                                    \
	do {                                                                                       \
		memset(objs, 0, sizeof(objs));                                                     \
		objs[0].obj = a;                                                                   \
		objs[1].obj = batch;                                                               \
		objs[1].relocs = &rel;                                                             \
		objs[1].nreloc = 1;                                                                \
		rel = (struct i915_exec_reloc){.target = 0, .offset = 4};                          \
		memset(&eb, 0, sizeof(eb));                                                        \
		eb.objects = objs;                                                                 \
		eb.count = 2;                                                                      \
	} while (0)
	RESET();
	eb.count = 0;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	eb.flags = 1u << 30;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	objs[1].obj = a; /* duplicated */
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	rel.target = 2;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	rel.offset = 4094;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	rel.offset = 4090; /* no room for 8 bytes, and unaligned */
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	rel.write_domain = I915_GEM_DOMAIN_RENDER | I915_GEM_DOMAIN_GTT;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	eb.batch_start_offset = 8;
	eb.batch_len = 4096;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	RESET();
	objs[0].flags = 1u << 31;
	EXPECT_EQ(i915_gem_execbuffer(i915, &eb), -EINVAL);
	EXPECT_EQ(atomic_load(&i915_engine_get(i915, I915_ENGINE_RCS)->stats.submitted), 0);
	EXPECT_EQ(i915_gem_object_mem_type(a), TTM_PL_SYSTEM); /* nothing validated */
#undef RESET
	gem_fixture_fini(&fx);
}

/*
 * More mappable objects than the aperture holds: each execbuffer evicts
 * older ones (an unbind, no copy) and every batch's result is still right.
 */
KTEST(gem_execbuffer_evicts_under_small_aperture)
{
	enum { N = 24 };
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 1ull << 20); /* 256 pages */
	struct i915_gem_object *t[N], *batch;

	batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	for (int i = 0; i < N; i++)
		t[i] = gem_fixture_obj(&fx, 64 * 1024, I915_GEM_REGION_SMEM);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++) {
			struct i915_exec_reloc rel = {.target = 0,
						      .offset = 4,
						      .delta = 4 * (uint32_t)i,
						      .write_domain = I915_GEM_DOMAIN_RENDER};
			struct i915_exec_object objs[2] = {
			    {.obj = t[i], .flags = EXEC_OBJECT_NEEDS_MAPPABLE},
			    {.obj = batch, .relocs = &rel, .nreloc = 1},
			};

			write_reloc_batch(batch, 0x1000u * (uint32_t)round + (uint32_t)i);
			/* The batch object is rewritten next round: wait for it. */
			ASSERT_EQ(gem_exec_wait(i915, objs, 2, NULL), 0);
			EXPECT_LT(objs[0].offset, 1ull << 20);
		}
	}
	EXPECT_GT(atomic_load(&i915->drm.bdev.stats.evictions), 0);
	for (int i = 0; i < N; i++) {
		uint32_t v = 0;

		EXPECT_EQ(i915_gem_object_access(t[i], 4 * (uint64_t)i, &v, 4, false), 0);
		EXPECT_EQ(v, 0x1000u + (uint32_t)i);
	}
	gem_fixture_fini(&fx);
}

KTEST(gem_execbuffer_lmem_target_through_vma)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 16384, I915_GEM_REGION_LMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_exec_reloc rel = {
	    .target = 0, .offset = 4, .delta = 8, .write_domain = I915_GEM_DOMAIN_RENDER};
	struct i915_exec_object objs[2] = {
	    {.obj = target},
	    {.obj = batch, .relocs = &rel, .nreloc = 1},
	};
	uint32_t v = 0;

	write_reloc_batch(batch, 0x77aa77);
	ASSERT_EQ(gem_exec_wait(i915, objs, 2, NULL), 0);
	EXPECT_EQ(i915_gem_object_mem_type(target), TTM_PL_VRAM);
	/* Out of lmem by blitter, then the CPU reads what the batch wrote. */
	ASSERT_EQ(i915_gem_object_migrate(target, I915_GEM_REGION_SMEM), 0);
	EXPECT_EQ(i915_gem_object_access(target, 8, &v, 4, false), 0);
	EXPECT_EQ(v, 0x77aa77);
	gem_fixture_fini(&fx);
}

KTEST(gem_execbuffer_hang_eio_then_recovers)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *hang = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_context *bad, *good;
	struct i915_exec_reloc rel = {
	    .target = 0, .offset = 4, .write_domain = I915_GEM_DOMAIN_RENDER};
	struct i915_exec_object objs[2];
	struct i915_execbuffer eb;
	struct dma_fence *fh;
	uint32_t cs[8] = {0}, v = 0;

	ASSERT_EQ(i915_context_create(i915, &bad), 0);
	ASSERT_EQ(i915_context_create(i915, &good), 0);
	/* A self-referencing loop: MI_BATCH_BUFFER_START back to itself. */
	i915_emit_bb_start(cs, 0);
	ASSERT_EQ(i915_gem_object_access(hang, 0, cs, sizeof(cs), true), 0);
	struct i915_exec_reloc loop = {.target = 0, .offset = 4};
	struct i915_exec_object ho = {.obj = hang, .relocs = &loop, .nreloc = 1};
	memset(&eb, 0, sizeof(eb));
	eb.objects = &ho;
	eb.count = 1;
	eb.ctx = bad;
	ASSERT_EQ(i915_gem_execbuffer(i915, &eb), 0);
	fh = eb.out_fence;

	write_reloc_batch(batch, 0x600d);
	memset(objs, 0, sizeof(objs));
	objs[0].obj = target;
	objs[1] = (struct i915_exec_object){.obj = batch, .relocs = &rel, .nreloc = 1};
	memset(&eb, 0, sizeof(eb));
	eb.objects = objs;
	eb.count = 2;
	eb.ctx = good;
	ASSERT_EQ(i915_gem_execbuffer(i915, &eb), 0);
	EXPECT_EQ(dma_fence_wait(fh, false), 0);
	EXPECT_EQ(dma_fence_get_status(fh), -EIO);
	EXPECT_EQ(i915_gem_object_wait(hang), -EIO);
	EXPECT_EQ(dma_fence_wait(eb.out_fence, false), 0);
	EXPECT_EQ(dma_fence_get_status(eb.out_fence), 1);
	EXPECT_EQ(i915_gem_object_access(target, 0, &v, 4, false), 0);
	EXPECT_EQ(v, 0x600d);
	EXPECT_EQ(atomic_load(&bad->guilty), 1);
	EXPECT_EQ(atomic_load(&good->guilty), 0);
	dma_fence_put(fh);
	dma_fence_put(eb.out_fence);
	i915_context_put(bad);
	i915_context_put(good);
	gem_fixture_fini(&fx);
}

struct ww_thread {
	struct i915_device *i915;
	struct i915_gem_object *a, *b, *batch;
	bool reverse;
	unsigned int iters;
	int errors;
};

/* Each batch stores into both shared objects; lists in opposite orders. */
static void *ww_thread_fn(void *arg)
{
	struct ww_thread *w = arg;
	uint32_t cs[16] = {0}, *p = cs;

	p = i915_emit_store_dword_imm(p, 0, 1);
	p = i915_emit_store_dword_imm(p, 0, 2);
	i915_emit_bb_end(p);
	if (i915_gem_object_access(w->batch, 0, cs, sizeof(cs), true))
		w->errors++;
	for (unsigned int i = 0; i < w->iters && !w->errors; i++) {
		struct i915_exec_reloc rel[2] = {
		    {.target = 0, .offset = 4, .write_domain = I915_GEM_DOMAIN_RENDER},
		    {.target = 1, .offset = 20, .write_domain = I915_GEM_DOMAIN_RENDER},
		};
		struct i915_exec_object objs[3] = {
		    {.obj = w->reverse ? w->b : w->a},
		    {.obj = w->reverse ? w->a : w->b},
		    {.obj = w->batch, .relocs = rel, .nreloc = 2},
		};

		if (gem_exec_wait(w->i915, objs, 3, NULL))
			w->errors++;
	}
	return NULL;
}

KTEST(gem_execbuffer_ww_backoff_two_threads)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *a = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *b = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct ww_thread w[2];
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		w[i] = (struct ww_thread){.i915 = i915,
					  .a = a,
					  .b = b,
					  .batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM),
					  .reverse = i == 1,
					  .iters = 300 * ktest_scale()};
	}
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, ww_thread_fn, &w[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(w[i].errors, 0);
	/* Both shared objects saw the batches' stores. */
	{
		uint32_t va = 0, vb = 0;

		EXPECT_EQ(i915_gem_object_access(a, 0, &va, 4, false), 0);
		EXPECT_EQ(i915_gem_object_access(b, 0, &vb, 4, false), 0);
		EXPECT_TRUE(va == 1 || va == 2);
		EXPECT_TRUE(vb == 1 || vb == 2);
	}
	gem_fixture_fini(&fx);
}

struct eb_thread {
	struct i915_device *i915;
	struct i915_exec_object objs[3];
	struct i915_exec_reloc rel[2];
	int ret;
};

static void *eb_thread_fn(void *arg)
{
	struct eb_thread *e = arg;

	e->ret = gem_exec_wait(e->i915, e->objs, 3, NULL);
	return NULL;
}

/*
 * An older transaction holds B; the execbuffer (younger) takes A, meets B,
 * must back off (dropping A) and wait; the older one then gets A too, which
 * would deadlock without the back-off.
 */
KTEST(gem_execbuffer_ww_backs_off_for_older_ticket)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *a = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *b = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct ww_acquire_ctx older;
	struct eb_thread e;
	uint32_t cs[16] = {0}, *p = cs, va = 0, vb = 0;
	pthread_t t;

	p = i915_emit_store_dword_imm(p, 0, 11);
	p = i915_emit_store_dword_imm(p, 0, 22);
	i915_emit_bb_end(p);
	ASSERT_EQ(i915_gem_object_access(batch, 0, cs, sizeof(cs), true), 0);

	ww_acquire_init(&older, &reservation_ww_class);
	ASSERT_EQ(ttm_bo_reserve(&b->base, false, false, &older), 0);
	memset(&e, 0, sizeof(e));
	e.i915 = i915;
	e.rel[0] = (struct i915_exec_reloc){
	    .target = 0, .offset = 4, .write_domain = I915_GEM_DOMAIN_RENDER};
	e.rel[1] = (struct i915_exec_reloc){
	    .target = 1, .offset = 20, .write_domain = I915_GEM_DOMAIN_RENDER};
	e.objs[0].obj = a;
	e.objs[1].obj = b;
	e.objs[2] = (struct i915_exec_object){.obj = batch, .relocs = e.rel, .nreloc = 2};
	ASSERT_EQ(pthread_create(&t, NULL, eb_thread_fn, &e), 0);
	for (int spin = 0; spin < 20000 && !atomic_load(&i915->gem_stats.eb_backoffs); spin++) {
		struct timespec ts = {0, 100000};

		nanosleep(&ts, NULL);
	}
	EXPECT_GE(atomic_load(&i915->gem_stats.eb_backoffs), 1);
	/* The older side completes its own set: A is free again. */
	EXPECT_EQ(ttm_bo_reserve(&a->base, false, false, &older), 0);
	ttm_bo_unreserve(&a->base);
	ttm_bo_unreserve(&b->base);
	ww_acquire_fini(&older);
	pthread_join(t, NULL);
	/* Submitted, and the batch ran without error. */
	EXPECT_EQ(e.ret, 0);
	EXPECT_EQ(i915_gem_object_access(a, 0, &va, 4, false), 0);
	EXPECT_EQ(i915_gem_object_access(b, 0, &vb, 4, false), 0);
	EXPECT_EQ(va, 11);
	EXPECT_EQ(vb, 22);
	gem_fixture_fini(&fx);
}

/* A TT object swapped out loses its PTEs; the next execbuffer rebinds it. */
KTEST(gem_execbuffer_rebinds_after_swapout)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *target = gem_fixture_obj(&fx, 8192, I915_GEM_REGION_SMEM);
	struct i915_gem_object *batch = gem_fixture_obj(&fx, 4096, I915_GEM_REGION_SMEM);
	struct ttm_operation_ctx ctx = {0};
	uint32_t v = 0;

	for (int round = 0; round < 2; round++) {
		struct i915_exec_reloc rel = {.target = 0,
					      .offset = 4,
					      .delta = 4096,
					      .write_domain = I915_GEM_DOMAIN_RENDER};
		struct i915_exec_object objs[2] = {
		    {.obj = target},
		    {.obj = batch, .relocs = &rel, .nreloc = 1},
		};

		write_reloc_batch(batch, 0x5000u + (uint32_t)round);
		ASSERT_EQ(gem_exec_wait(i915, objs, 2, NULL), 0);
		if (round == 0) {
			uint64_t first = target->base.resource->start;

			ASSERT_EQ(ttm_bo_reserve(&target->base, false, false, NULL), 0);
			EXPECT_GT(ttm_bo_swapout(&target->base, &ctx), 0);
			EXPECT_FALSE(target->ggtt_bound);
			EXPECT_UEQ(
			    sim_ggtt_read_pte(i915_device_sim(i915), first) & SIM_PTE_PRESENT, 0);
			ttm_bo_unreserve(&target->base);
		}
	}
	EXPECT_TRUE(target->ggtt_bound);
	EXPECT_EQ(i915_gem_object_access(target, 4096, &v, 4, false), 0);
	EXPECT_EQ(v, 0x5001);
	gem_fixture_fini(&fx);
}

/*
 * The blitter wedged: moves fall back to the CPU copy where the CPU reaches
 * both sides (lmem inside its visible window) and the content survives;
 * stolen memory, which only the GPU reaches, refuses the move and the
 * object keeps its content where it was. Unwedged, the blitter is used again.
 */
KTEST(gem_memcpy_fallback_when_blitter_wedged)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_engine *bcs;
	struct i915_gem_object *obj;
	size_t len = 64 << 10;
	uint8_t *buf = malloc(len);
	uint64_t sum;

	ASSERT_NOT_NULL(buf);
	bcs = i915_engine_get(i915, I915_ENGINE_BCS);
	obj = gem_fixture_obj(&fx, len, I915_GEM_REGION_SMEM);
	fill(buf, len, ktest_rand());
	sum = i915_test_checksum(buf, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, true), 0);

	i915_engine_set_wedged(bcs, true);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_LMEM), 0);
	EXPECT_EQ(i915_gem_object_mem_type(obj), TTM_PL_VRAM);
	EXPECT_GE(atomic_load(&i915->gem_stats.memcpy_moves), 1);
	EXPECT_EQ(atomic_load(&i915->gem_stats.blit_moves), 0);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM), 0);
	EXPECT_EQ(i915_gem_object_mem_type(obj), TTM_PL_SYSTEM);
	memset(buf, 0, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, false), 0);
	EXPECT_UEQ(i915_test_checksum(buf, len), sum);

	/* Stolen: no CPU path, so no move, and nothing lost. */
	EXPECT_NE(i915_gem_object_migrate(obj, I915_GEM_REGION_STOLEN), 0);
	EXPECT_NE(i915_gem_object_mem_type(obj), I915_PL_STOLEN);
	memset(buf, 0, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, false), 0);
	EXPECT_UEQ(i915_test_checksum(buf, len), sum);
	EXPECT_EQ(atomic_load(&i915->gem_stats.blit_moves), 0);

	i915_engine_set_wedged(bcs, false);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_STOLEN), 0);
	EXPECT_GE(atomic_load(&i915->gem_stats.blit_moves), 1);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM), 0);
	memset(buf, 0, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, false), 0);
	EXPECT_UEQ(i915_test_checksum(buf, len), sum);
	free(buf);
	gem_fixture_fini(&fx);
}

/*
 * With the blitter wedged, objects in stolen memory cannot leave (no CPU
 * path), so eviction_valuable keeps them out of the victims: a new stolen
 * object fails with -ENOMEM without an eviction being tried, and every
 * resident object stays put; once the blitter is back, eviction works.
 */
KTEST(gem_eviction_valuable_skips_stolen_when_blitter_wedged)
{
	struct gem_fixture fx;
	struct i915_device *i915 = gem_fixture_init(&fx, 0);
	struct i915_gem_object *objs[16], *extra = NULL;
	const uint64_t sz = 1ull << 20;
	struct ttm_resource_manager *man;
	struct i915_engine *bcs;
	uint64_t evictions;
	unsigned n = 0;

	bcs = i915_engine_get(i915, I915_ENGINE_BCS);
	man = ttm_manager_type(&i915->drm.bdev, I915_PL_STOLEN);
	ASSERT_NOT_NULL(man);
	/* Fill stolen memory without evicting anything. */
	while (n < 16 && ttm_resource_manager_usage(man) + sz <= man->size * TTM_PAGE_SIZE)
		objs[n++] = gem_fixture_obj(&fx, sz, I915_GEM_REGION_STOLEN);
	ASSERT_GE(n, 2);
	ASSERT_LT(n, 16);
	i915_engine_set_wedged(bcs, true);
	evictions = atomic_load(&i915->drm.bdev.stats.evictions);
	EXPECT_EQ(i915_gem_object_create(i915, sz, I915_GEM_REGION_STOLEN, &extra), -ENOMEM);
	EXPECT_UEQ(atomic_load(&i915->drm.bdev.stats.evictions), evictions);
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(i915_gem_object_mem_type(objs[i]), I915_PL_STOLEN);
	i915_engine_set_wedged(bcs, false);
	gem_fixture_obj(&fx, sz, I915_GEM_REGION_STOLEN);
	EXPECT_GT(atomic_load(&i915->drm.bdev.stats.evictions), evictions);
	gem_fixture_fini(&fx);
}

/*
 * An object in lmem above the CPU-visible window (the window is held by
 * another object), filled by the blitter's migration, mapped for the CPU
 * with the GGTT (TT) as its CPU placement: the first touch migrates it with
 * a pipelined blit and must read what the blit wrote, not the new pages
 * before the copy. Every later page reads the same data.
 */
KTEST(gem_object_mmap_lmem_above_window_first_touch_reads_blit)
{
	const struct ttm_place tt = {.mem_type = TTM_PL_TT};
	const struct ttm_placement cpu = {1, &tt};
	const size_t len = 64 * TTM_PAGE_SIZE;
	struct ttm_operation_ctx ctx = {0};
	struct i915_gem_object *filler, *obj;
	struct sim_gpu_config cfg;
	struct gem_fixture fx;
	unsigned char *buf, *first, *p;
	struct i915_device *i915;
	uint64_t sum;
	int ret;

	i915_test_config(&cfg);
	/*
	 * A slow command streamer (2 ms before each command runs) widens the
	 * window in which a fault that did not wait would read the copy's
	 * target before the blit reached it; a correct fault passes at any
	 * speed.
	 */
	cfg.latency.cmd_ns = 2000000;
	memset(&fx, 0, sizeof(fx));
	ASSERT_EQ(i915_device_create_sim(&cfg, &fx.i915), 0);
	i915 = fx.i915;
	ret = i915_gem_init(i915);
	if (ret)
		i915_device_destroy(i915);
	ASSERT_EQ(ret, 0);
	filler = gem_fixture_obj(&fx, cfg.lmem_visible_size, I915_GEM_REGION_LMEM);
	EXPECT_UEQ(filler->base.resource->start, 0);
	buf = malloc(len);
	first = malloc(TTM_PAGE_SIZE);
	ASSERT_NOT_NULL(buf);
	ASSERT_NOT_NULL(first);
	obj = gem_fixture_obj(&fx, len, I915_GEM_REGION_SMEM);
	fill(buf, len, ktest_rand());
	sum = i915_test_checksum(buf, len);
	ASSERT_EQ(i915_gem_object_access(obj, 0, buf, len, true), 0);
	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_LMEM), 0);
	ASSERT_EQ(i915_gem_object_mem_type(obj), TTM_PL_VRAM);
	EXPECT_UGE(obj->base.resource->start << TTM_PAGE_SHIFT, cfg.lmem_visible_size);
	/* The CPU sees the pages only after the GPU finished writing them. */
	ASSERT_EQ(i915_gem_object_wait(obj), 0);

	ASSERT_EQ(ttm_bo_mmap(&obj->base, &cpu, &ctx, (void **)&p), 0);
	memcpy(first, p + 5 * TTM_PAGE_SIZE, TTM_PAGE_SIZE);
	EXPECT_EQ(memcmp(first, buf + 5 * TTM_PAGE_SIZE, TTM_PAGE_SIZE), 0);
	EXPECT_UEQ(i915_test_checksum(p, len), sum);
	/* The fault may have run on the fault engine's thread: read under the reservation. */
	ASSERT_EQ(ttm_bo_reserve(&obj->base, false, false, NULL), 0);
	EXPECT_EQ(obj->base.resource->mem_type, TTM_PL_TT);
	ttm_bo_unreserve(&obj->base);
	EXPECT_GE(atomic_load(&i915->gem_stats.blit_moves), 2);
	EXPECT_EQ(atomic_load(&i915->gem_stats.memcpy_moves), 0);
	EXPECT_EQ(ttm_bo_munmap(&obj->base), 0);
	ttm_bo_vm_release(&obj->base);
	free(first);
	free(buf);
	gem_fixture_fini(&fx);
}

/* --- the driver's fault points --- */

static unsigned int gem_region_mem_type(enum i915_gem_region region)
{
	switch (region) {
	case I915_GEM_REGION_LMEM:
		return TTM_PL_VRAM;
	case I915_GEM_REGION_STOLEN:
		return I915_PL_STOLEN;
	default:
		return TTM_PL_SYSTEM;
	}
}

/*
 * A refused object allocation (obj_alloc) fails the create with -ENOMEM
 * before anything exists: no object comes back, the device counts no new
 * BO and no memory type or GGTT range is held for it; the same call then
 * succeeds. In each region (the region is checked before the allocation).
 */
KTEST(gem_object_create_alloc_failure_enomem)
{
	static const enum i915_gem_region regions[] = {I915_GEM_REGION_SMEM, I915_GEM_REGION_LMEM,
						       I915_GEM_REGION_STOLEN};
	struct ttm_resource_manager *ggtt;
	struct gem_fixture fx;
	struct i915_device *i915;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	i915 = gem_fixture_init(&fx, 0);
	ggtt = i915_ggtt_manager(&i915->ggtt);
	for (unsigned int r = 0; r < sizeof(regions) / sizeof(regions[0]); r++) {
		unsigned int mem_type = gem_region_mem_type(regions[r]);
		struct ttm_resource_manager *man = ttm_manager_type(&i915->drm.bdev, mem_type);
		uint64_t bos = atomic_load(&i915->drm.bdev.stats.bo_count);
		uint64_t used = ttm_resource_manager_usage(man);
		uint64_t ggtt_used = ttm_resource_manager_usage(ggtt);
		struct i915_gem_object *obj = NULL;
		int ret;

		i915_test_fail_next(&i915_fault_obj_alloc);
		ret = i915_gem_object_create(i915, 8192, regions[r], &obj);
		EXPECT_TRUE(i915_test_fault_fired());
		EXPECT_EQ(ret, -ENOMEM);
		EXPECT_NULL(obj);
		EXPECT_UEQ(atomic_load(&i915->drm.bdev.stats.bo_count), bos);
		EXPECT_UEQ(ttm_resource_manager_usage(man), used);
		EXPECT_UEQ(ttm_resource_manager_usage(ggtt), ggtt_used);

		obj = gem_fixture_obj(&fx, 8192, regions[r]);
		EXPECT_EQ(i915_gem_object_mem_type(obj), mem_type);
		EXPECT_UEQ(atomic_load(&i915->drm.bdev.stats.bo_count), bos + 1);
	}
	gem_fixture_fini(&fx);
}

/*
 * An lmem object leaving for system memory needs a ttm_tt for its TT hop;
 * with that refused (tt_create) the migration says -ENOMEM and the object
 * is as it was: in lmem, no tt, no GGTT range taken, content intact. The
 * retry moves it by blitter with the content whole.
 */
KTEST(gem_object_migrate_tt_create_failure_keeps_object)
{
	struct ttm_resource_manager *ggtt;
	struct i915_gem_object *obj;
	struct gem_fixture fx;
	struct i915_device *i915;
	uint64_t sum, ggtt_used;
	int ret;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	i915 = gem_fixture_init(&fx, 0);
	ggtt = i915_ggtt_manager(&i915->ggtt);
	obj = gem_fixture_obj(&fx, 16 * TTM_PAGE_SIZE, I915_GEM_REGION_LMEM);
	sum = gem_fill(obj, ktest_rand());
	EXPECT_NULL(obj->base.ttm);
	ggtt_used = ttm_resource_manager_usage(ggtt);

	i915_test_fail_next(&i915_fault_tt_create);
	ret = i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM);
	EXPECT_TRUE(i915_test_fault_fired());
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_EQ(i915_gem_object_mem_type(obj), TTM_PL_VRAM);
	EXPECT_NULL(obj->base.ttm);
	EXPECT_UEQ(ttm_resource_manager_usage(ggtt), ggtt_used);
	EXPECT_TRUE(gem_unreserved(obj));
	EXPECT_UEQ(gem_checksum(obj), sum);

	ASSERT_EQ(i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM), 0);
	EXPECT_EQ(i915_gem_object_mem_type(obj), TTM_PL_SYSTEM);
	EXPECT_GE(atomic_load(&i915->gem_stats.blit_moves), 1);
	EXPECT_UEQ(gem_checksum(obj), sum);
	gem_fixture_fini(&fx);
}
