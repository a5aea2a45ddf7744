// SPDX-License-Identifier: MIT
/*
 * Fault points with the kernel's fault_attr semantics; see fault_inject.h.
 *
 * The registry is a singly linked list kept sorted by name and protected by
 * registry_lock; points are only ever added (at program start, by
 * constructors), so fault_should_fail() never takes the lock.
 *
 * Hits are counted per thread so that a disarmed point costs no write to a
 * line other threads use: each thread owns a thread-local array of counters
 * indexed by the points' slots, listed in the registry while the thread
 * lives. Only the owner writes its counters (a load and a store, no locked
 * RMW); other threads read them under registry_lock. At thread exit a key
 * destructor folds the thread's counts into each point's @hits_gone and
 * unlists the thread. A reset does not touch other threads' counters: it
 * records the point's current total as @hits_base.
 *
 * No path of fault_should_fail() allocates, so it may run anywhere, a
 * signal handler included: the array is a fixed part of the
 * thread's storage, and a point registered beyond its FAULT_THREAD_SLOTS
 * slots counts on the point's shared counter instead.
 */
#include "fault_inject.h"

#include <errno.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <testlib/checksum.h>
#include <testlib/prng.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Protected by registry_lock. */
static struct fault_attr *registry;
static size_t registry_count;
static unsigned registry_slots;
static struct fault_thread *thread_list;

static atomic_uint_fast64_t fault_seed = 0x5eed5eed5eedull;
static atomic_uint_fast64_t fault_rng_counter;
static atomic_bool seed_printed;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_result;

/*
 * Thread-local data of the hot path is initial-exec: meson builds this static
 * library position-independent, and the default model for that would make
 * every hit save registers around a TLS address call (relaxed to a load at
 * link time, but the saves stay). Initial-exec only requires that the code
 * is not in a library opened with dlopen(), which it never is.
 */
#define FAULT_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* Per-thread fail-nth countdown (the kernel's /proc/self/fail-nth); read by
 * fault_should_fail() inline. */
FAULT_TLS unsigned long fault_thread_nth_;
static FAULT_TLS struct fault_attr *thread_nth_only;

void fault_register(struct fault_attr *attr)
{
	struct fault_attr **p;

	pthread_mutex_lock(&registry_lock);
	for (p = &registry; *p; p = &(*p)->next) {
		if (*p == attr)
			goto out;
		if (strcmp((*p)->name, attr->name) > 0)
			break;
	}
	attr->next = *p;
	*p = attr;
	registry_count++;
	/* A hit reads the slot without the lock and looks it up again in
	 * registry_slots under the lock before it grows its counters. */
	atomic_store_explicit(&attr->slot, ++registry_slots, memory_order_relaxed);
out:
	pthread_mutex_unlock(&registry_lock);
}

struct fault_attr *fault_lookup(const char *name)
{
	struct fault_attr *a;

	pthread_mutex_lock(&registry_lock);
	for (a = registry; a; a = a->next)
		if (!strcmp(a->name, name))
			break;
	pthread_mutex_unlock(&registry_lock);
	return a;
}

void fault_for_each(void (*fn)(struct fault_attr *attr, void *data), void *data)
{
	struct fault_attr *a;

	/* The list only grows and is sorted at insertion: walk it unlocked
	 * so that @fn may call back into the registry. */
	pthread_mutex_lock(&registry_lock);
	a = registry;
	pthread_mutex_unlock(&registry_lock);
	for (; a; a = a->next)
		fn(a, data);
}

size_t fault_count(void)
{
	size_t n;

	pthread_mutex_lock(&registry_lock);
	n = registry_count;
	pthread_mutex_unlock(&registry_lock);
	return n;
}

/* The point's hits since program start. Called with registry_lock held. */
static unsigned long hits_total_locked(struct fault_attr *a)
{
	unsigned slot = atomic_load_explicit(&a->slot, memory_order_relaxed);
	unsigned long n = a->hits_gone;

	n += atomic_load_explicit(&a->hits_shared, memory_order_relaxed);
	if (!slot)
		return n;
	for (struct fault_thread *t = thread_list; t; t = t->next)
		if (slot <= t->nslots)
			n += atomic_load_explicit(&t->counts[slot - 1], memory_order_relaxed);
	return n;
}

unsigned long fault_hits(struct fault_attr *a)
{
	unsigned long n;

	pthread_mutex_lock(&registry_lock);
	n = hits_total_locked(a) - a->hits_base;
	pthread_mutex_unlock(&registry_lock);
	return n;
}

