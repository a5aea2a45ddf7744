// SPDX-License-Identifier: MIT
/*
 * The real libc functions behind the interposers: dlsym(RTLD_NEXT) once per
 * function, lazily, because interposers run before this library's
 * constructors when another library's constructor opens a file.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "node_priv.h"

__thread int node_in_driver;

static const char *const node_real_names[NODE_REAL_COUNT] = {
    [NODE_REAL_open] = "open",		 [NODE_REAL_openat] = "openat",
    [NODE_REAL_close] = "close",	 [NODE_REAL_stat] = "stat",
    [NODE_REAL_lstat] = "lstat",	 [NODE_REAL_fstat] = "fstat",
    [NODE_REAL_fstatat] = "fstatat",	 [NODE_REAL_statx] = "statx",
    [NODE_REAL_access] = "access",	 [NODE_REAL_faccessat] = "faccessat",
    [NODE_REAL_readlink] = "readlink",	 [NODE_REAL_readlinkat] = "readlinkat",
    [NODE_REAL_realpath] = "realpath",	 [NODE_REAL_opendir] = "opendir",
    [NODE_REAL_scandir] = "scandir",	 [NODE_REAL_scandir64] = "scandir64",
    [NODE_REAL_fopen] = "fopen",	 [NODE_REAL_fopen64] = "fopen64",
    [NODE_REAL_ioctl] = "ioctl",	 [NODE_REAL_mmap] = "mmap",
    [NODE_REAL_munmap] = "munmap",	 [NODE_REAL_mremap] = "mremap",
    [NODE_REAL_sigaction] = "sigaction", [NODE_REAL_signal] = "signal",
    [NODE_REAL_syscall] = "syscall",	 [NODE_REAL_dup] = "dup",
    [NODE_REAL_dup2] = "dup2",		 [NODE_REAL_dup3] = "dup3",
    [NODE_REAL_fcntl] = "fcntl",	 [NODE_REAL_write] = "write",
    [NODE_REAL_poll] = "poll",		 [NODE_REAL_ppoll] = "ppoll",
};

static void *_Atomic node_real_cache[NODE_REAL_COUNT];

void *node_real(enum node_real_id id)
{
	void *fn = atomic_load_explicit(&node_real_cache[id], memory_order_acquire);
	static const char msg[] = "ttm-i915-node: a libc function is missing: ";

	if (fn)
		return fn;
	fn = dlsym(RTLD_NEXT, node_real_names[id]);
	if (!fn) {
		/* No interposer can go on without its libc function. */
		ssize_t r = syscall(SYS_write, 2, msg, sizeof(msg) - 1);

		r += syscall(SYS_write, 2, node_real_names[id], strlen(node_real_names[id]));
		r += syscall(SYS_write, 2, "\n", 1);
		(void)r;
		abort();
	}
	atomic_store_explicit(&node_real_cache[id], fn, memory_order_release);
	return fn;
}
