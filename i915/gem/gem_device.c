// SPDX-License-Identifier: MIT
/*
 * gem_device: device profiles, probe and teardown through the GEM uAPI,
 * files (drm_file), and CPU mappings of objects by fake mmap offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_global.h>

#include <sim_gpu.h>

#include "gem_priv.h"

#define MiB (1024ull * 1024)

static const struct gem_profile_info gem_profiles[] = {
    {
	.pub =
	    {
		.name = "tgl",
		.pci_vendor = 0x8086,
		.pci_device = 0x9a49,
		.pci_revision = 1,
		.pci_subsystem_vendor = 0x8086,
		.pci_subsystem_device = 0x3e04,
		.pci_slot = "0000:00:02.0",
		.discrete = false,
	    },
	.graphics_ver_full = 1200,
	.has_llc = true,
	.has_aperture = true,
	.has_relocs = true,
	.eu_total = 96,
	.subslice_total = 6,
	.engine_mask = SIM_ENGINES_TGL,
    },
    {
	.pub =
	    {
		.name = "dg2",
		.pci_vendor = 0x8086,
		.pci_device = 0x56a0,
		.pci_revision = 8,
		.pci_subsystem_vendor = 0x8086,
		.pci_subsystem_device = 0x1020,
		.pci_slot = "0000:03:00.0",
		.discrete = true,
	    },
	.graphics_ver_full = 1255,
	.has_llc = false,
	.has_aperture = false,
	.has_relocs = false,
	.eu_total = 512,
	.subslice_total = 32,
	.lmem_size = 512 * MiB,
	.lmem_visible_size = 512 * MiB,
	.engine_mask = SIM_ENGINES_DG2,
    },
    {
	.pub =
	    {
		.name = "dg2-smallbar",
		.pci_vendor = 0x8086,
		.pci_device = 0x56a0,
		.pci_revision = 8,
		.pci_subsystem_vendor = 0x8086,
		.pci_subsystem_device = 0x1020,
		.pci_slot = "0000:03:00.0",
		.discrete = true,
	    },
	.graphics_ver_full = 1255,
	.has_llc = false,
	.has_aperture = false,
	.has_relocs = false,
	.eu_total = 512,
	.subslice_total = 32,
	.lmem_size = 512 * MiB,
	.lmem_visible_size = 128 * MiB,
	.engine_mask = SIM_ENGINES_DG2,
    },
};

#define GEM_NUM_PROFILES (sizeof(gem_profiles) / sizeof(gem_profiles[0]))

static const char *const gem_profile_name_list[GEM_NUM_PROFILES + 1] = {"tgl", "dg2",
									"dg2-smallbar", NULL};

const char *const *i915_gem_profile_names(void)
{
	return gem_profile_name_list;
}

const struct i915_gem_profile *i915_gem_device_profile(struct i915_device *i915)
{
	return i915 && i915->gem_uapi ? &i915->gem_uapi->info->pub : NULL;
}

/*
 * Module options: @lmem_mib and the debugfs-settable ones. Unknown names
 * are skipped; a value that does not parse is -EINVAL.
 */
static int gem_parse_params(const char *params, uint64_t *lmem_mib, int *reset, int *hangcheck)
{
	const char *p = params;

	while (p && *p) {
		char name[32], *end;
		size_t n = strcspn(p, "= \t\n");
		long long v;

		if (!n) {
			p++;
			continue;
		}
		if (n >= sizeof(name) || p[n] != '=') {
			p += n;
			continue;
		}
		memcpy(name, p, n);
		name[n] = 0;
		p += n + 1;
		if (!strcmp(name, "enable_hangcheck") && (*p == 'Y' || *p == 'N')) {
			*hangcheck = *p == 'Y';
			p += strcspn(p, " \t\n");
			continue;
		}
		errno = 0;
		v = strtoll(p, &end, 0);
		if (end == p || errno || (*end && !strchr(" \t\n", *end)))
			return -EINVAL;
		p = end;
		if (!strcmp(name, "lmem_size")) {
			if (v < 0)
				return -EINVAL;
			*lmem_mib = (uint64_t)v;
		} else if (!strcmp(name, "reset")) {
			*reset = (int)v;
		} else if (!strcmp(name, "enable_hangcheck")) {
			*hangcheck = v != 0;
		}
	}
	return 0;
}

