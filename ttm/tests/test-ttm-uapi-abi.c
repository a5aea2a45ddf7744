// SPDX-License-Identifier: MIT
/*
 * The frozen uAPI: every struct size, the offsets 2008 userspace relies on
 * and every ioctl number, checked against literal values (and against the
 * system's own _IOWR encoding) so that no edit of ttm_drm.h slips through.
 */
#include <stddef.h>
#include <sys/ioctl.h>

#include <ttm_drm.h>

#include "ktest.h"

KTEST(ttm_drm_abi_struct_sizes)
{
	EXPECT_EQ(sizeof(struct drm_fence_arg), 48);
	EXPECT_EQ(sizeof(struct drm_bo_info_req), 48);
	EXPECT_EQ(sizeof(struct drm_bo_create_req), 32);
	EXPECT_EQ(sizeof(struct drm_bo_info_rep), 112);
	EXPECT_EQ(sizeof(struct drm_bo_arg_rep), 120);
	EXPECT_EQ(sizeof(struct drm_bo_create_arg), 112);
	EXPECT_EQ(sizeof(struct drm_bo_handle_arg), 4);
	EXPECT_EQ(sizeof(struct drm_bo_reference_info_arg), 112);
	EXPECT_EQ(sizeof(struct drm_bo_map_wait_idle_arg), 112);
	EXPECT_EQ(sizeof(struct drm_bo_op_req), 56);
	EXPECT_EQ(sizeof(struct drm_bo_op_arg), 136);
	EXPECT_EQ(sizeof(struct drm_bo_version_arg), 12);
	EXPECT_EQ(sizeof(struct drm_mm_type_arg), 8);
	EXPECT_EQ(sizeof(struct drm_mm_init_arg), 32);
	EXPECT_EQ(sizeof(struct drm_mm_info_arg), 16);
}

KTEST(ttm_drm_abi_field_offsets)
{
	EXPECT_EQ(offsetof(struct drm_fence_arg, sequence), 24);
	EXPECT_EQ(offsetof(struct drm_fence_arg, expand_pad), 32);
	EXPECT_EQ(offsetof(struct drm_bo_info_req, handle), 16);
	EXPECT_EQ(offsetof(struct drm_bo_info_req, presumed_offset), 40);
	EXPECT_EQ(offsetof(struct drm_bo_create_req, buffer_start), 16);
	EXPECT_EQ(offsetof(struct drm_bo_create_req, page_alignment), 28);
	EXPECT_EQ(offsetof(struct drm_bo_info_rep, offset), 24);
	EXPECT_EQ(offsetof(struct drm_bo_info_rep, arg_handle), 32);
	EXPECT_EQ(offsetof(struct drm_bo_info_rep, handle), 48);
	EXPECT_EQ(offsetof(struct drm_bo_info_rep, rep_flags), 56);
	EXPECT_EQ(offsetof(struct drm_bo_info_rep, expand_pad), 80);
	EXPECT_EQ(offsetof(struct drm_bo_arg_rep, ret), 112);
	EXPECT_EQ(offsetof(struct drm_bo_op_req, bo_req), 8);
	EXPECT_EQ(offsetof(struct drm_bo_op_arg, d), 8);
	EXPECT_EQ(offsetof(struct drm_bo_op_arg, handled), 128);
	EXPECT_EQ(offsetof(struct drm_mm_init_arg, p_offset), 16);
	EXPECT_EQ(offsetof(struct drm_mm_info_arg, p_size), 8);
}

struct abi_number {
	const char *name;
	unsigned long value;
	unsigned long expected;
	unsigned long system;
};

#define NUM(n, e, sys)                                                                             \
	{                                                                                          \
#n, n, e, sys                                                                      \
	}

