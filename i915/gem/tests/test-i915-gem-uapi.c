// SPDX-License-Identifier: MIT
/*
 * The GEM uAPI through i915_gem_ioctl() with libdrm's structs: each case
 * checks a kernel behaviour (errno, handle order, written data).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>
#include <i915_drm.h>

#include <i915/i915_cmds.h>
#include <i915/i915_gem_uapi.h>
#include <i915/i915_vm.h>
#include <drmcore/sync_file.h>
#include <ttm/dma_fence.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_global.h>

#include "../gem_priv.h"
#include "ktest.h"

#define BAD_PTR ((void *)8)

struct uapi_fx {
	struct i915_device *i915;
	struct i915_gem_file *file;
};

static void fx_open(struct uapi_fx *fx, const char *profile, bool render)
{
	memset(fx, 0, sizeof(*fx));
	ASSERT_EQ(i915_gem_device_create(profile, &fx->i915), 0);
	ASSERT_EQ(i915_gem_file_open(fx->i915, render, &fx->file), 0);
}

static void fx_close(struct uapi_fx *fx)
{
	if (fx->file)
		i915_gem_file_close(fx->file);
	if (fx->i915)
		i915_gem_device_destroy(fx->i915);
}

static uint32_t gem_create(struct i915_gem_file *file, uint64_t size)
{
	struct drm_i915_gem_create c = {.size = size};

	EXPECT_EQ(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_CREATE, &c), 0);
	return c.handle;
}

static int gem_close(struct i915_gem_file *file, uint32_t handle)
{
	struct drm_gem_close c = {.handle = handle};

	return i915_gem_ioctl(file, DRM_IOCTL_GEM_CLOSE, &c);
}

KTEST(version_name_and_truncation)
{
	struct uapi_fx fx;
	char name[2] = {0}, date[8] = {0}, desc[64] = {0};
	struct drm_version v = {
	    .name = name, .name_len = 2, .date = date, .date_len = 8, .desc = desc, .desc_len = 64};

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_VERSION, &v), 0);
	EXPECT_EQ(v.version_major, 1);
	EXPECT_EQ(v.version_minor, 6);
	EXPECT_UEQ(v.name_len, 4); /* the full length, though only 2 bytes fit */
	EXPECT_EQ(memcmp(name, "i9", 2), 0);
	EXPECT_STREQ(date, "0");
	EXPECT_STREQ(desc, "Intel Graphics");
	fx_close(&fx);
}

KTEST(ioctl_bad_pointer_efault)
{
	struct uapi_fx fx;
	drm_i915_getparam_t gp = {.param = I915_PARAM_CHIPSET_ID, .value = BAD_PTR};

	fx_open(&fx, NULL, true);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, BAD_PTR), -EFAULT);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), -EFAULT);
	EXPECT_EQ(i915_gem_ioctl(fx.file, _IOWR('x', 0x40, int), &gp), -ENOTTY);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOWR(0x9f, int), &gp), -EINVAL);
	fx_close(&fx);
}

KTEST(getparam_profiles)
{
	struct uapi_fx fx;
	int value = 0;
	drm_i915_getparam_t gp = {.param = I915_PARAM_CHIPSET_ID, .value = &value};

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_EQ(value, 0x9a49);
	gp.param = I915_PARAM_HAS_LLC;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_EQ(value, 1);
	gp.param = I915_PARAM_CS_TIMESTAMP_FREQUENCY;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_EQ(value, 19200000);
	gp.param = 12345;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), -EINVAL);
	gp.param = I915_PARAM_IRQ_ACTIVE;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), -ENODEV);
	fx_close(&fx);

	fx_open(&fx, "dg2", true);
	gp.param = I915_PARAM_CHIPSET_ID;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_EQ(value, 0x56a0);
	gp.param = I915_PARAM_HAS_LLC;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_EQ(value, 0);
	fx_close(&fx);
}

KTEST(gem_create_sizes_and_handles_lowest_first)
{
	struct uapi_fx fx;
	struct drm_i915_gem_create c = {.size = 0};
	uint32_t a, b, d;

	fx_open(&fx, NULL, true);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, &c), -EINVAL);
	c.size = 1;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, &c), 0);
	EXPECT_UEQ(c.size, 4096);
	a = c.handle;
	b = gem_create(fx.file, 8192);
	EXPECT_EQ(a, 1u);
	EXPECT_EQ(b, 2u);
	EXPECT_EQ(gem_close(fx.file, a), 0);
	EXPECT_EQ(gem_close(fx.file, a), -EINVAL);
	d = gem_create(fx.file, 4096);
	EXPECT_EQ(d, 1u);
	c.size = ~0ull; /* rounds up to 0 */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, &c), -EINVAL);
	c.size = 1ull << 60; /* more than the region has */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, &c), -E2BIG);
	fx_close(&fx);
}

KTEST(flink_primary_only)
{
	struct uapi_fx fx;
	struct i915_gem_file *card, *card2;
	struct drm_gem_flink fl = {0};
	struct drm_gem_open op = {0};

	fx_open(&fx, NULL, true);
	fl.handle = gem_create(fx.file, 4096);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_GEM_FLINK, &fl), -EACCES);
	ASSERT_EQ(i915_gem_file_open(fx.i915, false, &card), 0);
	ASSERT_EQ(i915_gem_file_open(fx.i915, false, &card2), 0);
	fl.handle = gem_create(card, 8192);
	ASSERT_EQ(i915_gem_ioctl(card, DRM_IOCTL_GEM_FLINK, &fl), 0);
	EXPECT_GT(fl.name, 0u);
	op.name = fl.name;
	/* card2 is not the master: only root is authenticated without AUTH_MAGIC. */
	if (geteuid() == 0) {
		ASSERT_EQ(i915_gem_ioctl(card2, DRM_IOCTL_GEM_OPEN, &op), 0);
		EXPECT_UEQ(op.size, 8192);
		EXPECT_EQ(op.handle, 1u);
	}
	op.name = fl.name + 100;
	EXPECT_EQ(i915_gem_ioctl(card, DRM_IOCTL_GEM_OPEN, &op), -ENOENT);
	i915_gem_file_close(card2);
	i915_gem_file_close(card);
	fx_close(&fx);
}

KTEST(mmap_offset_write_pread)
{
	struct uapi_fx fx;
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WB};
	struct drm_i915_gem_pread pr = {0};
	uint32_t buf[4] = {0};
	void *ptr = NULL;

	fx_open(&fx, "tgl", true);
	mo.handle = gem_create(fx.file, 4096);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(fx.file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, &ptr),
		  0);
	((uint32_t *)ptr)[1] = 0xdeadbeef;
	pr.handle = mo.handle;
	pr.size = sizeof(buf);
	pr.data_ptr = (uintptr_t)buf;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	EXPECT_EQ(buf[1], 0xdeadbeefu);
	pr.data_ptr = (uintptr_t)BAD_PTR;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), -EFAULT);
	pr.offset = 4096;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), -EINVAL);
	EXPECT_EQ(i915_gem_mmap(fx.file, NULL, 8192, PROT_READ, MAP_SHARED, (off_t)mo.offset, &ptr),
		  -EINVAL);
	EXPECT_EQ(i915_gem_munmap(fx.i915, ptr, 4096), 0);
	EXPECT_EQ(i915_gem_munmap(fx.i915, ptr, 4096), -ENOENT);
	mo.flags = I915_MMAP_OFFSET_FIXED;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), -ENODEV);
	fx_close(&fx);
}

KTEST(mmap_offset_other_file_eacces)
{
	struct uapi_fx fx;
	struct i915_gem_file *other;
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WC};
	void *ptr;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_file_open(fx.i915, true, &other), 0);
	mo.handle = gem_create(fx.file, 4096);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	EXPECT_EQ(i915_gem_mmap(other, NULL, 4096, PROT_READ, MAP_SHARED, (off_t)mo.offset, &ptr),
		  -EACCES);
	i915_gem_file_close(other);
	fx_close(&fx);
}

KTEST(dg2_refuses_gtt_mmap_and_pread)
{
	struct uapi_fx fx;
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_GTT};
	struct drm_i915_gem_pread pr = {.size = 4};
	uint32_t v;

	fx_open(&fx, "dg2", true);
	mo.handle = gem_create(fx.file, 4096);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), -ENODEV);
	mo.flags = I915_MMAP_OFFSET_FIXED;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	pr.handle = mo.handle;
	pr.data_ptr = (uintptr_t)&v;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), -EOPNOTSUPP);
	fx_close(&fx);
}

KTEST(query_engines_two_pass)
{
	struct uapi_fx fx;
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_ENGINE_INFO};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};
	struct drm_i915_query_engine_info *info;

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	ASSERT_GT(item.length, 0);
	info = calloc(1, (size_t)item.length);
	ASSERT_NOT_NULL(info);
	item.data_ptr = (uintptr_t)info;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	/* Tiger Lake GT2: rcs0, bcs0, vcs0, vcs1 (physical vcs2), vecs0, by class. */
	ASSERT_EQ(info->num_engines, 5u);
	EXPECT_EQ(info->engines[0].engine.engine_class, I915_ENGINE_CLASS_RENDER);
	EXPECT_EQ(info->engines[1].engine.engine_class, I915_ENGINE_CLASS_COPY);
	EXPECT_EQ(info->engines[2].engine.engine_class, I915_ENGINE_CLASS_VIDEO);
	EXPECT_EQ(info->engines[2].engine.engine_instance, 0);
	EXPECT_EQ(info->engines[3].engine.engine_class, I915_ENGINE_CLASS_VIDEO);
	EXPECT_EQ(info->engines[3].engine.engine_instance, 1);
	EXPECT_EQ(info->engines[3].logical_instance, 1u);
	EXPECT_EQ(info->engines[4].engine.engine_class, I915_ENGINE_CLASS_VIDEO_ENHANCE);
	item.length = 0;
	item.query_id = 999;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(item.length, -EINVAL);
	free(info);
	fx_close(&fx);
}

/* A batch that stores @value at dword 0 of the buffer at execbuffer index 0. */
static void store_batch(struct i915_gem_file *file, uint32_t batch, uint32_t value,
			struct drm_i915_gem_relocation_entry *reloc)
{
	uint32_t cs[] = {MI_STORE_DWORD_IMM_GEN8, 0, 0, value, MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_pwrite pw = {
	    .handle = batch, .size = sizeof(cs), .data_ptr = (uintptr_t)cs};

	EXPECT_EQ(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	memset(reloc, 0, sizeof(*reloc));
	reloc->offset = 4;
	reloc->presumed_offset = ~0ull;
	reloc->read_domains = I915_GEM_DOMAIN_RENDER;
	reloc->write_domain = I915_GEM_DOMAIN_RENDER;
}

KTEST(execbuffer2_store_dword_lands)
{
	struct uapi_fx fx;
	struct drm_i915_gem_relocation_entry reloc;
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_wait w = {.timeout_ns = -1};
	struct drm_i915_gem_pread pr = {.size = 4};
	uint32_t v = 0;

	fx_open(&fx, "tgl", true);
	obj[0].handle = gem_create(fx.file, 4096);
	obj[1].handle = gem_create(fx.file, 4096);
	store_batch(fx.file, obj[1].handle, 0xc0ffee, &reloc);
	reloc.target_handle = obj[0].handle;
	obj[1].relocation_count = 1;
	obj[1].relocs_ptr = (uintptr_t)&reloc;
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	eb.flags = I915_EXEC_RENDER;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	/* Presuming 0 in a fresh VM, the target is placed there (eb_pin_vma()). */
	EXPECT_EQ(obj[0].offset, 0u);
	EXPECT_EQ(reloc.presumed_offset, obj[0].offset);
	w.bo_handle = obj[0].handle;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), 0);
	pr.handle = obj[0].handle;
	pr.data_ptr = (uintptr_t)&v;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	EXPECT_EQ(v, 0xc0ffeeu);

