// SPDX-License-Identifier: MIT
/*
 * gem_object: GEM objects and their handles, and the ioctls on one object
 * (create, close, flink/open, mmap offsets, pread/pwrite, domains, busy,
 * wait, madvise, tiling, caching), with the kernel's errno for each case
 * (drm_gem.c, gem/i915_gem_create.c, i915_gem.c, gem/i915_gem_mman.c,
 * gem/i915_gem_domain.c, gem/i915_gem_busy.c, gem/i915_gem_wait.c,
 * gem/i915_gem_tiling.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drmcore/drm_fd.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_tt.h>

#include "gem_priv.h"

struct gem_obj *gem_obj_get(struct gem_obj *obj)
{
	atomic_fetch_add(&obj->refcount, 1);
	return obj;
}

void gem_obj_put(struct gem_obj *obj)
{
	if (!obj || atomic_fetch_sub(&obj->refcount, 1) != 1)
		return;
	gem_mmo_free_all(obj);
	dma_fence_put(obj->pending);
	ttm_bo_vm_release(&obj->bo->base);
	i915_gem_object_put(obj->bo);
	free(obj);
}

int gem_obj_create(struct i915_gem_dev *dev, uint64_t size, enum i915_gem_region region,
		   struct gem_obj **out)
{
	struct gem_obj *obj;
	int ret;

	obj =
	    fault_should_fail(&gem_fault_obj_alloc, sizeof(*obj)) ? NULL : calloc(1, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	ret = i915_gem_object_create(dev->i915, size, region, &obj->bo);
	if (ret) {
		free(obj);
		return ret;
	}
	atomic_init(&obj->refcount, 1);
	obj->dev = dev;
	obj->size = size;
	obj->caching = dev->info->has_llc ? I915_CACHING_CACHED : I915_CACHING_NONE;
	obj->madv = I915_MADV_WILLNEED;
	obj->read_domains = I915_GEM_DOMAIN_CPU;
	obj->write_domain = I915_GEM_DOMAIN_CPU;
	obj->pat_index = -1;
	*out = obj;
	return 0;
}

int gem_handle_create(struct i915_gem_file *file, struct gem_obj *obj, uint32_t *handle)
{
	int64_t id;

	pthread_mutex_lock(&file->lock);
	id = ttm_drm_idr_alloc(&file->handles, obj, 1, INT32_MAX);
	pthread_mutex_unlock(&file->lock);
	if (id < 0)
		return (int)id;
	gem_obj_get(obj);
	pthread_mutex_lock(&file->dev->lock);
	obj->handle_count++;
	pthread_mutex_unlock(&file->dev->lock);
	*handle = (uint32_t)id;
	return 0;
}

struct gem_obj *gem_lookup(struct i915_gem_file *file, uint32_t handle)
{
	struct gem_obj *obj;

	pthread_mutex_lock(&file->lock);
	obj = ttm_drm_idr_find(&file->handles, handle);
	if (obj)
		gem_obj_get(obj);
	pthread_mutex_unlock(&file->lock);
	return obj;
}

void gem_obj_set_pending(struct gem_obj *obj, struct dma_fence *fence, uint16_t engine_class,
			 bool write)
{
	struct dma_fence *old;

	pthread_mutex_lock(&obj->dev->lock);
	old = obj->pending;
	obj->pending = dma_fence_get(fence);
	obj->pending_class = engine_class;
	obj->pending_write = write;
	pthread_mutex_unlock(&obj->dev->lock);
	dma_fence_put(old);
}

struct dma_fence *gem_obj_pending_get(struct gem_obj *obj)
{
	struct dma_fence *f = NULL;

	pthread_mutex_lock(&obj->dev->lock);
	if (obj->pending && !dma_fence_test_signaled_flag(obj->pending))
		f = dma_fence_get(obj->pending);
	pthread_mutex_unlock(&obj->dev->lock);
	return f;
}

/* Wait for a queued batch on @obj first (interruptible). */
static int gem_obj_wait_pending(struct gem_obj *obj)
{
	struct dma_fence *p = gem_obj_pending_get(obj);
	int ret = 0;

	if (p) {
		ret = dma_fence_wait(p, true);
		dma_fence_put(p);
	}
	return ret;
}

