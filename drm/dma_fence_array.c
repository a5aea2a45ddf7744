// SPDX-License-Identifier: MIT
/*
 * Fence arrays and the unwrap-merge of sync_file merges and syncobj
 * transfers; see drmcore/dma_fence_array.h.
 *
 * An array arms callbacks on its components only once somebody waits or
 * arms a callback on it (ops->enable_signaling); each armed callback holds
 * a reference on the array, so the array cannot go while a component may
 * still call into it.
 */
#include <drmcore/dma_fence_array.h>
#include <drmcore/drm_faults.h>

#include <ttm/dma_fence_chain.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *array_name(struct dma_fence *fence)
{
	(void)fence;
	return "unbound";
}

static const char *array_driver(struct dma_fence *fence)
{
	(void)fence;
	return "dma_fence_array";
}

static void array_set_error(struct dma_fence_array *a)
{
	for (unsigned i = 0; i < a->num_fences; i++) {
		int st = dma_fence_get_status(a->fences[i]);

		if (st < 0) {
			dma_fence_set_error(&a->base, st);
			return;
		}
	}
}

/* The callbacks live in @cbs; each knows its array through this slot. */
struct array_cb_slot {
	struct dma_fence_cb cb;
	struct dma_fence_array *array;
};

static void component_signalled(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct array_cb_slot *slot = (struct array_cb_slot *)cb;
	struct dma_fence_array *a = slot->array;

	(void)f;
	if (atomic_fetch_sub(&a->pending, 1) == 1) {
		array_set_error(a);
		dma_fence_signal(&a->base);
	}
	/* The caller of dma_fence_signal(f) holds f, so this never frees f. */
	dma_fence_put(&a->base);
}

static bool array_enable_signaling(struct dma_fence *fence)
{
	struct dma_fence_array *a = to_dma_fence_array(fence);
	struct array_cb_slot *slots = (struct array_cb_slot *)a->cbs;

	for (unsigned i = 0; i < a->num_fences; i++) {
		slots[i].array = a;
		dma_fence_get(&a->base);
		if (dma_fence_add_callback(a->fences[i], &slots[i].cb, component_signalled)) {
			/* Already signalled: the caller holds @fence, never the last put. */
			dma_fence_put(&a->base);
			if (atomic_fetch_sub(&a->pending, 1) == 1) {
				array_set_error(a);
				return false;
			}
		}
	}
	return true;
}

static bool array_signaled(struct dma_fence *fence)
{
	struct dma_fence_array *a = to_dma_fence_array(fence);

	for (unsigned i = 0; i < a->num_fences; i++)
		if (!dma_fence_is_signaled(a->fences[i]))
			return false;
	array_set_error(a);
	return true;
}

static void array_release(struct dma_fence *fence)
{
	struct dma_fence_array *a = to_dma_fence_array(fence);

	for (unsigned i = 0; i < a->num_fences; i++)
		dma_fence_put(a->fences[i]);
	free(a->fences);
	free(a->cbs);
	free(a);
}

static const struct dma_fence_ops array_ops = {
    .get_driver_name = array_driver,
    .get_timeline_name = array_name,
    .enable_signaling = array_enable_signaling,
    .signaled = array_signaled,
    .release = array_release,
};

struct dma_fence_array *to_dma_fence_array(struct dma_fence *fence)
{
	if (!fence || fence->ops != &array_ops)
		return NULL;
	return (struct dma_fence_array *)fence;
}

struct dma_fence *dma_fence_array_create(unsigned num, struct dma_fence **fences)
{
	struct dma_fence_array *a;

	if (!num || fault_should_fail(&drm_fault_fence_array_alloc, sizeof(*a)))
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->cbs = calloc(num, sizeof(struct array_cb_slot));
	if (!a->cbs) {
		free(a);
		return NULL;
	}
	a->num_fences = num;
	a->fences = fences;
	atomic_init(&a->pending, (int)num);
	dma_fence_init(&a->base, &array_ops, dma_fence_context_alloc(1), 1);
	return &a->base;
}

