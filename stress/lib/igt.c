// SPDX-License-Identifier: MIT
/*
 * igt.c - the igt-protocol harness: option parsing, subtest selection with
 * uwildmat patterns, fork-per-subtest execution, result lines, debug log.
 * See igt.h for the contract.
 */
#include "igt.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fault_inject.h>

#include <testlib/clock.h>

#include "ttm_config.h"

enum igt_result { IGT_R_SKIP, IGT_R_SUCCESS, IGT_R_FAIL, IGT_R_CRASH };

static const char *const igt_result_names[] = {
    [IGT_R_SKIP] = "SKIP",
    [IGT_R_SUCCESS] = "SUCCESS",
    [IGT_R_FAIL] = "FAIL",
    [IGT_R_CRASH] = "CRASH",
};

sigjmp_buf igt_fixture_jmp_;

/*
 * Process-wide harness state. Each forked child inherits a copy; only the
 * main process's copy counts results.
 */
static struct {
	const char *name;
	const char *description;
	const char *run_pattern;
	const char *dyn_pattern;
	bool soak;
	bool dyn_matched_any; /* a --dynamic-subtest pattern matched in some subtest */
	bool list;
	bool testlist;
	bool debug;
	double budget_s;
	uint64_t seed;
	unsigned int counts[IGT_NUM_COUNTS]; /* --clients, --threads, --waiters; 0: not given */

	bool matched_any;
	unsigned int passed, failed, skipped;
	enum igt_result fixture_state; /* SUCCESS, or SKIP/FAIL after a bad fixture */
	bool in_fixture;
	bool in_subtest; /* we are a subtest child */
	bool in_dynamic; /* we are a dynamic-subtest grandchild */
	bool with_dynamic;
	unsigned int dyn_run;
	enum igt_result dyn_worst;
} igt;

/* Set by igt_fork_run() when a subtest child reported that no dynamic subtest matched. */
static bool igt_unmatched;

/* ---- debug log ---------------------------------------------------------- */

#define IGT_LOG_SIZE (64u << 10)
static char igt_log[IGT_LOG_SIZE];
static size_t igt_log_len;

static void igt_log_append(const char *s, size_t n)
{
	if (n >= IGT_LOG_SIZE)
		return;
	/* Keep the most recent lines: drop the older half when full. */
	if (igt_log_len + n > IGT_LOG_SIZE) {
		size_t keep = igt_log_len / 2;

		memmove(igt_log, igt_log + igt_log_len - keep, keep);
		igt_log_len = keep;
		if (igt_log_len + n > IGT_LOG_SIZE)
			igt_log_len = 0;
	}
	memcpy(igt_log + igt_log_len, s, n);
	igt_log_len += n;
}

static void igt_write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

/* Async-signal-safe: called from the crash handler too. */
static void igt_log_dump(void)
{
	static const char head[] = "**** DEBUG ****\n";
	static const char tail[] = "****  END  ****\n";

	if (igt.debug || !igt_log_len)
		return;
	igt_write_all(STDERR_FILENO, head, sizeof(head) - 1);
	igt_write_all(STDERR_FILENO, igt_log, igt_log_len);
	igt_write_all(STDERR_FILENO, tail, sizeof(tail) - 1);
}

static void igt_vlog(FILE *out, const char *fmt, va_list ap) igt_printf_fmt(2, 0);

static void igt_vlog(FILE *out, const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	igt_log_append(line, (size_t)n);
	if (out) {
		fputs(line, out);
		fflush(out);
	}
}

void igt_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	igt_vlog(stdout, fmt, ap);
	va_end(ap);
}

void igt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	igt_vlog(stderr, fmt, ap);
	va_end(ap);
}

void igt_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	igt_vlog(igt.debug ? stderr : NULL, fmt, ap);
	va_end(ap);
}

void igt_report_checks(uint64_t operations, uint64_t bytes_verified, uint64_t faults_injected)
{
	printf("checks: operations=%" PRIu64 " bytes_verified=%" PRIu64 " faults_injected=%" PRIu64
	       "\n",
	       operations, bytes_verified, faults_injected);
	fflush(stdout);
}