bool gem_obj_busy(struct gem_obj *obj, enum dma_resv_usage usage)
{
	struct dma_fence *p = gem_obj_pending_get(obj);

	if (p) {
		dma_fence_put(p);
		return true;
	}
	return !dma_resv_test_signaled(obj->bo->base.resv, usage);
}

/* Backing pages exist (or are swapped out): the object is not "unattached". Reserved or idle. */
bool gem_obj_has_pages(struct gem_obj *obj)
{
	struct ttm_buffer_object *bo = &obj->bo->base;
	struct ttm_resource *res = bo->resource;

	if (!res)
		return false;
	if (res->mem_type != TTM_PL_SYSTEM)
		return true;
	return bo->ttm && (ttm_tt_is_populated(bo->ttm) || ttm_tt_is_swapped(bo->ttm));
}

/* --- create --- */

static uint64_t gem_region_total(struct i915_gem_dev *dev, uint16_t cls)
{
	if (cls == I915_MEMORY_CLASS_DEVICE)
		return dev->lmem_size;
	return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* lmem of a DG2-class part has 64 KiB pages; system memory 4 KiB. */
static uint64_t gem_region_min_page(struct i915_gem_dev *dev, uint16_t cls)
{
	return cls == I915_MEMORY_CLASS_DEVICE && dev->info->pub.discrete ? 65536 : TTM_PAGE_SIZE;
}

/*
 * Create an object of @size (rounded up to the largest page size of its
 * regions), placed in the first region that has room, and a handle for it.
 */
static int gem_create_user(struct i915_gem_file *file, __u64 *size, const uint32_t *regions,
			   uint32_t nregions, int pat_index, uint32_t *handle)
{
	struct i915_gem_dev *dev = file->dev;
	uint64_t page = TTM_PAGE_SIZE, sz;
	struct gem_obj *obj = NULL;
	int ret = -EINVAL;

	for (uint32_t i = 0; i < nregions; i++)
		if (gem_region_min_page(dev, regions[i] >> 16) > page)
			page = gem_region_min_page(dev, regions[i] >> 16);
	/* Rounding up wraps a size near 2^64 to 0, as in the kernel. */
	sz = (*size + page - 1) & ~(page - 1);
	if (!sz)
		return -EINVAL;
	/* Larger than any of its regions: it could never get its pages. */
	ret = -E2BIG;
	for (uint32_t i = 0; i < nregions; i++)
		if (sz <= gem_region_total(dev, regions[i] >> 16))
			ret = 0;
	if (ret)
		return ret;
	for (uint32_t i = 0; i < nregions; i++) {
		uint16_t cls = regions[i] >> 16;

		if (sz > gem_region_total(dev, cls))
			continue;
		ret = gem_obj_create(dev, sz,
				     cls == I915_MEMORY_CLASS_DEVICE ? I915_GEM_REGION_LMEM
								     : I915_GEM_REGION_SMEM,
				     &obj);
		if (ret != -ENOSPC && ret != -ENOMEM)
			break;
	}
	if (ret)
		return ret == -ENOSPC ? -ENOMEM : ret;
	memcpy(obj->regions, regions, nregions * sizeof(*regions));
	obj->nregions = nregions;
	obj->pat_index = pat_index;
	ret = gem_handle_create(file, obj, handle);
	gem_obj_put(obj);
	if (!ret)
		*size = sz;
	return ret;
}

int gem_create_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_create *args = data;
	const uint32_t smem = I915_MEMORY_CLASS_SYSTEM << 16;

	return gem_create_user(file, &args->size, &smem, 1, -1, &args->handle);
}

struct gem_create_ext {
	struct i915_gem_dev *dev;
	uint32_t regions[4];
	uint32_t nregions;
	int pat_index;
};

