/* SPDX-License-Identifier: MIT */
/*
 * node_priv: the emulated render node's internals, shared by the files of
 * node/; not installed.
 *
 * The node is an LD_PRELOAD library in the manner of Mesa's drm-shim: it
 * defines libc entry points (open, stat, ioctl, mmap, ...) and the libudev
 * API, so that an unmodified program sees /dev/dri/card0 and renderD128 of
 * one i915 device (i915/gem's GEM uAPI) living in the program's process.
 *
 * Files:
 *   node_real.c    the real libc functions, resolved with dlsym(RTLD_NEXT)
 *   node_device.c  device lifetime, the profile, the fake sysfs/devfs/debugfs
 *                  tree (a real directory tree under /dev/shm that virtual
 *                  paths are redirected into) and path resolution
 *   node_fd.c      the descriptor table: which descriptors are device files,
 *                  live debugfs files or the PCI BAR, with dup/close/fork rules
 *   node_libc.c    the interposed libc entry points
 *   node_pci.c     the PCI view libpciaccess reads: the slot in
 *                  /sys/bus/pci/devices listings and BAR 0 with live registers
 *   node_udev.c    the libudev API: our drm and pci devices, the real
 *                  libudev for everything else
 *
 * Re-entrancy: every call into the driver runs with node_in_driver set on
 * the calling thread; the interposers then forward straight to libc, so the
 * driver's own open/mmap/munmap never come back into the node. The driver's
 * own threads (the simulated GPU) call the interposers unflagged: those
 * only act on descriptors and ranges the node handed to the program.
 */
#ifndef NODE_PRIV_H
#define NODE_PRIV_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <i915/i915_gem_uapi.h>

/* Symbols the program must see: the interposers and the libudev API. */
#define NODE_EXPORT __attribute__((visibility("default")))

/* DRM's character major and the minors of the two nodes. */
#define NODE_DRM_MAJOR 226
#define NODE_MINOR_PRIMARY 0
#define NODE_MINOR_RENDER 128

/* ---- node_real.c ------------------------------------------------------ */

/* One id per libc function the node forwards to. */
enum node_real_id {
	NODE_REAL_open,
	NODE_REAL_openat,
	NODE_REAL_close,
	NODE_REAL_stat,
	NODE_REAL_lstat,
	NODE_REAL_fstat,
	NODE_REAL_fstatat,
	NODE_REAL_statx,
	NODE_REAL_access,
	NODE_REAL_faccessat,
	NODE_REAL_readlink,
	NODE_REAL_readlinkat,
	NODE_REAL_realpath,
	NODE_REAL_opendir,
	NODE_REAL_scandir,
	NODE_REAL_scandir64,
	NODE_REAL_fopen,
	NODE_REAL_fopen64,
	NODE_REAL_ioctl,
	NODE_REAL_mmap,
	NODE_REAL_munmap,
	NODE_REAL_mremap,
	NODE_REAL_sigaction,
	NODE_REAL_signal,
	NODE_REAL_syscall,
	NODE_REAL_dup,
	NODE_REAL_dup2,
	NODE_REAL_dup3,
	NODE_REAL_fcntl,
	NODE_REAL_write,
	NODE_REAL_poll,
	NODE_REAL_ppoll,
	NODE_REAL_COUNT,
};

/**
 * node_real() - the next definition of libc function @id after this
 * library (dlsym(RTLD_NEXT)), cached after the first lookup.
 * Return: the function; never NULL (a missing libc function aborts with a
 * message: the program could not have run without it either).
 */
void *node_real(enum node_real_id id);

#define REAL(fn) ((__typeof__(&fn))node_real(NODE_REAL_##fn))

/**
 * node_in_driver - set on a thread while it runs driver code on the
 * node's behalf; the interposers forward straight to libc then.
 */
extern __thread int node_in_driver;

#define NODE_DRIVER_CALL(expr)                                                                     \
	({                                                                                         \
		node_in_driver++;                                                                  \
		__typeof__(expr) node_ret__ = (expr);                                              \
		node_in_driver--;                                                                  \
		node_ret__;                                                                        \
	})

/* ---- node_device.c ---------------------------------------------------- */

