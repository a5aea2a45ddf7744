// SPDX-License-Identifier: MIT
/*
 * fuzz-execbuf - libFuzzer target for i915_gem_execbuffer()'s argument
 * checking, reservation, relocation and softpin paths.
 *
 * One synchronous simulated device and a pool of objects (system and local
 * memory, some small enough to share pages of the aperture) live for the
 * whole run; creating a device per input would leave the fuzzer measuring
 * device setup. Each input is a program of execbuffers: every call picks
 * 1..6 objects from the pool (duplicates allowed, so the duplicate check is
 * reached), object flags and softpin offsets, relocation lists with targets,
 * offsets, deltas, presumed offsets and domains, batch start and length,
 * execbuffer flags and a context, each field either a well-formed value or
 * raw fuzzer bytes. Every pool object is refilled with MI_BATCH_BUFFER_END
 * before each call, so whatever object ends up as the batch, and wherever
 * in it the batch starts, it ends at once unless a relocation patched it.
 *
 * Properties: the call returns 0 (with a fence, which signals, possibly
 * with -EIO when a relocation turned the batch into garbage) or one of the
 * documented errnos (with no fence); arguments that are wrong on their face
 * (unknown flag bits, a duplicated object, a relocation target outside the
 * list) are always -EINVAL (or -ENOMEM when a fault fired before the check);
 * afterwards no pool object is left reserved or pinned; the device tears down
 * at exit with nothing alive. One call in four runs with this thread's Nth
 * fault-point hit failing (fail-nth, N from the input), so the error paths
 * of reservation, relocation and submission unwind under the same checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <fault_inject.h>
#include <i915/i915_cmds.h>
#include <i915/i915_drv.h>
#include <i915/i915_engine.h>
#include <i915/i915_gem.h>
#include <ttm/dma_fence.h>

#include "fuzz_input.h"

#define POOL 6
#define MAX_OBJECTS 6
#define MAX_RELOCS 4
#define MAX_CALLS 8

static const struct {
	uint64_t size;
	enum i915_gem_region region;
} fz_pool_desc[POOL] = {
    {4096, I915_GEM_REGION_SMEM},  {4096, I915_GEM_REGION_SMEM},  {8192, I915_GEM_REGION_SMEM},
    {16384, I915_GEM_REGION_SMEM}, {65536, I915_GEM_REGION_SMEM}, {8192, I915_GEM_REGION_LMEM},
};

static struct i915_device *fz_i915;
static struct i915_context *fz_ctx;
static struct i915_gem_object *fz_pool[POOL];
static uint32_t *fz_fill;
/* Outcomes over the run, printed at exit: how deep the inputs got. */
static unsigned long fz_ok, fz_eio_fences, fz_einval, fz_other, fz_faults;

static void fz_teardown(void)
{
	for (int i = 0; i < POOL; i++)
		i915_gem_object_put(fz_pool[i]);
	i915_context_put(fz_ctx);
	fuzz_check(i915_gem_fini(fz_i915) == 0);
	fuzz_check(i915_device_destroy(fz_i915) == 0);
	free(fz_fill);
	/* Only a run that executed inputs has outcomes to tell (a refused
	 * command line keeps libFuzzer's one error line alone). */
	if (fz_ok + fz_einval + fz_other)
		fprintf(stderr,
			"fuzz-execbuf: %lu execbuffers submitted (%lu fences -EIO), %lu refused "
			"-EINVAL, %lu refused otherwise, %lu with an injected fault\n",
			fz_ok, fz_eio_fences, fz_einval, fz_other, fz_faults);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct i915_device_config cfg;

	fuzz_check_flags(*argc, *argv);
	i915_device_config_init(&cfg, I915_BACKEND_SIM);
	cfg.ggtt_size = 64ull << 20;
	cfg.aperture_size = 256ull << 10; /* a few pool objects fill it: eviction paths */
	cfg.stolen_size = 1ull << 20;
	cfg.lmem_size = 4ull << 20;
	cfg.lmem_visible_size = 1ull << 20;
	cfg.hangcheck_ms = 20; /* a patched batch that loops ends quickly */
	cfg.synchronous = true;
	fuzz_check(i915_device_create(&cfg, &fz_i915) == 0);
	fuzz_check(i915_gem_init(fz_i915) == 0);
	fuzz_check(i915_context_create(fz_i915, &fz_ctx) == 0);
	fz_fill = malloc(65536);
	fuzz_check(fz_fill);
	for (size_t i = 0; i < 65536 / 4; i++)
		fz_fill[i] = MI_BATCH_BUFFER_END;
	for (int i = 0; i < POOL; i++)
		fuzz_check(i915_gem_object_create(fz_i915, fz_pool_desc[i].size,
						  fz_pool_desc[i].region, &fz_pool[i]) == 0);
	atexit(fz_teardown);
	return 0;
}

