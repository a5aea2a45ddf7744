// SPDX-License-Identifier: MIT
/*
 * hw back end pieces that need no device: batch building, canonical
 * addresses, --device / TTM_HW_DEVICE selection and the skip mapping.
 */
#include <errno.h>
#include <stdlib.h>

#include <i915/i915_cmds.h>

#include "hw_gpu.h"
#include "ktest.h"

KTEST(hw_batch_nop_ends_qword_aligned)
{
	uint32_t cs[4] = {0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef};

	ASSERT_EQ(hw_batch_nop(cs, 4), 2);
	EXPECT_UEQ(cs[0], MI_BATCH_BUFFER_END);
	EXPECT_UEQ(cs[1], MI_NOOP);
	EXPECT_UEQ(cs[2], 0xdeadbeef);
	EXPECT_EQ(hw_batch_nop(cs, 1), -ENOSPC);
	EXPECT_EQ(hw_batch_nop(NULL, 4), -EINVAL);
}

/* Decode one XY_FAST_COPY_BLT at @cs and check it against the expected rectangle. */
static void check_fast_copy(const uint32_t *cs, uint64_t dst, uint64_t src, uint32_t rows)
{
	EXPECT_UEQ(cs[0], XY_FAST_COPY_BLT_CMD | (I915_FAST_COPY_BLT_DWORDS - 2));
	EXPECT_UEQ(cs[1] & XY_FAST_COPY_BPP_MASK, XY_FAST_COPY_BPP_8);
	EXPECT_UEQ(cs[1] & 0xffff, HW_COPY_PITCH);
	EXPECT_UEQ(cs[2], 0);
	EXPECT_UEQ(cs[3], (rows << 16) | HW_COPY_PITCH);
	EXPECT_UEQ(cs[4] | ((uint64_t)cs[5] << 32), dst);
	EXPECT_UEQ(cs[6], 0);
	EXPECT_UEQ(cs[7], HW_COPY_PITCH);
	EXPECT_UEQ(cs[8] | ((uint64_t)cs[9] << 32), src);
}

KTEST(hw_batch_copy_one_page)
{
	uint32_t cs[16];
	int n;

	ASSERT_EQ(hw_batch_copy_dwords(4096), 12);
	n = hw_batch_copy(cs, 16, 0x200000, 0x100000, 4096);
	ASSERT_EQ(n, 12);
	check_fast_copy(cs, 0x200000, 0x100000, 1);
	EXPECT_UEQ(cs[10], MI_BATCH_BUFFER_END);
	EXPECT_UEQ(cs[11], MI_NOOP);
}

KTEST(hw_batch_copy_splits_at_max_rows)
{
	uint64_t chunk = (uint64_t)HW_COPY_PITCH * HW_COPY_MAX_ROWS;
	uint64_t size = 2 * chunk + 3 * 4096;
	uint64_t src = 0x1000000000ull, dst = 0x7fff00000000ull;
	unsigned int need = hw_batch_copy_dwords(size);
	uint32_t *cs;
	int n;

	ASSERT_EQ(need, 3 * I915_FAST_COPY_BLT_DWORDS + 2);
	cs = calloc(need, sizeof(*cs));
	ASSERT_NOT_NULL(cs);
	n = hw_batch_copy(cs, need, dst, src, size);
	EXPECT_EQ(n, (int)need);
	if (n == (int)need) {
		check_fast_copy(cs, dst, src, HW_COPY_MAX_ROWS);
		check_fast_copy(cs + 10, dst + chunk, src + chunk, HW_COPY_MAX_ROWS);
		check_fast_copy(cs + 20, dst + 2 * chunk, src + 2 * chunk, 3);
		EXPECT_UEQ(cs[30], MI_BATCH_BUFFER_END);
		EXPECT_UEQ(cs[31], MI_NOOP);
	}
	/* Exactly one dword short: refused, nothing is written past the end. */
	EXPECT_EQ(hw_batch_copy(cs, need - 1, dst, src, size), -ENOSPC);
	free(cs);
}

KTEST(hw_batch_copy_rows_fit_the_coordinate_fields)
{
	EXPECT_LE(HW_COPY_MAX_ROWS, I915_BLT_MAX_COORD);
	EXPECT_LE(HW_COPY_PITCH, I915_BLT_MAX_COORD);
}

