// SPDX-License-Identifier: MIT
/*
 * ttm_drm_file: the uAPI's devices, open files and user objects: the
 * process-wide descriptor table, the device-wide handle table and each
 * client's references (the 2008 drm_file / drm_ref_object split), plus the
 * small id table both are built on.
 *
 * The id table is written here rather than taken from a library: the
 * project has no container library, the kernel's idr is a radix tree that
 * would be most of this file again, and handles are dense small integers
 * handed out lowest-free-first (like GEM handles), so a flat array with a
 * "nothing free below" hint gives O(1) lookup and amortised O(1) insertion
 * in a few dozen lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm_drm.h>

#include "ttm_drm_priv.h"

/* ---- id table ---------------------------------------------------------- */

void ttm_drm_idr_init(struct ttm_drm_idr *idr)
{
	memset(idr, 0, sizeof(*idr));
}

void ttm_drm_idr_fini(struct ttm_drm_idr *idr)
{
	free(idr->slots);
	memset(idr, 0, sizeof(*idr));
}

static int ttm_drm_idr_grow(struct ttm_drm_idr *idr, uint32_t id)
{
	uint64_t n = idr->nslots ? (uint64_t)idr->nslots * 2 : 16;
	void **slots;

	if (id < idr->nslots)
		return 0;
	if (n <= id)
		n = (uint64_t)id + 1;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	if (n <= id)
		return -ENOSPC;
	if (fault_should_fail(&ttm_fault_handle_alloc, n * sizeof(*slots)))
		return -ENOMEM;
	slots = realloc(idr->slots, n * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	memset(slots + idr->nslots, 0, (n - idr->nslots) * sizeof(*slots));
	idr->slots = slots;
	idr->nslots = (uint32_t)n;
	return 0;
}

/* Put @ptr in free slot @id, growing the table as needed. */
static int ttm_drm_idr_store(struct ttm_drm_idr *idr, uint32_t id, void *ptr)
{
	int ret = ttm_drm_idr_grow(idr, id);

	if (ret)
		return ret;
	idr->slots[id] = ptr;
	idr->count++;
	if (id == idr->hint)
		idr->hint = id + 1;
	return 0;
}

int64_t ttm_drm_idr_alloc(struct ttm_drm_idr *idr, void *ptr, uint32_t start, uint32_t end)
{
	uint32_t id = start > idr->hint ? start : idr->hint;
	int ret;

	if (!ptr || start >= end)
		return -EINVAL;
	while (id < end && id < idr->nslots && idr->slots[id])
		id++;
	if (id >= end)
		return -ENOSPC;
	ret = ttm_drm_idr_store(idr, id, ptr);
	if (ret)
		return ret;
	return id;
}

int ttm_drm_idr_insert(struct ttm_drm_idr *idr, uint32_t id, void *ptr)
{
	if (!ptr || id == UINT32_MAX)
		return -EINVAL;
	if (id < idr->nslots && idr->slots[id])
		return -EEXIST;
	return ttm_drm_idr_store(idr, id, ptr);
}

void *ttm_drm_idr_find(const struct ttm_drm_idr *idr, uint32_t id)
{
	return id < idr->nslots ? idr->slots[id] : NULL;
}

void *ttm_drm_idr_remove(struct ttm_drm_idr *idr, uint32_t id)
{
	void *ptr = ttm_drm_idr_find(idr, id);

	if (!ptr)
		return NULL;
	idr->slots[id] = NULL;
	idr->count--;
	if (id < idr->hint)
		idr->hint = id;
	return ptr;
}

void *ttm_drm_idr_next(const struct ttm_drm_idr *idr, uint32_t *id)
{
	for (uint32_t i = *id; i < idr->nslots; i++) {
		if (idr->slots[i]) {
			*id = i;
			return idr->slots[i];
		}
	}
	return NULL;
}

/* ---- process-wide state ----------------------------------------------- */

/*
 * The registry of devices (for drmOpen by name) and the descriptor table.
 * Lock order: ttm_drm_global_lock, then a device's lock.
 */
static pthread_mutex_t ttm_drm_global_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head ttm_drm_devices = LIST_HEAD_INIT(ttm_drm_devices);
static struct ttm_drm_file **ttm_drm_fds;
static int ttm_drm_nfds;

int ttm_drm_device_init(struct ttm_drm_device *ddev, const struct ttm_device_funcs *funcs,
			const struct ttm_drm_driver *driver, const char *name, bool use_dma32)
{
	struct ttm_drm_device *other;
	size_t len;
	int ret;

	if (!ddev || !funcs || !driver || !name || !driver->fence_emit)
		return -EINVAL;
	if (!driver->num_fence_classes || driver->num_fence_classes > TTM_DRM_MAX_FENCE_CLASSES)
		return -EINVAL;
	if (driver->fence_types & DRM_FENCE_MASK_DRIVER)
		return -EINVAL;
	len = strlen(name);
	if (!len || len >= TTM_DRM_NAME_LEN)
		return -EINVAL;

	pthread_mutex_lock(&ttm_drm_global_lock);
	list_for_each_entry (other, &ttm_drm_devices, struct ttm_drm_device, link) {
		if (!strcmp(other->name, name)) {
			pthread_mutex_unlock(&ttm_drm_global_lock);
			return -EEXIST;
		}
	}
	ret = ttm_device_init(&ddev->bdev, funcs, use_dma32);
	if (ret) {
		pthread_mutex_unlock(&ttm_drm_global_lock);
		return ret;
	}
	/* Moves must invalidate CPU views even while the first map is set up. */
	ttm_bo_vm_init_device(&ddev->bdev);
	ddev->driver = driver;
	memcpy(ddev->name, name, len + 1);
	pthread_rwlock_init(&ddev->mm_lock, NULL);
	pthread_mutex_init(&ddev->lock, NULL);
	ttm_drm_idr_init(&ddev->objects);
	memset(ddev->mem, 0, sizeof(ddev->mem));
	INIT_LIST_HEAD(&ddev->files);
	ddev->num_files = 0;
	/* Map handles look like 2008 mmap offsets: page-granular, above 4 GiB. */
	ddev->next_map = 1ull << 32;
	list_add_tail(&ddev->link, &ttm_drm_devices);
	pthread_mutex_unlock(&ttm_drm_global_lock);
	return 0;
}

int ttm_drm_device_fini(struct ttm_drm_device *ddev)
{
	int ret;

	pthread_mutex_lock(&ttm_drm_global_lock);
	pthread_mutex_lock(&ddev->lock);
	if (ddev->num_files || ddev->objects.count) {
		pthread_mutex_unlock(&ddev->lock);
		pthread_mutex_unlock(&ttm_drm_global_lock);
		return -EBUSY;
	}
	pthread_mutex_unlock(&ddev->lock);
	ttm_device_flush_delayed(&ddev->bdev, true);
	if (atomic_load(&ddev->bdev.stats.bo_count)) {
		pthread_mutex_unlock(&ttm_drm_global_lock);
		return -EBUSY;
	}
	for (unsigned t = TTM_PL_TT; t < TTM_NUM_MEM_TYPES; t++) {
		struct ttm_drm_mem_type *mt = &ddev->mem[t];

		if (!mt->rman)
			continue;
		ttm_set_driver_manager(&ddev->bdev, t, NULL);
		ret = ttm_range_manager_fini(mt->rman);
		if (ret) {
			/* Cannot happen with no BO alive; keep it registered. */
			ttm_set_driver_manager(&ddev->bdev, t, &mt->rman->manager);
			pthread_mutex_unlock(&ttm_drm_global_lock);
			return ret;
		}
		free(mt->rman);
		memset(mt, 0, sizeof(*mt));
	}
	ret = ttm_device_fini(&ddev->bdev);
	if (ret) {
		pthread_mutex_unlock(&ttm_drm_global_lock);
		return ret;
	}
	list_del_init(&ddev->link);
	pthread_mutex_unlock(&ttm_drm_global_lock);
	ttm_drm_idr_fini(&ddev->objects);
	pthread_mutex_destroy(&ddev->lock);
	pthread_rwlock_destroy(&ddev->mm_lock);
	return 0;
}

/* ---- files ------------------------------------------------------------- */

int ttm_drm_open(struct ttm_drm_device *ddev)
{
	struct ttm_drm_file *file;
	struct stat st;
	int fd, ret;

	if (!ddev)
		return -EINVAL;
	if (fault_should_fail(&ttm_fault_uapi_alloc, sizeof(*file)))
		return -ENOMEM;
	file = calloc(1, sizeof(*file));
	if (!file)
		return -ENOMEM;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(file);
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		goto err_close;
	}
	file->ddev = ddev;
	file->fd = fd;
	file->fd_dev = st.st_dev;
	file->fd_ino = st.st_ino;
	atomic_init(&file->kref, 1);
	ttm_drm_idr_init(&file->refs);
	INIT_LIST_HEAD(&file->unfenced);

	pthread_mutex_lock(&ttm_drm_global_lock);
	if (fd >= ttm_drm_nfds) {
		int n = ttm_drm_nfds ? ttm_drm_nfds : 64;
		struct ttm_drm_file **fds;

		while (n <= fd)
			n *= 2;
		fds = fault_should_fail(&ttm_fault_uapi_alloc, (size_t)n * sizeof(*fds))
			  ? NULL
			  : realloc(ttm_drm_fds, (size_t)n * sizeof(*fds));
		if (!fds) {
			pthread_mutex_unlock(&ttm_drm_global_lock);
			ret = -ENOMEM;
			goto err_close;
		}
		memset(fds + ttm_drm_nfds, 0, (size_t)(n - ttm_drm_nfds) * sizeof(*fds));
		ttm_drm_fds = fds;
		ttm_drm_nfds = n;
	}
	/* The number is ours while the /dev/null descriptor is held open. */
	ttm_drm_fds[fd] = file;
	pthread_mutex_lock(&ddev->lock);
	list_add_tail(&file->link, &ddev->files);
	ddev->num_files++;
	pthread_mutex_unlock(&ddev->lock);
	pthread_mutex_unlock(&ttm_drm_global_lock);
	return fd;

err_close:
	close(fd);
	free(file);
	return ret;
}