void fault_reset(struct fault_attr *a)
{
	atomic_store(&a->probability, 0);
	atomic_store(&a->interval, 1);
	atomic_store(&a->times, 0);
	atomic_store(&a->space, 0);
	atomic_store(&a->verbose, 0);
	atomic_store(&a->nth, 0);
	atomic_store(&a->fired, 0);
	atomic_store(&a->count, 0);
	pthread_mutex_lock(&registry_lock);
	a->hits_base = hits_total_locked(a);
	pthread_mutex_unlock(&registry_lock);
}

static void reset_one(struct fault_attr *a, void *data)
{
	(void)data;
	fault_reset(a);
}

void fault_reset_all(void)
{
	fault_for_each(reset_one, NULL);
	fault_thread_nth_ = 0;
	thread_nth_only = NULL;
}

void fault_set_seed(uint64_t seed)
{
	atomic_store(&fault_seed, seed);
	atomic_store(&fault_rng_counter, 0);
	atomic_store(&seed_printed, false);
}

uint64_t fault_get_seed(void)
{
	return atomic_load(&fault_seed);
}

void fault_set_nth(struct fault_attr *attr, unsigned long nth)
{
	atomic_store(&attr->nth, nth);
}

void fault_thread_fail_nth(struct fault_attr *only, unsigned long nth)
{
	thread_nth_only = only;
	fault_thread_nth_ = nth;
}

unsigned long fault_thread_nth_pending(void)
{
	return fault_thread_nth_;
}

static void sum_fired(struct fault_attr *a, void *data)
{
	*(unsigned long *)data += atomic_load(&a->fired);
}

unsigned long fault_total_fired(void)
{
	unsigned long n = 0;

	fault_for_each(sum_fired, &n);
	return n;
}

static void print_one(struct fault_attr *a, void *data)
{
	fprintf((FILE *)data,
		"%-16s probability=%lu interval=%lu times=%ld space=%ld verbose=%lu nth=%lu "
		"hits=%lu fired=%lu\n",
		a->name, atomic_load(&a->probability), atomic_load(&a->interval),
		atomic_load(&a->times), atomic_load(&a->space), atomic_load(&a->verbose),
		atomic_load(&a->nth), fault_hits(a), atomic_load(&a->fired));
}

void fault_print(FILE *out)
{
	fault_for_each(print_one, out);
}

/* ---- configuration parsing ------------------------------------------- */

enum fault_key {
	KEY_PROBABILITY,
	KEY_INTERVAL,
	KEY_TIMES,
	KEY_SPACE,
	KEY_VERBOSE,
	KEY_NTH,
	KEY_MAX
};

static const char *const key_names[KEY_MAX] = {
    [KEY_PROBABILITY] = "probability",
    [KEY_INTERVAL] = "interval",
    [KEY_TIMES] = "times",
    [KEY_SPACE] = "space",
    [KEY_VERBOSE] = "verbose",
    [KEY_NTH] = "nth",
};

