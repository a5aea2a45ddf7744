// SPDX-License-Identifier: MIT
/*
 * gem_execbuf: DRM_IOCTL_I915_GEM_EXECBUFFER2(_WR), checked in the order
 * and with the errno of gem/i915_gem_execbuffer.c, translated into struct
 * i915_execbuffer and run by i915_gem_execbuffer(), which reserves and
 * validates every object under one ww ticket and leaves nothing changed
 * on failure. The exec object list and every relocation array are copied
 * in through the checked user copy; offsets go back only after success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "gem_priv.h"

#define GEM_EB_MAX_BUFFERS (1u << 20)
#define GEM_EB_MAX_RELOCS (1u << 24)

/* Exec object flags of the uAPI (the core spells only some of them). */
#define GEM_EO_NEEDS_FENCE (1u << 0)
#define GEM_EO_NEEDS_GTT (1u << 1)
#define GEM_EO_WRITE (1u << 2)
#define GEM_EO_48B (1u << 3)
#define GEM_EO_PINNED (1u << 4)
#define GEM_EO_PAD_TO_SIZE (1u << 5)
#define GEM_EO_ASYNC (1u << 6)
#define GEM_EO_CAPTURE (1u << 7)
#define GEM_EO_KNOWN ((GEM_EO_CAPTURE << 1) - 1)

#define GEM_EXEC_SECURE (1u << 9)
#define GEM_EXEC_BSD_MASK (3u << 13)
#define GEM_EXEC_FENCE_IN (1u << 16)
#define GEM_EXEC_FENCE_OUT (1u << 17)
#define GEM_EXEC_FENCE_ARRAY (1u << 19)
#define GEM_EXEC_FENCE_SUBMIT (1u << 20)
#define GEM_EXEC_USE_EXTENSIONS (1u << 21)
#define GEM_EXEC_KNOWN ((GEM_EXEC_USE_EXTENSIONS << 1) - 1)

/* The kernel's user_ring_map[] over this part's engines. */
static int gem_eb_legacy_engine(uint64_t flags, enum i915_engine_id *id)
{
	uint32_t ring = (uint32_t)(flags & I915_EXEC_RING_MASK);

	if (ring != 2 && (flags & GEM_EXEC_BSD_MASK))
		return -EINVAL;
	switch (ring) {
	case 0: /* I915_EXEC_DEFAULT */
	case I915_EXEC_RENDER:
		*id = I915_ENGINE_RCS;
		return 0;
	case I915_EXEC_BLT:
		*id = I915_ENGINE_BCS;
		return 0;
	}
	return -EINVAL; /* BSD, VEBOX: no such engine here; others unknown */
}

static int gem_eb_engine(const struct gem_ctx *ctx, uint64_t flags, enum i915_engine_id *id)
{
	uint32_t idx = (uint32_t)(flags & I915_EXEC_RING_MASK), slot;

	if (!ctx->nengines)
		return gem_eb_legacy_engine(flags, id);
	if (idx >= ctx->nengines || ctx->engines[idx] == ~0u)
		return -EINVAL;
	slot = ctx->engines[idx];
	for (unsigned int e = 0; e < GEM_NUM_UABI_ENGINES; e++) {
		if (gem_uabi_engines[e].class == slot >> 16 &&
		    gem_uabi_engines[e].instance == (slot & 0xffff)) {
			*id = gem_uabi_engines[e].id;
			return 0;
		}
	}
	return -EINVAL;
}

struct gem_eb {
	struct i915_execbuffer eb;
	struct drm_i915_gem_exec_object2 *uobjs;
	struct gem_obj **objs;
	struct i915_exec_reloc *relocs;
	uint64_t nrelocs;
	struct i915_context *hw;
};

static void gem_eb_fini(struct gem_eb *e)
{
	for (uint32_t i = 0; e->objs && i < e->eb.count; i++)
		gem_obj_put(e->objs[i]);
	free(e->objs);
	free(e->eb.objects);
	free(e->uobjs);
	free(e->relocs);
	i915_context_put(e->hw);
}

