// SPDX-License-Identifier: MIT
/*
 * gem_context: GEM contexts and VMs of a file (gem/i915_gem_context.c),
 * GET_RESET_STATS, QUERY (i915_query.c) and REG_READ (intel_uncore.c's
 * whitelist).
 *
 * Contexts behave as gen12's do in the kernel: CONTEXT_CREATE makes a
 * "proto" context whose VM and engine map may still be set with
 * CONTEXT_SETPARAM; its first real use (execbuffer, GETPARAM) finalizes
 * it, after which those two are -EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gem_priv.h"

const struct gem_uabi_engine *gem_engine_lookup(const struct i915_gem_dev *dev, uint16_t class,
						uint16_t instance)
{
	for (unsigned int e = 0; e < dev->num_engines; e++)
		if (dev->engines[e].class == class && dev->engines[e].instance == instance)
			return &dev->engines[e];
	return NULL;
}

uint32_t gem_engines_of_class(const struct i915_gem_dev *dev, uint16_t class)
{
	uint32_t n = 0;

	for (unsigned int e = 0; e < dev->num_engines; e++)
		n += dev->engines[e].class == class;
	return n;
}

struct gem_ctx_full {
	struct gem_ctx pub;
	bool finalized;
};

static void gem_ctx_free(struct gem_ctx_full *c)
{
	dma_fence_put(c->pub.pending);
	i915_context_put(c->pub.hw);
	free(c);
}

/*
 * A new context with its own full ppGTT, as gen12 contexts get in the
 * kernel (CONTEXT_PARAM_VM may replace it while the context is a proto one).
 */
static int gem_ctx_new(struct i915_gem_file *file, struct gem_ctx_full **out)
{
	struct gem_ctx_full *c;
	struct i915_address_space *vm;
	int ret;

	c = fault_should_fail(&gem_fault_ctx_alloc, sizeof(*c)) ? NULL : calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = i915_context_create(file->dev->i915, &c->pub.hw);
	if (ret) {
		free(c);
		return ret;
	}
	ret = i915_vm_create(file->dev->i915, &vm);
	if (!ret) {
		ret = i915_context_set_vm(c->pub.hw, vm);
		i915_vm_put(vm);
	}
	if (ret) {
		i915_context_put(c->pub.hw);
		free(c);
		return ret;
	}
	c->pub.bannable = true;
	c->pub.recoverable = true;
	c->pub.persistent = true;
	*out = c;
	return 0;
}

int gem_context_open(struct i915_gem_file *file)
{
	struct gem_ctx_full *c;
	int ret = gem_ctx_new(file, &c);

	if (ret)
		return ret;
	c->finalized = true;
	ret = ttm_drm_idr_insert(&file->contexts, 0, c);
	if (ret)
		gem_ctx_free(c);
	return ret;
}

void gem_context_close_all(struct i915_gem_file *file)
{
	uint32_t id = 0;
	void *p;

	pthread_mutex_lock(&file->lock);
	while ((p = ttm_drm_idr_next(&file->contexts, &id))) {
		ttm_drm_idr_remove(&file->contexts, id);
		gem_ctx_free(p);
	}
	id = 0;
	while ((p = ttm_drm_idr_next(&file->vms, &id))) {
		ttm_drm_idr_remove(&file->vms, id);
		i915_vm_put(p);
	}
	pthread_mutex_unlock(&file->lock);
}

struct i915_context *gem_context_lookup(struct i915_gem_file *file, uint32_t id,
					struct gem_ctx *snapshot)
{
	struct gem_ctx_full *c;
	struct i915_context *hw = NULL;

	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_find(&file->contexts, id);
	if (c) {
		c->finalized = true;
		hw = i915_context_get(c->pub.hw);
		if (snapshot)
			*snapshot = c->pub;
	}
	pthread_mutex_unlock(&file->lock);
	return hw;
}

void gem_context_set_pending(struct i915_gem_file *file, uint32_t id, struct dma_fence *fence)
{
	struct gem_ctx_full *c;
	struct dma_fence *old = NULL;

	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_find(&file->contexts, id);
	if (c) {
		old = c->pub.pending;
		c->pub.pending = dma_fence_get(fence);
	}
	pthread_mutex_unlock(&file->lock);
	dma_fence_put(old);
}

struct dma_fence *gem_context_pending_get(struct i915_gem_file *file, uint32_t id)
{
	struct gem_ctx_full *c;
	struct dma_fence *f = NULL;

	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_find(&file->contexts, id);
	if (c && c->pub.pending && !dma_fence_test_signaled_flag(c->pub.pending))
		f = dma_fence_get(c->pub.pending);
	pthread_mutex_unlock(&file->lock);
	return f;
}

/* --- parameters --- */

/* The engine map being built by CONTEXT_PARAM_ENGINES and its extensions. */
struct gem_engines_set {
	struct i915_gem_dev *dev;
	uint32_t n;
	uint16_t map[I915_EXEC_RING_MASK + 1];
};