struct fault_setting {
	struct fault_attr *attr; /* NULL: every point ("all") */
	bool set[KEY_MAX];
	long long value[KEY_MAX];
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int parse_number(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static void apply_setting(struct fault_attr *a, const struct fault_setting *s)
{
	if (s->set[KEY_PROBABILITY])
		atomic_store(&a->probability, (unsigned long)s->value[KEY_PROBABILITY]);
	if (s->set[KEY_INTERVAL])
		atomic_store(&a->interval, (unsigned long)s->value[KEY_INTERVAL]);
	if (s->set[KEY_SPACE])
		atomic_store(&a->space, (long)s->value[KEY_SPACE]);
	if (s->set[KEY_VERBOSE])
		atomic_store(&a->verbose, (unsigned long)s->value[KEY_VERBOSE]);
	if (s->set[KEY_NTH])
		atomic_store(&a->nth, (unsigned long)s->value[KEY_NTH]);
	if (s->set[KEY_TIMES])
		atomic_store(&a->times, (long)s->value[KEY_TIMES]);
	else if (s->set[KEY_PROBABILITY] && atomic_load(&a->times) == 0)
		/* A probability without a times budget means "unlimited", as
		 * writing only the probability file does in debugfs. */
		atomic_store(&a->times, -1);
}

struct apply_all_ctx {
	const struct fault_setting *s;
};

static void apply_all(struct fault_attr *a, void *data)
{
	apply_setting(a, ((struct apply_all_ctx *)data)->s);
}

/* Parse "key=value,key=value" into @s. @body is modified. */
static int parse_keys(char *body, struct fault_setting *s, const char *point, char *err,
		      size_t errlen)
{
	static const long long limits[KEY_MAX][2] = {
	    [KEY_PROBABILITY] = {0, 100},  [KEY_INTERVAL] = {1, 1ll << 40},
	    [KEY_TIMES] = {-1, 1ll << 40}, [KEY_SPACE] = {0, 1ll << 50},
	    [KEY_VERBOSE] = {0, 2},	   [KEY_NTH] = {0, 1ll << 40},
	};
	char *save = NULL;

	if (!*body) {
		set_err(err, errlen, "fault point '%s' has no settings", point);
		return -EINVAL;
	}
	for (char *kv = strtok_r(body, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		int k;

		if (!eq) {
			set_err(err, errlen, "expected key=value, got '%s' for fault point '%s'",
				kv, point);
			return -EINVAL;
		}
		*eq = '\0';
		for (k = 0; k < KEY_MAX; k++)
			if (!strcmp(kv, key_names[k]))
				break;
		if (k == KEY_MAX) {
			set_err(err, errlen, "unknown key '%s' for fault point '%s'", kv, point);
			return -EINVAL;
		}
		if (parse_number(eq + 1, limits[k][0], limits[k][1], &s->value[k])) {
			set_err(err, errlen, "bad value '%s' for key '%s' of fault point '%s'",
				eq + 1, kv, point);
			return -EINVAL;
		}
		s->set[k] = true;
	}
	return 0;
}

int fault_configure(const char *spec, char *err, size_t errlen)
{
	struct fault_setting *settings = NULL;
	size_t nsettings = 0, cap = 0;
	bool have_seed = false;
	long long seed = 0;
	char *copy, *save = NULL;
	int ret = 0;

	set_err(err, errlen, "ok");
	if (!spec)
		return -EINVAL;
	if (!FAULT_INJECT_ENABLED) {
		for (const char *p = spec; *p; p++)
			if (*p != ' ' && *p != ';') {
				set_err(err, errlen,
					"fault points are compiled out (-Dfault_inject=false)");
				return -ENOTSUP;
			}
		return 0;
	}
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	/* Parse everything first; apply only if the whole string is good. */
	for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		struct fault_setting s;
		char *colon;

		while (*item == ' ')
			item++;
		if (!*item)
			continue;
		if (!strncmp(item, "seed=", 5)) {
			if (parse_number(item + 5, 0, INT64_MAX, &seed)) {
				set_err(err, errlen, "bad seed '%s'", item + 5);
				ret = -EINVAL;
				goto out;
			}
			have_seed = true;
			continue;
		}
		colon = strchr(item, ':');
		if (!colon) {
			set_err(err, errlen, "expected point:key=value, got '%s'", item);
			ret = -EINVAL;
			goto out;
		}
		*colon = '\0';
		memset(&s, 0, sizeof(s));
		if (strcmp(item, "all")) {
			s.attr = fault_lookup(item);
			if (!s.attr) {
				set_err(err, errlen, "unknown fault point '%s'", item);
				ret = -EINVAL;
				goto out;
			}
		}
		ret = parse_keys(colon + 1, &s, item, err, errlen);
		if (ret)
			goto out;
		if (nsettings == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct fault_setting *n = realloc(settings, ncap * sizeof(*n));

			if (!n) {
				ret = -ENOMEM;
				goto out;
			}
			settings = n;
			cap = ncap;
		}
		settings[nsettings++] = s;
	}
	if (have_seed)
		fault_set_seed((uint64_t)seed);
	for (size_t i = 0; i < nsettings; i++) {
		if (settings[i].attr) {
			apply_setting(settings[i].attr, &settings[i]);
		} else {
			struct apply_all_ctx c = {&settings[i]};

			fault_for_each(apply_all, &c);
		}
	}
out:
	free(settings);
	free(copy);
	return ret;
}

/*
 * The call sites failures were injected at: one entry per distinct return
 * address of fault_should_fail() that fired, kept for the whole process
 * (resets do not clear it), so a sweep can tell which of a point's sites
 * its failures reached. Lock-free (an entry's address is claimed with a
 * compare-and-swap), so fire() stays usable in a signal handler.
 */
#define FAULT_SITES_MAX 512u

struct fault_site {
	_Atomic(const void *) pc;
	_Atomic(struct fault_attr *) attr;
	atomic_ulong fired;
};

static struct fault_site fault_sites[FAULT_SITES_MAX];
static atomic_ulong fault_sites_lost;

#if FAULT_INJECT_ENABLED
static void site_record(struct fault_attr *a, const void *pc)
{
	for (unsigned i = 0; i < FAULT_SITES_MAX; i++) {
		struct fault_site *s = &fault_sites[i];
		const void *cur = atomic_load(&s->pc);

		if (!cur && atomic_compare_exchange_strong(&s->pc, &cur, pc)) {
			atomic_store(&s->attr, a);
			atomic_fetch_add(&s->fired, 1);
			return;
		}
		/* The same address under another point is another site. */
		if (cur == pc && atomic_load(&s->attr) == a) {
			atomic_fetch_add(&s->fired, 1);
			return;
		}
	}
	atomic_fetch_add(&fault_sites_lost, 1);
}
#endif

void fault_for_each_site(void (*fn)(const struct fault_attr *attr, const void *pc,
				    unsigned long fired, void *data),
			 void *data)
{
	for (unsigned i = 0; i < FAULT_SITES_MAX; i++) {
		const void *pc = atomic_load(&fault_sites[i].pc);
		struct fault_attr *a = atomic_load(&fault_sites[i].attr);

		if (!pc)
			break;
		if (a)
			fn(a, pc, atomic_load(&fault_sites[i].fired), data);
	}
}

unsigned long fault_sites_lost_count(void)
{
	return atomic_load(&fault_sites_lost);
}

static void print_site(const struct fault_attr *a, const void *pc, unsigned long fired, void *data)
{
	FILE *out = data;
	/* The call instruction is just before the return address. */
	uintptr_t call = (uintptr_t)pc - 1;
	Dl_info info;

	if (dladdr((const void *)call, &info) && info.dli_fname)
		fprintf(out, "fault-site: %s %s 0x%" PRIxPTR " %lu\n", a->name, info.dli_fname,
			call - (uintptr_t)info.dli_fbase, fired);
	else
		fprintf(out, "fault-site: %s ? 0x%" PRIxPTR " %lu\n", a->name, call, fired);
}

void fault_print_sites(FILE *out)
{
	fault_for_each_site(print_site, out);
	if (fault_sites_lost_count())
		fprintf(out, "fault-site: %lu injections beyond %u sites not recorded\n",
			fault_sites_lost_count(), FAULT_SITES_MAX);
}

/* TTM_FAULTS_SITES: the file the sites are appended to at exit. */
static const char *sites_path;

static void sites_write_at_exit(void)
{
	FILE *out;

	if (!atomic_load(&fault_sites[0].pc))
		return;
	out = fopen(sites_path, "a");
	if (!out) {
		fprintf(stderr, "TTM_FAULTS_SITES: %s: cannot append\n", sites_path);
		return;
	}
	fault_print_sites(out);
	fclose(out);
}

static void env_init_once(void)
{
	const char *spec = getenv("TTM_FAULTS");
	const char *seed = getenv("TTM_FAULTS_SEED");
	char err[256];
	const char *sites = getenv("TTM_FAULTS_SITES");

	if (sites && *sites) {
		sites_path = sites;
		atexit(sites_write_at_exit);
	}
	if (seed) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(seed, &end, 0);
		if (*seed >= '0' && *seed <= '9' && !*end && errno != ERANGE) {
			fault_set_seed(v);
		} else {
			fprintf(stderr, "TTM_FAULTS_SEED: bad seed '%s'\n", seed);
			env_result = -EINVAL;
			return;
		}
	}
	if (!spec || !*spec)
		return;
	env_result = fault_configure(spec, err, sizeof(err));
	if (env_result)
		fprintf(stderr, "TTM_FAULTS: %s (no fault point configured)\n", err);
}

int fault_init_from_env(void)
{
	pthread_once(&env_once, env_init_once);
	return env_result;
}

#if FAULT_INJECT_ENABLED

FAULT_TLS struct fault_thread fault_thread_self_;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static bool thread_key_ok;

/*
 * Add a thread's counts to its points' @hits_gone and take it off the list.
 * Called with registry_lock held.
 */
static void thread_fold_locked(struct fault_thread *t)
{
	struct fault_thread **p;

	for (struct fault_attr *a = registry; a; a = a->next) {
		unsigned slot = atomic_load_explicit(&a->slot, memory_order_relaxed);

		if (slot && slot <= t->nslots)
			a->hits_gone +=
			    atomic_load_explicit(&t->counts[slot - 1], memory_order_relaxed);
	}
	for (p = &thread_list; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
}

/* Key destructor: the thread exits, its counts stay with the points. */
static void thread_exit(void *arg)
{
	struct fault_thread *t = arg;

	pthread_mutex_lock(&registry_lock);
	thread_fold_locked(t);
	t->nslots = 0;
	/* A later destructor's hit lists the thread again from zero. */
	for (unsigned i = 0; i < FAULT_THREAD_SLOTS; i++)
		atomic_store_explicit(&t->counts[i], 0, memory_order_relaxed);
	pthread_mutex_unlock(&registry_lock);
}

/*
 * fork() keeps the list consistent by holding registry_lock across it. In
 * the child only the forking thread lives on: every other listed thread is
 * gone without running its destructor, and its storage may be reused for a
 * new thread, so it is folded and unlisted here as if it had exited.
 */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&registry_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&registry_lock);
}

