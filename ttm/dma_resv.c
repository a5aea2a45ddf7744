// SPDX-License-Identifier: MIT
/* Reservation objects; see ttm/dma_resv.h. */
#include <ttm/dma_resv.h>
#include <ttm/ttm_faults.h>

#include <errno.h>
#include <stdlib.h>

DEFINE_WD_CLASS(reservation_ww_class);

void dma_resv_init(struct dma_resv *obj)
{
	ww_mutex_init(&obj->lock, &reservation_ww_class);
	ttm_lock_init(&obj->fences_lock);
	obj->fences = NULL;
	obj->usages = NULL;
	obj->num_fences = 0;
	obj->max_fences = 0;
}

void dma_resv_fini(struct dma_resv *obj)
{
	for (unsigned i = 0; i < obj->num_fences; i++)
		dma_fence_put(obj->fences[i]);
	if (obj->fences != obj->inline_fences)
		free(obj->fences);
	obj->fences = NULL;
	obj->usages = NULL;
	obj->num_fences = obj->max_fences = 0;
	ww_mutex_destroy(&obj->lock);
}

int dma_resv_reserve_fences(struct dma_resv *obj, unsigned num)
{
	struct dma_fence **nf;
	uint8_t *nu;
	unsigned want;

	if (obj->num_fences + num <= obj->max_fences)
		return 0;
	want = obj->num_fences + num;
	if (want < 4)
		want = 4;
	if (want < obj->max_fences * 2)
		want = obj->max_fences * 2;
	/*
	 * The first slots are the object's own (the fault point still
	 * decides, as for the kernel's first allocation).
	 */
	if (!obj->fences && want <= DMA_RESV_INLINE_FENCES) {
		if (fault_should_fail(&ttm_fault_resv_reserve, want * sizeof(*nf)))
			return -ENOMEM;
		ttm_lock(&obj->fences_lock);
		obj->fences = obj->inline_fences;
		obj->usages = obj->inline_usages;
		obj->max_fences = DMA_RESV_INLINE_FENCES;
		ttm_unlock(&obj->fences_lock);
		return 0;
	}
	/* One block, pointers then usages, as the kernel's one dma_resv_list. */
	nf = fault_should_fail(&ttm_fault_resv_reserve, want * sizeof(*nf))
		 ? NULL
		 : malloc(want * (sizeof(*nf) + sizeof(*nu)));
	if (!nf)
		return -ENOMEM;
	nu = (uint8_t *)(nf + want);
	ttm_lock(&obj->fences_lock);
	for (unsigned i = 0; i < obj->num_fences; i++) {
		nf[i] = obj->fences[i];
		nu[i] = obj->usages[i];
	}
	if (obj->fences != obj->inline_fences)
		free(obj->fences);
	obj->fences = nf;
	obj->usages = nu;
	obj->max_fences = want;
	ttm_unlock(&obj->fences_lock);
	return 0;
}

int dma_resv_add_fence(struct dma_resv *obj, struct dma_fence *fence, enum dma_resv_usage usage)
{
	unsigned i;

	if (!fence || usage > DMA_RESV_USAGE_BOOKKEEP)
		return -EINVAL;
	for (i = 0; i < obj->num_fences; i++) {
		struct dma_fence *old = obj->fences[i];

		if ((old->context == fence->context && obj->usages[i] >= usage &&
		     dma_fence_is_later_or_same(fence, old)) ||
		    dma_fence_test_signaled_flag(old))
			break;
	}
	if (i == obj->num_fences && obj->num_fences == obj->max_fences)
		return -ENOSPC;
	dma_fence_get(fence);
	ttm_lock(&obj->fences_lock);
	if (i < obj->num_fences) {
		struct dma_fence *old = obj->fences[i];

		obj->fences[i] = fence;
		obj->usages[i] = (uint8_t)usage;
		ttm_unlock(&obj->fences_lock);
		dma_fence_put(old);
		return 0;
	}
	obj->fences[obj->num_fences] = fence;
	obj->usages[obj->num_fences] = (uint8_t)usage;
	obj->num_fences++;
	ttm_unlock(&obj->fences_lock);
	return 0;
}

