/* SPDX-License-Identifier: MIT */
/*
 * backend_dev - a driver device with GEM up and a context on a VM of its
 * own, over the sim or the hw back end: the set-up test-i915-backend shares
 * between back ends. Its own file so that the test can include the system
 * <i915_drm.h> (the fake's records) without the driver's <i915/i915_gem.h>.
 */
#ifndef BACKEND_DEV_H
#define BACKEND_DEV_H

#include <stdbool.h>

#include <i915/i915_drv.h>
#include <i915/i915_vm.h>

/**
 * struct backend_dev - what backend_dev_open() made.
 * @i915: the device.
 * @ctx: a context on a VM of its own (@ctx->vm).
 */
struct backend_dev {
	struct i915_device *i915;
	struct i915_context *ctx;
};

/**
 * backend_dev_open() - probe and set up.
 * @d: zeroed by the call, then filled.
 * @name: "sim" (the default configuration) or "hw".
 * @hw: the hw back end's open arguments (NULL: defaults); unused for sim.
 *
 * Return: 0; a probe error (with @d->i915 NULL); a later error (call
 * backend_dev_close() still).
 */
int backend_dev_open(struct backend_dev *d, const char *name, const struct hw_open_args *hw);

/**
 * backend_dev_close() - undo backend_dev_open().
 * @d: the device set-up.
 *
 * Return: 0; the first teardown error.
 */
int backend_dev_close(struct backend_dev *d);

/**
 * backend_dev_gem_exec() - one execbuffer of a driver GEM object (a batch
 * that only ends), waited for.
 * @d: the device set-up.
 * @in_vm: run in @d->ctx (its VM) rather than the GGTT.
 *
 * Return: 0; the object's or the execbuffer's error.
 */
int backend_dev_gem_exec(struct backend_dev *d, bool in_vm);

#endif /* BACKEND_DEV_H */