	/* Bad selectors, bad exec list pointer, bad relocation pointer. */
	eb.flags = 5; /* no such legacy ring */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	eb.flags = I915_EXEC_BSD | (3 << 13); /* no such video engine selector */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	eb.flags = I915_EXEC_RENDER | I915_EXEC_BSD_RING1; /* a selector on another ring */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	eb.flags = I915_EXEC_RENDER;
	eb.buffers_ptr = (uintptr_t)BAD_PTR;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EFAULT);
	eb.buffers_ptr = (uintptr_t)obj;
	obj[1].relocs_ptr = (uintptr_t)BAD_PTR;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EFAULT);
	obj[1].relocs_ptr = (uintptr_t)&reloc;
	eb.rsvd1 = 77; /* no such context */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOENT);
	fx_close(&fx);
}

KTEST(execbuffer2_relocs_refused_on_dg2)
{
	struct uapi_fx fx;
	struct drm_i915_gem_relocation_entry reloc;
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	uint32_t cs[] = {MI_BATCH_BUFFER_END, 0};

	fx_open(&fx, "dg2", true);
	obj[0].handle = gem_create(fx.file, 4096);
	obj[1].handle = gem_create(fx.file, 4096);
	memset(&reloc, 0, sizeof(reloc));
	reloc.target_handle = obj[0].handle;
	obj[1].relocation_count = 1;
	obj[1].relocs_ptr = (uintptr_t)&reloc;
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	(void)cs;
	fx_close(&fx);
}

KTEST(context_create_destroy_and_vm)
{
	struct uapi_fx fx;
	struct drm_i915_gem_context_create cc = {0};
	struct drm_i915_gem_context_destroy cd = {0};
	struct drm_i915_gem_vm_control vc = {0};
	struct drm_i915_gem_context_param p = {0};

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), 0);
	EXPECT_EQ(cc.ctx_id, 1u);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_VM_CREATE, &vc), 0);
	EXPECT_EQ(vc.vm_id, 1u);
	p.ctx_id = cc.ctx_id;
	p.param = I915_CONTEXT_PARAM_VM;
	p.value = vc.vm_id;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), 0);
	p.param = I915_CONTEXT_PARAM_GTT_SIZE;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_GT(p.value, 0u);
	/* Used now: the VM can no longer change. */
	p.param = I915_CONTEXT_PARAM_VM;
	p.value = vc.vm_id;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -EINVAL);
	cd.ctx_id = 0;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &cd), -ENOENT);
	cd.ctx_id = cc.ctx_id;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &cd), 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &cd), -ENOENT);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_VM_DESTROY, &vc), 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_VM_DESTROY, &vc), -ENOENT);
	fx_close(&fx);
}

KTEST(debugfs_drop_caches_purges_dontneed)
{
	struct uapi_fx fx;
	struct drm_i915_gem_madvise ma = {.madv = I915_MADV_DONTNEED};
	struct drm_i915_gem_pwrite pw = {.size = 4};
	uint32_t v = 1;
	char *text = NULL;
	size_t len = 0;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_debugfs_read(fx.i915, "i915_gem_drop_caches", &text, &len), 0);
	EXPECT_STREQ(text, "0x000003ff\n");
	free(text);
	EXPECT_EQ(i915_gem_debugfs_write(fx.i915, "i915_capabilities", "1", 1), -EACCES);
	EXPECT_EQ(i915_gem_debugfs_write(fx.i915, "i915_gem_drop_caches", "junk", 4), -EINVAL);
	ma.handle = gem_create(fx.file, 4096);
	pw.handle = ma.handle;
	pw.data_ptr = (uintptr_t)&v;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MADVISE, &ma), 0);
	EXPECT_EQ(ma.retained, 1u);
	EXPECT_EQ(i915_gem_debugfs_write(fx.i915, "i915_gem_drop_caches", "0x3ff\n", 6), 6);
	ma.madv = I915_MADV_WILLNEED;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MADVISE, &ma), 0);
	EXPECT_EQ(ma.retained, 0u);
	/* A purged object has no pages to give. */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), -EFAULT);
	fx_close(&fx);
}

KTEST(debugfs_wedged_reset)
{
	struct uapi_fx fx;
	struct drm_i915_gem_context_create cc = {0};
	char *text = NULL;
	size_t len = 0;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_debugfs_write(fx.i915, "i915_params/reset", "0", 1), 1);
	ASSERT_EQ(i915_gem_debugfs_write(fx.i915, "i915_wedged", "-1", 2), 2);
	ASSERT_EQ(i915_gem_debugfs_read(fx.i915, "i915_wedged", &text, &len), 0);
	EXPECT_STREQ(text, "1\n");
	free(text);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), -EIO);
	ASSERT_EQ(i915_gem_debugfs_write(fx.i915, "i915_params/reset", "3", 1), 1);
	ASSERT_EQ(i915_gem_debugfs_write(fx.i915, "i915_gem_drop_caches", "0x80", 4), 4);
	ASSERT_EQ(i915_gem_debugfs_read(fx.i915, "i915_wedged", &text, &len), 0);
	EXPECT_STREQ(text, "0\n");
	free(text);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), 0);
	fx_close(&fx);
}

KTEST(reg_read_timestamp_ticks)
{
	struct uapi_fx fx;
	struct drm_i915_reg_read r = {.offset = 0x2358 | I915_REG_READ_8B_WA};
	uint64_t first;
	uint32_t lo;

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_REG_READ, &r), 0);
	first = r.val;
	lo = i915_gem_mmio_read32(fx.i915, 0x2358);
	usleep(2000);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_REG_READ, &r), 0);
	/* 2 ms at 19.2 MHz is 38400 ticks. */
	EXPECT_GE(r.val - first, 38400u);
	EXPECT_GE(i915_gem_mmio_read32(fx.i915, 0x2358) - lo, 38400u);
	r.offset = 0x2000;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_REG_READ, &r), -EINVAL);
	fx_close(&fx);
}

KTEST(tiling_caching_domain_tgl)
{
	struct uapi_fx fx;
	struct drm_i915_gem_set_tiling st = {.tiling_mode = I915_TILING_X, .stride = 512};
	struct drm_i915_gem_get_tiling gt = {0};
	struct drm_i915_gem_caching ca = {0};
	struct drm_i915_gem_set_domain sd = {.read_domains = I915_GEM_DOMAIN_CPU,
					     .write_domain = I915_GEM_DOMAIN_CPU};
	struct drm_i915_gem_busy busy = {0};
	struct drm_i915_gem_get_aperture ap = {0};

	fx_open(&fx, "tgl", true);
	st.handle = gt.handle = ca.handle = sd.handle = busy.handle = gem_create(fx.file, 16384);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_TILING, &st), 0);
	EXPECT_EQ(st.swizzle_mode, (uint32_t)I915_BIT_6_SWIZZLE_NONE);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_GET_TILING, &gt), 0);
	EXPECT_EQ(gt.tiling_mode, (uint32_t)I915_TILING_X);
	st.stride = 100; /* not a multiple of the tile width */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_TILING, &st), -EINVAL);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_GET_CACHING, &ca), 0);
	EXPECT_EQ(ca.caching, (uint32_t)I915_CACHING_CACHED); /* LLC part */
	ca.caching = 7;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_CACHING, &ca), -EINVAL);
	ca.caching = I915_CACHING_NONE;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_CACHING, &ca), 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_DOMAIN, &sd), 0);
	sd.write_domain = I915_GEM_DOMAIN_GTT; /* write domain must equal the read domains */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_DOMAIN, &sd), -EINVAL);
	sd.read_domains = sd.write_domain = I915_GEM_DOMAIN_RENDER;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_SET_DOMAIN, &sd), -EINVAL);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_BUSY, &busy), 0);
	EXPECT_EQ(busy.busy, 0u);
	busy.handle = 99;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_BUSY, &busy), -ENOENT);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_GET_APERTURE, &ap), 0);
	EXPECT_GT(ap.aper_size, 0u);
	EXPECT_LE(ap.aper_available_size, ap.aper_size);
	fx_close(&fx);
}

KTEST(dg2_lmem_create_ext_and_regions)
{
	struct uapi_fx fx;
	struct drm_i915_gem_memory_class_instance regions[2] = {{I915_MEMORY_CLASS_DEVICE, 0},
								{I915_MEMORY_CLASS_SYSTEM, 0}};
	struct drm_i915_gem_create_ext_memory_regions ext = {
	    .base = {.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS},
	    .num_regions = 2,
	    .regions = (uintptr_t)regions};
	struct drm_i915_gem_create_ext c = {.size = 4096, .extensions = (uintptr_t)&ext};
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_MEMORY_REGIONS};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};
	struct drm_i915_gem_caching ca = {0};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	struct drm_i915_query_memory_regions *mr;
	uint32_t *p = NULL;

	fx_open(&fx, "dg2-smallbar", true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), 0);
	EXPECT_UEQ(c.size, 65536); /* lmem pages are 64 KiB */
	mo.handle = c.handle;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(fx.file, NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, (void **)&p),
		  0);
	p[100] = 42;
	EXPECT_EQ(p[100], 42u);
	EXPECT_EQ(i915_gem_munmap(fx.i915, p, 65536), 0);
	ca.handle = c.handle;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_GET_CACHING, &ca), -ENODEV);
	/* The same region twice. */
	regions[1] = regions[0];
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), -EINVAL);
	ext.regions = (uintptr_t)BAD_PTR;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), -EFAULT);
	ext.base.name = 77;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), -EINVAL);

	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	ASSERT_GT(item.length, 0);
	mr = calloc(1, (size_t)item.length);
	ASSERT_NOT_NULL(mr);
	item.data_ptr = (uintptr_t)mr;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(mr->num_regions, 2u);
	EXPECT_EQ(mr->regions[1].region.memory_class, I915_MEMORY_CLASS_DEVICE);
	EXPECT_LT(mr->regions[1].probed_cpu_visible_size, mr->regions[1].probed_size);
	/* A buffer too short for the answer: the item's length says -EINVAL. */
	item.length = 8;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(item.length, -EINVAL);
	free(mr);
	fx_close(&fx);
}

KTEST(context_engines_map_selects_blitter)
{
	struct uapi_fx fx;
	struct {
		uint64_t extensions;
		struct i915_engine_class_instance engines[2];
	} map = {0, {{I915_ENGINE_CLASS_COPY, 0}, {I915_ENGINE_CLASS_RENDER, 0}}};
	struct drm_i915_gem_context_create_ext_setparam sp = {
	    .base = {.name = I915_CONTEXT_CREATE_EXT_SETPARAM},
	    .param = {.param = I915_CONTEXT_PARAM_ENGINES,
		      .size = sizeof(map),
		      .value = (uintptr_t)&map}};
	struct drm_i915_gem_context_create_ext cc = {
	    .flags = I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS, .extensions = (uintptr_t)&sp};
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_pwrite pw = {.size = 8};
	uint32_t cs[2] = {MI_BATCH_BUFFER_END, 0};

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, &cc), 0);
	obj.handle = pw.handle = gem_create(fx.file, 4096);
	pw.data_ptr = (uintptr_t)cs;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	eb.rsvd1 = cc.ctx_id;
	for (unsigned int i = 0; i < 64; i++) {
		eb.flags = i;
		EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb),
			  i < 2 ? 0 : -EINVAL);
	}
	/* An engine the part does not have: Tiger Lake has no compute engine. */
	map.engines[1].engine_class = I915_ENGINE_CLASS_COMPUTE;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, &cc), -ENOENT);
	fx_close(&fx);
}