static int gem_ext_regions(uint64_t base, void *data)
{
	struct drm_i915_gem_create_ext_memory_regions ext;
	struct gem_create_ext *c = data;
	uint32_t regions[4], seen = 0;
	uint32_t max = c->dev->lmem_size ? 2 : 1;

	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	/* INTEL_REGION_UNKNOWN bounds the count, whatever the part has. */
	if (ext.pad || !ext.num_regions || ext.num_regions > 8)
		return -EINVAL;
	for (uint32_t i = 0; i < ext.num_regions; i++) {
		struct drm_i915_gem_memory_class_instance r;
		uint32_t bit;

		if (gem_copy_from_user(&r, ext.regions + i * sizeof(r), sizeof(r)))
			return -EFAULT;
		if (r.memory_instance != 0 ||
		    (r.memory_class != I915_MEMORY_CLASS_SYSTEM &&
		     (r.memory_class != I915_MEMORY_CLASS_DEVICE || max < 2)))
			return -EINVAL;
		bit = 1u << r.memory_class;
		if (seen & bit)
			return -EINVAL;
		seen |= bit;
		regions[i] = (uint32_t)r.memory_class << 16 | r.memory_instance;
	}
	if (c->nregions)
		return -EINVAL;
	memcpy(c->regions, regions, ext.num_regions * sizeof(regions[0]));
	c->nregions = ext.num_regions;
	return 0;
}

static int gem_ext_protected(uint64_t base, void *data)
{
	struct drm_i915_gem_create_ext_protected_content ext;

	(void)data;
	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	if (ext.flags)
		return -EINVAL;
	return -ENODEV; /* no PXP */
}

static int gem_ext_set_pat(uint64_t base, void *data)
{
	struct gem_create_ext *c = data;

	(void)base;
	/* PAT indices are an ABI of graphics 12.70 and later only. */
	if (c->dev->info->graphics_ver_full < 1270)
		return -ENODEV;
	return -EINVAL;
}

int gem_create_ext_ioctl(struct i915_gem_file *file, void *data)
{
	static const gem_ext_fn tbl[] = {
	    [I915_GEM_CREATE_EXT_MEMORY_REGIONS] = gem_ext_regions,
	    [I915_GEM_CREATE_EXT_PROTECTED_CONTENT] = gem_ext_protected,
	    [I915_GEM_CREATE_EXT_SET_PAT] = gem_ext_set_pat,
	};
	struct drm_i915_gem_create_ext *args = data;
	struct gem_create_ext c = {.dev = file->dev, .pat_index = -1};
	bool has_smem = false;
	int ret;

	if (args->flags & ~(uint32_t)I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS)
		return -EINVAL;
	ret = gem_user_extensions(args->extensions, tbl, sizeof(tbl) / sizeof(tbl[0]), &c);
	if (ret)
		return ret;
	if (!c.nregions) {
		c.regions[0] = I915_MEMORY_CLASS_SYSTEM << 16;
		c.nregions = 1;
	}
	for (uint32_t i = 0; i < c.nregions; i++)
		has_smem |= (c.regions[i] >> 16) == I915_MEMORY_CLASS_SYSTEM;
	if ((args->flags & I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS) &&
	    (c.nregions == 1 || !has_smem))
		return -EINVAL;
	return gem_create_user(file, &args->size, c.regions, c.nregions, c.pat_index,
			       &args->handle);
}

/* --- handles and names (drm_gem.c) --- */

int gem_close_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_gem_close *args = data;

	/* drm_gem_close_ioctl() does not look at the pad. */
	drm_prime_remove_buf_handle(&file->drm.prime, args->handle);
	return gem_handle_delete(file, args->handle);
}

int gem_flink_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_gem_flink *args = data;
	struct i915_gem_dev *dev = file->dev;
	struct gem_obj *obj = gem_lookup(file, args->handle);
	int ret = 0;

	if (!obj)
		return -ENOENT;
	pthread_mutex_lock(&dev->lock);
	/* A handle closed under us: the object no longer has a name to give. */
	if (!obj->handle_count) {
		ret = -ENOENT;
	} else if (!obj->name) {
		int64_t id = ttm_drm_idr_alloc(&dev->names, obj, 1, INT32_MAX);

		if (id < 0) {
			ret = (int)id;
		} else {
			obj->name = (uint32_t)id;
			gem_obj_get(obj);
		}
	}
	if (!ret)
		args->name = obj->name;
	pthread_mutex_unlock(&dev->lock);
	gem_obj_put(obj);
	return ret;
}