static void atfork_child(void)
{
	struct fault_thread *t = thread_list, *next;

	/* A child records only the sites it fires itself. */
	for (unsigned i = 0; i < FAULT_SITES_MAX; i++) {
		atomic_store(&fault_sites[i].pc, NULL);
		atomic_store(&fault_sites[i].attr, NULL);
		atomic_store(&fault_sites[i].fired, 0);
	}
	atomic_store(&fault_sites_lost, 0);
	for (; t; t = next) {
		next = t->next;
		if (t == &fault_thread_self_)
			continue;
		thread_fold_locked(t);
	}
	pthread_mutex_unlock(&registry_lock);
}

static void key_init_once(void)
{
	thread_key_ok = !pthread_key_create(&thread_key, thread_exit);
	/* Without the child handler a thread alive at a fork would stay listed
	 * in the child: list no thread then, count on the shared counters. */
	if (thread_key_ok && pthread_atfork(atfork_prepare, atfork_parent, atfork_child)) {
		pthread_key_delete(thread_key);
		thread_key_ok = false;
	}
}

/*
 * List the calling thread so that its counters are read and folded. Returns
 * false when it cannot be (no thread key): its hits then go to the points'
 * shared counters. Takes registry_lock; allocates nothing.
 */
static bool thread_list_self(void)
{
	bool ok = false;

	pthread_once(&key_once, key_init_once);
	pthread_mutex_lock(&registry_lock);
	if (fault_thread_self_.nslots) {
		ok = true;
	} else if (thread_key_ok && !pthread_setspecific(thread_key, &fault_thread_self_)) {
		fault_thread_self_.next = thread_list;
		thread_list = &fault_thread_self_;
		fault_thread_self_.nslots = FAULT_THREAD_SLOTS;
		ok = true;
	}
	pthread_mutex_unlock(&registry_lock);
	return ok;
}