int ttm_drm_open_by_name(const char *name)
{
	struct ttm_drm_device *ddev, *found = NULL;

	if (!name)
		return -EINVAL;
	pthread_mutex_lock(&ttm_drm_global_lock);
	list_for_each_entry (ddev, &ttm_drm_devices, struct ttm_drm_device, link) {
		if (!strcmp(ddev->name, name)) {
			found = ddev;
			break;
		}
	}
	pthread_mutex_unlock(&ttm_drm_global_lock);
	/* A device is finished only by its creator, after its clients closed. */
	return found ? ttm_drm_open(found) : -ENODEV;
}

struct ttm_drm_file *ttm_drm_file_get_fd(int fd)
{
	struct ttm_drm_file *file = NULL;

	pthread_mutex_lock(&ttm_drm_global_lock);
	if (fd >= 0 && fd < ttm_drm_nfds && ttm_drm_fds[fd]) {
		file = ttm_drm_fds[fd];
		atomic_fetch_add(&file->kref, 1);
	}
	pthread_mutex_unlock(&ttm_drm_global_lock);
	return file;
}

/* One object whose hold the closing file gave up, for work after the lock. */
struct ttm_drm_release_item {
	struct ttm_drm_object *obj;
	unsigned long maps;
	bool table_ref;
};

