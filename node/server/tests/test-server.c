// SPDX-License-Identifier: MIT
/*
 * The device server over its wire protocol, without the render node: a
 * device and its server in the test process, clients in the test process or
 * in forked children (the server copies in each client's own memory).
 * Covers files and their anchors, isolation between connections, descriptor
 * passing (PRIME, out fences), malformed requests, clients killed in the
 * middle of submissions and waits, and a server that dies under its clients.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"
#include "server.h"

struct fix {
	struct i915_device *i915;
	struct srv *s;
	char dir[64];
	char path[96];
};

static int fix_init(struct ktest *t)
{
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/ttm-srv-test.XXXXXX");
	if (!mkdtemp(f->dir) || i915_gem_device_create(NULL, &f->i915)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/s.sock", f->dir);
	if (srv_create(f->i915, f->path, NULL, &f->s)) {
		i915_gem_device_destroy(f->i915);
		free(f);
		return -1;
	}
	t->priv = f;
	return 0;
}

static void fix_exit(struct ktest *t)
{
	struct fix *f = ktest_current()->priv;

	srv_destroy(f->s);
	i915_gem_device_destroy(f->i915);
	rmdir(f->dir);
	free(f);
}

KTEST_SUITE(server, .init = fix_init, .exit = fix_exit);

/* Wait (2 s at most) for the server's open files to come down to @want. */
static uint64_t wait_files(struct srv *s, uint64_t want)
{
	struct timespec ms = {0, 1000000};
	struct srv_stats st;

	for (int i = 0; i < 2000; i++) {
		srv_get_stats(s, &st);
		if (st.files == want)
			break;
		nanosleep(&ms, NULL);
	}
	return st.files;
}

static int bo_create(int conn, uint64_t file, uint64_t size, uint32_t *handle)
{
	struct drm_i915_gem_create c = {.size = size};
	int ret = srv_client_ioctl(conn, file, -1, DRM_IOCTL_I915_GEM_CREATE, &c, NULL);

	*handle = c.handle;
	return ret;
}

/* A batch of MI_BATCH_BUFFER_END in a new object. */
static int batch_create(int conn, uint64_t file, uint32_t *handle)
{
	uint32_t bbe[2] = {0x0a << 23, 0};
	int ret = bo_create(conn, file, 4096, handle);

	return ret ? ret : srv_client_gem_rw(conn, file, *handle, bbe, sizeof(bbe), true);
}

static int submit(int conn, uint64_t file, uint32_t batch, uint64_t flags, uint64_t *rsvd2)
{
	struct drm_i915_gem_exec_object2 obj = {.handle = batch};
	struct drm_i915_gem_execbuffer2 eb = {
	    .buffers_ptr = (uint64_t)(uintptr_t)&obj,
	    .buffer_count = 1,
	    .flags = flags,
	    .rsvd2 = rsvd2 ? *rsvd2 : 0,
	};
	int ret = srv_client_ioctl(
	    conn, file, -1,
	    rsvd2 ? DRM_IOCTL_I915_GEM_EXECBUFFER2_WR : DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb, NULL);

	if (rsvd2)
		*rsvd2 = eb.rsvd2;
	return ret;
}

KTEST_F(server, open_create_rw_close)
{
	struct fix *f = ktest_current()->priv;
	char out[64] = "the server copies in the client's memory", in[64] = {0};
	uint32_t handle;
	uint64_t file;
	int conn, anchor;

	conn = srv_connect(f->path);
	ASSERT_GE(conn, 0);
	ASSERT_EQ(srv_client_open(conn, 128, 1, &anchor, &file), 0);
	EXPECT_UEQ(wait_files(f->s, 1), 1);
	ASSERT_EQ(bo_create(conn, file, 4096, &handle), 0);
	ASSERT_EQ(srv_client_gem_rw(conn, file, handle, out, sizeof(out), true), 0);
	ASSERT_EQ(srv_client_gem_rw(conn, file, handle, in, sizeof(in), false), 0);
	EXPECT_MEMEQ(in, out, sizeof(out));
	/* A bad pointer is the kernel's -EFAULT, not a crash of the server. */
	EXPECT_EQ(srv_client_gem_rw(conn, file, handle, (void *)8, 64, false), -EFAULT);
	/* A dup()ed anchor keeps the file; closing the last copy closes it. */
	int dupd = dup(anchor);

	close(anchor);
	EXPECT_UEQ(wait_files(f->s, 1), 1);
	EXPECT_EQ(srv_client_gem_rw(conn, file, handle, in, sizeof(in), false), 0);
	close(dupd);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
	EXPECT_EQ(srv_client_gem_rw(conn, file, handle, in, sizeof(in), false), -EBADF);
	close(conn);
}

