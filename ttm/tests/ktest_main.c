/* SPDX-License-Identifier: MIT */
/*
 * The ktest runner: main(), case selection, fixtures, teardown, KTAP output
 * and the supervisor that isolates crashing cases. Contracts are in ktest.h.
 */
#include "ktest.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <testlib/prng.h>

struct ktest_action {
	void (*fn)(void *);
	void *ctx;
	struct ktest_action *next;
};

/* Per-process state of one suite among the selected cases. */
struct ktest_suite_state {
	const struct ktest_suite *suite;
	bool entered;
	int init_err;
	struct ktest_action *actions;
};

enum ktest_result { KTEST_PASS, KTEST_FAIL, KTEST_SKIPPED };

/*
 * What the supervising parent and the child running the cases share (an
 * anonymous shared mapping): where the child is, so a child that dies is
 * reported against the right case and the next child resumes after it.
 */
struct ktest_progress {
	int current;	   /* index of the case being run and not yet reported, or -1 */
	unsigned int next; /* first index not yet run */
	unsigned int passed, failed, skipped;
	int done; /* the child ran its last case and is exiting */
};

static struct ktest_case *ktest_head, **ktest_tail = &ktest_head;
static uint64_t ktest_seed_value;
static _Thread_local struct prng ktest_rng;
static _Thread_local bool ktest_rng_seeded;
static unsigned int ktest_case_number;
static atomic_uint ktest_rng_threads;

/* The running case; written by the runner (the main thread) only. */
static struct ktest ktest_ctx;
static pthread_t ktest_thread;
static jmp_buf *ktest_jmp; /* where ASSERT_* and KTEST_SKIP() on the runner's thread land */
static atomic_int ktest_case_failed;
static const char *ktest_skip_why;

/* Deferred actions: the list new ones go to (a case's or a suite's), or NULL. */
static pthread_mutex_t ktest_action_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ktest_action **ktest_actions;
static struct ktest_action *ktest_case_actions;

static struct ktest_suite_state *ktest_suites;
static unsigned int ktest_nr_suites;

void ktest_register(struct ktest_case *c)
{
	*ktest_tail = c;
	ktest_tail = &c->next;
}

void ktest_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One call per line so concurrent failures do not interleave mid-line. */
	fprintf(stdout, "# %s:%d: %s\n", file, line, msg);
	fflush(stdout);
	atomic_store(&ktest_case_failed, 1);
}

static bool ktest_on_runner(void)
{
	return ktest_jmp && pthread_equal(pthread_self(), ktest_thread);
}

/* An ASSERT_* or KTEST_SKIP() away from the runner's thread ends that thread. */
static void __attribute__((noreturn)) ktest_leave_thread(const char *what)
{
	if (!ktest_actions) {
		fprintf(stdout, "# %s outside any case\n", what);
		fflush(stdout);
		abort();
	}
	fprintf(stdout, "# %s on a thread other than the case's: the case fails, the thread ends\n",
		what);
	fflush(stdout);
	atomic_store(&ktest_case_failed, 1);
	pthread_exit(NULL);
}

void ktest_abort_case(void)
{
	if (!ktest_on_runner())
		ktest_leave_thread("ASSERT failed");
	longjmp(*ktest_jmp, 1);
}

void ktest_skip(const char *file, int line, const char *why)
{
	(void)file;
	(void)line;
	if (!ktest_on_runner())
		ktest_leave_thread("KTEST_SKIP");
	ktest_skip_why = why;
	longjmp(*ktest_jmp, 2);
}

uint64_t ktest_seed(void)
{
	return ktest_seed_value;
}

uint64_t ktest_rand(void)
{
	/*
	 * Each thread's stream starts from the seed, the case's number and the
	 * order in which the case's threads first drew, so a printed seed
	 * replays the case.
	 */
	if (!ktest_rng_seeded) {
		uint64_t idx = atomic_fetch_add(&ktest_rng_threads, 1);

		prng_seed(&ktest_rng,
			  prng_mix64(ktest_seed_value + ktest_case_number) + idx * PRNG_GOLDEN);
		ktest_rng_seeded = true;
	}
	return prng_next(&ktest_rng);
}

unsigned ktest_scale(void)
{
	const char *s = getenv("KTEST_SCALE");
	long v = s ? strtol(s, NULL, 10) : 1;

	return v > 0 ? (unsigned)v : 1;
}

struct ktest *ktest_current(void)
{
	return ktest_ctx.name ? &ktest_ctx : NULL;
}

const void *ktest_param(void)
{
	return ktest_ctx.param;
}

void *ktest_priv(void)
{
	return ktest_ctx.priv;
}