/*
 * The pages an integrated part's system-memory objects may hold. The
 * kernel keeps them in shmem, bounded by RAM (its shrinker acts under
 * memory pressure only), not by TTM's half-of-RAM page cap, so four 3 GiB
 * objects on a 16 GiB machine stay resident there instead of swapping one
 * out for each batch. The cap is lifted to all of RAM only while it is
 * TTM's default: a cap someone configured stays.
 */
static void gem_lift_page_cap(void)
{
	long phys = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	struct ttm_global_stats st;
	uint64_t pages;

	if (phys <= 0 || psz <= 0)
		return;
	pages = (uint64_t)phys * (uint64_t)psz / TTM_PAGE_SIZE;
	ttm_global_get_stats(&st);
	if (st.limit_pages != (pages / 2 ? pages / 2 : 1))
		return;
	ttm_global_config(&(struct ttm_global_config){.limit_pages = pages,
						      .dma32_limit_pages = st.dma32_limit_pages});
}

int i915_gem_device_create(const char *profile, struct i915_device **out)
{
	return i915_gem_device_create_params(profile, NULL, out);
}

int i915_gem_device_create_params(const char *profile, const char *params, struct i915_device **out)
{
	uint64_t lmem_mib = 0;
	int reset = 3, hangcheck = 1;
	const struct gem_profile_info *info = NULL;
	struct sim_gpu_config cfg;
	struct i915_device *i915;
	struct i915_gem_dev *dev;
	int ret;

	if (!out)
		return -EINVAL;
	if (!profile)
		profile = gem_profile_name_list[0];
	for (size_t i = 0; i < GEM_NUM_PROFILES; i++)
		if (!strcmp(gem_profiles[i].pub.name, profile))
			info = &gem_profiles[i];
	if (!info)
		return -EINVAL;
	ret = gem_parse_params(params, &lmem_mib, &reset, &hangcheck);
	if (ret)
		return ret;
	dev =
	    fault_should_fail(&gem_fault_buf_alloc, sizeof(*dev)) ? NULL : calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	sim_gpu_config_init(&cfg);
	cfg.engine_mask = info->engine_mask;
	cfg.lmem_size = info->lmem_size;
	if (lmem_mib && lmem_mib * MiB < cfg.lmem_size)
		cfg.lmem_size = lmem_mib * MiB;
	cfg.lmem_visible_size =
	    info->lmem_visible_size < cfg.lmem_size ? info->lmem_visible_size : cfg.lmem_size;
	/* Ring registers hold 32-bit GGTT addresses: keep the top page below 4 GiB. */
	cfg.ggtt_size = (4ull << 30) - MiB;
	ret = i915_device_create_sim(&cfg, &i915);
	if (ret)
		goto err_free;
	ret = i915_gem_init(i915);
	if (ret)
		goto err_dev;
	/*
	 * What the uAPI promises: Tiger Lake shares its LLC with the CPU and
	 * DG2 snoops system memory, so a WB mapping sees GPU writes with no
	 * domain call. Stop modelling a non-snooping CPU cache for this device.
	 */
	ttm_bo_vm_set_cpu_cache(&i915->drm.bdev, false);
	if (!info->lmem_size)
		gem_lift_page_cap();
	dev->i915 = i915;
	dev->info = info;
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->prime_lock, NULL);
	pthread_cond_init(&dev->async_cond, NULL);
	dev->proxy_context = dma_fence_context_alloc(1);
	INIT_LIST_HEAD(&dev->files);
	for (unsigned int i = 0; i < GEM_MMO_HASH; i++)
		INIT_LIST_HEAD(&dev->mmo_hash[i]);
	ttm_drm_idr_init(&dev->names);
	/* Fake offsets start above what a real mmap of a 32-bit offset reaches. */
	dev->next_offset = 1ull << 32;
	dev->next_file_id = 1;
	dev->param_reset = reset; /* default 3: full and engine resets */
	dev->param_hangcheck = hangcheck;
	dev->lmem_size = cfg.lmem_size;
	dev->lmem_visible_size = cfg.lmem_visible_size;
	dev->param_lmem_mib = lmem_mib;
	/* Physical ids run class by class: id order is the uAPI's order. */
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++) {
		const struct i915_engine *e = i915_engine_get(i915, id);

		if (e)
			dev->engines[dev->num_engines++] = (struct gem_uabi_engine){
			    .class = e->class, .instance = e->uabi_instance, .id = e->id};
	}
	i915->gem_uapi = dev;
	*out = i915;
	return 0;

