// SPDX-License-Identifier: MIT
/*
 * gem_debugfs: the files of the device's debugfs directory that igt reads
 * and writes (i915_debugfs.c, gt/intel_gt_debugfs.c): drop_caches wired
 * to TTM (idle, retire, evict, swap out, purge, free), wedged/reset,
 * capabilities, objects, engine info and a few module parameters.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gem_priv.h"
/* After gem_priv.h, which settles the uAPI names both headers spell. */
#include "../i915_priv.h"

#define DROP_UNBOUND (1u << 0)
#define DROP_BOUND (1u << 1)
#define DROP_RETIRE (1u << 2)
#define DROP_ACTIVE (1u << 3)
#define DROP_FREED (1u << 4)
#define DROP_SHRINK_ALL (1u << 5)
#define DROP_IDLE (1u << 6)
#define DROP_RESET_ACTIVE (1u << 7)
#define DROP_RESET_SEQNO (1u << 8)
#define DROP_RCU (1u << 9)
#define DROP_ALL 0x3ffull

static const char *const gem_debugfs_names[] = {
    "i915_gem_drop_caches",
    "i915_wedged",
    "i915_capabilities",
    "i915_gem_objects",
    "i915_engine_info",
    "i915_params/reset",
    "i915_params/enable_hangcheck",
    "i915_params/lmem_size",
    "i915_forcewake_user",
    NULL,
};

const char *const *i915_gem_debugfs_files(struct i915_device *i915)
{
	(void)i915;
	return gem_debugfs_names;
}

/* A growing text buffer. */
struct gem_text {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void gem_printf(struct gem_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void gem_printf(struct gem_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt,
			      ap);
		va_end(ap);
		if (n < 0) {
			t->oom = true;
			return;
		}
		if (t->buf && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		t->cap = (t->cap + (size_t)n + 1) * 2;
		char *nb = NULL;

		if (!fault_should_fail(&gem_fault_buf_alloc, t->cap))
			nb = realloc(t->buf, t->cap);
		if (!nb) {
			t->oom = true;
			return;
		}
		t->buf = nb;
	}
}

static bool gem_engines_idle(struct i915_device *i915)
{
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		struct i915_engine *e = &i915->engine[id];
		bool idle;

		pthread_mutex_lock(&e->lock);
		idle = list_empty(&e->requests);
		pthread_mutex_unlock(&e->lock);
		if (!idle)
			return false;
	}
	return true;
}

/* intel_gt_set_wedged(): every engine refuses work, what is queued fails. */
static void gem_set_wedged(struct i915_gem_dev *dev)
{
	struct i915_device *i915 = dev->i915;

	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		i915_engine_set_wedged(&i915->engine[id], true);
		/* Each recovery fails the oldest request; bounded by the ring. */
		for (unsigned int n = 0; n < 4096 && i915_engine_wait_idle(&i915->engine[id], 0);
		     n++)
			i915_engine_recover(&i915->engine[id]);
	}
	pthread_mutex_lock(&dev->lock);
	dev->wedged = true;
	pthread_mutex_unlock(&dev->lock);
}

/*
 * intel_gt_handle_error() for the engines of @mask: the request each is
 * running fails with -EIO and the engine restarts; a wedged device comes
 * back. Without resets (i915.reset=0) the device wedges instead.
 */
static void gem_reset_engines(struct i915_gem_dev *dev, uint64_t mask)
{
	struct i915_device *i915 = dev->i915;

	if (!dev->param_reset) {
		gem_set_wedged(dev);
		return;
	}
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		struct i915_engine *e = &i915->engine[id];

		if (!(mask & (1ull << id)) && !dev->wedged)
			continue;
		if (i915_engine_wait_idle(e, 0))
			i915_engine_recover(e);
		i915_engine_set_wedged(e, false);
	}
	pthread_mutex_lock(&dev->lock);
	dev->wedged = false;
	dev->reset_count++;
	pthread_mutex_unlock(&dev->lock);
}

/*
 * Every object some file has a handle on, with a reference each. An
 * allocation that fails leaves out the rest of that file's objects.
 */
static struct gem_obj **gem_all_objects(struct i915_gem_dev *dev, size_t *count)
{
	struct gem_obj **v = NULL;
	struct i915_gem_file *f;
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&dev->lock);
	list_for_each_entry (f, &dev->files, struct i915_gem_file, link)
		(void)gem_file_collect_objects(f, &v, &n, &cap);
	pthread_mutex_unlock(&dev->lock);
	*count = n;
	return v;
}