KTEST(render_node_refuses_primary_only_ioctls)
{
	struct uapi_fx fx;
	struct drm_set_client_cap cap = {.capability = DRM_CLIENT_CAP_ATOMIC, .value = 1};
	struct drm_get_cap gc = {.capability = DRM_CAP_PRIME};
	struct drm_auth auth = {0};

	fx_open(&fx, NULL, true);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SET_CLIENT_CAP, &cap), -EACCES);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_GET_MAGIC, &auth), -EACCES);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_GET_CAP, &gc), 0);
	EXPECT_EQ(gc.value, (uint64_t)(DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT));
	gc.capability = DRM_CAP_DUMB_BUFFER;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_GET_CAP, &gc), -EOPNOTSUPP);
	fx_close(&fx);
}

KTEST(prime_export_import_same_object)
{
	struct uapi_fx fx;
	struct i915_gem_file *other;
	struct drm_prime_handle ph = {.flags = DRM_CLOEXEC | DRM_RDWR};
	struct drm_prime_handle imp = {0};
	struct drm_i915_gem_pwrite pw = {.size = 4};
	struct drm_i915_gem_pread pr = {.size = 4};
	uint32_t v = 0x1234, r = 0, again;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_file_open(fx.i915, true, &other), 0);
	ph.handle = pw.handle = gem_create(fx.file, 4096);
	pw.data_ptr = (uintptr_t)&v;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	EXPECT_GE(ph.fd, 0);
	EXPECT_EQ(lseek(ph.fd, 0, SEEK_END), 4096);
	imp.fd = ph.fd;
	/* The exporting file gets its own handle back. */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
	EXPECT_EQ(imp.handle, ph.handle);
	ASSERT_EQ(i915_gem_ioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
	again = imp.handle;
	ASSERT_EQ(i915_gem_ioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
	EXPECT_EQ(imp.handle, again); /* one handle per dma-buf and file */
	pr.handle = imp.handle;
	pr.data_ptr = (uintptr_t)&r;
	ASSERT_EQ(i915_gem_ioctl(other, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	EXPECT_EQ(r, 0x1234u);
	ph.flags = 0x4;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -EINVAL);
	imp.fd = 0x7fff;
	EXPECT_EQ(i915_gem_ioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), -EBADF);
	close(ph.fd);
	i915_gem_file_close(other);
	fx_close(&fx);
}

KTEST(syncobj_through_core)
{
	struct uapi_fx fx;
	struct drm_syncobj_create sc = {.flags = DRM_SYNCOBJ_CREATE_SIGNALED};
	struct drm_syncobj_wait w = {.count_handles = 1};
	struct drm_syncobj_destroy sd = {0};
	struct drm_get_cap gc = {.capability = DRM_CAP_SYNCOBJ_TIMELINE};

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_GET_CAP, &gc), 0);
	EXPECT_EQ(gc.value, 1u);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SYNCOBJ_CREATE, &sc), 0);
	w.handles = (uintptr_t)&sc.handle;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SYNCOBJ_WAIT, &w), 0);
	sd.handle = sc.handle;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SYNCOBJ_DESTROY, &sd), 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SYNCOBJ_DESTROY, &sd), -EINVAL);
	fx_close(&fx);
}

KTEST(execbuffer2_fences_out_in_and_syncobj)
{
	struct uapi_fx fx;
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_pwrite pw = {.size = 8};
	struct drm_syncobj_create sc = {0};
	struct drm_i915_gem_exec_fence ef = {.flags = I915_EXEC_FENCE_SIGNAL};
	struct drm_syncobj_wait w = {.count_handles = 1, .timeout_nsec = INT64_MAX};
	uint32_t cs[2] = {MI_BATCH_BUFFER_END, 0};
	int out;

	fx_open(&fx, NULL, true);
	obj.handle = pw.handle = gem_create(fx.file, 4096);
	pw.data_ptr = (uintptr_t)cs;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	eb.flags = I915_EXEC_FENCE_OUT;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb), 0);
	out = (int)(eb.rsvd2 >> 32);
	ASSERT_GT(out, 2);
	/* The out-fence as the next batch's in-fence. */
	eb.flags = I915_EXEC_FENCE_IN;
	eb.rsvd2 = (uint32_t)out;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb), 0);
	eb.flags = I915_EXEC_FENCE_IN | I915_EXEC_FENCE_SUBMIT;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb), -EINVAL);
	eb.flags = I915_EXEC_FENCE_IN;
	eb.rsvd2 = 0x7ffe; /* not a sync_file */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb), -EINVAL);
	close(out);

	/* A syncobj signalled by the batch through the fence array. */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SYNCOBJ_CREATE, &sc), 0);
	ef.handle = sc.handle;
	eb.flags = I915_EXEC_FENCE_ARRAY;
	eb.rsvd2 = 0;
	eb.cliprects_ptr = (uintptr_t)&ef;
	eb.num_cliprects = 1;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	w.handles = (uintptr_t)&sc.handle;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SYNCOBJ_WAIT, &w), 0);
	ef.handle = 999;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOENT);
	ef.handle = sc.handle;
	ef.flags = 4;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	fx_close(&fx);
}

KTEST(cpu_mapping_sees_gpu_write_without_domain_call)
{
	struct uapi_fx fx;
	struct drm_i915_gem_relocation_entry reloc = {0};
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WB};
	struct drm_i915_gem_wait w = {.timeout_ns = -1};
	struct drm_i915_gem_pwrite pw = {0};
	const uint32_t nops = 16384;
	volatile uint32_t *p = NULL;
	uint32_t *cs;

	fx_open(&fx, "tgl", true);
	obj[0].handle = mo.handle = gem_create(fx.file, 4096);
	obj[1].handle = pw.handle = gem_create(fx.file, (nops + 8) * 4);
	/* A long run of MI_NOOP, so the CPU looks before the store lands. */
	cs = calloc(nops + 8, 4);
	ASSERT_NOT_NULL(cs);
	cs[nops] = MI_STORE_DWORD_IMM_GEN8;
	cs[nops + 3] = 0xfeed;
	cs[nops + 4] = MI_BATCH_BUFFER_END;
	pw.size = (nops + 8) * 4;
	pw.data_ptr = (uintptr_t)cs;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	free(cs);
	reloc.offset = (nops + 1) * 4;
	reloc.presumed_offset = ~0ull;
	reloc.target_handle = obj[0].handle;
	reloc.read_domains = I915_GEM_DOMAIN_RENDER;
	reloc.write_domain = I915_GEM_DOMAIN_RENDER;
	obj[1].relocation_count = 1;
	obj[1].relocs_ptr = (uintptr_t)&reloc;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(fx.file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, (void **)&p),
		  0);
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	(void)p[0]; /* most likely before the GPU got to the store */
	w.bo_handle = obj[0].handle;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), 0);
	EXPECT_EQ(p[0], 0xfeedu);
	EXPECT_EQ(i915_gem_munmap(fx.i915, (void *)p, 4096), 0);
	fx_close(&fx);
}

KTEST(execbuffer2_softpin_in_ppgtt)
{
	struct uapi_fx fx;
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_pwrite pw = {0};
	struct drm_i915_gem_context_param p = {.param = I915_CONTEXT_PARAM_GTT_SIZE};
	const uint64_t target = 1ull << 40, batch = (1ull << 40) + (1ull << 20);
	uint32_t cs[6] = {MI_STORE_DWORD_IMM_GEN8,  (uint32_t)target,
			  (uint32_t)(target >> 32), 0xabcd,
			  MI_BATCH_BUFFER_END,	    0};
	uint32_t v = 0;

	fx_open(&fx, "dg2", true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_EQ(p.value, 1ull << 48);
	obj[0].handle = gem_create(fx.file, 4096);
	obj[1].handle = pw.handle = gem_create(fx.file, 4096);
	pw.size = sizeof(cs);
	pw.data_ptr = (uintptr_t)cs;
	/* No PWRITE on DG2: write the batch through a FIXED mapping. */
	{
		struct drm_i915_gem_mmap_offset mo = {.handle = pw.handle,
						      .flags = I915_MMAP_OFFSET_FIXED};
		void *ptr;

		ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
		ASSERT_EQ(i915_gem_mmap(fx.file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
					(off_t)mo.offset, &ptr),
			  0);
		memcpy(ptr, cs, sizeof(cs));
		EXPECT_EQ(i915_gem_munmap(fx.i915, ptr, 4096), 0);
	}
	obj[0].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS | EXEC_OBJECT_WRITE;
	obj[0].offset = target;
	obj[1].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS;
	obj[1].offset = batch;
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	EXPECT_EQ(obj[0].offset, target);
	{
		struct drm_i915_gem_mmap_offset mo = {.handle = obj[0].handle,
						      .flags = I915_MMAP_OFFSET_FIXED};
		struct drm_i915_gem_wait w = {.bo_handle = obj[0].handle, .timeout_ns = -1};
		uint32_t *ptr;

		ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), 0);
		ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
		ASSERT_EQ(i915_gem_mmap(fx.file, NULL, 4096, PROT_READ, MAP_SHARED,
					(off_t)mo.offset, (void **)&ptr),
			  0);
		v = ptr[0];
		EXPECT_EQ(i915_gem_munmap(fx.i915, ptr, 4096), 0);
	}
	EXPECT_EQ(v, 0xabcdu);
	/* Above 4 GiB without 48-bit support; a non-canonical address. */
	obj[0].flags &= ~(uint64_t)EXEC_OBJECT_SUPPORTS_48B_ADDRESS;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	obj[0].flags |= EXEC_OBJECT_SUPPORTS_48B_ADDRESS;
	obj[0].offset = 1ull << 47;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	fx_close(&fx);
}

KTEST(context_vm_shared_through_getparam)
{
	struct uapi_fx fx;
	struct drm_i915_gem_context_param p = {.param = I915_CONTEXT_PARAM_VM};
	struct drm_i915_gem_context_create cc = {0};
	struct drm_i915_gem_vm_control vc = {0};

	fx_open(&fx, NULL, true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_EQ(p.value, 1u); /* a new id naming context 0's VM */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), 0);
	p.ctx_id = cc.ctx_id;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), 0);
	p.value = 99;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -ENOENT);
	vc.vm_id = 1;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_VM_DESTROY, &vc), 0);
	vc.flags = 1;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_VM_CREATE, &vc), -EINVAL);
	fx_close(&fx);
}

static void *map_wb(struct uapi_fx *fx, uint32_t handle)
{
	struct drm_i915_gem_mmap_offset mo = {.handle = handle, .flags = I915_MMAP_OFFSET_WB};
	void *ptr = NULL;

	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	EXPECT_EQ(i915_gem_mmap(fx->file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, &ptr),
		  0);
	return ptr;
}

/* A batch object at @addr holding @cs. */
static uint32_t batch_at(struct uapi_fx *fx, const uint32_t *cs, size_t len)
{
	struct drm_i915_gem_pwrite pw = {.size = len, .data_ptr = (uintptr_t)cs};

	pw.handle = gem_create(fx->file, 4096);
	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	return pw.handle;
}

