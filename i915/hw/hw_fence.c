// SPDX-License-Identifier: MIT
/*
 * The sync_file -> dma_fence bridge: one poll thread per device.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "hw_faults.h"
#include "hw_fence.h"
#include "hw_sys.h"

static const char *hw_fence_driver_name(struct dma_fence *fence)
{
	return "i915-hw";
}

static const char *hw_fence_timeline_name(struct dma_fence *fence)
{
	return "sync_file";
}

/* No enable_signaling: the thread watches every fd from the moment it is added. */
static const struct dma_fence_ops hw_fence_ops = {
    .get_driver_name = hw_fence_driver_name,
    .get_timeline_name = hw_fence_timeline_name,
};

bool hw_fence_is_hw(const struct dma_fence *fence)
{
	return fence && fence->ops == &hw_fence_ops;
}

static void hw_fence_wake(struct hw_fence_waiter *w)
{
	uint64_t one = 1;

	/* Only fails when the counter would overflow: then the thread is awake anyway. */
	if (write(w->wake_fd, &one, sizeof(one)) < 0)
		return;
}

/*
 * Close the fd and signal, with @error when negative. Drops the waiter's
 * reference: the caller's may be the last one left, or none.
 */
static void hw_fence_complete(struct hw_fence_waiter *w, struct hw_fence *f, int error)
{
	w->sys->close(w->sys_data, f->fd);
	f->fd = -1;
	if (error < 0)
		dma_fence_set_error(&f->base, error);
	dma_fence_signal(&f->base);
	dma_fence_put(&f->base);
}

/*
 * The sync_file's verdict once it polled readable: 1 signalled, a negative
 * errno for a failed request, 0 still active (a spurious wake-up).
 */
static int hw_fence_status(struct hw_fence_waiter *w, int fd)
{
	struct sync_file_info info;
	int ret;

	memset(&info, 0, sizeof(info));
	ret = w->sys->ioctl(w->sys_data, fd, SYNC_IOC_FILE_INFO, &info);
	if (ret < 0)
		return ret;
	return info.status;
}

/* Remove @f from @pending (the thread is the only remover). Under @lock. */
static void hw_fence_unlink(struct hw_fence_waiter *w, struct hw_fence *f)
{
	unsigned int i;

	for (i = 0; i < w->num_pending; i++) {
		if (w->pending[i] == f) {
			w->pending[i] = w->pending[--w->num_pending];
			return;
		}
	}
}

static void *hw_fence_thread(void *arg)
{
	struct hw_fence_waiter *w = arg;
	struct pollfd *pfd = NULL;
	struct hw_fence **snap = NULL;
	unsigned int cap = 0;

	for (;;) {
		unsigned int n, i;
		int ret;

		pthread_mutex_lock(&w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		n = w->num_pending;
		if (n + 1 > cap) {
			unsigned int want = (n + 1) * 2;
			struct pollfd *np = fault_should_fail(&hw_fault_alloc, want * sizeof(*np))
						? NULL
						: realloc(pfd, want * sizeof(*np));
			struct hw_fence **ns;

			if (np)
				pfd = np;
			ns = np && !fault_should_fail(&hw_fault_alloc, want * sizeof(*ns))
				 ? realloc(snap, want * sizeof(*ns))
				 : NULL;
			if (ns)
				snap = ns;
			if (np && ns) {
				cap = want;
			} else {
				/* Watch what fits; the rest waits for the next round. */
				n = cap ? cap - 1 : 0;
			}
		}
		for (i = 0; i < n; i++) {
			snap[i] = w->pending[i];
			pfd[i + 1] = (struct pollfd){.fd = snap[i]->fd, .events = POLLIN};
		}
		pthread_mutex_unlock(&w->lock);
		if (!pfd) {
			/* Not even the wake fd fits: back off rather than spin. */
			usleep(1000);
			continue;
		}
		pfd[0] = (struct pollfd){.fd = w->wake_fd, .events = POLLIN};

		ret = poll(pfd, n + 1, -1);
		if (ret < 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			uint64_t v;

			if (read(w->wake_fd, &v, sizeof(v)) < 0)
				v = 0;
		}
		for (i = 0; i < n; i++) {
			short rev = pfd[i + 1].revents;
			int status;

			if (!rev)
				continue;
			if (rev & (POLLERR | POLLNVAL))
				status = -EIO;
			else
				status = hw_fence_status(w, snap[i]->fd);
			if (status == 0)
				continue;
			pthread_mutex_lock(&w->lock);
			hw_fence_unlink(w, snap[i]);
			pthread_mutex_unlock(&w->lock);
			hw_fence_complete(w, snap[i], status);
		}
	}
	free(pfd);
	free(snap);
	return NULL;
}

int hw_fence_waiter_init(struct hw_fence_waiter *w, const struct hw_sys_ops *sys, void *sys_data)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->sys = sys;
	w->sys_data = sys_data;
	w->context = dma_fence_context_alloc(1);
	w->next_seqno = 1;
	w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->wake_fd < 0)
		return -errno;
	ret = pthread_mutex_init(&w->lock, NULL);
	if (ret)
		goto err_fd;
	ret = pthread_create(&w->thread, NULL, hw_fence_thread, w);
	if (ret)
		goto err_lock;
	return 0;

err_lock:
	pthread_mutex_destroy(&w->lock);
err_fd:
	close(w->wake_fd);
	return -ret;
}

void hw_fence_waiter_fini(struct hw_fence_waiter *w)
{
	unsigned int i;

	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_mutex_unlock(&w->lock);
	hw_fence_wake(w);
	pthread_join(w->thread, NULL);

	for (i = 0; i < w->num_pending; i++)
		hw_fence_complete(w, w->pending[i], -ENODEV);
	free(w->pending);
	pthread_mutex_destroy(&w->lock);
	close(w->wake_fd);
	memset(w, 0, sizeof(*w));
	w->wake_fd = -1;
}

int hw_fence_waiter_add(struct hw_fence_waiter *w, int fd, struct dma_fence **out)
{
	struct hw_fence *f;
	int ret = 0;

	*out = NULL;
	if (fd < 0)
		return -EINVAL;
	f = dma_fence_alloc(sizeof(*f));
	if (!f) {
		w->sys->close(w->sys_data, fd);
		return -ENOMEM;
	}
	f->fd = fd;

	pthread_mutex_lock(&w->lock);
	if (w->stop) {
		ret = -ESHUTDOWN;
	} else if (w->num_pending == w->max_pending) {
		unsigned int want = w->max_pending ? 2 * w->max_pending : 16;
		struct hw_fence **np = fault_should_fail(&hw_fault_alloc, want * sizeof(*np))
					   ? NULL
					   : realloc(w->pending, want * sizeof(*np));

		if (np) {
			w->pending = np;
			w->max_pending = want;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		dma_fence_init(&f->base, &hw_fence_ops, w->context, w->next_seqno++);
		/* One reference for the caller, one for the watch list. */
		dma_fence_get(&f->base);
		w->pending[w->num_pending++] = f;
	}
	pthread_mutex_unlock(&w->lock);
	if (ret) {
		w->sys->close(w->sys_data, fd);
		free(f);
		return ret;
	}
	hw_fence_wake(w);
	*out = &f->base;
	return 0;
}