/* The present engine the user names at @uptr, as a mask (0: no such engine). */
static int gem_engine_from_user(struct i915_gem_dev *dev, uint64_t uptr, uint16_t *mask)
{
	struct i915_engine_class_instance ci;
	const struct gem_uabi_engine *ue;

	if (gem_copy_from_user(&ci, uptr, sizeof(ci)))
		return -EFAULT;
	ue = gem_engine_lookup(dev, ci.engine_class, ci.engine_instance);
	*mask = ue ? (uint16_t)(1u << ue->id) : 0;
	return 0;
}

/* The @n engines the user lists at @uptr, as one mask: -EINVAL for one the part lacks. */
static int gem_engine_list_from_user(struct i915_gem_dev *dev, uint64_t uptr, uint32_t n,
				     uint16_t *mask)
{
	uint16_t one;
	int ret;

	*mask = 0;
	for (uint32_t i = 0; i < n; i++) {
		ret = gem_engine_from_user(
		    dev, uptr + i * sizeof(struct i915_engine_class_instance), &one);
		if (ret)
			return ret;
		if (!one)
			return -EINVAL;
		*mask |= one;
	}
	return 0;
}

/*
 * I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE: an empty slot becomes a virtual
 * engine over its siblings (one sibling: that physical engine), with the
 * kernel's checks in its order (set_proto_ctx_engines_balance()).
 */
static int gem_engines_ext_balance(uint64_t base, void *data)
{
	struct gem_engines_set *set = data;
	struct i915_context_engines_load_balance ext;
	uint16_t mask;
	int ret;

	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	if (ext.engine_index >= set->n)
		return -EINVAL;
	if (set->map[ext.engine_index])
		return -EEXIST;
	if (ext.flags || ext.mbz64)
		return -EINVAL;
	ret = gem_engine_list_from_user(set->dev, base + sizeof(ext), ext.num_siblings, &mask);
	if (!ret)
		set->map[ext.engine_index] = mask;
	return ret;
}

/*
 * I915_CONTEXT_ENGINES_EXT_BOND: checked as the kernel checks it, then
 * without effect, as there (execlists no longer pair submissions); gen12
 * parts after Tiger Lake refuse it (set_proto_ctx_engines_bond()).
 */
static int gem_engines_ext_bond(uint64_t base, void *data)
{
	struct gem_engines_set *set = data;
	struct i915_context_engines_bond ext;
	uint16_t mask, slot;
	int ret;

	if (set->dev->info->graphics_ver_full > 1200)
		return -ENODEV;
	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	if (ext.virtual_index >= set->n)
		return -EINVAL;
	/* Only a physical slot (one engine) may be bonded. */
	slot = set->map[ext.virtual_index];
	if (!slot || (slot & (slot - 1)))
		return -EINVAL;
	if (ext.flags)
		return -EINVAL;
	for (unsigned int i = 0; i < sizeof(ext.mbz64) / sizeof(ext.mbz64[0]); i++)
		if (ext.mbz64[i])
			return -EINVAL;
	/* The master, then the engines bonded to it: each must exist. */
	ret = gem_engine_list_from_user(
	    set->dev, base + offsetof(struct i915_context_engines_bond, master), 1, &mask);
	if (!ret)
		ret = gem_engine_list_from_user(set->dev, base + sizeof(ext), ext.num_bonds, &mask);
	return ret;
}

/*
 * I915_CONTEXT_ENGINES_EXT_PARALLEL_SUBMIT needs GuC submission: without
 * it the kernel takes one sibling per slot only (-EINVAL otherwise), and
 * the execlists back end has no parallel engine to build (-ENODEV).
 */
static int gem_engines_ext_parallel(uint64_t base, void *data)
{
	struct i915_context_engines_parallel_submit ext;

	(void)data;
	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	if (ext.num_siblings != 1)
		return -EINVAL;
	return -ENODEV;
}