void dma_resv_prune(struct dma_resv *obj)
{
	struct dma_fence *dead[16];
	unsigned ndead;

	do {
		unsigned j = 0;

		ndead = 0;
		ttm_lock(&obj->fences_lock);
		for (unsigned i = 0; i < obj->num_fences; i++) {
			if (ndead < 16 && dma_fence_test_signaled_flag(obj->fences[i])) {
				dead[ndead++] = obj->fences[i];
				continue;
			}
			obj->fences[j] = obj->fences[i];
			obj->usages[j] = obj->usages[i];
			j++;
		}
		obj->num_fences = j;
		ttm_unlock(&obj->fences_lock);
		for (unsigned i = 0; i < ndead; i++)
			dma_fence_put(dead[i]);
	} while (ndead == 16);
}

int dma_resv_get_fences(struct dma_resv *obj, enum dma_resv_usage usage, unsigned *num,
			struct dma_fence ***fences)
{
	struct dma_fence **out = NULL;
	unsigned n = 0, cap;

	ttm_lock(&obj->fences_lock);
	cap = obj->num_fences;
	if (cap) {
		out = fault_should_fail(&ttm_fault_resv_reserve, cap * sizeof(*out))
			  ? NULL
			  : malloc(cap * sizeof(*out));
		if (!out) {
			ttm_unlock(&obj->fences_lock);
			return -ENOMEM;
		}
	}
	for (unsigned i = 0; i < obj->num_fences; i++)
		if (obj->usages[i] <= usage)
			out[n++] = dma_fence_get(obj->fences[i]);
	ttm_unlock(&obj->fences_lock);
	if (!n) {
		free(out);
		out = NULL;
	}
	*num = n;
	*fences = out;
	return 0;
}

void dma_resv_put_fences(struct dma_fence **fences, unsigned num)
{
	for (unsigned i = 0; i < num; i++)
		dma_fence_put(fences[i]);
	free(fences);
}

bool dma_resv_test_signaled(struct dma_resv *obj, enum dma_resv_usage usage)
{
	unsigned i;

	/*
	 * Walk in order and stop at the first fence of @usage that is still
	 * pending, as the kernel's unlocked iterator does: no snapshot. A
	 * fence whose bit is clear is pending when its class has no poll;
	 * otherwise it gets one poll (outside our lock, on a reference of
	 * its own, as the poll may signal it); when that signals it, the walk
	 * starts over, since the array may have been compacted meanwhile
	 * (the fences already passed are skipped on their bit alone), as the
	 * kernel's iterator restarts when the fences changed under it.
	 */
	ttm_lock(&obj->fences_lock);
restart:
	for (i = 0; i < obj->num_fences; i++) {
		struct dma_fence *f = obj->fences[i];
		bool done;

		if (obj->usages[i] > usage || dma_fence_test_signaled_flag(f))
			continue;
		/* No poll of its own: the bit is the whole answer, no reference needed. */
		if (!f->ops || !f->ops->signaled) {
			ttm_unlock(&obj->fences_lock);
			return false;
		}
		dma_fence_get(f);
		ttm_unlock(&obj->fences_lock);
		done = dma_fence_is_signaled(f);
		dma_fence_put(f);
		if (!done)
			return false;
		ttm_lock(&obj->fences_lock);
		goto restart;
	}
	ttm_unlock(&obj->fences_lock);
	return true;
}

int64_t dma_resv_wait_timeout(struct dma_resv *obj, enum dma_resv_usage usage, bool intr,
			      int64_t timeout_ns)
{
	struct dma_fence **f;
	int64_t left = timeout_ns, ret;
	unsigned n;

	ret = dma_resv_get_fences(obj, usage, &n, &f);
	if (ret)
		return ret;
	ret = timeout_ns ? timeout_ns : 1;
	for (unsigned i = 0; i < n; i++) {
		ret = dma_fence_wait_timeout(f[i], intr, left);
		if (ret <= 0)
			break;
		if (left != MAX_SCHEDULE_TIMEOUT && timeout_ns)
			left = ret;
	}
	dma_resv_put_fences(f, n);
	return ret;
}

unsigned dma_resv_count_pending(struct dma_resv *obj)
{
	unsigned n = 0;

	ttm_lock(&obj->fences_lock);
	for (unsigned i = 0; i < obj->num_fences; i++)
		n += !dma_fence_test_signaled_flag(obj->fences[i]);
	ttm_unlock(&obj->fences_lock);
	return n;
}
