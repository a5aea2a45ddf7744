/* SPDX-License-Identifier: MIT */
/*
 * hw_fake - a recording stand-in for the i915 kernel driver, test-only.
 *
 * Plugged in as struct hw_open_args::sys, it answers every ioctl the hw back
 * end issues the way i915 does (GETPARAM, GET_APERTURE, QUERY, VM/context
 * create, GEM create/mmap-offset/close/wait, execbuffer2) and records each
 * call with a copy of its argument struct (and, for execbuffer, of the
 * object array), so a test checks the exact sequence and contents. Out-
 * fences are eventfds: hw_fake_signal() makes one readable and sets the
 * status SYNC_IOC_FILE_INFO reports for it, exactly what the fence waiter
 * sees from a real sync_file. CPU maps are anonymous memory.
 *
 * Locking: @lock serialises every callback and every hw_fake_* helper
 * (the fence waiter thread calls in concurrently). Read the record arrays
 * only while no submission is in flight, or under hw_fake_lock().
 */
#ifndef HW_FAKE_H
#define HW_FAKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <i915_drm.h>

#include "hw_gpu.h"
#include "hw_sys.h"

#define HW_FAKE_MAX_CALLS 256
#define HW_FAKE_MAX_NODES 4
#define HW_FAKE_MAX_OBJS 16
#define HW_FAKE_MAX_FENCES 1024
#define HW_FAKE_ARG_MAX 128

/**
 * struct hw_fake_call - one recorded ioctl.
 * @request: the ioctl number.
 * @fd: the fd it was issued on.
 * @arg: the argument struct as the back end passed it (before the fake
 *	wrote its answers), truncated to HW_FAKE_ARG_MAX bytes.
 * @arg_size: bytes of the argument struct (_IOC_SIZE(@request)).
 * @ret: what the fake returned.
 * @objs: for execbuffer2, the object array (first HW_FAKE_MAX_OBJS).
 * @regions: for GEM_CREATE_EXT, the region list of the extension.
 * @num_regions: its length (0 without the extension).
 * @ext_param: for CONTEXT_CREATE_EXT, the setparam extension's param; for
 *	QUERY, the first item's query_id.
 * @ext_value: the setparam value; for QUERY, the item length passed in.
 */
struct hw_fake_call {
	unsigned long request;
	int fd;
	_Alignas(8) unsigned char arg[HW_FAKE_ARG_MAX];
	size_t arg_size;
	int ret;
	struct drm_i915_gem_exec_object2 objs[HW_FAKE_MAX_OBJS];
	struct drm_i915_gem_memory_class_instance regions[HW_MAX_REGIONS];
	unsigned int num_regions;
	uint64_t ext_param;
	uint64_t ext_value;
};

/**
 * struct hw_fake_node - a render node the fake enumerates.
 * @path: its path.
 * @driver: the driver name drmGetVersion reports ("i915", "amdgpu", ...).
 * @open_err: negative errno open() fails with, or 0.
 */
struct hw_fake_node {
	char path[HW_PATH_MAX];
	char driver[16];
	int open_err;
};

/**
 * struct hw_fake_fence - an out-fence handed out by execbuffer.
 * @fd: the eventfd standing in for the sync_file.
 * @status: what SYNC_IOC_FILE_INFO reports (0 until signalled).
 * @closed: the back end closed it.
 */
struct hw_fake_fence {
	int fd;
	int status;
	bool closed;
};

