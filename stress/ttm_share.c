// SPDX-License-Identifier: MIT
/*
 * ttm_share - buffers shared between clients through device-wide handles.
 *
 * One uAPI device (ttm_drm_device with LOCAL and a TT type set up by
 * MM_INIT, fences that signal as they are emitted), several clients, each a
 * thread with its own descriptor. Creators make SHAREABLE buffers, write a
 * seeded pattern through BO_MAP and publish the handle; the other clients
 * BO_REFERENCE it, map it, verify every word, validate it between LOCAL and
 * TT and drop their references in random order, while the creator retires
 * its own reference or closes its descriptor with the buffer still mapped.
 *
 * Proven: a reference taken while the handle is published always succeeds
 * and sees the creator's exact content, before and after every move and
 * after the creator let go (the buffer lives until the last reference); a
 * non-shareable buffer is refused to every other client; once every client
 * closed, no buffer, no user object and no fence outlives the run
 * (bo_count, the device's object table, dma_fence_live_count()).
 *
 * A published buffer's content is written once, before publication, and
 * only read afterwards: concurrent readers race on nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/dma_fence.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>
#include <ttm/ttm_drm_device.h>

#include "igt.h"
#include "stress_util.h"
#include "ttm_mock.h"
#include "ttm_uapi_helpers.h"
#include "ttm_uapi_mock.h"

#define SHARE_SLOTS 16
#define SHARE_MAX_CLIENTS 4
#define SHARE_HELD 8
#define SHARE_OWN 4
#define SHARE_TT_PAGES 256
#define RW (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE)

/* One fence class: the uAPI mock with fewer timelines. */
static const struct ttm_drm_driver sh_driver = {
    .num_fence_classes = 1,
    .fence_emit = ttm_uapi_mock_fence_emit,
};

/**
 * struct share_slot - a published buffer.
 * @handle: its device-wide handle, 0 when the slot is free.
 * @seed: the pattern it holds.
 * @size: bytes.
 * @creator: index of the client whose reference keeps it published.
 */
struct share_slot {
	uint32_t handle;
	uint64_t seed;
	uint64_t size;
	int creator;
};

/**
 * struct share_ctx - one run.
 * @ddev: the device.
 * @lock: protects @slots. A creator unreferences a published buffer only
 *	with @lock held, and readers take their reference with it held, so a
 *	handle read from a slot is alive for the BO_REFERENCE that names it.
 * @slots: the published buffers.
 * @ops, @bytes, @moves, @busy, @orphans, @refused: what was checked
 *	(atomics, summed over the clients).
 * @next_seed: source of pattern seeds.
 * @seconds, @max_ops: each client's budget in the storm.
 * @fences, @bos: live fences and buffers before the run, the baseline the
 *	end of the run must come back to.
 */
struct share_ctx {
	struct ttm_drm_device ddev;
	pthread_mutex_t lock;
	struct share_slot slots[SHARE_SLOTS];
	_Atomic uint64_t ops, bytes, moves, busy, orphans, refused;
	_Atomic uint64_t next_seed;
	double seconds;
	uint64_t max_ops;
	long fences;
	uint64_t bos;
};

/* One reference a client holds: what it expects to find there. */
struct share_ref {
	uint32_t handle;
	uint64_t seed;
	uint64_t size;
	int slot; /* -1 once the creator retired it from the slot */
};

struct share_client {
	struct share_ctx *ctx;
	int id;
	int fd;
	uint64_t rng;
	struct share_ref held[SHARE_HELD];
	unsigned nheld;
	int own[SHARE_OWN]; /* slots this client published */
	unsigned nown;
	uint32_t priv;	       /* a non-shareable buffer of this client */
	const uint32_t *privs; /* every client's, indexed by id */
	int nclients;
};

static void *share_map(int fd, uint32_t handle, uint64_t size)
{
	struct drm_bo_info_rep rep;
	int err;
	void *p = uapi_bo_map(fd, handle, &rep, &err);

	igt_assert_f(p, "map of buffer %u: %d\n", handle, err);
	igt_assert_eq_u64(rep.size, size);
	return p;
}

static void share_unmap(int fd, uint32_t handle)
{
	igt_assert_eq(uapi_bo_unmap(fd, handle), 0);
}

static void share_unref(int fd, uint32_t handle)
{
	igt_assert_eq(uapi_bo_unref(fd, handle), 0);
}