/**
 * struct node_device - the one device of this process.
 * @lock: serializes creation and the mapping-range list.
 * @created: the device and its tree exist (set once, read without @lock).
 * @failed: creation failed; the node then behaves as a machine without
 *	the device (ENOENT everywhere) and says why once on stderr.
 * @unloaded: the program unloaded the module (libkmod, node_kmod.c): no device,
 *	no files, until it loads it again.
 * @params: module options of the next creation (TTM_I915_PARAMS, then what
 *	modprobe passed), as i915_gem_device_create_params() takes them.
 * @create_err: the last creation's error.
 * @inflight: calls of the program's threads inside the driver (ioctl, mmap).
 * @closing: the process is exiting: the device goes once @inflight drains.
 * @files: drm_files open (each holds the module, as the kernel's fops owner).
 * @forked: this process is a fork() child of the creator; the device lives
 *	in the parent and every use of it fails with EIO.
 * @i915: the driver's device.
 * @profile: its PCI view.
 * @creator: pid of the process that created it.
 * @root: the tree's directory (no trailing slash); @rootlen its length.
 * @pci_dir: virtual sysfs path of the PCI function ("/sys/devices/...").
 * @tree_dev: st_dev of the tree's filesystem.
 * @debugfs_ino: st_ino of the tree's /sys/kernel/debug, whose st_dev is
 *	reported as @debugfs_dev so that it looks like a mount point.
 * @node_ino: st_ino of the tree files behind card0 and renderD128.
 * @bar2_size: the size of BAR 2 (node_pci_probe()).
 */
struct node_device {
	pthread_mutex_t lock;
	atomic_bool created;
	bool failed;
	bool unloaded;
	atomic_int files;
	atomic_int inflight;
	char *params;
	int create_err;
	atomic_bool closing;
	atomic_bool forked;
	atomic_bool fork_warned;
	struct i915_device *i915;
	const struct i915_gem_profile *profile;
	pid_t creator;
	char root[256];
	size_t rootlen;
	char pci_dir[128];
	dev_t tree_dev;
	dev_t debugfs_dev;
	ino_t debugfs_ino;
	ino_t node_ino[2];
	uint64_t bar2_size;
};

extern struct node_device node_dev;

/**
 * node_device_get() - the device, created (with its tree) on first use.
 * Return: true when the device exists and this process may use it.
 * Sets errno (ENOENT: creation failed; EIO: forked child, after the one
 * stderr line) when it returns false.
 */
bool node_device_get(void);

/** node_say() - one message on stderr, written with the real write(). */
void node_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * node_trace - TTM_I915_NODE_TRACE is set: every device ioctl is logged on
 * stderr with its result.
 */
extern bool node_trace;

/**
 * node_call_begin() - a program thread enters the driver; false (errno EIO)
 * once the process is exiting. Pair with node_call_end().
 */
static inline bool node_call_begin(void)
{
	atomic_fetch_add(&node_dev.inflight, 1);
	if (atomic_load(&node_dev.closing)) {
		atomic_fetch_sub(&node_dev.inflight, 1);
		errno = EIO;
		return false;
	}
	return true;
}

static inline void node_call_end(void)
{
	atomic_fetch_sub(&node_dev.inflight, 1);
}

/**
 * node_device_unload() - rmmod i915: destroy the device and its files.
 * Return: 0; -ENOENT (not loaded); -EAGAIN (files, mappings or BAR
 * mappings still hold it, as delete_module(O_NONBLOCK) of a module in use).
 */
int node_device_unload(void);

/**
 * node_device_load() - modprobe i915 @options: create the device again with
 * the module options ("lmem_size=4096 reset=0", i915_gem_device_create_params()).
 * Return: 0; -EEXIST (already loaded); the creation's error (-EINVAL for a
 * value that does not parse).
 */
int node_device_load(const char *options);

/** node_device_loaded() - the module counts as loaded. */
bool node_device_loaded(void);

/** node_range_count() - driver mappings the program holds. */
size_t node_range_count(void);

/** node_bar_count() - BAR 0 mappings the program holds. */
unsigned int node_bar_count(void);

/**
 * node_fork_refuse() - the forked-child rule: say once on stderr that the
 * device lives in the parent, and set errno to EIO.
 * Return: true when this process is a forked child (the caller fails).
 */
