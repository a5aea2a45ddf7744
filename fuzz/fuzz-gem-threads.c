// SPDX-License-Identifier: MIT
/*
 * fuzz-gem-threads - concurrent, fault-injected fuzzing of the i915 GEM
 * uAPI, as syzkaller does it: the input is a set of programs of ioctls that
 * run at once on several threads against one device, each call with a
 * fail-nth fault injection the input may choose (the kernel's
 * /proc/thread-self/fail-nth: the nth fault point this thread reaches
 * during the call fails).
 *
 * Each input runs on a simulated i915 (tgl, or dg2 with a small local
 * memory so objects migrate; chosen by the first byte; each device is
 * probed once for the whole run, as it outlives its clients). The second
 * byte gives 2..4 threads; the rest of the input is cut into one program
 * per thread. All threads share one render file (its objects are seen by
 * handle by every thread: one thread closes, waits on, maps or binds what
 * another created or keeps the GPU busy with), and each thread has a
 * private render file and its own context on the shared file (its own
 * ppGTT, so softpinned addresses never collide between threads).
 *
 * The calls: object create, GEM_CLOSE, MMAP_OFFSET + mmap of every mmap
 * type, reads and writes through the mapping (CPU page faults into the
 * driver), munmap, PWRITE, PREAD, SET_DOMAIN, BUSY, GEM_WAIT (timeouts from
 * zero to unbounded), execbuffers that store into shared objects, spinners
 * (a batch polling a semaphore in a flag object; its fence does not signal
 * until the flag is bumped, by the thread itself or by the main thread,
 * which releases every spinner about each millisecond so unbounded waits
 * end), waits on a spinner's out-fence through a syncobj, contexts created
 * and destroyed under running spinners, PRIME export of a shared object
 * into the private file, and closing and reopening the private file while
 * its objects are still mapped.
 *
 * Properties: every call returns 0 or a negative errno; nothing crashes,
 * hangs or trips a sanitizer; a value written through a mapping of a
 * private object reads back through PREAD (tgl), and through the mapping
 * after the handle, and even the whole file, is gone (a mapping keeps its
 * object alive until munmap); once every file is closed, every mapping
 * unmapped and the GPU idle, no object of the session is left.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include <i915_drm.h>

#include <fault_inject.h>
#include <i915/i915_cmds.h>
#include <ttm/dma_fence.h>

#include <drmcore/drm_fd.h>

#include "../i915/gem/gem_priv.h"
#include "fuzz_gem.h"
#include "fuzz_input.h"

#define FZ_MAX_THREADS 4
#define FZ_SHARED_OBJS 16
#define FZ_PRIV_OBJS 8
#define FZ_MAPS 8
#define FZ_FENCES 4
#define FZ_CTXS 2
#define FZ_STEPS 48
/* Where each thread's spinners poll their flag, in its own context's VM. */
#define FZ_FLAG_AT 0x100000ull
/* PWRITE to private objects stays above the words the mappings check. */
#define FZ_CHECKED_BYTES 1024u

struct fz_obj {
	uint32_t handle;
	uint32_t size;
	bool foreign; /* imported from the shared file: others write it */
};

struct fz_map {
	uint8_t *addr;
	size_t len;
	bool priv;	 /* of a private object: its check word is tracked */
	uint32_t handle; /* that object's private handle, 0 once closed */
	uint32_t off;	 /* the check word's offset (distinct per mapping) */
	uint32_t val;	 /* what was last written there (0 before) */
	bool written;
};

struct fz_session;

struct fz_thread {
	struct fz_session *s;
	struct fuzz_input in;
	pthread_t thread;
	unsigned int idx;
	struct i915_gem_file *priv;
	uint32_t ctx;	    /* its context on the shared file */
	uint32_t extra_ctx; /* another one it may destroy under a spinner */
	uint32_t flag;	    /* the semaphore object of its spinners */
	_Atomic(uint32_t *) flag_map;
	_Atomic uint32_t armed; /* the last ticket a spinner waits for */
	unsigned int batches;
	struct fz_obj objs[FZ_PRIV_OBJS];
	unsigned int nobjs;
	struct fz_map maps[FZ_MAPS];
	int fences[FZ_FENCES];
	uint8_t buf[8192];
};