static void ttm_drm_file_release(struct ttm_drm_file *file)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_release_item *items = NULL;
	struct ttm_drm_ref *ref;
	size_t n = 0, cap;
	uint32_t id = 0;
	struct stat st;

	ttm_drm_file_drop_unfenced(file);

	pthread_mutex_lock(&ddev->lock);
	list_del_init(&file->link);
	ddev->num_files--;
	cap = file->refs.count;
	/*
	 * Without memory for the list the references are still dropped; only
	 * the container puts would be lost, so fall back to one at a time.
	 */
	if (cap && !fault_should_fail(&ttm_fault_uapi_alloc, cap * sizeof(*items)))
		items = calloc(cap, sizeof(*items));
	while ((ref = ttm_drm_idr_next(&file->refs, &id))) {
		struct ttm_drm_object *obj = ref->obj;
		struct ttm_drm_release_item it = {obj, ref->maps, false};

		ttm_drm_idr_remove(&file->refs, id);
		if (obj->owner == file)
			obj->owner = NULL;
		if (--obj->refs == 0) {
			ttm_drm_idr_remove(&ddev->objects, obj->handle);
			it.table_ref = true;
		}
		free(ref);
		if (it.maps && !it.table_ref)
			obj->ops->get(obj);
		if (items) {
			items[n++] = it;
		} else {
			pthread_mutex_unlock(&ddev->lock);
			if (it.maps)
				ttm_drm_bo_unmap_all(to_ttm_drm_bo(obj), it.maps);
			if (it.maps && !it.table_ref)
				obj->ops->put(obj);
			if (it.table_ref)
				ttm_drm_object_removed(obj);
			pthread_mutex_lock(&ddev->lock);
		}
		id++;
	}
	pthread_mutex_unlock(&ddev->lock);

	for (size_t i = 0; i < n; i++) {
		if (items[i].maps)
			ttm_drm_bo_unmap_all(to_ttm_drm_bo(items[i].obj), items[i].maps);
		if (items[i].maps && !items[i].table_ref)
			items[i].obj->ops->put(items[i].obj);
		if (items[i].table_ref)
			ttm_drm_object_removed(items[i].obj);
	}
	free(items);

	/* The client may have closed the number itself and had it reused. */
	if (!fstat(file->fd, &st) && st.st_dev == file->fd_dev && st.st_ino == file->fd_ino)
		close(file->fd);
	ttm_drm_idr_fini(&file->refs);
	free(file);
}

