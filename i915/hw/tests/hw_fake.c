// SPDX-License-Identifier: MIT
/*
 * The recording fake i915: see hw_fake.h. Test-only; never part of libi915_hw.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "hw_fake.h"

void hw_fake_init(struct hw_fake *fake)
{
	memset(fake, 0, sizeof(*fake));
	pthread_mutex_init(&fake->lock, NULL);
	fake->num_nodes = 1;
	snprintf(fake->nodes[0].path, HW_PATH_MAX, "/dev/dri/renderD128");
	snprintf(fake->nodes[0].driver, sizeof(fake->nodes[0].driver), "i915");
	fake->chipset_id = 0x9a49;
	fake->softpin = 1;
	fake->exec_fence = 1;
	fake->aperture = 256ull << 20;
	fake->num_regions = 1;
	fake->regions[0] = (struct hw_region){
	    .id = {HW_MEMORY_CLASS_SYSTEM, 0},
	    .probed_size = 16ull << 30,
	    .unallocated_size = 8ull << 30,
	};
	fake->vm_size = 1ull << 48;
	fake->next_handle = 1;
}

void hw_fake_make_discrete(struct hw_fake *fake)
{
	fake->regions[fake->num_regions++] = (struct hw_region){
	    .id = {HW_MEMORY_CLASS_DEVICE, 0},
	    .probed_size = 4ull << 30,
	    .unallocated_size = 4ull << 30,
	    .cpu_visible_size = 256ull << 20,
	};
}

void hw_fake_fini(struct hw_fake *fake)
{
	unsigned int i;

	for (i = 0; i < fake->num_fences; i++)
		if (!fake->fences[i].closed)
			close(fake->fences[i].fd);
	pthread_mutex_destroy(&fake->lock);
}

struct hw_fake *hw_fake_new(void)
{
	struct hw_fake *fake = malloc(sizeof(*fake));

	if (fake)
		hw_fake_init(fake);
	return fake;
}

void hw_fake_free(struct hw_fake *fake)
{
	if (!fake)
		return;
	hw_fake_fini(fake);
	free(fake);
}

bool hw_fake_clean(const struct hw_fake *fake, char *why, size_t len)
{
	bool clean = !fake->open_fds && !fake->live_handles && !fake->live_maps &&
		     !fake->live_ctx && !fake->live_vms;

	if (!clean && why && len)
		snprintf(why, len, "held: %d fds, %d handles, %d maps, %d contexts, %d VMs",
			 fake->open_fds, fake->live_handles, fake->live_maps, fake->live_ctx,
			 fake->live_vms);
	return clean;
}

void hw_fake_clear_calls(struct hw_fake *fake)
{
	pthread_mutex_lock(&fake->lock);
	fake->num_calls = 0;
	pthread_mutex_unlock(&fake->lock);
}

int hw_fake_signal(struct hw_fake *fake, unsigned int idx, int status)
{
	uint64_t one = 1;
	int ret = 0;

	pthread_mutex_lock(&fake->lock);
	if (idx >= fake->num_fences || fake->fences[idx].closed) {
		ret = -EINVAL;
	} else {
		fake->fences[idx].status = status;
		if (write(fake->fences[idx].fd, &one, sizeof(one)) != sizeof(one))
			ret = -errno;
	}
	pthread_mutex_unlock(&fake->lock);
	return ret;
}

int hw_fake_new_fence(struct hw_fake *fake, int *fd)
{
	int idx;

	pthread_mutex_lock(&fake->lock);
	if (fake->num_fences >= HW_FAKE_MAX_FENCES) {
		idx = -ENOSPC;
	} else {
		*fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (*fd < 0) {
			idx = -errno;
		} else {
			idx = (int)fake->num_fences;
			fake->fences[fake->num_fences++] = (struct hw_fake_fence){.fd = *fd};
		}
	}
	pthread_mutex_unlock(&fake->lock);
	return idx;
}

int hw_fake_find(struct hw_fake *fake, unsigned long request, unsigned int from)
{
	unsigned int i;
	int found = -1;

	pthread_mutex_lock(&fake->lock);
	for (i = from; i < fake->num_calls; i++) {
		if (fake->calls[i].request == request) {
			found = (int)i;
			break;
		}
	}
	pthread_mutex_unlock(&fake->lock);
	return found;
}

unsigned int hw_fake_count(struct hw_fake *fake, unsigned long request)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&fake->lock);
	for (i = 0; i < fake->num_calls; i++)
		n += fake->calls[i].request == request;
	pthread_mutex_unlock(&fake->lock);
	return n;
}

static int fake_render_nodes(void *data, char (*paths)[HW_PATH_MAX], int max)
{
	struct hw_fake *fake = data;
	int i;

	for (i = 0; i < fake->num_nodes && i < max; i++)
		memcpy(paths[i], fake->nodes[i].path, HW_PATH_MAX);
	return i;
}

/* Which node an fd was opened on: encoded in the eventfd's counter. */
static int fake_node_of(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	/* Put it back: the counter is the record. */
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return (int)v - 1;
}