KTEST(hw_batch_copy_rejects_bad_arguments)
{
	uint32_t cs[64];

	EXPECT_EQ(hw_batch_copy_dwords(0), 0);
	EXPECT_EQ(hw_batch_copy_dwords(4095), 0);
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x2000, 0x10000, 0), -EINVAL);
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x2000, 0x10000, 100), -EINVAL);
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x2010, 0x10000, 4096), -EINVAL);
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x2000, 0x10008, 4096), -EINVAL);
	/* Overlap either way round, and the same range. */
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x10000, 0x11000, 0x2000), -EINVAL);
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x11000, 0x10000, 0x2000), -EINVAL);
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x10000, 0x10000, 0x1000), -EINVAL);
	/* Adjacent is fine. */
	EXPECT_EQ(hw_batch_copy(cs, 64, 0x12000, 0x10000, 0x2000), 12);
	EXPECT_EQ(hw_batch_copy(cs, 64, UINT64_MAX & ~4095ull, 0, 0x2000), -EINVAL);
	EXPECT_EQ(hw_batch_copy(NULL, 64, 0x2000, 0x10000, 4096), -EINVAL);
	EXPECT_EQ(hw_batch_copy(cs, 11, 0x2000, 0x10000, 4096), -ENOSPC);
}

KTEST(hw_canonical_addr_sign_extends_bit_47)
{
	EXPECT_UEQ(hw_canonical_addr(0), 0);
	EXPECT_UEQ(hw_canonical_addr(0x7ffffffff000ull), 0x7ffffffff000ull);
	EXPECT_UEQ(hw_canonical_addr(0x800000000000ull), 0xffff800000000000ull);
	EXPECT_UEQ(hw_canonical_addr(0xfffffffff000ull), 0xfffffffffffff000ull);
	EXPECT_UEQ(hw_decanonical_addr(0xffff800000001000ull), 0x800000001000ull);
	EXPECT_UEQ(hw_decanonical_addr(hw_canonical_addr(0x123456789000ull)), 0x123456789000ull);
}

KTEST(hw_device_select_parses_both_forms)
{
	char *a1[] = {"prog", "--device", "/dev/dri/renderD129", NULL};
	char *a2[] = {"prog", "-v", "--device=/dev/dri/renderD130", NULL};
	char *a3[] = {"prog", "--device", NULL};
	char *a4[] = {"prog", "--device=", NULL};
	char *a5[] = {"prog", NULL};
	const char *path = "unset";

	unsetenv(HW_DEVICE_ENV);
	ASSERT_EQ(hw_device_select(3, a1, &path), 0);
	EXPECT_STREQ(path, "/dev/dri/renderD129");
	ASSERT_EQ(hw_device_select(3, a2, &path), 0);
	EXPECT_STREQ(path, "/dev/dri/renderD130");
	EXPECT_EQ(hw_device_select(2, a3, &path), -EINVAL);
	EXPECT_EQ(hw_device_select(2, a4, &path), -EINVAL);
	ASSERT_EQ(hw_device_select(1, a5, &path), 0);
	EXPECT_NULL(path);
}

KTEST(hw_device_select_env_is_the_fallback)
{
	char *a1[] = {"prog", "--device=/dev/dri/renderD131", NULL};
	char *a2[] = {"prog", NULL};
	char long_path[HW_PATH_MAX + 8];
	const char *path = NULL;

	setenv(HW_DEVICE_ENV, "/dev/dri/renderD200", 1);
	ASSERT_EQ(hw_device_select(1, a2, &path), 0);
	EXPECT_STREQ(path, "/dev/dri/renderD200");
	/* The command line wins over the environment. */
	ASSERT_EQ(hw_device_select(2, a1, &path), 0);
	EXPECT_STREQ(path, "/dev/dri/renderD131");
	setenv(HW_DEVICE_ENV, "", 1);
	ASSERT_EQ(hw_device_select(1, a2, &path), 0);
	EXPECT_NULL(path);
	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = 0;
	setenv(HW_DEVICE_ENV, long_path, 1);
	EXPECT_EQ(hw_device_select(1, a2, &path), -EINVAL);
	unsetenv(HW_DEVICE_ENV);
}

KTEST(hw_exit_status_maps_skips_to_77)
{
	EXPECT_EQ(hw_exit_status(0), 0);
	EXPECT_EQ(hw_exit_status(-ENODEV), 77);
	EXPECT_EQ(hw_exit_status(-EOPNOTSUPP), 77);
	EXPECT_EQ(hw_exit_status(-EACCES), 77);
	EXPECT_EQ(hw_exit_status(-EIO), 1);
	EXPECT_EQ(hw_exit_status(-ENOMEM), 1);
	EXPECT_EQ(hw_exit_status(-EINVAL), 1);
	EXPECT_TRUE(hw_err_is_skip(-ENODEV));
	EXPECT_FALSE(hw_err_is_skip(-ENOSPC));
	EXPECT_FALSE(hw_err_is_skip(0));
}