KTEST(execbuffer2_in_fence_queues_instead_of_blocking)
{
	struct uapi_fx fx;
	const uint64_t flag_at = 0x100000, b1_at = 0x200000, tgt_at = 0x300000, b2_at = 0x400000;
	uint32_t wait_cs[] = {MI_SEMAPHORE_WAIT | MI_SEMAPHORE_POLL | MI_SEMAPHORE_SAD_NEQ_SDD,
			      0,
			      (uint32_t)flag_at,
			      0,
			      MI_BATCH_BUFFER_END,
			      0};
	uint32_t store_cs[] = {
	    MI_STORE_DWORD_IMM_GEN8, (uint32_t)tgt_at, 0, 0x77, MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_exec_object2 o1[2] = {0}, o2[2] = {0};
	struct drm_i915_gem_execbuffer2 eb1 = {0}, eb2 = {0};
	struct drm_i915_gem_context_create cc = {0};
	struct drm_i915_gem_busy busy = {0};
	struct drm_i915_gem_wait w = {0};
	volatile uint32_t *flag, *tgt;

	fx_open(&fx, "tgl", true);
	o1[0].handle = gem_create(fx.file, 4096);
	o1[0].offset = flag_at;
	o1[0].flags = EXEC_OBJECT_PINNED;
	o1[1].handle = batch_at(&fx, wait_cs, sizeof(wait_cs));
	o1[1].offset = b1_at;
	o1[1].flags = EXEC_OBJECT_PINNED;
	eb1.buffers_ptr = (uintptr_t)o1;
	eb1.buffer_count = 2;
	eb1.flags = I915_EXEC_FENCE_OUT;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb1), 0);

	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), 0);
	o2[0].handle = gem_create(fx.file, 4096);
	o2[0].offset = tgt_at;
	o2[0].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE;
	o2[1].handle = batch_at(&fx, store_cs, sizeof(store_cs));
	o2[1].offset = b2_at;
	o2[1].flags = EXEC_OBJECT_PINNED;
	eb2.buffers_ptr = (uintptr_t)o2;
	eb2.buffer_count = 2;
	eb2.rsvd1 = cc.ctx_id;
	eb2.flags = I915_EXEC_FENCE_IN;
	eb2.rsvd2 = (uint32_t)(eb1.rsvd2 >> 32);
	/* Returns at once: the batch waits for the spinner's fence, not the caller. */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb2), 0);
	busy.handle = o2[0].handle;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_BUSY, &busy), 0);
	EXPECT_EQ(busy.busy, 0x10000u | 1u); /* render, writer */
	w.bo_handle = o2[0].handle;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), -ETIME);
	tgt = map_wb(&fx, o2[0].handle);
	EXPECT_EQ(tgt[0], 0u);
	flag = map_wb(&fx, o1[0].handle);
	flag[0] = 1; /* release the semaphore */
	w.timeout_ns = -1;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), 0);
	EXPECT_EQ(tgt[0], 0x77u);
	close((int)(eb1.rsvd2 >> 32));
	i915_gem_munmap(fx.i915, (void *)tgt, 4096);
	i915_gem_munmap(fx.i915, (void *)flag, 4096);
	fx_close(&fx);
}

/* Ends the spinner after a while unless the test did first. */
struct end_later {
	volatile uint32_t *batch;
	atomic_bool done, ended;
};

static void *end_later_fn(void *arg)
{
	struct end_later *r = arg;

	for (int i = 0; i < 300 && !atomic_load(&r->done); i++)
		usleep(10000);
	if (!atomic_load(&r->done)) {
		atomic_store(&r->ended, true);
		r->batch[0] = MI_BATCH_BUFFER_END;
	}
	return NULL;
}

KTEST(execbuffer2_foreign_writer_queues_instead_of_blocking)
{
	struct uapi_fx fx;
	const uint64_t b1_at = 0x200000, tgt_at = 0x300000, b2_at = 0x400000;
	/* igt's spinner: an arbitration point (no hang) and a jump back to it. */
	uint32_t spin_cs[] = {MI_ARB_CHECK, MI_BATCH_BUFFER_START_GEN8 | MI_BATCH_PPGTT,
			      (uint32_t)b1_at, 0};
	uint32_t store_cs[] = {
	    MI_STORE_DWORD_IMM_GEN8, (uint32_t)tgt_at, 0, 0x77, MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_exec_object2 o1[2] = {0}, o2[2] = {0};
	struct drm_i915_gem_execbuffer2 eb1 = {0}, eb2 = {0};
	struct drm_i915_gem_busy busy = {0};
	struct drm_i915_gem_wait w = {0};
	struct end_later end = {0};
	volatile uint32_t *tgt;
	pthread_t thread;
	uint32_t target;

	fx_open(&fx, "tgl", true);
	target = gem_create(fx.file, 4096);
	/* The render engine spins, holding @target as a writer. */
	o1[0].handle = target;
	o1[0].offset = tgt_at;
	o1[0].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE;
	o1[1].handle = batch_at(&fx, spin_cs, sizeof(spin_cs));
	o1[1].offset = b1_at;
	o1[1].flags = EXEC_OBJECT_PINNED;
	eb1.buffers_ptr = (uintptr_t)o1;
	eb1.buffer_count = 2;
	eb1.flags = I915_EXEC_RENDER;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb1), 0);
	end.batch = map_wb(&fx, o1[1].handle);
	ASSERT_EQ(pthread_create(&thread, NULL, end_later_fn, &end), 0);

	/* The blitter writes it too: the batch follows the writer, the caller does not wait. */
	o2[0].handle = target;
	o2[0].offset = tgt_at;
	o2[0].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE;
	o2[1].handle = batch_at(&fx, store_cs, sizeof(store_cs));
	o2[1].offset = b2_at;
	o2[1].flags = EXEC_OBJECT_PINNED;
	eb2.buffers_ptr = (uintptr_t)o2;
	eb2.buffer_count = 2;
	eb2.flags = I915_EXEC_BLT;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb2), 0);
	EXPECT_FALSE(atomic_load(&end.ended));
	busy.handle = target;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_BUSY, &busy), 0);
	/* Both engines use it: the spinner and the queued blit. */
	EXPECT_TRUE(busy.busy & (0x10000u << I915_ENGINE_CLASS_RENDER));
	EXPECT_TRUE(busy.busy & (0x10000u << I915_ENGINE_CLASS_COPY));
	w.bo_handle = target;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), -ETIME);

	atomic_store(&end.done, true);
	pthread_join(thread, NULL);
	end.batch[0] = MI_BATCH_BUFFER_END; /* the spinner ends: the blit follows */
	w.timeout_ns = -1;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_WAIT, &w), 0);
	tgt = map_wb(&fx, target);
	EXPECT_EQ(tgt[0], 0x77u);
	i915_gem_munmap(fx.i915, (void *)tgt, 4096);
	i915_gem_munmap(fx.i915, (void *)end.batch, 4096);
	fx_close(&fx);
}

KTEST(master_set_and_drop)
{
	struct uapi_fx fx;
	struct i915_gem_file *second;

	fx_open(&fx, NULL, false); /* the first primary open is the master */
	ASSERT_EQ(i915_gem_file_open(fx.i915, false, &second), 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SET_MASTER, NULL), 0);
	if (geteuid() == 0)
		EXPECT_EQ(i915_gem_ioctl(second, DRM_IOCTL_SET_MASTER, NULL), -EBUSY);
	else
		EXPECT_EQ(i915_gem_ioctl(second, DRM_IOCTL_SET_MASTER, NULL), -EACCES);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_DROP_MASTER, NULL), 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_DROP_MASTER, NULL), -EINVAL);
	/* The previous master may take it back without privileges. */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_SET_MASTER, NULL), 0);
	i915_gem_file_close(second);
	fx_close(&fx);
}

KTEST(query_garbage_items)
{
	struct uapi_fx fx;
	struct drm_i915_query_item item = {.query_id = 0};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};

	fx_open(&fx, NULL, true);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), -EINVAL);
	/* A negative length is a huge unsigned one: the data pointer is tried. */
	item.query_id = DRM_I915_QUERY_TOPOLOGY_INFO;
	item.length = -EFAULT;
	item.data_ptr = UINTPTR_MAX;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(item.length, -EFAULT);
	fx_close(&fx);
}

KTEST(mmap_inside_an_object)
{
	struct uapi_fx fx;
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WB};
	struct drm_i915_gem_pwrite pw = {.size = 4, .offset = 8192};
	uint32_t v = 0x5a5a;
	uint32_t *p = NULL;

	fx_open(&fx, "tgl", true);
	mo.handle = pw.handle = gem_create(fx.file, 16384);
	pw.data_ptr = (uintptr_t)&v;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(fx.file, NULL, 4096, PROT_READ, MAP_SHARED, (off_t)mo.offset + 8192,
				(void **)&p),
		  0);
	EXPECT_EQ(p[0], 0x5a5au);
	EXPECT_EQ(i915_gem_mmap(fx.file, NULL, 12288, PROT_READ, MAP_SHARED,
				(off_t)mo.offset + 8192, (void **)&p),
		  -EINVAL);
	EXPECT_EQ(i915_gem_munmap(fx.i915, p, 4096), 0);
	fx_close(&fx);
}

KTEST(execbuffer2_no_reloc_skips_unknown_targets)
{
	struct uapi_fx fx;
	struct drm_i915_gem_relocation_entry reloc = {.target_handle = 77, .offset = 16};
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_pwrite pw = {.size = 8};
	uint32_t cs[2] = {MI_BATCH_BUFFER_END, 0};

	fx_open(&fx, "tgl", true);
	obj.handle = pw.handle = gem_create(fx.file, 4096);
	pw.data_ptr = (uintptr_t)cs;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	obj.relocation_count = 1;
	obj.relocs_ptr = (uintptr_t)&reloc;
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOENT);
	eb.flags = I915_EXEC_NO_RELOC | I915_EXEC_HANDLE_LUT;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	fx_close(&fx);
}

/* Fail the next hit of @point on this thread; true when it fired. */
static bool fail_next(struct fault_attr *point)
{
	fault_thread_fail_nth(point, 1);
	return true;
}

static bool fault_fired(void)
{
	bool fired = fault_thread_nth_pending() == 0;

	fault_thread_fail_nth(NULL, 0);
	return fired;
}

KTEST(allocation_failures_leave_nothing_behind)
{
	struct uapi_fx fx;
	struct i915_gem_file *f = NULL;
	struct drm_i915_gem_create c = {.size = 4096};
	struct drm_i915_gem_context_create cc = {0};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WB};

	fx_open(&fx, "tgl", true);
	fail_next(&gem_fault_file_alloc);
	EXPECT_EQ(i915_gem_file_open(fx.i915, true, &f), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	fail_next(&gem_fault_ctx_alloc); /* the file's context 0 */
	EXPECT_EQ(i915_gem_file_open(fx.i915, true, &f), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	fail_next(&gem_fault_obj_alloc);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, &c), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE, &c), 0);
	EXPECT_EQ(c.handle, 1u); /* the failed create used no handle */
	fail_next(&gem_fault_ctx_alloc);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), 0);
	EXPECT_EQ(cc.ctx_id, 1u);
	mo.handle = c.handle;
	fail_next(&gem_fault_mmo_alloc);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	i915_gem_file_close(fx.file);
	fx.file = NULL;
	ttm_device_flush_delayed(&fx.i915->drm.bdev, true);
	EXPECT_EQ(atomic_load(&fx.i915->drm.bdev.stats.bo_count), 0u);
	fx_close(&fx);
}