/* A well-formed value most of the time, raw bytes otherwise. */
static uint64_t fz_offset(struct fuzz_input *in, uint64_t limit)
{
	switch (fuzz_u8(in) & 3) {
	case 0:
		return 0;
	case 1:
		return (fuzz_u16(in) % (limit / 4096 + 1)) * 4096;
	case 2:
		return (uint64_t)fuzz_u16(in) * 4;
	default:
		return fuzz_u64(in);
	}
}

static uint32_t fz_domain(struct fuzz_input *in)
{
	static const uint32_t d[] = {0, I915_GEM_DOMAIN_RENDER, I915_GEM_DOMAIN_INSTRUCTION,
				     I915_GEM_DOMAIN_GTT};
	uint8_t b = fuzz_u8(in);

	return b < 0xf0 ? d[b & 3] : (uint32_t)fuzz_u64(in);
}

static bool fz_errno_ok(int ret)
{
	return ret == -EINVAL || ret == -ENOSPC || ret == -ENOMEM || ret == -EINTR || ret == -EIO;
}

/* Does relocation @r of @o share a byte with another one of @o? */
static bool fz_reloc_overlaps(const struct i915_exec_object *o, unsigned r)
{
	for (unsigned q = 0; q < o->nreloc; q++)
		if (q != r && o->relocs[q].offset < o->relocs[r].offset + 8 &&
		    o->relocs[r].offset < o->relocs[q].offset + 8)
			return true;
	return false;
}

/*
 * After a batch that completed: each relocation reports its target's
 * address in presumed_offset, and its 8 bytes hold that address plus delta,
 * or, when the caller's presumed offset was already right, the fill. Unless
 * a relocation landed on the batch's first command, the batch ran one
 * MI_BATCH_BUFFER_END and stored nothing, so the relocations are the only
 * writers; overlapping ones are not checked.
 */
static void fz_check_relocs(const struct i915_execbuffer *eb,
			    const uint64_t presumed[MAX_OBJECTS][MAX_RELOCS])
{
	const uint64_t fill = (uint64_t)MI_BATCH_BUFFER_END << 32 | MI_BATCH_BUFFER_END;
	const struct i915_exec_object *batch =
	    &eb->objects[eb->flags & I915_EXEC_BATCH_FIRST ? 0 : eb->count - 1];

	/* A relocation over the first command: the batch ran what it wrote. */
	for (unsigned r = 0; r < batch->nreloc; r++)
		if (batch->relocs[r].offset < (uint64_t)eb->batch_start_offset + 4 &&
		    eb->batch_start_offset < batch->relocs[r].offset + 8)
			return;

	for (unsigned i = 0; i < eb->count; i++) {
		const struct i915_exec_object *o = &eb->objects[i];

		for (unsigned r = 0; r < o->nreloc; r++) {
			const struct i915_exec_reloc *rl = &o->relocs[r];
			uint64_t v = 0;

			fuzz_check(rl->presumed_offset == eb->objects[rl->target].offset);
			if (fz_reloc_overlaps(o, r))
				continue;
			fuzz_check(i915_gem_object_access(o->obj, rl->offset, &v, 8, false) == 0);
			if (presumed[i][r] == rl->presumed_offset)
				fuzz_check(v == fill);
			else
				fuzz_check(v == rl->presumed_offset + rl->delta);
		}
	}
}