int ktest_add_action(void (*fn)(void *), void *ctx)
{
	struct ktest_action *a = malloc(sizeof(*a));
	int ret = 0;

	if (!a)
		return -ENOMEM;
	a->fn = fn;
	a->ctx = ctx;
	pthread_mutex_lock(&ktest_action_lock);
	if (ktest_actions) {
		a->next = *ktest_actions;
		*ktest_actions = a;
	} else {
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&ktest_action_lock);
	if (ret) {
		fprintf(stdout, "# ktest_add_action() outside a case or suite fixture\n");
		free(a);
	}
	return ret;
}

int ktest_add_action_or_reset(void (*fn)(void *), void *ctx)
{
	int ret = ktest_add_action(fn, ctx);

	if (ret)
		fn(ctx);
	return ret;
}

/* Unlinks the latest (fn, ctx) from the current list; NULL when none. */
static struct ktest_action *ktest_take_action(void (*fn)(void *), void *ctx)
{
	struct ktest_action **p, *a = NULL;

	pthread_mutex_lock(&ktest_action_lock);
	for (p = ktest_actions; p && *p; p = &(*p)->next) {
		if ((*p)->fn == fn && (*p)->ctx == ctx) {
			a = *p;
			*p = a->next;
			break;
		}
	}
	pthread_mutex_unlock(&ktest_action_lock);
	return a;
}

void ktest_remove_action(void (*fn)(void *), void *ctx)
{
	free(ktest_take_action(fn, ctx));
}

void ktest_release_action(void (*fn)(void *), void *ctx)
{
	struct ktest_action *a = ktest_take_action(fn, ctx);

	if (a) {
		a->fn(a->ctx);
		free(a);
	}
}

void *ktest_zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (p && ktest_add_action(free, p)) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * Runs fn(arg) so that an ASSERT_* or KTEST_SKIP() in it lands here: 0 it
 * returned, 1 an assertion ended it, 2 it skipped.
 */
static int ktest_guard(void (*fn)(void *), void *arg)
{
	jmp_buf here, *outer = ktest_jmp;
	int how;

	ktest_jmp = &here;
	how = setjmp(here);
	if (how == 0)
		fn(arg);
	ktest_jmp = outer;
	return how;
}

static void ktest_call_case(void *arg)
{
	((const struct ktest_case *)arg)->fn();
}

struct ktest_init_call {
	const struct ktest_suite *suite;
	int ret;
};

static void ktest_call_init(void *arg)
{
	struct ktest_init_call *ic = arg;

	ic->ret = ic->suite->init(&ktest_ctx);
}

static void ktest_call_exit(void *arg)
{
	((const struct ktest_suite *)arg)->exit(&ktest_ctx);
}

static void ktest_call_suite_init(void *arg)
{
	struct ktest_suite_state *st = arg;

	st->init_err = st->suite->suite_init();
}

static void ktest_call_suite_exit(void *arg)
{
	((struct ktest_suite_state *)arg)->suite->suite_exit();
}

static void ktest_call_action(void *arg)
{
	struct ktest_action *a = arg;

	a->fn(a->ctx);
}

/* Runs and frees a list of actions, newest first; one may add more. */
static void ktest_run_actions(struct ktest_action **list)
{
	for (;;) {
		struct ktest_action *a;

		pthread_mutex_lock(&ktest_action_lock);
		a = *list;
		if (a)
			*list = a->next;
		pthread_mutex_unlock(&ktest_action_lock);
		if (!a)
			break;
		if (ktest_guard(ktest_call_action, a) == 1)
			fprintf(stdout, "# a deferred action failed an assertion\n");
		free(a);
	}
}

static void ktest_set_actions(struct ktest_action **list)
{
	pthread_mutex_lock(&ktest_action_lock);
	ktest_actions = list;
	pthread_mutex_unlock(&ktest_action_lock);
}

/* One run of a case body (one parameter of a parameterized case) with its fixtures. */
static enum ktest_result ktest_run_once(const struct ktest_case *c)
{
	const struct ktest_suite *s = c->suite;
	bool init_done = true;
	int how = 0;

	atomic_store(&ktest_case_failed, 0);
	ktest_skip_why = NULL;
	ktest_ctx.priv = NULL;
	ktest_case_actions = NULL;
	ktest_rng_seeded = false;
	atomic_store(&ktest_rng_threads, 0);
	ktest_set_actions(&ktest_case_actions);
	if (s && s->init) {
		struct ktest_init_call ic = {.suite = s};

		how = ktest_guard(ktest_call_init, &ic);
		if (how == 0 && ic.ret) {
			ktest_fail(__FILE__, __LINE__, "%s: init failed: %d", s->name, ic.ret);
			how = 1;
		}
		init_done = how == 0;
	}
	if (how == 0)
		how = ktest_guard(ktest_call_case, (void *)c);
	if (init_done && s && s->exit && ktest_guard(ktest_call_exit, (void *)s) == 2)
		fprintf(stdout, "# %s: KTEST_SKIP() in exit() is ignored\n", s->name);
	ktest_run_actions(&ktest_case_actions);
	ktest_set_actions(NULL);
	if (atomic_load(&ktest_case_failed))
		return KTEST_FAIL;
	return how == 2 ? KTEST_SKIPPED : KTEST_PASS;
}