struct fz_session {
	struct i915_device *i915;
	bool dg2;
	struct i915_gem_file *shared;
	_Atomic uint64_t objs[FZ_SHARED_OBJS]; /* handle | size << 32, 0 when free */
	struct fz_thread t[FZ_MAX_THREADS];
	unsigned int nthreads;
	atomic_uint running;
};

static struct i915_device *fz_devices[2];

static uint32_t fz_mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (uint32_t)v | 1;
}
/* Outcomes over the run, printed at exit. */
static atomic_ulong fz_calls, fz_failed, fz_injected, fz_spinners, fz_waits_blocked, fz_faults;

static void fz_summary(void)
{
	unsigned long calls = atomic_load(&fz_calls);

	if (!calls)
		return;
	fprintf(stderr,
		"fuzz-gem-threads: %lu calls (%lu failed), %lu faults injected, %lu spinners, "
		"%lu waits that found the fence unsignalled, %lu mapping accesses\n",
		calls, atomic_load(&fz_failed), atomic_load(&fz_injected),
		atomic_load(&fz_spinners), atomic_load(&fz_waits_blocked), atomic_load(&fz_faults));
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_check_flags(*argc, *argv);
	atexit(fz_summary);
	return 0;
}

/*
 * One ioctl with the fail-nth the program chose (0: none). Returns the
 * call's result, which must be 0 or a negative errno.
 */
static int fz_ioctl(struct i915_gem_file *file, unsigned long req, void *arg, unsigned int nth)
{
	int ret;

	if (nth)
		fault_thread_fail_nth(NULL, nth);
	ret = i915_gem_ioctl(file, req, arg);
	if (nth) {
		if (!fault_thread_nth_pending())
			atomic_fetch_add(&fz_injected, 1);
		fault_thread_fail_nth(NULL, 0);
	}
	fuzz_check(ret <= 0);
	atomic_fetch_add(&fz_calls, 1);
	if (ret)
		atomic_fetch_add(&fz_failed, 1);
	return ret;
}

/* A shared object some thread created (it may be closed under us). */
static struct fz_obj fz_shared_pick(struct fz_session *s, uint8_t b)
{
	uint64_t v = atomic_load(&s->objs[b % FZ_SHARED_OBJS]);

	return (struct fz_obj){(uint32_t)v, (uint32_t)(v >> 32)};
}

static void fz_shared_put(struct fz_session *s, uint8_t b, uint32_t handle, uint32_t size)
{
	atomic_store(&s->objs[b % FZ_SHARED_OBJS], handle | (uint64_t)size << 32);
}

static uint32_t fz_size(struct fuzz_input *in)
{
	return 4096u << (fuzz_u8(in) % 5); /* 4 KiB .. 64 KiB */
}

static int fz_create(struct fz_thread *t, struct i915_gem_file *file, uint32_t size,
		     unsigned int nth, uint32_t *handle)
{
	struct drm_i915_gem_create_ext c = {.size = size};
	struct drm_i915_gem_memory_class_instance regions[2] = {{I915_MEMORY_CLASS_DEVICE, 0},
								{I915_MEMORY_CLASS_SYSTEM, 0}};
	struct drm_i915_gem_create_ext_memory_regions mr = {
	    .base = {.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS},
	    .num_regions = 2,
	    .regions = (uintptr_t)regions};
	int ret;

	/* On dg2 mostly local memory that may be evicted to system memory. */
	if (t->s->dg2 && (fuzz_u8(&t->in) & 1))
		c.extensions = (uintptr_t)&mr;
	ret = fz_ioctl(file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c, nth);
	*handle = c.handle;
	return ret;
}