bool node_fork_refuse(void);

/** What a path is, once resolved against the device's tree. */
enum node_path_kind {
	NODE_PATH_REAL,	   /* not ours: forward as given */
	NODE_PATH_TREE,	   /* a static file or directory of the tree */
	NODE_PATH_DEVNODE, /* /dev/dri/card0 or renderD128 */
	NODE_PATH_DEBUGFS, /* a live debugfs file of the driver */
	NODE_PATH_BAR,	   /* the PCI function's resource0 */
	NODE_PATH_PROCFD,  /* /proc/self/fd/N of a device descriptor */
	NODE_PATH_FDINFO,  /* /proc/self/fdinfo/N of a device descriptor */
	NODE_PATH_SW_SYNC, /* debugfs sync/sw_sync */
};

/**
 * struct node_path - a resolved path.
 * @kind: see enum node_path_kind.
 * @tree: the path to use with libc (the tree path for tree kinds).
 * @virt: the virtual (lexically normalized) path, for classification.
 * @minor: for DEVNODE, PROCFD and FDINFO, the node's minor.
 * @debugfs_name: for DEBUGFS, the driver's name of the file.
 * @fd: for PROCFD and FDINFO, the device descriptor named.
 */
struct node_path {
	enum node_path_kind kind;
	char tree[PATH_MAX];
	char virt[PATH_MAX];
	int minor;
	const char *debugfs_name;
	int fd;
};

/**
 * node_path_native() - @np names a file of the real filesystem, to be used
 * as the caller gave it (not ours, or a /proc entry about a device
 * descriptor, which only opening treats specially).
 */
static inline bool node_path_native(const struct node_path *np)
{
	return np->kind == NODE_PATH_REAL || np->kind == NODE_PATH_PROCFD ||
	       np->kind == NODE_PATH_FDINFO;
}

/**
 * node_path_resolve() - resolve @path relative to @dirfd (AT_FDCWD or a
 * directory descriptor) as the node sees it.
 * Return: 0, or a negative errno (ENAMETOOLONG; ENOENT when the path is
 * ours but the device could not be created; EIO in a forked child).
 */
int node_path_resolve(int dirfd, const char *path, struct node_path *out);

/**
 * node_tree_strip() - turn a path of the tree back into its virtual path,
 * in place. Return: true when @path was in the tree.
 */
bool node_tree_strip(char *path);

/**
 * node_stat_fixup() - make @st of a tree object look like the kernel's:
 * character devices for the nodes, a separate st_dev for debugfs.
 */
void node_stat_fixup(struct stat *st);

/* ---- node_fd.c -------------------------------------------------------- */

enum node_fd_kind {
	NODE_FD_NONE,
	NODE_FD_DEVICE,	 /* a drm_file of the device */
	NODE_FD_DEBUGFS, /* a live debugfs file: writes go to the driver */
	NODE_FD_BAR,	 /* resource0: mmap gives live registers */
};

/**
 * struct node_obj - what a tracked descriptor refers to; shared by every
 * descriptor dup()ed from the first and freed with the last.
 * @refs: descriptors (and in-flight calls) holding it.
 * @kind: the descriptors' kind.
 * @file: for DEVICE, the driver's file (closed with the last reference).
 * @minor: for DEVICE, the node it was opened through.
 * @name: for DEBUGFS, the driver's file name.
 * @writable: for DEBUGFS, opened for writing.
 */
struct node_obj {
	atomic_int refs;
	enum node_fd_kind kind;
	struct i915_gem_file *file;
	int minor;
	char *name;
	bool writable;
};

/** node_obj_new() - a new object with one reference; NULL on ENOMEM. */
struct node_obj *node_obj_new(enum node_fd_kind kind);

/** node_obj_put() - drop a reference; the last closes the driver's file. */
void node_obj_put(struct node_obj *obj);

/**
 * node_fd_install() - @fd now refers to @obj (the caller's reference is
 * consumed). Whatever @fd referred to before is dropped.
 * Return: 0 or -ENOMEM (the reference is dropped then).
 */
int node_fd_install(int fd, struct node_obj *obj);

/**
 * node_fd_get() - the object behind @fd with a reference taken, or NULL
 * when @fd is not one of the node's. Cheap for untracked descriptors.
 */