/*
 * A hit the hot path could not count: the thread's first (reading the
 * environment comes first, so that every point is configured before any
 * call is decided; a thread that is listed has been through here, and its
 * pthread_once() ordered it after the configuration), or one of a point
 * without a slot of its own.
 */
static __attribute__((noinline, cold)) void count_hit_slow(struct fault_attr *a, unsigned slot)
{
	fault_init_from_env();
	if (slot && slot <= FAULT_THREAD_SLOTS && thread_list_self()) {
		atomic_ulong *c = &fault_thread_self_.counts[slot - 1];

		atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	} else {
		atomic_fetch_add_explicit(&a->hits_shared, 1, memory_order_relaxed);
	}
}

static uint64_t name_hash(const char *s)
{
	return testlib_checksum(s, strlen(s));
}

static void report(struct fault_attr *a)
{
	unsigned long v = atomic_load_explicit(&a->verbose, memory_order_relaxed);

	if (!v)
		return;
	fprintf(stderr, "fault-inject: injecting failure at %s (hit %lu, seed=%llu)\n", a->name,
		fault_hits(a), (unsigned long long)fault_get_seed());
	if (v > 1) {
		void *frames[32];
		int n = backtrace(frames, 32);

		backtrace_symbols_fd(frames, n, STDERR_FILENO);
	}
}

static bool fire(struct fault_attr *a, const void *pc)
{
	atomic_fetch_add_explicit(&a->fired, 1, memory_order_relaxed);
	site_record(a, pc);
	report(a);
	return true;
}