static void fz_touch(struct fz_thread *t, struct fz_map *m, uint8_t b)
{
	/* Below FZ_CHECKED_BYTES only the check words are written. */
	volatile uint8_t *p =
	    m->addr + FZ_CHECKED_BYTES + (((size_t)b << 9) % (m->len - FZ_CHECKED_BYTES));

	atomic_fetch_add(&fz_faults, 1);
	if (b & 1)
		(void)*p;
	else
		*p = b;
	if (m->priv) {
		volatile uint32_t *w = (volatile uint32_t *)(m->addr + m->off);

		fuzz_check(*w == m->val);
		if (b & 2) {
			m->val = fz_mix(((uint64_t)t->idx << 32) | ((uint64_t)t->batches << 8) | b);
			*w = m->val;
			m->written = true;
		}
	}
}

/* Map @obj of @file through MMAP_OFFSET (mode from the input) into a free slot. */
static void fz_map(struct fz_thread *t, struct i915_gem_file *file, struct fz_obj obj, bool priv,
		   uint8_t b, unsigned int nth)
{
	static const uint32_t modes[] = {I915_MMAP_OFFSET_WB, I915_MMAP_OFFSET_WC,
					 I915_MMAP_OFFSET_GTT, I915_MMAP_OFFSET_UC,
					 I915_MMAP_OFFSET_FIXED};
	struct drm_i915_gem_mmap_offset mo = {.handle = obj.handle, .flags = modes[b % 5]};
	unsigned int slot = (b >> 3) % FZ_MAPS;
	struct fz_map *m = &t->maps[slot];
	size_t len = obj.size ? obj.size : 4096;
	void *addr = NULL;
	int ret;

	if (m->addr)
		return;
	if (fz_ioctl(file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo, nth))
		return;
	ret = i915_gem_mmap(file, NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    (off_t)(mo.offset & INT64_MAX), &addr);
	fuzz_check(ret <= 0);
	if (ret)
		return;
	*m = (struct fz_map){.addr = addr,
			     .len = len,
			     .priv = priv,
			     .handle = priv ? obj.handle : 0,
			     .off = slot * 64};
	if (priv)
		m->val = *(volatile uint32_t *)(m->addr + m->off);
}

static void fz_unmap(struct fz_thread *t, struct fz_map *m)
{
	if (!m->addr)
		return;
	fuzz_check(i915_gem_munmap(t->s->i915, m->addr, m->len) == 0);
	m->addr = NULL;
}

/* A batch object holding @cs (placed by the driver). */
static int fz_batch(struct fz_thread *t, const uint32_t *cs, size_t len, unsigned int nth,
		    uint32_t *handle)
{
	struct fz_session *s = t->s;
	int ret = fz_create(t, s->shared, 4096, nth, handle);

	if (ret)
		return ret;
	if (!s->dg2) {
		struct drm_i915_gem_pwrite pw = {
		    .handle = *handle, .size = len, .data_ptr = (uintptr_t)cs};

		ret = fz_ioctl(s->shared, DRM_IOCTL_I915_GEM_PWRITE, &pw, 0);
	} else {
		struct drm_i915_gem_mmap_offset mo = {.handle = *handle,
						      .flags = I915_MMAP_OFFSET_FIXED};
		void *p = NULL;

		ret = fz_ioctl(s->shared, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo, 0);
		if (!ret)
			ret = i915_gem_mmap(s->shared, NULL, 4096, PROT_READ | PROT_WRITE,
					    MAP_SHARED, (off_t)mo.offset, &p);
		if (!ret) {
			memcpy(p, cs, len);
			fuzz_check(i915_gem_munmap(s->i915, p, 4096) == 0);
		}
	}
	if (ret) {
		struct drm_gem_close gc = {.handle = *handle};

		fz_ioctl(s->shared, DRM_IOCTL_GEM_CLOSE, &gc, 0);
	}
	return ret;
}

