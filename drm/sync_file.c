// SPDX-License-Identifier: MIT
/*
 * sync_file (see drmcore/sync_file.h): a pipe whose read end is the
 * caller's descriptor; a callback on the fence writes one byte into it, so
 * the descriptor polls readable exactly when the fence has signalled.
 */
#include <drmcore/sync_file.h>
#include <drmcore/dma_fence_array.h>
#include <drmcore/drm_faults.h>
#include <drmcore/drm_user.h>

#include "drm_fd_priv.h"
#include "drm_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sync_file.h>

/**
 * struct sync_file - one sync_file.
 * @base: its file (the pipe; @base.keep_fd is our write end).
 * @fence: the fence, one reference.
 * @cb: writes the byte; armed at creation.
 * @user_name: SYNC_IOC_MERGE's name, "" otherwise.
 */
struct sync_file {
	struct drm_fd_obj base;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	char user_name[32];
};

static void sync_file_signalled(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct sync_file *sf = (struct sync_file *)((char *)cb - offsetof(struct sync_file, cb));
	struct timespec zero = {0, 0};
	sigset_t pipe_set, old, pending;
	bool was_pending;
	char one = 1;
	int saved_errno = errno;

	(void)fence;
	/*
	 * The user may close the last read end at any moment, also just before
	 * this write (the object is released only after the close is seen):
	 * the write then fails with EPIPE and raises SIGPIPE at this thread,
	 * which must not kill a process that did nothing wrong. Block it
	 * around the write and take back a SIGPIPE the write raised.
	 */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	was_pending = !sigpending(&pending) && sigismember(&pending, SIGPIPE);
	/* Non-blocking and into an empty pipe: cannot block, cannot fail short. */
	if (drm_sys_write(sf->base.keep_fd, &one, 1) < 0 && errno == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
}

static void sync_file_release(struct drm_fd_obj *obj)
{
	struct sync_file *sf = (struct sync_file *)obj;

	/* After this the callback has run or never will. */
	dma_fence_remove_callback(sf->fence, &sf->cb);
	dma_fence_put(sf->fence);
	free(sf);
}

static int sync_file_create_named(struct dma_fence *fence, int flags, const char *name, int *fd)
{
	struct sync_file *sf;
	int ret;

	drm_fd_gc_maybe();
	if (!fence || (flags & ~O_CLOEXEC))
		return -EINVAL;
	if (fault_should_fail(&drm_fault_sync_file_alloc, sizeof(*sf)))
		return -ENOMEM;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	if (name)
		snprintf(sf->user_name, sizeof(sf->user_name), "%s", name);
	sf->fence = dma_fence_get(fence);
	ret = drm_fd_obj_install_pipe(&sf->base, DRM_FD_SYNC_FILE, flags, fd, sync_file_release);
	if (ret) {
		dma_fence_put(sf->fence);
		free(sf);
		return ret;
	}
	if (dma_fence_add_callback(fence, &sf->cb, sync_file_signalled))
		sync_file_signalled(fence, &sf->cb);
	return 0;
}

int drm_sync_file_create(struct dma_fence *fence, int flags, int *fd)
{
	return sync_file_create_named(fence, flags, NULL, fd);
}

static struct sync_file *sync_file_lookup(int fd)
{
	int err;

	return (struct sync_file *)drm_fd_obj_lookup(fd, DRM_FD_SYNC_FILE, &err);
}

struct dma_fence *drm_sync_file_get_fence(int fd)
{
	struct sync_file *sf = sync_file_lookup(fd);
	struct dma_fence *f;

	if (!sf)
		return NULL;
	f = dma_fence_get(sf->fence);
	drm_fd_obj_put(&sf->base);
	return f;
}

static void sync_file_get_name(struct sync_file *sf, char *buf, size_t len)
{
	struct dma_fence *f = sf->fence;

	if (sf->user_name[0])
		snprintf(buf, len, "%s", sf->user_name);
	else
		snprintf(buf, len, "%s-%s%llu-%llu", f->ops->get_driver_name(f),
			 f->ops->get_timeline_name(f), (unsigned long long)f->context,
			 (unsigned long long)f->seqno);
}

static int ioctl_merge(struct sync_file *sf, void __user *arg)
{
	struct sync_merge_data data;
	struct sync_file *sf2;
	struct dma_fence *pair[2], *merged;
	int fd, ret;

	if (drm_copy_from_user(&data, arg, sizeof(data)))
		return -EFAULT;
	if (data.flags || data.pad)
		return -EINVAL;
	sf2 = sync_file_lookup(data.fd2);
	if (!sf2)
		return -ENOENT;
	data.name[sizeof(data.name) - 1] = '\0';
	pair[0] = sf->fence;
	pair[1] = sf2->fence;
	merged = dma_fence_unwrap_merge(pair, 2);
	drm_fd_obj_put(&sf2->base);
	if (!merged)
		return -ENOMEM;
	ret = sync_file_create_named(merged, O_CLOEXEC, data.name, &fd);
	dma_fence_put(merged);
	if (ret)
		return ret == -EMFILE || ret == -ENFILE ? ret : -ENOMEM;
	data.fence = fd;
	if (drm_copy_to_user(arg, &data, sizeof(data))) {
		/* The kernel never installs the descriptor: take ours back. */
		drm_fd_close(fd, NULL);
		return -EFAULT;
	}
	return 0;
}

static int ioctl_file_info(struct sync_file *sf, void __user *arg)
{
	struct sync_fence_info *fi = NULL;
	struct sync_file_info info;
	struct dma_fence **fences;
	int num, ret = 0;

	if (drm_copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	if (info.flags || info.pad)
		return -EINVAL;
	num = dma_fence_unwrap(sf->fence, &fences);
	if (num < 0)
		return num;
	if (!info.num_fences) {
		info.status = dma_fence_get_status(sf->fence);
		goto no_fences;
	}
	info.status = 1;
	if (info.num_fences < (unsigned)num) {
		ret = -EINVAL;
		goto out;
	}
	fi = NULL;
	if (!fault_should_fail(&drm_fault_sync_file_alloc, (size_t)num * sizeof(*fi)))
		fi = calloc(num, sizeof(*fi));
	if (!fi) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < num; i++) {
		struct dma_fence *f = fences[i];
		int64_t ts = 0;

		snprintf(fi[i].obj_name, sizeof(fi[i].obj_name), "%s",
			 f->ops->get_timeline_name(f));
		snprintf(fi[i].driver_name, sizeof(fi[i].driver_name), "%s",
			 f->ops->get_driver_name(f));
		fi[i].status = dma_fence_get_status(f);
		if (dma_fence_is_signaled(f))
			dma_fence_get_timestamp(f, &ts);
		fi[i].timestamp_ns = (uint64_t)ts;
		if (info.status > 0)
			info.status = fi[i].status;
	}
	if (drm_copy_to_user(drm_u64_to_user_ptr(info.sync_fence_info), fi,
			     (size_t)num * sizeof(*fi))) {
		ret = -EFAULT;
		goto out;
	}
no_fences:
	sync_file_get_name(sf, info.name, sizeof(info.name));
	info.num_fences = (uint32_t)num;
	if (drm_copy_to_user(arg, &info, sizeof(info)))
		ret = -EFAULT;
out:
	free(fi);
	dma_fence_unwrap_put(fences, num);
	return ret;
}

int drm_sync_file_ioctl(int fd, unsigned long req, void *arg)
{
	struct sync_file *sf;
	int ret;

	sf = sync_file_lookup(fd);
	if (!sf)
		return -ENOTTY;
	switch (req) {
	case SYNC_IOC_MERGE:
		ret = ioctl_merge(sf, arg);
		break;
	case SYNC_IOC_FILE_INFO:
		ret = ioctl_file_info(sf, arg);
		break;
#ifdef SYNC_IOC_SET_DEADLINE
	case SYNC_IOC_SET_DEADLINE: {
		struct sync_set_deadline ts;

		/* Deadlines are a hint; ours have no frequency to boost. */
		if (drm_copy_from_user(&ts, arg, sizeof(ts)))
			ret = -EFAULT;
		else
			ret = ts.pad ? -EINVAL : 0;
		break;
	}
#endif
	default:
		ret = -ENOTTY;
		break;
	}
	drm_fd_obj_put(&sf->base);
	return ret;
}