KTEST(execbuffer_and_bounce_allocation_failures_are_enomem)
{
	struct uapi_fx fx;
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	uint32_t bbe[2] = {MI_BATCH_BUFFER_END, 0}, v = 0;
	struct drm_i915_gem_pwrite pw = {.size = sizeof(bbe), .data_ptr = (uintptr_t)bbe};
	struct drm_i915_gem_pread pr = {.size = sizeof(v), .data_ptr = (uintptr_t)&v};

	fx_open(&fx, "tgl", true);
	obj.handle = gem_create(fx.file, 4096);
	pw.handle = obj.handle;
	pr.handle = obj.handle;
	fail_next(&gem_fault_buf_alloc);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	EXPECT_EQ(v, 0u); /* the failed write wrote nothing */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	fail_next(&gem_fault_eb_alloc);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	/* The object's first binding in the context's VM cannot be recorded. */
	fail_next(&i915_fault_vm_alloc);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOMEM);
	EXPECT_TRUE(fault_fired());
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	fx_close(&fx);
}

KTEST(integrated_part_lifts_default_page_cap_to_ram)
{
	long phys = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t ram = (uint64_t)phys * (uint64_t)psz / 4096u;
	struct ttm_global_config def = {0}, mine = {.limit_pages = 12345};
	struct ttm_global_stats st;
	struct i915_device *i915;

	ASSERT_GT(phys, 0);
	ASSERT_EQ(ttm_global_config(&def), 0);
	ttm_global_get_stats(&st);
	ASSERT_UEQ(st.limit_pages, ram / 2);
	/* Discrete: objects are TTM's in the kernel too, the cap stays. */
	ASSERT_EQ(i915_gem_device_create("dg2", &i915), 0);
	ttm_global_get_stats(&st);
	EXPECT_UEQ(st.limit_pages, ram / 2);
	i915_gem_device_destroy(i915);
	/* Integrated: shmem objects, bounded by RAM. */
	ASSERT_EQ(i915_gem_device_create("tgl", &i915), 0);
	ttm_global_get_stats(&st);
	EXPECT_UEQ(st.limit_pages, ram);
	i915_gem_device_destroy(i915);
	/* A cap somebody configured is theirs. */
	ASSERT_EQ(ttm_global_config(&mine), 0);
	ASSERT_EQ(i915_gem_device_create("tgl", &i915), 0);
	ttm_global_get_stats(&st);
	EXPECT_UEQ(st.limit_pages, 12345u);
	i915_gem_device_destroy(i915);
	ttm_global_config(&def);
}

/* One MI_BATCH_BUFFER_END batch, executed once in @ctx; returns the offset it got. */
static uint64_t exec_nop_at(struct i915_gem_file *file, uint32_t handle, uint32_t ctx,
			    uint64_t presumed)
{
	struct drm_i915_gem_exec_object2 obj = {.handle = handle, .offset = presumed};
	struct drm_i915_gem_execbuffer2 eb = {
	    .buffers_ptr = (uintptr_t)&obj, .buffer_count = 1, .rsvd1 = ctx};

	EXPECT_EQ(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	return obj.offset;
}

KTEST(execbuffer2_presumed_offset_is_an_implicit_softpin)
{
	struct uapi_fx fx;
	uint32_t bbe[2] = {MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_pwrite pw = {.size = sizeof(bbe), .data_ptr = (uintptr_t)bbe};
	struct drm_i915_gem_context_create parent = {0}, child = {0}, other = {0};
	struct drm_i915_gem_context_param p = {.param = I915_CONTEXT_PARAM_VM};

	fx_open(&fx, "tgl", true);
	pw.handle = gem_create(fx.file, 4096);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &parent), 0);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &child), 0);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &other), 0);
	/* New to a VM, an object goes where it presumes to be, page 0 included. */
	EXPECT_EQ(exec_nop_at(fx.file, pw.handle, parent.ctx_id, 48 << 20), 48u << 20);
	EXPECT_EQ(exec_nop_at(fx.file, pw.handle, other.ctx_id, 0), 0u);
	/* Bound already, it stays where it is whatever it presumes. */
	EXPECT_EQ(exec_nop_at(fx.file, pw.handle, parent.ctx_id, 0), 48u << 20);
	/* A context sharing the parent's VM finds it at the parent's address. */
	p.ctx_id = parent.ctx_id;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	p.ctx_id = child.ctx_id;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), 0);
	EXPECT_EQ(exec_nop_at(fx.file, pw.handle, child.ctx_id, 0), 48u << 20);
	fx_close(&fx);
}

/* HWCONFIG: a KLV table on DG2 (the GuC's, from 12.55 on), -ENODEV on Tiger Lake. */
KTEST(query_hwconfig_blob_per_profile)
{
	struct uapi_fx fx;
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_HWCONFIG_BLOB};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};
	uint32_t blob[64] = {0};
	int copy_cs = -1;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(item.length, -ENODEV);
	fx_close(&fx);

	fx_open(&fx, "dg2", true);
	item.length = 0;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	ASSERT_GT(item.length, 0);
	ASSERT_LE(item.length, (int)sizeof(blob));
	EXPECT_EQ(item.length % 4, 0);
	item.length -= 4; /* too short */
	item.data_ptr = (uintptr_t)blob;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(item.length, -EINVAL);
	item.length = sizeof(blob);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_QUERY, &q), 0);
	for (int i = 0; i < item.length / 4; i += 2 + (int)blob[i + 1]) {
		EXPECT_GT(blob[i], 0u);
		EXPECT_GT(blob[i + 1], 0u);
		if (blob[i] == 27) /* MAX_COPY_CS */
			copy_cs = (int)blob[i + 2];
	}
	EXPECT_EQ(copy_cs, 1); /* as QUERY's engine list: bcs0 */
	fx_close(&fx);
}
KTEST(module_params_at_probe)
{
	struct i915_device *i915;
	char *text = NULL;
	size_t len = 0;

	EXPECT_EQ(i915_gem_device_create_params("dg2", "lmem_size=abc", &i915), -EINVAL);
	ASSERT_EQ(i915_gem_device_create_params("dg2", "foo=1 lmem_size=256 reset=0", &i915), 0);
	ASSERT_EQ(i915_gem_debugfs_read(i915, "i915_params/lmem_size", &text, &len), 0);
	EXPECT_STREQ(text, "256\n");
	free(text);
	ASSERT_EQ(i915_gem_debugfs_read(i915, "i915_params/reset", &text, &len), 0);
	EXPECT_STREQ(text, "0\n");
	free(text);
	EXPECT_EQ(i915->gem_uapi->lmem_size, 256ull << 20);
	i915_gem_device_destroy(i915);
}

KTEST(execbuffer2_retired_flags_einval)
{
	struct uapi_fx fx;
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	uint32_t cs[] = {MI_BATCH_BUFFER_END, 0};
	static const uint64_t bad[] = {I915_EXEC_CONSTANTS_ABSOLUTE,
				       I915_EXEC_CONSTANTS_REL_SURFACE, 3u << 6,
				       I915_EXEC_RESOURCE_STREAMER, I915_EXEC_GEN7_SOL_RESET};

	fx_open(&fx, "tgl", true);
	obj.handle = batch_at(&fx, cs, sizeof(cs));
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	eb.flags = I915_EXEC_RENDER | I915_EXEC_CONSTANTS_REL_GENERAL;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eb.flags = I915_EXEC_RENDER | bad[i];
		EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	}
	fx_close(&fx);
}

KTEST(context_priority_within_user_range)
{
	struct uapi_fx fx;
	struct drm_i915_getparam gp = {.param = I915_PARAM_HAS_SCHEDULER};
	struct drm_i915_gem_context_param p = {.param = I915_CONTEXT_PARAM_PRIORITY};
	struct drm_i915_gem_context_create_ext_setparam sp = {
	    .base = {.name = I915_CONTEXT_CREATE_EXT_SETPARAM},
	    .param = {.param = I915_CONTEXT_PARAM_PRIORITY, .value = (uint64_t)-7}};
	struct drm_i915_gem_context_create_ext cc = {
	    .flags = I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS, .extensions = (uintptr_t)&sp};
	int caps = 0;

	fx_open(&fx, "tgl", true);
	gp.value = &caps;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_TRUE(caps & I915_SCHEDULER_CAP_ENABLED);
	EXPECT_TRUE(caps & I915_SCHEDULER_CAP_PRIORITY);

	/* At create time, through the SETPARAM extension. */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, &cc), 0);
	p.ctx_id = cc.ctx_id;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_EQ((int64_t)p.value, -7);

	/* On a live context: the user range, size 0, above default only with CAP_SYS_NICE. */
	p.value = (uint64_t)(int64_t)I915_CONTEXT_MIN_USER_PRIORITY;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), 0);
	p.value = 0;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_EQ((int64_t)p.value, (int64_t)I915_CONTEXT_MIN_USER_PRIORITY);
	p.value = (uint64_t)(int64_t)(I915_CONTEXT_MIN_USER_PRIORITY - 1);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -EINVAL);
	p.value = I915_CONTEXT_MAX_USER_PRIORITY + 1;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -EINVAL);
	p.value = 0;
	p.size = 8;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -EINVAL);
	p.size = 0;
	p.value = I915_CONTEXT_MAX_USER_PRIORITY;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p),
		  geteuid() == 0 ? 0 : -EPERM);
	fx_close(&fx);
}

KTEST(execbuffer2_softpin_alignment_and_bounds)
{
	struct uapi_fx fx;
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	uint32_t cs[] = {MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_pwrite pw = {.size = sizeof(cs), .data_ptr = (uintptr_t)cs};

	fx_open(&fx, "tgl", true);
	obj.handle = pw.handle = gem_create(fx.file, 2 * 4096);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	obj.flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS;
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	/* Misaligned for the alignment asked for, then aligned. */
	obj.offset = 4096;
	obj.alignment = 64 * 1024;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	obj.offset = 128 * 1024;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	EXPECT_EQ(obj.offset, 128u * 1024);
	/* Alignment counts in the low 48 bits of a canonical address. */
	obj.offset = i915_vm_canonical(1ull << 47);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	obj.alignment = 0;
	/* Two pages from the last one: past the end of the address space. */
	obj.offset = -4096ull;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EINVAL);
	fx_close(&fx);
}

KTEST(execbuffer2_softpin_overlap_enospc)
{
	struct uapi_fx fx;
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	uint32_t cs[] = {MI_BATCH_BUFFER_END, 0};
	const uint64_t pad = 1ull << 20;

	fx_open(&fx, "tgl", true);
	obj[0].handle = batch_at(&fx, cs, sizeof(cs));
	obj[1].handle = batch_at(&fx, cs, sizeof(cs));
	obj[0].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_PAD_TO_SIZE;
	obj[0].pad_to_size = pad;
	obj[0].offset = 0;
	obj[1].flags = EXEC_OBJECT_PINNED;
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	/* Inside the first object's padding, then at its very end. */
	obj[1].offset = 4096;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOSPC);
	obj[1].offset = pad - 4096;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOSPC);
	obj[1].offset = pad;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	EXPECT_EQ(obj[0].offset, 0u);
	EXPECT_EQ(obj[1].offset, pad);
	/* Without padding, the same two pages overlap only when equal. */
	obj[0].flags = EXEC_OBJECT_PINNED;
	obj[0].pad_to_size = 0;
	obj[1].offset = 4096;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	obj[1].offset = 0;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -ENOSPC);
	fx_close(&fx);
}

