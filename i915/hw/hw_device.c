// SPDX-License-Identifier: MIT
/*
 * Device discovery, chip parameters, memory regions and contexts: the part
 * of the hw_gpu.h interface that opens and describes the device (hw_bo.c
 * and hw_exec.c implement its objects and submission; hw_priv.h holds the
 * structure the three share).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <i915_drm.h>

#include "hw_faults.h"
#include "hw_priv.h"

/* Render nodes looked at during discovery (renderD128..renderD191 at most). */
#define HW_MAX_NODES 16

static void hw_why(const struct hw_open_args *args, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void hw_why(const struct hw_open_args *args, const char *fmt, ...)
{
	va_list ap;

	if (!args->why || !args->why_len)
		return;
	va_start(ap, fmt);
	vsnprintf(args->why, args->why_len, fmt, ap);
	va_end(ap);
}

int hw_gpu_getparam(struct hw_gpu *gpu, int param, int *value)
{
	struct drm_i915_getparam gp = {.param = param, .value = value};

	*value = 0;
	return hw_ioctl(gpu, DRM_IOCTL_I915_GETPARAM, &gp);
}

/*
 * A boolean parameter: a kernel too old to know it answers -EINVAL, which
 * simply means "not supported".
 */
static int hw_getparam_bool(struct hw_gpu *gpu, int param, bool *out)
{
	int v, ret = hw_gpu_getparam(gpu, param, &v);

	if (ret == -EINVAL) {
		*out = false;
		return 0;
	}
	*out = ret == 0 && v > 0;
	return ret < 0 ? ret : 0;
}

/*
 * Two-pass DRM_I915_QUERY: the first call asks for the length. A kernel
 * without the memory-region query (pre-5.13 or a non-lmem build) reports a
 * negative item length; the device then has system memory only.
 */
static int hw_query_regions(struct hw_gpu *gpu)
{
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_MEMORY_REGIONS};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};
	struct drm_i915_query_memory_regions *mr;
	struct hw_gpu_info *info = &gpu->info;
	unsigned int i;
	int ret;

	info->num_regions = 1;
	info->regions[0] = (struct hw_region){
	    .id = {HW_MEMORY_CLASS_SYSTEM, 0},
	    .probed_size = 0,
	};
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_QUERY, &q);
	if (ret == -EINVAL || (ret == 0 && item.length <= 0))
		return 0;
	if (ret)
		return ret;
	if ((size_t)item.length < sizeof(*mr))
		return -EPROTO;
	mr = fault_should_fail(&hw_fault_alloc, (size_t)item.length)
		 ? NULL
		 : calloc(1, (size_t)item.length);
	if (!mr)
		return -ENOMEM;
	item.data_ptr = (uintptr_t)mr;
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_QUERY, &q);
	if (ret == 0 && item.length < 0)
		ret = item.length;
	if (ret == 0 &&
	    sizeof(*mr) + (size_t)mr->num_regions * sizeof(mr->regions[0]) > (size_t)item.length)
		ret = -EPROTO;
	if (ret) {
		free(mr);
		return ret;
	}
	info->num_regions = 0;
	for (i = 0; i < mr->num_regions && info->num_regions < HW_MAX_REGIONS; i++) {
		const struct drm_i915_memory_region_info *r = &mr->regions[i];
		struct hw_region *out = &info->regions[info->num_regions++];

		out->id.mclass = r->region.memory_class;
		out->id.instance = r->region.memory_instance;
		out->probed_size = r->probed_size;
		out->unallocated_size = r->unallocated_size;
		/* Older kernels leave the visible size 0: then all of it is visible. */
		out->cpu_visible_size =
		    r->probed_cpu_visible_size ? r->probed_cpu_visible_size : r->probed_size;
		if (out->id.mclass == HW_MEMORY_CLASS_DEVICE)
			info->discrete = true;
	}
	free(mr);
	if (!info->num_regions)
		return -EPROTO;
	return 0;
}