static int gem_ctx_set_engines(struct i915_gem_file *file, struct gem_ctx *ctx,
			       const struct drm_i915_gem_context_param *args)
{
	static const gem_ext_fn tbl[] = {
	    [I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE] = gem_engines_ext_balance,
	    [I915_CONTEXT_ENGINES_EXT_BOND] = gem_engines_ext_bond,
	    [I915_CONTEXT_ENGINES_EXT_PARALLEL_SUBMIT] = gem_engines_ext_parallel,
	};
	struct gem_engines_set set = {.dev = file->dev};
	uint64_t ext;
	int ret;

	if (!args->size) {
		ctx->nengines = 0;
		return 0;
	}
	if (args->size < sizeof(uint64_t) || (args->size - sizeof(uint64_t)) % 4)
		return -EINVAL;
	set.n = (args->size - sizeof(uint64_t)) / 4;
	if (set.n > I915_EXEC_RING_MASK + 1)
		return -EINVAL;
	for (uint32_t i = 0; i < set.n; i++) {
		uint64_t at = args->value + sizeof(uint64_t) + 4ull * i;
		struct i915_engine_class_instance ci;

		if (gem_copy_from_user(&ci, at, sizeof(ci)))
			return -EFAULT;
		if (ci.engine_class == (uint16_t)I915_ENGINE_CLASS_INVALID &&
		    ci.engine_instance == (uint16_t)I915_ENGINE_CLASS_INVALID_NONE)
			continue;
		ret = gem_engine_from_user(file->dev, at, &set.map[i]);
		if (ret)
			return ret;
		if (!set.map[i])
			return -ENOENT;
	}
	if (gem_copy_from_user(&ext, args->value, sizeof(ext)))
		return -EFAULT;
	ret = gem_user_extensions(ext, tbl, sizeof(tbl) / sizeof(tbl[0]), &set);
	if (ret)
		return ret;
	memcpy(ctx->engines, set.map, set.n * sizeof(set.map[0]));
	memset(ctx->engine_last, 0, sizeof(ctx->engine_last));
	ctx->nengines = set.n;
	return 0;
}

/* Requests not yet retired on engine @id: how busy it is. */
static unsigned int gem_engine_queued(struct i915_device *i915, unsigned int id)
{
	struct i915_engine *e = &i915->engine[id];
	struct list_head *pos;
	unsigned int n = 0;

	pthread_mutex_lock(&e->lock);
	for (pos = e->requests.next; pos != &e->requests; pos = pos->next)
		n++;
	pthread_mutex_unlock(&e->lock);
	return n;
}

int gem_context_slot_engine(struct i915_gem_file *file, uint32_t ctx_id, uint32_t idx,
			    enum i915_engine_id *id)
{
	struct i915_device *i915 = file->dev->i915;
	struct gem_ctx_full *c;
	unsigned int best_n = ~0u, last;
	uint16_t mask = 0;
	int ret = 0;

	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_find(&file->contexts, ctx_id);
	if (c && idx < c->pub.nengines)
		mask = c->pub.engines[idx];
	if (!c) {
		ret = -ENOENT;
	} else if (!mask) {
		ret = -EINVAL;
	} else if (!(mask & (mask - 1))) {
		*id = (enum i915_engine_id)__builtin_ctz(mask);
	} else if ((mask & (1u << (last = c->pub.engine_last[idx]))) &&
		   gem_engine_queued(i915, last)) {
		/* The slot's earlier batches may still run there: stay behind them. */
		*id = (enum i915_engine_id)last;
	} else {
		for (unsigned int e = 0; e < I915_NUM_ENGINES; e++) {
			unsigned int n;

			if (!(mask & (1u << e)))
				continue;
			n = gem_engine_queued(i915, e);
			if (n < best_n) {
				best_n = n;
				*id = (enum i915_engine_id)e;
			}
		}
		c->pub.engine_last[idx] = (uint8_t)*id;
	}
	pthread_mutex_unlock(&file->lock);
	return ret;
}

/*
 * One parameter on a context: @proto says whether VM and ENGINES may still
 * be set (create-time or a gen12 proto context).
 */
static int gem_ctx_set_param(struct i915_gem_file *file, struct gem_ctx *ctx, bool proto,
			     const struct drm_i915_gem_context_param *args)
{
	bool root = gem_caller_is_root();
	struct i915_address_space *vm;

	switch (args->param) {
	case I915_CONTEXT_PARAM_NO_ERROR_CAPTURE:
		return args->size ? -EINVAL : 0;
	case I915_CONTEXT_PARAM_BANNABLE:
		if (args->size)
			return -EINVAL;
		if (!root && !args->value)
			return -EPERM;
		ctx->bannable = args->value != 0;
		return 0;
	case I915_CONTEXT_PARAM_RECOVERABLE:
		if (args->size)
			return -EINVAL;
		ctx->recoverable = args->value != 0;
		return 0;
	case I915_CONTEXT_PARAM_PRIORITY:
		if (args->size)
			return -EINVAL;
		if (!(GEM_SCHEDULER_CAPS & I915_SCHEDULER_CAP_PRIORITY))
			return -ENODEV;
		if ((int64_t)args->value > I915_CONTEXT_MAX_USER_PRIORITY ||
		    (int64_t)args->value < I915_CONTEXT_MIN_USER_PRIORITY)
			return -EINVAL;
		/* Above the default needs CAP_SYS_NICE (root here). */
		if ((int64_t)args->value > I915_CONTEXT_DEFAULT_PRIORITY && !root)
			return -EPERM;
		ctx->priority = (int64_t)args->value;
		return 0;
	case I915_CONTEXT_PARAM_SSEU:
		if (args->size < sizeof(struct drm_i915_gem_context_param_sseu))
			return -EINVAL;
		/* Reconfiguring slices is a render-engine feature of gen11 only. */
		return -ENODEV;
	case I915_CONTEXT_PARAM_PERSISTENCE:
		if (args->size)
			return -EINVAL;
		ctx->persistent = args->value != 0;
		return 0;
	case I915_CONTEXT_PARAM_PROTECTED_CONTENT:
		return proto ? -ENODEV : -EINVAL;
	case I915_CONTEXT_PARAM_VM:
		if (!proto)
			return -EINVAL;
		if (args->size)
			return -EINVAL;
		vm = args->value >> 32 ? NULL : ttm_drm_idr_find(&file->vms, (uint32_t)args->value);
		if (!vm)
			return -ENOENT;
		return i915_context_set_vm(ctx->hw, vm);
	case I915_CONTEXT_PARAM_ENGINES:
		if (!proto)
			return -EINVAL;
		return gem_ctx_set_engines(file, ctx, args);
	}
	return -EINVAL;
}