int gem_open_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_gem_open *args = data;
	struct i915_gem_dev *dev = file->dev;
	struct gem_obj *obj;
	uint32_t handle;
	int ret;

	pthread_mutex_lock(&dev->lock);
	obj = args->name ? ttm_drm_idr_find(&dev->names, args->name) : NULL;
	if (obj)
		gem_obj_get(obj);
	pthread_mutex_unlock(&dev->lock);
	if (!obj)
		return -ENOENT;
	ret = gem_handle_create(file, obj, &handle);
	if (!ret) {
		args->handle = handle;
		args->size = obj->size;
	}
	gem_obj_put(obj);
	return ret;
}

/* --- mmap --- */

/* Objects of a discrete part are TTM objects: only the FIXED type maps them. */
static bool gem_obj_is_ttm(struct gem_obj *obj)
{
	return obj->dev->info->pub.discrete;
}

int gem_mmap_offset_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_mmap_offset *args = data;
	enum gem_mmap_type type;
	struct gem_obj *obj;
	int ret;

	ret = gem_user_extensions(args->extensions, NULL, 0, NULL);
	if (ret)
		return ret;
	switch (args->flags) {
	case I915_MMAP_OFFSET_GTT:
		if (!file->dev->info->has_aperture)
			return -ENODEV;
		type = GEM_MMAP_GTT;
		break;
	case I915_MMAP_OFFSET_WC:
		type = GEM_MMAP_WC;
		break;
	case I915_MMAP_OFFSET_WB:
		type = GEM_MMAP_WB;
		break;
	case I915_MMAP_OFFSET_UC:
		type = GEM_MMAP_UC;
		break;
	case I915_MMAP_OFFSET_FIXED:
		type = GEM_MMAP_FIXED;
		break;
	default:
		return -EINVAL;
	}
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	if (gem_obj_is_ttm(obj) != (type == GEM_MMAP_FIXED))
		ret = -ENODEV;
	else
		ret = gem_mmo_attach(file, obj, type, &args->offset);
	gem_obj_put(obj);
	return ret;
}

int gem_mmap_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_mmap *args = data;
	struct gem_obj *obj;
	void *addr;
	int ret;

	if (file->dev->info->pub.discrete || file->dev->info->graphics_ver_full > 1200)
		return -EOPNOTSUPP;
	if (args->flags & ~(uint64_t)I915_MMAP_WC)
		return -EINVAL;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	if (args->offset > obj->size || args->size > obj->size - args->offset || !args->size ||
	    (args->offset & (TTM_PAGE_SIZE - 1)))
		ret = -EINVAL;
	else
		ret = gem_map_object(file->dev, obj, args->offset, args->size, NULL, 0, &addr);
	if (!ret)
		args->addr_ptr = (uint64_t)(uintptr_t)addr;
	gem_obj_put(obj);
	return ret;
}

/* --- pread / pwrite --- */

static int gem_rw(struct i915_gem_file *file, uint32_t handle, uint64_t offset, uint64_t size,
		  uint64_t uptr, bool write)
{
	const struct gem_profile_info *info = file->dev->info;
	struct gem_obj *obj;
	char *bounce;
	int ret;

	/* PREAD/PWRITE exist up to Tiger Lake (and never with local memory). */
	if (info->graphics_ver_full >= 1200 && info->pub.pci_device != 0x9a49)
		return -EOPNOTSUPP;
	if (!size)
		return 0;
	if (uptr + size < uptr)
		return -EFAULT;
	obj = gem_lookup(file, handle);
	if (!obj)
		return -ENOENT;
	ret = -EINVAL;
	if (offset > obj->size || size > obj->size - offset)
		goto out;
	ret = gem_obj_wait_pending(obj);
	if (ret)
		goto out;
	ret = -EFAULT;
	if (obj->madv != I915_MADV_WILLNEED)
		goto out;
	/*
	 * CPU writes still in a mapping's page copies of the span reach the
	 * storage first (and a written span's copies go, so the mapping reads
	 * the new bytes); the rest of the mapping stays installed.
	 */
	if (obj->bo->base.vm) {
		ret = ttm_bo_reserve(&obj->bo->base, true, false, NULL);
		if (ret)
			goto out;
		ttm_bo_vm_flush_range(&obj->bo->base, offset, size);
		ttm_bo_unreserve(&obj->bo->base);
	}
	ret = -ENOMEM;
	bounce = fault_should_fail(&gem_fault_buf_alloc, size) ? NULL : malloc(size);
	if (!bounce)
		goto out;
	if (write) {
		ret = gem_copy_from_user(bounce, uptr, size);
		if (!ret)
			ret = i915_gem_object_access(obj->bo, offset, bounce, size, true);
	} else {
		ret = i915_gem_object_access(obj->bo, offset, bounce, size, false);
		if (!ret)
			ret = gem_copy_to_user(uptr, bounce, size);
	}
	free(bounce);
out:
	gem_obj_put(obj);
	return ret;
}

