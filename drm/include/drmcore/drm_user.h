/* SPDX-License-Identifier: MIT */
/*
 * drm_user: copies between "kernel" memory (ours) and "user" memory (a
 * pointer a client passed in an ioctl argument), with the kernel's
 * contract: a bad user address is reported, never faulted on.
 *
 * Both sides live in this one process, so "user" only means "not trusted":
 * the address may be unmapped, PROT_NONE, read-only (for a copy to user) or
 * a small integer. The default mechanism (DRM_USER_COPY_GUARD) is the
 * kernel's own: the CPU copies, and a fault inside a copy is caught (a
 * SIGSEGV/SIGBUS handler, installed at the first copy, that returns into
 * the copy when the faulting thread is copying and otherwise hands the
 * signal to the disposition it replaced) and becomes a short count. The
 * CPU's access rights are the kernel's: on x86 a PROT_WRITE-only page is
 * readable, a PROT_READ page is not writable. Counts are exact: a copy
 * that faults is retried up to the faulting page. Where the handler cannot
 * be installed, or DRMCORE_USER_COPY=vm|pipe says so, the kernel checks
 * every page for us instead: process_vm_readv()/process_vm_writev() on our
 * own pid, one remote iovec per page so that a copy stops exactly at the
 * first bad page, or a per-thread pipe (write(2) from a bad source and
 * read(2) into a bad destination fail with EFAULT). These need a page to
 * be readable (writable) by the access rights of the mapping.
 *
 * A signal handler the program installs for SIGSEGV or SIGBUS after the
 * first copy sees the faults of later copies unless it chains to the one
 * it replaced (as ttm_vm_fault's does) or the call reaches
 * drm_user_guard_sigaction() (the render node interposes sigaction() and
 * signal() for that: igt installs its crash handler after the first ioctl).
 *
 * Pages that are absent on purpose: memory managed by a fault engine
 * (ttm_vm_fault in SIGSEGV mode keeps absent pages PROT_NONE) is refused
 * by process_vm_*v, where the kernel would fault it in. The owner of such
 * memory registers a resolver (drm_user_set_fault_resolver()); a copy that
 * stops at a page asks it to make the page present and retries, and reports
 * -EFAULT only when the resolver declines.
 *
 * All functions are thread safe and async-signal unsafe.
 */
#ifndef DRMCORE_DRM_USER_H
#define DRMCORE_DRM_USER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Mark a pointer as untrusted (documentation only, as the kernel's __user). */
#ifndef __user
#define __user
#endif

/**
 * drm_copy_from_user() - copy @n bytes from user address @from to @to.
 * Return: the number of bytes NOT copied (0 on success), as the kernel's
 * copy_from_user(); the uncopied tail of @to is zeroed.
 */
size_t drm_copy_from_user(void *to, const void __user *from, size_t n);

/**
 * drm_copy_to_user() - copy @n bytes from @from to user address @to.
 * Return: the number of bytes NOT copied (0 on success). Bytes before the
 * first bad page have been written.
 */
size_t drm_copy_to_user(void __user *to, const void *from, size_t n);

/**
 * drm_clear_user() - zero @n bytes at user address @to.
 * Return: the number of bytes NOT cleared (0 on success).
 */
size_t drm_clear_user(void __user *to, size_t n);

/**
 * drm_strncpy_from_user() - copy a NUL-terminated string of at most @count
 * bytes (NUL included when it fits) from @src to @dst.
 * It may read up to @count bytes (never past the page of the NUL), as the
 * kernel's word-at-a-time copy reads past the NUL within a word.
 * Return: the length of the string (without the NUL) when it is shorter
 * than @count; @count when no NUL was found within @count bytes (@dst is
 * then not terminated); -EFAULT when a byte before the NUL (or before
 * @count) is unreadable.
 */
ssize_t drm_strncpy_from_user(char *dst, const char __user *src, size_t count);

/**
 * drm_user_readable() - whether all of [@addr, @addr + @n) is readable
 * (an access_ok() that also checks the mapping).
 */