void ttm_drm_file_put(struct ttm_drm_file *file)
{
	if (file && atomic_fetch_sub(&file->kref, 1) == 1)
		ttm_drm_file_release(file);
}

int ttm_drm_close(int fd)
{
	struct ttm_drm_file *file = NULL;

	pthread_mutex_lock(&ttm_drm_global_lock);
	if (fd >= 0 && fd < ttm_drm_nfds) {
		file = ttm_drm_fds[fd];
		ttm_drm_fds[fd] = NULL;
	}
	pthread_mutex_unlock(&ttm_drm_global_lock);
	if (!file)
		return -EBADF;
	ttm_drm_file_put(file);
	return 0;
}

/* ---- user objects ----------------------------------------------------- */

int ttm_drm_object_add(struct ttm_drm_file *file, struct ttm_drm_object *obj)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_ref *ref;
	int64_t id;
	int ret;

	ref = fault_should_fail(&ttm_fault_handle_alloc, sizeof(*ref)) ? NULL
								       : calloc(1, sizeof(*ref));
	if (!ref)
		return -ENOMEM;
	ref->obj = obj;
	ref->count = 1;
	pthread_mutex_lock(&ddev->lock);
	/* Handle 0 is "no buffer" to 2008 clients; stay in the positive ints. */
	id = ttm_drm_idr_alloc(&ddev->objects, obj, 1, INT32_MAX);
	if (id < 0) {
		pthread_mutex_unlock(&ddev->lock);
		free(ref);
		return (int)id;
	}
	ret = ttm_drm_idr_insert(&file->refs, (uint32_t)id, ref);
	if (ret) {
		ttm_drm_idr_remove(&ddev->objects, (uint32_t)id);
		pthread_mutex_unlock(&ddev->lock);
		free(ref);
		return ret;
	}
	obj->handle = (uint32_t)id;
	obj->owner = file;
	obj->refs = 1;
	pthread_mutex_unlock(&ddev->lock);
	return 0;
}

struct ttm_drm_object *ttm_drm_object_lookup(struct ttm_drm_file *file, uint32_t handle,
					     uint32_t type)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_object *obj = NULL;
	struct ttm_drm_ref *ref;

	pthread_mutex_lock(&ddev->lock);
	ref = ttm_drm_idr_find(&file->refs, handle);
	if (ref && ref->obj->type == type) {
		obj = ref->obj;
		obj->ops->get(obj);
	}
	pthread_mutex_unlock(&ddev->lock);
	return obj;
}

int ttm_drm_object_reference(struct ttm_drm_file *file, uint32_t handle, uint32_t type,
			     struct ttm_drm_object **out)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_object *obj;
	struct ttm_drm_ref *ref, *nref;
	int ret = 0;

	nref = fault_should_fail(&ttm_fault_handle_alloc, sizeof(*nref)) ? NULL
									 : calloc(1, sizeof(*nref));
	if (!nref)
		return -ENOMEM;
	pthread_mutex_lock(&ddev->lock);
	obj = ttm_drm_idr_find(&ddev->objects, handle);
	ref = ttm_drm_idr_find(&file->refs, handle);
	if (!obj || obj->type != type || (!ref && obj->owner != file && !obj->shareable)) {
		/* Invisible and nonexistent look the same (2008 lookup). */
		ret = -EINVAL;
	} else if (ref) {
		ref->count++;
	} else {
		nref->obj = obj;
		nref->count = 1;
		ret = ttm_drm_idr_insert(&file->refs, handle, nref);
		if (!ret) {
			obj->refs++;
			nref = NULL;
		}
	}
	if (!ret) {
		obj->ops->get(obj);
		*out = obj;
	}
	pthread_mutex_unlock(&ddev->lock);
	free(nref);
	return ret;
}

/* Drop @ref's entry if it holds nothing; true when the object lost its last file. */
static bool ttm_drm_ref_release_locked(struct ttm_drm_file *file, struct ttm_drm_ref *ref)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_object *obj = ref->obj;

	if (ref->count || ref->maps)
		return false;
	ttm_drm_idr_remove(&file->refs, obj->handle);
	free(ref);
	if (--obj->refs)
		return false;
	ttm_drm_idr_remove(&ddev->objects, obj->handle);
	return true;
}