static int gem_drop_caches(struct i915_gem_dev *dev, uint64_t val)
{
	struct i915_device *i915 = dev->i915;
	struct ttm_device *bdev = &i915->drm.bdev;
	struct ttm_operation_ctx ctx = {.interruptible = false};

	if (val & DROP_RESET_ACTIVE) {
		for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
			if (i915_engine_wait_idle(&i915->engine[id], 200)) {
				gem_set_wedged(dev);
				break;
			}
	}
	if (val & DROP_RETIRE)
		for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
			i915_engine_retire(&i915->engine[id]);
	/*
	 * Idle means every request, those still waiting for their fences
	 * too (the kernel's intel_gt_wait_for_idle()): a queued batch holds
	 * its objects, which DROP_FREED below must find released.
	 */
	if ((val & (DROP_IDLE | DROP_ACTIVE)) && gem_async_wait(dev, UINT32_MAX / 2))
		return -ETIMEDOUT;
	if (val & (DROP_IDLE | DROP_ACTIVE))
		for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
			if (i915_engine_wait_idle(&i915->engine[id], UINT32_MAX / 2))
				return -ETIMEDOUT;
	if ((val & DROP_RESET_ACTIVE) && dev->wedged)
		gem_reset_engines(dev, ~0ull);
	if (val & (DROP_BOUND | DROP_UNBOUND | DROP_SHRINK_ALL)) {
		size_t n = 0;
		struct gem_obj **objs = gem_all_objects(dev, &n);

		/* The shrinker first drops what userspace said it can lose. */
		for (size_t i = 0; i < n; i++) {
			gem_obj_try_purge(objs[i]);
			gem_obj_put(objs[i]);
		}
		free(objs);
	}
	/* Bound objects lose their GGTT ranges; unbound ones their pages. */
	if (val & (DROP_BOUND | DROP_SHRINK_ALL))
		ttm_bo_evict_mem_type(bdev, TTM_PL_TT, &ctx);
	if (val & (DROP_UNBOUND | DROP_SHRINK_ALL))
		ttm_device_swapout(bdev, &ctx, UINT32_MAX);
	if (val & DROP_FREED)
		ttm_device_flush_delayed(bdev, true);
	return 0;
}

static void gem_capabilities(struct i915_gem_dev *dev, struct gem_text *t)
{
	const struct gem_profile_info *info = dev->info;

	gem_printf(t, "pch: %d\n", info->pub.discrete ? 0 : 12);
	gem_printf(t, "platform: %s\n", info->pub.discrete ? "DG2" : "TIGERLAKE");
	gem_printf(t, "graphics version: %u.%02u\n", info->graphics_ver_full / 100,
		   info->graphics_ver_full % 100);
	gem_printf(t, "gt: 0\niommu: disabled\n");
	gem_printf(t, "has_llc: %s\n", info->has_llc ? "yes" : "no");
	gem_printf(t, "has_local_memory: %s\n", dev->lmem_size ? "yes" : "no");
	gem_printf(t, "has_mappable_aperture: %s\n", info->has_aperture ? "yes" : "no");
	gem_printf(t, "has_full_ppgtt: yes\nhas_logical_ring_contexts: yes\n");
	gem_printf(t, "slice total: 1, mask=0001\nsubslice total: %u\nEU total: %u\n",
		   info->subslice_total, info->eu_total);
	gem_printf(t, "CS timestamp frequency: 19200000 Hz, 52 ns\n");
	gem_printf(t, "Has logical contexts? yes\nscheduler: 0x%x\n",
		   (unsigned int)GEM_SCHEDULER_CAPS);
	gem_printf(t, "i915.reset=%d\ni915.enable_hangcheck=%s\n", dev->param_reset,
		   dev->param_hangcheck ? "yes" : "no");
}

static void gem_objects_info(struct i915_gem_dev *dev, struct gem_text *t)
{
	struct i915_device *i915 = dev->i915;
	struct ttm_device *bdev = &i915->drm.bdev;
	struct ttm_resource_manager *tt = i915_ggtt_manager(&i915->ggtt);
	size_t n = 0;
	struct gem_obj **objs = gem_all_objects(dev, &n);
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++) {
		bytes += objs[i]->size;
		gem_obj_put(objs[i]);
	}
	free(objs);
	gem_printf(t, "%zu shrinkable [%llu free] objects, %llu bytes\n", n,
		   (unsigned long long)ttm_device_flush_delayed(bdev, false),
		   (unsigned long long)bytes);
	gem_printf(
	    t, "system0: total:%llu, available:%llu bytes\n",
	    (unsigned long long)tt->size << TTM_PAGE_SHIFT,
	    (unsigned long long)((tt->size << TTM_PAGE_SHIFT) - ttm_resource_manager_usage(tt)));
	if (i915->has_lmem)
		gem_printf(t, "local0: total:%llu, available:%llu bytes\n",
			   (unsigned long long)dev->lmem_size,
			   (unsigned long long)(dev->lmem_size -
						ttm_resource_manager_usage(&i915->lmem.manager)));
}