static sigjmp_buf sigbus_env;
static volatile sig_atomic_t sigbus_seen;

static void sigbus_handler(int sig)
{
	(void)sig;
	sigbus_seen = 1;
	siglongjmp(sigbus_env, 1);
}

/* A lmem object created, placed by a CPU write through a FIXED mapping; returns the map. */
static volatile uint32_t *lmem_touch(struct uapi_fx *fx, uint64_t size, uint32_t value,
				     uint32_t *handle)
{
	struct drm_i915_gem_memory_class_instance r = {.memory_class = I915_MEMORY_CLASS_DEVICE};
	struct drm_i915_gem_create_ext_memory_regions ext = {.base.name =
								 I915_GEM_CREATE_EXT_MEMORY_REGIONS,
							     .num_regions = 1,
							     .regions = (uintptr_t)&r};
	struct drm_i915_gem_create_ext c = {.size = size, .extensions = (uintptr_t)&ext};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	void *ptr = NULL;
	volatile uint32_t *p;

	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), 0);
	mo.handle = c.handle;
	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	EXPECT_EQ(i915_gem_mmap(fx->file, NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, &ptr),
		  0);
	p = ptr;
	*handle = c.handle;
	if (p)
		for (uint64_t off = 0; off < size; off += 4096)
			p[off / 4] = value;
	return p;
}

/*
 * An lmem object whose blocks are scattered by fragmentation is still
 * reachable by the CPU: the fault gives it one run (igt gem_mmap_offset@clear).
 */
KTEST(cpu_fault_on_fragmented_lmem_object)
{
	enum { N = 16, SZ = 64 << 10 }; /* 64 KiB lmem pages (DG2) of a 1 MiB lmem */
	struct i915_device *i915;
	struct uapi_fx fx;
	struct sigaction sa, old;
	volatile uint32_t *small[N], *big;
	uint32_t h[N], hb;

	memset(&fx, 0, sizeof(fx));
	ASSERT_EQ(i915_gem_device_create_params("dg2", "lmem_size=1", &i915), 0);
	fx.i915 = i915;
	ASSERT_EQ(i915_gem_file_open(i915, true, &fx.file), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigbus_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGBUS, &sa, &old), 0);
	/* Fill lmem with one-page objects, then free every other page. */
	for (int i = 0; i < N; i++)
		small[i] = lmem_touch(&fx, SZ, (uint32_t)i, &h[i]);
	for (int i = 1; i < N; i += 2) {
		EXPECT_EQ(i915_gem_munmap(i915, (void *)small[i], SZ), 0);
		EXPECT_EQ(gem_close(fx.file, h[i]), 0);
	}
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1)) {
		big = lmem_touch(&fx, 2 * SZ, 0xb16, &hb);
		ASSERT_NE(big, NULL);
		EXPECT_EQ(big[0], 0xb16u);
		EXPECT_EQ(big[SZ / 4], 0xb16u);
		EXPECT_EQ(i915_gem_munmap(i915, (void *)big, 2 * SZ), 0);
	}
	EXPECT_EQ(sigbus_seen, 0);
	/* Whatever had to move for it kept its content. */
	for (int i = 0; i < N; i += 2) {
		EXPECT_EQ(small[i][0], (uint32_t)i);
		EXPECT_EQ(i915_gem_munmap(i915, (void *)small[i], SZ), 0);
	}
	sigaction(SIGBUS, &old, NULL);
	fx_close(&fx);
}
/* A CPU fault needing pages of a purgeable object is SIGBUS (gem_madvise@dontneed-*). */
KTEST(pwrite_keeps_the_rest_of_a_mapping)
{
	struct uapi_fx fx;
	const uint64_t size = 4 * 1024 * 1024, value = 0x1122334455667788ull;
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WC};
	struct drm_i915_gem_pwrite pw = {.offset = 5 * 4096 + 64, .size = sizeof(value)};
	struct ttm_bo_vm_stats before, after;
	volatile uint64_t *p;
	struct gem_obj *obj;
	uint64_t sum = 0;
	void *ptr = NULL;

	fx_open(&fx, "tgl", true);
	mo.handle = pw.handle = gem_create(fx.file, size);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(fx.file, NULL, size, PROT_READ, MAP_SHARED, (off_t)mo.offset, &ptr),
		  0);
	p = ptr;
	for (uint64_t off = 0; off < size; off += 4096)
		sum += p[off / 8];
	EXPECT_EQ(sum, 0u);
	obj = gem_lookup(fx.file, pw.handle);
	ASSERT_TRUE(obj != NULL);
	ASSERT_EQ(ttm_bo_vm_get_stats(&obj->bo->base, &before), 0);

	/* igt gem_pwrite@small-gtt-*: 8 bytes through PWRITE, read back through the mapping. */
	pw.data_ptr = (uintptr_t)&value;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	EXPECT_EQ(p[pw.offset / 8], value);
	for (uint64_t off = 0; off < size; off += 4096)
		sum += p[off / 8];
	ASSERT_EQ(ttm_bo_vm_get_stats(&obj->bo->base, &after), 0);
	/* The pages the write did not touch stayed mapped: no fault brought them back. */
	EXPECT_UEQ(after.invalidations, before.invalidations);
	EXPECT_TRUE(after.faults <= before.faults + 1);
	gem_obj_put(obj);
	i915_gem_munmap(fx.i915, ptr, size);
	fx_close(&fx);
}

/* The device-local region's info as QUERY reports it to the calling thread. */
static struct drm_i915_memory_region_info query_lmem(struct uapi_fx *fx)
{
	uint64_t buf[(sizeof(struct drm_i915_query_memory_regions) +
		      2 * sizeof(struct drm_i915_memory_region_info)) /
		     sizeof(uint64_t)];
	const size_t len = sizeof(buf);
	struct drm_i915_query_memory_regions *regions = (void *)buf;
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_MEMORY_REGIONS,
					   .length = (int32_t)len,
					   .data_ptr = (uintptr_t)buf};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};

	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_QUERY, &q), 0);
	EXPECT_EQ(item.length, (int32_t)len);
	EXPECT_EQ(regions->regions[1].region.memory_class, I915_MEMORY_CLASS_DEVICE);
	return regions->regions[1];
}

KTEST(root_only_answers_follow_the_caller_euid)
{
	struct uapi_fx fx;
	struct drm_i915_memory_region_info mine, other;
	volatile uint32_t *p;
	uint32_t handle;

	if (geteuid() != 0)
		KTEST_SKIP("needs root: the unprivileged answer is the only one here");
	fx_open(&fx, "dg2", true);
	p = lmem_touch(&fx, 64 * 1024, 1, &handle);
	ASSERT_TRUE(p != NULL);
	/* Root sees what is in use. */
	mine = query_lmem(&fx);
	EXPECT_TRUE(mine.unallocated_size < mine.probed_size);
	/* Serving an unprivileged process: the free sizes are censored. */
	i915_gem_set_caller_euid(1000);
	other = query_lmem(&fx);
	EXPECT_UEQ(other.unallocated_size, other.probed_size);
	EXPECT_UEQ(other.unallocated_cpu_visible_size, other.probed_cpu_visible_size);
	i915_gem_set_caller_euid(-1);
	mine = query_lmem(&fx);
	EXPECT_TRUE(mine.unallocated_size < mine.probed_size);
	i915_gem_munmap(fx.i915, (void *)p, 64 * 1024);
	fx_close(&fx);
}

/* A system-memory object mapped through FIXED (every object on dg2), holding @cs. */
static volatile uint32_t *smem_batch(struct uapi_fx *fx, const uint32_t *cs, size_t len,
				     uint32_t *handle)
{
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	void *ptr = NULL;

	mo.handle = *handle = gem_create(fx->file, 4096);
	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	EXPECT_EQ(i915_gem_mmap(fx->file, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)mo.offset, &ptr),
		  0);
	if (ptr)
		memcpy(ptr, cs, len);
	return ptr;
}

KTEST(lmem_clear_is_pipelined_behind_a_busy_blitter)
{
	struct uapi_fx fx;
	const uint64_t b_at = 0x200000, size = 64 * 1024;
	uint32_t spin_cs[] = {MI_ARB_CHECK, MI_BATCH_BUFFER_START_GEN8 | MI_BATCH_PPGTT,
			      (uint32_t)b_at, 0};
	struct drm_i915_gem_memory_class_instance r = {.memory_class = I915_MEMORY_CLASS_DEVICE};
	struct drm_i915_gem_create_ext_memory_regions ext = {.base.name =
								 I915_GEM_CREATE_EXT_MEMORY_REGIONS,
							     .num_regions = 1,
							     .regions = (uintptr_t)&r};
	struct drm_i915_gem_create_ext c = {.size = size, .extensions = (uintptr_t)&ext};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_FIXED};
	struct drm_i915_gem_exec_object2 obj = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_busy busy = {0};
	struct end_later end = {0};
	volatile uint32_t *old, *p;
	uint32_t old_handle;
	pthread_t thread;
	void *ptr = NULL;

	fx_open(&fx, "dg2", true);
	/* Leave stale bytes in device memory for the next object to inherit. */
	old = lmem_touch(&fx, size, 0xdeadbeef, &old_handle);
	ASSERT_TRUE(old != NULL);
	i915_gem_munmap(fx.i915, (void *)old, size);
	EXPECT_EQ(gem_close(fx.file, old_handle), 0);

	/* The blitter, which clears new lmem objects, spins. */
	end.batch = smem_batch(&fx, spin_cs, sizeof(spin_cs), &obj.handle);
	ASSERT_TRUE(end.batch != NULL);
	obj.offset = b_at;
	obj.flags = EXEC_OBJECT_PINNED;
	eb.buffers_ptr = (uintptr_t)&obj;
	eb.buffer_count = 1;
	eb.flags = I915_EXEC_BLT;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	ASSERT_EQ(pthread_create(&thread, NULL, end_later_fn, &end), 0);

	/* Creation returns with the clear queued behind the spinner, as the object's move fence. */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), 0);
	EXPECT_FALSE(atomic_load(&end.ended));
	busy.handle = c.handle;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_BUSY, &busy), 0);
	EXPECT_TRUE(busy.busy & (0x10000u << I915_ENGINE_CLASS_COPY));

	atomic_store(&end.done, true);
	pthread_join(thread, NULL);
	end.batch[0] = MI_BATCH_BUFFER_END;
	/* The CPU sees the object only once cleared. */
	mo.handle = c.handle;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	ASSERT_EQ(i915_gem_mmap(fx.file, NULL, size, PROT_READ, MAP_SHARED, (off_t)mo.offset, &ptr),
		  0);
	p = ptr;
	for (uint64_t off = 0; off < size; off += 4096)
		EXPECT_EQ(p[off / 4], 0u);
	i915_gem_munmap(fx.i915, ptr, size);
	i915_gem_munmap(fx.i915, (void *)end.batch, 4096);
	fx_close(&fx);
}

static const char *test_fence_name(struct dma_fence *fence)
{
	(void)fence;
	return "test";
}

static const struct dma_fence_ops test_fence_ops = {
    .get_driver_name = test_fence_name,
    .get_timeline_name = test_fence_name,
};