/* Read everything struct hw_gpu_info holds and check the required features. */
static int hw_probe(struct hw_gpu *gpu, const struct hw_open_args *args)
{
	struct hw_gpu_info *info = &gpu->info;
	struct drm_i915_gem_get_aperture aper = {0};
	int v, ret;

	ret = hw_gpu_getparam(gpu, I915_PARAM_CHIPSET_ID, &v);
	if (ret) {
		hw_why(args, "%s: I915_PARAM_CHIPSET_ID failed: %s", info->path, strerror(-ret));
		return ret;
	}
	info->chipset_id = (uint32_t)v;
	ret = hw_getparam_bool(gpu, I915_PARAM_HAS_EXEC_SOFTPIN, &info->has_softpin);
	if (!ret)
		ret = hw_getparam_bool(gpu, I915_PARAM_HAS_EXEC_FENCE, &info->has_exec_fence);
	if (ret) {
		hw_why(args, "%s: GETPARAM failed: %s", info->path, strerror(-ret));
		return ret;
	}
	if (!info->has_softpin) {
		hw_why(args, "%s: kernel lacks I915_PARAM_HAS_EXEC_SOFTPIN (softpin is required)",
		       info->path);
		return -EOPNOTSUPP;
	}
	if ((args->need & HW_NEED_EXEC_FENCE) && !info->has_exec_fence) {
		hw_why(args, "%s: kernel lacks I915_PARAM_HAS_EXEC_FENCE (out-fences are required)",
		       info->path);
		return -EOPNOTSUPP;
	}
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_GET_APERTURE, &aper);
	if (ret) {
		hw_why(args, "%s: GET_APERTURE failed: %s", info->path, strerror(-ret));
		return ret;
	}
	info->aperture_size = aper.aper_size;
	info->aperture_available = aper.aper_available_size;
	ret = hw_query_regions(gpu);
	if (ret)
		hw_why(args, "%s: memory region query failed: %s", info->path, strerror(-ret));
	return ret;
}

/*
 * Open @path and keep it when its driver is i915. Returns 0, -ENODEV (not
 * i915, fd closed) or the open error.
 */
static int hw_try_node(struct hw_gpu *gpu, const char *path, const struct hw_open_args *args)
{
	struct hw_drm_version ver;
	int fd, ret;

	if (strlen(path) >= sizeof(gpu->info.path)) {
		hw_why(args, "%.64s...: device path longer than %zu bytes", path,
		       sizeof(gpu->info.path) - 1);
		return -EINVAL;
	}
	fd = gpu->sys->open(gpu->sys_data, path);
	if (fd < 0) {
		hw_why(args, "%s: cannot open: %s", path, strerror(-fd));
		return fd == -ENOENT ? -ENODEV : fd;
	}
	ret = gpu->sys->version(gpu->sys_data, fd, &ver);
	if (ret || strcmp(ver.name, "i915")) {
		if (ret)
			hw_why(args, "%s: drmGetVersion failed: %s", path, strerror(-ret));
		else
			hw_why(args, "%s: driver is %s, not i915", path, ver.name);
		gpu->sys->close(gpu->sys_data, fd);
		return -ENODEV;
	}
	gpu->fd = fd;
	/* Longer paths were refused before the node was opened. */
	memcpy(gpu->info.path, path, strnlen(path, sizeof(gpu->info.path) - 1));
	gpu->info.path[strnlen(path, sizeof(gpu->info.path) - 1)] = '\0';
	snprintf(gpu->info.driver, sizeof(gpu->info.driver), "%s", ver.name);
	gpu->info.drv_major = ver.major;
	gpu->info.drv_minor = ver.minor;
	gpu->info.drv_patch = ver.patch;
	return 0;
}

