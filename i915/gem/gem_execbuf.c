// SPDX-License-Identifier: MIT
/*
 * gem_execbuf: DRM_IOCTL_I915_GEM_EXECBUFFER2(_WR), checked in the order
 * and with the errno of gem/i915_gem_execbuffer.c, translated into struct
 * i915_execbuffer and run by i915_gem_execbuffer(), which reserves and
 * validates every object under one ww ticket and leaves nothing changed
 * on failure. The exec object list and every relocation array are copied
 * in through the checked user copy; offsets go back only after success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/dma_fence_chain.h>

#include "gem_priv.h"

#define GEM_EB_MAX_BUFFERS (1u << 20)
#define GEM_EB_MAX_RELOCS (1u << 24)

/* Exec object flags of the uAPI (the core spells only some of them). */
#define GEM_EO_NEEDS_FENCE (1u << 0)
#define GEM_EO_NEEDS_GTT (1u << 1)
#define GEM_EO_WRITE (1u << 2)
#define GEM_EO_48B (1u << 3)
#define GEM_EO_PINNED (1u << 4)
#define GEM_EO_PAD_TO_SIZE (1u << 5)
#define GEM_EO_ASYNC (1u << 6)
#define GEM_EO_CAPTURE (1u << 7)
#define GEM_EO_KNOWN ((GEM_EO_CAPTURE << 1) - 1)

#define GEM_EXEC_SECURE (1u << 9)
#define GEM_EXEC_BSD_MASK (3u << 13)
#define GEM_EXEC_FENCE_IN (1u << 16)
#define GEM_EXEC_FENCE_OUT (1u << 17)
#define GEM_EXEC_FENCE_ARRAY (1u << 19)
#define GEM_EXEC_FENCE_SUBMIT (1u << 20)
#define GEM_EXEC_USE_EXTENSIONS (1u << 21)
#define GEM_EXEC_KNOWN ((GEM_EXEC_USE_EXTENSIONS << 1) - 1)
/* Flags the kernel refuses on every part it drives (i915_gem_check_execbuffer). */
#define GEM_EXEC_ILLEGAL (I915_EXEC_CONSTANTS_MASK | I915_EXEC_RESOURCE_STREAMER)

/*
 * The kernel's legacy ring selection (eb_select_legacy_ring() over the
 * default engine map): RENDER, BLT, VEBOX the first engine of the class,
 * BSD the first video engine or, on a part with two, the one BSD_RING1/2
 * names, the file's own by default (gen8_dispatch_bsd_engine() picks one
 * per file at random; here files take turns).
 */
static int gem_eb_legacy_engine(struct i915_gem_file *file, uint64_t flags, enum i915_engine_id *id)
{
	struct i915_gem_dev *dev = file->dev;
	uint32_t ring = (uint32_t)(flags & I915_EXEC_RING_MASK), bsd;
	const struct gem_uabi_engine *ue = NULL;
	uint32_t nvcs = gem_engines_of_class(dev, I915_ENGINE_CLASS_VIDEO);

	if (ring != I915_EXEC_BSD && (flags & GEM_EXEC_BSD_MASK))
		return -EINVAL;
	switch (ring) {
	case I915_EXEC_DEFAULT:
	case I915_EXEC_RENDER:
		ue = gem_engine_lookup(dev, I915_ENGINE_CLASS_RENDER, 0);
		break;
	case I915_EXEC_BLT:
		ue = gem_engine_lookup(dev, I915_ENGINE_CLASS_COPY, 0);
		break;
	case I915_EXEC_BSD:
		bsd = (uint32_t)(flags & GEM_EXEC_BSD_MASK);
		if (nvcs <= 1) {
			bsd = 0;
		} else if (bsd == I915_EXEC_BSD_DEFAULT) {
			pthread_mutex_lock(&file->lock);
			if (file->bsd_engine < 0)
				file->bsd_engine =
				    (int)(atomic_fetch_add(&dev->next_bsd, 1) % nvcs);
			bsd = (uint32_t)file->bsd_engine;
			pthread_mutex_unlock(&file->lock);
		} else if (bsd == I915_EXEC_BSD_RING1 || bsd == I915_EXEC_BSD_RING2) {
			bsd = (bsd >> I915_EXEC_BSD_SHIFT) - 1;
		} else {
			return -EINVAL;
		}
		ue = gem_engine_lookup(dev, I915_ENGINE_CLASS_VIDEO, (uint16_t)bsd);
		break;
	case I915_EXEC_VEBOX:
		ue = gem_engine_lookup(dev, I915_ENGINE_CLASS_VIDEO_ENHANCE, 0);
		break;
	}
	if (!ue)
		return -EINVAL; /* an unknown ring, or none of that class here */
	*id = ue->id;
	return 0;
}