/*
 * An execbuffer on the thread's context that stores into a shared object;
 * with @spin it first polls the thread's flag for a new ticket, so its fence
 * stays unsignalled until a release. The batch handle is closed at once (the
 * request keeps the object alive).
 */
static void fz_exec(struct fz_thread *t, bool spin, uint8_t b, unsigned int nth)
{
	struct fz_session *s = t->s;
	struct fz_obj tgt = fz_shared_pick(s, b);
	uint32_t ticket = atomic_load(&t->armed) + 1;
	uint32_t cs[16], n = 0, batch;
	struct drm_i915_gem_exec_object2 obj[3] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_gem_close gc = {0};
	unsigned int count = 0;
	int ret;

	if (spin) {
		cs[n++] = MI_SEMAPHORE_WAIT | MI_SEMAPHORE_POLL | MI_SEMAPHORE_SAD_GTE_SDD;
		cs[n++] = ticket;
		cs[n++] = (uint32_t)FZ_FLAG_AT;
		cs[n++] = (uint32_t)(FZ_FLAG_AT >> 32);
		obj[count++] = (struct drm_i915_gem_exec_object2){
		    .handle = t->flag, .offset = FZ_FLAG_AT, .flags = EXEC_OBJECT_PINNED};
	}
	/*
	 * The target is placed by the driver (not softpinned): a softpinned
	 * address another object's active vma still occupies would make the
	 * execbuffer wait for that spinner while it holds the flag's
	 * reservation, which the flag's release may need (a CPU fault).
	 * As a reader or writer it takes the spinner's fence: others'
	 * waits on it find that fence unsignalled.
	 */
	if (tgt.handle)
		obj[count++] = (struct drm_i915_gem_exec_object2){
		    .handle = tgt.handle, .flags = (b & 0x80) ? EXEC_OBJECT_WRITE : 0};
	cs[n++] = MI_BATCH_BUFFER_END;
	cs[n++] = 0;
	if (fz_batch(t, cs, n * 4, 0, &batch))
		return;
	t->batches++;
	obj[count++] = (struct drm_i915_gem_exec_object2){.handle = batch};
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = count;
	eb.rsvd1 = (b & 0x40) && t->extra_ctx ? t->extra_ctx : t->ctx;
	eb.flags = I915_EXEC_DEFAULT | (spin ? I915_EXEC_FENCE_OUT : 0);
	if (spin)
		atomic_store(&t->armed, ticket);
	ret = fz_ioctl(s->shared, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb, nth);
	if (!ret && spin) {
		int fd = (int)(eb.rsvd2 >> 32);
		unsigned int slot = b % FZ_FENCES;

		atomic_fetch_add(&fz_spinners, 1);
		if (t->fences[slot] >= 0)
			drm_fd_close(t->fences[slot], close);
		t->fences[slot] = fd;
	}
	gc.handle = batch;
	fz_ioctl(s->shared, DRM_IOCTL_GEM_CLOSE, &gc, 0);
}

/* Wait on a spinner's out-fence through a syncobj, with the input's timeout. */
static void fz_syncobj_wait(struct fz_thread *t, uint8_t b, unsigned int nth)
{
	struct fz_session *s = t->s;
	int fd = t->fences[b % FZ_FENCES];
	struct drm_syncobj_create sc = {0};
	struct drm_syncobj_handle sh = {0};
	struct drm_syncobj_wait w = {0};
	struct drm_syncobj_destroy sd = {0};
	struct timespec now;

	if (fd < 0 || fz_ioctl(s->shared, DRM_IOCTL_SYNCOBJ_CREATE, &sc, nth))
		return;
	sh.handle = sc.handle;
	sh.fd = fd;
	sh.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
	if (!fz_ioctl(s->shared, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &sh, 0)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		w.handles = (uintptr_t)&sc.handle;
		w.count_handles = 1;
		w.timeout_nsec = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec +
				 ((b & 0x80) ? INT64_MAX / 4 : (int64_t)(b & 0x7f) * 20000);
		if (fz_ioctl(s->shared, DRM_IOCTL_SYNCOBJ_WAIT, &w, 0) == -ETIME)
			atomic_fetch_add(&fz_waits_blocked, 1);
	}
	sd.handle = sc.handle;
	fz_ioctl(s->shared, DRM_IOCTL_SYNCOBJ_DESTROY, &sd, 0);
}