static int hw_discover(struct hw_gpu *gpu, const struct hw_open_args *args)
{
	char paths[HW_MAX_NODES][HW_PATH_MAX];
	const char *dev = args->device;
	int n, i, ret = -ENODEV, last = -ENODEV;

	if (!dev)
		dev = getenv(HW_DEVICE_ENV);
	if (dev && *dev) {
		if (strlen(dev) >= HW_PATH_MAX) {
			hw_why(args, "device path too long: %s", dev);
			return -EINVAL;
		}
		return hw_try_node(gpu, dev, args);
	}
	n = gpu->sys->render_nodes(gpu->sys_data, paths, HW_MAX_NODES);
	if (n < 0) {
		hw_why(args, "drmGetDevices2 failed: %s", strerror(-n));
		return n;
	}
	for (i = 0; i < n; i++) {
		ret = hw_try_node(gpu, paths[i], args);
		if (!ret)
			return 0;
		/* A node we may not open says more than "no device" does. */
		if (ret != -ENODEV)
			last = ret;
	}
	if (last == -ENODEV)
		hw_why(args,
		       n ? "no i915 render node among %d DRM render node(s)"
			 : "no DRM render node (no GPU, or /dev/dri not present)",
		       n);
	return last;
}

int hw_gpu_open(const struct hw_open_args *user_args, struct hw_gpu **out)
{
	static const struct hw_open_args defaults;
	const struct hw_open_args *args = user_args ? user_args : &defaults;
	struct hw_gpu *gpu;
	int ret;

	*out = NULL;
	hw_why(args, "%s", "");
	gpu = fault_should_fail(&hw_fault_alloc, sizeof(*gpu)) ? NULL : calloc(1, sizeof(*gpu));
	if (!gpu)
		return -ENOMEM;
	gpu->sys = args->sys ? args->sys : &hw_sys_libdrm;
	gpu->sys_data = args->sys_data;
	gpu->fd = -1;
	atomic_init(&gpu->wedged, false);

	ret = hw_discover(gpu, args);
	if (ret)
		goto err_free;
	ret = hw_probe(gpu, args);
	if (ret)
		goto err_close;
	ret = hw_fence_waiter_init(&gpu->waiter, gpu->sys, gpu->sys_data);
	if (ret) {
		hw_why(args, "fence waiter: %s", strerror(-ret));
		goto err_close;
	}
	*out = gpu;
	return 0;

err_close:
	gpu->sys->close(gpu->sys_data, gpu->fd);
err_free:
	free(gpu);
	return ret;
}

void hw_gpu_close(struct hw_gpu *gpu)
{
	if (!gpu)
		return;
	hw_fence_waiter_fini(&gpu->waiter);
	gpu->sys->close(gpu->sys_data, gpu->fd);
	free(gpu);
}

const struct hw_gpu_info *hw_gpu_info(const struct hw_gpu *gpu)
{
	return &gpu->info;
}

int hw_gpu_fd(const struct hw_gpu *gpu)
{
	return gpu->fd;
}

bool hw_gpu_is_wedged(const struct hw_gpu *gpu)
{
	return atomic_load(&((struct hw_gpu *)gpu)->wedged);
}

const struct hw_region *hw_gpu_find_region(const struct hw_gpu *gpu, uint16_t mclass)
{
	unsigned int i;

	for (i = 0; i < gpu->info.num_regions; i++)
		if (gpu->info.regions[i].id.mclass == mclass)
			return &gpu->info.regions[i];
	return NULL;
}

void hw_gpu_describe(const struct hw_gpu_info *info,
		     void (*emit)(void *data, const char *key, const char *value), void *data)
{
	uint64_t lmem = 0, lmem_visible = 0;
	char v[64];
	unsigned int i;

	for (i = 0; i < info->num_regions; i++) {
		if (info->regions[i].id.mclass == HW_MEMORY_CLASS_DEVICE) {
			lmem += info->regions[i].probed_size;
			lmem_visible += info->regions[i].cpu_visible_size;
		}
	}
	emit(data, "device", info->path);
	snprintf(v, sizeof(v), "8086:%04x", info->chipset_id);
	emit(data, "pci_id", v);
	snprintf(v, sizeof(v), "%s %d.%d.%d", info->driver, info->drv_major, info->drv_minor,
		 info->drv_patch);
	emit(data, "driver", v);
	emit(data, "softpin", info->has_softpin ? "1" : "0");
	emit(data, "exec_fence", info->has_exec_fence ? "1" : "0");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)info->aperture_size);
	emit(data, "aperture_bytes", v);
	emit(data, "discrete", info->discrete ? "1" : "0");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)lmem);
	emit(data, "lmem_bytes", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)lmem_visible);
	emit(data, "lmem_visible_bytes", v);
}

