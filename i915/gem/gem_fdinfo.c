// SPDX-License-Identifier: MIT
/*
 * gem_fdinfo: the driver's part of a file's fdinfo, as the kernel's
 * i915_drm_client_fdinfo() prints it (Documentation/gpu/drm-usage-stats.rst):
 * per memory region the drm-total/shared/active/resident/purgeable sizes of
 * the objects the file has handles on, then per uAPI engine class the time
 * the file's contexts ran on it (drm-engine-<class>: N ns) and, where a
 * class has more than one engine, its capacity.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gem_priv.h"
/* After gem_priv.h, which settles the uAPI names both headers spell. */
#include "../i915_priv.h"

/* The kernel's intel_region_id order, as for_each_memory_region() walks it. */
enum gem_stat_region {
	GEM_STAT_SMEM,
	GEM_STAT_LMEM,
	GEM_STAT_STOLEN,
	GEM_STAT_NREGIONS,
};

/* struct drm_memory_stats */
struct gem_mem_stats {
	uint64_t shared;
	uint64_t private;
	uint64_t resident;
	uint64_t purgeable;
	uint64_t active;
};

static const char *const gem_class_names[] = {
    [I915_ENGINE_CLASS_RENDER] = "render",   [I915_ENGINE_CLASS_COPY] = "copy",
    [I915_ENGINE_CLASS_VIDEO] = "video",     [I915_ENGINE_CLASS_VIDEO_ENHANCE] = "video-enhance",
    [I915_ENGINE_CLASS_COMPUTE] = "compute",
};

/* Where @obj is now (the kernel's obj->mm.region follows moves); reserved. */
static enum gem_stat_region gem_obj_stat_region(struct gem_obj *obj)
{
	struct ttm_resource *res = obj->bo->base.resource;

	if (res) {
		if (res->mem_type == TTM_PL_VRAM)
			return GEM_STAT_LMEM;
		if (res->mem_type == I915_PL_STOLEN)
			return GEM_STAT_STOLEN;
		return GEM_STAT_SMEM;
	}
	if (obj->bo->region == I915_GEM_REGION_LMEM)
		return GEM_STAT_LMEM;
	return obj->bo->region == I915_GEM_REGION_STOLEN ? GEM_STAT_STOLEN : GEM_STAT_SMEM;
}

/* The kernel's obj_meminfo(): one object's share of the stats. */
static void gem_obj_meminfo(struct gem_obj *obj, struct gem_mem_stats *stats)
{
	struct dma_resv *resv = obj->bo->base.resv;
	struct drm_dma_buf *buf = drm_dma_buf_lookup_bo(&obj->bo->base);
	struct gem_mem_stats *s;
	bool shared, pages, busy;
	uint32_t madv;

	pthread_mutex_lock(&obj->dev->lock);
	shared = obj->handle_count > 1 || buf;
	madv = obj->madv;
	pthread_mutex_unlock(&obj->dev->lock);
	drm_dma_buf_put(buf);

	dma_resv_lock(resv, NULL);
	s = &stats[gem_obj_stat_region(obj)];
	pages = gem_obj_has_pages(obj);
	dma_resv_unlock(resv);
	busy = gem_obj_busy(obj, DMA_RESV_USAGE_BOOKKEEP);

	if (shared)
		s->shared += obj->size;
	else
		s->private += obj->size;
	if (!pages)
		return;
	s->resident += obj->size;
	if (busy)
		s->active += obj->size;
	else if (madv == I915_MADV_DONTNEED)
		s->purgeable += obj->size;
}

/* drm_print_memory_stats()'s print_size(): KiB / MiB when they divide exactly. */
static void gem_print_size(FILE *f, const char *stat, const char *region, uint64_t sz)
{
	static const char *const units[] = {"", " KiB", " MiB"};
	unsigned int u;

	for (u = 0; u < 2; u++) {
		if (!sz || sz % 1024)
			break;
		sz /= 1024;
	}
	fprintf(f, "drm-%s-%s:\t%llu%s\n", stat, region, (unsigned long long)sz, units[u]);
}