static int fake_open(void *data, const char *path)
{
	struct hw_fake *fake = data;
	int i, fd;

	for (i = 0; i < fake->num_nodes; i++) {
		if (strcmp(fake->nodes[i].path, path))
			continue;
		if (fake->nodes[i].open_err)
			return fake->nodes[i].open_err;
		fd = eventfd((unsigned int)i + 1, EFD_CLOEXEC | EFD_NONBLOCK);
		if (fd < 0)
			return -errno;
		pthread_mutex_lock(&fake->lock);
		fake->open_fds++;
		pthread_mutex_unlock(&fake->lock);
		return fd;
	}
	return -ENOENT;
}

static int fake_close(void *data, int fd)
{
	struct hw_fake *fake = data;
	unsigned int i;
	bool fence = false;

	pthread_mutex_lock(&fake->lock);
	for (i = 0; i < fake->num_fences; i++) {
		if (fake->fences[i].fd == fd && !fake->fences[i].closed) {
			fake->fences[i].closed = true;
			fence = true;
			break;
		}
	}
	if (!fence)
		fake->open_fds--;
	pthread_mutex_unlock(&fake->lock);
	return close(fd) ? -errno : 0;
}

static int fake_version(void *data, int fd, struct hw_drm_version *ver)
{
	struct hw_fake *fake = data;
	int node = fake_node_of(fd);

	if (node < 0 || node >= fake->num_nodes)
		return -EBADF;
	memset(ver, 0, sizeof(*ver));
	memcpy(ver->name, fake->nodes[node].driver, sizeof(ver->name));
	ver->major = 1;
	ver->minor = 6;
	ver->patch = 0;
	return 0;
}

static int fake_getparam(struct hw_fake *fake, struct drm_i915_getparam *gp)
{
	switch (gp->param) {
	case I915_PARAM_CHIPSET_ID:
		*gp->value = (int)fake->chipset_id;
		return 0;
	case I915_PARAM_HAS_EXEC_SOFTPIN:
		if (fake->old_kernel)
			return -EINVAL;
		*gp->value = fake->softpin;
		return 0;
	case I915_PARAM_HAS_EXEC_FENCE:
		if (fake->old_kernel)
			return -EINVAL;
		*gp->value = fake->exec_fence;
		return 0;
	default:
		return -EINVAL;
	}
}

static int fake_query(struct hw_fake *fake, struct drm_i915_query *q)
{
	struct drm_i915_query_item *item = (void *)(uintptr_t)q->items_ptr;
	struct drm_i915_query_memory_regions *mr;
	size_t need;
	unsigned int i;

	if (q->num_items != 1 || q->flags)
		return -EINVAL;
	/* Per-item errors go in the item's length, as i915 reports them. */
	if (item->query_id != DRM_I915_QUERY_MEMORY_REGIONS || fake->old_kernel) {
		item->length = -EINVAL;
		return 0;
	}
	need = sizeof(*mr) + fake->num_regions * sizeof(mr->regions[0]);
	if (item->length == 0) {
		item->length = (int)need;
		return 0;
	}
	if ((size_t)item->length < need) {
		item->length = -EINVAL;
		return 0;
	}
	mr = (void *)(uintptr_t)item->data_ptr;
	memset(mr, 0, need);
	mr->num_regions = fake->num_regions;
	for (i = 0; i < fake->num_regions; i++) {
		mr->regions[i].region.memory_class = fake->regions[i].id.mclass;
		mr->regions[i].region.memory_instance = fake->regions[i].id.instance;
		mr->regions[i].probed_size = fake->regions[i].probed_size;
		mr->regions[i].unallocated_size = fake->regions[i].unallocated_size;
		mr->regions[i].probed_cpu_visible_size = fake->regions[i].cpu_visible_size;
	}
	return 0;
}

