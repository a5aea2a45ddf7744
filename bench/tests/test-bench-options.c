// SPDX-License-Identifier: MIT
/* Command-line parsing of the bench harness: defaults, both value forms, one-line errors. */
#include <errno.h>
#include <string.h>

#include <ktest.h>

#include "bench.h"

static int parse(struct bench_options *o, char *err, const struct bench_opt *extra, void *ctx,
		 int argc, char **argv)
{
	return bench_options_parse(o, argc, argv, extra, ctx, err, 256);
}

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"prog", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, err, ...) parse(o, err, NULL, NULL, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

KTEST(bench_options_parse_defaults)
{
	struct bench_options o;
	char err[256];
	char *argv[] = {"prog", NULL};

	ASSERT_EQ(bench_options_parse(&o, 1, argv, NULL, NULL, err, sizeof(err)), 0);
	EXPECT_EQ(o.reps, 10);
	EXPECT_EQ(o.warmup, 2);
	EXPECT_TRUE(o.duration_s == 1.0);
	EXPECT_EQ(o.threads, 1);
	EXPECT_EQ(o.ncpus, 0);
	EXPECT_EQ(o.backend, BENCH_BACKEND_SIM);
	EXPECT_UEQ(o.seed, 1);
	EXPECT_NULL(o.out);
}

KTEST(bench_options_parse_quick_and_explicit)
{
	struct bench_options o;
	char err[256];

	ASSERT_EQ(PARSE(&o, err, "--quick"), 0);
	EXPECT_EQ(o.reps, 3);
	EXPECT_EQ(o.warmup, 1);
	EXPECT_TRUE(o.duration_s == 0.2);
	ASSERT_EQ(PARSE(&o, err, "--quick", "--reps=7", "--warmup", "0", "--duration", "0.5"), 0);
	EXPECT_EQ(o.reps, 7);
	EXPECT_TRUE(o.reps_set);
	EXPECT_EQ(o.warmup, 0);
	EXPECT_TRUE(o.duration_s == 0.5);
	ASSERT_EQ(PARSE(&o, err, "--cpus", "0,2,4-6", "--threads=3", "--backend=hw", "--seed", "99",
			"--out", "x.json"),
		  0);
	EXPECT_EQ(o.ncpus, 5);
	EXPECT_EQ(o.cpus[4], 6);
	EXPECT_EQ(o.threads, 3);
	EXPECT_EQ(o.backend, BENCH_BACKEND_HW);
	EXPECT_UEQ(o.seed, 99);
	EXPECT_STREQ(o.out, "x.json");
}

KTEST(bench_options_parse_help)
{
	struct bench_options o;
	char err[256];

	EXPECT_EQ(PARSE(&o, err, "--reps", "3", "--help"), BENCH_SETUP_HELP);
	EXPECT_EQ(bench_exit_code(BENCH_SETUP_HELP), 0);
}

KTEST(bench_options_parse_errors)
{
	struct bench_options o;
	char err[256];

	EXPECT_EQ(PARSE(&o, err, "--bogus"), -EINVAL);
	EXPECT_TRUE(strstr(err, "--bogus") != NULL);
	EXPECT_TRUE(strchr(err, '\n') == NULL);
	EXPECT_EQ(PARSE(&o, err, "positional"), -EINVAL);
	EXPECT_TRUE(strstr(err, "positional") != NULL);
	EXPECT_EQ(PARSE(&o, err, "--reps", "0"), -EINVAL);
	EXPECT_TRUE(strstr(err, "--reps") != NULL);
	EXPECT_EQ(PARSE(&o, err, "--reps=x"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--reps=-1"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--reps"), -EINVAL);
	EXPECT_TRUE(strstr(err, "missing") != NULL);
	EXPECT_EQ(PARSE(&o, err, "--threads", "0"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--duration", "0"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--duration", "nan"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--backend", "gpu"), -EINVAL);
	EXPECT_TRUE(strstr(err, "gpu") != NULL);
	EXPECT_TRUE(strstr(err, "core") != NULL);
	ASSERT_EQ(PARSE(&o, err, "--backend=core"), 0);
	EXPECT_EQ(o.backend, BENCH_BACKEND_CORE);
	EXPECT_EQ(PARSE(&o, err, "--quick=1"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--cpus", "0,0"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--cpus", "3-1"), -EINVAL);
	EXPECT_EQ(PARSE(&o, err, "--cpus", "0,1", "--threads", "3"), -EINVAL);
	EXPECT_TRUE(strstr(err, "--threads") != NULL);
	EXPECT_EQ(bench_exit_code(BENCH_SETUP_USAGE), 2);
}

KTEST(bench_parse_cpu_list_forms)
{
	unsigned c[8];

	EXPECT_EQ(bench_parse_cpu_list("3", c, 8), 1);
	EXPECT_EQ(bench_parse_cpu_list("1-4,7", c, 8), 5);
	EXPECT_EQ(c[0], 1);
	EXPECT_EQ(c[4], 7);
	EXPECT_EQ(bench_parse_cpu_list("", c, 8), -EINVAL);
	EXPECT_EQ(bench_parse_cpu_list("1,", c, 8), -EINVAL);
	EXPECT_EQ(bench_parse_cpu_list(",1", c, 8), -EINVAL);
	EXPECT_EQ(bench_parse_cpu_list("a", c, 8), -EINVAL);
	EXPECT_EQ(bench_parse_cpu_list("0-8", c, 8), -EINVAL);
	EXPECT_EQ(bench_parse_cpu_list("2-", c, 8), -EINVAL);
}

struct extra_ctx {
	int level;
	bool flag;
};

static int set_level(void *ctx, const char *arg, char *err, size_t errlen)
{
	struct extra_ctx *x = ctx;

	if (strcmp(arg, "lo") && strcmp(arg, "hi")) {
		snprintf(err, errlen, "expected lo or hi, got '%s'", arg);
		return -EINVAL;
	}
	x->level = !strcmp(arg, "hi");
	return 0;
}

static int set_flag(void *ctx, const char *arg, char *err, size_t errlen)
{
	((struct extra_ctx *)ctx)->flag = true;
	return 0;
}

KTEST(bench_options_parse_extra)
{
	static const struct bench_opt extra[] = {
	    {.name = "level", .arg = "lo|hi", .help = "level", .set = set_level},
	    {.name = "flag", .help = "a flag", .set = set_flag},
	    {0},
	};
	struct extra_ctx x = {0};
	struct bench_options o;
	char err[256];

	ASSERT_EQ(
	    parse(&o, err, extra, &x, ARGC("--level=hi", "--flag"), ARGV("--level=hi", "--flag")),
	    0);
	EXPECT_EQ(x.level, 1);
	EXPECT_TRUE(x.flag);
	EXPECT_EQ(parse(&o, err, extra, &x, ARGC("--level", "mid"), ARGV("--level", "mid")),
		  -EINVAL);
	EXPECT_TRUE(strstr(err, "--level") && strstr(err, "mid"));
}