static void fz_private_reopen(struct fz_thread *t)
{
	i915_gem_file_close(t->priv);
	t->priv = NULL;
	t->nobjs = 0;
	for (unsigned int i = 0; i < FZ_MAPS; i++)
		t->maps[i].handle = 0;
	/* The mappings stay: their objects live on until munmap. */
	for (unsigned int i = 0; i < FZ_MAPS; i++)
		if (t->maps[i].addr && t->maps[i].priv)
			fuzz_check(*(volatile uint32_t *)(t->maps[i].addr + t->maps[i].off) ==
				   t->maps[i].val);
	if (i915_gem_file_open(t->s->i915, true, &t->priv))
		t->priv = NULL;
}

static void fz_step(struct fz_thread *t)
{
	struct fz_session *s = t->s;
	uint8_t op = fuzz_u8(&t->in), b = fuzz_u8(&t->in), nb = fuzz_u8(&t->in);
	/* One call in four gets a fail-nth, as syzkaller's fault calls. */
	unsigned int nth = (nb & 3) == 3 ? (nb >> 2) + 1 : 0;
	struct fz_obj obj = fz_shared_pick(s, b);
	struct fz_obj pobj = t->nobjs ? t->objs[b % t->nobjs] : (struct fz_obj){0};
	bool use_priv = (op & 0x80) && t->priv && pobj.handle;
	struct i915_gem_file *file = use_priv ? t->priv : s->shared;

	if (use_priv)
		obj = pobj;
	switch (op % 20) {
	case 0: /* create a shared object */
	case 1: {
		uint32_t size = fz_size(&t->in), h;

		if (!fz_create(t, s->shared, size, nth, &h))
			fz_shared_put(s, b, h, size);
		break;
	}
	case 2: { /* create a private object */
		uint32_t size = fz_size(&t->in), h;

		if (t->priv && t->nobjs < FZ_PRIV_OBJS && !fz_create(t, t->priv, size, nth, &h))
			t->objs[t->nobjs++] = (struct fz_obj){h, size};
		break;
	}
	case 3: { /* close a handle (shared: maybe under another thread's use) */
		struct drm_gem_close gc = {.handle = obj.handle};

		/*
		 * A shared handle is taken out of the table first, so no stale
		 * entry can close a handle number since reused by a thread's
		 * flag or batch (those are never in the table).
		 */
		if (!use_priv)
			gc.handle = (uint32_t)atomic_exchange(&s->objs[b % FZ_SHARED_OBJS], 0);
		if (!fz_ioctl(file, DRM_IOCTL_GEM_CLOSE, &gc, nth) && use_priv) {
			t->objs[b % t->nobjs] = t->objs[--t->nobjs];
			for (unsigned int i = 0; i < FZ_MAPS; i++)
				if (t->maps[i].handle == obj.handle)
					t->maps[i].handle = 0;
		}
		break;
	}
	case 4:
	case 5: /* map it */
		fz_map(t, file, obj, use_priv && !obj.foreign, fuzz_u8(&t->in), nth);
		break;
	case 6:
	case 7: { /* touch a mapping (the first from slot b on): a CPU page fault into the driver */
		uint8_t v = fuzz_u8(&t->in);

		for (unsigned int i = 0; i < FZ_MAPS; i++) {
			struct fz_map *m = &t->maps[(b + i) % FZ_MAPS];

			if (m->addr) {
				fz_touch(t, m, v);
				break;
			}
		}
		break;
	}
	case 8: /* munmap */
		fz_unmap(t, &t->maps[b % FZ_MAPS]);
		break;
	case 9: { /* pwrite, above the mappings' check words */
		struct drm_i915_gem_pwrite pw = {.handle = obj.handle,
						 .offset = FZ_CHECKED_BYTES + (b & 0xf) * 64,
						 .size = 64u << (fuzz_u8(&t->in) % 6),
						 .data_ptr = (uintptr_t)t->buf};

		fz_ioctl(file, DRM_IOCTL_I915_GEM_PWRITE, &pw, nth);
		break;
	}
	case 10: { /* pread; of a private mapping's check word: must match */
		struct fz_map *m = &t->maps[b % FZ_MAPS];
		struct drm_i915_gem_pread pr = {.handle = obj.handle,
						.offset = (b & 0xf) * 64,
						.size = 64u << (fuzz_u8(&t->in) % 6),
						.data_ptr = (uintptr_t)t->buf};

		fz_ioctl(file, DRM_IOCTL_I915_GEM_PREAD, &pr, nth);
		if (m->addr && m->priv && m->handle && m->written && t->priv) {
			uint32_t v = ~m->val;

			pr = (struct drm_i915_gem_pread){.handle = m->handle,
							 .offset = m->off,
							 .size = 4,
							 .data_ptr = (uintptr_t)&v};
			/* What the mapping wrote, PREAD reads (dg2 has no PREAD). */
			if (!fz_ioctl(t->priv, DRM_IOCTL_I915_GEM_PREAD, &pr, 0))
				fuzz_check(v == m->val);
		}
		break;
	}
	case 11: { /* set_domain: may wait for a spinner writing it */
		struct drm_i915_gem_set_domain sd = {.handle = obj.handle,
						     .read_domains = I915_GEM_DOMAIN_CPU};

		if (b & 1)
			sd.write_domain = I915_GEM_DOMAIN_CPU;
		fz_ioctl(file, DRM_IOCTL_I915_GEM_SET_DOMAIN, &sd, nth);
		break;
	}
	case 12: { /* busy */
		struct drm_i915_gem_busy bz = {.handle = obj.handle};

		fz_ioctl(file, DRM_IOCTL_I915_GEM_BUSY, &bz, nth);
		break;
	}
	case 13: { /* wait on whatever keeps the object busy */
		static const int64_t timeouts[] = {0, 50000, 2000000, -1};
		struct drm_i915_gem_wait w = {.bo_handle = obj.handle,
					      .timeout_ns = timeouts[b & 3]};

		if (fz_ioctl(file, DRM_IOCTL_I915_GEM_WAIT, &w, nth) == -ETIME)
			atomic_fetch_add(&fz_waits_blocked, 1);
		break;
	}
	case 14: /* store into a shared object */
		fz_exec(t, false, b, nth);
		break;
	case 15: /* a spinner */
		fz_exec(t, true, b, nth);
		break;
	case 16: { /* release this thread's spinners */
		uint32_t *flag = atomic_load(&t->flag_map);

		if (flag)
			__atomic_store_n(flag, atomic_load(&t->armed), __ATOMIC_RELEASE);
		break;
	}
	case 17:
		fz_syncobj_wait(t, b, nth);
		break;
	case 18: { /* a context created, or destroyed under its spinners */
		if (t->extra_ctx && (b & 1)) {
			struct drm_i915_gem_context_destroy cd = {.ctx_id = t->extra_ctx};

			if (!fz_ioctl(s->shared, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &cd, nth))
				t->extra_ctx = 0;
		} else if (!t->extra_ctx) {
			struct drm_i915_gem_context_create cc = {0};

			if (!fz_ioctl(s->shared, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc, nth))
				t->extra_ctx = cc.ctx_id;
		}
		break;
	}
	case 19: /* PRIME a shared object into the private file, or reopen that file */
		if (b & 1) {
			fz_private_reopen(t);
		} else if (t->priv && obj.handle && !use_priv && t->nobjs < FZ_PRIV_OBJS) {
			struct drm_prime_handle ph = {.handle = obj.handle, .flags = DRM_CLOEXEC};

			if (fz_ioctl(s->shared, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, nth))
				break;
			ph.handle = 0;
			if (!fz_ioctl(t->priv, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph, 0) && obj.size)
				t->objs[t->nobjs++] = (struct fz_obj){ph.handle, obj.size, true};
			drm_fd_close(ph.fd, close);
		}
		break;
	}
}

