/* SPDX-License-Identifier: MIT */
/*
 * i915_gem_uapi: the i915 GEM uAPI of today's kernel (the ioctl numbers and
 * struct layouts of libdrm's <drm/i915_drm.h> and <drm/drm.h>), served by
 * the driver of this project over TTM. It is the boundary between the
 * driver and whatever presents it as a device node: the emulated render
 * node of node/ (an LD_PRELOAD library in the manner of Mesa's drm-shim),
 * and in-process tests that call it directly.
 *
 * A device is one i915 of a profile (an integrated Tiger Lake part or a
 * discrete DG2-class part); a file is one open() of its card or render
 * node (the kernel's struct drm_file: its own GEM handles, contexts, VMs
 * and syncobjs). Several descriptors may share a file (dup()); the node
 * layer owns that mapping and calls i915_gem_file_close() when the last
 * one goes.
 *
 * Every function may be called from any thread. Descriptors the driver
 * creates for the caller (dma-buf, sync_file, syncobj export) are real
 * descriptors of the calling process.
 */
#ifndef I915_GEM_UAPI_H
#define I915_GEM_UAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct i915_device;
struct i915_gem_file;

/**
 * struct i915_gem_profile - what a part says about itself.
 * @name: short profile name ("tgl", "dg2", ...).
 * @pci_vendor: 0x8086.
 * @pci_device: the PCI device id (I915_PARAM_CHIPSET_ID).
 * @pci_revision: the PCI revision (I915_PARAM_REVISION).
 * @pci_subsystem_vendor: subsystem vendor id.
 * @pci_subsystem_device: subsystem device id.
 * @pci_slot: the PCI slot name ("0000:00:02.0" for an integrated part,
 *	which igt calls integrated, "0000:03:00.0" for a discrete one).
 * @discrete: the part has device-local memory.
 */
struct i915_gem_profile {
	const char *name;
	uint16_t pci_vendor;
	uint16_t pci_device;
	uint8_t pci_revision;
	uint16_t pci_subsystem_vendor;
	uint16_t pci_subsystem_device;
	const char *pci_slot;
	bool discrete;
};

/**
 * i915_gem_profile_names() - the profile names i915_gem_device_create()
 * accepts.
 *
 * Return: a NULL-terminated array; the first name is the default.
 */
const char *const *i915_gem_profile_names(void);

/**
 * i915_gem_device_create() - probe a simulated i915 of profile @profile
 * (NULL: the default) with its GEM uAPI ready.
 * @profile: a name of i915_gem_profile_names(), or NULL.
 * @out: the device.
 *
 * Return: 0 with *@out set; -EINVAL (unknown profile); -ENOMEM; the
 * driver's probe errors. Nothing is left behind on failure.
 */
int i915_gem_device_create(const char *profile, struct i915_device **out);

/**
 * i915_gem_device_create_params() - i915_gem_device_create() with the
 * module options a modprobe would pass ("lmem_size=4096 reset=0"):
 * lmem_size (MiB of each local-memory region to use, 0 for all) takes
 * effect at probe only; reset and enable_hangcheck as their
 * i915_params/ debugfs files. Unknown options are ignored, as the kernel
 * ignores unknown module parameters.
 * @profile: as for i915_gem_device_create().
 * @params: the options, space separated; NULL for none.
 * @out: the device.
 *
 * Return: as i915_gem_device_create(); -EINVAL (a value that does not
 * parse).
 */
int i915_gem_device_create_params(const char *profile, const char *params,
				  struct i915_device **out);

/**
 * i915_gem_device_destroy() - close every file still open, wait for the
 * GPU and tear the device down.
 * @i915: the device.
 */
void i915_gem_device_destroy(struct i915_device *i915);

/**
 * i915_gem_device_profile() - the profile a device was created with.
 * @i915: the device.
 *
 * Return: the profile (static data).
 */
const struct i915_gem_profile *i915_gem_device_profile(struct i915_device *i915);

/**
 * i915_gem_file_open() - a new file of @i915, opened through the render
 * node (@render true) or the primary (card) node. Flink names can be
 * created and opened only through the primary node, as in the kernel.
 * @i915: the device.
 * @render: open through the render node (else the primary node).
 * @out: the file.
 *
 * Return: 0 with *@out set; -ENOMEM.
 */
int i915_gem_file_open(struct i915_device *i915, bool render, struct i915_gem_file **out);

/**
 * i915_gem_file_close() - release the file as the kernel releases a closed
 * drm_file: its handles, contexts, VMs and syncobjs; work in flight
 * finishes; nobody else's objects are touched.
 * @file: the file.
 */
void i915_gem_file_close(struct i915_gem_file *file);

/**
 * i915_gem_file_client_id() - the file's drm-client-id: unique among the
 * files of the device, never reused while it is open.
 * @file: the file.
 *
 * Return: the id.
 */
uint64_t i915_gem_file_client_id(struct i915_gem_file *file);

/**
 * i915_gem_file_show_fdinfo() - the driver's lines of the file's fdinfo,
 * as the kernel's i915_drm_client_fdinfo() prints them: per memory region
 * (system0, local0, stolen-*) drm-total/shared/active/resident/purgeable
 * of the objects the file has handles on, then drm-engine-<class> (ns the
 * file's contexts, live and destroyed, ran on that class) and
 * drm-engine-capacity-<class> where a class has several engines.
 * @file: the file.
 * @text: set to the malloc()ed text (not NUL-terminated).
 * @len: its length.
 *
 * Return: 0; -ENOMEM (nothing allocated).
 */
int i915_gem_file_show_fdinfo(struct i915_gem_file *file, char **text, size_t *len);

