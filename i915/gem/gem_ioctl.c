// SPDX-License-Identifier: MIT
/*
 * gem_ioctl: i915_gem_ioctl(), the kernel's drm_ioctl() for this driver:
 * the request's type must be 'd'; nr below 0x40 or from 0xa0 is a core
 * ioctl, 0x40..0x9f a driver one; the caller's size is copied in (when
 * both the caller and the table say IOC_IN), the rest of the kernel's
 * struct zeroed, the handler run after the permission checks, and the
 * caller's size copied back out (when both say IOC_OUT). Also the core
 * ioctls that need no object (VERSION, GET_CAP, ...) and GETPARAM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <i915/i915_ggtt.h>

#include "gem_priv.h"

#define GEM_DRIVER_MAJOR 1
#define GEM_DRIVER_MINOR 6
#define GEM_DRIVER_PATCHLEVEL 0

/* drm_ioctl_desc flags. */
#define GEM_AUTH 0x1u
#define GEM_MASTER 0x2u
#define GEM_ROOT_ONLY 0x4u
#define GEM_RENDER_ALLOW 0x20u

/**
 * struct gem_ioctl_desc - one table entry.
 * @cmd: the kernel's own request value (its size and direction count,
 *	not the caller's).
 * @flags: GEM_AUTH, ...
 * @func: handler, or NULL for an entry the kernel has without a function
 *	(-EINVAL).
 */
struct gem_ioctl_desc {
	unsigned long cmd;
	unsigned int flags;
	gem_ioctl_fn func;
};

/* --- core handlers --- */

static int gem_copy_field(uint64_t buf, __kernel_size_t *buf_len, const char *value)
{
	size_t len = strlen(value), n = len;

	if (n > *buf_len)
		n = *buf_len;
	*buf_len = len;
	if (n && buf && gem_copy_to_user(buf, value, n))
		return -EFAULT;
	return 0;
}

static int gem_version_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_version *v = data;
	int err;

	(void)file;
	v->version_major = GEM_DRIVER_MAJOR;
	v->version_minor = GEM_DRIVER_MINOR;
	v->version_patchlevel = GEM_DRIVER_PATCHLEVEL;
	err = gem_copy_field((uint64_t)(uintptr_t)v->name, &v->name_len, "i915");
	/* The driver date is deprecated: the kernel says "0". */
	if (!err)
		err = gem_copy_field((uint64_t)(uintptr_t)v->date, &v->date_len, "0");
	if (!err)
		err = gem_copy_field((uint64_t)(uintptr_t)v->desc, &v->desc_len, "Intel Graphics");
	return err;
}

static int gem_getunique_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_unique *u = data;

	return gem_copy_field((uint64_t)(uintptr_t)u->unique, &u->unique_len,
			      file->dev->info->pub.pci_slot);
}

static int gem_getstats_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	memset(data, 0, sizeof(struct drm_stats));
	return 0;
}

static int gem_noop_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	return 0;
}

static int gem_invalid_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	return -EINVAL;
}

static int gem_nodev_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	return -ENODEV;
}

/* A part without display: the KMS ioctls are not there (no DRIVER_MODESET). */
static int gem_nomodeset_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	return -EOPNOTSUPP;
}

/* The i915 perf interface (OA) is not modelled: the kernel's answer then. */
static int gem_noperf_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	return -524; /* ENOTSUPP */
}

static int gem_getcap_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_get_cap *req = data;

	(void)file;
	req->value = 0;
	switch (req->capability) {
	case DRM_CAP_TIMESTAMP_MONOTONIC:
		req->value = 1;
		return 0;
	case DRM_CAP_PRIME:
		req->value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT;
		return 0;
	case DRM_CAP_SYNCOBJ:
	case DRM_CAP_SYNCOBJ_TIMELINE:
		req->value = 1;
		return 0;
	}
	return -EOPNOTSUPP;
}