err_dev:
	i915_device_destroy(i915);
err_free:
	free(dev);
	return ret;
}

void i915_gem_device_destroy(struct i915_device *i915)
{
	struct i915_gem_dev *dev;

	if (!i915 || !i915->gem_uapi)
		return;
	dev = i915->gem_uapi;
	for (;;) {
		struct i915_gem_file *file = NULL;

		pthread_mutex_lock(&dev->lock);
		if (!list_empty(&dev->files))
			file = list_first_entry(&dev->files, struct i915_gem_file, link);
		pthread_mutex_unlock(&dev->lock);
		if (!file)
			break;
		i915_gem_file_close(file);
	}
	/* Mappings the caller never unmapped hold their objects: drop them now. */
	ttm_bo_vm_munmap_device(&i915->drm.bdev);
	/* Queued batches hold objects and contexts until they are submitted. */
	while (gem_async_wait(dev, UINT32_MAX / 2))
		;
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
		i915_engine_wait_idle(&i915->engine[id], UINT32_MAX / 2);
	i915_gem_fini(i915);
	i915_device_destroy(i915);
	ttm_drm_idr_fini(&dev->names);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->prime_lock);
	pthread_cond_destroy(&dev->async_cond);
	free(dev);
}

int i915_gem_file_open(struct i915_device *i915, bool render, struct i915_gem_file **out)
{
	struct i915_gem_dev *dev = i915 ? i915->gem_uapi : NULL;
	struct i915_gem_file *file;
	int ret;

	if (!dev || !out)
		return -EINVAL;
	file = fault_should_fail(&gem_fault_file_alloc, sizeof(*file)) ? NULL
								       : calloc(1, sizeof(*file));
	if (!file)
		return -ENOMEM;
	file->dev = dev;
	file->render = render;
	file->bsd_engine = -1;
	pthread_mutex_init(&file->lock, NULL);
	drm_file_init(&file->drm);
	ttm_drm_idr_init(&file->handles);
	ttm_drm_idr_init(&file->contexts);
	ttm_drm_idr_init(&file->vms);
	ret = gem_context_open(file);
	if (ret) {
		drm_file_fini(&file->drm);
		ttm_drm_idr_fini(&file->handles);
		ttm_drm_idr_fini(&file->contexts);
		ttm_drm_idr_fini(&file->vms);
		pthread_mutex_destroy(&file->lock);
		free(file);
		return ret;
	}
	pthread_mutex_lock(&dev->lock);
	file->id = dev->next_file_id++;
	if (!render && !dev->master_id) {
		dev->master_id = file->id;
		file->was_master = true;
	}
	list_add_tail(&file->link, &dev->files);
	pthread_mutex_unlock(&dev->lock);
	*out = file;
	return 0;
}

/* Drop @file's grants on @obj's offsets. Device lock held. */
static void gem_mmo_revoke_locked(struct gem_obj *obj, uint32_t file_id)
{
	for (unsigned int t = 0; t < GEM_MMAP_NTYPES; t++) {
		struct gem_mmo *mmo = obj->mmo[t];

		for (uint32_t i = 0; mmo && i < mmo->ngrants; i++) {
			if (mmo->grants[i] == file_id) {
				mmo->grants[i] = mmo->grants[--mmo->ngrants];
				break;
			}
		}
	}
}