int gem_pread_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_pread *args = data;

	return gem_rw(file, args->handle, args->offset, args->size, args->data_ptr, false);
}

int gem_pwrite_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_pwrite *args = data;

	return gem_rw(file, args->handle, args->offset, args->size, args->data_ptr, true);
}

/* --- domains --- */

#define GEM_GPU_DOMAINS                                                                            \
	(I915_GEM_DOMAIN_RENDER | I915_GEM_DOMAIN_SAMPLER | I915_GEM_DOMAIN_COMMAND |              \
	 I915_GEM_DOMAIN_INSTRUCTION | I915_GEM_DOMAIN_VERTEX)

int gem_set_domain_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_set_domain *args = data;
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct gem_obj *obj;
	int ret;

	if (file->dev->info->pub.discrete)
		return -ENODEV;
	if ((args->read_domains | args->write_domain) & GEM_GPU_DOMAINS)
		return -EINVAL;
	if (args->write_domain && args->read_domains != args->write_domain)
		return -EINVAL;
	if (!args->read_domains)
		return 0;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = gem_obj_wait_pending(obj);
	if (ret) {
		gem_obj_put(obj);
		return ret;
	}
	/* A CPU read waits for writers only, a CPU write for everyone. */
	if (args->write_domain) {
		ret = ttm_bo_wait_ctx(&obj->bo->base, &ctx);
	} else {
		int64_t t = dma_resv_wait_timeout(obj->bo->base.resv, DMA_RESV_USAGE_WRITE, true,
						  INT64_MAX);
		ret = t < 0 ? (int)t : 0;
	}
	if (ret == -EIO)
		ret = 0; /* a hung batch's fence still means idle */
	if (!ret && obj->madv != I915_MADV_WILLNEED && !gem_obj_has_pages(obj))
		ret = -EFAULT;
	if (!ret) {
		pthread_mutex_lock(&file->dev->lock);
		obj->read_domains = args->read_domains;
		obj->write_domain = args->write_domain;
		pthread_mutex_unlock(&file->dev->lock);
	}
	gem_obj_put(obj);
	return ret;
}

int gem_sw_finish_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_sw_finish *args = data;
	struct gem_obj *obj = gem_lookup(file, args->handle);

	if (!obj)
		return -ENOENT;
	gem_obj_put(obj);
	return 0;
}

/* --- busy / wait --- */

/* The kernel's __busy_read_flag()/__busy_write_id() over engine classes. */
static uint32_t gem_busy_flag(struct dma_fence *fence, bool writer)
{
	struct i915_request *rq = to_i915_request(fence);
	uint32_t cls;

	if (dma_fence_is_signaled(fence))
		return 0;
	if (!rq)
		return writer ? 0xffffffffu : 0xffff0000u;
	cls = rq->engine->class;
	return (0x10000u << cls) | (writer ? cls + 1 : 0);
}

int gem_busy_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_busy *args = data;
	struct dma_fence **w = NULL, **all = NULL;
	unsigned int nw = 0, nall = 0;
	struct gem_obj *obj;
	int ret;

	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	args->busy = 0;
	{
		struct dma_fence *p = gem_obj_pending_get(obj);

		if (p) {
			uint32_t cls = obj->pending_class;

			args->busy |= (0x10000u << cls) | (obj->pending_write ? cls + 1 : 0);
			dma_fence_put(p);
		}
	}
	ret = dma_resv_get_fences(obj->bo->base.resv, DMA_RESV_USAGE_WRITE, &nw, &w);
	if (!ret)
		ret = dma_resv_get_fences(obj->bo->base.resv, DMA_RESV_USAGE_READ, &nall, &all);
	for (unsigned int i = 0; !ret && i < nall; i++) {
		bool writer = false;

		for (unsigned int j = 0; j < nw; j++)
			writer |= w[j] == all[i];
		args->busy |= gem_busy_flag(all[i], writer);
	}
	dma_resv_put_fences(w, nw);
	dma_resv_put_fences(all, nall);
	gem_obj_put(obj);
	return ret;
}

