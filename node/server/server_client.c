// SPDX-License-Identifier: MIT
/*
 * The client side of the device server's wire protocol (server_wire.h):
 * used by the render node in a forked child, and by the server's tests,
 * stress program, benchmark and fuzz target.
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "server_wire.h"

/* Direct system calls: the node interposes close() and friends. */
static void srv_sys_close(int fd)
{
	syscall(SYS_close, fd);
}

int srv_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = errno;

		if (err == EINTR)
			continue;
		srv_sys_close(fd);
		return -err;
	}
	return fd;
}

/* srv_call() waiting at most @timeout_ms for the reply (-1: for ever); -ETIMEDOUT. */
static int srv_call_timed(int conn, const struct srv_req *req, const int *fds, int nfds,
			  struct srv_rep *rep, int *fd_out, int cloexec, int timeout_ms)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SRV_MAX_FDS)];
		struct cmsghdr align;
	} c;
	struct iovec iov = {(void *)req, sizeof(*req)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;
	ssize_t n;

	*fd_out = -1;
	if (conn < 0)
		return -EIO;
	if (nfds > 0) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
	}
	do
		n = sendmsg(conn, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*req))
		return -EIO;

	iov.iov_base = rep;
	iov.iov_len = sizeof(*rep);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = c.buf;
	mh.msg_controllen = sizeof(c.buf);
	/*
	 * The server is running the call: a signal cannot abandon it (the
	 * reply would be read by the next call), so wait on. A caller with a
	 * timeout closes the connection when it expires.
	 */
	if (timeout_ms >= 0) {
		struct pollfd pfd = {.fd = conn, .events = POLLIN};
		int r;

		do
			r = poll(&pfd, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			return -ETIMEDOUT;
	}
	do
		n = recvmsg(conn, &mh, cloexec ? MSG_CMSG_CLOEXEC : 0);
	while (n < 0 && errno == EINTR);
	for (cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*fd_out < 0)
				*fd_out = fd;
			else
				srv_sys_close(fd);
		}
	}
	if (n != (ssize_t)sizeof(*rep) || rep->magic != SRV_MAGIC || (mh.msg_flags & MSG_CTRUNC)) {
		if (*fd_out >= 0)
			srv_sys_close(*fd_out);
		*fd_out = -1;
		return -EIO;
	}
	return 0;
}

int srv_call(int conn, const struct srv_req *req, const int *fds, int nfds, struct srv_rep *rep,
	     int *fd_out, int cloexec)
{
	return srv_call_timed(conn, req, fds, nfds, rep, fd_out, cloexec, -1);
}

size_t srv_read_self(void *dst, const void *addr, size_t n)
{
	struct iovec l = {dst, n}, r = {(void *)addr, n};
	ssize_t got;

	/* Page by page would find the readable prefix; the callers need all or nothing. */
	got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	return got < 0 ? 0 : (size_t)got;
}

size_t srv_write_self(void *addr, const void *src, size_t n)
{
	struct iovec l = {(void *)src, n}, r = {addr, n};
	ssize_t got = process_vm_writev(getpid(), &l, 1, &r, 1, 0);

	return got < 0 ? 0 : (size_t)got;
}

static int srv_client_ioctl_rep(int conn, uint64_t file, int target, unsigned long request,
				void *arg, int *not_mine, uint64_t *map)
{
	struct srv_req req = {
	    .magic = SRV_MAGIC,
	    .op = target >= 0 ? SRV_OP_FD_IOCTL : SRV_OP_IOCTL,
	    .file = file,
	    .request = request,
	    .arg = (uint64_t)(uintptr_t)arg,
	};
	unsigned char head[SRV_FD_HEAD];
	size_t size = _IOC_SIZE(request), n = 0;
	int fds[SRV_MAX_FDS] = {0}, nfds = 0, in_off, out_off, fd_out, ret;
	struct srv_rep rep;

	if (not_mine)
		*not_mine = 0;
	if (target >= 0)
		fds[nfds++] = target;
	if (size > sizeof(head))
		size = sizeof(head);
	if (arg && size && srv_fd_request(request))
		n = srv_read_self(head, arg, size);
	srv_fd_fields(request, head, n, &in_off, &out_off);
	if (in_off >= 0 && (size_t)in_off + 4 <= n) {
		int32_t fd;

		memcpy(&fd, head + in_off, sizeof(fd));
		/* A descriptor that is not open goes as "none": -1 at the server. */
		if (fd >= 0 && fcntl(fd, F_GETFD) >= 0) {
			fds[nfds++] = fd;
			req.flags |= SRV_REQ_FD;
		}
	}
	ret = srv_call(conn, &req, fds, nfds, &rep, &fd_out, 1);
	if (ret)
		return ret;
	if (rep.flags & SRV_REP_NOT_MINE) {
		if (not_mine)
			*not_mine = 1;
		return -ENOTTY;
	}
	if (fd_out >= 0) {
		int32_t v = fd_out;

		if (!(rep.flags & SRV_REP_FD) || rep.fd_off > size - 4 ||
		    rep.fd_off != (uint32_t)out_off ||
		    srv_write_self((char *)arg + rep.fd_off, &v, sizeof(v)) != sizeof(v)) {
			srv_sys_close(fd_out);
			return rep.ret < 0 ? rep.ret : -EFAULT;
		}
	}
	if (map)
		*map = (rep.flags & SRV_REP_MAP) ? rep.map : 0;
	return rep.ret;
}

int srv_client_ioctl(int conn, uint64_t file, int target, unsigned long request, void *arg,
		     int *not_mine)
{
	return srv_client_ioctl_rep(conn, file, target, request, arg, not_mine, NULL);
}

