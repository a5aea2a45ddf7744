/* SPDX-License-Identifier: MIT */
/*
 * The set-up the bench_hw tests share: a bench run with --backend=hw and
 * --quick over i915/hw's recording fake (no GPU, no real device followed).
 * Whether anything the back end took from the "kernel" is left is the
 * fake's own hw_fake_clean().
 */
#ifndef BENCH_HW_FIXTURE_H
#define BENCH_HW_FIXTURE_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_hw.h"
#include "hw_fake.h"

struct bench_hw_fixture {
	struct hw_fake *fake;
	struct bench_options opts;
	struct bench_run run;
	struct bench_hw hw;
	struct bench_hw_args args;
};

/*
 * Parse "@prog --quick" with the hw back end, start a run named @run_name
 * and point the back end's system calls at a fresh fake. Return: 0, or a
 * negative errno with nothing left to free.
 */
static inline int bench_hw_fixture_init(struct bench_hw_fixture *fx, const char *prog,
					const char *run_name)
{
	char *argv[] = {(char *)prog, "--quick", NULL};
	char err[128];
	int ret;

	memset(fx, 0, sizeof(*fx));
	/* Never follow a developer's real device. */
	unsetenv(HW_DEVICE_ENV);
	ret = bench_options_parse(&fx->opts, 2, argv, NULL, NULL, err, sizeof(err));
	if (ret)
		return ret;
	fx->opts.backend = BENCH_BACKEND_HW;
	fx->fake = hw_fake_new();
	if (!fx->fake)
		return -ENOMEM;
	ret = bench_run_init(&fx->run, run_name, &fx->opts);
	if (ret) {
		hw_fake_free(fx->fake);
		return ret;
	}
	bench_hw_init(&fx->hw);
	fx->args.need_exec_fence = true;
	fx->args.sys = &hw_fake_ops;
	fx->args.sys_data = fx->fake;
	return 0;
}

static inline void bench_hw_fixture_fini(struct bench_hw_fixture *fx)
{
	bench_run_fini(&fx->run);
	hw_fake_free(fx->fake);
}

#endif