int gem_wait_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_wait *args = data;
	struct gem_obj *obj;
	int64_t start, left, t;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	obj = gem_lookup(file, args->bo_handle);
	if (!obj)
		return -ENOENT;
	start = dma_fence_now_ns();
	left = args->timeout_ns < 0 ? INT64_MAX : args->timeout_ns;
	{
		/* A batch still queued behind fences comes first. */
		struct dma_fence *p = gem_obj_pending_get(obj);

		if (p && !left) {
			ret = -ETIME;
		} else if (p) {
			t = dma_fence_wait_timeout(p, true, left);
			if (t < 0)
				ret = (int)t;
			else if (!t)
				ret = -ETIME;
			else if (left != INT64_MAX)
				left = t;
		}
		dma_fence_put(p);
	}
	if (ret) {
		/* decided above */
	} else if (!left) {
		ret = gem_obj_busy(obj, DMA_RESV_USAGE_READ) ? -ETIME : 0;
	} else {
		t = dma_resv_wait_timeout(obj->bo->base.resv, DMA_RESV_USAGE_READ, true, left);
		if (t < 0)
			ret = (int)t;
		else if (!t)
			ret = -ETIME;
	}
	if (args->timeout_ns > 0) {
		args->timeout_ns -= dma_fence_now_ns() - start;
		if (args->timeout_ns < 0)
			args->timeout_ns = 0;
		/* Left less than a tick: as the kernel, report it as expired. */
		if (ret == -ETIME && args->timeout_ns < 1000000)
			args->timeout_ns = 0;
		if (ret == -ETIME && args->timeout_ns)
			ret = -EAGAIN;
	}
	if (ret == -EINTR)
		ret = -ERESTART;
	gem_obj_put(obj);
	return ret == -ERESTART ? -EINTR : ret;
}

/* --- madvise --- */

/*
 * Drop a purgeable object's backing store (the kernel's truncate): it
 * becomes __I915_MADV_PURGED for good. Only when idle and unmapped.
 * Return: true when purged.
 */
bool gem_obj_try_purge(struct gem_obj *obj)
{
	struct ttm_buffer_object *bo = &obj->bo->base;
	bool purged = false;

	if (obj->madv != I915_MADV_DONTNEED || gem_obj_busy(obj, DMA_RESV_USAGE_BOOKKEEP))
		return false;
	if (ttm_bo_reserve(bo, false, true, NULL))
		return false;
	if (!bo->vm && !bo->pin_count && !ttm_bo_pipeline_gutting(bo)) {
		obj->madv = __I915_MADV_PURGED;
		purged = true;
	}
	ttm_bo_unreserve(bo);
	return purged;
}

int gem_madvise_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_madvise *args = data;
	struct gem_obj *obj;
	bool try_purge;
	int ret;

	if (args->madv != I915_MADV_DONTNEED && args->madv != I915_MADV_WILLNEED)
		return -EINVAL;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/*
	 * The pages are looked at under the reservation (a CPU fault populates
	 * them under it on the fault thread); the reservation nests outside
	 * the device lock, as in execbuffer.
	 */
	ret = ttm_bo_reserve(&obj->bo->base, true, false, NULL);
	if (ret) {
		gem_obj_put(obj);
		return ret;
	}
	pthread_mutex_lock(&file->dev->lock);
	if (obj->madv != __I915_MADV_PURGED)
		obj->madv = args->madv;
	/* Nothing attached: discard the backing store now, as the kernel does. */
	try_purge = obj->madv == I915_MADV_DONTNEED && !gem_obj_has_pages(obj);
	if (try_purge)
		obj->madv = __I915_MADV_PURGED;
	args->retained = obj->madv != __I915_MADV_PURGED;
	pthread_mutex_unlock(&file->dev->lock);
	ttm_bo_unreserve(&obj->bo->base);
	gem_obj_put(obj);
	return 0;
}

