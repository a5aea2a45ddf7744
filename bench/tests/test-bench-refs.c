// SPDX-License-Identifier: MIT
/* References and pinning of the bench harness (threads: also run under TSan). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <ktest.h>

#include "bench.h"

static int init_run(struct bench_run *r, int argc, char **argv)
{
	struct bench_options o;
	char err[128];
	int rc = bench_options_parse(&o, argc, argv, NULL, NULL, err, sizeof(err));

	return rc ? rc : bench_run_init(r, "refs", &o);
}

KTEST(bench_machine_probe_fills)
{
	struct bench_machine m;

	ASSERT_EQ(bench_machine_probe(&m), 0);
	EXPECT_EQ(strlen(m.id), 16);
	EXPECT_GE(m.pus, 1);
	EXPECT_GE(m.cores, 1);
	EXPECT_LE(m.cores, m.pus);
	EXPECT_GT(m.ram_bytes, 0);
	EXPECT_TRUE(m.kernel[0] != '\0');
	/* The signature names the part even where the model name does not. */
	EXPECT_TRUE(!strcmp(m.cpu_signature, "unknown") || !strncmp(m.cpu_signature, "x86 ", 4) ||
		    !strncmp(m.cpu_signature, "arm ", 4));
#if defined(__x86_64__) || defined(__i386__)
	EXPECT_EQ(strncmp(m.cpu_signature, "x86 ", 4), 0);
	EXPECT_TRUE(strchr(m.cpu_signature, '-') == NULL);
#endif
	{
		struct bench_machine again;

		ASSERT_EQ(bench_machine_probe(&again), 0);
		EXPECT_STREQ(again.id, m.id);
		bench_machine_fini(&again);
	}
	bench_machine_fini(&m);
}

KTEST(bench_references_measure_quick)
{
	char *argv[] = {"prog", "--quick", NULL};
	struct bench_run r;
	int i;

	ASSERT_EQ(init_run(&r, 2, argv), 0);
	EXPECT_EQ(bench_references_measure(&r), 0);
	for (i = 0; i < BENCH_REF_COUNT; i++) {
		EXPECT_TRUE(r.refs[i].measured);
		EXPECT_TRUE(r.refs[i].stats.median > 0.0 && isfinite(r.refs[i].stats.median));
		EXPECT_TRUE(r.refs[i].stats.min <= r.refs[i].stats.median);
	}
	EXPECT_STREQ(r.refs[BENCH_REF_SYSCALL].name, "syscall_getppid");
	EXPECT_STREQ(r.refs[BENCH_REF_CLOCK].name, "clock_gettime");
	EXPECT_STREQ(r.refs[BENCH_REF_CLOCK].unit, "ns");
	EXPECT_STREQ(r.refs[BENCH_REF_MEMCPY_BW].unit, "GB/s");
	bench_run_fini(&r);
}

KTEST(bench_pin_thread_valid_and_invalid)
{
	char *argv_ok[] = {"prog", "--cpus", "0", NULL};
	char *argv_bad[] = {"prog", "--cpus", "4000", NULL};
	struct bench_run r;

	ASSERT_EQ(init_run(&r, 3, argv_ok), 0);
	EXPECT_EQ(bench_pin_thread(&r, 0), 0);
	EXPECT_EQ(bench_pin_thread(&r, 3), 0);
	bench_run_fini(&r);
	ASSERT_EQ(init_run(&r, 3, argv_bad), 0);
	EXPECT_EQ(bench_pin_thread(&r, 0), -EINVAL);
	bench_run_fini(&r);
	ASSERT_EQ(init_run(&r, 1, (char *[]){"prog", NULL}), 0);
	EXPECT_EQ(bench_pin_thread(&r, 1), 0);
	bench_run_fini(&r);
}