/**
 * i915_gem_ioctl() - one ioctl(2) on a descriptor of @file: @request is
 * the DRM_IOCTL_* value, @arg the caller's pointer, read and written as
 * the kernel's drm_ioctl() does (the size encoded in @request is copied in
 * and out; a bad pointer is -EFAULT, never a crash).
 * @file: the file.
 * @request: the DRM_IOCTL_* request.
 * @arg: the caller's argument.
 *
 * Return: 0 or a non-negative value the ioctl returns; a negative errno,
 * the kernel's for the same call (as drm_ioctl(): -ENOTTY when the
 * request's type is not 'd', -EINVAL for an unknown number in the core or
 * driver range, -EACCES for an ioctl the node does not allow).
 */
int i915_gem_ioctl(struct i915_gem_file *file, unsigned long request, void *arg);

/**
 * i915_gem_mmap() - mmap(2) of @len bytes at fake offset @offset of a
 * descriptor of @file (an offset from DRM_IOCTL_I915_GEM_MMAP_OFFSET or
 * the legacy GTT mmap). The mapping stays coherent with TTM moves and
 * keeps its object alive until i915_gem_munmap().
 * Every call is a mapping of its own (ttm_bo_vm_mmap_vma(): one object
 * may be mapped many times, at any page offset); @hint and MAP_FIXED /
 * MAP_FIXED_NOREPLACE in @flags place it as mmap(2) does, and
 * i915_gem_munmap() of any part of it trims or splits it.
 * @file: the file.
 * @hint: the address wanted, as mmap(2)'s first argument.
 * @len: bytes.
 * @prot: PROT_* as mmap(2) (every mapping is read/write today).
 * @flags: must include MAP_SHARED; MAP_FIXED or MAP_FIXED_NOREPLACE place it.
 * @offset: the fake offset.
 * @addr: out: the mapping's first byte.
 *
 * Return: 0 with *@addr set; -EINVAL (bad offset, length, flags); -EACCES
 * (no grant for this file); -EEXIST (MAP_FIXED_NOREPLACE over a mapping);
 * -EPERM (a fixed address below mmap_min_addr); -ENOMEM.
 */
int i915_gem_mmap(struct i915_gem_file *file, void *hint, size_t len, int prot, int flags,
		  off_t offset, void **addr);

/**
 * i915_gem_munmap() - munmap(2) of a range that may hold mappings made by
 * i915_gem_mmap() or DRM_IOCTL_I915_GEM_MMAP on @i915, or by mmap of a
 * dma-buf exported from @i915 (drm_dma_buf_mmap()).
 * Mappings inside the range go, ones crossing its ends are trimmed, one
 * holding it is split, as munmap(2) does.
 * @i915: the device.
 * @addr: the first byte, page aligned.
 * @len: bytes.
 *
 * Return: 0 when the range held some of the driver's mappings; -ENOENT
 * when it holds none (the caller unmaps it itself); -EINVAL (unaligned
 * @addr, @len 0); -ENOMEM.
 */
int i915_gem_munmap(struct i915_device *i915, void *addr, size_t len);

/**
 * i915_gem_debugfs_files() - the names of the files of the device's
 * debugfs directory (dri/<minor>/), NULL-terminated: i915_gem_drop_caches,
 * i915_capabilities, i915_wedged, i915_gem_objects, i915_engine_info,
 * i915_params/<name>, ...
 * @i915: the device.
 *
 * Return: the NULL-terminated array of names.
 */
const char *const *i915_gem_debugfs_files(struct i915_device *i915);

/**
 * i915_gem_set_caller_euid() - the effective uid of the process whose calls
 * the calling thread serves from now on (a device server serving another
 * process), since the kernel checks the calling task's credentials: answers
 * for root only (QUERY's free memory, GET_RESET_STATS' global count, context
 * priority above 0, master permissions) follow it.
 * @euid: that uid; negative (the default) means this process's own geteuid().
 * Thread-local; no device needed.
 */
void i915_gem_set_caller_euid(int64_t euid);

/**
 * i915_gem_debugfs_read() - the current contents of debugfs file @name.
 * @i915: the device.
 * @name: a name of i915_gem_debugfs_files().
 * @text: out: the malloc()ed text.
 * @len: out: its length.
 *
 * Return: 0 with *@text a malloc()ed NUL-terminated string (*@len bytes);
 * -ENOENT; -EACCES (write-only file); -ENOMEM.
 */
int i915_gem_debugfs_read(struct i915_device *i915, const char *name, char **text, size_t *len);

/**
 * i915_gem_debugfs_write() - a write of @len bytes to debugfs file @name
 * (i915_gem_drop_caches idles, retires, evicts, frees and shrinks through
 * TTM as the kernel's does; i915_wedged wedges or resets).
 * @i915: the device.
 * @name: a name of i915_gem_debugfs_files().
 * @buf: the bytes written.
 * @len: how many.
 *
 * Return: @len; -ENOENT; -EACCES (read-only file); -EINVAL (bad value).
 */
ssize_t i915_gem_debugfs_write(struct i915_device *i915, const char *name, const char *buf,
			       size_t len);

/**
 * i915_gem_mmio_read32() - a 32-bit read of register @reg through BAR 0
 * (live registers such as RING_TIMESTAMP tick at the CS timestamp
 * frequency; unmodelled ones read 0).
 * @i915: the device.
 * @reg: the register's offset in BAR 0.
 *
 * Return: the register's value.
 */
uint32_t i915_gem_mmio_read32(struct i915_device *i915, uint32_t reg);

#endif /* I915_GEM_UAPI_H */