/*
 * One handle of @file on @obj went (closed, or the file closed): the
 * object's last handle takes its flink name with it, as in the kernel.
 * Returns the reference the name held (to be put unlocked), or NULL.
 */
static struct gem_obj *gem_handle_release(struct i915_gem_file *file, struct gem_obj *obj)
{
	struct i915_gem_dev *dev = file->dev;
	struct gem_obj *name_ref = NULL;

	pthread_mutex_lock(&dev->lock);
	gem_mmo_revoke_locked(obj, file->id);
	if (!--obj->handle_count && obj->name) {
		ttm_drm_idr_remove(&dev->names, obj->name);
		obj->name = 0;
		name_ref = obj;
	}
	pthread_mutex_unlock(&dev->lock);
	return name_ref;
}

int gem_handle_delete(struct i915_gem_file *file, uint32_t handle)
{
	struct gem_obj *obj, *name_ref;

	pthread_mutex_lock(&file->lock);
	obj = ttm_drm_idr_remove(&file->handles, handle);
	pthread_mutex_unlock(&file->lock);
	if (!obj)
		return -EINVAL;
	name_ref = gem_handle_release(file, obj);
	gem_obj_put(name_ref);
	gem_obj_put(obj);
	return 0;
}

void i915_gem_file_close(struct i915_gem_file *file)
{
	struct i915_gem_dev *dev;
	struct gem_obj *obj;
	uint32_t id = 0;

	if (!file)
		return;
	dev = file->dev;
	pthread_mutex_lock(&dev->lock);
	list_del_init(&file->link);
	if (dev->master_id == file->id)
		dev->master_id = 0;
	pthread_mutex_unlock(&dev->lock);
	gem_context_close_all(file);
	for (unsigned int i = 0; i < GEM_THROTTLE_SLOTS; i++)
		dma_fence_put(file->recent[i]);
	for (;;) {
		pthread_mutex_lock(&file->lock);
		obj = ttm_drm_idr_next(&file->handles, &id);
		if (obj)
			ttm_drm_idr_remove(&file->handles, id);
		pthread_mutex_unlock(&file->lock);
		if (!obj)
			break;
		gem_obj_put(gem_handle_release(file, obj));
		gem_obj_put(obj);
	}
	drm_file_fini(&file->drm);
	ttm_drm_idr_fini(&file->handles);
	ttm_drm_idr_fini(&file->contexts);
	ttm_drm_idr_fini(&file->vms);
	pthread_mutex_destroy(&file->lock);
	free(file);
}

/* --- mmap offsets --- */

static unsigned int gem_mmo_bucket(uint64_t offset)
{
	return (unsigned int)((offset >> 12) * 0x9e3779b1u >> 24) % GEM_MMO_HASH;
}

/*
 * The offset of @obj for @type, created on first use, and @file allowed to
 * map it (the kernel's mmap_offset_attach() + drm_vma_node_allow()).
 */