/* Signals a fence after 100 ms and drops the thread's reference. */
static void *signal_soon_fn(void *arg)
{
	struct dma_fence *fence = arg;

	usleep(100000);
	dma_fence_signal(fence);
	dma_fence_put(fence);
	return NULL;
}

/*
 * DROP_IDLE waits for the batches still held behind fences too (the
 * kernel's intel_gt_wait_for_idle()): an lmem object whose only user is a
 * batch queued behind an in-fence is freed by the same drop_caches (igt
 * i915_query@query-regions-unallocated, where the fence is the clear's).
 */
KTEST(drop_caches_frees_the_objects_of_queued_batches)
{
	struct uapi_fx fx;
	const uint64_t size = 1 << 20;
	uint32_t end_cs[] = {MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_memory_class_instance r = {.memory_class = I915_MEMORY_CLASS_DEVICE};
	struct drm_i915_gem_create_ext_memory_regions ext = {.base.name =
								 I915_GEM_CREATE_EXT_MEMORY_REGIONS,
							     .num_regions = 1,
							     .regions = (uintptr_t)&r};
	struct drm_i915_gem_create_ext c = {.size = size, .extensions = (uintptr_t)&ext};
	struct drm_i915_gem_exec_object2 objs[2] = {{0}};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_memory_region_info before, after;
	volatile uint32_t *end_map;
	struct dma_fence *in;
	pthread_t thread;
	int in_fd = -1;

	if (geteuid() != 0)
		KTEST_SKIP("needs root: only root is told the lmem in use");
	fx_open(&fx, "dg2", true);
	before = query_lmem(&fx);
	in = dma_fence_alloc(sizeof(*in));
	ASSERT_TRUE(in != NULL);
	dma_fence_init(in, &test_fence_ops, dma_fence_context_alloc(1), 1);
	ASSERT_EQ(drm_sync_file_create(in, O_CLOEXEC, &in_fd), 0);

	/* A new lmem object whose only user is a batch held behind @in. */
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CREATE_EXT, &c), 0);
	end_map = smem_batch(&fx, end_cs, sizeof(end_cs), &objs[1].handle);
	ASSERT_TRUE(end_map != NULL);
	objs[0].handle = c.handle;
	eb.buffers_ptr = (uintptr_t)objs;
	eb.buffer_count = 2;
	eb.flags = I915_EXEC_RENDER | I915_EXEC_FENCE_IN;
	eb.rsvd2 = (uint32_t)in_fd;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	close(in_fd);
	EXPECT_EQ(gem_close(fx.file, c.handle), 0);
	EXPECT_TRUE(query_lmem(&fx).unallocated_size < before.unallocated_size);

	/* ACTIVE | IDLE | FREED: the held batch is submitted, runs and lets go. */
	ASSERT_EQ(pthread_create(&thread, NULL, signal_soon_fn, in), 0);
	EXPECT_EQ(i915_gem_debugfs_write(fx.i915, "i915_gem_drop_caches", "0x58\n", 5), 5);
	after = query_lmem(&fx);
	EXPECT_UEQ(after.unallocated_size, before.unallocated_size);
	pthread_join(thread, NULL);
	i915_gem_munmap(fx.i915, (void *)end_map, 4096);
	fx_close(&fx);
}

/* Batches submitted to engine @id so far. */
static unsigned long engine_submitted(struct uapi_fx *fx, enum i915_engine_id id)
{
	return atomic_load(&fx->i915->engine[id].stats.submitted);
}

/* A store of @value into a new object through @flags on context @ctx; returns what landed. */
static uint32_t store_through(struct uapi_fx *fx, uint32_t ctx, uint64_t flags, uint32_t value,
			      int *err)
{
	struct drm_i915_gem_relocation_entry reloc;
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_wait w = {.timeout_ns = -1};
	struct drm_i915_gem_pread pr = {.size = 4};
	uint32_t v = 0;

	obj[0].handle = gem_create(fx->file, 4096);
	obj[1].handle = gem_create(fx->file, 4096);
	store_batch(fx->file, obj[1].handle, value, &reloc);
	reloc.target_handle = obj[0].handle;
	obj[1].relocation_count = 1;
	obj[1].relocs_ptr = (uintptr_t)&reloc;
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	eb.flags = flags;
	eb.rsvd1 = ctx;
	*err = i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb);
	if (!*err) {
		w.bo_handle = obj[0].handle;
		EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_WAIT, &w), 0);
		pr.handle = obj[0].handle;
		pr.data_ptr = (uintptr_t)&v;
		EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	}
	gem_close(fx->file, obj[0].handle);
	gem_close(fx->file, obj[1].handle);
	return v;
}

static int getparam(struct uapi_fx *fx, int param)
{
	int value = -1;
	drm_i915_getparam_t gp = {.param = param, .value = &value};

	EXPECT_EQ(i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	return value;
}

/*
 * Tiger Lake's engines through the legacy ring selectors: BSD_RING1/2 are
 * vcs0 and the second video engine (physical vcs2), VEBOX is vecs0, and a
 * file's plain BSD batches all go to one video engine.
 */
KTEST(legacy_rings_reach_every_tgl_engine)
{
	static const struct {
		uint64_t flags;
		enum i915_engine_id id;
	} rings[] = {
	    {I915_EXEC_RENDER, I915_ENGINE_RCS},
	    {I915_EXEC_BLT, I915_ENGINE_BCS},
	    {I915_EXEC_BSD | I915_EXEC_BSD_RING1, I915_ENGINE_VCS0},
	    {I915_EXEC_BSD | I915_EXEC_BSD_RING2, I915_ENGINE_VCS2},
	    {I915_EXEC_VEBOX, I915_ENGINE_VECS0},
	};
	struct uapi_fx fx;
	unsigned long vcs0, vcs2;
	int err;

	fx_open(&fx, "tgl", true);
	EXPECT_EQ(getparam(&fx, I915_PARAM_HAS_BSD), 1);
	EXPECT_EQ(getparam(&fx, I915_PARAM_HAS_BSD2), 1);
	EXPECT_EQ(getparam(&fx, I915_PARAM_HAS_VEBOX), 1);
	for (unsigned int i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
		unsigned long before = engine_submitted(&fx, rings[i].id);

		EXPECT_EQ(store_through(&fx, 0, rings[i].flags, 0x100 + i, &err), 0x100 + i);
		EXPECT_EQ(err, 0);
		EXPECT_EQ(engine_submitted(&fx, rings[i].id), before + 1);
	}
	/* BSD without a selector: one engine per file, the same every time. */
	vcs0 = engine_submitted(&fx, I915_ENGINE_VCS0);
	vcs2 = engine_submitted(&fx, I915_ENGINE_VCS2);
	for (unsigned int i = 0; i < 4; i++) {
		EXPECT_EQ(store_through(&fx, 0, I915_EXEC_BSD, 7, &err), 7u);
		EXPECT_EQ(err, 0);
	}
	vcs0 = engine_submitted(&fx, I915_ENGINE_VCS0) - vcs0;
	vcs2 = engine_submitted(&fx, I915_ENGINE_VCS2) - vcs2;
	EXPECT_TRUE((vcs0 == 4 && vcs2 == 0) || (vcs0 == 0 && vcs2 == 4));
	fx_close(&fx);
}

/* CONTEXT_PARAM_ENGINES with extensions, as a create-time setparam. */
struct engines_map {
	uint64_t extensions;
	struct i915_engine_class_instance engines[2];
};

static int create_with_engines(struct uapi_fx *fx, struct engines_map *map, uint32_t *ctx)
{
	struct drm_i915_gem_context_create_ext_setparam sp = {
	    .base = {.name = I915_CONTEXT_CREATE_EXT_SETPARAM},
	    .param = {.param = I915_CONTEXT_PARAM_ENGINES,
		      .size = sizeof(*map),
		      .value = (uintptr_t)map}};
	struct drm_i915_gem_context_create_ext cc = {
	    .flags = I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS, .extensions = (uintptr_t)&sp};
	int ret = i915_gem_ioctl(fx->file, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, &cc);

	*ctx = cc.ctx_id;
	return ret;
}

/*
 * LOAD_BALANCE makes an empty slot a virtual engine over its siblings: its
 * batches run on the sibling with the least queued work, with the
 * kernel's errno for each malformed extension.
 */
KTEST(context_engines_load_balance_over_video_engines)
{
	I915_DEFINE_CONTEXT_ENGINES_LOAD_BALANCE(lb, 2) = {
	    .base = {.name = I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE},
	    .engine_index = 0,
	    .num_siblings = 2,
	    .engines = {{I915_ENGINE_CLASS_VIDEO, 0}, {I915_ENGINE_CLASS_VIDEO, 1}}};
	struct engines_map map = {(uintptr_t)&lb,
				  {{I915_ENGINE_CLASS_INVALID, I915_ENGINE_CLASS_INVALID_NONE},
				   {I915_ENGINE_CLASS_VIDEO, 0}}};
	const uint64_t b_at = 0x200000;
	uint32_t spin_cs[] = {MI_ARB_CHECK, MI_BATCH_BUFFER_START_GEN8 | MI_BATCH_PPGTT,
			      (uint32_t)b_at, 0};
	struct drm_i915_gem_exec_object2 spin = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	volatile uint32_t *spin_map;
	struct uapi_fx fx;
	unsigned long vcs2;
	uint32_t ctx, bad;
	int err;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(create_with_engines(&fx, &map, &ctx), 0);
	/* Slot 1 (vcs0) spins; slot 0's batch goes to the idle sibling. */
	spin_map = map_wb(&fx, spin.handle = gem_create(fx.file, 4096));
	ASSERT_TRUE(spin_map != NULL);
	memcpy((void *)spin_map, spin_cs, sizeof(spin_cs));
	spin.offset = b_at;
	spin.flags = EXEC_OBJECT_PINNED;
	eb.buffers_ptr = (uintptr_t)&spin;
	eb.buffer_count = 1;
	eb.rsvd1 = ctx;
	eb.flags = 1;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	vcs2 = engine_submitted(&fx, I915_ENGINE_VCS2);
	EXPECT_EQ(store_through(&fx, ctx, 0, 0x5a, &err), 0x5au);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(engine_submitted(&fx, I915_ENGINE_VCS2), vcs2 + 1);
	spin_map[0] = MI_BATCH_BUFFER_END;
	/* Slot 2 does not exist. */
	EXPECT_EQ(store_through(&fx, ctx, 2, 1, &err), 0u);
	EXPECT_EQ(err, -EINVAL);

	/* Malformed: slot out of range, slot taken, unknown sibling, flags. */
	lb.engine_index = 2;
	EXPECT_EQ(create_with_engines(&fx, &map, &bad), -EINVAL);
	lb.engine_index = 1;
	EXPECT_EQ(create_with_engines(&fx, &map, &bad), -EEXIST);
	lb.engine_index = 0;
	lb.engines[1].engine_instance = 2;
	EXPECT_EQ(create_with_engines(&fx, &map, &bad), -EINVAL);
	lb.engines[1].engine_instance = 1;
	lb.flags = 1;
	EXPECT_EQ(create_with_engines(&fx, &map, &bad), -EINVAL);
	i915_gem_munmap(fx.i915, (void *)spin_map, 4096);
	fx_close(&fx);
}

/*
 * BOND is accepted on Tiger Lake for a physical slot (and has no effect, as
 * in the kernel), refused on DG2 (-ENODEV); PARALLEL_SUBMIT needs GuC.
 */
KTEST(context_engines_bond_and_parallel_as_the_kernel)
{
	I915_DEFINE_CONTEXT_ENGINES_BOND(bond,
					 1) = {.base = {.name = I915_CONTEXT_ENGINES_EXT_BOND},
					       .master = {I915_ENGINE_CLASS_VIDEO, 0},
					       .virtual_index = 1,
					       .num_bonds = 1,
					       .engines = {{I915_ENGINE_CLASS_VIDEO, 1}}};
	I915_DEFINE_CONTEXT_ENGINES_PARALLEL_SUBMIT(par, 2) = {
	    .base = {.name = I915_CONTEXT_ENGINES_EXT_PARALLEL_SUBMIT},
	    .engine_index = 0,
	    .width = 2,
	    .num_siblings = 1,
	    .engines = {{I915_ENGINE_CLASS_VIDEO, 0}, {I915_ENGINE_CLASS_VIDEO, 1}}};
	struct engines_map map = {(uintptr_t)&bond,
				  {{I915_ENGINE_CLASS_VIDEO, 0}, {I915_ENGINE_CLASS_VIDEO, 1}}};
	struct uapi_fx fx;
	uint32_t ctx;
	int err;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(create_with_engines(&fx, &map, &ctx), 0);
	EXPECT_EQ(store_through(&fx, ctx, 1, 0x77, &err), 0x77u);
	EXPECT_EQ(err, 0);
	bond.master.engine_instance = 3;
	EXPECT_EQ(create_with_engines(&fx, &map, &ctx), -EINVAL);
	bond.master.engine_instance = 0;
	map.engines[1].engine_class = (uint16_t)I915_ENGINE_CLASS_INVALID;
	map.engines[1].engine_instance = (uint16_t)I915_ENGINE_CLASS_INVALID_NONE;
	EXPECT_EQ(create_with_engines(&fx, &map, &ctx), -EINVAL); /* an empty slot */
	map.extensions = (uintptr_t)&par;
	EXPECT_EQ(create_with_engines(&fx, &map, &ctx), -ENODEV);
	par.num_siblings = 2;
	EXPECT_EQ(create_with_engines(&fx, &map, &ctx), -EINVAL);
	fx_close(&fx);

	fx_open(&fx, "dg2", true);
	map.extensions = (uintptr_t)&bond;
	map.engines[1] = (struct i915_engine_class_instance){I915_ENGINE_CLASS_VIDEO, 1};
	EXPECT_EQ(create_with_engines(&fx, &map, &ctx), -ENODEV);
	fx_close(&fx);
}

/*
 * CONTEXT_GETPARAM SSEU reports the render engine's slices (Tiger Lake GT2:
 * one slice, six subslices of 16 EUs) and zeros for the other engines;
 * setting it is gen11-only (-ENODEV), after the size check.
 */
KTEST(context_sseu_get_as_the_kernel)
{
	struct drm_i915_gem_context_param_sseu u = {.engine = {I915_ENGINE_CLASS_RENDER, 0}};
	struct drm_i915_gem_context_param p = {.param = I915_CONTEXT_PARAM_SSEU};
	struct uapi_fx fx;

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_EQ(p.size, sizeof(u));
	p.value = (uintptr_t)&u;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_UEQ(u.slice_mask, 1u);
	EXPECT_UEQ(u.subslice_mask, 0x3fu);
	EXPECT_EQ(u.min_eus_per_subslice, 16);
	EXPECT_EQ(u.max_eus_per_subslice, 16);
	u.engine = (struct i915_engine_class_instance){I915_ENGINE_CLASS_VIDEO, 1};
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), 0);
	EXPECT_UEQ(u.slice_mask, 0u);
	EXPECT_EQ(u.max_eus_per_subslice, 0);
	u.engine.engine_instance = 2; /* no vcs2 in uAPI terms */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), -EINVAL);
	u.engine.engine_instance = 0;
	u.flags = I915_CONTEXT_SSEU_FLAG_ENGINE_INDEX; /* no engine map here */
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), -EINVAL);
	u.flags = 2;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), -EINVAL);
	p.size = 4;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, &p), -EINVAL);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -EINVAL);
	p.size = sizeof(u);
	u.flags = 0;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM, &p), -ENODEV);
	fx_close(&fx);
}