int hw_device_select(int argc, char *const *argv, const char **path)
{
	const char *found = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device")) {
			if (i + 1 >= argc || !*argv[i + 1])
				return -EINVAL;
			found = argv[++i];
		} else if (!strncmp(argv[i], "--device=", 9)) {
			found = argv[i] + 9;
			if (!*found)
				return -EINVAL;
		}
	}
	if (!found) {
		found = getenv(HW_DEVICE_ENV);
		if (found && !*found)
			found = NULL;
	}
	if (found && strlen(found) >= HW_PATH_MAX)
		return -EINVAL;
	*path = found;
	return 0;
}

int hw_device_check(const char *path, char *why, size_t why_len)
{
	struct stat st;
	const char *what = NULL;

	if (!path)
		return 0;
	if (stat(path, &st))
		what = strerror(errno);
	else if (!S_ISCHR(st.st_mode))
		what = S_ISDIR(st.st_mode) ? "a directory" : "not a character device";
	else if (major(st.st_rdev) != 226)
		what = "a character device that is not DRM's (major 226)";
	if (!what)
		return 0;
	if (why && why_len)
		snprintf(why, why_len, "%s is not a DRM device node: %s", path, what);
	return -EINVAL;
}

int hw_parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > max)
			return -EINVAL;
	}
	if (v < min)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

bool hw_err_is_skip(int err)
{
	return err == -ENODEV || err == -EOPNOTSUPP || err == -EACCES;
}

int hw_exit_status(int err)
{
	if (!err)
		return 0;
	return hw_err_is_skip(err) ? 77 : 1;
}

int hw_context_init(struct hw_gpu *gpu, struct hw_context *ctx)
{
	struct drm_i915_gem_vm_control vm = {0};
	struct drm_i915_gem_context_create_ext_setparam setvm = {
	    .base = {.name = I915_CONTEXT_CREATE_EXT_SETPARAM},
	    .param = {.param = I915_CONTEXT_PARAM_VM},
	};
	struct drm_i915_gem_context_create_ext create = {
	    .flags = I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS,
	    .extensions = (uintptr_t)&setvm,
	};
	struct drm_i915_gem_context_param gtt = {.param = I915_CONTEXT_PARAM_GTT_SIZE};
	struct drm_i915_gem_context_destroy destroy = {0};
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	/* A kernel without full ppGTT cannot give a context a VM of its own. */
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_VM_CREATE, &vm);
	if (ret)
		return ret == -ENODEV || ret == -EINVAL || ret == -ENOTTY ? -EOPNOTSUPP : ret;
	setvm.param.value = vm.vm_id;
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, &create);
	if (ret)
		goto err_vm;
	gtt.ctx_id = create.ctx_id;
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &gtt);
	if (ret)
		goto err_ctx;
	if (!gtt.value || gtt.value & (4096 - 1)) {
		ret = -EPROTO;
		goto err_ctx;
	}
	ctx->ctx_id = create.ctx_id;
	ctx->vm_id = vm.vm_id;
	ctx->vm_size = gtt.value;
	return 0;

err_ctx:
	destroy.ctx_id = create.ctx_id;
	hw_ioctl(gpu, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &destroy);
err_vm:
	hw_ioctl(gpu, DRM_IOCTL_I915_GEM_VM_DESTROY, &vm);
	return ret;
}

void hw_context_fini(struct hw_gpu *gpu, struct hw_context *ctx)
{
	struct drm_i915_gem_context_destroy destroy = {.ctx_id = ctx->ctx_id};
	struct drm_i915_gem_vm_control vm = {.vm_id = ctx->vm_id};

	if (ctx->ctx_id)
		hw_ioctl(gpu, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &destroy);
	if (ctx->vm_id)
		hw_ioctl(gpu, DRM_IOCTL_I915_GEM_VM_DESTROY, &vm);
	memset(ctx, 0, sizeof(*ctx));
}