/* Relocations of every object, converted to list indices. */
static int gem_eb_relocs(struct i915_gem_file *file, struct gem_eb *e, uint64_t flags)
{
	uint32_t n = e->eb.count;
	uint64_t at = 0;

	for (uint32_t i = 0; i < n; i++)
		e->nrelocs += e->uobjs[i].relocation_count;
	if (!e->nrelocs)
		return 0;
	if (!file->dev->info->has_relocs)
		return -EINVAL; /* no relocations after Tiger Lake */
	if (e->nrelocs > GEM_EB_MAX_RELOCS)
		return -EINVAL;
	e->relocs = calloc(e->nrelocs, sizeof(*e->relocs));
	if (!e->relocs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e->uobjs[i];
		struct i915_exec_object *eo = &e->eb.objects[i];

		eo->relocs = o->relocation_count ? e->relocs + at : NULL;
		eo->nreloc = o->relocation_count;
		for (uint32_t r = 0; r < o->relocation_count; r++) {
			struct drm_i915_gem_relocation_entry re;
			uint32_t target = UINT32_MAX;

			if (gem_copy_from_user(&re, o->relocs_ptr + (uint64_t)r * sizeof(re),
					       sizeof(re)))
				return -EFAULT;
			if (flags & I915_EXEC_HANDLE_LUT) {
				if (re.target_handle >= n)
					return -ENOENT;
				target = re.target_handle;
			} else {
				for (uint32_t j = 0; j < n && target == UINT32_MAX; j++)
					if (e->uobjs[j].handle == re.target_handle)
						target = j;
				if (target == UINT32_MAX)
					return -ENOENT;
			}
			if (re.write_domain & (re.write_domain - 1))
				return -EINVAL;
			if ((re.read_domains | re.write_domain) & ~(uint32_t)I915_GEM_DOMAIN_MASK)
				return -EINVAL;
			if ((re.offset & 3) || re.offset > e->objs[i]->size - 8)
				return -EINVAL;
			e->relocs[at + r] = (struct i915_exec_reloc){
			    .target = target,
			    .delta = re.delta,
			    .offset = re.offset,
			    .presumed_offset = re.presumed_offset,
			    .read_domains = re.read_domains,
			    .write_domain = re.write_domain,
			};
		}
		at += o->relocation_count;
	}
	return 0;
}

/* After success: presumed offsets and object offsets back to the caller. */
static void gem_eb_write_back(struct gem_eb *e)
{
	uint64_t at = 0;

	for (uint32_t i = 0; i < e->eb.count; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e->uobjs[i];
		for (uint32_t r = 0; r < o->relocation_count; r++) {
			uint64_t p = e->relocs[at + r].presumed_offset;

			gem_copy_to_user(o->relocs_ptr + (uint64_t)r * sizeof(struct drm_i915_gem_relocation_entry) +
					     offsetof(struct drm_i915_gem_relocation_entry, presumed_offset),
					 &p, sizeof(p));
		}
		at += o->relocation_count;
	}
}

