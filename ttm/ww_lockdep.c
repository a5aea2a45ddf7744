// SPDX-License-Identifier: MIT
/*
 * The ww_mutex lock-order checker; see ww_lockdep.h for what it reports.
 * Only compiled with the ww_lockdep meson option.
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <unistd.h>

#include <ttm/ww_lockdep.h>
#include <ttm/ww_mutex.h>

/* Classes the graph can tell apart, and ww_mutexes a thread may hold at once. */
#define WWL_MAX_CLASSES 32
#define WWL_MAX_HELD 64

struct wwl_held {
	struct ww_mutex *lock;
	struct ww_class *cls;
	struct ww_acquire_ctx *ctx;
	bool trylock;
};

/* Per thread: the locks held, oldest first. */
static __thread struct wwl_held wwl_stack[WWL_MAX_HELD];
static __thread unsigned int wwl_depth;
/* Locks taken past WWL_MAX_HELD: not tracked, their release is ignored. */
static __thread unsigned int wwl_untracked;
/* ww_lockdep_nest_ok()'s lock: its next acquisition skips the context check. */
static __thread struct ww_mutex *wwl_nest_ok;

/*
 * Process-wide, under wwl_lock: the classes seen and the order graph,
 * wwl_after[a][b] when a lock of class b was taken holding one of class a.
 */
static pthread_mutex_t wwl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ww_class *wwl_classes[WWL_MAX_CLASSES];
static unsigned int wwl_nclasses;
static bool wwl_after[WWL_MAX_CLASSES][WWL_MAX_CLASSES];
static bool wwl_reported[WWL_MAX_CLASSES][WWL_MAX_CLASSES];
static bool wwl_reported_ctx[WWL_MAX_CLASSES];
static unsigned long wwl_reports;
static bool wwl_atexit_set;

static void wwl_at_exit(void)
{
	unsigned long n;

	pthread_mutex_lock(&wwl_lock);
	n = wwl_reports;
	pthread_mutex_unlock(&wwl_lock);
	if (n) {
		fprintf(stderr, "ww_lockdep: %lu report(s), exit status %d\n", n,
			WW_LOCKDEP_EXITCODE);
		_exit(WW_LOCKDEP_EXITCODE);
	}
}

static const char *wwl_name(const struct ww_class *cls)
{
	return cls && cls->name ? cls->name : "(unnamed ww_class)";
}

/* Index of @cls, registering it; -1 when the table is full. wwl_lock held. */
static int wwl_class_index(struct ww_class *cls)
{
	for (unsigned int i = 0; i < wwl_nclasses; i++)
		if (wwl_classes[i] == cls)
			return (int)i;
	if (wwl_nclasses == WWL_MAX_CLASSES)
		return -1;
	wwl_classes[wwl_nclasses] = cls;
	return (int)wwl_nclasses++;
}

/* Whether the graph leads from @from to @to. wwl_lock held. */
static bool wwl_path(int from, int to)
{
	bool seen[WWL_MAX_CLASSES] = {false};
	int queue[WWL_MAX_CLASSES], head = 0, tail = 0;

	queue[tail++] = from;
	seen[from] = true;
	while (head < tail) {
		int c = queue[head++];

		if (c == to)
			return true;
		for (unsigned int n = 0; n < wwl_nclasses; n++) {
			if (wwl_after[c][n] && !seen[n]) {
				seen[n] = true;
				queue[tail++] = (int)n;
			}
		}
	}
	return false;
}

/* Counts a report and prints where it happened (resolve with addr2line). */
static void wwl_report_locked(void)
{
	void *bt[16];
	int n = backtrace(bt, 16);

	backtrace_symbols_fd(bt, n, STDERR_FILENO);
	wwl_reports++;
	if (!wwl_atexit_set) {
		wwl_atexit_set = true;
		atexit(wwl_at_exit);
	}
}

void ww_lockdep_nest_ok(struct ww_mutex *lock)
{
	wwl_nest_ok = lock;
}

void ww_lockdep_acquired(struct ww_mutex *lock, struct ww_acquire_ctx *ctx, bool trylock)
{
	struct ww_class *cls = lock->ww_class;
	bool nest_ok = wwl_nest_ok == lock;

	wwl_nest_ok = NULL;
	if (!trylock && wwl_depth) {
		pthread_mutex_lock(&wwl_lock);
		int me = wwl_class_index(cls);

		for (unsigned int i = 0; me >= 0 && i < wwl_depth; i++) {
			const struct wwl_held *h = &wwl_stack[i];
			int other;

			if (h->cls == cls) {
				/*
				 * A classmate held by trylock (eviction's) is not
				 * checked: the code may hold it across its ticket.
				 */
				if (h->trylock || nest_ok)
					continue;
				if ((!ctx || h->ctx != ctx) && !wwl_reported_ctx[me]) {
					wwl_reported_ctx[me] = true;
					fprintf(stderr,
						"ww_lockdep: %s lock %p taken %s while this thread "
						"holds %p of its class%s\n",
						wwl_name(cls), (void *)lock,
						ctx ? "with a second acquire context"
						    : "outside an acquire context",
						(void *)h->lock,
						h->ctx ? "" : " (taken without one)");
					wwl_report_locked();
				}
				continue;
			}
			other = wwl_class_index(h->cls);
			if (other < 0 || wwl_after[other][me])
				continue;
			/* New edge other -> me: an inversion if me already leads to other. */
			if (wwl_path(me, other) && !wwl_reported[other][me]) {
				wwl_reported[other][me] = wwl_reported[me][other] = true;
				fprintf(stderr,
					"ww_lockdep: lock order inversion: %s taken while holding "
					"%s, after %s was taken (directly or through other "
					"classes) while holding %s\n",
					wwl_name(cls), wwl_name(h->cls), wwl_name(h->cls),
					wwl_name(cls));
				wwl_report_locked();
			}
			wwl_after[other][me] = true;
		}
		pthread_mutex_unlock(&wwl_lock);
	}
	if (wwl_depth == WWL_MAX_HELD) {
		wwl_untracked++;
		return;
	}
	wwl_stack[wwl_depth++] = (struct wwl_held){lock, cls, ctx, trylock};
}

void ww_lockdep_release(struct ww_mutex *lock)
{
	for (unsigned int i = wwl_depth; i-- > 0;) {
		if (wwl_stack[i].lock != lock)
			continue;
		for (unsigned int j = i; j + 1 < wwl_depth; j++)
			wwl_stack[j] = wwl_stack[j + 1];
		wwl_depth--;
		return;
	}
	/* Not on this thread's stack: an untracked one, or handed to another thread. */
	if (wwl_untracked)
		wwl_untracked--;
}

unsigned long ww_lockdep_reports(void)
{
	unsigned long n;

	pthread_mutex_lock(&wwl_lock);
	n = wwl_reports;
	pthread_mutex_unlock(&wwl_lock);
	return n;
}

void ww_lockdep_reset(void)
{
	pthread_mutex_lock(&wwl_lock);
	wwl_reports = 0;
	wwl_nclasses = 0;
	for (unsigned int i = 0; i < WWL_MAX_CLASSES; i++) {
		wwl_classes[i] = NULL;
		wwl_reported_ctx[i] = false;
		for (unsigned int j = 0; j < WWL_MAX_CLASSES; j++)
			wwl_after[i][j] = wwl_reported[i][j] = false;
	}
	pthread_mutex_unlock(&wwl_lock);
}

unsigned int ww_lockdep_held(void)
{
	return wwl_depth;
}