static void ktest_print_result(const char *indent, unsigned int n, const char *name,
			       enum ktest_result r, const char *why)
{
	if (r == KTEST_SKIPPED)
		printf("%sok %u %s # SKIP %s\n", indent, n, name, why ? why : "");
	else
		printf("%s%s %u %s\n", indent, r == KTEST_FAIL ? "not ok" : "ok", n, name);
	fflush(stdout);
}

/* Runs case number n (1-based) with all its parameters and prints its result line. */
static enum ktest_result ktest_run_case(const struct ktest_case *c, unsigned int n)
{
	unsigned int k = 0, fails = 0, skips = 0;
	const void *param = NULL;
	enum ktest_result r;

	memset(&ktest_ctx, 0, sizeof(ktest_ctx));
	ktest_ctx.name = c->name;
	ktest_case_number = n;
	if (!c->gen_params) {
		r = ktest_run_once(c);
		ktest_print_result("", n, c->name, r, ktest_skip_why);
		ktest_ctx.name = NULL;
		return r;
	}
	printf("    KTAP version 1\n    # Subtest: %s\n", c->name);
	for (;;) {
		char desc[KTEST_PARAM_DESC_SIZE] = "";

		param = c->gen_params(param, desc);
		if (!param)
			break;
		k++;
		ktest_ctx.param = param;
		if (desc[0])
			snprintf(ktest_ctx.param_desc, sizeof(ktest_ctx.param_desc), "%s", desc);
		else
			snprintf(ktest_ctx.param_desc, sizeof(ktest_ctx.param_desc), "param-%u",
				 k - 1);
		r = ktest_run_once(c);
		fails += r == KTEST_FAIL;
		skips += r == KTEST_SKIPPED;
		ktest_print_result("    ", k, ktest_ctx.param_desc, r, ktest_skip_why);
	}
	printf("    1..%u\n", k);
	if (fails)
		r = KTEST_FAIL;
	else if (skips == k)
		r = KTEST_SKIPPED;
	else
		r = KTEST_PASS;
	ktest_print_result("", n, c->name, r, k ? "every parameter skipped" : "no parameters");
	ktest_ctx.name = NULL;
	return r;
}

static bool ktest_selected(const struct ktest_case *c, int argc, char **argv)
{
	char qualified[256];
	bool any = false;

	qualified[0] = 0;
	if (c->suite)
		snprintf(qualified, sizeof(qualified), "%s.%s", c->suite->name, c->name);
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		any = true;
		if (!fnmatch(argv[i], c->name, 0) ||
		    (qualified[0] && !fnmatch(argv[i], qualified, 0)))
			return true;
	}
	return !any;
}

static struct ktest_suite_state *ktest_suite_state(const struct ktest_suite *s)
{
	for (unsigned int i = 0; i < ktest_nr_suites; i++)
		if (ktest_suites[i].suite == s)
			return &ktest_suites[i];
	return NULL;
}

/*
 * Runs the selected cases from index start on, in this process, keeping
 * progress up to date. A suite is set up before its first case here and torn
 * down after its last selected one.
 */
static void ktest_run_from(struct ktest_case **sel, unsigned int n, unsigned int start,
			   struct ktest_progress *pr)
{
	for (unsigned int i = start; i < n; i++) {
		struct ktest_case *c = sel[i];
		struct ktest_suite_state *st = c->suite ? ktest_suite_state(c->suite) : NULL;
		enum ktest_result r;
		bool last = true;

		pr->current = (int)i;
		if (st && !st->entered) {
			st->entered = true;
			printf("# suite %s\n", c->suite->name);
			if (c->suite->suite_init) {
				int how;

				ktest_set_actions(&st->actions);
				how = ktest_guard(ktest_call_suite_init, st);
				ktest_set_actions(NULL);
				if (how)
					st->init_err = -ECANCELED;
				if (st->init_err)
					printf("# suite %s: suite_init failed: %d\n",
					       c->suite->name, st->init_err);
			}
		}
		if (st && st->init_err) {
			r = KTEST_FAIL;
			ktest_print_result("", i + 1, c->name, r, NULL);
		} else {
			r = ktest_run_case(c, i + 1);
		}
		pr->passed += r == KTEST_PASS;
		pr->failed += r == KTEST_FAIL;
		pr->skipped += r == KTEST_SKIPPED;
		pr->current = -1;
		pr->next = i + 1;

		for (unsigned int j = i + 1; st && j < n; j++)
			if (sel[j]->suite == c->suite)
				last = false;
		if (st && last) {
			if (!st->init_err && c->suite->suite_exit) {
				ktest_set_actions(&st->actions);
				if (ktest_guard(ktest_call_suite_exit, st) == 1)
					printf("# suite %s: suite_exit failed an assertion\n",
					       c->suite->name);
				ktest_set_actions(NULL);
			}
			ktest_run_actions(&st->actions);
		}
	}
	pr->done = 1;
	fflush(stdout);
}