int gem_execbuffer2_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_execbuffer2 *args = data;
	uint32_t n = args->buffer_count, batch;
	enum i915_engine_id engine;
	struct gem_eb e;
	struct gem_ctx ctx;
	int ret;

	memset(&e, 0, sizeof(e));
	if (n < 1 || n > GEM_EB_MAX_BUFFERS)
		return -EINVAL;
	if (args->flags & ~(uint64_t)GEM_EXEC_KNOWN)
		return -EINVAL;
	if (!(args->flags & (GEM_EXEC_FENCE_ARRAY | GEM_EXEC_USE_EXTENSIONS)) &&
	    (args->num_cliprects || args->cliprects_ptr))
		return -EINVAL;
	if (args->DR4 == 0xffffffff)
		args->DR4 = 0;
	if (args->DR1 || args->DR4)
		return -EINVAL;
	if ((args->batch_start_offset | args->batch_len) & 7)
		return -EINVAL;
	e.uobjs = calloc(n, sizeof(*e.uobjs));
	if (!e.uobjs)
		return -ENOMEM;
	ret = gem_copy_from_user(e.uobjs, args->buffers_ptr, (size_t)n * sizeof(*e.uobjs));
	if (ret)
		goto out;
	if (args->flags & GEM_EXEC_SECURE) {
		ret = -ENODEV; /* secure batches are gone since gen11 */
		goto out;
	}
	/* In, out and array fences need sync_file and syncobj support. */
	if (args->flags & (GEM_EXEC_FENCE_IN | GEM_EXEC_FENCE_SUBMIT | GEM_EXEC_FENCE_ARRAY |
			   GEM_EXEC_USE_EXTENSIONS | GEM_EXEC_FENCE_OUT)) {
		if ((args->flags & (GEM_EXEC_FENCE_IN | GEM_EXEC_FENCE_SUBMIT)) ==
		    (GEM_EXEC_FENCE_IN | GEM_EXEC_FENCE_SUBMIT))
			ret = -EINVAL;
		else
			ret = -EOPNOTSUPP;
		goto out;
	}
	e.hw = gem_context_lookup(file, (uint32_t)args->rsvd1, &ctx);
	if (!e.hw) {
		ret = -ENOENT;
		goto out;
	}
	ret = gem_eb_engine(&ctx, args->flags, &engine);
	if (ret)
		goto out;
	ret = -ENOMEM;
	e.eb.objects = calloc(n, sizeof(*e.eb.objects));
	e.objs = calloc(n, sizeof(*e.objs));
	if (!e.eb.objects || !e.objs)
		goto out;
	e.eb.count = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e.uobjs[i];
		struct i915_exec_object *eo = &e.eb.objects[i];

		e.objs[i] = gem_lookup(file, o->handle);
		if (!e.objs[i]) {
			ret = -ENOENT;
			goto out;
		}
		ret = -EINVAL;
		if (o->relocation_count && !file->dev->info->has_relocs)
			goto out;
		if (o->flags & ~(uint64_t)GEM_EO_KNOWN)
			goto out;
		if (o->alignment && (o->alignment & (o->alignment - 1)))
			goto out;
		if ((o->flags & GEM_EO_PINNED) && (o->offset & (TTM_PAGE_SIZE - 1)))
			goto out;
		if ((o->flags & GEM_EO_PAD_TO_SIZE) ? (o->pad_to_size & (TTM_PAGE_SIZE - 1))
						    : o->pad_to_size)
			goto out;
		for (uint32_t j = 0; j < i; j++)
			if (e.objs[j] == e.objs[i])
				goto out; /* the same object twice */
		if (e.objs[i]->madv != I915_MADV_WILLNEED) {
			ret = -EFAULT; /* a purgeable object has no pages to give */
			goto out;
		}
		eo->obj = e.objs[i]->bo;
		eo->offset = o->offset;
		if (o->flags & GEM_EO_WRITE)
			eo->flags |= EXEC_OBJECT_WRITE;
		if (o->flags & GEM_EO_PINNED)
			eo->flags |= EXEC_OBJECT_PINNED;
		if ((o->flags & GEM_EO_NEEDS_GTT) && file->dev->info->has_aperture)
			eo->flags |= EXEC_OBJECT_NEEDS_MAPPABLE;
	}
	batch = (args->flags & I915_EXEC_BATCH_FIRST) ? 0 : n - 1;
	ret = -EINVAL;
	if (e.uobjs[batch].flags & GEM_EO_WRITE)
		goto out; /* self-modifying batch */
	if (args->batch_start_offset > e.objs[batch]->size ||
	    args->batch_len > e.objs[batch]->size - args->batch_start_offset ||
	    args->batch_start_offset == e.objs[batch]->size)
		goto out;
	ret = gem_eb_relocs(file, &e, args->flags);
	if (ret)
		goto out;
	e.eb.batch_start_offset = args->batch_start_offset;
	e.eb.batch_len = args->batch_len;
	e.eb.flags = (uint32_t)(args->flags & (I915_EXEC_NO_RELOC | I915_EXEC_HANDLE_LUT |
					      I915_EXEC_BATCH_FIRST));
	e.eb.flags |= engine == I915_ENGINE_BCS ? I915_EXEC_BLT : I915_EXEC_RENDER;
	e.eb.ctx = e.hw;
	ret = i915_gem_execbuffer(file->dev->i915, &e.eb);
	if (ret)
		goto out;
	/* Remembered for THROTTLE; the oldest slot makes room. */
	pthread_mutex_lock(&file->lock);
	dma_fence_put(file->recent[file->recent_next]);
	file->recent[file->recent_next] = e.eb.out_fence;
	file->recent_ns[file->recent_next] = dma_fence_now_ns();
	file->recent_next = (file->recent_next + 1) % GEM_THROTTLE_SLOTS;
	pthread_mutex_unlock(&file->lock);
	gem_eb_write_back(&e);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t off = e.eb.objects[i].offset;

		if (off == e.uobjs[i].offset)
			continue;
		if (gem_copy_to_user(args->buffers_ptr + (uint64_t)i * sizeof(*e.uobjs) +
					 offsetof(struct drm_i915_gem_exec_object2, offset),
				     &off, sizeof(off)))
			break;
	}
out:
	gem_eb_fini(&e);
	return ret;
}
