/* SPDX-License-Identifier: MIT */
/*
 * ttm_uapi_helpers.h - the uAPI client calls the unit tests and the stress
 * programs share: one ttm_drm_ioctl() each, request filled the usual way,
 * reply copied out on success. They work on any ttm_drm_device, whichever
 * driver (the mocks test-ttm-uapi-mock.c and stress/lib/ttm_uapi_mock.c, or
 * i915 in test-i915-uapi) is behind it.
 *
 * Header-only so that every program using them links as it did: the unit
 * tests list their sources per executable (test-i915-uapi finds this
 * directory through ktest_dep's include path), and the stress programs
 * reach it through igt_dep (stress/meson.build) for this header alone.
 * Each call returns 0 or the ioctl's negative errno; none asserts, so a
 * test that expects a refusal uses the same call.
 */
#ifndef TTM_UAPI_HELPERS_H
#define TTM_UAPI_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

/**
 * uapi_mm_init() - MM_INIT of @type over @pages pages from page @offset,
 * with the version this uAPI speaks.
 */
static inline int uapi_mm_init(int fd, uint32_t type, uint64_t offset, uint64_t pages)
{
	struct drm_mm_init_arg arg = {
	    .magic = DRM_BO_INIT_MAGIC,
	    .major = DRM_BO_INIT_MAJOR,
	    .minor = DRM_BO_INIT_MINOR,
	    .mem_type = type,
	    .p_offset = offset,
	    .p_size = pages,
	};

	return ttm_drm_ioctl(fd, DRM_IOCTL_MM_INIT, &arg);
}

/* A request that names only memory type @type (@req: MM_TAKEDOWN, MM_LOCK, MM_UNLOCK). */
static inline int uapi_mm_type_req(int fd, unsigned long req, uint32_t type)
{
	struct drm_mm_type_arg arg = {.mem_type = type};

	return ttm_drm_ioctl(fd, req, &arg);
}

/** uapi_mm_takedown() - MM_TAKEDOWN of @type. */
static inline int uapi_mm_takedown(int fd, uint32_t type)
{
	return uapi_mm_type_req(fd, DRM_IOCTL_MM_TAKEDOWN, type);
}

/** uapi_mm_lock() - MM_LOCK of @type when @lock, else MM_UNLOCK. */
static inline int uapi_mm_lock(int fd, uint32_t type, bool lock)
{
	return uapi_mm_type_req(fd, lock ? DRM_IOCTL_MM_LOCK : DRM_IOCTL_MM_UNLOCK, type);
}

/**
 * uapi_create_bo() - BO_CREATE of @size bytes with @flags.
 * @rep: if not NULL, receives the reply on success.
 */
static inline int uapi_create_bo(int fd, uint64_t flags, uint64_t size, struct drm_bo_info_rep *rep)
{
	struct drm_bo_create_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.flags = flags;
	arg.d.req.size = size;
	ret = ttm_drm_ioctl(fd, DRM_IOCTL_BO_CREATE, &arg);
	if (!ret && rep)
		*rep = arg.d.rep;
	return ret;
}

/* BO_INFO or BO_REFERENCE (@req) of @handle; the reply into @rep if not NULL. */
static inline int uapi_bo_info_req(int fd, unsigned long req, uint32_t handle,
				   struct drm_bo_info_rep *rep)
{
	struct drm_bo_reference_info_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = handle;
	ret = ttm_drm_ioctl(fd, req, &arg);
	if (!ret && rep)
		*rep = arg.d.rep;
	return ret;
}

/**
 * uapi_bo_info() - BO_INFO of @handle.
 * @rep: if not NULL, receives the reply on success.
 */
static inline int uapi_bo_info(int fd, uint32_t handle, struct drm_bo_info_rep *rep)
{
	return uapi_bo_info_req(fd, DRM_IOCTL_BO_INFO, handle, rep);
}

/**
 * uapi_bo_ref() - BO_REFERENCE of @handle by client @fd.
 * @rep: if not NULL, receives the reply on success.
 */
static inline int uapi_bo_ref(int fd, uint32_t handle, struct drm_bo_info_rep *rep)
{
	return uapi_bo_info_req(fd, DRM_IOCTL_BO_REFERENCE, handle, rep);
}

/* A request that names only @handle (@req: BO_UNREFERENCE, BO_UNMAP). */
static inline int uapi_bo_handle_req(int fd, unsigned long req, uint32_t handle)
{
	struct drm_bo_handle_arg arg = {.handle = handle};

	return ttm_drm_ioctl(fd, req, &arg);
}

/** uapi_bo_unref() - BO_UNREFERENCE of @handle by client @fd. */
static inline int uapi_bo_unref(int fd, uint32_t handle)
{
	return uapi_bo_handle_req(fd, DRM_IOCTL_BO_UNREFERENCE, handle);
}

/**
 * uapi_bo_setstatus() - BO_SETSTATUS of @handle: the bits of @flags under
 * @mask, with @hint.
 * @rep: if not NULL, receives the reply on success.
 */
static inline int uapi_bo_setstatus(int fd, uint32_t handle, uint64_t flags, uint64_t mask,
				    uint32_t hint, struct drm_bo_info_rep *rep)
{
	struct drm_bo_map_wait_idle_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = handle;
	arg.d.req.flags = flags;
	arg.d.req.mask = mask;
	arg.d.req.hint = hint;
	ret = ttm_drm_ioctl(fd, DRM_IOCTL_BO_SETSTATUS, &arg);
	if (!ret && rep)
		*rep = arg.d.rep;
	return ret;
}

/**
 * uapi_bo_map_ioctl() - BO_MAP of @handle for read and write: the map
 * reference alone, no CPU address (ttm_drm_mmap() of the reply's
 * arg_handle gives one).
 * @rep: if not NULL, receives the reply on success.
 */
static inline int uapi_bo_map_ioctl(int fd, uint32_t handle, struct drm_bo_info_rep *rep)
{
	struct drm_bo_map_wait_idle_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.d.req.handle = handle;
	arg.d.req.mask = DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE;
	ret = ttm_drm_ioctl(fd, DRM_IOCTL_BO_MAP, &arg);
	if (!ret && rep)
		*rep = arg.d.rep;
	return ret;
}

/**
 * uapi_bo_map() - uapi_bo_map_ioctl(), then ttm_drm_mmap() of the whole
 * buffer.
 * @rep: if not NULL, receives BO_MAP's reply when it succeeded.
 * @err: set to 0, or to the negative errno of whichever step failed.
 *
 * Return: the CPU address, or NULL on failure (the map reference stays
 * taken when only ttm_drm_mmap() failed).
 */
static inline void *uapi_bo_map(int fd, uint32_t handle, struct drm_bo_info_rep *rep, int *err)
{
	struct drm_bo_info_rep r;

	*err = uapi_bo_map_ioctl(fd, handle, &r);
	if (*err)
		return NULL;
	if (rep)
		*rep = r;
	return ttm_drm_mmap(fd, r.arg_handle, r.size, err);
}

/** uapi_bo_unmap() - BO_UNMAP of @handle (drops the map reference BO_MAP took). */
static inline int uapi_bo_unmap(int fd, uint32_t handle)
{
	return uapi_bo_handle_req(fd, DRM_IOCTL_BO_UNMAP, handle);
}

#endif /* TTM_UAPI_HELPERS_H */