int srv_client_gem_mmap(int conn, uint64_t file, void *arg, uint64_t *map)
{
	return srv_client_ioctl_rep(conn, file, -1, DRM_IOCTL_I915_GEM_MMAP, arg, NULL, map);
}

int srv_client_open(int conn, int minor, int cloexec, int *anchor, uint64_t *file)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_OPEN, .request = (uint64_t)minor};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, NULL, 0, &rep, &fd, cloexec);

	if (ret)
		return ret;
	if (rep.ret < 0 || fd < 0 || !(rep.flags & SRV_REP_ANCHOR)) {
		if (fd >= 0)
			srv_sys_close(fd);
		return rep.ret < 0 ? rep.ret : -EIO;
	}
	*anchor = fd;
	*file = rep.file;
	return 0;
}

int srv_client_attach(int conn, uint64_t file, int anchor)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_ATTACH, .file = file};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, &anchor, 1, &rep, &fd, 1);

	if (fd >= 0)
		srv_sys_close(fd);
	return ret ? ret : rep.ret;
}

int srv_client_stats(int conn, struct srv_stats *st)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_STATS};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, NULL, 0, &rep, &fd, 1);

	if (fd >= 0)
		srv_sys_close(fd);
	if (ret)
		return ret;
	*st = rep.stats;
	return rep.ret;
}

int srv_client_mm(int conn)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_MM};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, NULL, 0, &rep, &fd, 1);

	if (fd >= 0)
		srv_sys_close(fd);
	return ret ? ret : rep.ret;
}

int srv_client_mmap(int conn, uint64_t file, int dmabuf, uint64_t offset, uint64_t len, int prot,
		    uint64_t *map, int *not_mine)
{
	struct srv_req req = {.magic = SRV_MAGIC,
			      .op = SRV_OP_MMAP,
			      .file = file,
			      .request = offset,
			      .arg = len,
			      .aux = (uint32_t)prot};
	struct srv_rep rep;
	int fd, ret;

	*not_mine = 0;
	if (dmabuf >= 0)
		req.flags |= SRV_REQ_FD;
	ret = srv_call(conn, &req, dmabuf >= 0 ? &dmabuf : NULL, dmabuf >= 0, &rep, &fd, 1);
	if (fd >= 0)
		srv_sys_close(fd);
	if (ret)
		return ret;
	if (rep.flags & SRV_REP_NOT_MINE) {
		*not_mine = 1;
		return -ENODEV;
	}
	if (rep.ret < 0)
		return rep.ret;
	*map = rep.map;
	return 0;
}

int srv_client_fault(int conn, uint64_t map, uint64_t off, struct srv_rep *rep, int *memfd)
{
	return srv_client_fault_timed(conn, map, off, rep, memfd, -1);
}

int srv_client_fault_timed(int conn, uint64_t map, uint64_t off, struct srv_rep *rep, int *memfd,
			   int timeout_ms)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_FAULT, .file = map, .arg = off};
	int fd, ret = srv_call_timed(conn, &req, NULL, 0, rep, &fd, 1, timeout_ms);

	*memfd = -1;
	if (ret)
		return ret;
	if (rep->ret < 0 || !(rep->flags & SRV_REP_MEMFD)) {
		if (fd >= 0)
			srv_sys_close(fd);
		return rep->ret < 0 ? rep->ret : 0;
	}
	if (fd < 0)
		return -EIO;
	*memfd = fd;
	return 0;
}

int srv_client_munmap(int conn, uint64_t map)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_MUNMAP, .file = map};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, NULL, 0, &rep, &fd, 1);

	if (fd >= 0)
		srv_sys_close(fd);
	return ret ? ret : rep.ret;
}

void srv_client_revoke_serve(int conn, void (*revoke)(uint64_t map, uint64_t rev, void *ctx),
			     void *ctx)
{
	for (;;) {
		struct srv_req req;
		struct srv_rep rep = {.magic = SRV_MAGIC};
		ssize_t n = recv(conn, &req, sizeof(req), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (n != (ssize_t)sizeof(req) || req.magic != SRV_MAGIC ||
		    req.op != SRV_OP_REVOKE) {
			rep.ret = -EPROTO;
		} else {
			revoke(req.file, req.arg, ctx);
			rep.map = req.file;
		}
		do
			n = send(conn, &rep, sizeof(rep), MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(rep))
			return;
	}
}

int srv_client_adopt(int conn, uint64_t addr, uint64_t len, uint64_t *map)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_ADOPT, .request = len, .arg = addr};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, NULL, 0, &rep, &fd, 1);

	if (fd >= 0)
		srv_sys_close(fd);
	if (ret)
		return ret;
	if (rep.ret < 0)
		return rep.ret;
	*map = rep.map;
	return 0;
}

int srv_client_close(int conn, uint64_t file)
{
	struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_CLOSE, .file = file};
	struct srv_rep rep;
	int fd, ret = srv_call(conn, &req, NULL, 0, &rep, &fd, 1);

	if (fd >= 0)
		srv_sys_close(fd);
	return ret ? ret : rep.ret;
}

int srv_client_gem_rw(int conn, uint64_t file, uint32_t handle, void *buf, uint64_t size,
		      bool write)
{
	struct drm_i915_gem_pwrite p = {
	    .handle = handle,
	    .size = size,
	    .data_ptr = (uint64_t)(uintptr_t)buf,
	};

	/* struct drm_i915_gem_pread has the same layout. */
	return srv_client_ioctl(
	    conn, file, -1, write ? DRM_IOCTL_I915_GEM_PWRITE : DRM_IOCTL_I915_GEM_PREAD, &p, NULL);
}
