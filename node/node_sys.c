// SPDX-License-Identifier: MIT
/*
 * syscall(3): a program that installs its SIGSEGV/SIGBUS handler with a raw
 * rt_sigaction system call through libc's syscall() goes behind the user
 * copy guard, exactly as one installed through sigaction() does (the guard
 * takes the faults of the driver's copies of bad user pointers, everything
 * else goes to the program's handler). A raw rt_sigaction made without
 * libc is caught by the guard's own periodic check (drm_user_guard_verify()).
 * Every other system call goes to libc untouched.
 */
#include <drmcore/drm_user.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "node_priv.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* The kernel's struct for rt_sigaction. */
struct node_ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/*
 * rt_sigaction(@sig, @kact, @kold, @setsize) for SIGSEGV/SIGBUS through
 * the guard. Return: true when done (*@ret set), false to make the call.
 */
static bool node_guard_rt_sigaction(long sig, long kact, long kold, long setsize, long *ret)
{
	struct node_ksigaction k;
	struct sigaction act, old;

	if ((sig != SIGSEGV && sig != SIGBUS) || setsize != (long)sizeof(k.mask))
		return false;
	memset(&act, 0, sizeof(act));
	if (kact) {
		/* The kernel reads the argument first: a bad pointer is -EFAULT. */
		if (drm_copy_from_user(&k, (const void *)kact, sizeof(k))) {
			*ret = -EFAULT;
			return true;
		}
		act.sa_handler = k.handler;
		act.sa_flags = (int)(k.flags & ~(unsigned long)SA_RESTORER);
		memcpy(&act.sa_mask, &k.mask, sizeof(k.mask));
	}
	if (!drm_user_guard_sigaction((int)sig, kact ? &act : NULL, &old))
		return false;
	if (kold) {
		memset(&k, 0, sizeof(k));
		k.handler = old.sa_handler;
		k.flags = (unsigned long)old.sa_flags;
		memcpy(&k.mask, &old.sa_mask, sizeof(k.mask));
		if (drm_copy_to_user((void *)kold, &k, sizeof(k))) {
			*ret = -EFAULT;
			return true;
		}
	}
	*ret = 0;
	return true;
}

NODE_EXPORT long syscall(long nr, ...)
{
	long a[6], ret;
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_rt_sigaction && !node_in_driver &&
	    node_guard_rt_sigaction(a[0], a[1], a[2], a[3], &ret)) {
		if (ret < 0) {
			errno = (int)-ret;
			return -1;
		}
		return ret;
	}
	return REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
