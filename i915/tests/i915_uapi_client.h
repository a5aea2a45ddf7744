/* SPDX-License-Identifier: MIT */
/* The 2008-style client of test-i915-uapi, built against compat headers only. */
#ifndef I915_UAPI_CLIENT_H
#define I915_UAPI_CLIENT_H

#include <stdint.h>

/**
 * client_store_dword() - as a 2008 client would: drmOpen(@name), create two
 * target buffers and a batch buffer, write two MI_STORE_DWORD_IMM (@value
 * into the first target, @value + 1 into the second) into the batch, each
 * with a type-0 relocation naming its target by buffer handle at byte
 * @delta, submit with DRM_I915_EXECBUFFER and two cliprects (retrying
 * -EAGAIN), drmFenceWait() the fence, map each target and read its dword
 * back into @readback[0] and @readback[1], then free everything.
 * Return: 0 or the first negative errno.
 */
int client_store_dword(const char *name, uint32_t value, uint32_t delta, uint32_t readback[2]);

#endif /* I915_UAPI_CLIENT_H */