/* --- tiling --- */

#define GEM_FENCE_MAX_PITCH_VAL 0x0800

int gem_set_tiling_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_set_tiling *args = data;
	struct gem_obj *obj;
	uint32_t tile_width;

	if (!file->dev->info->has_aperture)
		return -EOPNOTSUPP;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	if (args->tiling_mode != I915_TILING_NONE) {
		tile_width = args->tiling_mode == I915_TILING_Y ? 128 : 512;
		if (args->tiling_mode > I915_TILING_Y ||
		    args->stride / 128 > GEM_FENCE_MAX_PITCH_VAL || !args->stride ||
		    args->stride % tile_width) {
			gem_obj_put(obj);
			return -EINVAL;
		}
	}
	if (args->tiling_mode == I915_TILING_NONE)
		args->stride = 0;
	/* Gen12 does no bit-6 swizzling. */
	args->swizzle_mode = I915_BIT_6_SWIZZLE_NONE;
	pthread_mutex_lock(&file->dev->lock);
	obj->tiling_mode = args->tiling_mode;
	obj->stride = args->stride;
	pthread_mutex_unlock(&file->dev->lock);
	gem_obj_put(obj);
	return 0;
}

int gem_get_tiling_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_get_tiling *args = data;
	struct gem_obj *obj;

	if (!file->dev->info->has_aperture)
		return -EOPNOTSUPP;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	pthread_mutex_lock(&file->dev->lock);
	args->tiling_mode = obj->tiling_mode;
	pthread_mutex_unlock(&file->dev->lock);
	args->swizzle_mode = I915_BIT_6_SWIZZLE_NONE;
	args->phys_swizzle_mode = I915_BIT_6_SWIZZLE_NONE;
	gem_obj_put(obj);
	return 0;
}

/* --- caching --- */

int gem_set_caching_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_caching *args = data;
	struct gem_obj *obj;
	uint32_t caching;

	if (file->dev->info->pub.discrete)
		return -ENODEV;
	switch (args->caching) {
	case I915_CACHING_NONE:
	case I915_CACHING_CACHED:
		caching = args->caching;
		break;
	case I915_CACHING_DISPLAY:
		caching = I915_CACHING_NONE; /* no write-through on gen12 */
		break;
	default:
		return -EINVAL;
	}
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	pthread_mutex_lock(&file->dev->lock);
	obj->caching = caching;
	pthread_mutex_unlock(&file->dev->lock);
	gem_obj_put(obj);
	return 0;
}

int gem_get_caching_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_caching *args = data;
	struct gem_obj *obj;

	if (file->dev->info->pub.discrete)
		return -ENODEV;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	pthread_mutex_lock(&file->dev->lock);
	args->caching = obj->caching;
	pthread_mutex_unlock(&file->dev->lock);
	gem_obj_put(obj);
	return 0;
}

/* --- device-wide --- */

int gem_get_aperture_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_get_aperture *args = data;
	struct i915_device *i915 = file->dev->i915;
	struct ttm_resource_manager *ggtt = i915_ggtt_manager(&i915->ggtt);
	uint64_t total = ggtt->size << TTM_PAGE_SHIFT;
	uint64_t used = ttm_resource_manager_usage(ggtt);

	args->aper_size = total;
	args->aper_available_size = total > used ? total - used : 0;
	return 0;
}

int gem_throttle_ioctl(struct i915_gem_file *file, void *data)
{
	struct dma_fence *wait = NULL;
	int64_t cutoff = dma_fence_now_ns() - GEM_THROTTLE_NS, newest = INT64_MIN;
	int ret = 0;

	(void)data;
	if (file->dev->wedged)
		return -EIO;
	/* Wait for the newest of this file's batches submitted over 20 ms ago. */
	pthread_mutex_lock(&file->lock);
	for (unsigned int i = 0; i < GEM_THROTTLE_SLOTS; i++) {
		if (file->recent[i] && file->recent_ns[i] <= cutoff &&
		    file->recent_ns[i] > newest) {
			newest = file->recent_ns[i];
			wait = file->recent[i];
		}
	}
	if (wait)
		dma_fence_get(wait);
	pthread_mutex_unlock(&file->lock);
	if (wait) {
		int64_t t = dma_fence_wait_timeout(wait, true, INT64_MAX);

		ret = t < 0 && t != -EIO ? (int)t : 0;
		dma_fence_put(wait);
	}
	return ret;
}