bool drm_user_readable(const void __user *addr, size_t n);

/**
 * typedef drm_user_fault_resolver_t - make a user page present.
 * @addr: the first byte a copy could not reach.
 * @write: the copy writes to user memory.
 * Return: true when the page at @addr is now accessible and the copy
 * should retry; false to report -EFAULT. Called without any drm lock held;
 * it may sleep.
 */
typedef bool (*drm_user_fault_resolver_t)(uintptr_t addr, bool write);

/**
 * drm_user_set_fault_resolver() - install @fn (NULL removes it). One per
 * process: the address space is process-wide. Install it before any
 * concurrent copy runs.
 */
void drm_user_set_fault_resolver(drm_user_fault_resolver_t fn);

/**
 * enum drm_user_copy_mode - how copies reach user memory.
 * @DRM_USER_COPY_VM: process_vm_readv/process_vm_writev.
 * @DRM_USER_COPY_PIPE: a per-thread pipe (write/read report EFAULT).
 * @DRM_USER_COPY_GUARD: the CPU copies under the fault handler (the
 *	default where the handler can be installed).
 */
enum drm_user_copy_mode {
	DRM_USER_COPY_VM,
	DRM_USER_COPY_PIPE,
	DRM_USER_COPY_GUARD,
};

/** drm_user_copy_mode() - the mechanism in use (chosen at first copy). */
enum drm_user_copy_mode drm_user_copy_mode(void);

/**
 * drm_user_set_copy_mode() - force a mechanism (for tests; process-wide,
 * call before concurrent copies). Return: 0; -ENOSYS when @mode cannot
 * work here.
 */
int drm_user_set_copy_mode(enum drm_user_copy_mode mode);

/**
 * drm_user_guard_sigaction() - sigaction() of @sig for a program while the
 * fault guard is installed, so that the guard stays in front: for SIGSEGV
 * and SIGBUS the program's disposition @act (NULL: unchanged) becomes the
 * one the guard hands faults outside a copy to, and *@oldact (unless NULL)
 * receives the one it replaces, as if the guard were not there. A preloaded
 * library that interposes sigaction()/signal() calls it first.
 * @sig: the signal.
 * @act: the new disposition, or NULL.
 * @oldact: where the previous one goes, or NULL.
 * Return: true when handled (nothing else to do); false for other signals
 * or before the guard is installed (make the real call then).
 */
bool drm_user_guard_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact);

/* Guarded copies between two checks of the installed handlers. */
#define DRM_USER_GUARD_VERIFY_EVERY 64

/**
 * drm_user_guard_verify() - check that the SIGSEGV/SIGBUS handlers in
 * force are the guard (or handlers of the same image in front of it); a
 * disposition installed by a raw rt_sigaction() system call, which no
 * sigaction() interposer sees, is moved behind the guard (it gets every
 * fault that is not a copy's, as through drm_user_guard_sigaction()) and
 * ours is put back. Guarded copies call it every
 * DRM_USER_GUARD_VERIFY_EVERY copies, starting with the first; a
 * library interposing syscall() or opening a device may call it at once.
 * Two system calls; no-op before the guard is installed.
 */
void drm_user_guard_verify(void);

/**
 * drm_user_set_target() - make this thread's user copies reach process
 * @pid instead of our own (0: our own again), as a device server serving a
 * client's ioctl copies in that client's address space (the kernel's
 * copy_*_user act on the calling task's mm). Copies to another process
 * need DRM_USER_COPY_VM (and ptrace access to it); in pipe mode they fail.
 * The fault resolver is asked only for our own address space.
 * Return: the previous target (0: our own).
 */
pid_t drm_user_set_target(pid_t pid);

/** drm_user_target() - the pid this thread's user copies reach. */
pid_t drm_user_target(void);

/* u64 <-> pointer, as the kernel's u64_to_user_ptr(). */
static inline void __user *drm_u64_to_user_ptr(uint64_t v)
{
	return (void *)(uintptr_t)v;
}

#endif /* DRMCORE_DRM_USER_H */
