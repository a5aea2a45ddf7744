// SPDX-License-Identifier: MIT
#include <drmcore/drm_idr.h>
#include <drmcore/drm_faults.h>
#include <ktest.h>

#include <errno.h>

static int count_cb(uint32_t h, void *p, void *data)
{
	(void)h;
	(void)p;
	(*(int *)data)++;
	return 0;
}

KTEST(drm_idr_alloc_gives_lowest_free_handle)
{
	struct drm_idr idr;
	int x, n = 0;

	drm_idr_init(&idr);
	for (int i = 1; i <= 40; i++)
		EXPECT_EQ(drm_idr_alloc(&idr, &x), i);
	EXPECT_TRUE(drm_idr_remove(&idr, 7) == &x);
	EXPECT_TRUE(drm_idr_remove(&idr, 3) == &x);
	EXPECT_NULL(drm_idr_remove(&idr, 3));
	EXPECT_EQ(drm_idr_alloc(&idr, &x), 3);
	EXPECT_EQ(drm_idr_alloc(&idr, &x), 7);
	EXPECT_EQ(drm_idr_alloc(&idr, &x), 41);
	EXPECT_NULL(drm_idr_find(&idr, 0));
	EXPECT_NULL(drm_idr_find(&idr, 42));
	EXPECT_NULL(drm_idr_find(&idr, 0xffffffffu));
	EXPECT_EQ(drm_idr_alloc(&idr, NULL), -EINVAL);
	drm_idr_for_each(&idr, count_cb, &n);
	EXPECT_EQ(n, 41);
	drm_idr_fini(&idr);
}

KTEST(drm_idr_alloc_fails_cleanly_under_fault_injection)
{
	struct drm_idr idr;
	int x;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	drm_idr_init(&idr);
	fault_set_nth(&drm_fault_idr_alloc, 1);
	EXPECT_EQ(drm_idr_alloc(&idr, &x), -ENOMEM);
	EXPECT_EQ(drm_idr_alloc(&idr, &x), 1);
	EXPECT_NULL(drm_idr_replace(&idr, 2, &x));
	EXPECT_TRUE(drm_idr_replace(&idr, 1, &idr) == &x);
	EXPECT_TRUE(drm_idr_find(&idr, 1) == &idr);
	fault_reset(&drm_fault_idr_alloc);
	drm_idr_fini(&idr);
}