static void share_check(struct share_ctx *c, const uint64_t *p, uint64_t seed, uint64_t size,
			uint32_t handle)
{
	for (uint64_t w = 0; w < size / 8; w++)
		igt_assert_f(p[w] == ttm_mock_pattern(seed, w),
			     "buffer %u (seed %#" PRIx64 "): word %" PRIu64 " is %#" PRIx64 "\n",
			     handle, seed, w, p[w]);
	atomic_fetch_add(&c->bytes, size);
}

/* Create, fill and return a buffer of @pages with @flags; the caller's reference. */
static uint32_t share_create(struct share_ctx *c, int fd, uint64_t flags, uint64_t pages,
			     uint64_t seed)
{
	struct drm_bo_info_rep rep;
	uint64_t *p;
	uint64_t size = pages * TTM_PAGE_SIZE;

	igt_assert_eq(uapi_create_bo(fd, flags | RW, size, &rep), 0);
	igt_assert_eq_u64(rep.size, size);
	p = share_map(fd, rep.handle, size);
	for (uint64_t w = 0; w < size / 8; w++)
		p[w] = ttm_mock_pattern(seed, w);
	share_check(c, p, seed, size, rep.handle);
	share_unmap(fd, rep.handle);
	return rep.handle;
}

/*
 * Move the buffer to the other memory type. A core that pins mapped
 * buffers answers -EBUSY while another client has it mapped; one that lets
 * mapped buffers move invalidates the views, which fault back in, and the
 * content checks that follow read through them. -ENOSPC when TT is full;
 * anything else fails.
 */
static int share_move(struct share_client *cl, uint32_t handle, uint64_t size)
{
	struct share_ctx *c = cl->ctx;
	struct drm_bo_info_rep info, rep;
	uint64_t to;
	int ret;

	igt_assert_eq(uapi_bo_info(cl->fd, handle, &info), 0);
	igt_assert_eq_u64(info.size, size);
	to = info.flags & DRM_BO_FLAG_MEM_TT ? DRM_BO_FLAG_MEM_LOCAL : DRM_BO_FLAG_MEM_TT;
	ret = uapi_bo_setstatus(cl->fd, handle, to, DRM_BO_MASK_MEM, DRM_BO_HINT_DONT_FENCE, &rep);
	igt_assert_f(ret == 0 || ret == -EBUSY || ret == -ENOSPC,
		     "SETSTATUS of buffer %u to %#" PRIx64 ": %d\n", handle, to, ret);
	if (ret == 0) {
		igt_assert_eq_u64(rep.flags & DRM_BO_MASK_MEM, to);
		atomic_fetch_add(&c->moves, 1);
	} else {
		atomic_fetch_add(&c->busy, 1);
	}
	return ret;
}

static void client_publish(struct share_client *cl)
{
	struct share_ctx *c = cl->ctx;
	uint64_t pages = 1 + stress_rand_below(&cl->rng, 4);
	uint64_t seed = atomic_fetch_add(&c->next_seed, 1);
	uint32_t handle =
	    share_create(c, cl->fd, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_SHAREABLE, pages, seed);
	int slot = -1;

	pthread_mutex_lock(&c->lock);
	for (int i = 0; i < SHARE_SLOTS; i++)
		if (!c->slots[i].handle) {
			slot = i;
			c->slots[i] =
			    (struct share_slot){handle, seed, pages * TTM_PAGE_SIZE, cl->id};
			break;
		}
	pthread_mutex_unlock(&c->lock);
	if (slot < 0) {
		share_unref(cl->fd, handle);
		return;
	}
	cl->own[cl->nown++] = slot;
}

static void client_retire(struct share_client *cl)
{
	struct share_ctx *c = cl->ctx;
	unsigned i = (unsigned)stress_rand_below(&cl->rng, cl->nown);
	int slot = cl->own[i];

	pthread_mutex_lock(&c->lock);
	igt_assert_eq(c->slots[slot].creator, cl->id);
	share_unref(cl->fd, c->slots[slot].handle);
	c->slots[slot].handle = 0;
	pthread_mutex_unlock(&c->lock);
	cl->own[i] = cl->own[--cl->nown];
}

static void client_take(struct share_client *cl)
{
	struct share_ctx *c = cl->ctx;
	int slot = (int)stress_rand_below(&cl->rng, SHARE_SLOTS);
	struct share_ref *r = &cl->held[cl->nheld];
	struct drm_bo_info_rep rep;

	pthread_mutex_lock(&c->lock);
	if (!c->slots[slot].handle) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	r->handle = c->slots[slot].handle;
	r->seed = c->slots[slot].seed;
	r->size = c->slots[slot].size;
	r->slot = slot;
	igt_assert_f(uapi_bo_ref(cl->fd, r->handle, &rep) == 0,
		     "client %d: BO_REFERENCE of published buffer %u failed\n", cl->id, r->handle);
	pthread_mutex_unlock(&c->lock);
	igt_assert_eq(rep.handle, r->handle);
	igt_assert_eq_u64(rep.size, r->size);
	cl->nheld++;
}