int gem_userptr_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	/* The driver cannot track the pages of user memory: a kernel without MMU notifiers. */
	return -ENODEV;
}

/* --- PRIME (drm_prime.c, gem/i915_gem_dmabuf.c) --- */

static void gem_dmabuf_release(struct drm_dma_buf *buf)
{
	gem_obj_put(buf->priv);
}

static int gem_dmabuf_mmap(struct drm_dma_buf *buf, void *hint, size_t len, int prot, int flags,
			   off_t offset, void **addr)
{
	struct gem_obj *obj = buf->priv;

	(void)prot;
	if (offset < 0 || (offset & (TTM_PAGE_SIZE - 1)) || (uint64_t)offset > obj->size ||
	    len > obj->size - (uint64_t)offset)
		return -EINVAL;
	return gem_map_object(obj->dev, obj, (uint64_t)offset, len, hint, flags, addr);
}

static const struct drm_dma_buf_ops gem_dmabuf_ops = {
    .release = gem_dmabuf_release,
    .mmap = gem_dmabuf_mmap,
};

int gem_prime_handle_to_fd_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_prime_handle *args = data;
	struct i915_gem_dev *dev = file->dev;
	struct drm_dma_buf *buf;
	struct gem_obj *obj;
	int ret, fd = -1;

	if (args->flags & ~(uint32_t)(DRM_CLOEXEC | DRM_RDWR))
		return -EINVAL;
	obj = gem_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/* One dma-buf per object: a second export is a new descriptor of it. */
	pthread_mutex_lock(&dev->prime_lock);
	buf = drm_dma_buf_lookup_bo(&obj->bo->base);
	if (buf) {
		ret = drm_dma_buf_fd(buf, (int)args->flags, &fd);
	} else {
		gem_obj_get(obj); /* the dma-buf's, dropped by its release */
		ret = drm_dma_buf_export(&obj->bo->base, &gem_dmabuf_ops, obj, (int)args->flags,
					 &fd, &buf);
		if (ret)
			gem_obj_put(obj);
		else
			drm_dma_buf_ref(buf);
	}
	pthread_mutex_unlock(&dev->prime_lock);
	if (!ret) {
		struct drm_prime_file *pf = &file->drm.prime;
		uint32_t known;

		/* An import of it into this file gives back this handle. */
		drm_prime_lock(pf);
		if (drm_prime_lookup_buf_handle_locked(pf, buf, &known) == -ENOENT)
			ret = drm_prime_add_buf_handle_locked(pf, buf, args->handle);
		drm_prime_unlock(pf);
		if (ret)
			drm_fd_close(fd, close);
	}
	if (buf)
		drm_dma_buf_put(buf);
	gem_obj_put(obj);
	if (ret)
		return ret;
	args->fd = fd;
	return 0;
}

int gem_prime_fd_to_handle_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_prime_handle *args = data;
	struct drm_prime_file *pf = &file->drm.prime;
	struct drm_dma_buf *buf;
	uint32_t handle;
	int ret;

	ret = drm_dma_buf_get(args->fd, &buf);
	if (ret)
		return ret;
	drm_prime_lock(pf);
	ret = drm_prime_lookup_buf_handle_locked(pf, buf, &handle);
	if (ret == -ENOENT) {
		struct gem_obj *obj = buf->priv;

		/* Only this device's own buffers can be imported: no attachments. */
		if (buf->ops != &gem_dmabuf_ops || obj->dev != file->dev) {
			ret = -EINVAL;
		} else {
			ret = gem_handle_create(file, obj, &handle);
			if (!ret) {
				ret = drm_prime_add_buf_handle_locked(pf, buf, handle);
				if (ret) {
					drm_prime_unlock(pf);
					gem_handle_delete(file, handle);
					drm_dma_buf_put(buf);
					return ret;
				}
			}
		}
	}
	drm_prime_unlock(pf);
	drm_dma_buf_put(buf);
	if (!ret)
		args->handle = handle;
	return ret;
}