/* ---- parameters --------------------------------------------------------- */

double igt_stress_budget_s(void)
{
	return igt.budget_s;
}

/*
 * A subtest process that refused an option exits with this status (never the
 * program's own): the parent then ends the whole run with IGT_EXIT_INVALID,
 * as if the option had been refused at parse time, instead of counting a
 * skip or a crash.
 */
#define IGT_CHILD_BAD_OPTION 80

static igt_noreturn void igt_child_exit(int code);

static const char *const igt_count_names[IGT_NUM_COUNTS] = {"clients", "threads", "waiters"};

unsigned int igt_opt_count(enum igt_count_kind kind, unsigned int def, unsigned int max)
{
	unsigned int n = igt.counts[kind];

	if (!n)
		return def;
	if (n > max) {
		fprintf(stderr, "Invalid --%s: %u (this program takes 1..%u) (see --help)\n",
			igt_count_names[kind], n, max);
		if (igt.in_subtest)
			igt_child_exit(IGT_CHILD_BAD_OPTION);
		exit(IGT_EXIT_INVALID);
	}
	return n;
}

bool igt_soak(void)
{
	return igt.soak;
}

uint64_t igt_seed(void)
{
	return igt.seed;
}

bool igt_only_list_subtests(void)
{
	return igt.list || igt.testlist;
}

const char *igt_test_name(void)
{
	return igt.name ? igt.name : "unknown";
}

const char *igt_fmt_name_(const char *fmt, ...)
{
	static char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

/* ---- wildmat ------------------------------------------------------------ */

/*
 * One alternative of a uwildmat expression: @p..@pend against @t. Classes
 * are "[...]" with '^' negation and ranges; '\' quotes the next character.
 */
static bool igt_match_one(const char *t, const char *p, const char *pend)
{
	while (p < pend) {
		switch (*p) {
		case '*':
			while (p < pend && *p == '*')
				p++;
			if (p == pend)
				return true;
			for (; *t; t++)
				if (igt_match_one(t, p, pend))
					return true;
			return false;
		case '?':
			if (!*t)
				return false;
			t++;
			p++;
			break;
		case '[': {
			const char *q = p + 1;
			bool neg = false, hit = false;

			if (!*t)
				return false;
			if (q < pend && *q == '^') {
				neg = true;
				q++;
			}
			/* A ']' right after '[' (or '[^') is a member. */
			do {
				char lo = *q, hi = lo;

				if (q + 2 < pend && q[1] == '-' && q[2] != ']') {
					hi = q[2];
					q += 2;
				}
				if (*t >= lo && *t <= hi)
					hit = true;
				q++;
			} while (q < pend && *q != ']');
			if (q >= pend) /* unterminated: no match, like a bad pattern */
				return false;
			if (hit == neg)
				return false;
			t++;
			p = q + 1;
			break;
		}
		case '\\':
			if (p + 1 < pend)
				p++;
			__attribute__((fallthrough));
		default:
			if (*t != *p)
				return false;
			t++;
			p++;
			break;
		}
	}
	return *t == '\0';
}

bool igt_wildmat(const char *text, const char *pattern)
{
	bool result = false;
	const char *p = pattern;

	/* The last alternative that matches decides; '!' makes it exclude. */
	for (;;) {
		const char *end = p;
		bool neg = false;

		while (*end && *end != ',') {
			if (*end == '\\' && end[1])
				end++;
			end++;
		}
		if (*p == '!') {
			neg = true;
			p++;
		}
		if (igt_match_one(text, p, end))
			result = !neg;
		if (!*end)
			break;
		p = end + 1;
	}
	return result;
}

/* ---- options ------------------------------------------------------------ */

static void igt_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTIONS]\n"
		"  --list-subtests\n"
		"  --show-testlist\n"
		"  --run-subtest <pattern>\n"
		"  --dynamic-subtest <pattern>\n"
		"  --debug\n"
		"  --duration <seconds>\n"
		"  --soak\n"
		"  --seed <n>\n"
		"  --clients <n>, --threads <n>, --waiters <n>\n"
		"  --help-description\n"
		"  --help|-h\n",
		igt_test_name());
}