int gem_mmo_attach(struct i915_gem_file *file, struct gem_obj *obj, enum gem_mmap_type type,
		   __u64 *offset)
{
	struct i915_gem_dev *dev = file->dev;
	struct gem_mmo *mmo;
	uint32_t *grants;
	int ret = 0;

	pthread_mutex_lock(&dev->lock);
	mmo = obj->mmo[type];
	if (!mmo) {
		mmo = fault_should_fail(&gem_fault_mmo_alloc, sizeof(*mmo))
			  ? NULL
			  : calloc(1, sizeof(*mmo));
		if (!mmo) {
			ret = -ENOMEM;
			goto out;
		}
		mmo->obj = obj;
		mmo->type = type;
		mmo->offset = dev->next_offset;
		dev->next_offset += obj->size;
		list_add(&mmo->hlink, &dev->mmo_hash[gem_mmo_bucket(mmo->offset)]);
		obj->mmo[type] = mmo;
	}
	for (uint32_t i = 0; i < mmo->ngrants; i++)
		if (mmo->grants[i] == file->id)
			goto done;
	grants = fault_should_fail(&gem_fault_mmo_alloc, sizeof(*grants))
		     ? NULL
		     : realloc(mmo->grants, (mmo->ngrants + 1) * sizeof(*grants));
	if (!grants) {
		ret = -ENOMEM;
		goto out;
	}
	grants[mmo->ngrants++] = file->id;
	mmo->grants = grants;
done:
	*offset = mmo->offset;
out:
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/* The object's offsets go with it. Called at the last reference. */
void gem_mmo_free_all(struct gem_obj *obj)
{
	struct i915_gem_dev *dev = obj->dev;

	pthread_mutex_lock(&dev->lock);
	for (unsigned int t = 0; t < GEM_MMAP_NTYPES; t++) {
		struct gem_mmo *mmo = obj->mmo[t];

		if (!mmo)
			continue;
		list_del_init(&mmo->hlink);
		free(mmo->grants);
		free(mmo);
		obj->mmo[t] = NULL;
	}
	pthread_mutex_unlock(&dev->lock);
}

/*
 * Where a CPU fault may put @obj: lmem only inside the CPU-visible window,
 * system memory when the object may live there.
 * The CPU reaches lmem through one window of the BAR per object
 * (i915_io_mem_reserve() maps a resource only when its blocks are one run),
 * so a fragmented lmem object is made contiguous by the fault, as a
 * kernel fault would otherwise map it page by page.
 */
static void gem_cpu_placement(struct gem_obj *obj, struct ttm_place *places,
			      struct ttm_placement *pl)
{
	unsigned int n = 0;
	bool smem = obj->nregions == 0;

	for (uint32_t i = 0; i < obj->nregions; i++) {
		if ((obj->regions[i] >> 16) == I915_MEMORY_CLASS_DEVICE && obj->dev->lmem_size) {
			places[n] = (struct ttm_place){
			    .mem_type = TTM_PL_VRAM,
			    .lpfn = (uint32_t)(obj->dev->lmem_visible_size >> TTM_PAGE_SHIFT),
			    .flags = TTM_PL_FLAG_CONTIGUOUS,
			};
			n++;
		} else {
			smem = true;
		}
	}
	if (smem) {
		/* A GGTT-bound object stays put: its tt pages are CPU pages. */
		places[n++] = (struct ttm_place){.mem_type = TTM_PL_SYSTEM};
		places[n++] = (struct ttm_place){.mem_type = TTM_PL_TT};
	}
	pl->num_placement = n;
	pl->placement = places;
}

/*
 * A CPU fault on @priv (a struct gem_obj): where the object may be for the
 * CPU now, or SIGBUS for an object that has no pages and may not get any
 * (the kernel's fault handlers fail on a purgeable object: its get_pages
 * refuses anything but WILLNEED). The device lock is only tried: a holder
 * may wait for this BO's reservation.
 */
static int gem_fault_begin(void *priv, struct ttm_buffer_object *bo,
			   struct ttm_placement *placement)
{
	struct gem_obj *obj = priv;
	struct ttm_place places[6];
	struct ttm_placement pl;
	bool willneed;

	(void)bo;
	if (pthread_mutex_trylock(&obj->dev->lock))
		return -EAGAIN;
	willneed = obj->madv == I915_MADV_WILLNEED;
	pthread_mutex_unlock(&obj->dev->lock);
	if (!willneed && !gem_obj_has_pages(obj))
		return -EFAULT;
	gem_cpu_placement(obj, places, &pl);
	memcpy((struct ttm_place *)placement->placement, places,
	       pl.num_placement * sizeof(places[0]));
	placement->num_placement = pl.num_placement;
	return 0;
}

/* The device lock was busy: wait until its holder is out. */
static void gem_fault_wait(void *priv)
{
	struct gem_obj *obj = priv;

	pthread_mutex_lock(&obj->dev->lock);
	pthread_mutex_unlock(&obj->dev->lock);
}

static void gem_fault_end(void *priv)
{
	(void)priv;
}

/* Every CPU mapping (each part a partial munmap leaves) holds its object. */
static void gem_vma_open(void *priv)
{
	gem_obj_get(priv);
}

static void gem_vma_close(void *priv)
{
	gem_obj_put(priv);
}

static const struct ttm_bo_vm_fault_ops gem_fault_ops = {
    .begin = gem_fault_begin,
    .wait = gem_fault_wait,
    .end = gem_fault_end,
    .open = gem_vma_open,
    .close = gem_vma_close,
    .no_gpu_wait = true,
};

/* The mmap offset whose range holds @offset. Device lock held. */
static struct gem_mmo *gem_mmo_find_locked(struct i915_gem_dev *dev, uint64_t offset)
{
	struct gem_mmo *mmo;

	list_for_each_entry (mmo, &dev->mmo_hash[gem_mmo_bucket(offset)], struct gem_mmo, hlink)
		if (mmo->offset == offset)
			return mmo;
	for (unsigned int b = 0; b < GEM_MMO_HASH; b++)
		list_for_each_entry (mmo, &dev->mmo_hash[b], struct gem_mmo, hlink)
			if (offset > mmo->offset && offset - mmo->offset < mmo->obj->size)
				return mmo;
	return NULL;
}

/*
 * mmap(2) of bytes [@delta, @delta + @len) of @obj: a CPU mapping of its
 * own (an address range at that page offset, placed as @hint and the
 * MAP_FIXED / MAP_FIXED_NOREPLACE bits of @flags say), holding @obj until
 * its last part is unmapped.
 */
int gem_map_object(struct i915_gem_dev *dev, struct gem_obj *obj, uint64_t delta, size_t len,
		   void *hint, int flags, void **addr)
{
	struct ttm_operation_ctx ctx = {.interruptible = true};
	int fixed = (flags & MAP_FIXED_NOREPLACE) ? MAP_FIXED_NOREPLACE
		    : (flags & MAP_FIXED)	  ? MAP_FIXED
						  : 0;

	(void)dev;
	if (!len || len > SIZE_MAX - TTM_PAGE_SIZE)
		return -EINVAL;
	return ttm_bo_vm_mmap_vma(&obj->bo->base, &gem_fault_ops, obj, delta / TTM_PAGE_SIZE,
				  (unsigned long)((len + TTM_PAGE_SIZE - 1) / TTM_PAGE_SIZE), hint,
				  fixed, &ctx, addr);
}

int i915_gem_mmap(struct i915_gem_file *file, void *hint, size_t len, int prot, int flags,
		  off_t offset, void **addr)
{
	struct i915_gem_dev *dev;
	struct gem_obj *obj = NULL;
	bool granted = false;
	struct gem_mmo *mmo;
	uint64_t delta = 0;
	int ret;

	if (!file || !addr || offset < 0)
		return -EINVAL;
	dev = file->dev;
	if (!len || len > SIZE_MAX - TTM_PAGE_SIZE || (offset & (TTM_PAGE_SIZE - 1)) ||
	    !(flags & MAP_SHARED))
		return -EINVAL;
	/* As vma_pages(): the object must hold every page of the mapping. */
	len = (len + TTM_PAGE_SIZE - 1) & ~(size_t)(TTM_PAGE_SIZE - 1);
	(void)prot;
	ret = -EINVAL; /* no such offset */
	pthread_mutex_lock(&dev->lock);
	/* The exact start is the common case; else any page inside an object. */
	mmo = gem_mmo_find_locked(dev, (uint64_t)offset);
	if (mmo) {
		delta = (uint64_t)offset - mmo->offset;
		for (uint32_t i = 0; i < mmo->ngrants; i++)
			granted |= mmo->grants[i] == file->id;
		ret = !granted ? -EACCES : len > mmo->obj->size - delta ? -EINVAL : 0;
		if (!ret)
			obj = gem_obj_get(mmo->obj);
	}
	pthread_mutex_unlock(&dev->lock);
	if (!obj)
		return ret;
	ret = gem_map_object(dev, obj, delta, len, hint, flags, addr);
	gem_obj_put(obj);
	return ret;
}

int i915_gem_munmap(struct i915_device *i915, void *addr, size_t len)
{
	if (!i915 || !i915->gem_uapi)
		return -ENOENT;
	return ttm_bo_vm_munmap_vma(addr, len);
}