static void fz_call(struct fuzz_input *in)
{
	struct i915_exec_reloc relocs[MAX_OBJECTS][MAX_RELOCS];
	struct i915_exec_object objs[MAX_OBJECTS];
	struct i915_execbuffer eb;
	unsigned idx[MAX_OBJECTS];
	uint64_t presumed[MAX_OBJECTS][MAX_RELOCS];
	bool must_fail = false;
	unsigned long nth;
	bool faulted;
	uint8_t b;
	int ret;

	memset(objs, 0, sizeof(objs));
	memset(relocs, 0, sizeof(relocs));
	memset(&eb, 0, sizeof(eb));
	eb.count = 1 + fuzz_u8(in) % MAX_OBJECTS;
	for (unsigned i = 0; i < eb.count; i++) {
		struct i915_exec_object *o = &objs[i];

		idx[i] = fuzz_u8(in) % POOL;
		for (unsigned j = 0; j < i; j++)
			must_fail |= idx[j] == idx[i];
		o->obj = fz_pool[idx[i]];
		b = fuzz_u8(in);
		o->flags = b < 0xf8 ? b & EXEC_OBJECT_FLAGS_MASK : (uint32_t)fuzz_u64(in);
		must_fail |= (o->flags & ~EXEC_OBJECT_FLAGS_MASK) != 0;
		o->offset = fz_offset(in, 64ull << 20);
		o->nreloc = fuzz_u8(in) % (MAX_RELOCS + 1);
		o->relocs = o->nreloc ? relocs[i] : NULL;
		for (unsigned r = 0; r < o->nreloc; r++) {
			struct i915_exec_reloc *rl = &relocs[i][r];

			b = fuzz_u8(in);
			rl->target = b < 0xf0 ? b % eb.count : (uint32_t)fuzz_u64(in);
			must_fail |= rl->target >= eb.count;
			rl->delta = fuzz_u8(in) & 1 ? (uint32_t)fuzz_u64(in) : fuzz_u16(in);
			rl->offset = fz_offset(in, fz_pool_desc[idx[i]].size);
			rl->presumed_offset = fz_offset(in, 64ull << 20);
			rl->read_domains = fz_domain(in);
			rl->write_domain = fz_domain(in);
			presumed[i][r] = rl->presumed_offset;
		}
	}
	b = fuzz_u8(in);
	switch (b & 7) {
	case 0:
		break;
	case 1:
		eb.flags = I915_EXEC_BLT;
		break;
	case 2:
		eb.flags = I915_EXEC_BATCH_FIRST;
		break;
	case 3:
		eb.flags = I915_EXEC_NO_RELOC | I915_EXEC_HANDLE_LUT;
		break;
	case 4:
		eb.flags = (uint32_t)fuzz_u64(in);
		break;
	default:
		eb.flags = I915_EXEC_RENDER;
		break;
	}
	must_fail |= (eb.flags & ~I915_EXEC_FLAGS_MASK) != 0;
	eb.batch_start_offset = b & 0x80 ? (uint32_t)fuzz_u64(in) : (uint32_t)fuzz_u8(in) * 8;
	eb.batch_len = b & 0x40 ? (uint32_t)fuzz_u64(in) : (uint32_t)(fuzz_u8(in) & 3) * 1024;
	eb.ctx = b & 0x20 ? fz_ctx : NULL;
	eb.objects = objs;

	for (int i = 0; i < POOL; i++)
		fuzz_check(i915_gem_object_access(fz_pool[i], 0, fz_fill, fz_pool_desc[i].size,
						  true) == 0);
	/* One call in four fails its Nth allocation or I/O point (this thread's). */
	b = fuzz_u8(in);
	nth = b >= 0xc0 ? 1 + b % 48 : 0; /* 0 once the input is used up: no fault */
	fault_thread_fail_nth(NULL, nth);
	ret = i915_gem_execbuffer(fz_i915, &eb);
	faulted = nth && !fault_thread_nth_pending();
	fault_thread_fail_nth(NULL, 0);
	fz_faults += faulted;
	if (ret == 0) {
		fuzz_check(!must_fail);
		fuzz_check(eb.out_fence);
		fuzz_check(dma_fence_wait(eb.out_fence, false) == 0);
		fuzz_check(dma_fence_get_status(eb.out_fence) == 1 ||
			   dma_fence_get_status(eb.out_fence) == -EIO);
		fz_ok++;
		if (dma_fence_get_status(eb.out_fence) == -EIO)
			fz_eio_fences++;
		else
			fz_check_relocs(&eb, presumed);
		dma_fence_put(eb.out_fence);
	} else {
		fuzz_check(fz_errno_ok(ret));
		fuzz_check(!eb.out_fence);
		if (ret == -EINVAL)
			fz_einval++;
		else
			fz_other++;
		/* An injected failure may come before the argument checks. */
		if (must_fail)
			fuzz_check(ret == -EINVAL || (faulted && ret == -ENOMEM));
	}
	/* Nothing left reserved or pinned, whatever the outcome. */
	for (int i = 0; i < POOL; i++) {
		struct ttm_buffer_object *bo = &fz_pool[i]->base;

		fuzz_check(ttm_bo_reserve(bo, false, true, NULL) == 0);
		fuzz_check(bo->pin_count == 0);
		ttm_bo_unreserve(bo);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;

	fuzz_input_init(&in, data, size);
	for (int i = 0; i < MAX_CALLS && !fuzz_input_done(&in); i++)
		fz_call(&in);
	/* Every object idle again, so the next input starts from quiet memory. */
	for (int i = 0; i < POOL; i++) {
		int ret = i915_gem_object_wait(fz_pool[i]);

		fuzz_check(ret == 0 || ret == -EIO);
	}
	return 0;
}
