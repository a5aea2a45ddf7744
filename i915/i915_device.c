// SPDX-License-Identifier: MIT
/*
 * i915_device: the driver probed over the back end a neutral configuration
 * names, so that tests, benchmarks, fuzz targets and stress programs choose
 * "sim" or "hw" without including either back end's headers. Its own
 * library (libi915_device) because the hw back end needs libdrm and the
 * driver library does not.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ttm_config.h>

#include <i915/i915_drv.h>

#include "i915_backend.h"

#if TTM_HAVE_LIBDRM
#include "hw_gpu.h"
#endif

void i915_device_config_init(struct i915_device_config *cfg, enum i915_backend_kind backend)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = backend;
	i915_sim_config_defaults(cfg);
}

int i915_backend_parse(const char *name, enum i915_backend_kind *out)
{
	if (name && !strcmp(name, "sim"))
		*out = I915_BACKEND_SIM;
	else if (name && !strcmp(name, "hw"))
		*out = I915_BACKEND_HW;
	else
		return -EINVAL;
	return 0;
}

int i915_device_create(const struct i915_device_config *cfg, struct i915_device **out)
{
	if (!cfg || !out)
		return -EINVAL;
	switch (cfg->backend) {
	case I915_BACKEND_SIM:
		return i915_device_create_sim_config(cfg, out);
	case I915_BACKEND_HW: {
#if TTM_HAVE_LIBDRM
		const struct hw_open_args args = {
		    .device = cfg->device, .why = cfg->why, .why_len = cfg->why_len};

		return i915_device_create_hw(&args, out);
#else
		if (cfg->why && cfg->why_len)
			snprintf(cfg->why, cfg->why_len, "built without libdrm: no hw back end");
		return -ENODEV;
#endif
	}
	}
	return -EINVAL;
}

void i915_device_describe(struct i915_device *i915,
			  void (*emit)(void *data, const char *key, const char *value), void *data)
{
	emit(data, "backend", i915->be->ops->name);
	i915->be->ops->describe(i915->be, emit, data);
}