/* Steps 4 to 6, for a point with a times budget left. */
static __attribute__((noinline)) bool should_fail_armed(struct fault_attr *a, size_t size,
							long times, const void *pc)
{
	unsigned long interval, prob;

	/* 4. A byte budget consumed before failing starts. */
	if (atomic_load_explicit(&a->space, memory_order_relaxed) > 0) {
		long before = atomic_fetch_sub(&a->space, (long)size);

		if (before > (long)size)
			return false;
		atomic_store(&a->space, 0);
	}
	/* 5. Only every interval-th candidate may fail: one counter shared by
	 * all threads, so the order is global, as the kernel's attr->count. */
	interval = atomic_load_explicit(&a->interval, memory_order_relaxed);
	if (interval > 1 && (atomic_fetch_add(&a->count, 1) + 1) % interval)
		return false;
	/* 6. Probability against the seeded PRNG; the draw index alone makes
	 * the sequence, so one seed replays one single-threaded run. */
	prob = atomic_load_explicit(&a->probability, memory_order_relaxed);
	if (prob < 100) {
		uint64_t n = atomic_fetch_add(&fault_rng_counter, 1);
		uint64_t r = prng_mix64(fault_get_seed() ^ name_hash(a->name) ^ (n << 20));

		if (!atomic_exchange(&seed_printed, true))
			fprintf(stderr, "fault-inject: seed=%llu\n",
				(unsigned long long)fault_get_seed());
		if (prob == 0 || r % 100 >= prob)
			return false;
	}
	/* Consume one of the remaining times, unless unlimited. */
	while (times > 0 && !atomic_compare_exchange_weak(&a->times, &times, times - 1))
		;
	if (times == 0)
		return false;
	return fire(a, pc);
}

/* Steps 1 to 3 for a call that found a countdown armed. */
static __attribute__((noinline)) bool should_fail_nth(struct fault_attr *a, size_t size,
						      const void *pc)
{
	unsigned long nth;
	long times;

	/* 1. The per-thread countdown: deterministic sweeps. */
	if (fault_thread_nth_ && (!thread_nth_only || thread_nth_only == a)) {
		if (--fault_thread_nth_ == 0) {
			thread_nth_only = NULL;
			return fire(a, pc);
		}
	}
	/* 2. The point's own one-shot countdown. */
	nth = atomic_load_explicit(&a->nth, memory_order_relaxed);
	if (nth) {
		unsigned long left = nth;

		while (left && !atomic_compare_exchange_weak(&a->nth, &left, left - 1))
			;
		if (left == 1)
			return fire(a, pc);
	}
	/* 3. Disabled unless a times budget is left. */
	times = atomic_load_explicit(&a->times, memory_order_relaxed);
	if (times == 0)
		return false;
	return should_fail_armed(a, size, times, pc);
}

/* The decision after the hit is counted: cheap checks first. */
static inline __attribute__((always_inline)) bool should_fail_decide(struct fault_attr *a,
								     size_t size, const void *pc)
{
	long times;

	/* Steps 1 and 2 only when a countdown is armed, on this thread or on
	 * the point; otherwise straight to step 3. */
	if (__builtin_expect(
		fault_thread_nth_ || atomic_load_explicit(&a->nth, memory_order_relaxed), 0))
		return should_fail_nth(a, size, pc);
	times = atomic_load_explicit(&a->times, memory_order_relaxed);
	if (__builtin_expect(times == 0, 1))
		return false;
	return should_fail_armed(a, size, times, pc);
}

/* A call whose hit the hot path cannot count. */
static __attribute__((noinline, cold)) bool should_fail_first(struct fault_attr *a, size_t size,
							      unsigned slot, const void *pc)
{
	count_hit_slow(a, slot);
	return should_fail_decide(a, size, pc);
}

/*
 * Every call fault_should_fail() does not answer inline: the first of a
 * thread, a point without a slot, or one with a countdown or a times budget.
 * Its return address is the call site, as fault_should_fail()'s own was.
 */
bool fault_should_fail_slow_(struct fault_attr *a, size_t size)
{
	unsigned slot = atomic_load_explicit(&a->slot, memory_order_relaxed);
	atomic_ulong *c;

	/* Slot 0 (never registered) wraps to the largest value and so takes
	 * the slow path too, as does every hit of an unlisted thread. */
	if (__builtin_expect(slot - 1u >= fault_thread_self_.nslots, 0))
		return should_fail_first(a, size, slot, __builtin_return_address(0));
	c = &fault_thread_self_.counts[slot - 1];
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	return should_fail_decide(a, size, __builtin_return_address(0));
}

#endif /* FAULT_INJECT_ENABLED */