static int gem_eb_engine(struct i915_gem_file *file, uint32_t ctx_id, const struct gem_ctx *ctx,
			 uint64_t flags, enum i915_engine_id *id)
{
	int ret;

	if (!ctx->nengines)
		return gem_eb_legacy_engine(file, flags, id);
	ret = gem_context_slot_engine(file, ctx_id, (uint32_t)(flags & I915_EXEC_RING_MASK), id);
	return ret == -ENOENT ? -EINVAL : ret;
}

/* --- fences (syncobj arrays, timeline extension, sync_file in/out) --- */

/**
 * struct gem_eb_fence - one syncobj of the call.
 * @syncobj: a reference.
 * @fence: what the batch waits for, NULL for none.
 * @chain: for a timeline point the batch signals, the preallocated link.
 * @point: the timeline point (0: binary).
 * @signal: the batch's fence goes into @syncobj after submission.
 */
struct gem_eb_fence {
	struct drm_syncobj *syncobj;
	struct dma_fence *fence;
	struct dma_fence_chain *chain;
	uint64_t point;
	bool signal;
};

/* Allocations of one call, each a hit of the "gem_eb_alloc" fault point. */
static void *gem_eb_calloc(size_t n, size_t size)
{
	if (fault_should_fail(&gem_fault_eb_alloc, n * size))
		return NULL;
	return calloc(n, size);
}

static void *gem_eb_realloc(void *p, size_t size)
{
	if (fault_should_fail(&gem_fault_eb_alloc, size))
		return NULL;
	return realloc(p, size);
}

struct gem_eb_fences {
	struct i915_gem_file *file;
	struct gem_eb_fence *v;
	uint64_t n, cap;
	bool timeline_seen;
};

static void gem_eb_fences_fini(struct gem_eb_fences *f)
{
	for (uint64_t i = 0; i < f->n; i++) {
		dma_fence_put(f->v[i].fence);
		if (f->v[i].chain)
			dma_fence_chain_free(f->v[i].chain);
		drm_syncobj_put(f->v[i].syncobj);
	}
	free(f->v);
}