struct node_obj *node_fd_get(int fd);

/** node_fd_kind() - the kind of @fd without taking a reference. */
enum node_fd_kind node_fd_kind(int fd);

/** node_fd_forget() - @fd is closed: drop what it referred to. */
void node_fd_forget(int fd);

/** node_fd_dup() - @newfd is now a duplicate of @oldfd. */
void node_fd_dup(int oldfd, int newfd);

/**
 * node_fdinfo_text() - what drm_show_fdinfo() prints for the drm file of
 * @obj (a DEVICE object): the core's drm-driver, drm-client-id and
 * drm-pdev lines, then the driver's (i915_gem_file_show_fdinfo()).
 * @obj: the descriptor's object.
 * @text: set to the malloc()ed text, NULL when there is none (not a drm
 *	file of this process).
 * @len: its length.
 *
 * Return: 0; -ENOMEM; -EIO when the process is exiting.
 */
int node_fdinfo_text(struct node_obj *obj, char **text, size_t *len);

/**
 * node_drm_fdinfo() - drm_show_fdinfo() of the driver's file @file: the
 * lines node_fdinfo_text() gives for a descriptor of it (the device server
 * answers a forked child with them).
 * @file: a file of this process's device.
 * @text: set to the malloc()ed text (not NUL-terminated).
 * @len: its length.
 *
 * Return: 0; -ENOMEM.
 */
int node_drm_fdinfo(struct i915_gem_file *file, char **text, size_t *len);

/* ---- node_pci.c ------------------------------------------------------- */

/**
 * node_bar_mmap() - mmap of BAR 0 through resource0.
 * Return: the mapping, or MAP_FAILED with errno set.
 */
void *node_bar_mmap(void *addr, size_t len, int prot, int flags, off_t offset);

/**
 * node_bar_munmap() - munmap of a range that may hold BAR mappings.
 * Return: true when the range held one (now unmapped).
 */
bool node_bar_munmap(void *addr, size_t len, int *ret);

/**
 * node_bar_shutdown() - stop refreshing BAR mappings (before the device goes).
 */
void node_bar_shutdown(void);

/** node_bar_size() - the size of BAR 0. */
uint64_t node_bar_size(void);

/** node_bar_phys() - the bus address BAR 0 is assigned. */
uint64_t node_bar_phys(void);

/**
 * node_pci_config() - fill @cfg with the function's 256 bytes of
 * configuration space.
 */
void node_pci_config(uint8_t cfg[256]);

/** node_pci_class() - the function's 24-bit class code. */
uint32_t node_pci_class(void);

/**
 * node_pci_probe() - size the BARs of the new device: BAR 2 is the
 * profile's mappable aperture (integrated) or its CPU-visible local memory
 * (discrete, asked with a memory-region QUERY). Called once per creation.
 */
void node_pci_probe(void);

/** node_bar2_size() - the size of BAR 2 (GMADR or LMEMBAR), a power of two. */
uint64_t node_bar2_size(void);

/**
 * node_pci_resource_text() - the sysfs "resource" file of the function
 * into @buf (@len bytes): start, end and flags of each BAR, the ROM and
 * the bridge windows, as the kernel prints them.
 * Return: the bytes written (without a terminating NUL).
 */
size_t node_pci_resource_text(char *buf, size_t len);

/**
 * node_pci_resource_size() - the size of BAR @bar (0 when the function has
 * no such BAR), the size of its sysfs resourceN file.
 */
uint64_t node_pci_resource_size(unsigned int bar);

/* ---- node_libc.c: mapping ranges ---------------------------------------- */

/**
 * node_range_add() - remember that [@addr, @addr + @len) was mapped by the
 * driver for the program (mmap of a device descriptor, legacy GEM_MMAP),
 * so that munmap() of it goes to the driver.
 */
void node_range_add(void *addr, size_t len);

/**
 * node_range_foreach_unlocked() - call @fn for every recorded driver mapping
 * [@start, @end), without the list's lock: only for a fork child in its atfork
 * handler (one thread; the list is its copy of the parent's).
 */
void node_range_foreach_unlocked(void (*fn)(uintptr_t start, uintptr_t end, void *ctx), void *ctx);

#endif /* NODE_PRIV_H */
