// SPDX-License-Identifier: MIT
/* drm_vma_manager: fake mmap offsets, lookups inside a node, per-file grants. */
#include <errno.h>
#include <stdlib.h>

#include <ttm/drm_vma_manager.h>
#include <ttm/ttm_faults.h>

#include "ktest.h"

/* Two distinct file tags; only their addresses matter. */
static char file_a, file_b;
#define FILE_A ((struct drm_file *)(void *)&file_a)
#define FILE_B ((struct drm_file *)(void *)&file_b)

/*
 * Every node gets a range of its own in the offset space; a lookup of any
 * page range inside a node finds it, one that runs past its end (or starts
 * in a gap) finds nothing; adding twice keeps the first offset; removing
 * takes the offset away and lets the range be handed out again.
 */
KTEST(drm_vma_offset_add_lookup_remove)
{
	static const uint64_t sizes[] = {1, 3, 16, 2, 7, 1, 64, 5};
	const unsigned n = sizeof(sizes) / sizeof(sizes[0]);
	struct drm_vma_offset_node *nodes = calloc(n, sizeof(*nodes));
	struct drm_vma_offset_manager mgr;
	uint64_t first;

	ASSERT_NOT_NULL(nodes);
	ASSERT_EQ(drm_vma_offset_manager_init(&mgr, DRM_FILE_PAGE_OFFSET_START,
					      DRM_FILE_PAGE_OFFSET_SIZE),
		  0);
	for (unsigned i = 0; i < n; i++) {
		drm_vma_node_init(&nodes[i]);
		EXPECT_FALSE(drm_vma_node_has_offset(&nodes[i]));
		EXPECT_UEQ(drm_vma_node_offset_addr(&nodes[i]), 0);
		ASSERT_EQ(drm_vma_offset_add(&mgr, &nodes[i], sizes[i]), 0);
		EXPECT_TRUE(drm_vma_node_has_offset(&nodes[i]));
		EXPECT_UEQ(drm_vma_node_size(&nodes[i]), sizes[i]);
		EXPECT_UGE(drm_vma_node_start(&nodes[i]), DRM_FILE_PAGE_OFFSET_START);
		/* Byte offsets from 4 GiB up, as the kernel's. */
		EXPECT_UGE(drm_vma_node_offset_addr(&nodes[i]), 1ull << 32);
	}
	drm_vma_offset_lock_lookup(&mgr);
	for (unsigned i = 0; i < n; i++) {
		uint64_t s = drm_vma_node_start(&nodes[i]), sz = sizes[i];

		for (uint64_t p = 0; p < sz; p++)
			EXPECT_TRUE(drm_vma_offset_lookup_locked(&mgr, s + p, sz - p) == &nodes[i]);
		EXPECT_TRUE(drm_vma_offset_exact_lookup_locked(&mgr, s, sz) == &nodes[i]);
		if (sz > 1)
			EXPECT_NULL(drm_vma_offset_exact_lookup_locked(&mgr, s + 1, 1));
		/* One page more than the node: no node spans it. */
		EXPECT_TRUE(drm_vma_offset_lookup_locked(&mgr, s, sz + 1) != &nodes[i]);
		for (unsigned j = 0; j < n; j++) {
			uint64_t t = drm_vma_node_start(&nodes[j]);

			if (j != i)
				EXPECT_TRUE(t + sizes[j] <= s || s + sz <= t);
		}
	}
	EXPECT_NULL(drm_vma_offset_lookup_locked(&mgr, DRM_FILE_PAGE_OFFSET_START - 1, 1));
	EXPECT_NULL(drm_vma_offset_lookup_locked(&mgr, 0, 1));
	drm_vma_offset_unlock_lookup(&mgr);

	first = drm_vma_node_start(&nodes[2]);
	EXPECT_EQ(drm_vma_offset_add(&mgr, &nodes[2], 99), 0);
	EXPECT_UEQ(drm_vma_node_start(&nodes[2]), first);
	EXPECT_UEQ(drm_vma_node_size(&nodes[2]), 16);
	drm_vma_offset_remove(&mgr, &nodes[2]);
	EXPECT_FALSE(drm_vma_node_has_offset(&nodes[2]));
	drm_vma_offset_remove(&mgr, &nodes[2]); /* no offset: no-op */
	drm_vma_offset_lock_lookup(&mgr);
	EXPECT_NULL(drm_vma_offset_lookup_locked(&mgr, first, 1));
	drm_vma_offset_unlock_lookup(&mgr);
	ASSERT_EQ(drm_vma_offset_add(&mgr, &nodes[2], 16), 0);
	drm_vma_offset_lock_lookup(&mgr);
	EXPECT_TRUE(drm_vma_offset_lookup_locked(&mgr, drm_vma_node_start(&nodes[2]) + 15, 1) ==
		    &nodes[2]);
	drm_vma_offset_unlock_lookup(&mgr);

	for (unsigned i = 0; i < n; i++) {
		drm_vma_offset_remove(&mgr, &nodes[i]);
		drm_vma_node_fini(&nodes[i]);
	}
	EXPECT_TRUE(drm_mm_clean(&mgr.vm_addr_space_mm));
	drm_vma_offset_manager_destroy(&mgr);
	free(nodes);
}

