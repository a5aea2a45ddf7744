/* SPDX-License-Identifier: MIT */
/*
 * test-ttm-uapi-mock.h - the uAPI tests' mock driver (test-ttm-uapi-mock.c)
 * and the ioctl wrappers the uAPI test programs share. The 2008-style
 * client test (test-ttm-uapi-compat.c) does not include it: it sees only
 * the compat headers and declares the mock's entry points itself.
 */
#ifndef TEST_TTM_UAPI_MOCK_H
#define TEST_TTM_UAPI_MOCK_H

#include <stdint.h>

#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

/*
 * The mock's VRAM arena: MM_INIT of VRAM may cover up to MOCK_VRAM_PAGES;
 * the CPU reaches the first MOCK_VRAM_VISIBLE_PAGES of them.
 */
#define MOCK_VRAM_PAGES 4096u
#define MOCK_VRAM_VISIBLE_PAGES 1024u

struct ttm_drm_device *mock_uapi_start(const char *name);
int mock_uapi_stop(struct ttm_drm_device *ddev);
void mock_uapi_signal_all(struct ttm_drm_device *ddev);
unsigned long mock_uapi_pending(struct ttm_drm_device *ddev);
unsigned long mock_uapi_bo_count(struct ttm_drm_device *ddev);

/**
 * uapi_create_bo() - BO_CREATE of @size bytes with @flags.
 * @rep: if not NULL, receives the reply on success.
 *
 * Return: 0 or the ioctl's negative errno.
 */
int uapi_create_bo(int fd, uint64_t flags, uint64_t size, struct drm_bo_info_rep *rep);

/**
 * uapi_bo_ref() - BO_REFERENCE of @handle by client @fd.
 *
 * Return: 0 or the ioctl's negative errno.
 */
int uapi_bo_ref(int fd, uint32_t handle);

/**
 * uapi_bo_setstatus() - BO_SETSTATUS of @handle: the bits of @flags under
 * @mask, with @hint.
 * @rep: if not NULL, receives the reply on success.
 *
 * Return: 0 or the ioctl's negative errno.
 */
int uapi_bo_setstatus(int fd, uint32_t handle, uint64_t flags, uint64_t mask, uint32_t hint,
		      struct drm_bo_info_rep *rep);

/**
 * uapi_bo_map() - BO_MAP for read and write, then ttm_drm_mmap() of the
 * whole buffer.
 * @err: set to 0, or to the negative errno of whichever step failed.
 *
 * Return: the CPU address, or NULL on failure.
 */
void *uapi_bo_map(int fd, uint32_t handle, int *err);

/**
 * uapi_bo_unmap() - BO_UNMAP of @handle (drops the map reference BO_MAP took).
 *
 * Return: 0 or the ioctl's negative errno.
 */
int uapi_bo_unmap(int fd, uint32_t handle);

#endif /* TEST_TTM_UAPI_MOCK_H */