/**
 * struct hw_fake - the fake device. Fill the knobs after hw_fake_init().
 * @lock: see the file comment.
 * @nodes: render nodes enumerated, @num_nodes of them.
 * @num_nodes: see @nodes.
 * @chipset_id: I915_PARAM_CHIPSET_ID.
 * @softpin: I915_PARAM_HAS_EXEC_SOFTPIN value (0: missing).
 * @exec_fence: I915_PARAM_HAS_EXEC_FENCE value.
 * @old_kernel: GETPARAM of the two feature params and the memory-region
 *	query fail with -EINVAL, as a kernel that predates them.
 * @aperture: GET_APERTURE aper_size.
 * @regions: memory regions the query reports, @num_regions of them.
 * @num_regions: see @regions.
 * @vm_size: I915_CONTEXT_PARAM_GTT_SIZE.
 * @fail_request: an ioctl number to fail, 0 for none.
 * @fail_err: the negative errno it fails with.
 * @fail_times: how many times it still fails (-1: always).
 * @fail_nth: the @fail_nth-th ioctl from now (1-based) fails with
 *	@fail_err, once; 0 disarms. Counts every request, including
 *	SYNC_IOC_FILE_INFO from the fence thread.
 * @busy: GEM_WAIT reports -ETIME.
 * @calls: the record, @num_calls entries (later calls are dropped).
 * @num_calls: see @calls.
 * @fences: out-fences handed out, @num_fences of them.
 * @num_fences: see @fences.
 * @open_fds: fds the back end holds open through the fake (leak check).
 * @live_handles: GEM handles created and not closed (leak check).
 * @live_maps: CPU maps not unmapped (leak check).
 * @live_ctx: contexts not destroyed.
 * @live_vms: VMs not destroyed.
 * @next_handle: the next GEM handle / context / VM id.
 */
struct hw_fake {
	pthread_mutex_t lock;
	struct hw_fake_node nodes[HW_FAKE_MAX_NODES];
	int num_nodes;
	uint32_t chipset_id;
	int softpin;
	int exec_fence;
	bool old_kernel;
	uint64_t aperture;
	struct hw_region regions[HW_MAX_REGIONS];
	unsigned int num_regions;
	uint64_t vm_size;
	unsigned long fail_request;
	int fail_err;
	int fail_times;
	unsigned int fail_nth;
	bool busy;

	struct hw_fake_call calls[HW_FAKE_MAX_CALLS];
	unsigned int num_calls;
	struct hw_fake_fence fences[HW_FAKE_MAX_FENCES];
	unsigned int num_fences;
	int open_fds;
	int live_handles;
	int live_maps;
	int live_ctx;
	int live_vms;
	uint32_t next_handle;
};

/* The ops table to put in struct hw_open_args::sys (sys_data: the fake). */
extern const struct hw_sys_ops hw_fake_ops;

/*
 * A default integrated part: one node "/dev/dri/renderD128" driven by
 * i915, chipset 0x9a49, softpin and exec fences, 256 MiB aperture, system
 * memory only, 256 TiB ppGTT.
 */
void hw_fake_init(struct hw_fake *fake);
/* Close the fence eventfds still open and destroy the lock. */
void hw_fake_fini(struct hw_fake *fake);
/* A heap-allocated hw_fake_init() fake, NULL when out of memory. */
struct hw_fake *hw_fake_new(void);
/* hw_fake_fini() and free a hw_fake_new() fake; NULL is ignored. */
void hw_fake_free(struct hw_fake *fake);
/* Add a 4 GiB device-local region (instance 0) with a 256 MiB BAR. */
void hw_fake_make_discrete(struct hw_fake *fake);
/*
 * Nothing the back end took from the fake is still held: no fd, GEM
 * handle, CPU map, context or VM (the live counters above, all zero).
 * When something is, @why (NULL: not wanted) names the counts.
 */
bool hw_fake_clean(const struct hw_fake *fake, char *why, size_t len);
/* Forget the recorded calls (the live counters stay). */
void hw_fake_clear_calls(struct hw_fake *fake);

/*
 * Signal out-fence @idx (order of execbuffers) with @status (1 or a
 * negative errno): what the kernel does when the request completes.
 * Returns 0 or -EINVAL (no such fence, already closed).
 */
int hw_fake_signal(struct hw_fake *fake, unsigned int idx, int status);

/*
 * A stand-alone out-fence (for tests of the fence bridge alone): an
 * eventfd registered like an execbuffer's. Returns its index or -errno;
 * *@fd receives the fd, owned by whoever it is handed to.
 */
int hw_fake_new_fence(struct hw_fake *fake, int *fd);

/* Index of the first recorded call of @request at or after @from, or -1. */
int hw_fake_find(struct hw_fake *fake, unsigned long request, unsigned int from);
/* Number of recorded calls of @request. */
unsigned int hw_fake_count(struct hw_fake *fake, unsigned long request);

#endif /* HW_FAKE_H */