int ttm_drm_object_unreference(struct ttm_drm_file *file, uint32_t handle, uint32_t type)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_object *obj;
	struct ttm_drm_ref *ref;
	bool last;

	pthread_mutex_lock(&ddev->lock);
	ref = ttm_drm_idr_find(&file->refs, handle);
	if (!ref || ref->obj->type != type || !ref->count) {
		pthread_mutex_unlock(&ddev->lock);
		return -EINVAL;
	}
	obj = ref->obj;
	ref->count--;
	last = ttm_drm_ref_release_locked(file, ref);
	pthread_mutex_unlock(&ddev->lock);
	if (last)
		ttm_drm_object_removed(obj);
	return 0;
}

int ttm_drm_ref_map(struct ttm_drm_file *file, uint32_t handle, int delta)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_object *obj;
	struct ttm_drm_ref *ref;
	bool last = false;

	pthread_mutex_lock(&ddev->lock);
	ref = ttm_drm_idr_find(&file->refs, handle);
	if (!ref || ref->obj->type != TTM_DRM_OBJECT_BO || (delta < 0 && !ref->maps) ||
	    (delta > 0 && !ref->count)) {
		pthread_mutex_unlock(&ddev->lock);
		return -EINVAL;
	}
	obj = ref->obj;
	if (delta > 0) {
		ref->maps++;
	} else {
		ref->maps--;
		last = ttm_drm_ref_release_locked(file, ref);
	}
	pthread_mutex_unlock(&ddev->lock);
	if (last)
		ttm_drm_object_removed(obj);
	return 0;
}

int ttm_drm_file_maps(struct ttm_drm_file *file, uint32_t handle)
{
	struct ttm_drm_ref *ref;
	int maps;

	pthread_mutex_lock(&file->ddev->lock);
	ref = ttm_drm_idr_find(&file->refs, handle);
	maps = ref ? (int)ref->maps : 0;
	pthread_mutex_unlock(&file->ddev->lock);
	return maps;
}

/* ---- info dump -------------------------------------------------------- */

int ttm_drm_info_print(int fd, FILE *f)
{
	struct ttm_drm_file *file = ttm_drm_file_get_fd(fd), *other;
	struct ttm_drm_device *ddev;
	unsigned long bos = 0, fences = 0, shareable = 0;
	struct ttm_drm_object *obj;
	uint32_t id = 0;

	if (!file)
		return -EBADF;
	ddev = file->ddev;
	ttm_device_print(&ddev->bdev, f);

	pthread_mutex_lock(&ddev->lock);
	fprintf(f, "uapi device \"%s\": %u fence class(es), fence types 0x%x\n", ddev->name,
		ddev->driver->num_fence_classes, ddev->driver->fence_types | DRM_FENCE_TYPE_EXE);
	for (unsigned t = TTM_PL_TT; t < TTM_NUM_MEM_TYPES; t++) {
		const struct ttm_drm_mem_type *mt = &ddev->mem[t];
		const struct ttm_resource_manager *man = ttm_manager_type(&ddev->bdev, t);

		if (mt->rman)
			fprintf(f, "  mem type %u: pages %llu+%llu%s\n", t,
				(unsigned long long)mt->p_offset, (unsigned long long)mt->p_size,
				mt->locked ? " (locked)" : "");
		else if (man && (ddev->driver->mem_types & (1u << t)))
			fprintf(f, "  mem type %u: pages 0+%llu (driver's)\n", t,
				(unsigned long long)man->size);
	}
	while ((obj = ttm_drm_idr_next(&ddev->objects, &id))) {
		if (obj->type == TTM_DRM_OBJECT_BO)
			bos++;
		else
			fences++;
		shareable += obj->shareable;
		id++;
	}
	fprintf(f, "  objects: %lu buffer(s), %lu fence(s), %lu shareable\n", bos, fences,
		shareable);
	fprintf(f, "  clients: %lu\n", ddev->num_files);
	list_for_each_entry (other, &ddev->files, struct ttm_drm_file, link) {
		unsigned long maps = 0;
		struct ttm_drm_ref *ref;

		id = 0;
		while ((ref = ttm_drm_idr_next(&other->refs, &id))) {
			maps += ref->maps;
			id++;
		}
		fprintf(f, "    fd %d%s: %u handle(s), %lu map(s)\n", other->fd,
			other == file ? " (this)" : "", other->refs.count, maps);
	}
	pthread_mutex_unlock(&ddev->lock);
	ttm_drm_file_put(file);
	return 0;
}