static int gem_setclientcap_ioctl(struct i915_gem_file *file, void *data)
{
	(void)file;
	(void)data;
	/* Every settable client cap is a KMS one. */
	return -EOPNOTSUPP;
}

static int gem_getmagic_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_auth *auth = data;

	auth->magic = file->id;
	return 0;
}

static int gem_authmagic_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_auth *auth = data;
	struct i915_gem_dev *dev = file->dev;
	int ret = -EINVAL;

	pthread_mutex_lock(&dev->lock);
	struct i915_gem_file *f;

	list_for_each_entry (f, &dev->files, struct i915_gem_file, link) {
		if (f->id == auth->magic && !f->render) {
			f->authenticated = true;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/* The syncobj ioctls are the core's (drm_syncobj.c), on the file's table. */
#define GEM_SYNCOBJ_IOCTL(name, req)                                                               \
	static int gem_syncobj_##name(struct i915_gem_file *file, void *data)                      \
	{                                                                                          \
		return drm_syncobj_ioctl(&file->drm, _IOC_NR(req), data);                          \
	}
GEM_SYNCOBJ_IOCTL(create, DRM_IOCTL_SYNCOBJ_CREATE)
GEM_SYNCOBJ_IOCTL(destroy, DRM_IOCTL_SYNCOBJ_DESTROY)
GEM_SYNCOBJ_IOCTL(handle_to_fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD)
GEM_SYNCOBJ_IOCTL(fd_to_handle, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE)
GEM_SYNCOBJ_IOCTL(wait, DRM_IOCTL_SYNCOBJ_WAIT)
GEM_SYNCOBJ_IOCTL(reset, DRM_IOCTL_SYNCOBJ_RESET)
GEM_SYNCOBJ_IOCTL(signal, DRM_IOCTL_SYNCOBJ_SIGNAL)
GEM_SYNCOBJ_IOCTL(timeline_wait, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT)
GEM_SYNCOBJ_IOCTL(query, DRM_IOCTL_SYNCOBJ_QUERY)
GEM_SYNCOBJ_IOCTL(transfer, DRM_IOCTL_SYNCOBJ_TRANSFER)
GEM_SYNCOBJ_IOCTL(timeline_signal, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL)
GEM_SYNCOBJ_IOCTL(eventfd, DRM_IOCTL_SYNCOBJ_EVENTFD)

/* drm_master_check_perm(): root, or the file that was master before. */
static int gem_master_check_perm(struct i915_gem_file *file)
{
	return file->was_master || gem_caller_is_root() ? 0 : -EACCES;
}

static int gem_setmaster_ioctl(struct i915_gem_file *file, void *data)
{
	struct i915_gem_dev *dev = file->dev;
	int ret;

	(void)data;
	ret = gem_master_check_perm(file);
	if (ret)
		return ret;
	pthread_mutex_lock(&dev->lock);
	if (dev->master_id == file->id)
		ret = 0;
	else if (dev->master_id)
		ret = -EBUSY;
	else if (file->render)
		ret = -EINVAL; /* no master object on a render node */
	else {
		dev->master_id = file->id;
		file->was_master = true;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

static int gem_dropmaster_ioctl(struct i915_gem_file *file, void *data)
{
	struct i915_gem_dev *dev = file->dev;
	int ret;

	(void)data;
	ret = gem_master_check_perm(file);
	if (ret)
		return ret;
	pthread_mutex_lock(&dev->lock);
	if (dev->master_id != file->id)
		ret = -EINVAL;
	else
		dev->master_id = 0;
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/* --- GETPARAM --- */

static int gem_getparam_value(struct i915_gem_dev *dev, int param, int *value)
{
	const struct gem_profile_info *info = dev->info;

	switch (param) {
	case I915_PARAM_IRQ_ACTIVE:
	case I915_PARAM_ALLOW_BATCHBUFFER:
	case I915_PARAM_LAST_DISPATCH:
	case I915_PARAM_HAS_EXEC_CONSTANTS:
		return -ENODEV;
	case I915_PARAM_CHIPSET_ID:
		*value = info->pub.pci_device;
		return 0;
	case I915_PARAM_REVISION:
		*value = info->pub.pci_revision;
		return 0;
	case I915_PARAM_NUM_FENCES_AVAIL:
		*value = info->has_aperture ? 32 : 0;
		return 0;
	case I915_PARAM_HAS_BSD:
		*value = gem_engine_lookup(dev, I915_ENGINE_CLASS_VIDEO, 0) != NULL;
		return 0;
	case I915_PARAM_HAS_BSD2:
		*value = gem_engine_lookup(dev, I915_ENGINE_CLASS_VIDEO, 1) != NULL;
		return 0;
	case I915_PARAM_HAS_VEBOX:
		*value = gem_engine_lookup(dev, I915_ENGINE_CLASS_VIDEO_ENHANCE, 0) != NULL;
		return 0;
	case I915_PARAM_HAS_OVERLAY:
	case I915_PARAM_HAS_WT:
	case I915_PARAM_HAS_SECURE_BATCHES:
	case I915_PARAM_HAS_RESOURCE_STREAMER:
	case I915_PARAM_HAS_POOLED_EU:
	case I915_PARAM_MIN_EU_IN_POOL:
	case I915_PARAM_MMAP_GTT_COHERENT:
		*value = 0;
		return 0;
	case I915_PARAM_HAS_BLT:
		*value = 1;
		return 0;
	case I915_PARAM_HAS_LLC:
		*value = info->has_llc;
		return 0;
	case I915_PARAM_HAS_ALIASING_PPGTT:
		*value = I915_GEM_PPGTT_FULL;
		return 0;
	case I915_PARAM_HAS_SEMAPHORES:
		*value = 0;
		return 0;
	case I915_PARAM_CMD_PARSER_VERSION:
		*value = 0; /* no command parser on gen12 */
		return 0;
	case I915_PARAM_SUBSLICE_TOTAL:
		*value = (int)info->subslice_total;
		return 0;
	case I915_PARAM_EU_TOTAL:
		*value = (int)info->eu_total;
		return 0;
	case I915_PARAM_HAS_GPU_RESET:
		/* Per-engine reset: the reset worker restarts one engine. */
		*value = 2;
		return 0;
	case I915_PARAM_HUC_STATUS:
		*value = 0; /* no HuC firmware loaded */
		return 0;
	case I915_PARAM_PXP_STATUS:
		return -ENODEV;
	case I915_PARAM_MMAP_GTT_VERSION:
		*value = 5;
		return 0;
	case I915_PARAM_HAS_SCHEDULER:
		*value = GEM_SCHEDULER_CAPS;
		return 0;
	case I915_PARAM_MMAP_VERSION:
	case I915_PARAM_HAS_GEM:
	case I915_PARAM_HAS_PAGEFLIPPING:
	case I915_PARAM_HAS_EXECBUF2:
	case I915_PARAM_HAS_RELAXED_FENCING:
	case I915_PARAM_HAS_COHERENT_RINGS:
	case I915_PARAM_HAS_RELAXED_DELTA:
	case I915_PARAM_HAS_GEN7_SOL_RESET:
	case I915_PARAM_HAS_WAIT_TIMEOUT:
	case I915_PARAM_HAS_PRIME_VMAP_FLUSH:
	case I915_PARAM_HAS_PINNED_BATCHES:
	case I915_PARAM_HAS_EXEC_NO_RELOC:
	case I915_PARAM_HAS_EXEC_HANDLE_LUT:
	case I915_PARAM_HAS_COHERENT_PHYS_GTT:
	case I915_PARAM_HAS_EXEC_SOFTPIN:
	case I915_PARAM_HAS_EXEC_ASYNC:
	case I915_PARAM_HAS_EXEC_FENCE:
	case I915_PARAM_HAS_EXEC_CAPTURE:
	case I915_PARAM_HAS_EXEC_BATCH_FIRST:
	case I915_PARAM_HAS_EXEC_FENCE_ARRAY:
	case I915_PARAM_HAS_EXEC_SUBMIT_FENCE:
	case I915_PARAM_HAS_EXEC_TIMELINE_FENCES:
		*value = 1;
		return 0;
	case I915_PARAM_HAS_USERPTR_PROBE:
		/*
		 * The kernel says 1 whatever its config, even when USERPTR itself is
		 * -ENODEV (no MMU notifiers). Here USERPTR is never available, so its
		 * PROBE flag is not offered either: a caller checking the flag alone
		 * must not be told it may probe.
		 */
		*value = 0;
		return 0;
	case I915_PARAM_HAS_CONTEXT_FREQ_HINT:
		*value = -EINVAL; /* execlists, not GuC submission */
		return 0;
	case I915_PARAM_HAS_CONTEXT_ISOLATION:
		*value = (1 << I915_ENGINE_CLASS_RENDER) | (1 << I915_ENGINE_CLASS_COPY);
		return 0;
	case I915_PARAM_SLICE_MASK:
		if (info->graphics_ver_full >= 1255)
			return -EINVAL;
		*value = 1;
		return 0;
	case I915_PARAM_SUBSLICE_MASK:
		if (info->graphics_ver_full >= 1255)
			return -EINVAL;
		*value = (1 << info->subslice_total) - 1;
		return 0;
	case I915_PARAM_CS_TIMESTAMP_FREQUENCY:
		*value = 19200000;
		return 0;
	case I915_PARAM_PERF_REVISION:
		*value = 7;
		return 0;
	case I915_PARAM_OA_TIMESTAMP_FREQUENCY:
		*value = 19200000;
		return 0;
	}
	return -EINVAL;
}

int gem_getparam_ioctl(struct i915_gem_file *file, void *data)
{
	drm_i915_getparam_t *gp = data;
	int value = 0, ret;

	ret = gem_getparam_value(file->dev, gp->param, &value);
	if (ret)
		return ret;
	return gem_copy_to_user((uint64_t)(uintptr_t)gp->value, &value, sizeof(value));
}

/* --- the tables --- */

#define CORE(req, fl, fn) [_IOC_NR(req)] = {.cmd = (req), .flags = (fl), .func = (fn)}
#define DRV(req, fl, fn)                                                                           \
	[_IOC_NR(req) - DRM_COMMAND_BASE] = {.cmd = (req), .flags = (fl), .func = (fn)}

static const struct gem_ioctl_desc gem_core_ioctls[] = {
    CORE(DRM_IOCTL_VERSION, GEM_RENDER_ALLOW, gem_version_ioctl),
    CORE(DRM_IOCTL_GET_UNIQUE, 0, gem_getunique_ioctl),
    CORE(DRM_IOCTL_GET_MAGIC, 0, gem_getmagic_ioctl),
    CORE(DRM_IOCTL_GET_STATS, 0, gem_getstats_ioctl),
    CORE(DRM_IOCTL_GET_CAP, GEM_RENDER_ALLOW, gem_getcap_ioctl),
    CORE(DRM_IOCTL_SET_CLIENT_CAP, 0, gem_setclientcap_ioctl),
    CORE(DRM_IOCTL_SET_UNIQUE, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_invalid_ioctl),
    CORE(DRM_IOCTL_BLOCK, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    CORE(DRM_IOCTL_UNBLOCK, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    CORE(DRM_IOCTL_AUTH_MAGIC, GEM_MASTER, gem_authmagic_ioctl),
    CORE(DRM_IOCTL_SET_MASTER, 0, gem_setmaster_ioctl),
    CORE(DRM_IOCTL_DROP_MASTER, 0, gem_dropmaster_ioctl),
    CORE(DRM_IOCTL_FINISH, GEM_AUTH, gem_noop_ioctl),
    CORE(DRM_IOCTL_GEM_CLOSE, GEM_RENDER_ALLOW, gem_close_ioctl),
    CORE(DRM_IOCTL_GEM_FLINK, GEM_AUTH, gem_flink_ioctl),
    CORE(DRM_IOCTL_GEM_OPEN, GEM_AUTH, gem_open_ioctl),
    CORE(DRM_IOCTL_PRIME_HANDLE_TO_FD, GEM_RENDER_ALLOW, gem_prime_handle_to_fd_ioctl),
    CORE(DRM_IOCTL_PRIME_FD_TO_HANDLE, GEM_RENDER_ALLOW, gem_prime_fd_to_handle_ioctl),
    CORE(DRM_IOCTL_MODE_GETRESOURCES, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_CREATE_DUMB, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_MAP_DUMB, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_DESTROY_DUMB, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_GETPLANERESOURCES, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_GETCONNECTOR, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_ADDFB, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_ADDFB2, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_RMFB, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_MODE_OBJ_GETPROPERTIES, 0, gem_nomodeset_ioctl),
    CORE(DRM_IOCTL_SYNCOBJ_CREATE, GEM_RENDER_ALLOW, gem_syncobj_create),
    CORE(DRM_IOCTL_SYNCOBJ_DESTROY, GEM_RENDER_ALLOW, gem_syncobj_destroy),
    CORE(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, GEM_RENDER_ALLOW, gem_syncobj_handle_to_fd),
    CORE(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, GEM_RENDER_ALLOW, gem_syncobj_fd_to_handle),
    CORE(DRM_IOCTL_SYNCOBJ_WAIT, GEM_RENDER_ALLOW, gem_syncobj_wait),
    CORE(DRM_IOCTL_SYNCOBJ_RESET, GEM_RENDER_ALLOW, gem_syncobj_reset),
    CORE(DRM_IOCTL_SYNCOBJ_SIGNAL, GEM_RENDER_ALLOW, gem_syncobj_signal),
    CORE(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, GEM_RENDER_ALLOW, gem_syncobj_timeline_wait),
    CORE(DRM_IOCTL_SYNCOBJ_QUERY, GEM_RENDER_ALLOW, gem_syncobj_query),
    CORE(DRM_IOCTL_SYNCOBJ_TRANSFER, GEM_RENDER_ALLOW, gem_syncobj_transfer),
    CORE(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, GEM_RENDER_ALLOW, gem_syncobj_timeline_signal),
    CORE(DRM_IOCTL_SYNCOBJ_EVENTFD, GEM_RENDER_ALLOW, gem_syncobj_eventfd),
};

static const struct gem_ioctl_desc gem_driver_ioctls[] = {
    DRV(DRM_IOCTL_I915_INIT, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_FLUSH, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_FLIP, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_BATCHBUFFER, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_IRQ_EMIT, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_IRQ_WAIT, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GETPARAM, GEM_RENDER_ALLOW, gem_getparam_ioctl),
    DRV(DRM_IOCTL_I915_SETPARAM, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_ALLOC, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_FREE, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_INIT_HEAP, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_CMDBUFFER, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_DESTROY_HEAP, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_SET_VBLANK_PIPE, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GET_VBLANK_PIPE, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_VBLANK_SWAP, GEM_AUTH, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_HWS_ADDR, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GEM_INIT, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GEM_EXECBUFFER, GEM_AUTH, gem_invalid_ioctl),
    DRV(DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, GEM_RENDER_ALLOW, gem_execbuffer2_ioctl),
    DRV(DRM_IOCTL_I915_GEM_PIN, GEM_AUTH | GEM_ROOT_ONLY, gem_nodev_ioctl),
    DRV(DRM_IOCTL_I915_GEM_UNPIN, GEM_AUTH | GEM_ROOT_ONLY, gem_nodev_ioctl),
    DRV(DRM_IOCTL_I915_GEM_BUSY, GEM_RENDER_ALLOW, gem_busy_ioctl),
    DRV(DRM_IOCTL_I915_GEM_SET_CACHING, GEM_RENDER_ALLOW, gem_set_caching_ioctl),
    DRV(DRM_IOCTL_I915_GEM_GET_CACHING, GEM_RENDER_ALLOW, gem_get_caching_ioctl),
    DRV(DRM_IOCTL_I915_GEM_THROTTLE, GEM_RENDER_ALLOW, gem_throttle_ioctl),
    DRV(DRM_IOCTL_I915_GEM_ENTERVT, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GEM_LEAVEVT, GEM_AUTH | GEM_MASTER | GEM_ROOT_ONLY, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GEM_CREATE, GEM_RENDER_ALLOW, gem_create_ioctl),
    DRV(DRM_IOCTL_I915_GEM_CREATE_EXT, GEM_RENDER_ALLOW, gem_create_ext_ioctl),
    DRV(DRM_IOCTL_I915_GEM_PREAD, GEM_RENDER_ALLOW, gem_pread_ioctl),
    DRV(DRM_IOCTL_I915_GEM_PWRITE, GEM_RENDER_ALLOW, gem_pwrite_ioctl),
    DRV(DRM_IOCTL_I915_GEM_MMAP, GEM_RENDER_ALLOW, gem_mmap_ioctl),
    DRV(DRM_IOCTL_I915_GEM_MMAP_OFFSET, GEM_RENDER_ALLOW, gem_mmap_offset_ioctl),
    DRV(DRM_IOCTL_I915_GEM_SET_DOMAIN, GEM_RENDER_ALLOW, gem_set_domain_ioctl),
    DRV(DRM_IOCTL_I915_GEM_SW_FINISH, GEM_RENDER_ALLOW, gem_sw_finish_ioctl),
    DRV(DRM_IOCTL_I915_GEM_SET_TILING, GEM_RENDER_ALLOW, gem_set_tiling_ioctl),
    DRV(DRM_IOCTL_I915_GEM_GET_TILING, GEM_RENDER_ALLOW, gem_get_tiling_ioctl),
    DRV(DRM_IOCTL_I915_GEM_GET_APERTURE, GEM_RENDER_ALLOW, gem_get_aperture_ioctl),
    DRV(DRM_IOCTL_I915_GET_PIPE_FROM_CRTC_ID, 0, gem_nodev_ioctl),
    DRV(DRM_IOCTL_I915_GEM_MADVISE, GEM_RENDER_ALLOW, gem_madvise_ioctl),
    DRV(DRM_IOCTL_I915_OVERLAY_PUT_IMAGE, GEM_MASTER, gem_nodev_ioctl),
    DRV(DRM_IOCTL_I915_OVERLAY_ATTRS, GEM_MASTER, gem_nodev_ioctl),
    DRV(DRM_IOCTL_I915_SET_SPRITE_COLORKEY, GEM_MASTER, gem_nodev_ioctl),
    DRV(DRM_IOCTL_I915_GET_SPRITE_COLORKEY, GEM_MASTER, gem_noop_ioctl),
    DRV(DRM_IOCTL_I915_GEM_WAIT, GEM_RENDER_ALLOW, gem_wait_ioctl),
    DRV(DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, GEM_RENDER_ALLOW, gem_context_create_ioctl),
    DRV(DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, GEM_RENDER_ALLOW, gem_context_destroy_ioctl),
    DRV(DRM_IOCTL_I915_REG_READ, GEM_RENDER_ALLOW, gem_reg_read_ioctl),
    DRV(DRM_IOCTL_I915_GET_RESET_STATS, GEM_RENDER_ALLOW, gem_get_reset_stats_ioctl),
    DRV(DRM_IOCTL_I915_GEM_USERPTR, GEM_RENDER_ALLOW, gem_userptr_ioctl),
    DRV(DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, GEM_RENDER_ALLOW, gem_context_getparam_ioctl),
    DRV(DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, GEM_RENDER_ALLOW, gem_context_setparam_ioctl),
    DRV(DRM_IOCTL_I915_PERF_OPEN, GEM_RENDER_ALLOW, gem_noperf_ioctl),
    DRV(DRM_IOCTL_I915_PERF_ADD_CONFIG, GEM_RENDER_ALLOW, gem_noperf_ioctl),
    DRV(DRM_IOCTL_I915_PERF_REMOVE_CONFIG, GEM_RENDER_ALLOW, gem_noperf_ioctl),
    DRV(DRM_IOCTL_I915_QUERY, GEM_RENDER_ALLOW, gem_query_ioctl),
    DRV(DRM_IOCTL_I915_GEM_VM_CREATE, GEM_RENDER_ALLOW, gem_vm_create_ioctl),
    DRV(DRM_IOCTL_I915_GEM_VM_DESTROY, GEM_RENDER_ALLOW, gem_vm_destroy_ioctl),
};

#define GEM_NCORE (sizeof(gem_core_ioctls) / sizeof(gem_core_ioctls[0]))
#define GEM_NDRIVER (sizeof(gem_driver_ioctls) / sizeof(gem_driver_ioctls[0]))

/* The kernel's drm_ioctl_permit(). */
static int gem_ioctl_permit(struct i915_gem_file *file, unsigned int flags)
{
	bool root = gem_caller_is_root();
	bool master = !file->render && file->dev->master_id == file->id;

	if ((flags & GEM_ROOT_ONLY) && !root)
		return -EACCES;
	if ((flags & GEM_AUTH) && !file->render && !(root || master || file->authenticated))
		return -EACCES;
	if ((flags & GEM_MASTER) && !master)
		return -EACCES;
	if (!(flags & GEM_RENDER_ALLOW) && file->render)
		return -EACCES;
	return 0;
}

int i915_gem_ioctl(struct i915_gem_file *file, unsigned long request, void *arg)
{
	unsigned int nr = _IOC_NR(request), in_size, out_size, drv_size, ksize;
	const struct gem_ioctl_desc *desc = NULL;
	char stack[128], *kdata = stack;
	int ret;

	if (!file)
		return -EINVAL;
	if (_IOC_TYPE(request) != DRM_IOCTL_BASE)
		return -ENOTTY;
	if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END) {
		if (nr - DRM_COMMAND_BASE < GEM_NDRIVER)
			desc = &gem_driver_ioctls[nr - DRM_COMMAND_BASE];
	} else if (nr < GEM_NCORE) {
		desc = &gem_core_ioctls[nr];
	}
	if (!desc || !desc->func)
		return -EINVAL;
	drv_size = _IOC_SIZE(desc->cmd);
	in_size = out_size = _IOC_SIZE(request);
	if (!(request & desc->cmd & IOC_IN))
		in_size = 0;
	if (!(request & desc->cmd & IOC_OUT))
		out_size = 0;
	ksize = in_size > out_size ? in_size : out_size;
	if (drv_size > ksize)
		ksize = drv_size;
	if (ksize > sizeof(stack)) {
		kdata = fault_should_fail(&gem_fault_buf_alloc, ksize) ? NULL : malloc(ksize);
		if (!kdata)
			return -ENOMEM;
	}
	if (gem_copy_from_user(kdata, (uint64_t)(uintptr_t)arg, in_size)) {
		ret = -EFAULT;
		goto out;
	}
	memset(kdata + in_size, 0, ksize - in_size);
	ret = gem_ioctl_permit(file, desc->flags);
	if (!ret)
		ret = desc->func(file, kdata);
	if (gem_copy_to_user((uint64_t)(uintptr_t)arg, kdata, out_size))
		ret = -EFAULT;
out:
	if (kdata != stack)
		free(kdata);
	return ret;
}