static void ktest_describe_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "ended with wait status 0x%x", status);
}

/*
 * Runs the cases in child processes. A child that dies inside a case gets
 * that case reported "not ok" and a new child resumes after it; one that
 * ends badly outside any case (a sanitizer or valgrind report at exit, a
 * crash in a suite fixture) adds a "not ok" result after the cases, so a
 * TAP consumer that ignores exit status still sees it. Returns the number of
 * such extra results; -1 when no child could be started (nothing ran).
 */
static int ktest_supervise(struct ktest_case **sel, unsigned int n, struct ktest_progress *pr)
{
	pid_t parent = getpid();
	unsigned int start = 0;
	int extra = 0;

	for (;;) {
		char what[64];
		int status;
		pid_t pid;

		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid < 0)
			return start == 0 ? -1 : extra;
		if (pid == 0) {
			/*
			 * A runner that kills the supervisor on a timeout kills
			 * only it: take the cases down with it, not leave them
			 * running as orphans.
			 */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			ktest_run_from(sel, n, start, pr);
			exit(0);
		}
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR)
				return extra;
		}
		if (pr->done && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return extra;
		ktest_describe_status(status, what, sizeof(what));
		if (pr->current >= 0) {
			unsigned int i = (unsigned int)pr->current;

			printf("# the test process %s during %s\n", what, sel[i]->name);
			ktest_print_result("", i + 1, sel[i]->name, KTEST_FAIL, NULL);
			pr->failed++;
			pr->current = -1;
			pr->next = i + 1;
		} else {
			extra++;
			printf("# the test process %s outside any case (see its output above)\n",
			       what);
			printf("not ok %u ktest_process_exit\n", n + (unsigned int)extra);
			pr->failed++;
			/* A sanitizer report at exit repeats; do not loop on it. */
			if (pr->done)
				return extra;
		}
		fflush(stdout);
		/* Resume after the last case reported; stop when none is left or none advanced. */
		if (pr->next >= n || pr->next == start)
			return extra;
		start = pr->next;
		pr->done = 0;
	}
}

static bool ktest_fork_wanted(void)
{
	const char *f = getenv("KTEST_FORK");

	return !f || strcmp(f, "0");
}

int main(int argc, char **argv)
{
	const char *seed = getenv("KTEST_SEED");
	struct ktest_progress local = {.current = -1}, *pr = &local;
	struct ktest_case **sel;
	unsigned int n = 0, total = 0;
	int extra = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (struct ktest_case *c = ktest_head; c; c = c->next)
				printf("%s\n", c->name);
			return 0;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unknown option %s (usage: [--list] [pattern...])\n",
				argv[0], argv[i]);
			return 2;
		}
	}
	for (struct ktest_case *c = ktest_head; c; c = c->next)
		total++;
	sel = calloc(total ? total : 1, sizeof(*sel));
	ktest_suites = calloc(total ? total : 1, sizeof(*ktest_suites));
	if (!sel || !ktest_suites) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 1;
	}
	for (struct ktest_case *c = ktest_head; c; c = c->next) {
		if (!ktest_selected(c, argc, argv))
			continue;
		sel[n++] = c;
		if (c->suite && !ktest_suite_state(c->suite))
			ktest_suites[ktest_nr_suites++].suite = c->suite;
	}
	ktest_thread = pthread_self();
	ktest_seed_value = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL);
	printf("KTAP version 1\n# KTEST_SEED=%llu\n", (unsigned long long)ktest_seed_value);

	if (ktest_fork_wanted() && n) {
		void *m = mmap(NULL, sizeof(*pr), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED) {
			pr = m;
			*pr = local;
			extra = ktest_supervise(sel, n, pr);
		}
	}
	if (extra < 0) {
		extra = 0;
		ktest_run_from(sel, n, 0, pr);
	}
	printf("1..%u\n# %u passed, %u failed, %u skipped\n", n + (unsigned int)extra, pr->passed,
	       pr->failed, pr->skipped);
	fflush(stdout);
	local = *pr;
	if (pr != &local)
		munmap(pr, sizeof(*pr));
	free(sel);
	free(ktest_suites);
	if (local.failed)
		return 1;
	if (n == 0 || local.skipped == n)
		return n == 0 ? 1 : 77;
	return 0;
}