static void igt_print_version(void)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	printf("IGT-Version: 1.28-%s (x86_64) (Linux: %s x86_64)\n", TTM_GIT_REV, u.release);
	fflush(stdout);
}

static bool igt_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	/* Seconds: digits first (no sign, blank, "nan" or "inf"), finite, > 0, at most a day. */
	if (((*s < '0' || *s > '9') && *s != '.') || s[strspn(s, "0123456789.eE+-")])
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 86400.0)
		return false;
	*out = v;
	return true;
}

static bool igt_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

static igt_noreturn void igt_invalid(const char *what, const char *arg)
{
	/* One line that names the problem; the usage is one --help away. */
	fprintf(stderr, "%s: %s (see --help)\n", what, arg ? arg : "");
	exit(IGT_EXIT_INVALID);
}

void igt_subtest_init_(int argc, char **argv, const char *description)
{
	enum {
		OPT_LIST = 256,
		OPT_TESTLIST,
		OPT_RUN,
		OPT_DYN,
		OPT_DEBUG,
		OPT_DURATION,
		OPT_SOAK,
		OPT_SEED,
		OPT_HELP_DESC,
		OPT_COUNT, /* + enum igt_count_kind */
	};
	static const struct option opts[] = {
	    {"list-subtests", no_argument, NULL, OPT_LIST},
	    {"show-testlist", no_argument, NULL, OPT_TESTLIST},
	    {"run-subtest", required_argument, NULL, OPT_RUN},
	    {"dynamic-subtest", required_argument, NULL, OPT_DYN},
	    {"debug", optional_argument, NULL, OPT_DEBUG},
	    {"duration", required_argument, NULL, OPT_DURATION},
	    {"soak", no_argument, NULL, OPT_SOAK},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"help-description", no_argument, NULL, OPT_HELP_DESC},
	    {"clients", required_argument, NULL, OPT_COUNT + IGT_CLIENTS},
	    {"threads", required_argument, NULL, OPT_COUNT + IGT_THREADS},
	    {"waiters", required_argument, NULL, OPT_COUNT + IGT_WAITERS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *env;
	const char *slash = strrchr(argv[0], '/');
	bool have_duration = false, have_seed = false;
	int c;

	igt.name = slash ? slash + 1 : argv[0];
	igt.description = description;
	igt.budget_s = 2.0;
	igt.seed = 1;
	igt.fixture_state = IGT_R_SUCCESS;
	setvbuf(stdout, NULL, _IOLBF, 0);

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LIST:
			igt.list = true;
			break;
		case OPT_TESTLIST:
			igt.testlist = true;
			break;
		case OPT_RUN:
			igt.run_pattern = optarg;
			break;
		case OPT_DYN:
			igt.dyn_pattern = optarg;
			break;
		case OPT_DEBUG:
			igt.debug = true;
			break;
		case OPT_DURATION:
			if (!igt_parse_double(optarg, &igt.budget_s))
				igt_invalid("Invalid --duration", optarg);
			have_duration = true;
			break;
		case OPT_SOAK:
			igt.soak = true;
			break;
		case OPT_SEED:
			if (!igt_parse_u64(optarg, &igt.seed))
				igt_invalid("Invalid --seed", optarg);
			have_seed = true;
			break;
		case OPT_HELP_DESC:
			printf("%s\n", igt.description ? igt.description : "");
			exit(IGT_EXIT_SUCCESS);
		case 'h':
			igt_usage(stdout);
			exit(IGT_EXIT_SUCCESS);
		case OPT_COUNT + IGT_CLIENTS:
		case OPT_COUNT + IGT_THREADS:
		case OPT_COUNT + IGT_WAITERS: {
			uint64_t v;

			/* Each program checks its own upper bound (igt_opt_count()). */
			if (!igt_parse_u64(optarg, &v) || v < 1 || v > 4096)
				igt_invalid(c == OPT_COUNT + IGT_CLIENTS   ? "Invalid --clients"
					    : c == OPT_COUNT + IGT_THREADS ? "Invalid --threads"
									   : "Invalid --waiters",
					    optarg);
			igt.counts[c - OPT_COUNT] = (unsigned int)v;
			break;
		}
		default:
			igt_invalid("Unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		igt_invalid("Unexpected argument", argv[optind]);
	env = getenv("IGT_STRESS_DURATION");
	if (!have_duration && env && !igt_parse_double(env, &igt.budget_s))
		igt_invalid("Invalid IGT_STRESS_DURATION", env);
	/* --soak alone soaks for an hour; with --duration S (or the variable), for S. */
	if (igt.soak && !have_duration && !env)
		igt.budget_s = 3600.0;
	env = getenv("IGT_SEED");
	if (!have_seed && env && !igt_parse_u64(env, &igt.seed))
		igt_invalid("Invalid IGT_SEED", env);

	/*
	 * A TTM_FAULTS string that does not parse would leave every fault point
	 * off and the run would report SUCCESS having injected nothing: refuse
	 * to run, like an unknown option (fault_init_from_env() printed the line
	 * naming the bad token).
	 */
	if (!igt_only_list_subtests() && fault_init_from_env())
		exit(IGT_EXIT_INVALID);
	if (!igt_only_list_subtests())
		igt_print_version();
}

/* ---- execution ---------------------------------------------------------- */

/*
 * LeakSanitizer's entry point, present only in ASan/LSan builds (weak, so
 * NULL elsewhere). A subtest child leaves with _exit(), which skips the
 * atexit leak check, so it is run here by hand.
 */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static igt_noreturn void igt_child_exit(int code)
{
	/* A passing subtest that leaked did not pass: the sweeps rely on it. */
	if (code == IGT_EXIT_SUCCESS && __lsan_do_recoverable_leak_check &&
	    __lsan_do_recoverable_leak_check()) {
		fprintf(stderr, "LeakSanitizer: memory leaked by this subtest\n");
		code = IGT_EXIT_FAILURE;
	}
	fflush(stdout);
	fflush(stderr);
	_exit(code);
}

static const char *igt_signame(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGABRT:
		return "SIGABRT";
	case SIGILL:
		return "SIGILL";
	default:
		return "signal";
	}
}

static const int igt_crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL};