/* The kernel's add_timeline_fence(). */
static int gem_eb_add_fence(struct gem_eb_fences *f, uint32_t handle, uint64_t point,
			    uint32_t flags)
{
	struct drm_syncobj *syncobj;
	struct dma_fence *fence;
	struct dma_fence_chain *chain = NULL;
	int err;

	syncobj = drm_syncobj_find(&f->file->drm, handle);
	if (!syncobj)
		return -ENOENT;
	fence = drm_syncobj_fence_get(syncobj);
	if (!fence && flags && !(flags & I915_EXEC_FENCE_SIGNAL)) {
		drm_syncobj_put(syncobj);
		return -EINVAL;
	}
	if (fence) {
		err = dma_fence_chain_find_seqno(&fence, point);
		if (err) {
			dma_fence_put(fence);
			drm_syncobj_put(syncobj);
			return err;
		}
	}
	/* A point already signalled and collected: nothing to wait for. */
	if (!fence && !(flags & I915_EXEC_FENCE_SIGNAL)) {
		drm_syncobj_put(syncobj);
		return 0;
	}
	if (point && (flags & I915_EXEC_FENCE_SIGNAL)) {
		/* Waiting for and signalling the same point breaks the timeline. */
		if (fence) {
			dma_fence_put(fence);
			drm_syncobj_put(syncobj);
			return -EINVAL;
		}
		chain = dma_fence_chain_alloc();
		if (!chain) {
			drm_syncobj_put(syncobj);
			return -ENOMEM;
		}
	}
	if (f->n == f->cap) {
		uint64_t cap = f->cap ? f->cap * 2 : 8;
		struct gem_eb_fence *v = gem_eb_realloc(f->v, cap * sizeof(*v));

		if (!v) {
			if (chain)
				dma_fence_chain_free(chain);
			dma_fence_put(fence);
			drm_syncobj_put(syncobj);
			return -ENOMEM;
		}
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = (struct gem_eb_fence){
	    .syncobj = syncobj,
	    .fence = fence,
	    .chain = chain,
	    .point = point,
	    .signal = (flags & I915_EXEC_FENCE_SIGNAL) != 0,
	};
	return 0;
}

static int gem_eb_ext_timeline(uint64_t base, void *data)
{
	struct drm_i915_gem_execbuffer_ext_timeline_fences ext;
	struct gem_eb_fences *f = data;
	int err;

	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	if (f->timeline_seen)
		return -EINVAL; /* once per call */
	f->timeline_seen = true;
	if (ext.fence_count > (1ull << 24))
		return -EINVAL;
	for (uint64_t i = 0; i < ext.fence_count; i++) {
		struct drm_i915_gem_exec_fence uf;
		uint64_t point;

		if (gem_copy_from_user(&uf, ext.handles_ptr + i * sizeof(uf), sizeof(uf)))
			return -EFAULT;
		if (uf.flags & __I915_EXEC_FENCE_UNKNOWN_FLAGS)
			return -EINVAL;
		if (gem_copy_from_user(&point, ext.values_ptr + i * sizeof(point), sizeof(point)))
			return -EFAULT;
		err = gem_eb_add_fence(f, uf.handle, point, uf.flags);
		if (err)
			return err;
	}
	return 0;
}

/* The extension chain and the legacy fence array (both in cliprects_ptr). */
static int gem_eb_parse_fences(struct drm_i915_gem_execbuffer2 *args, struct gem_eb_fences *f)
{
	static const gem_ext_fn tbl[] = {
	    [DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES] = gem_eb_ext_timeline,
	};
	int err;

	if (args->flags & GEM_EXEC_USE_EXTENSIONS) {
		if ((args->flags & GEM_EXEC_FENCE_ARRAY) || args->num_cliprects)
			return -EINVAL;
		return gem_user_extensions(args->cliprects_ptr, tbl, sizeof(tbl) / sizeof(tbl[0]),
					   f);
	}
	if (!(args->flags & GEM_EXEC_FENCE_ARRAY) || !args->num_cliprects)
		return 0;
	for (uint32_t i = 0; i < args->num_cliprects; i++) {
		struct drm_i915_gem_exec_fence uf;

		if (gem_copy_from_user(&uf, args->cliprects_ptr + (uint64_t)i * sizeof(uf),
				       sizeof(uf)))
			return -EFAULT;
		if (uf.flags & __I915_EXEC_FENCE_UNKNOWN_FLAGS)
			return -EINVAL;
		err = gem_eb_add_fence(f, uf.handle, 0, uf.flags);
		if (err)
			return err;
	}
	return 0;
}

/* After submission: the batch's fence into every signalled syncobj. */
static void gem_eb_signal(struct gem_eb_fences *f, struct dma_fence *fence)
{
	for (uint64_t i = 0; i < f->n; i++) {
		struct gem_eb_fence *e = &f->v[i];

		if (!e->signal)
			continue;
		if (e->chain) {
			drm_syncobj_add_point(e->syncobj, e->chain, fence, e->point);
			e->chain = NULL;
		} else {
			drm_syncobj_replace_fence(e->syncobj, fence);
		}
	}
}

/*
 * Where a translated relocation came from: its index in its object's user
 * list, and the presumed offset the caller gave (written back only when
 * the execbuffer changed it, as the kernel's eb_relocate_entry()).
 */
struct gem_eb_reloc_src {
	uint32_t index;
	uint64_t presumed;
};

struct gem_eb {
	struct i915_execbuffer eb;
	struct drm_i915_gem_exec_object2 *uobjs;
	struct gem_obj **objs;
	struct i915_exec_reloc *relocs;
	struct gem_eb_reloc_src *reloc_src;
	uint64_t nrelocs;
	struct i915_context *hw;
};

static void gem_eb_fini(struct gem_eb *e)
{
	for (uint32_t i = 0; e->objs && i < e->eb.count; i++)
		gem_obj_put(e->objs[i]);
	free(e->objs);
	free(e->eb.objects);
	free(e->uobjs);
	free(e->relocs);
	free(e->reloc_src);
	i915_context_put(e->hw);
}

/* --- batches queued behind fences that have not signalled --- */

/**
 * struct gem_proxy - the fence a queued batch is known by until it runs:
 * it signals, with the batch's error, when the batch's own fence does (or
 * at once with the submission's error).
 * @base: the fence (first: the default release frees the block).
 * @cb: on the batch's fence.
 */
struct gem_proxy {
	struct dma_fence base;
	struct dma_fence_cb cb;
};

static const char *gem_proxy_driver_name(struct dma_fence *fence)
{
	(void)fence;
	return "i915";
}

static const char *gem_proxy_timeline_name(struct dma_fence *fence)
{
	(void)fence;
	return "queued";
}

static const struct dma_fence_ops gem_proxy_ops = {
    .get_driver_name = gem_proxy_driver_name,
    .get_timeline_name = gem_proxy_timeline_name,
};

static void gem_proxy_done(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct gem_proxy *proxy = container_of(cb, struct gem_proxy, cb);

	if (fence->error)
		dma_fence_set_error(&proxy->base, fence->error);
	dma_fence_signal(&proxy->base);
	dma_fence_put(&proxy->base);
}

/**
 * struct gem_async - a batch whose submission waits for fences: the
 * execbuffer is complete and checked, only i915_gem_execbuffer() is left.
 * @e: the translated call (objects, relocations, context).
 * @deps: fences it waits for (a reference each), @ndeps of them.
 * @proxy: its fence (one reference).
 * @dev: the device.
 */
struct gem_async {
	struct gem_eb e;
	struct dma_fence **deps;
	unsigned int ndeps;
	struct gem_proxy *proxy;
	struct i915_gem_dev *dev;
};

static void *gem_async_run(void *arg)
{
	struct gem_async *job = arg;
	struct i915_gem_dev *dev = job->dev;
	struct dma_fence *out;
	int ret = 0;

	for (unsigned int i = 0; i < job->ndeps; i++)
		dma_fence_wait(job->deps[i], false);
	ret = i915_gem_execbuffer(dev->i915, &job->e.eb);
	if (ret) {
		dma_fence_set_error(&job->proxy->base, ret);
		dma_fence_signal(&job->proxy->base);
		dma_fence_put(&job->proxy->base);
	} else {
		out = job->e.eb.out_fence;
		if (dma_fence_add_callback(out, &job->proxy->cb, gem_proxy_done))
			gem_proxy_done(out, &job->proxy->cb);
		dma_fence_put(out);
	}
	for (unsigned int i = 0; i < job->ndeps; i++)
		dma_fence_put(job->deps[i]);
	free(job->deps);
	gem_eb_fini(&job->e);
	free(job);
	pthread_mutex_lock(&dev->lock);
	if (!--dev->async_jobs)
		pthread_cond_broadcast(&dev->async_cond);
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

int gem_async_wait(struct i915_gem_dev *dev, uint32_t timeout_ms)
{
	struct timespec until;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&dev->lock);
	while (dev->async_jobs && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&dev->async_cond, &dev->lock, &until);
	ret = dev->async_jobs ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/*
 * Queue @e behind @deps on a thread of its own: the call returns with the
 * proxy fence, and every object and the context remember it so that
 * BUSY, WAIT, the CPU paths and later batches of the context see the
 * batch as queued. Takes over @e and @deps.
 */
static int gem_eb_queue(struct i915_gem_file *file, uint32_t ctx_id, struct gem_eb *e,
			struct dma_fence **deps, unsigned int ndeps, uint16_t engine_class,
			struct dma_fence **fence)
{
	struct i915_gem_dev *dev = file->dev;
	struct gem_async *job = gem_eb_calloc(1, sizeof(*job));
	struct gem_proxy *proxy = dma_fence_alloc(sizeof(*proxy));
	pthread_attr_t attr;
	pthread_t thread;
	int ret;

	if (!job || !proxy) {
		free(job);
		free(proxy);
		return -ENOMEM;
	}
	dma_fence_init(&proxy->base, &gem_proxy_ops, dev->proxy_context,
		       atomic_fetch_add(&dev->proxy_seqno, 1) + 1);
	job->e = *e;
	job->deps = deps;
	job->ndeps = ndeps;
	job->proxy = proxy;
	job->dev = dev;
	for (uint32_t i = 0; i < e->eb.count; i++)
		gem_obj_set_pending(e->objs[i], &proxy->base, engine_class,
				    (e->eb.objects[i].flags & EXEC_OBJECT_WRITE) != 0);
	gem_context_set_pending(file, ctx_id, &proxy->base);
	*fence = dma_fence_get(&proxy->base);
	pthread_mutex_lock(&dev->lock);
	dev->async_jobs++;
	pthread_mutex_unlock(&dev->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = -pthread_create(&thread, &attr, gem_async_run, job);
	pthread_attr_destroy(&attr);
	if (ret) {
		/* No thread: wait and submit here, as the synchronous path does. */
		gem_async_run(job);
	}
	memset(e, 0, sizeof(*e));
	return 0;
}

/* A growable array of fence references. */
struct gem_eb_deps {
	struct dma_fence **v;
	unsigned int n, cap;
};

/* Append a reference to @f (taken by the caller) to @d. Return: 0; -ENOMEM (@f put). */
static int gem_eb_deps_add(struct gem_eb_deps *d, struct dma_fence *f)
{
	if (d->n == d->cap) {
		unsigned int cap = d->cap ? 2 * d->cap : 8;
		struct dma_fence **v = gem_eb_realloc(d->v, (size_t)cap * sizeof(*v));

		if (!v) {
			dma_fence_put(f);
			return -ENOMEM;
		}
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = f;
	return 0;
}

static void gem_eb_deps_fini(struct gem_eb_deps *d)
{
	for (unsigned int i = 0; i < d->n; i++)
		dma_fence_put(d->v[i]);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/*
 * Implicit sync, as the kernel's eb_move_to_gpu()/i915_request_await_object():
 * a batch that writes @obj follows every user of it, one that reads it
 * follows its writers. Fences of @context (the engine the batch runs on)
 * need nothing: the engine runs its own requests in order.
 */
static int gem_eb_implicit_deps(struct gem_eb_deps *d, struct gem_obj *obj, bool write,
				uint64_t context)
{
	enum dma_resv_usage usage = write ? DMA_RESV_USAGE_BOOKKEEP : DMA_RESV_USAGE_WRITE;
	struct dma_fence **fences = NULL;
	unsigned int n = 0;
	int ret;

	ret = dma_resv_get_fences(obj->bo->base.resv, usage, &n, &fences);
	for (unsigned int i = 0; !ret && i < n; i++) {
		if (fences[i]->context == context || dma_fence_is_signaled(fences[i]))
			continue;
		ret = gem_eb_deps_add(d, dma_fence_get(fences[i]));
	}
	dma_resv_put_fences(fences, n);
	return ret;
}

/*
 * What the batch must wait for that has not signalled yet: the in-fence,
 * the syncobj fences, the reservation fences of its objects that another
 * timeline than @context added (implicit sync), batches still queued on its
 * objects or its context. The kernel makes each a dependency of the request
 * (its submit fence) instead of waiting in the ioctl; so does the caller.
 * Return: 0 with *@deps (NULL when nothing is pending); -ENOMEM.
 */
static int gem_eb_pending(struct i915_gem_file *file, uint32_t ctx_id, struct gem_eb *e,
			  struct gem_eb_fences *f, struct dma_fence *in, uint64_t context,
			  struct dma_fence ***deps, unsigned int *ndeps)
{
	struct gem_eb_deps d = {0};
	struct dma_fence *p;
	bool *written = NULL;
	int ret = 0;

	if (e->nrelocs) {
		/* A relocation's write domain makes its target written too. */
		written = gem_eb_calloc(e->eb.count, sizeof(*written));
		if (!written)
			return -ENOMEM;
		for (uint32_t i = 0; i < e->eb.count; i++)
			for (uint32_t k = 0; k < e->eb.objects[i].nreloc; k++)
				if (e->eb.objects[i].relocs[k].write_domain)
					written[e->eb.objects[i].relocs[k].target] = true;
	}
	if (in && !dma_fence_is_signaled(in))
		ret = gem_eb_deps_add(&d, dma_fence_get(in));
	for (uint64_t i = 0; !ret && i < f->n; i++)
		if (f->v[i].fence && !dma_fence_is_signaled(f->v[i].fence))
			ret = gem_eb_deps_add(&d, dma_fence_get(f->v[i].fence));
	for (uint32_t i = 0; !ret && i < e->eb.count; i++) {
		bool write =
		    (e->eb.objects[i].flags & EXEC_OBJECT_WRITE) || (written && written[i]);

		ret = gem_eb_implicit_deps(&d, e->objs[i], write, context);
		if (!ret && (p = gem_obj_pending_get(e->objs[i])))
			ret = gem_eb_deps_add(&d, p);
	}
	if (!ret && (p = gem_context_pending_get(file, ctx_id)))
		ret = gem_eb_deps_add(&d, p);
	free(written);
	if (ret) {
		gem_eb_deps_fini(&d);
		return ret;
	}
	if (!d.n) {
		free(d.v);
		d.v = NULL;
	}
	*deps = d.v;
	*ndeps = d.n;
	return 0;
}

/* Relocations of every object, converted to list indices. */
/* Relocation entries copied from the caller per copy (the kernel's N_RELOC chunks). */
#define GEM_EB_RELOC_CHUNK 64

static int gem_eb_relocs(struct i915_gem_file *file, struct gem_eb *e, uint64_t flags)
{
	struct drm_i915_gem_relocation_entry chunk[GEM_EB_RELOC_CHUNK];
	uint32_t n = e->eb.count;
	uint64_t at = 0;

	for (uint32_t i = 0; i < n; i++)
		e->nrelocs += e->uobjs[i].relocation_count;
	if (!e->nrelocs)
		return 0;
	if (!file->dev->info->has_relocs)
		return -EINVAL; /* no relocations after Tiger Lake */
	if (e->nrelocs > GEM_EB_MAX_RELOCS)
		return -EINVAL;
	e->relocs = gem_eb_calloc(e->nrelocs, sizeof(*e->relocs));
	e->reloc_src = gem_eb_calloc(e->nrelocs, sizeof(*e->reloc_src));
	if (!e->relocs || !e->reloc_src)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e->uobjs[i];
		struct i915_exec_object *eo = &e->eb.objects[i];

		uint32_t skipped = 0;

		eo->relocs = o->relocation_count ? e->relocs + at : NULL;
		eo->nreloc = o->relocation_count;
		for (uint32_t r = 0; r < o->relocation_count; r++) {
			const struct drm_i915_gem_relocation_entry *rp =
			    &chunk[r % GEM_EB_RELOC_CHUNK];
			struct drm_i915_gem_relocation_entry re;
			uint32_t target = UINT32_MAX;

			/* One copy per chunk: a fault anywhere fails the call before any write. */
			if (!(r % GEM_EB_RELOC_CHUNK)) {
				uint32_t cnt = o->relocation_count - r;

				if (cnt > GEM_EB_RELOC_CHUNK)
					cnt = GEM_EB_RELOC_CHUNK;
				if (gem_copy_from_user(chunk,
						       o->relocs_ptr + (uint64_t)r * sizeof(re),
						       cnt * sizeof(re)))
					return -EFAULT;
			}
			re = *rp;
			if (flags & I915_EXEC_HANDLE_LUT) {
				if (re.target_handle < n)
					target = re.target_handle;
			} else {
				for (uint32_t j = 0; j < n && target == UINT32_MAX; j++)
					if (e->uobjs[j].handle == re.target_handle)
						target = j;
			}
			if (target == UINT32_MAX) {
				/*
				 * With NO_RELOC the kernel looks at relocations only
				 * when an object moved; objects here keep their
				 * addresses, so one naming nothing is left out.
				 */
				if (!(flags & I915_EXEC_NO_RELOC))
					return -ENOENT;
				eo->nreloc--;
				skipped++;
				continue;
			}
			if (re.write_domain & (re.write_domain - 1))
				return -EINVAL;
			if ((re.read_domains | re.write_domain) & ~(uint32_t)I915_GEM_DOMAIN_MASK)
				return -EINVAL;
			if ((re.offset & 3) || re.offset > e->objs[i]->size - 8)
				return -EINVAL;
			e->reloc_src[at + r - skipped] =
			    (struct gem_eb_reloc_src){.index = r, .presumed = re.presumed_offset};
			e->relocs[at + r - skipped] = (struct i915_exec_reloc){
			    .target = target,
			    .delta = re.delta,
			    .offset = re.offset,
			    .presumed_offset = re.presumed_offset,
			    .read_domains = re.read_domains,
			    .write_domain = re.write_domain,
			};
		}
		at += o->relocation_count;
	}
	return 0;
}

/* After success: presumed offsets and object offsets back to the caller. */
static void gem_eb_write_back(struct gem_eb *e)
{
	const size_t stride = sizeof(struct drm_i915_gem_relocation_entry);
	uint64_t at = 0;

	for (uint32_t i = 0; i < e->eb.count; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e->uobjs[i];

		for (uint32_t k = 0; k < e->eb.objects[i].nreloc; k++) {
			uint64_t p = e->relocs[at + k].presumed_offset;

			if (p == e->reloc_src[at + k].presumed)
				continue; /* not relocated: the caller's entry already says so */
			gem_copy_to_user(
			    o->relocs_ptr + (uint64_t)e->reloc_src[at + k].index * stride +
				offsetof(struct drm_i915_gem_relocation_entry, presumed_offset),
			    &p, sizeof(p));
		}
		at += o->relocation_count;
	}
}

struct gem_eb_span {
	uint64_t start, end;
};

static int gem_eb_span_cmp(const void *a, const void *b)
{
	const struct gem_eb_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Softpinned objects of one call whose ranges (the object, or its
 * pad_to_size when larger) overlap: the kernel cannot evict a node pinned by
 * the same execbuf to make room for the other (i915_gem_evict_for_node), so
 * the call fails with -ENOSPC. Return: 0, -ENOSPC, or -ENOMEM.
 */
static int gem_eb_pinned_overlap(const struct gem_eb *e)
{
	struct gem_eb_span *s;
	uint32_t n = 0;
	int ret = 0;

	for (uint32_t i = 0; i < e->eb.count; i++)
		n += (e->uobjs[i].flags & GEM_EO_PINNED) != 0;
	if (n < 2)
		return 0;
	s = gem_eb_calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	n = 0;
	for (uint32_t i = 0; i < e->eb.count; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e->uobjs[i];
		uint64_t size = e->objs[i]->size;

		if (!(o->flags & GEM_EO_PINNED))
			continue;
		if ((o->flags & GEM_EO_PAD_TO_SIZE) && o->pad_to_size > size)
			size = o->pad_to_size;
		s[n].start = i915_vm_noncanonical(o->offset);
		s[n].end = s[n].start + size;
		/* Past the address space: the core refuses the address (-EINVAL) first. */
		if (size > I915_VM_TOTAL || s[n].end > I915_VM_TOTAL)
			goto out;
		n++;
	}
	qsort(s, n, sizeof(*s), gem_eb_span_cmp);
	for (uint32_t i = 1; i < n; i++)
		if (s[i].start < s[i - 1].end)
			ret = -ENOSPC;
out:
	free(s);
	return ret;
}

int gem_execbuffer2_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_execbuffer2 *args = data;
	uint32_t n = args->buffer_count, batch;
	enum i915_engine_id engine;
	struct gem_eb e;
	struct gem_ctx ctx;
	struct gem_eb_fences fences = {.file = file};
	struct dma_fence *in = NULL, *fence = NULL, **deps = NULL;
	unsigned int ndeps = 0;
	int out_fd = -1;
	int ret;

	memset(&e, 0, sizeof(e));
	if (n < 1 || n > GEM_EB_MAX_BUFFERS)
		return -EINVAL;
	if (args->flags & (~(uint64_t)GEM_EXEC_KNOWN | GEM_EXEC_ILLEGAL))
		return -EINVAL;
	if (!(args->flags & (GEM_EXEC_FENCE_ARRAY | GEM_EXEC_USE_EXTENSIONS)) &&
	    (args->num_cliprects || args->cliprects_ptr))
		return -EINVAL;
	if (args->DR4 == 0xffffffff)
		args->DR4 = 0;
	if (args->DR1 || args->DR4)
		return -EINVAL;
	if ((args->batch_start_offset | args->batch_len) & 7)
		return -EINVAL;
	e.uobjs = gem_eb_calloc(n, sizeof(*e.uobjs));
	if (!e.uobjs)
		return -ENOMEM;
	ret = gem_copy_from_user(e.uobjs, args->buffers_ptr, (size_t)n * sizeof(*e.uobjs));
	if (ret)
		goto out;
	if (args->flags & GEM_EXEC_SECURE) {
		ret = -ENODEV; /* secure batches are gone since gen11 */
		goto out;
	}
	ret = gem_eb_parse_fences(args, &fences);
	if (ret)
		goto out;
	if (args->flags & (GEM_EXEC_FENCE_IN | GEM_EXEC_FENCE_SUBMIT)) {
		ret = -EINVAL;
		if ((args->flags & (GEM_EXEC_FENCE_IN | GEM_EXEC_FENCE_SUBMIT)) ==
		    (GEM_EXEC_FENCE_IN | GEM_EXEC_FENCE_SUBMIT))
			goto out;
		in = drm_sync_file_get_fence((int)(uint32_t)args->rsvd2);
		if (!in)
			goto out;
	}
	e.hw = gem_context_lookup(file, (uint32_t)args->rsvd1, &ctx);
	if (!e.hw) {
		ret = -ENOENT;
		goto out;
	}
	/* A context that may not recover is banned by its first hang. */
	if (!ctx.recoverable && atomic_load(&e.hw->guilty)) {
		ret = -EIO;
		goto out;
	}
	ret = gem_eb_engine(file, (uint32_t)args->rsvd1, &ctx, args->flags, &engine);
	if (ret)
		goto out;
	ret = -ENOMEM;
	e.eb.objects = gem_eb_calloc(n, sizeof(*e.eb.objects));
	e.objs = gem_eb_calloc(n, sizeof(*e.objs));
	if (!e.eb.objects || !e.objs)
		goto out;
	e.eb.count = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_i915_gem_exec_object2 *o = &e.uobjs[i];
		struct i915_exec_object *eo = &e.eb.objects[i];

		e.objs[i] = gem_lookup(file, o->handle);
		if (!e.objs[i]) {
			ret = -ENOENT;
			goto out;
		}
		ret = -EINVAL;
		if (o->relocation_count && !file->dev->info->has_relocs)
			goto out;
		if (o->flags & ~(uint64_t)GEM_EO_KNOWN)
			goto out;
		if (o->alignment && (o->alignment & (o->alignment - 1)))
			goto out;
		/* A softpin address is page aligned and in canonical form. */
		if ((o->flags & GEM_EO_PINNED) &&
		    o->offset != i915_vm_canonical(o->offset & ~(uint64_t)(TTM_PAGE_SIZE - 1)))
			goto out;
		/* A fixed address must meet the alignment asked for (i915_vma_insert). */
		if ((o->flags & GEM_EO_PINNED) && o->alignment &&
		    (i915_vm_noncanonical(o->offset) & (o->alignment - 1)))
			goto out;
		if ((o->flags & GEM_EO_PAD_TO_SIZE) ? (o->pad_to_size & (TTM_PAGE_SIZE - 1))
						    : o->pad_to_size)
			goto out;
		for (uint32_t j = 0; j < i; j++)
			if (e.objs[j] == e.objs[i])
				goto out; /* the same object twice */
		if (e.objs[i]->madv != I915_MADV_WILLNEED) {
			ret = -EFAULT; /* a purgeable object has no pages to give */
			goto out;
		}
		eo->obj = e.objs[i]->bo;
		eo->offset = o->offset;
		if (o->flags & GEM_EO_WRITE)
			eo->flags |= EXEC_OBJECT_WRITE;
		if (o->flags & GEM_EO_PINNED)
			eo->flags |= EXEC_OBJECT_PINNED;
		if (o->flags & GEM_EO_48B)
			eo->flags |= EXEC_OBJECT_SUPPORTS_48B_ADDRESS;
		if ((o->flags & GEM_EO_NEEDS_GTT) && file->dev->info->has_aperture)
			eo->flags |= EXEC_OBJECT_NEEDS_MAPPABLE;
	}
	batch = (args->flags & I915_EXEC_BATCH_FIRST) ? 0 : n - 1;
	ret = -EINVAL;
	if (e.uobjs[batch].flags & GEM_EO_WRITE)
		goto out; /* self-modifying batch */
	if (args->batch_start_offset > e.objs[batch]->size ||
	    args->batch_len > e.objs[batch]->size - args->batch_start_offset ||
	    args->batch_start_offset == e.objs[batch]->size)
		goto out;
	ret = gem_eb_pinned_overlap(&e);
	if (ret)
		goto out;
	ret = gem_eb_relocs(file, &e, args->flags);
	if (ret)
		goto out;
	/* Streamout offsets are reset on gen7 render rings only; these parts are gen12. */
	ret = -EINVAL;
	if (args->flags & I915_EXEC_GEN7_SOL_RESET)
		goto out;
	e.eb.batch_start_offset = args->batch_start_offset;
	e.eb.batch_len = args->batch_len;
	e.eb.flags = (uint32_t)(args->flags & (I915_EXEC_NO_RELOC | I915_EXEC_HANDLE_LUT |
					       I915_EXEC_BATCH_FIRST));
	e.eb.engine = i915_engine_get(file->dev->i915, engine);
	e.eb.ctx = e.hw;
	ret = gem_eb_pending(file, (uint32_t)args->rsvd1, &e, &fences, in,
			     e.eb.engine->fence_context, &deps, &ndeps);
	if (ret)
		goto out;
	if (deps) {
		/* Something it must follow has not happened: queue it, as the kernel does. */
		ret = gem_eb_queue(file, (uint32_t)args->rsvd1, &e, deps, ndeps, e.eb.engine->class,
				   &fence);
		if (ret) {
			for (unsigned int i = 0; i < ndeps; i++)
				dma_fence_put(deps[i]);
			free(deps);
			goto out;
		}
	} else {
		ret = i915_gem_execbuffer(file->dev->i915, &e.eb);
		if (ret)
			goto out;
		fence = e.eb.out_fence;
	}
	gem_eb_signal(&fences, fence);
	if (args->flags & GEM_EXEC_FENCE_OUT) {
		/* The batch runs whatever happens here, as after the kernel's submit. */
		ret = drm_sync_file_create(fence, O_CLOEXEC, &out_fd);
		if (!ret)
			args->rsvd2 = (args->rsvd2 & 0xffffffffull) | ((uint64_t)out_fd << 32);
	}
	/* Remembered for THROTTLE; the oldest slot makes room. */
	pthread_mutex_lock(&file->lock);
	dma_fence_put(file->recent[file->recent_next]);
	file->recent[file->recent_next] = fence;
	file->recent_ns[file->recent_next] = dma_fence_now_ns();
	file->recent_next = (file->recent_next + 1) % GEM_THROTTLE_SLOTS;
	pthread_mutex_unlock(&file->lock);
	/* Offsets are known now only for a batch that was submitted now. */
	for (uint32_t i = 0; !deps && i < n; i++) {
		uint64_t off = e.eb.objects[i].offset;

		if (off == e.uobjs[i].offset)
			continue;
		if (gem_copy_to_user(args->buffers_ptr + (uint64_t)i * sizeof(*e.uobjs) +
					 offsetof(struct drm_i915_gem_exec_object2, offset),
				     &off, sizeof(off)))
			break;
	}
	if (!deps)
		gem_eb_write_back(&e);
out:
	gem_eb_fences_fini(&fences);
	dma_fence_put(in);
	gem_eb_fini(&e);
	return ret;
}
