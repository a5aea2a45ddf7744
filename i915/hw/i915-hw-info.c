// SPDX-License-Identifier: MIT
/*
 * i915-hw-info - print what the hw back end sees of the Intel GPU, as
 * "key: value" lines (scripts/compare-igt.sh records them with its
 * results), or skip with exit 77 and a one-line reason.
 *
 *   i915-hw-info [--device /dev/dri/renderDNNN]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hw_gpu.h"

static void print_pair(void *data, const char *key, const char *value)
{
	fprintf(data, "%s: %s\n", key, value);
}

int main(int argc, char **argv)
{
	const struct hw_gpu_info *info;
	struct hw_open_args args = {0};
	struct hw_gpu *gpu;
	char why[256];
	unsigned int i;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s [--device PATH]   (or %s=PATH)\n", argv[0], HW_DEVICE_ENV);
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--device") && a + 1 < argc) {
			a++;
		} else if (strncmp(argv[a], "--device=", 9)) {
			fprintf(stderr, "%s: unknown argument '%s' (usage: %s [--device PATH])\n",
				argv[0], argv[a], argv[0]);
			return 79;
		}
	}
	ret = hw_device_select(argc, argv, &args.device);
	if (ret) {
		fprintf(stderr, "%s: --device needs a path shorter than %d bytes\n", argv[0],
			HW_PATH_MAX);
		return 79;
	}
	if (hw_device_check(args.device, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", argv[0], why);
		return 79;
	}
	args.why = why;
	args.why_len = sizeof(why);
	ret = hw_gpu_open(&args, &gpu);
	if (ret) {
		printf("%s: %s (%s)\n", hw_err_is_skip(ret) ? "SKIP" : "FAIL",
		       why[0] ? why : strerror(-ret), strerror(-ret));
		return hw_exit_status(ret);
	}
	info = hw_gpu_info(gpu);
	hw_gpu_describe(info, print_pair, stdout);
	for (i = 0; i < info->num_regions; i++)
		printf("region: %s.%u probed=%" PRIu64 " unallocated=%" PRIu64
		       " cpu_visible=%" PRIu64 "\n",
		       info->regions[i].id.mclass == HW_MEMORY_CLASS_DEVICE ? "device" : "system",
		       info->regions[i].id.instance, info->regions[i].probed_size,
		       info->regions[i].unallocated_size, info->regions[i].cpu_visible_size);
	hw_gpu_close(gpu);
	return 0;
}
