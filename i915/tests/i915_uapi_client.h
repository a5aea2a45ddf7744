/* SPDX-License-Identifier: MIT */
/* The 2008-style client of test-i915-uapi, built against compat headers only. */
#ifndef I915_UAPI_CLIENT_H
#define I915_UAPI_CLIENT_H

#include <stdint.h>

/**
 * client_store_dword() - as a 2008 client would: drmOpen(@name), create a
 * target and a batch buffer, write MI_STORE_DWORD_IMM of @value into the
 * batch with a type-0 relocation to the target at byte @delta, submit with
 * DRM_I915_EXECBUFFER (retrying -EAGAIN), drmFenceWait() the fence, map the
 * target and read the dword back into *@readback, then free everything.
 * Return: 0 or the first negative errno.
 */
int client_store_dword(const char *name, uint32_t value, uint32_t delta, uint32_t *readback);

#endif /* I915_UAPI_CLIENT_H */