KTEST_F(server, child_process_client)
{
	struct fix *f = ktest_current()->priv;
	pid_t pid = fork();
	int status;

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char out[4096], in[4096];
		uint32_t handle;
		uint64_t file;
		int conn = srv_connect(f->path), anchor, bad = 0;

		for (unsigned int i = 0; i < sizeof(out); i++)
			out[i] = (char)(i * 7 + getpid());
		if (conn < 0 || srv_client_open(conn, 128, 1, &anchor, &file) ||
		    bo_create(conn, file, 8192, &handle) ||
		    srv_client_gem_rw(conn, file, handle, out, sizeof(out), true) ||
		    srv_client_gem_rw(conn, file, handle, in, sizeof(in), false))
			_exit(2);
		bad = memcmp(in, out, sizeof(in)) != 0;
		/* Exits with the file open: the server closes it. */
		_exit(bad);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
}

KTEST_F(server, isolation)
{
	struct fix *f = ktest_current()->priv;
	int c1 = srv_connect(f->path), c2 = srv_connect(f->path), anchor, sv[2];
	uint32_t handle;
	uint64_t file;

	ASSERT_GE(c1, 0);
	ASSERT_GE(c2, 0);
	ASSERT_EQ(srv_client_open(c1, 0, 1, &anchor, &file), 0);
	ASSERT_EQ(bo_create(c1, file, 4096, &handle), 0);
	/* Naming a file without proving the anchor is -EBADF. */
	EXPECT_EQ(bo_create(c2, file, 4096, &handle), -EBADF);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	EXPECT_EQ(srv_client_attach(c2, file, sv[1]), -EBADF);
	EXPECT_EQ(srv_client_attach(c2, file + 1, anchor), -EBADF);
	close(sv[0]);
	close(sv[1]);
	/* With the anchor it works, as a descriptor passed between processes. */
	EXPECT_EQ(srv_client_attach(c2, file, anchor), 0);
	EXPECT_EQ(bo_create(c2, file, 4096, &handle), 0);
	close(anchor);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
	close(c1);
	close(c2);
}