KTEST(drm_vma_offset_add_errors)
{
	struct drm_vma_offset_manager mgr;
	struct drm_vma_offset_node a = {0}, b = {0};

	EXPECT_EQ(drm_vma_offset_manager_init(&mgr, 16, 0), -EINVAL);
	EXPECT_EQ(drm_vma_offset_manager_init(&mgr, UINT64_MAX - 2, 8), -EINVAL);
	ASSERT_EQ(drm_vma_offset_manager_init(&mgr, 16, 8), 0);
	drm_vma_node_init(&a);
	drm_vma_node_init(&b);
	EXPECT_EQ(drm_vma_offset_add(&mgr, &a, 0), -EINVAL);
	EXPECT_EQ(drm_vma_offset_add(&mgr, &a, 9), -ENOSPC);
	ASSERT_EQ(drm_vma_offset_add(&mgr, &a, 8), 0);
	EXPECT_UEQ(drm_vma_node_start(&a), 16);
	EXPECT_EQ(drm_vma_offset_add(&mgr, &b, 1), -ENOSPC);
	EXPECT_FALSE(drm_vma_node_has_offset(&b));
	drm_vma_offset_remove(&mgr, &a);
	drm_vma_node_fini(&a);
	drm_vma_node_fini(&b);
	drm_vma_offset_manager_destroy(&mgr);
}

/*
 * Grants are per file and counted: each drm_vma_node_allow() needs its own
 * revoke, allow_once() does not stack, revoking a file without a grant
 * changes nothing, and another file's grant never opens the node.
 */
KTEST(drm_vma_node_allow_revoke_per_file)
{
	struct drm_vma_offset_node node = {0};

	drm_vma_node_init(&node);
	EXPECT_FALSE(drm_vma_node_is_allowed(&node, FILE_A));
	EXPECT_EQ(drm_vma_node_verify_access(&node, FILE_A), -EACCES);
	ASSERT_EQ(drm_vma_node_allow(&node, FILE_A), 0);
	ASSERT_EQ(drm_vma_node_allow(&node, FILE_A), 0);
	EXPECT_TRUE(drm_vma_node_is_allowed(&node, FILE_A));
	EXPECT_EQ(drm_vma_node_verify_access(&node, FILE_A), 0);
	EXPECT_FALSE(drm_vma_node_is_allowed(&node, FILE_B));
	drm_vma_node_revoke(&node, FILE_B);
	drm_vma_node_revoke(&node, FILE_A);
	EXPECT_TRUE(drm_vma_node_is_allowed(&node, FILE_A));
	drm_vma_node_revoke(&node, FILE_A);
	EXPECT_FALSE(drm_vma_node_is_allowed(&node, FILE_A));

	ASSERT_EQ(drm_vma_node_allow_once(&node, FILE_B), 0);
	ASSERT_EQ(drm_vma_node_allow_once(&node, FILE_B), 0);
	EXPECT_TRUE(drm_vma_node_is_allowed(&node, FILE_B));
	drm_vma_node_revoke(&node, FILE_B);
	EXPECT_FALSE(drm_vma_node_is_allowed(&node, FILE_B));

	/* A grant left at fini is released with the node. */
	ASSERT_EQ(drm_vma_node_allow(&node, FILE_A), 0);
	drm_vma_node_fini(&node);
}

KTEST(drm_vma_node_allow_fault_point_enomem)
{
	struct drm_vma_offset_node node = {0};

	drm_vma_node_init(&node);
	fault_set_nth(&ttm_fault_map_alloc, 1);
	EXPECT_EQ(drm_vma_node_allow(&node, FILE_A), -ENOMEM);
	fault_reset(&ttm_fault_map_alloc);
	EXPECT_FALSE(drm_vma_node_is_allowed(&node, FILE_A));
	ASSERT_EQ(drm_vma_node_allow(&node, FILE_A), 0);
	EXPECT_TRUE(drm_vma_node_is_allowed(&node, FILE_A));
	drm_vma_node_fini(&node);
}