static void *fz_thread_fn(void *arg)
{
	struct fz_thread *t = arg;
	unsigned int steps = 0;

	while (!fuzz_input_done(&t->in) && steps++ < FZ_STEPS)
		fz_step(t);
	atomic_fetch_sub(&t->s->running, 1);
	return NULL;
}

/* The thread's context and spinner flag on the shared file; false if refused. */
static bool fz_thread_setup(struct fz_session *s, struct fz_thread *t)
{
	struct drm_i915_gem_context_create cc = {0};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	void *p = NULL;

	if (i915_gem_file_open(s->i915, true, &t->priv))
		return false;
	if (i915_gem_ioctl(s->shared, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc))
		return false;
	t->ctx = cc.ctx_id;
	/* The flag in system memory: it never migrates under a spinner. */
	{
		struct drm_i915_gem_memory_class_instance sys = {I915_MEMORY_CLASS_SYSTEM, 0};
		struct drm_i915_gem_create_ext_memory_regions mr = {
		    .base = {.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS},
		    .num_regions = 1,
		    .regions = (uintptr_t)&sys};
		struct drm_i915_gem_create_ext c = {.size = 4096, .extensions = (uintptr_t)&mr};

		if (i915_gem_ioctl(s->shared, DRM_IOCTL_I915_GEM_CREATE_EXT, &c))
			return false;
		t->flag = c.handle;
	}
	/*
	 * Bind the flag where the spinners poll it, and let that finish, before
	 * it is mapped: its pages are then the ones the GPU reads.
	 */
	{
		static const uint32_t cs[2] = {MI_BATCH_BUFFER_END, 0};
		struct drm_i915_gem_exec_object2 obj[2] = {
		    {.handle = t->flag, .offset = FZ_FLAG_AT, .flags = EXEC_OBJECT_PINNED}};
		struct drm_i915_gem_execbuffer2 eb = {
		    .buffers_ptr = (uintptr_t)obj, .buffer_count = 2, .rsvd1 = t->ctx};
		struct drm_i915_gem_wait w = {.bo_handle = t->flag, .timeout_ns = -1};
		struct drm_gem_close gc = {0};

		if (fz_batch(t, cs, sizeof(cs), 0, &gc.handle))
			return false;
		obj[1] = (struct drm_i915_gem_exec_object2){.handle = gc.handle};
		if (i915_gem_ioctl(s->shared, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb) ||
		    i915_gem_ioctl(s->shared, DRM_IOCTL_I915_GEM_WAIT, &w)) {
			i915_gem_ioctl(s->shared, DRM_IOCTL_GEM_CLOSE, &gc);
			return false;
		}
		i915_gem_ioctl(s->shared, DRM_IOCTL_GEM_CLOSE, &gc);
	}
	mo.handle = t->flag;
	if (!s->dg2)
		mo.flags = I915_MMAP_OFFSET_WB;
	if (i915_gem_ioctl(s->shared, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo) ||
	    i915_gem_mmap(s->shared, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			  (off_t)mo.offset, &p))
		return false;
	/*
	 * Fault the flag in now: a release must never wait for the fault path,
	 * which may wait for a lock an execbuffer holds while it waits for the
	 * spinner (a pinned slot's last batch).
	 */
	__atomic_store_n((uint32_t *)p, 0, __ATOMIC_RELEASE);
	atomic_store(&t->flag_map, (uint32_t *)p);
	return true;
}