static int send_raw(int conn, const void *buf, size_t len, int pass_fd, struct srv_rep *rep)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = {(void *)buf, len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (pass_fd >= 0) {
		struct cmsghdr *cm;

		memset(&c, 0, sizeof(c));
		mh.msg_control = c.b;
		mh.msg_controllen = sizeof(c.b);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	if (sendmsg(conn, &mh, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	return recv(conn, rep, sizeof(*rep), 0) == (ssize_t)sizeof(*rep) ? 0 : -1;
}

KTEST_F(server, malformed_requests)
{
	struct fix *f = ktest_current()->priv;
	struct srv_req req = {.magic = SRV_MAGIC};
	struct srv_rep rep;
	int conn = srv_connect(f->path), p[2], anchor, nm;
	uint64_t file;
	char junk[200];

	ASSERT_GE(conn, 0);
	ASSERT_EQ(pipe(p), 0);
	memset(junk, 0x5a, sizeof(junk));
	EXPECT_EQ(send_raw(conn, junk, 3, -1, &rep), 0);
	EXPECT_EQ(rep.ret, -EPROTO);
	EXPECT_EQ(send_raw(conn, junk, sizeof(junk), p[0], &rep), 0);
	EXPECT_EQ(rep.ret, -EPROTO);
	req.op = 0;
	EXPECT_EQ(send_raw(conn, &req, sizeof(req), -1, &rep), 0);
	EXPECT_EQ(rep.ret, -EINVAL);
	req.op = SRV_OP_MAX + 7;
	EXPECT_EQ(send_raw(conn, &req, sizeof(req), -1, &rep), 0);
	EXPECT_EQ(rep.ret, -EINVAL);
	req.op = SRV_OP_OPEN;
	req.request = 5;
	EXPECT_EQ(send_raw(conn, &req, sizeof(req), -1, &rep), 0);
	EXPECT_EQ(rep.ret, -ENODEV);
	req.op = SRV_OP_ATTACH;
	req.file = 1;
	EXPECT_EQ(send_raw(conn, &req, sizeof(req), -1, &rep), 0);
	EXPECT_EQ(rep.ret, -EBADF);
	EXPECT_EQ(send_raw(conn, &req, sizeof(req), p[1], &rep), 0);
	EXPECT_EQ(rep.ret, -EBADF);
	req.op = SRV_OP_IOCTL;
	req.request = DRM_IOCTL_I915_GEM_CREATE;
	EXPECT_EQ(send_raw(conn, &req, sizeof(req), -1, &rep), 0);
	EXPECT_EQ(rep.ret, -EBADF);
	/* A descriptor that is not the device's: the client's own business. */
	EXPECT_EQ(srv_client_ioctl(conn, 0, p[0], 0x3e00, NULL, &nm), -ENOTTY);
	EXPECT_EQ(nm, 1);
	/* The connection and the server still serve. */
	EXPECT_EQ(srv_client_open(conn, 128, 1, &anchor, &file), 0);
	close(anchor);
	close(p[0]);
	close(p[1]);
	close(conn);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
}

KTEST_F(server, prime_and_fence_descriptors)
{
	struct fix *f = ktest_current()->priv;
	char out[128] = "shared through a dma-buf", in[128] = {0};
	int conn = srv_connect(f->path), a1, a2;
	uint64_t f1, f2, rsvd2 = 0;
	uint32_t h1, batch;
	struct drm_prime_handle ph = {0};
	struct sync_file_info info = {0};
	struct pollfd pfd;
	int nm, fence;

	ASSERT_GE(conn, 0);
	ASSERT_EQ(srv_client_open(conn, 128, 1, &a1, &f1), 0);
	ASSERT_EQ(srv_client_open(conn, 128, 1, &a2, &f2), 0);
	ASSERT_EQ(bo_create(conn, f1, 4096, &h1), 0);
	ASSERT_EQ(srv_client_gem_rw(conn, f1, h1, out, sizeof(out), true), 0);
	ph.handle = h1;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	ASSERT_EQ(srv_client_ioctl(conn, f1, -1, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, NULL), 0);
	ASSERT_GE(ph.fd, 0);
	EXPECT_GE(fcntl(ph.fd, F_GETFD), 0);
	ph.handle = 0;
	ASSERT_EQ(srv_client_ioctl(conn, f2, -1, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph, NULL), 0);
	ASSERT_NE(ph.handle, 0u);
	ASSERT_EQ(srv_client_gem_rw(conn, f2, ph.handle, in, sizeof(in), false), 0);
	EXPECT_MEMEQ(in, out, sizeof(out));
	close(ph.fd);

	/* An out fence comes back as a sync_file of the client. */
	ASSERT_EQ(batch_create(conn, f1, &batch), 0);
	ASSERT_EQ(submit(conn, f1, batch, I915_EXEC_FENCE_OUT, &rsvd2), 0);
	fence = (int)(rsvd2 >> 32);
	ASSERT_GE(fence, 0);
	pfd = (struct pollfd){.fd = fence, .events = POLLIN};
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	EXPECT_EQ(srv_client_ioctl(conn, 0, fence, SYNC_IOC_FILE_INFO, &info, &nm), 0);
	EXPECT_EQ(nm, 0);
	EXPECT_EQ(info.status, 1);
	/* ... and goes back in as an input fence. */
	rsvd2 = (uint64_t)fence;
	EXPECT_EQ(submit(conn, f1, batch, I915_EXEC_FENCE_IN | I915_EXEC_FENCE_OUT, &rsvd2), 0);
	EXPECT_EQ((int)(uint32_t)rsvd2, fence);
	if ((int)(rsvd2 >> 32) >= 0)
		close((int)(rsvd2 >> 32));
	close(fence);
	close(a1);
	close(a2);
	close(conn);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
}

/* A child that submits (or waits) in a loop until it is killed. */
static pid_t busy_child(const char *path, bool wait)
{
	pid_t pid = fork();

	if (pid == 0) {
		int conn = srv_connect(path), anchor;
		uint32_t batch;
		uint64_t file;

		if (conn < 0 || srv_client_open(conn, 128, 1, &anchor, &file) ||
		    batch_create(conn, file, &batch))
			_exit(2);
		for (;;) {
			struct drm_i915_gem_wait w = {.bo_handle = batch, .timeout_ns = 1000000000};

			if (submit(conn, file, batch, 0, NULL))
				_exit(3);
			if (wait)
				srv_client_ioctl(conn, file, -1, DRM_IOCTL_I915_GEM_WAIT, &w, NULL);
		}
	}
	return pid;
}

static void killed_client(bool wait)
{
	struct fix *f = ktest_current()->priv;
	char out[256], in[256];
	int conn = srv_connect(f->path), anchor;
	uint32_t handle;
	uint64_t file;

	ASSERT_GE(conn, 0);
	ASSERT_EQ(srv_client_open(conn, 128, 1, &anchor, &file), 0);
	ASSERT_EQ(bo_create(conn, file, 4096, &handle), 0);
	for (unsigned int i = 0; i < sizeof(out); i++)
		out[i] = (char)(i ^ 0xa5);
	ASSERT_EQ(srv_client_gem_rw(conn, file, handle, out, sizeof(out), true), 0);
	for (int round = 0; round < 8; round++) {
		struct timespec d = {0, (long)(1 + round * 3) * 1000000};
		pid_t pids[4];

		for (int i = 0; i < 4; i++)
			pids[i] = busy_child(f->path, wait);
		nanosleep(&d, NULL);
		for (int i = 0; i < 4; i++) {
			int status;

			kill(pids[i], SIGKILL);
			ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
			EXPECT_TRUE(WIFSIGNALED(status));
		}
		/* Only our own file is left, with our content. */
		EXPECT_UEQ(wait_files(f->s, 1), 1);
		memset(in, 0, sizeof(in));
		ASSERT_EQ(srv_client_gem_rw(conn, file, handle, in, sizeof(in), false), 0);
		EXPECT_MEMEQ(in, out, sizeof(out));
	}
	close(anchor);
	close(conn);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
}

KTEST_F(server, client_killed_mid_execbuf)
{
	killed_client(false);
}

KTEST_F(server, client_killed_mid_wait)
{
	killed_client(true);
}

/* A server of its own in a child process, which the case kills. */
KTEST(server_death_is_eio)
{
	char dir[] = "/tmp/ttm-srv-death.XXXXXX", path[96];
	struct pollfd pfd;
	int ready[2], conn, anchor;
	uint32_t handle;
	uint64_t file;
	pid_t pid;
	char c;

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct i915_device *i915;
		struct srv *s;

		close(ready[0]);
		if (i915_gem_device_create(NULL, &i915) || srv_create(i915, path, NULL, &s))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(ready[1]);
	pfd = (struct pollfd){.fd = ready[0], .events = POLLIN};
	ASSERT_EQ(poll(&pfd, 1, 20000), 1);
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	close(ready[0]);
	conn = srv_connect(path);
	ASSERT_GE(conn, 0);
	ASSERT_EQ(srv_client_open(conn, 128, 1, &anchor, &file), 0);
	ASSERT_EQ(bo_create(conn, file, 4096, &handle), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Every call fails with -EIO at once, never hangs. */
	EXPECT_EQ(bo_create(conn, file, 4096, &handle), -EIO);
	EXPECT_EQ(bo_create(conn, file, 4096, &handle), -EIO);
	EXPECT_LT(srv_connect(path), 0);
	close(anchor);
	close(conn);
	unlink(path);
	rmdir(dir);
}

/* ---- CPU mappings over the wire (what the node does in a forked child) ---- */

struct revoke_state {
	char *addr;
	size_t len;
	uint64_t map;
	_Atomic uint64_t rev;
};

/* A revocation: our pages of the mapping go back to reserved. */
static void revoke_cb(uint64_t map, uint64_t rev, void *ctx)
{
	struct revoke_state *rs = ctx;

	if (map != rs->map)
		return;
	mmap(rs->addr, rs->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	atomic_store(&rs->rev, rev);
}

struct chan {
	int conn;
	struct revoke_state *rs;
};

static void *chan_thread(void *arg)
{
	struct chan *ch = arg;

	srv_client_revoke_serve(ch->conn, revoke_cb, ch->rs);
	return NULL;
}

/* Fault byte @off of @map in and map the run the server names over @rs->addr. */
static int fault_in(int conn, struct revoke_state *rs, uint64_t off, int *memfd)
{
	struct srv_rep rep;
	int fd, ret = srv_client_fault(conn, rs->map, off, &rep, &fd);

	if (ret)
		return ret;
	if (fd >= 0) {
		if (*memfd >= 0)
			close(*memfd);
		*memfd = fd;
	}
	if (*memfd < 0 || !rep.map_pages || rep.map_rev < atomic_load(&rs->rev))
		return -EIO;
	if (mmap(rs->addr + off, rep.map_pages * 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, *memfd, (off_t)rep.map_off) == MAP_FAILED)
		return -errno;
	return 0;
}

static int mapping_child(const char *path, int to_parent, int from_parent)
{
	enum { SIZE = 16 * 4096 };
	struct revoke_state rs = {.len = SIZE};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WB};
	char buf[SIZE], c;
	struct chan ch;
	pthread_t t;
	uint64_t file, bad;
	int conn = srv_connect(path), anchor, memfd = -1, nm;
	uint32_t handle;

	for (unsigned int i = 0; i < SIZE; i++)
		buf[i] = (char)(i * 13);
	if (conn < 0 || srv_client_open(conn, 128, 1, &anchor, &file) ||
	    bo_create(conn, file, SIZE, &handle) ||
	    srv_client_gem_rw(conn, file, handle, buf, SIZE, true))
		return 1;
	mo.handle = handle;
	if (srv_client_ioctl(conn, file, -1, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo, NULL))
		return 2;
	/* No mapping channel yet: no mapping. */
	if (srv_client_mmap(conn, file, -1, mo.offset, SIZE, PROT_READ | PROT_WRITE, &rs.map,
			    &nm) != -EINVAL)
		return 3;
	ch.conn = srv_connect(path);
	ch.rs = &rs;
	if (ch.conn < 0 || srv_client_mm(ch.conn))
		return 4;
	/* One channel per process. */
	bad = (uint64_t)srv_connect(path);
	if (srv_client_mm((int)bad) != -EEXIST)
		return 5;
	close((int)bad);
	if (srv_client_mmap(conn, file, -1, mo.offset + 4096 * 1024, SIZE, PROT_READ, &bad, &nm) !=
	    -EINVAL)
		return 6;
	if (srv_client_mmap(conn, file, -1, mo.offset, SIZE, PROT_READ | PROT_WRITE, &rs.map, &nm))
		return 7;
	rs.addr = mmap(NULL, SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rs.addr == MAP_FAILED || pthread_create(&t, NULL, chan_thread, &ch))
		return 8;
	{
		struct srv_rep rep;
		int fd;

		if (srv_client_fault(conn, rs.map + 1000, 0, &rep, &fd) != -EINVAL ||
		    srv_client_fault(conn, rs.map, SIZE, &rep, &fd) != -EINVAL ||
		    srv_client_fault(conn, rs.map, 100, &rep, &fd) != -EINVAL)
			return 9;
	}
	for (uint64_t off = 0; off < SIZE; off += 4096)
		if (fault_in(conn, &rs, off, &memfd))
			return 10;
	if (memcmp(rs.addr, buf, SIZE))
		return 11;
	/* Our write through the mapping is the object's content. */
	memcpy(rs.addr + 4096, "mapped", 6);
	memset(buf, 0, SIZE);
	if (srv_client_gem_rw(conn, file, handle, buf, SIZE, false) ||
	    memcmp(buf + 4096, "mapped", 6))
		return 12;
	/* The parent swaps the object out: our pages are revoked first. */
	if (write(to_parent, "m", 1) != 1 || read(from_parent, &c, 1) != 1)
		return 13;
	if (!atomic_load(&rs.rev))
		return 14;
	for (uint64_t off = 0; off < SIZE; off += 4096)
		if (fault_in(conn, &rs, off, &memfd))
			return 15;
	if (memcmp(rs.addr + 4096, "mapped", 6))
		return 16;
	if (srv_client_munmap(conn, rs.map) || srv_client_munmap(conn, rs.map) != -EINVAL)
		return 17;
	/* A mapping left behind goes with the process. */
	if (srv_client_mmap(conn, file, -1, mo.offset, SIZE, PROT_READ, &rs.map, &nm))
		return 18;
	return 0;
}

KTEST_F(server, child_mappings)
{
	struct fix *f = ktest_current()->priv;
	struct timespec ms = {0, 1000000};
	struct srv_stats before, st;
	int to_parent[2], from_parent[2], status;
	char c;
	pid_t pid;

	ASSERT_EQ(pipe(to_parent), 0);
	ASSERT_EQ(pipe(from_parent), 0);
	srv_get_stats(f->s, &before);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(mapping_child(f->path, to_parent[1], from_parent[0]));
	if (read(to_parent[0], &c, 1) == 1) {
		srv_get_stats(f->s, &st);
		EXPECT_EQ(st.maps, before.maps + 1);
		EXPECT_EQ(i915_gem_debugfs_write(f->i915, "i915_gem_drop_caches", "0x67", 4), 4);
		srv_get_stats(f->s, &st);
		EXPECT_GT(st.revokes, before.revokes);
		EXPECT_EQ(write(from_parent[1], "g", 1), 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	for (int i = 0; i < 2000; i++) {
		srv_get_stats(f->s, &st);
		if (st.maps == before.maps)
			break;
		nanosleep(&ms, NULL);
	}
	EXPECT_EQ(st.maps, before.maps);
	EXPECT_UEQ(wait_files(f->s, 0), 0);
	close(to_parent[0]);
	close(to_parent[1]);
	close(from_parent[0]);
	close(from_parent[1]);
}

/* ---- eviction thrash between client processes makes progress ---- */

#define THRASH_CLIENTS 4
#define THRASH_LMEM_MIB 16
#define THRASH_BO_MIB 2
#define THRASH_EXECS 60

/*
 * One client: half of local memory in every execbuffer, @THRASH_EXECS
 * times, then a wait for the last. Exit status: 0, or the step that failed.
 */
static int thrash_child(const char *path, int batch_fd)
{
	struct drm_i915_gem_memory_class_instance lmem = {.memory_class = I915_MEMORY_CLASS_DEVICE};
	struct drm_i915_gem_create_ext_memory_regions ext = {
	    .base.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS,
	    .num_regions = 1,
	    .regions = (uint64_t)(uintptr_t)&lmem,
	};
	enum { NBO = THRASH_LMEM_MIB / 2 / THRASH_BO_MIB };
	struct drm_i915_gem_exec_object2 obj[NBO + 1];
	struct drm_i915_gem_execbuffer2 eb = {.buffers_ptr = (uint64_t)(uintptr_t)obj,
					      .buffer_count = NBO + 1};
	struct drm_prime_handle ph = {.fd = batch_fd};
	struct drm_i915_gem_wait w = {.timeout_ns = -1};
	int conn = srv_connect(path), anchor;
	uint64_t fid;

	memset(obj, 0, sizeof(obj));
	if (conn < 0 || srv_client_open(conn, 128, 1, &anchor, &fid))
		return 1;
	for (int i = 0; i < NBO; i++) {
		struct drm_i915_gem_create_ext c = {.size = (uint64_t)THRASH_BO_MIB << 20,
						    .extensions = (uint64_t)(uintptr_t)&ext};

		if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_CREATE_EXT, &c, NULL))
			return 2;
		obj[i].handle = c.handle;
	}
	if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph, NULL))
		return 3;
	obj[NBO].handle = ph.handle;
	for (int i = 0; i < THRASH_EXECS; i++)
		if (srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb, NULL))
			return 4;
	w.bo_handle = obj[0].handle;
	return srv_client_ioctl(conn, fid, -1, DRM_IOCTL_I915_GEM_WAIT, &w, NULL) ? 5 : 0;
}

/*
 * Four client processes each keep half of a dg2's local memory in every
 * execbuffer (2x over-subscribed, every batch evicts another client's
 * objects): each finishes its batches and its wait within the bound.
 */
KTEST(thrash_clients_progress)
{
	char dir[] = "/tmp/ttm-srv-thrash.XXXXXX", path[96], params[32];
	uint32_t bbe[2] = {0x0a << 23, 0};
	struct drm_i915_gem_create c = {.size = 4096};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	struct drm_prime_handle ph = {.flags = DRM_CLOEXEC};
	pid_t pids[THRASH_CLIENTS];
	struct i915_device *i915;
	struct i915_gem_file *file;
	struct timespec ms = {0, 10000000};
	struct srv *s;
	int done = 0;
	void *p;

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	snprintf(params, sizeof(params), "lmem_size=%d", THRASH_LMEM_MIB);
	ASSERT_EQ(i915_gem_device_create_params("dg2", params, &i915), 0);
	ASSERT_EQ(srv_create(i915, path, NULL, &s), 0);
	ASSERT_EQ(i915_gem_file_open(i915, true, &file), 0);
	/* The shared batch: written through a CPU mapping, passed by PRIME. */
	ASSERT_EQ(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_CREATE, &c), 0);
	mo.handle = c.handle;
	ph.handle = c.handle;
	ASSERT_EQ(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, &p),
		  0);
	memcpy(p, bbe, sizeof(bbe));
	i915_gem_munmap(i915, p, 4096);
	ASSERT_EQ(i915_gem_ioctl(file, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	for (int i = 0; i < THRASH_CLIENTS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(thrash_child(path, ph.fd));
	}
	/* 120 s: minutes more than a loaded machine needs; a livelock never ends. */
	for (int t = 0; t < 12000 && done < THRASH_CLIENTS; t++) {
		for (int i = 0; i < THRASH_CLIENTS; i++) {
			int st;

			if (pids[i] > 0 && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				EXPECT_TRUE(WIFEXITED(st));
				EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
				pids[i] = 0;
				done++;
			}
		}
		nanosleep(&ms, NULL);
	}
	EXPECT_EQ(done, THRASH_CLIENTS);
	for (int i = 0; i < THRASH_CLIENTS; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
	close(ph.fd);
	if (done == THRASH_CLIENTS) {
		/* Torn down only when nothing is stuck in it. */
		i915_gem_file_close(file);
		srv_destroy(s);
		i915_gem_device_destroy(i915);
	}
	unlink(path);
	rmdir(dir);
}