/* Map, verify, maybe move, verify again, maybe drop: one held reference. */
static void client_use(struct share_client *cl)
{
	struct share_ctx *c = cl->ctx;
	unsigned i = (unsigned)stress_rand_below(&cl->rng, cl->nheld);
	struct share_ref *r = &cl->held[i];
	const uint64_t *p;
	bool orphan;

	p = share_map(cl->fd, r->handle, r->size);
	share_check(c, p, r->seed, r->size, r->handle);
	share_unmap(cl->fd, r->handle);
	if (stress_rand_below(&cl->rng, 2)) {
		share_move(cl, r->handle, r->size);
		p = share_map(cl->fd, r->handle, r->size);
		share_check(c, p, r->seed, r->size, r->handle);
		share_unmap(cl->fd, r->handle);
	}
	pthread_mutex_lock(&c->lock);
	orphan = c->slots[r->slot].handle != r->handle;
	pthread_mutex_unlock(&c->lock);
	/* The creator let go (or the handle moved on): ours kept it alive. */
	if (orphan)
		atomic_fetch_add(&c->orphans, 1);
	if (stress_rand_below(&cl->rng, 2)) {
		share_unref(cl->fd, r->handle);
		cl->held[i] = cl->held[--cl->nheld];
	}
}

/* Another client's private buffer must stay invisible. */
static void client_probe_private(struct share_client *cl, uint32_t foreign)
{
	struct share_ctx *c = cl->ctx;

	igt_assert_eq(uapi_bo_ref(cl->fd, foreign, NULL), -EINVAL);
	igt_assert_eq(uapi_bo_map_ioctl(cl->fd, foreign, NULL), -EINVAL);
	igt_assert_eq(uapi_bo_unref(cl->fd, foreign), -EINVAL);
	atomic_fetch_add(&c->refused, 3);
}

/* Some client other than @cl. */
static int share_other(struct share_client *cl)
{
	uint64_t k = 1 + stress_rand_below(&cl->rng, (uint64_t)cl->nclients - 1);

	return (int)((uint64_t)cl->id + k) % cl->nclients;
}

static void *client_thread(void *data)
{
	struct share_client *cl = data;
	struct share_ctx *c = cl->ctx;
	struct stress_budget budget;
	uint64_t ops = 0;

	stress_budget_init(&budget, c->seconds, c->max_ops);
	while (!stress_budget_done(&budget, ops)) {
		unsigned r = (unsigned)stress_rand_below(&cl->rng, 8);

		if (r == 0 && cl->nown < SHARE_OWN)
			client_publish(cl);
		else if (r == 1 && cl->nown)
			client_retire(cl);
		else if (r < 5 && cl->nheld < SHARE_HELD)
			client_take(cl);
		else if (r == 7 && cl->nclients > 1)
			client_probe_private(cl, cl->privs[share_other(cl)]);
		else if (cl->nheld)
			client_use(cl);
		ops++;
	}
	/* Random order again: half dropped explicitly, the rest by close. */
	while (cl->nheld > SHARE_HELD / 2) {
		unsigned i = (unsigned)stress_rand_below(&cl->rng, cl->nheld);

		share_unref(cl->fd, cl->held[i].handle);
		cl->held[i] = cl->held[--cl->nheld];
	}
	atomic_fetch_add(&c->ops, ops);
	return NULL;
}

/* User objects in the device table: buffers and fences of every client. */
static unsigned long share_objects(struct share_ctx *c)
{
	unsigned long n = 0;
	uint32_t id = 0;

	pthread_mutex_lock(&c->ddev.lock);
	while (ttm_drm_idr_next(&c->ddev.objects, &id)) {
		n++;
		id++;
	}
	pthread_mutex_unlock(&c->ddev.lock);
	return n;
}

/* Live buffers; the delayed-destroy worker may still be finishing one. */
static uint64_t share_bo_count(struct share_ctx *c)
{
	uint64_t n = 0;

	for (int i = 0; i < 1000; i++) {
		struct timespec ts = {0, 1000000};

		ttm_device_flush_delayed(&c->ddev.bdev, true);
		n = (uint64_t)atomic_load(&c->ddev.bdev.stats.bo_count);
		if (n <= c->bos)
			break;
		nanosleep(&ts, NULL);
	}
	return n;
}