struct gem_create_data {
	struct i915_gem_file *file;
	struct gem_ctx *ctx;
};

static int gem_ctx_ext_setparam(uint64_t base, void *data)
{
	struct drm_i915_gem_context_create_ext_setparam ext;
	struct gem_create_data *d = data;
	int ret;

	if (gem_copy_from_user(&ext, base, sizeof(ext)))
		return -EFAULT;
	if (ext.param.ctx_id)
		return -EINVAL;
	pthread_mutex_lock(&d->file->lock);
	ret = gem_ctx_set_param(d->file, d->ctx, true, &ext.param);
	pthread_mutex_unlock(&d->file->lock);
	return ret;
}

static int gem_ctx_ext_clone(uint64_t base, void *data)
{
	(void)base;
	(void)data;
	return -EINVAL; /* removed from the uAPI */
}

int gem_context_create_ioctl(struct i915_gem_file *file, void *data)
{
	static const gem_ext_fn tbl[] = {
	    [I915_CONTEXT_CREATE_EXT_SETPARAM] = gem_ctx_ext_setparam,
	    [I915_CONTEXT_CREATE_EXT_CLONE] = gem_ctx_ext_clone,
	};
	struct drm_i915_gem_context_create_ext *args = data;
	struct gem_ctx_full *c;
	struct gem_create_data d;
	int64_t id;
	int ret;

	if (args->flags & I915_CONTEXT_CREATE_FLAGS_UNKNOWN)
		return -EINVAL;
	if (file->dev->wedged)
		return -EIO;
	ret = gem_ctx_new(file, &c);
	if (ret)
		return ret;
	d.file = file;
	d.ctx = &c->pub;
	if (args->flags & I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS) {
		ret = gem_user_extensions(args->extensions, tbl, sizeof(tbl) / sizeof(tbl[0]), &d);
		if (ret) {
			gem_ctx_free(c);
			return ret;
		}
	}
	pthread_mutex_lock(&file->lock);
	id = ttm_drm_idr_alloc(&file->contexts, c, 1, INT32_MAX);
	pthread_mutex_unlock(&file->lock);
	if (id < 0) {
		gem_ctx_free(c);
		return (int)id;
	}
	args->ctx_id = (uint32_t)id;
	return 0;
}

int gem_context_destroy_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_context_destroy *args = data;
	struct gem_ctx_full *c;

	if (args->pad)
		return -EINVAL;
	if (!args->ctx_id)
		return -ENOENT;
	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_remove(&file->contexts, args->ctx_id);
	/* Its run time stays the file's (fdinfo), as the kernel's client past_runtime. */
	for (unsigned int e = 0; c && e < I915_NUM_ENGINES; e++) {
		struct i915_engine *engine = i915_engine_get(file->dev->i915, e);

		if (engine && engine->class <= I915_ENGINE_CLASS_COMPUTE)
			file->past_runtime[engine->class] += i915_context_runtime_ns(c->pub.hw, e);
	}
	pthread_mutex_unlock(&file->lock);
	if (!c)
		return -ENOENT;
	gem_ctx_free(c);
	return 0;
}

int gem_context_setparam_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_context_param *args = data;
	struct gem_ctx_full *c;
	int ret;

	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_find(&file->contexts, args->ctx_id);
	ret = c ? gem_ctx_set_param(file, &c->pub, !c->finalized, args) : -ENOENT;
	pthread_mutex_unlock(&file->lock);
	return ret;
}

/*
 * CONTEXT_GETPARAM SSEU (the kernel's get_sseu()): the slice configuration
 * of one engine of the context, named by class:instance on a legacy
 * context or by slot (ENGINE_INDEX) on one with an engine map. The render
 * engine runs with the whole part (one slice, every subslice, all EUs);
 * the other engines have no EUs of their own and report zeros.
 */
static int gem_ctx_get_sseu(struct i915_gem_dev *dev, const struct gem_ctx *ctx,
			    struct drm_i915_gem_context_param *args)
{
	struct drm_i915_gem_context_param_sseu u;
	const struct gem_uabi_engine *ue = NULL;
	bool by_index;