KTEST(ttm_drm_abi_ioctl_numbers)
{
	static const struct abi_number nums[] = {
	    NUM(DRM_IOCTL_MM_INIT, 0xc02064c0ul, _IOWR('d', 0xc0, struct drm_mm_init_arg)),
	    NUM(DRM_IOCTL_MM_TAKEDOWN, 0xc00864c1ul, _IOWR('d', 0xc1, struct drm_mm_type_arg)),
	    NUM(DRM_IOCTL_MM_LOCK, 0xc00864c2ul, _IOWR('d', 0xc2, struct drm_mm_type_arg)),
	    NUM(DRM_IOCTL_MM_UNLOCK, 0xc00864c3ul, _IOWR('d', 0xc3, struct drm_mm_type_arg)),
	    NUM(DRM_IOCTL_FENCE_CREATE, 0xc03064c4ul, _IOWR('d', 0xc4, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_REFERENCE, 0xc03064c6ul, _IOWR('d', 0xc6, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_UNREFERENCE, 0xc03064c7ul, _IOWR('d', 0xc7, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_SIGNALED, 0xc03064c8ul, _IOWR('d', 0xc8, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_FLUSH, 0xc03064c9ul, _IOWR('d', 0xc9, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_WAIT, 0xc03064caul, _IOWR('d', 0xca, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_EMIT, 0xc03064cbul, _IOWR('d', 0xcb, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_FENCE_BUFFERS, 0xc03064ccul, _IOWR('d', 0xcc, struct drm_fence_arg)),
	    NUM(DRM_IOCTL_BO_CREATE, 0xc07064cdul, _IOWR('d', 0xcd, struct drm_bo_create_arg)),
	    NUM(DRM_IOCTL_BO_MAP, 0xc07064cful, _IOWR('d', 0xcf, struct drm_bo_map_wait_idle_arg)),
	    NUM(DRM_IOCTL_BO_UNMAP, 0xc00464d0ul, _IOWR('d', 0xd0, struct drm_bo_handle_arg)),
	    NUM(DRM_IOCTL_BO_REFERENCE, 0xc07064d1ul,
		_IOWR('d', 0xd1, struct drm_bo_reference_info_arg)),
	    NUM(DRM_IOCTL_BO_UNREFERENCE, 0xc00464d2ul, _IOWR('d', 0xd2, struct drm_bo_handle_arg)),
	    NUM(DRM_IOCTL_BO_SETSTATUS, 0xc07064d3ul,
		_IOWR('d', 0xd3, struct drm_bo_map_wait_idle_arg)),
	    NUM(DRM_IOCTL_BO_INFO, 0xc07064d4ul,
		_IOWR('d', 0xd4, struct drm_bo_reference_info_arg)),
	    NUM(DRM_IOCTL_BO_WAIT_IDLE, 0xc07064d5ul,
		_IOWR('d', 0xd5, struct drm_bo_map_wait_idle_arg)),
	    NUM(DRM_IOCTL_BO_VERSION, 0x800c64d6ul, _IOR('d', 0xd6, struct drm_bo_version_arg)),
	    NUM(DRM_IOCTL_MM_INFO, 0xc01064d7ul, _IOWR('d', 0xd7, struct drm_mm_info_arg)),
	};

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (nums[i].value != nums[i].expected || nums[i].value != nums[i].system)
			printf("# %s: 0x%lx, frozen 0x%lx, system 0x%lx\n", nums[i].name,
			       nums[i].value, nums[i].expected, nums[i].system);
		EXPECT_UEQ(nums[i].value, nums[i].expected);
		EXPECT_UEQ(nums[i].value, nums[i].system);
		EXPECT_EQ(TTM_DRM_IOC_TYPE(nums[i].value), 'd');
	}
}

KTEST(ttm_drm_abi_flag_values)
{
	/* The 2008 bit positions every client hard-coded. */
	EXPECT_UEQ(DRM_BO_FLAG_READ, 0x1ull);
	EXPECT_UEQ(DRM_BO_FLAG_WRITE, 0x2ull);
	EXPECT_UEQ(DRM_BO_FLAG_EXE, 0x4ull);
	EXPECT_UEQ(DRM_BO_FLAG_NO_EVICT, 0x10ull);
	EXPECT_UEQ(DRM_BO_FLAG_MAPPABLE, 0x20ull);
	EXPECT_UEQ(DRM_BO_FLAG_SHAREABLE, 0x40ull);
	EXPECT_UEQ(DRM_BO_FLAG_CACHED, 0x80ull);
	EXPECT_UEQ(DRM_BO_FLAG_NO_MOVE, 0x100ull);
	EXPECT_UEQ(DRM_BO_FLAG_CACHED_MAPPED, 0x80000ull);
	EXPECT_UEQ(DRM_BO_FLAG_MEM_LOCAL, 0x1000000ull);
	EXPECT_UEQ(DRM_BO_FLAG_MEM_TT, 0x2000000ull);
	EXPECT_UEQ(DRM_BO_FLAG_MEM_VRAM, 0x4000000ull);
	EXPECT_UEQ(DRM_BO_FLAG_MEM_PRIV4, 0x80000000ull);
	EXPECT_UEQ(DRM_BO_MASK_MEM, 0xff000000ull);
	EXPECT_UEQ(DRM_BO_HINT_DONT_BLOCK, 0x2u);
	EXPECT_UEQ(DRM_BO_HINT_DONT_FENCE, 0x4u);
	EXPECT_UEQ(DRM_BO_HINT_WAIT_LAZY, 0x8u);
	EXPECT_UEQ(DRM_BO_HINT_PRESUMED_OFFSET, 0x10u);
	EXPECT_UEQ(DRM_BO_REP_BUSY, 0x1u);
	EXPECT_UEQ(DRM_FENCE_FLAG_EMIT, 0x1u);
	EXPECT_UEQ(DRM_FENCE_FLAG_SHAREABLE, 0x2u);
	EXPECT_UEQ(DRM_FENCE_FLAG_WAIT_LAZY, 0x4u);
	EXPECT_UEQ(DRM_FENCE_FLAG_NO_USER, 0x10u);
	EXPECT_UEQ(DRM_FENCE_TYPE_EXE, 0x1u);
	EXPECT_UEQ(DRM_BO_INIT_MAGIC, 0xfe769812u);
	/* Memory type bit n is DRM_BO_MEM_* n. */
	EXPECT_UEQ(DRM_BO_FLAG_MEM_LOCAL << DRM_BO_MEM_PRIV0, DRM_BO_FLAG_MEM_PRIV0);
	EXPECT_UEQ(DRM_BO_FLAG_MEM_LOCAL << DRM_BO_MEM_VRAM, DRM_BO_FLAG_MEM_VRAM);
}