static struct share_ctx *share_setup(int *admin)
{
	struct ttm_global_config cfg = {.limit_pages = 16384};
	struct share_ctx *c = calloc(1, sizeof(*c));

	igt_assert(c);
	igt_assert_eq(ttm_global_config(&cfg), 0);
	ttm_uapi_mock_timelines_init();
	c->fences = dma_fence_live_count();
	c->next_seed = igt_seed() << 20;
	pthread_mutex_init(&c->lock, NULL);
	igt_assert_eq(
	    ttm_drm_device_init(&c->ddev, &ttm_uapi_mock_funcs, &sh_driver, "share", false), 0);
	c->bos = (uint64_t)atomic_load(&c->ddev.bdev.stats.bo_count);
	*admin = ttm_drm_open(&c->ddev);
	igt_assert(*admin >= 0);
	igt_assert_eq(uapi_mm_init(*admin, DRM_BO_MEM_TT, 0, SHARE_TT_PAGES), 0);
	return c;
}

static void share_teardown(struct share_ctx *c, int admin)
{
	igt_assert_eq(ttm_drm_close(admin), 0);
	igt_assert_eq_u64(share_bo_count(c), c->bos);
	igt_assert_eq(share_objects(c), 0);
	igt_assert_eq(ttm_drm_device_fini(&c->ddev), 0);
	igt_assert_eq_s64(dma_fence_live_count(), c->fences);
	igt_info("%" PRIu64 " operations, %" PRIu64 " moves (%" PRIu64
		 " refused: mapped elsewhere or no room), "
		 "%" PRIu64 " uses after the creator let go, %" PRIu64 " foreign calls refused, "
		 "%" PRIu64 " bytes verified\n",
		 atomic_load(&c->ops), atomic_load(&c->moves), atomic_load(&c->busy),
		 atomic_load(&c->orphans), atomic_load(&c->refused), atomic_load(&c->bytes));
	igt_report_checks(atomic_load(&c->ops), atomic_load(&c->bytes), 0);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* @nclients threads over the shared slots; clients close with references still held. */
static void share_storm(int nclients, double seconds, uint64_t max_ops)
{
	struct share_client cl[SHARE_MAX_CLIENTS];
	pthread_t tid[SHARE_MAX_CLIENTS];
	uint32_t privs[SHARE_MAX_CLIENTS];
	uint64_t rng = prng_mix64(igt_seed());
	struct share_ctx *c;
	int admin;

	c = share_setup(&admin);
	c->seconds = seconds;
	c->max_ops = max_ops;
	memset(cl, 0, sizeof(cl));
	for (int i = 0; i < nclients; i++) {
		cl[i].ctx = c;
		cl[i].id = i;
		cl[i].rng = prng_step(&rng);
		cl[i].fd = ttm_drm_open(&c->ddev);
		igt_assert(cl[i].fd >= 0);
		cl[i].privs = privs;
		cl[i].nclients = nclients;
		privs[i] = cl[i].priv =
		    share_create(c, cl[i].fd, DRM_BO_FLAG_MEM_LOCAL, 1, 0xb0b0 + (uint64_t)i);
	}
	for (int i = 0; i < nclients; i++)
		igt_assert_eq(pthread_create(&tid[i], NULL, client_thread, &cl[i]), 0);
	for (int i = 0; i < nclients; i++)
		pthread_join(tid[i], NULL);
	/* Close in random order: each close drops every reference that client still holds. */
	for (int left = nclients; left; left--) {
		int i = (int)stress_rand_below(&rng, (uint64_t)nclients);

		while (cl[i].fd < 0)
			i = (i + 1) % nclients;
		igt_assert_eq(ttm_drm_close(cl[i].fd), 0);
		cl[i].fd = -1;
	}
	share_teardown(c, admin);
}

/* Two clients: the basic contract, step by step. */
static void share_basic(void)
{
	struct drm_bo_info_rep rep;
	struct share_ctx *c;
	const uint64_t *p;
	uint32_t shared, priv;
	int admin, a, b;

	c = share_setup(&admin);
	a = ttm_drm_open(&c->ddev);
	b = ttm_drm_open(&c->ddev);
	igt_assert(a >= 0 && b >= 0);
	shared = share_create(c, a, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_SHAREABLE, 4, 1);
	priv = share_create(c, a, DRM_BO_FLAG_MEM_LOCAL, 2, 2);
	igt_assert_eq(uapi_bo_ref(b, shared, &rep), 0);
	igt_assert_eq_u64(rep.size, 4 * TTM_PAGE_SIZE);
	{
		struct share_client cb = {.ctx = c, .fd = b};

		share_move(&cb, shared, 4 * TTM_PAGE_SIZE);
		igt_assert_eq_u64(atomic_load(&c->moves), 1);
		client_probe_private(&cb, priv);
	}
	p = share_map(b, shared, 4 * TTM_PAGE_SIZE);
	share_check(c, p, 1, 4 * TTM_PAGE_SIZE, shared);
	share_unmap(b, shared);
	/* The creator drops its reference: b's keeps the buffer. */
	share_unref(a, shared);
	igt_assert_eq(uapi_bo_ref(a, shared, NULL), 0);
	share_unref(a, shared);
	p = share_map(b, shared, 4 * TTM_PAGE_SIZE);
	share_check(c, p, 1, 4 * TTM_PAGE_SIZE, shared);
	share_unmap(b, shared);
	igt_assert_eq(share_objects(c), 2);
	share_unref(b, shared);
	igt_assert_eq(share_objects(c), 1);
	igt_assert_eq(uapi_bo_ref(b, shared, NULL), -EINVAL);
	share_unref(a, priv);
	igt_assert_eq(ttm_drm_close(b), 0);
	igt_assert_eq(ttm_drm_close(a), 0);
	atomic_fetch_add(&c->ops, 1);
	share_teardown(c, admin);
}

/*
 * The creator closes its descriptor while it and the others have the
 * buffer mapped: the mappings and references of the others keep working.
 */
static void share_close_while_mapped(void)
{
	struct stress_budget budget;
	uint64_t rng = igt_seed();
	struct share_ctx *c;
	uint64_t rounds = 0;
	int admin;

	c = share_setup(&admin);
	stress_budget_init(&budget, igt_stress_budget_s() > 2 ? 2 : igt_stress_budget_s(), 2000);
	while (!stress_budget_done(&budget, rounds)) {
		int creator = ttm_drm_open(&c->ddev);
		int other[3];
		const uint64_t *p[3];
		uint64_t pages = 1 + stress_rand_below(&rng, 4), size = pages * TTM_PAGE_SIZE;
		uint64_t seed = atomic_fetch_add(&c->next_seed, 1);
		uint32_t h;

		igt_assert(creator >= 0);
		h = share_create(c, creator, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_SHAREABLE, pages,
				 seed);
		for (int i = 0; i < 3; i++) {
			other[i] = ttm_drm_open(&c->ddev);
			igt_assert(other[i] >= 0);
			igt_assert_eq(uapi_bo_ref(other[i], h, NULL), 0);
			p[i] = share_map(other[i], h, size);
		}
		(void)share_map(creator, h, size);
		igt_assert_eq(ttm_drm_close(creator), 0);
		/*
		 * Mapped by the others: refused (-EBUSY), or moved under their
		 * views, which must then fault the same content back in.
		 */
		{
			struct share_client cl = {.ctx = c, .fd = other[0]};
			int ret = share_move(&cl, h, size);

			igt_assert_f(ret == 0 || ret == -EBUSY, "move of a mapped buffer: %d\n",
				     ret);
		}
		for (int i = 0; i < 3; i++)
			share_check(c, p[i], seed, size, h);
		/* The others leave in random order, some by close with the map still up. */
		for (int left = 3; left; left--) {
			int i = (int)stress_rand_below(&rng, 3);

			while (other[i] < 0)
				i = (i + 1) % 3;
			if (stress_rand_below(&rng, 2)) {
				share_unmap(other[i], h);
				share_unref(other[i], h);
			}
			if (left > 1) {
				int j = (i + 1) % 3;

				while (other[j] < 0 || j == i)
					j = (j + 1) % 3;
				share_check(c, p[j], seed, size, h);
			}
			igt_assert_eq(ttm_drm_close(other[i]), 0);
			other[i] = -1;
		}
		igt_assert_eq(share_objects(c), 0);
		rounds++;
	}
	atomic_fetch_add(&c->ops, rounds);
	share_teardown(c, admin);
}

igt_main_description("Buffers shared between clients by handle: references, maps, moves and "
		     "closes in random order; the last reference frees, nothing leaks, private "
		     "buffers stay private.")
{
	igt_subtest("basic") share_basic();
	igt_subtest("reference-storm")
	    share_storm((int)igt_opt_count(IGT_CLIENTS, SHARE_MAX_CLIENTS, SHARE_MAX_CLIENTS),
			igt_stress_budget_s() > 3 ? 3 : igt_stress_budget_s(), 100000);
	igt_subtest("close-while-mapped") share_close_while_mapped();
}