static void igt_crash_handler(int sig)
{
	static const char pre[] = "Received signal ";
	const char *name = igt_signame(sig);

	igt_write_all(STDERR_FILENO, pre, sizeof(pre) - 1);
	igt_write_all(STDERR_FILENO, name, strlen(name));
	igt_write_all(STDERR_FILENO, ".\n", 2);
	igt_log_dump();
	/* SA_RESETHAND restored the default action: die of the same signal. */
	raise(sig);
}

static void igt_install_crash_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = igt_crash_handler;
	sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(igt_crash_signals) / sizeof(igt_crash_signals[0]); i++)
		sigaction(igt_crash_signals[i], &sa, NULL);
}

/*
 * Fork a child for a (dynamic) subtest. Returns true in the child; in the
 * parent waits and returns the child's result in *res (and *abort_run when it
 * called igt_abort_on_f).
 */
static bool igt_fork_run(enum igt_result *res, bool *abort_run)
{
	int status;
	pid_t pid, w;

	fflush(stdout);
	fflush(stderr);
	*abort_run = false;
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fork failed: %s\n", strerror(errno));
		*res = IGT_R_FAIL;
		return false;
	}
	if (pid == 0) {
		igt_log_len = 0;
		igt_install_crash_handlers();
		return true;
	}
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		*res = IGT_R_FAIL;
	} else if (WIFEXITED(status)) {
		switch (WEXITSTATUS(status)) {
		case IGT_EXIT_SUCCESS:
			*res = IGT_R_SUCCESS;
			break;
		case IGT_EXIT_SKIP:
			*res = IGT_R_SKIP;
			break;
		case IGT_EXIT_INVALID:
			/* A subtest with dynamic parts none of which matched --dynamic-subtest. */
			*res = IGT_R_SKIP;
			*abort_run = false;
			igt_unmatched = true;
			break;
		case IGT_CHILD_BAD_OPTION:
			/* Its one line is out; a dynamic subtest's parent passes it up. */
			if (igt.in_subtest)
				igt_child_exit(IGT_CHILD_BAD_OPTION);
			fflush(stdout);
			exit(IGT_EXIT_INVALID);
		case IGT_EXIT_FAILURE:
			*res = IGT_R_FAIL;
			break;
		case IGT_EXIT_ABORT:
			*res = IGT_R_FAIL;
			*abort_run = true;
			break;
		default:
			/* A sanitizer's error exit, or an exit() from test code. */
			fprintf(stderr, "Subtest process exited with status %d.\n",
				WEXITSTATUS(status));
			*res = IGT_R_CRASH;
			break;
		}
	} else {
		*res = IGT_R_CRASH;
	}
	return false;
}