static void fz_session_end(struct fz_session *s)
{
	struct i915_device *i915 = s->i915;

	/* Every spinner goes; the files close with their requests in flight. */
	for (unsigned int i = 0; i < s->nthreads; i++) {
		uint32_t *flag = atomic_load(&s->t[i].flag_map);

		if (flag)
			__atomic_store_n(flag, UINT32_MAX, __ATOMIC_RELEASE);
	}
	i915_gem_file_close(s->shared);
	for (unsigned int i = 0; i < s->nthreads; i++) {
		struct fz_thread *t = &s->t[i];

		if (t->priv)
			i915_gem_file_close(t->priv);
		/* Past the close of every file, the mappings still hold their objects. */
		for (unsigned int m = 0; m < FZ_MAPS; m++) {
			if (t->maps[m].addr && t->maps[m].priv)
				fuzz_check(
				    *(volatile uint32_t *)(t->maps[m].addr + t->maps[m].off) ==
				    t->maps[m].val);
			fz_unmap(t, &t->maps[m]);
		}
		if (atomic_load(&t->flag_map))
			fuzz_check(i915_gem_munmap(i915, atomic_load(&t->flag_map), 4096) == 0);
		for (unsigned int f = 0; f < FZ_FENCES; f++)
			if (t->fences[f] >= 0)
				drm_fd_close(t->fences[f], close);
	}
	drm_fd_gc();
	fuzz_gem_check_quiet(i915);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_session s;
	struct fuzz_input in;
	size_t chunk;
	unsigned int profile, started = 0;

	if (size < 2)
		return 0;
	fuzz_input_init(&in, data, size);
	profile = fuzz_u8(&in) & 1;
	if (!fz_devices[profile] &&
	    i915_gem_device_create_params(profile ? "dg2" : "tgl", profile ? "lmem_size=8" : "",
					  &fz_devices[profile]))
		return 0;
	memset(&s, 0, sizeof(s));
	s.i915 = fz_devices[profile];
	s.dg2 = profile;
	s.nthreads = 2 + fuzz_u8(&in) % (FZ_MAX_THREADS - 1);
	if (i915_gem_file_open(s.i915, true, &s.shared))
		return 0;
	data += 2;
	size -= 2;
	chunk = size / s.nthreads;
	for (unsigned int i = 0; i < s.nthreads; i++) {
		struct fz_thread *t = &s.t[i];

		t->s = &s;
		for (unsigned int f = 0; f < FZ_FENCES; f++)
			t->fences[f] = -1;
		t->idx = i;
		fuzz_input_init(&t->in, data + i * chunk, chunk);
		for (size_t j = 0; j < sizeof(t->buf); j++)
			t->buf[j] = (uint8_t)(j * 7 + i);
		if (!fz_thread_setup(&s, t)) {
			s.nthreads = i + 1; /* its half-made setup is undone at the end */
			break;
		}
		started++;
	}
	atomic_store(&s.running, started);
	for (unsigned int i = 0; i < started; i++)
		fuzz_check(pthread_create(&s.t[i].thread, NULL, fz_thread_fn, &s.t[i]) == 0);
	/* Spinners get about a millisecond; then every one is released. */
	while (atomic_load(&s.running)) {
		usleep(1000);
		for (unsigned int i = 0; i < started; i++) {
			uint32_t *flag = atomic_load(&s.t[i].flag_map);

			__atomic_store_n(flag, atomic_load(&s.t[i].armed), __ATOMIC_RELEASE);
		}
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(s.t[i].thread, NULL);
	fz_session_end(&s);
	return 0;
}