	if (!args->size)
		goto out;
	if (args->size < sizeof(u))
		return -EINVAL;
	if (gem_copy_from_user(&u, args->value, sizeof(u)))
		return -EFAULT;
	if (u.rsvd || (u.flags & ~(uint64_t)I915_CONTEXT_SSEU_FLAG_ENGINE_INDEX))
		return -EINVAL;
	by_index = (u.flags & I915_CONTEXT_SSEU_FLAG_ENGINE_INDEX) != 0;
	if (by_index != (ctx->nengines != 0))
		return -EINVAL;
	if (!by_index) {
		ue = gem_engine_lookup(dev, u.engine.engine_class, u.engine.engine_instance);
		if (!ue)
			return -EINVAL;
	} else if (u.engine.engine_instance >= ctx->nengines ||
		   !ctx->engines[u.engine.engine_instance]) {
		return -EINVAL;
	}
	memset(&u.slice_mask, 0,
	       sizeof(u) - offsetof(struct drm_i915_gem_context_param_sseu, slice_mask));
	/* A virtual slot has no render sibling: only a physical rcs has EUs. */
	if (by_index ? ctx->engines[u.engine.engine_instance] == 1u << I915_ENGINE_RCS
		     : ue->id == I915_ENGINE_RCS) {
		u.slice_mask = 1;
		u.subslice_mask = dev->info->subslice_total >= 64
				      ? ~0ull
				      : (1ull << dev->info->subslice_total) - 1;
		u.min_eus_per_subslice =
		    (uint16_t)(dev->info->eu_total / dev->info->subslice_total);
		u.max_eus_per_subslice = u.min_eus_per_subslice;
	}
	if (gem_copy_to_user(args->value, &u, sizeof(u)))
		return -EFAULT;
out:
	args->size = sizeof(u);
	return 0;
}

int gem_context_getparam_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_context_param *args = data;
	struct gem_ctx_full *c;
	struct i915_address_space *vm;
	int64_t id;
	int ret = 0;

	pthread_mutex_lock(&file->lock);
	c = ttm_drm_idr_find(&file->contexts, args->ctx_id);
	if (!c) {
		pthread_mutex_unlock(&file->lock);
		return -ENOENT;
	}
	c->finalized = true;
	switch (args->param) {
	case I915_CONTEXT_PARAM_GTT_SIZE:
		args->size = 0;
		vm = i915_context_get_vm(c->pub.hw);
		args->value = vm ? vm->total
				 : i915_ggtt_manager(&file->dev->i915->ggtt)->size
				       << TTM_PAGE_SHIFT;
		i915_vm_put(vm);
		break;
	case I915_CONTEXT_PARAM_NO_ERROR_CAPTURE:
		args->size = 0;
		args->value = 0;
		break;
	case I915_CONTEXT_PARAM_BANNABLE:
		args->size = 0;
		args->value = c->pub.bannable;
		break;
	case I915_CONTEXT_PARAM_RECOVERABLE:
		args->size = 0;
		args->value = c->pub.recoverable;
		break;
	case I915_CONTEXT_PARAM_PRIORITY:
		args->size = 0;
		args->value = (uint64_t)c->pub.priority;
		break;
	case I915_CONTEXT_PARAM_PERSISTENCE:
		args->size = 0;
		args->value = c->pub.persistent;
		break;
	case I915_CONTEXT_PARAM_VM:
		/* A new id of the file naming the context's VM. */
		vm = i915_context_get_vm(c->pub.hw);
		if (!vm) {
			ret = -ENODEV;
			break;
		}
		id = ttm_drm_idr_alloc(&file->vms, vm, 1, INT32_MAX);
		if (id < 0) {
			i915_vm_put(vm);
			ret = (int)id;
			break;
		}
		args->size = 0;
		args->value = (uint64_t)id;
		break;
	case I915_CONTEXT_PARAM_SSEU:
		ret = gem_ctx_get_sseu(file->dev, &c->pub, args);
		break;
	case I915_CONTEXT_PARAM_PROTECTED_CONTENT:
		ret = -ENODEV;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	pthread_mutex_unlock(&file->lock);
	return ret;
}

int gem_get_reset_stats_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_reset_stats *args = data;
	struct i915_context *hw;

	if (args->flags || args->pad)
		return -EINVAL;
	hw = gem_context_lookup(file, args->ctx_id, NULL);
	if (!hw)
		return -ENOENT;
	args->reset_count = 0;
	if (gem_caller_is_root())
		for (unsigned int e = 0; e < I915_NUM_ENGINES; e++)
			args->reset_count +=
			    (uint32_t)atomic_load(&file->dev->i915->engine[e].stats.resets);
	args->batch_active = atomic_load(&hw->guilty);
	args->batch_pending = 0;
	i915_context_put(hw);
	return 0;
}

