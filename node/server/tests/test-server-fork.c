// SPDX-License-Identifier: MIT
/*
 * The render node's fork rule through the device server: run with the node
 * preloaded (LD_PRELOAD=libttm-i915-node.so). The parent opens the device
 * and creates an object; forked children use the parent's descriptor (the
 * same drm_file, as in the kernel), reopen the device, pass objects back
 * through PRIME, and keep the file alive after the parent closed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm.h>
#include <i915_drm.h>

#include "ktest.h"

static int pread_bo(int fd, uint32_t handle, void *buf, size_t n)
{
	struct drm_i915_gem_pread p = {
	    .handle = handle, .size = n, .data_ptr = (uint64_t)(uintptr_t)buf};

	return ioctl(fd, DRM_IOCTL_I915_GEM_PREAD, &p);
}

static int pwrite_bo(int fd, uint32_t handle, const void *buf, size_t n)
{
	struct drm_i915_gem_pwrite p = {
	    .handle = handle, .size = n, .data_ptr = (uint64_t)(uintptr_t)buf};

	return ioctl(fd, DRM_IOCTL_I915_GEM_PWRITE, &p);
}

/* An object in system memory, named explicitly (the placement a client asks for). */
static int create_smem(int fd, uint32_t *handle)
{
	struct drm_i915_gem_memory_class_instance smem = {.memory_class = I915_MEMORY_CLASS_SYSTEM};
	struct drm_i915_gem_create_ext_memory_regions ext = {
	    .base.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS,
	    .num_regions = 1,
	    .regions = (uint64_t)(uintptr_t)&smem,
	};
	struct drm_i915_gem_create_ext c = {.size = 4096, .extensions = (uint64_t)(uintptr_t)&ext};
	int ret = ioctl(fd, DRM_IOCTL_I915_GEM_CREATE_EXT, &c);

	*handle = c.handle;
	return ret;
}

static int run_child(int (*fn)(int, uint32_t), int fd, uint32_t handle)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(fd, handle));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The child sees the parent's handle and content, and writes back. */
static int child_shares_file(int fd, uint32_t handle)
{
	char buf[32] = {0};

	if (pread_bo(fd, handle, buf, sizeof(buf)) || strcmp(buf, "from the parent"))
		return 1;
	strcpy(buf, "from the child");
	return pwrite_bo(fd, handle, buf, sizeof(buf)) ? 2 : 0;
}

KTEST(child_uses_parents_file)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	struct {
		uint32_t handle;
	} c;
	char buf[32] = "from the parent";

	ASSERT_GE(fd, 0);
	ASSERT_EQ(create_smem(fd, &c.handle), 0);
	ASSERT_EQ(pwrite_bo(fd, c.handle, buf, sizeof(buf)), 0);
	EXPECT_EQ(run_child(child_shares_file, fd, c.handle), 0);
	ASSERT_EQ(pread_bo(fd, c.handle, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "from the child");
	close(fd);
}

/* The parent closed its descriptor: the child's copy keeps the file. */
static int child_outlives_parent_close(int fd, uint32_t handle)
{
	char buf[32] = {0};

	/* Give the parent time to close its descriptor. */
	usleep(200000);
	return pread_bo(fd, handle, buf, sizeof(buf)) || strcmp(buf, "kept") ? 1 : 0;
}

KTEST(file_lives_while_a_child_holds_it)
{
	int fd = open("/dev/dri/renderD128", O_RDWR);
	struct {
		uint32_t handle;
	} c;
	char buf[32] = "kept";
	int status;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(create_smem(fd, &c.handle), 0);
	ASSERT_EQ(pwrite_bo(fd, c.handle, buf, sizeof(buf)), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(child_outlives_parent_close(fd, c.handle));
	close(fd);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A child opens its own file and exports an object; the parent imports it. */
KTEST(child_exports_through_prime)
{
	int fd = open("/dev/dri/renderD128", O_RDWR), sv[2], status;
	char buf[32] = {0};
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int cfd = open("/dev/dri/renderD128", O_RDWR);
		struct {
			uint32_t handle;
		} c;
		struct drm_prime_handle p = {.flags = DRM_CLOEXEC};
		char msg[32] = "exported by the child";
		union {
			char b[CMSG_SPACE(sizeof(int))];
			struct cmsghdr a;
		} cb;
		struct iovec iov = {msg, 1};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cb.b,
				    .msg_controllen = sizeof(cb.b)};
		struct cmsghdr *cm;

		memset(&cb, 0, sizeof(cb));
		cm = CMSG_FIRSTHDR(&mh);
		if (cfd < 0 || create_smem(cfd, &c.handle) ||
		    pwrite_bo(cfd, c.handle, msg, sizeof(msg)))
			_exit(1);
		p.handle = c.handle;
		if (ioctl(cfd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p) || p.fd < 0)
			_exit(2);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &p.fd, sizeof(int));
		if (sendmsg(sv[1], &mh, 0) != 1)
			_exit(3);
		/* Stay until the parent has imported. */
		if (read(sv[1], msg, 1) != 1)
			_exit(4);
		_exit(0);
	}
	{
		union {
			char b[CMSG_SPACE(sizeof(int))];
			struct cmsghdr a;
		} cb;
		char c;
		struct iovec iov = {&c, 1};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cb.b,
				    .msg_controllen = sizeof(cb.b)};
		struct drm_prime_handle p = {0};

		ASSERT_EQ(recvmsg(sv[0], &mh, 0), 1);
		ASSERT_NOT_NULL(CMSG_FIRSTHDR(&mh));
		memcpy(&p.fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
		EXPECT_EQ(ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p), 0);
		EXPECT_EQ(pread_bo(fd, p.handle, buf, sizeof(buf)), 0);
		EXPECT_STREQ(buf, "exported by the child");
		EXPECT_EQ(write(sv[0], "x", 1), 1);
		close(p.fd);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(sv[0]);
	close(sv[1]);
	close(fd);
}