/*
 * Relocation lists longer than one copy chunk: every entry is applied and
 * written back; a list whose tail faults fails the whole call with -EFAULT
 * and nothing of its head is applied.
 */
KTEST(execbuffer2_long_relocation_lists)
{
	enum { N = 150 };
	const size_t page = 4096, bytes = N * sizeof(struct drm_i915_gem_relocation_entry);
	struct drm_i915_gem_exec_object2 obj[2] = {0};
	struct drm_i915_gem_execbuffer2 eb = {0};
	struct drm_i915_gem_relocation_entry *re;
	uint32_t cs[2] = {MI_BATCH_BUFFER_END, 0};
	struct drm_i915_gem_pwrite pw = {.size = sizeof(cs), .data_ptr = (uintptr_t)cs};
	struct drm_i915_gem_pread pr = {.offset = 8, .size = N * 8};
	uint64_t got[N];
	struct uapi_fx fx;
	size_t span = (bytes + page - 1) / page * page;
	char *mem;

	fx_open(&fx, "tgl", true);
	mem = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(mem != MAP_FAILED);
	re = (void *)(mem + span - bytes); /* the list ends where the guard page starts */
	ASSERT_EQ(mprotect(mem + span, page, PROT_NONE), 0);
	obj[0].handle = gem_create(fx.file, 4096);
	obj[1].handle = pw.handle = pr.handle = gem_create(fx.file, 4096);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	for (unsigned int k = 0; k < N; k++)
		re[k] =
		    (struct drm_i915_gem_relocation_entry){.target_handle = obj[0].handle,
							   .delta = k,
							   .offset = 8 + 8ull * k,
							   .presumed_offset = ~0ull,
							   .read_domains = I915_GEM_DOMAIN_RENDER};
	obj[1].relocation_count = N;
	obj[1].relocs_ptr = (uintptr_t)re;
	eb.buffers_ptr = (uintptr_t)obj;
	eb.buffer_count = 2;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	pr.data_ptr = (uintptr_t)got;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	for (unsigned int k = 0; k < N; k++) {
		EXPECT_UEQ(got[k], obj[0].offset + k);
		EXPECT_UEQ(re[k].presumed_offset, obj[0].offset);
	}

	/* Shift the list so its last entries lie in the guard page. */
	memset(got, 0, sizeof(got));
	pw.data_ptr = (uintptr_t)got;
	pw.offset = 8;
	pw.size = sizeof(got);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PWRITE, &pw), 0);
	obj[1].relocs_ptr = (uintptr_t)re + 5 * sizeof(*re);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), -EFAULT);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_PREAD, &pr), 0);
	for (unsigned int k = 0; k < N; k++)
		EXPECT_UEQ(got[k], 0u);
	munmap(mem, span + page);
	fx_close(&fx);
}

/* Ends another "execbuffer's" use of a vma after a while. */
struct unpin_later {
	struct i915_vma *vma;
	atomic_bool unpinned;
};

static void *unpin_later_fn(void *arg)
{
	struct unpin_later *u = arg;

	usleep(50000);
	atomic_store(&u->unpinned, true);
	i915_vma_unpin(u->vma, NULL);
	return NULL;
}

/* @handle's BO, populated, bound at @offset of @vm and pinned there. */
static int bind_fixed(struct uapi_fx *fx, struct i915_address_space *vm, uint32_t handle,
		      uint64_t offset, struct i915_vma **vma)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	struct gem_obj *obj = gem_lookup(fx->file, handle);
	struct ttm_buffer_object *bo = &obj->bo->base;
	int ret;

	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (!ret) {
		ret = ttm_bo_populate(bo, &ctx);
		if (!ret)
			ret = i915_vm_bind(vm, bo, &offset, true, false, false, vma);
		ttm_bo_unreserve(bo);
	}
	gem_obj_put(obj);
	return ret;
}

KTEST(softpin_waits_for_another_execbuffers_pin)
{
	struct uapi_fx fx;
	const uint64_t at = 0x100000;
	struct i915_address_space *vm = NULL;
	struct i915_vma *va = NULL, *vb = NULL;
	struct unpin_later u = {0};
	pthread_t thread;
	uint32_t a, b;

	fx_open(&fx, "tgl", true);
	a = gem_create(fx.file, 4096);
	b = gem_create(fx.file, 4096);
	ASSERT_EQ(i915_vm_create(fx.i915, &vm), 0);
	/* One execbuffer (igt's forked child on one engine) holds @a at the address... */
	ASSERT_EQ(bind_fixed(&fx, vm, a, at, &va), 0);
	u.vma = va;
	ASSERT_EQ(pthread_create(&thread, NULL, unpin_later_fn, &u), 0);
	/* ...another softpins @b there: it gets the range once the first submitted. */
	EXPECT_EQ(bind_fixed(&fx, vm, b, at, &vb), 0);
	EXPECT_TRUE(atomic_load(&u.unpinned));
	pthread_join(thread, NULL);
	if (vb)
		i915_vma_unpin(vb, NULL);
	i915_vm_put(vm);
	fx_close(&fx);
}

KTEST(cpu_fault_on_purgeable_object_sigbus)
{
	struct uapi_fx fx;
	struct drm_i915_gem_madvise ma = {.madv = I915_MADV_DONTNEED};
	struct sigaction sa, old;
	volatile uint32_t *p, *q;
	uint32_t h, h2;

	fx_open(&fx, "tgl", true);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigbus_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGBUS, &sa, &old), 0);

	/* DONTNEED before the first touch: no pages may be given. */
	h = gem_create(fx.file, 4096);
	ma.handle = h;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MADVISE, &ma), 0);
	p = map_wb(&fx, h);
	ASSERT_NE(p, NULL);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		p[0] = 1;
	EXPECT_EQ(sigbus_seen, 1);

	/* An object that already has its pages keeps them until purged. */
	h2 = gem_create(fx.file, 4096);
	q = map_wb(&fx, h2);
	ASSERT_NE(q, NULL);
	q[0] = 7;
	ma.handle = h2;
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_MADVISE, &ma), 0);
	EXPECT_EQ(ma.retained, 1u);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		EXPECT_EQ(q[0], 7u);
	EXPECT_EQ(sigbus_seen, 0);

	sigaction(SIGBUS, &old, NULL);
	EXPECT_EQ(i915_gem_munmap(fx.i915, (void *)p, 4096), 0);
	EXPECT_EQ(i915_gem_munmap(fx.i915, (void *)q, 4096), 0);
	fx_close(&fx);
}

/* USERPTR is not available, and the PROBE capability does not claim otherwise. */
KTEST(userptr_unavailable_and_not_advertised)
{
	struct uapi_fx fx;
	int value = -1;
	drm_i915_getparam_t gp = {.param = I915_PARAM_HAS_USERPTR_PROBE, .value = &value};
	static char page[4096] __attribute__((aligned(4096)));
	struct drm_i915_gem_userptr up = {
	    .user_ptr = (uintptr_t)page, .user_size = sizeof(page), .flags = I915_USERPTR_PROBE};

	fx_open(&fx, "tgl", true);
	ASSERT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	EXPECT_EQ(value, 0);
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_USERPTR, &up), -ENODEV);
	up.flags = 0;
	EXPECT_EQ(i915_gem_ioctl(fx.file, DRM_IOCTL_I915_GEM_USERPTR, &up), -ENODEV);
	EXPECT_EQ(up.handle, 0u);
	fx_close(&fx);
}