int gem_file_collect_objects(struct i915_gem_file *file, struct gem_obj ***v, size_t *n,
			     size_t *cap)
{
	struct gem_obj **nv, *obj;
	uint32_t id = 0;
	int ret = 0;

	pthread_mutex_lock(&file->lock);
	while ((obj = ttm_drm_idr_next(&file->handles, &id))) {
		id++;
		if (*n == *cap) {
			size_t want = *cap ? *cap * 2 : 64;

			nv = fault_should_fail(&gem_fault_buf_alloc, want * sizeof(**v))
				 ? NULL
				 : realloc(*v, want * sizeof(**v));
			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			*v = nv;
			*cap = want;
		}
		(*v)[(*n)++] = gem_obj_get(obj);
	}
	pthread_mutex_unlock(&file->lock);
	return ret;
}

/* The file's objects into *@out, a reference each, *@count of them. Return: 0; -ENOMEM. */
static int gem_file_objects(struct i915_gem_file *file, struct gem_obj ***out, size_t *count)
{
	struct gem_obj **v = NULL;
	size_t n = 0, cap = 0;

	if (gem_file_collect_objects(file, &v, &n, &cap)) {
		while (n)
			gem_obj_put(v[--n]);
		free(v);
		return -ENOMEM;
	}
	*out = v;
	*count = n;
	return 0;
}

uint64_t i915_gem_file_client_id(struct i915_gem_file *file)
{
	return file->id;
}

int i915_gem_file_show_fdinfo(struct i915_gem_file *file, char **text, size_t *len)
{
	struct gem_mem_stats stats[GEM_STAT_NREGIONS] = {0};
	struct i915_gem_dev *dev = file->dev;
	const char *names[GEM_STAT_NREGIONS] = {"system0", NULL, NULL};
	uint64_t busy[sizeof(gem_class_names) / sizeof(gem_class_names[0])] = {0};
	unsigned int capacity[sizeof(gem_class_names) / sizeof(gem_class_names[0])] = {0};
	struct gem_obj **objs;
	size_t n = 0;
	FILE *f;

	*text = NULL;
	*len = 0;
	if (dev->i915->has_lmem)
		names[GEM_STAT_LMEM] = "local0";
	if (dev->i915->has_stolen)
		names[GEM_STAT_STOLEN] = dev->i915->has_lmem ? "stolen-local0" : "stolen-system0";

	if (gem_file_objects(file, &objs, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		gem_obj_meminfo(objs[i], stats);
		gem_obj_put(objs[i]);
	}
	free(objs);

	/* Engine time: the file's live contexts, plus those it destroyed. */
	pthread_mutex_lock(&file->lock);
	for (unsigned int e = 0; e < I915_NUM_ENGINES; e++) {
		struct i915_engine *engine = i915_engine_get(dev->i915, e);
		struct gem_ctx *c;
		uint32_t id = 0;

		if (!engine || engine->class >= sizeof(busy) / sizeof(busy[0]))
			continue;
		capacity[engine->class]++;
		while ((c = ttm_drm_idr_next(&file->contexts, &id))) {
			id++;
			busy[engine->class] += i915_context_runtime_ns(c->hw, e);
		}
	}
	for (unsigned int k = 0; k < sizeof(busy) / sizeof(busy[0]); k++)
		busy[k] += file->past_runtime[k];
	pthread_mutex_unlock(&file->lock);

	f = fault_should_fail(&gem_fault_buf_alloc, 1) ? NULL : open_memstream(text, len);
	if (!f)
		return -ENOMEM;
	for (unsigned int r = 0; r < GEM_STAT_NREGIONS; r++) {
		if (!names[r])
			continue;
		gem_print_size(f, "total", names[r], stats[r].private + stats[r].shared);
		gem_print_size(f, "shared", names[r], stats[r].shared);
		gem_print_size(f, "active", names[r], stats[r].active);
		gem_print_size(f, "resident", names[r], stats[r].resident);
		gem_print_size(f, "purgeable", names[r], stats[r].purgeable);
	}
	for (unsigned int k = 0; k < sizeof(busy) / sizeof(busy[0]); k++) {
		if (capacity[k])
			fprintf(f, "drm-engine-%s:\t%llu ns\n", gem_class_names[k],
				(unsigned long long)busy[k]);
		if (capacity[k] > 1)
			fprintf(f, "drm-engine-capacity-%s:\t%u\n", gem_class_names[k],
				capacity[k]);
	}
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		*len = 0;
		return -ENOMEM;
	}
	return 0;
}