int gem_vm_create_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_vm_control *args = data;
	struct i915_address_space *vm;
	int64_t id;
	int ret;

	if (args->flags)
		return -EINVAL;
	ret = i915_vm_create(file->dev->i915, &vm);
	if (ret)
		return ret == -EOPNOTSUPP ? -ENODEV : ret;
	ret = gem_user_extensions(args->extensions, NULL, 0, NULL);
	if (ret) {
		i915_vm_put(vm);
		return ret;
	}
	pthread_mutex_lock(&file->lock);
	id = ttm_drm_idr_alloc(&file->vms, vm, 1, INT32_MAX);
	pthread_mutex_unlock(&file->lock);
	if (id < 0) {
		i915_vm_put(vm);
		return (int)id;
	}
	args->vm_id = (uint32_t)id;
	return 0;
}

int gem_vm_destroy_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_gem_vm_control *args = data;
	struct i915_address_space *vm;

	if (args->flags || args->extensions)
		return -EINVAL;
	pthread_mutex_lock(&file->lock);
	vm = ttm_drm_idr_remove(&file->vms, args->vm_id);
	pthread_mutex_unlock(&file->lock);
	if (!vm)
		return -ENOENT;
	/* Contexts using it keep it alive. */
	i915_vm_put(vm);
	return 0;
}

/* --- QUERY --- */

/* The kernel's copy_query_item(): length 0 asks for the size. */
static int gem_query_hdr(void *hdr, size_t hdr_size, uint32_t total,
			 const struct drm_i915_query_item *item)
{
	if (!item->length)
		return (int)total;
	/* The kernel compares as unsigned: a negative length passes. */
	if ((uint32_t)item->length < total)
		return -EINVAL;
	if (gem_copy_from_user(hdr, item->data_ptr, hdr_size))
		return -EFAULT;
	return 0;
}

static int gem_query_topology(struct i915_gem_dev *dev, const struct drm_i915_query_item *item,
			      bool check_flags)
{
	const struct gem_profile_info *info = dev->info;
	struct drm_i915_query_topology_info topo;
	uint16_t nss = (uint16_t)info->subslice_total, neu = (uint16_t)(info->eu_total / nss);
	uint16_t ss_stride = (uint16_t)((nss + 7) / 8), eu_stride = (uint16_t)((neu + 7) / 8);
	uint32_t slice_len = 1, ss_len = ss_stride, eu_len = (uint32_t)nss * eu_stride;
	uint32_t total = sizeof(topo) + slice_len + ss_len + eu_len;
	uint8_t bytes[64 + 8 * 8];
	int ret;

	if (check_flags && item->flags)
		return -EINVAL;
	ret = gem_query_hdr(&topo, sizeof(topo), total, item);
	if (ret)
		return ret;
	if (topo.flags)
		return -EINVAL;
	memset(&topo, 0, sizeof(topo));
	topo.max_slices = 1;
	topo.max_subslices = nss;
	topo.max_eus_per_subslice = neu;
	topo.subslice_offset = (uint16_t)slice_len;
	topo.subslice_stride = ss_stride;
	topo.eu_offset = (uint16_t)(slice_len + ss_len);
	topo.eu_stride = eu_stride;
	memset(bytes, 0, sizeof(bytes));
	bytes[0] = 1;
	for (uint32_t s = 0; s < nss; s++)
		bytes[slice_len + s / 8] |= (uint8_t)(1u << (s % 8));
	for (uint32_t s = 0; s < nss; s++)
		for (uint32_t e = 0; e < neu; e++)
			bytes[slice_len + ss_len + s * eu_stride + e / 8] |=
			    (uint8_t)(1u << (e % 8));
	if (gem_copy_to_user(item->data_ptr, &topo, sizeof(topo)) ||
	    gem_copy_to_user(item->data_ptr + sizeof(topo), bytes, total - sizeof(topo)))
		return -EFAULT;
	return (int)total;
}

static int gem_query_engines(struct i915_gem_dev *dev, const struct drm_i915_query_item *item)
{
	struct drm_i915_query_engine_info q;
	uint32_t total = sizeof(q) + dev->num_engines * sizeof(struct drm_i915_engine_info);
	int ret;

	if (item->flags)
		return -EINVAL;
	ret = gem_query_hdr(&q, sizeof(q), total, item);
	if (ret)
		return ret;
	if (q.num_engines || q.rsvd[0] || q.rsvd[1] || q.rsvd[2])
		return -EINVAL;
	for (unsigned int e = 0; e < dev->num_engines; e++) {
		struct drm_i915_engine_info ei = {0};

		ei.engine.engine_class = dev->engines[e].class;
		ei.engine.engine_instance = dev->engines[e].instance;
		ei.flags = I915_ENGINE_INFO_HAS_LOGICAL_INSTANCE;
		ei.logical_instance = dev->engines[e].instance;
		if (gem_copy_to_user(item->data_ptr + sizeof(q) + e * sizeof(ei), &ei, sizeof(ei)))
			return -EFAULT;
	}
	q.num_engines = dev->num_engines;
	if (gem_copy_to_user(item->data_ptr, &q, sizeof(q)))
		return -EFAULT;
	return (int)total;
}

