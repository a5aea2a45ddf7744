/* SPDX-License-Identifier: MIT */
/*
 * test-ttm-uapi-mock.h - the uAPI tests' mock driver (test-ttm-uapi-mock.c);
 * it brings the ioctl wrappers of ttm_uapi_helpers.h along. The 2008-style
 * client test (test-ttm-uapi-compat.c) does not include it: it sees only
 * the compat headers and declares the mock's entry points itself.
 */
#ifndef TEST_TTM_UAPI_MOCK_H
#define TEST_TTM_UAPI_MOCK_H

#include <stdint.h>

#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

#include "ttm_uapi_helpers.h"

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

#endif /* TEST_TTM_UAPI_MOCK_H */
