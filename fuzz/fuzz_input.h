/* SPDX-License-Identifier: MIT */
/*
 * fuzz_input.h - read a libFuzzer input as a stream of small integers.
 *
 * Every target turns its input into a sequence of operations. Reading past
 * the end yields zeros instead of failing, so a truncated input is still a
 * valid (shorter) program and the fuzzer never wastes runs on a parse error
 * of its own making.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * struct fuzz_input - a cursor over the fuzzer's bytes.
 * @data: the input (owned by libFuzzer, read-only).
 * @len: its length.
 * @pos: bytes consumed so far.
 */
struct fuzz_input {
	const uint8_t *data;
	size_t len;
	size_t pos;
};

static inline void fuzz_input_init(struct fuzz_input *in, const uint8_t *data, size_t len)
{
	in->data = data;
	in->len = len;
	in->pos = 0;
}

static inline bool fuzz_input_done(const struct fuzz_input *in)
{
	return in->pos >= in->len;
}

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
	return in->pos < in->len ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(struct fuzz_input *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint64_t fuzz_u64(struct fuzz_input *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)fuzz_u8(in) << (8 * i);
	return v;
}

/*
 * fuzz_check - a property of the code under test does not hold. Unlike
 * assert() it stays on in release builds; abort() is how a libFuzzer target
 * reports a finding (the input is saved as a crash- file).
 */
#define fuzz_check(expr)                                                                           \
	do {                                                                                       \
		if (!(expr)) {                                                                     \
			fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__,      \
				#expr);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/*
 * libFuzzer's flags, from its FuzzerFlags.def: "i" takes a whole number,
 * "s" a string. libFuzzer itself ignores a flag it does not know (with a
 * warning among its startup lines) and reads a value that is no number as
 * 0, so a mistyped campaign would run as a different one.
 */
static const char *const fuzz_known_flags[] = {
    "iverbosity",
    "iseed",
    "iruns",
    "imax_len",
    "ilen_control",
    "itimeout",
    "ierror_exitcode",
    "itimeout_exitcode",
    "imax_total_time",
    "ihelp",
    "ifork",
    "iignore_timeouts",
    "iignore_ooms",
    "iignore_crashes",
    "imerge",
    "iset_cover_merge",
    "iminimize_crash",
    "icleanse_crash",
    "iminimize_crash_internal_step",
    "imutate_depth",
    "ireduce_depth",
    "ishuffle",
    "iprefer_small",
    "icross_over",
    "icross_over_uniform_dist",
    "iuse_counters",
    "iuse_memmem",
    "iuse_value_profile",
    "iuse_cmp",
    "ishrink",
    "ireduce_inputs",
    "ijobs",
    "iworkers",
    "ireload",
    "ireport_slow_units",
    "ionly_ascii",
    "iprint_pcs",
    "iprint_funcs",
    "iprint_final_stats",
    "iprint_corpus_stats",
    "iprint_coverage",
    "iprint_full_coverage",
    "idump_coverage",
    "ihandle_segv",
    "ihandle_bus",
    "ihandle_abrt",
    "ihandle_ill",
    "ihandle_fpe",
    "ihandle_int",
    "ihandle_term",
    "ihandle_xfsz",
    "ihandle_usr1",
    "ihandle_usr2",
    "iclose_fd_mask",
    "idetect_leaks",
    "ipurge_allocator_interval",
    "itrace_malloc",
    "irss_limit_mb",
    "imalloc_limit_mb",
    "iignore_remaining_args",
    "ientropic",
    "ientropic_feature_frequency_threshold",
    "ientropic_number_of_rarest_features",
    "ientropic_scale_per_exec_time",
    "ianalyze_dict",
    "ikeep_seed",
    "icreate_missing_dirs",
    "ilazy_counters",
    "iprint_unstable_stats",
    "iprint_new_cov_pcs",
    "sartifact_prefix",
    "sexact_artifact_path",
    "sdict",
    "smerge_control_file",
    "sfocus_function",
    "sseed_inputs",
    "sexit_on_src_pos",
    "sexit_on_item",
    "sdata_flow_trace",
    "scollect_data_flow",
    "sfeatures_dir",
    "sstop_file",
    "smutation_graph_file",
    "smerge_inner",
};

/*
 * fuzz_check_flags - refuse what libFuzzer would silently take wrong: a
 * "-name=value" argument naming no libFuzzer flag, a flag without "=value",
 * or a number flag whose value is not a whole number (-1 is allowed, the
 * "no limit" of -runs). One line on stderr and exit status 2, before any
 * input runs. Call first in LLVMFuzzerInitialize(). Arguments without a
 * leading '-' are corpus directories and inputs, checked by libFuzzer.
 */
static inline void fuzz_check_flags(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		const char *arg = argv[a], *eq, *v;
		size_t n;
		char type = 0;

		if (arg[0] != '-')
			continue;
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg - 1) : 0;
		for (size_t k = 0; eq && k < sizeof(fuzz_known_flags) / sizeof(fuzz_known_flags[0]);
		     k++) {
			if (strlen(fuzz_known_flags[k] + 1) == n &&
			    !strncmp(fuzz_known_flags[k] + 1, arg + 1, n))
				type = fuzz_known_flags[k][0];
		}
		if (!type) {
			fprintf(stderr, "%s: %s: not a libFuzzer flag (-name=value)\n", argv[0],
				arg);
			exit(2);
		}
		v = eq + 1;
		if (type == 'i') {
			const char *d = v[0] == '-' && v[1] == '1' && !v[2] ? v + 1 : v;
			bool whole = *d && strlen(d) <= 18;

			for (; *d && whole; d++)
				whole = *d >= '0' && *d <= '9';
			if (!whole) {
				fprintf(stderr, "%s: %s: the value is not a whole number\n",
					argv[0], arg);
				exit(2);
			}
		}
		if (!strncmp(arg, "-ignore_remaining_args=", 23) && strcmp(v, "0"))
			return;
	}
}

/*
 * FUZZ_DEFINE_INITIALIZE() - define LLVMFuzzerInitialize() for a target that
 * sets nothing up: fuzz_check_flags() on the command line, then 0.
 */
#define FUZZ_DEFINE_INITIALIZE()                                                                   \
	int LLVMFuzzerInitialize(int *argc, char ***argv);                                         \
	int LLVMFuzzerInitialize(int *argc, char ***argv)                                          \
	{                                                                                          \
		fuzz_check_flags(*argc, *argv);                                                    \
		return 0;                                                                          \
	}

#endif /* FUZZ_INPUT_H */