static void igt_count(enum igt_result r)
{
	switch (r) {
	case IGT_R_SUCCESS:
		igt.passed++;
		break;
	case IGT_R_SKIP:
		igt.skipped++;
		break;
	default:
		igt.failed++;
		break;
	}
}

int igt_subtest_begin_(const char *name, bool dynamic)
{
	enum igt_result res;
	bool abort_run;
	double t0;

	if (igt.in_subtest) {
		fprintf(stderr, "igt_subtest(\"%s\") nested in a subtest\n", name);
		igt_child_exit(IGT_EXIT_FAILURE);
	}
	if (igt.list) {
		printf("%s\n", name);
		return 0;
	}
	if (igt.testlist) {
		printf("igt@%s@%s\n", igt_test_name(), name);
		return 0;
	}
	if (igt.run_pattern && !igt_wildmat(name, igt.run_pattern))
		return 0;
	/* Only a subtest with dynamic parts can hold the requested dynamic subtest. */
	if (igt.dyn_pattern && !dynamic)
		return 0;
	igt.matched_any = true;

	printf("Starting subtest: %s\n", name);
	if (igt.fixture_state != IGT_R_SUCCESS) {
		/* An earlier fixture skipped or failed: report without running. */
		res = igt.fixture_state;
		printf("Subtest %s: %s (0.000s)\n", name, igt_result_names[res]);
		igt_count(res);
		return 0;
	}
	t0 = testlib_now_s();
	igt_unmatched = false;
	if (igt_fork_run(&res, &abort_run)) {
		igt.in_subtest = true;
		igt.with_dynamic = dynamic;
		igt.dyn_run = 0;
		igt.dyn_worst = IGT_R_SKIP;
		return 1;
	}
	if (dynamic && !igt_unmatched)
		igt.dyn_matched_any = true;
	printf("Subtest %s: %s (%.3fs)\n", name, igt_result_names[res], testlib_now_s() - t0);
	fflush(stdout);
	igt_count(res);
	if (abort_run) {
		fprintf(stderr, "Aborting the run after subtest %s.\n", name);
		exit(IGT_EXIT_ABORT);
	}
	return 0;
}

int igt_subtest_end_(void)
{
	/* Only the subtest child gets here: its block completed normally. */
	if (!igt.with_dynamic)
		igt_child_exit(IGT_EXIT_SUCCESS);
	if (igt.dyn_pattern && !igt.dyn_run)
		igt_child_exit(IGT_EXIT_INVALID);
	switch (igt.dyn_worst) {
	case IGT_R_SUCCESS:
		igt_child_exit(IGT_EXIT_SUCCESS);
	case IGT_R_SKIP:
		igt_child_exit(IGT_EXIT_SKIP);
	default:
		igt_child_exit(IGT_EXIT_FAILURE);
	}
}