/* Growable list of references. */
struct fence_list {
	struct dma_fence **v;
	int n, cap;
};

static int list_add_ref(struct fence_list *l, struct dma_fence *f)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		void *v;

		if (fault_should_fail(&drm_fault_fence_array_alloc, cap * sizeof(*l->v)))
			return -ENOMEM;
		v = realloc(l->v, cap * sizeof(*l->v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = dma_fence_get(f);
	return 0;
}

/* Flatten chains (each link's payload) and arrays into @l. */
static int unwrap_into(struct fence_list *l, struct dma_fence *f)
{
	struct dma_fence_chain *c;
	struct dma_fence_array *a;
	int ret;

	if ((c = to_dma_fence_chain(f))) {
		/* Links stay alive while the head holds them (prev references). */
		for (; c; c = to_dma_fence_chain(c->prev)) {
			ret = unwrap_into(l, c->fence);
			if (ret)
				return ret;
			if (c->prev && !to_dma_fence_chain(c->prev)) {
				ret = unwrap_into(l, c->prev);
				if (ret)
					return ret;
			}
		}
		return 0;
	}
	if ((a = to_dma_fence_array(f))) {
		for (unsigned i = 0; i < a->num_fences; i++) {
			ret = unwrap_into(l, a->fences[i]);
			if (ret)
				return ret;
		}
		return 0;
	}
	return list_add_ref(l, f);
}

void dma_fence_unwrap_put(struct dma_fence **fences, int num)
{
	for (int i = 0; i < num; i++)
		dma_fence_put(fences[i]);
	free(fences);
}

int dma_fence_unwrap(struct dma_fence *fence, struct dma_fence ***out)
{
	struct fence_list l = {0};
	int ret = unwrap_into(&l, fence);

	if (ret) {
		dma_fence_unwrap_put(l.v, l.n);
		return ret;
	}
	*out = l.v;
	return l.n;
}

static int cmp_context(const void *pa, const void *pb)
{
	const struct dma_fence *a = *(struct dma_fence *const *)pa;
	const struct dma_fence *b = *(struct dma_fence *const *)pb;

	if (a->context != b->context)
		return a->context < b->context ? -1 : 1;
	/* Later seqno first, so the dedup keeps the first of each context. */
	if (a->seqno != b->seqno)
		return __dma_fence_is_later(a->seqno, b->seqno) ? -1 : 1;
	return 0;
}

struct dma_fence *dma_fence_unwrap_merge(struct dma_fence **fences, unsigned num)
{
	struct fence_list l = {0};
	struct dma_fence *res;
	int64_t stamp = 0;
	int n = 0;

	for (unsigned i = 0; i < num; i++) {
		if (unwrap_into(&l, fences[i])) {
			dma_fence_unwrap_put(l.v, l.n);
			return NULL;
		}
	}
	/* Drop signalled fences (a stub carries the latest timestamp), keep the
	 * latest of each context. */
	for (int i = 0; i < l.n; i++) {
		int64_t t;

		if (dma_fence_is_signaled(l.v[i])) {
			if (!dma_fence_get_timestamp(l.v[i], &t) && t > stamp)
				stamp = t;
			dma_fence_put(l.v[i]);
			continue;
		}
		l.v[n++] = l.v[i];
	}
	l.n = n;
	if (n > 1) {
		qsort(l.v, n, sizeof(*l.v), cmp_context);
		n = 1;
		for (int i = 1; i < l.n; i++) {
			if (l.v[i]->context == l.v[n - 1]->context) {
				dma_fence_put(l.v[i]);
				continue;
			}
			l.v[n++] = l.v[i];
		}
		l.n = n;
	}
	if (l.n == 0) {
		free(l.v);
		return dma_fence_allocate_private_stub(stamp ? stamp : dma_fence_now_ns());
	}
	if (l.n == 1) {
		res = l.v[0];
		free(l.v);
		return res;
	}
	res = dma_fence_array_create(l.n, l.v);
	if (!res)
		dma_fence_unwrap_put(l.v, l.n);
	return res;
}