static int gem_query_regions(struct i915_gem_dev *dev, const struct drm_i915_query_item *item)
{
	struct drm_i915_query_memory_regions q;
	uint32_t n = dev->lmem_size ? 2 : 1;
	uint32_t total = sizeof(q) + n * sizeof(struct drm_i915_memory_region_info);
	uint64_t smem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	bool perfmon = gem_caller_is_root();
	int ret;

	if (item->flags)
		return -EINVAL;
	ret = gem_query_hdr(&q, sizeof(q), total, item);
	if (ret)
		return ret;
	if (q.num_regions || q.rsvd[0] || q.rsvd[1] || q.rsvd[2])
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		struct drm_i915_memory_region_info mi = {0};

		if (i == 0) {
			/* System memory has no allocator to ask: what was probed. */
			mi.region.memory_class = I915_MEMORY_CLASS_SYSTEM;
			mi.probed_size = smem;
			mi.probed_cpu_visible_size = smem;
			mi.unallocated_size = smem;
			mi.unallocated_cpu_visible_size = smem;
		} else {
			struct ttm_resource_manager *man = &dev->i915->lmem.manager;
			uint64_t used = ttm_resource_manager_usage(man);

			mi.region.memory_class = I915_MEMORY_CLASS_DEVICE;
			mi.probed_size = dev->lmem_size;
			mi.probed_cpu_visible_size = dev->lmem_visible_size;
			mi.unallocated_size = dev->lmem_size;
			mi.unallocated_cpu_visible_size = dev->lmem_visible_size;
			if (perfmon) {
				mi.unallocated_size = dev->lmem_size - used;
				mi.unallocated_cpu_visible_size =
				    used >= dev->lmem_visible_size ? 0
								   : dev->lmem_visible_size - used;
			}
		}
		if (gem_copy_to_user(item->data_ptr + sizeof(q) + i * sizeof(mi), &mi, sizeof(mi)))
			return -EFAULT;
	}
	q.num_regions = n;
	if (gem_copy_to_user(item->data_ptr, &q, sizeof(q)))
		return -EFAULT;
	return (int)total;
}

static int gem_query_geometry(struct i915_gem_dev *dev, const struct drm_i915_query_item *item)
{
	struct i915_engine_class_instance ci;

	if (dev->info->graphics_ver_full < 1250)
		return -ENODEV;
	memcpy(&ci, &item->flags, sizeof(ci));
	if (ci.engine_class != I915_ENGINE_CLASS_RENDER || ci.engine_instance != 0)
		return -EINVAL;
	return gem_query_topology(dev, item, false);
}

/*
 * Keys of the GuC's hardware configuration table (KLV: key, length in
 * dwords, value), as the GuC firmware interface numbers them.
 */
enum gem_hwconfig_key {
	GEM_HWCONFIG_MAX_SLICES_SUPPORTED = 1,
	GEM_HWCONFIG_MAX_DUAL_SUBSLICES_SUPPORTED = 2,
	GEM_HWCONFIG_MAX_NUM_EU_PER_DSS = 3,
	GEM_HWCONFIG_MEMORY_TYPE = 11,
	GEM_HWCONFIG_CACHE_TYPES = 12,
	GEM_HWCONFIG_MAX_RCS = 23,
	GEM_HWCONFIG_MAX_CCS = 24,
	GEM_HWCONFIG_MAX_VCS = 25,
	GEM_HWCONFIG_MAX_VECS = 26,
	GEM_HWCONFIG_MAX_COPY_CS = 27,
};

#define GEM_HWCONFIG_MEMORY_GDDR6 4u
#define GEM_HWCONFIG_CACHE_L3 (1u << 0)

/*
 * DRM_I915_QUERY_HWCONFIG_BLOB: the table the GuC hands the kernel on parts
 * from Xe_HPG (12.55) on, describing this part as QUERY's topology and
 * engine items do; -ENODEV before (the kernel has no table there).
 */