int igt_dynamic_begin_(const char *name)
{
	static char dname[256];
	enum igt_result res;
	bool abort_run;
	double t0;

	if (!igt.in_subtest || !igt.with_dynamic || igt.in_dynamic) {
		fprintf(stderr, "igt_dynamic(\"%s\") outside igt_subtest_with_dynamic\n", name);
		igt_child_exit(IGT_EXIT_FAILURE);
	}
	if (igt.dyn_pattern && !igt_wildmat(name, igt.dyn_pattern))
		return 0;
	snprintf(dname, sizeof(dname), "%s", name);
	printf("Starting dynamic subtest: %s\n", dname);
	t0 = testlib_now_s();
	if (igt_fork_run(&res, &abort_run)) {
		igt.in_dynamic = true;
		return 1;
	}
	printf("Dynamic subtest %s: %s (%.3fs)\n", dname, igt_result_names[res],
	       testlib_now_s() - t0);
	fflush(stdout);
	if (abort_run)
		igt_child_exit(IGT_EXIT_ABORT);
	igt.dyn_run++;
	/* Worst wins, but one SUCCESS beats SKIP: */
	if (res > igt.dyn_worst)
		igt.dyn_worst = res;
	return 0;
}

int igt_dynamic_end_(void)
{
	igt_child_exit(IGT_EXIT_SUCCESS);
}

int igt_fixture_begin_(void)
{
	if (igt_only_list_subtests() || igt.fixture_state != IGT_R_SUCCESS)
		return 0;
	if (igt.in_subtest) {
		fprintf(stderr, "igt_fixture inside a subtest\n");
		igt_child_exit(IGT_EXIT_FAILURE);
	}
	igt.in_fixture = true;
	return 1;
}

int igt_fixture_end_(void)
{
	igt.in_fixture = false;
	return 0;
}

int igt_exit_(void)
{
	fflush(stdout);
	if (igt_only_list_subtests())
		return IGT_EXIT_SUCCESS;
	if (igt.run_pattern && !igt.matched_any) {
		fprintf(stderr, "Unknown subtest: %s\n", igt.run_pattern);
		return IGT_EXIT_INVALID;
	}
	if (igt.dyn_pattern && !igt.dyn_matched_any) {
		fprintf(stderr, "Unknown dynamic subtest: %s\n", igt.dyn_pattern);
		return IGT_EXIT_INVALID;
	}
	if (igt.failed)
		return IGT_EXIT_FAILURE;
	if (igt.passed)
		return IGT_EXIT_SUCCESS;
	return IGT_EXIT_SKIP;
}

/* ---- results from inside blocks ------------------------------------------ */

/* Leave the current block with @r (SKIP or FAIL); never returns. */
static igt_noreturn void igt_leave(enum igt_result r)
{
	if (r == IGT_R_FAIL)
		igt_log_dump();
	if (igt.in_subtest)
		igt_child_exit(r == IGT_R_SKIP ? IGT_EXIT_SKIP : IGT_EXIT_FAILURE);
	if (igt.in_fixture) {
		igt.fixture_state = r;
		igt.in_fixture = false;
		fflush(stdout);
		siglongjmp(igt_fixture_jmp_, 1);
	}
	/* Outside any block: the whole program has this result. */
	fflush(stdout);
	exit(r == IGT_R_SKIP ? IGT_EXIT_SKIP : IGT_EXIT_FAILURE);
}

void igt_skip_(const char *file, int line, const char *func, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "Test requirement not met in function %s, file %s:%d:\n", func, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	igt_leave(IGT_R_SKIP);
}

void igt_fail_(const char *file, int line, const char *func, int code)
{
	fprintf(stderr, "Test failed in function %s, file %s:%d (code %d)\n", func, file, line,
		code);
	igt_leave(IGT_R_FAIL);
}

void igt_assert_failed_(const char *file, int line, const char *func, const char *expr,
			const char *fmt, ...)
{
	fprintf(stderr, "Test assertion failure function %s, file %s:%d:\nFailed assertion: %s\n",
		func, file, line, expr);
	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	igt_leave(IGT_R_FAIL);
}

void igt_abort_(const char *file, int line, const char *func, const char *expr, const char *fmt,
		...)
{
	va_list ap;

	fprintf(stderr, "Test abort in function %s, file %s:%d:\nabort condition: %s\n", func, file,
		line, expr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	igt_log_dump();
	if (igt.in_subtest)
		igt_child_exit(IGT_EXIT_ABORT);
	fflush(stdout);
	exit(IGT_EXIT_ABORT);
}