static bool fake_discrete(const struct hw_fake *fake)
{
	unsigned int i;

	for (i = 0; i < fake->num_regions; i++)
		if (fake->regions[i].id.mclass == HW_MEMORY_CLASS_DEVICE)
			return true;
	return false;
}

static int fake_execbuf(struct hw_fake *fake, struct hw_fake_call *rec, unsigned long request,
			struct drm_i915_gem_execbuffer2 *eb)
{
	const struct drm_i915_gem_exec_object2 *objs = (void *)(uintptr_t)eb->buffers_ptr;
	unsigned int i;
	int fd;

	if (!eb->buffer_count)
		return -EINVAL;
	for (i = 0; i < eb->buffer_count; i++) {
		if (rec && i < HW_FAKE_MAX_OBJS)
			rec->objs[i] = objs[i];
		/* The kernel's rule for softpin: the offset must be canonical. */
		if ((objs[i].flags & EXEC_OBJECT_PINNED) &&
		    objs[i].offset != hw_canonical_addr(objs[i].offset))
			return -EINVAL;
	}
	if (!(eb->flags & I915_EXEC_FENCE_OUT))
		return 0;
	/* Only the _WR variant copies rsvd2 back; the plain one loses the fd. */
	if (request != DRM_IOCTL_I915_GEM_EXECBUFFER2_WR || fake->num_fences >= HW_FAKE_MAX_FENCES)
		return -EINVAL;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	fake->fences[fake->num_fences++] = (struct hw_fake_fence){.fd = fd};
	eb->rsvd2 = (uint64_t)(uint32_t)fd << 32;
	return 0;
}