static int gem_query_hwconfig(struct i915_gem_dev *dev, const struct drm_i915_query_item *item)
{
	const struct gem_profile_info *info = dev->info;
	const uint32_t klv[][2] = {
	    {GEM_HWCONFIG_MAX_SLICES_SUPPORTED, 1},
	    {GEM_HWCONFIG_MAX_DUAL_SUBSLICES_SUPPORTED, info->subslice_total},
	    {GEM_HWCONFIG_MAX_NUM_EU_PER_DSS, info->eu_total / info->subslice_total},
	    {GEM_HWCONFIG_MEMORY_TYPE, GEM_HWCONFIG_MEMORY_GDDR6},
	    {GEM_HWCONFIG_CACHE_TYPES, GEM_HWCONFIG_CACHE_L3},
	    {GEM_HWCONFIG_MAX_RCS, gem_engines_of_class(dev, I915_ENGINE_CLASS_RENDER)},
	    {GEM_HWCONFIG_MAX_CCS, gem_engines_of_class(dev, I915_ENGINE_CLASS_COMPUTE)},
	    {GEM_HWCONFIG_MAX_VCS, gem_engines_of_class(dev, I915_ENGINE_CLASS_VIDEO)},
	    {GEM_HWCONFIG_MAX_VECS, gem_engines_of_class(dev, I915_ENGINE_CLASS_VIDEO_ENHANCE)},
	    {GEM_HWCONFIG_MAX_COPY_CS, gem_engines_of_class(dev, I915_ENGINE_CLASS_COPY)},
	};
	enum { N = sizeof(klv) / sizeof(klv[0]) };
	uint32_t blob[N * 3];

	if (info->graphics_ver_full < 1255 || !dev->lmem_size)
		return -ENODEV;
	for (unsigned int i = 0; i < N; i++) {
		blob[3 * i] = klv[i][0];
		blob[3 * i + 1] = 1;
		blob[3 * i + 2] = klv[i][1];
	}
	if (!item->length)
		return (int)sizeof(blob);
	if ((uint32_t)item->length < sizeof(blob))
		return -EINVAL;
	if (gem_copy_to_user(item->data_ptr, blob, sizeof(blob)))
		return -EFAULT;
	return (int)sizeof(blob);
}

int gem_query_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_query *args = data;

	if (args->flags)
		return -EINVAL;
	for (uint32_t i = 0; i < args->num_items; i++) {
		uint64_t uitem = args->items_ptr + i * sizeof(struct drm_i915_query_item);
		struct drm_i915_query_item item;
		int ret;

		if (gem_copy_from_user(&item, uitem, sizeof(item)))
			return -EFAULT;
		if (!item.query_id)
			return -EINVAL; /* the whole call, unlike an unknown id */
		switch (item.query_id) {
		case DRM_I915_QUERY_TOPOLOGY_INFO:
			ret = gem_query_topology(file->dev, &item, true);
			break;
		case DRM_I915_QUERY_ENGINE_INFO:
			ret = gem_query_engines(file->dev, &item);
			break;
		case DRM_I915_QUERY_MEMORY_REGIONS:
			ret = gem_query_regions(file->dev, &item);
			break;
		case DRM_I915_QUERY_GEOMETRY_SUBSLICES:
			ret = gem_query_geometry(file->dev, &item);
			break;
		case DRM_I915_QUERY_HWCONFIG_BLOB:
			ret = gem_query_hwconfig(file->dev, &item);
			break;
		case DRM_I915_QUERY_PERF_CONFIG:
		case DRM_I915_QUERY_GUC_SUBMISSION_VERSION:
			ret = -ENODEV; /* no OA, no GuC submission */
			break;
		default:
			ret = -EINVAL;
			break;
		}
		if (ret != item.length &&
		    gem_copy_to_user(uitem + offsetof(struct drm_i915_query_item, length), &ret,
				     sizeof(ret)))
			return -EFAULT;
	}
	return 0;
}

/* --- registers --- */

#define GEM_RCS_TIMESTAMP 0x2358u
#define GEM_BCS_TIMESTAMP 0x22358u

static uint64_t gem_timestamp(struct i915_device *i915, enum i915_engine_id id)
{
	struct i915_cs_cycles s;

	if (i915_engine_cs_cycles(i915_engine_get(i915, id), &s))
		return 0;
	return s.cycles;
}

uint32_t i915_gem_mmio_read32(struct i915_device *i915, uint32_t reg)
{
	if (!i915)
		return 0;
	switch (reg) {
	case GEM_RCS_TIMESTAMP:
		return (uint32_t)gem_timestamp(i915, I915_ENGINE_RCS);
	case GEM_RCS_TIMESTAMP + 4:
		return (uint32_t)(gem_timestamp(i915, I915_ENGINE_RCS) >> 32);
	case GEM_BCS_TIMESTAMP:
		return (uint32_t)gem_timestamp(i915, I915_ENGINE_BCS);
	case GEM_BCS_TIMESTAMP + 4:
		return (uint32_t)(gem_timestamp(i915, I915_ENGINE_BCS) >> 32);
	}
	return 0;
}

int gem_reg_read_ioctl(struct i915_gem_file *file, void *data)
{
	struct drm_i915_reg_read *reg = data;
	/* The whitelist: the render ring's 64-bit timestamp. */
	uint64_t flags = reg->offset & 7;

	if ((reg->offset & ~7ull) != GEM_RCS_TIMESTAMP)
		return -EINVAL;
	if (flags != 0 && flags != I915_REG_READ_8B_WA)
		return -EINVAL;
	reg->val = gem_timestamp(file->dev->i915, I915_ENGINE_RCS);
	return 0;
}