static void gem_engine_info(struct i915_gem_dev *dev, struct gem_text *t)
{
	struct i915_device *i915 = dev->i915;

	gem_printf(t, "GT awake? %s\n", gem_engines_idle(i915) ? "no" : "yes");
	gem_printf(t, "CS timestamp frequency: 19200000 Hz, 52 ns\n");
	for (unsigned int e = 0; e < dev->num_engines; e++) {
		struct i915_engine *eng = &i915->engine[dev->engines[e].id];
		uint32_t next;

		pthread_mutex_lock(&eng->lock);
		next = eng->next_seqno;
		pthread_mutex_unlock(&eng->lock);
		gem_printf(t, "%s\n", eng->name);
		gem_printf(t, "\tAwake? %d\n", !gem_engines_idle(i915));
		gem_printf(t, "\tReset count: %lu\n",
			   (unsigned long)atomic_load(&eng->stats.resets));
		gem_printf(t, "\tHangcheck: %u seqno, next %u\n", i915_engine_hws_seqno(eng), next);
		gem_printf(
		    t, "\tRING_TIMESTAMP: 0x%08x\n",
		    i915_gem_mmio_read32(i915, eng->id == I915_ENGINE_BCS ? 0x22358 : 0x2358));
	}
}

int i915_gem_debugfs_read(struct i915_device *i915, const char *name, char **text, size_t *len)
{
	struct i915_gem_dev *dev = i915 ? i915->gem_uapi : NULL;
	struct gem_text t = {0};

	if (!dev || !name || !text || !len)
		return -ENOENT;
	if (!strcmp(name, "i915_gem_drop_caches"))
		gem_printf(&t, "0x%08llx\n", DROP_ALL);
	else if (!strcmp(name, "i915_wedged"))
		gem_printf(&t, "%d\n", dev->wedged ? 1 : 0);
	else if (!strcmp(name, "i915_capabilities"))
		gem_capabilities(dev, &t);
	else if (!strcmp(name, "i915_gem_objects"))
		gem_objects_info(dev, &t);
	else if (!strcmp(name, "i915_engine_info"))
		gem_engine_info(dev, &t);
	else if (!strcmp(name, "i915_params/reset"))
		gem_printf(&t, "%d\n", dev->param_reset);
	else if (!strcmp(name, "i915_params/enable_hangcheck"))
		gem_printf(&t, "%c\n", dev->param_hangcheck ? 'Y' : 'N');
	else if (!strcmp(name, "i915_params/lmem_size"))
		gem_printf(&t, "%llu\n", (unsigned long long)dev->param_lmem_mib);
	else if (!strcmp(name, "i915_forcewake_user"))
		gem_printf(&t, "%s", ""); /* holding it open is all it is for */
	else
		return -ENOENT;
	if (t.oom || !t.buf) {
		free(t.buf);
		return -ENOMEM;
	}
	*text = t.buf;
	*len = t.len;
	return 0;
}

/* kstrtoull(buf, 0, &val) of a write of @len bytes. */
static int gem_parse_u64(const char *buf, size_t len, uint64_t *val)
{
	char tmp[32], *end;

	if (!len || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	if (tmp[len - 1] == '\n')
		tmp[len - 1] = 0;
	if (!tmp[0] || tmp[0] == '+')
		return -EINVAL;
	errno = 0;
	*val = strtoull(tmp[0] == '-' ? tmp + 1 : tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	if (tmp[0] == '-')
		*val = -*val; /* kstrtoll for the signed files; -1 for "all engines" */
	return 0;
}

ssize_t i915_gem_debugfs_write(struct i915_device *i915, const char *name, const char *buf,
			       size_t len)
{
	struct i915_gem_dev *dev = i915 ? i915->gem_uapi : NULL;
	uint64_t val;
	int ret;

	if (!dev || !name)
		return -ENOENT;
	if (strcmp(name, "i915_gem_drop_caches") && strcmp(name, "i915_wedged") &&
	    strcmp(name, "i915_params/reset") && strcmp(name, "i915_params/enable_hangcheck")) {
		for (const char *const *n = gem_debugfs_names; *n; n++)
			if (!strcmp(*n, name))
				return -EACCES;
		return -ENOENT;
	}
	if (!strcmp(name, "i915_params/enable_hangcheck")) {
		if (len && (buf[0] == 'Y' || buf[0] == 'y' || buf[0] == '1'))
			dev->param_hangcheck = true;
		else if (len && (buf[0] == 'N' || buf[0] == 'n' || buf[0] == '0'))
			dev->param_hangcheck = false;
		else
			return -EINVAL;
		return (ssize_t)len;
	}
	ret = gem_parse_u64(buf, len, &val);
	if (ret)
		return ret;
	if (!strcmp(name, "i915_gem_drop_caches")) {
		ret = gem_drop_caches(dev, val);
	} else if (!strcmp(name, "i915_wedged")) {
		gem_reset_engines(dev, val);
	} else {
		dev->param_reset = (int)val;
	}
	return ret ? ret : (ssize_t)len;
}