static int fake_ioctl_locked(struct hw_fake *fake, struct hw_fake_call *rec, int fd,
			     unsigned long request, void *arg)
{
	switch (request) {
	case DRM_IOCTL_I915_GETPARAM:
		return fake_getparam(fake, arg);
	case DRM_IOCTL_I915_GEM_GET_APERTURE: {
		struct drm_i915_gem_get_aperture *a = arg;

		a->aper_size = fake->aperture;
		a->aper_available_size = fake->aperture - (1u << 20);
		return 0;
	}
	case DRM_IOCTL_I915_QUERY:
		if (rec && ((struct drm_i915_query *)arg)->num_items) {
			const struct drm_i915_query_item *item =
			    (void *)(uintptr_t)((struct drm_i915_query *)arg)->items_ptr;

			rec->ext_param = item->query_id;
			rec->ext_value = (uint64_t)(int64_t)item->length;
		}
		return fake_query(fake, arg);
	case DRM_IOCTL_I915_GEM_VM_CREATE:
		((struct drm_i915_gem_vm_control *)arg)->vm_id = fake->next_handle++;
		fake->live_vms++;
		return 0;
	case DRM_IOCTL_I915_GEM_VM_DESTROY:
		fake->live_vms--;
		return 0;
	case DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT: {
		struct drm_i915_gem_context_create_ext *c = arg;

		if ((c->flags & I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS) && c->extensions) {
			const struct drm_i915_gem_context_create_ext_setparam *sp =
			    (void *)(uintptr_t)c->extensions;

			if (rec) {
				rec->ext_param = sp->param.param;
				rec->ext_value = sp->param.value;
			}
		}
		c->ctx_id = fake->next_handle++;
		fake->live_ctx++;
		return 0;
	}
	case DRM_IOCTL_I915_GEM_CONTEXT_DESTROY:
		fake->live_ctx--;
		return 0;
	case DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM: {
		struct drm_i915_gem_context_param *p = arg;

		if (p->param != I915_CONTEXT_PARAM_GTT_SIZE)
			return -EINVAL;
		p->value = fake->vm_size;
		return 0;
	}
	case DRM_IOCTL_I915_GEM_CREATE: {
		struct drm_i915_gem_create *c = arg;

		c->handle = fake->next_handle++;
		fake->live_handles++;
		return 0;
	}
	case DRM_IOCTL_I915_GEM_CREATE_EXT: {
		struct drm_i915_gem_create_ext *c = arg;

		if (c->extensions && rec) {
			const struct drm_i915_gem_create_ext_memory_regions *ext =
			    (void *)(uintptr_t)c->extensions;
			const struct drm_i915_gem_memory_class_instance *r =
			    (void *)(uintptr_t)ext->regions;
			unsigned int i;

			for (i = 0; i < ext->num_regions && i < HW_MAX_REGIONS; i++)
				rec->regions[i] = r[i];
			rec->num_regions = ext->num_regions;
		}
		c->handle = fake->next_handle++;
		fake->live_handles++;
		return 0;
	}
	case DRM_IOCTL_I915_GEM_MMAP_OFFSET: {
		struct drm_i915_gem_mmap_offset *m = arg;

		/* Discrete parts accept FIXED only. */
		if (fake_discrete(fake) && m->flags != I915_MMAP_OFFSET_FIXED)
			return -ENODEV;
		m->offset = (uint64_t)m->handle << 32;
		return 0;
	}
	case DRM_IOCTL_GEM_CLOSE:
		fake->live_handles--;
		return 0;
	case DRM_IOCTL_I915_GEM_WAIT:
		return fake->busy ? -ETIME : 0;
	case DRM_IOCTL_I915_GEM_EXECBUFFER2:
	case DRM_IOCTL_I915_GEM_EXECBUFFER2_WR:
		return fake_execbuf(fake, rec, request, arg);
	case SYNC_IOC_FILE_INFO: {
		struct sync_file_info *info = arg;
		unsigned int i;

		for (i = 0; i < fake->num_fences; i++) {
			if (fake->fences[i].fd == fd && !fake->fences[i].closed) {
				info->status = fake->fences[i].status;
				return 0;
			}
		}
		return -ENOTTY;
	}
	default:
		return -ENOTTY;
	}
}

static int fake_ioctl(void *data, int fd, unsigned long request, void *arg)
{
	struct hw_fake *fake = data;
	struct hw_fake_call *rec = NULL;
	int ret;

	pthread_mutex_lock(&fake->lock);
	if (fake->num_calls < HW_FAKE_MAX_CALLS) {
		rec = &fake->calls[fake->num_calls++];
		memset(rec, 0, sizeof(*rec));
		rec->request = request;
		rec->fd = fd;
		rec->arg_size = _IOC_SIZE(request);
		memcpy(rec->arg, arg,
		       rec->arg_size < HW_FAKE_ARG_MAX ? rec->arg_size : HW_FAKE_ARG_MAX);
	}
	if (fake->fail_nth && !--fake->fail_nth) {
		ret = fake->fail_err;
	} else if (fake->fail_request == request && fake->fail_times) {
		if (fake->fail_times > 0)
			fake->fail_times--;
		ret = fake->fail_err;
	} else {
		ret = fake_ioctl_locked(fake, rec, fd, request, arg);
	}
	if (rec)
		rec->ret = ret;
	pthread_mutex_unlock(&fake->lock);
	return ret;
}

static int fake_mmap(void *data, int fd, uint64_t offset, size_t len, void **out)
{
	struct hw_fake *fake = data;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	pthread_mutex_lock(&fake->lock);
	fake->live_maps++;
	pthread_mutex_unlock(&fake->lock);
	*out = p;
	return 0;
}

static int fake_munmap(void *data, void *ptr, size_t len)
{
	struct hw_fake *fake = data;

	pthread_mutex_lock(&fake->lock);
	fake->live_maps--;
	pthread_mutex_unlock(&fake->lock);
	return munmap(ptr, len) ? -errno : 0;
}

const struct hw_sys_ops hw_fake_ops = {
    .render_nodes = fake_render_nodes,
    .open = fake_open,
    .close = fake_close,
    .version = fake_version,
    .ioctl = fake_ioctl,
    .mmap = fake_mmap,
    .munmap = fake_munmap,
};
