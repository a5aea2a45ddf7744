// SPDX-License-Identifier: MIT
/*
 * sw_sync: the kernel's software timelines for testing fences
 * (drivers/dma-buf/sw_sync.c), served at /sys/kernel/debug/sync/sw_sync of
 * the device's debugfs. Each open is a timeline at value 0;
 * SW_SYNC_IOC_CREATE_FENCE makes a sync_file (drm/'s) whose fence signals
 * when the timeline reaches the asked value, SW_SYNC_IOC_INC advances it,
 * and closing the timeline's last descriptor signals what is left with
 * -ENOENT. igt uses it to hold execbuf in-fences (gem_exec_fence,
 * gem_exec_params, gem_wsim).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <drmcore/drm_fd.h>
#include <drmcore/drm_user.h>
#include <drmcore/sync_file.h>

#include "node_priv.h"

/* The kernel's uAPI (not in any installed header). */
struct node_sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};

#define NODE_SW_SYNC_IOC_CREATE_FENCE _IOWR('W', 0, struct node_sw_sync_create_fence_data)
#define NODE_SW_SYNC_IOC_INC _IOW('W', 1, uint32_t)

struct node_sw_pt {
	struct dma_fence base; /* first: the default release frees the block */
	struct node_sw_pt *next;
};

/**
 * struct node_sw_timeline - one open of sw_sync.
 * @lock: protects @value and @pending.
 * @context: the fence context of its points.
 * @value: how far it has advanced.
 * @pending: points not signalled yet, each holding a fence reference.
 */
struct node_sw_timeline {
	pthread_mutex_t lock;
	uint64_t context;
	uint32_t value;
	struct node_sw_pt *pending;
};

static const char *node_sw_driver_name(struct dma_fence *f)
{
	(void)f;
	return "sw_sync";
}

static const char *node_sw_timeline_name(struct dma_fence *f)
{
	(void)f;
	return "sw_sync timeline";
}

static const struct dma_fence_ops node_sw_fence_ops = {
	.get_driver_name = node_sw_driver_name,
	.get_timeline_name = node_sw_timeline_name,
};

void *node_sw_sync_new(void)
{
	struct node_sw_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	pthread_mutex_init(&tl->lock, NULL);
	tl->context = dma_fence_context_alloc(1);
	return tl;
}

/* Signal (with @error when non-zero) and drop every point @pred selects. */
static void node_sw_signal(struct node_sw_timeline *tl, bool all, int error)
{
	struct node_sw_pt **pp = &tl->pending, *done = NULL;

	pthread_mutex_lock(&tl->lock);
	while (*pp) {
		struct node_sw_pt *pt = *pp;

		if (all || !__dma_fence_is_later(pt->base.seqno, tl->value)) {
			*pp = pt->next;
			pt->next = done;
			done = pt;
			continue;
		}
		pp = &pt->next;
	}
	pthread_mutex_unlock(&tl->lock);
	/* Signal outside the lock: callbacks may create or wait on fences. */
	while (done) {
		struct node_sw_pt *pt = done;

		done = pt->next;
		if (error)
			dma_fence_set_error(&pt->base, error);
		dma_fence_signal(&pt->base);
		dma_fence_put(&pt->base);
	}
}

void node_sw_sync_release(void *priv)
{
	struct node_sw_timeline *tl = priv;

	node_sw_signal(tl, true, -ENOENT);
	pthread_mutex_destroy(&tl->lock);
	free(tl);
}

static int node_sw_create_fence(struct node_sw_timeline *tl, void *uarg)
{
	struct node_sw_sync_create_fence_data data;
	struct node_sw_pt *pt;
	int fd, ret;

	if (drm_copy_from_user(&data, uarg, sizeof(data)))
		return -EFAULT;
	pt = dma_fence_alloc(sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	dma_fence_init(&pt->base, &node_sw_fence_ops, tl->context, data.value);
	pthread_mutex_lock(&tl->lock);
	if (__dma_fence_is_later(data.value, tl->value)) {
		pt->next = tl->pending;
		tl->pending = pt;
		dma_fence_get(&pt->base);
	} else {
		dma_fence_signal(&pt->base);
	}
	pthread_mutex_unlock(&tl->lock);
	ret = drm_sync_file_create(&pt->base, O_CLOEXEC, &fd);
	dma_fence_put(&pt->base);
	if (ret)
		return ret;
	data.fence = fd;
	if (drm_copy_to_user(uarg, &data, sizeof(data))) {
		/* As the kernel: the descriptor is not installed when the copy fails. */
		drm_fd_close(fd, NULL);
		return -EFAULT;
	}
	return 0;
}

int node_sw_sync_ioctl(void *priv, unsigned long request, void *uarg)
{
	struct node_sw_timeline *tl = priv;
	uint32_t inc;

	switch (request) {
	case NODE_SW_SYNC_IOC_CREATE_FENCE:
		return node_sw_create_fence(tl, uarg);
	case NODE_SW_SYNC_IOC_INC:
		if (drm_copy_from_user(&inc, uarg, sizeof(inc)))
			return -EFAULT;
		/* The kernel advances in steps of at most INT_MAX. */
		while (inc) {
			uint32_t step = inc > INT_MAX ? INT_MAX : inc;

			pthread_mutex_lock(&tl->lock);
			tl->value += step;
			pthread_mutex_unlock(&tl->lock);
			node_sw_signal(tl, false, 0);
			inc -= step;
		}
		return 0;
	default:
		return -ENOTTY;
	}
}
