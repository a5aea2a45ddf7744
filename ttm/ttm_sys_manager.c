// SPDX-License-Identifier: MIT
/*
 * The SYSTEM memory type: resources are only bookkeeping (the pages live in
 * the BO's ttm_tt), so there is no address space to run out of.
 */
#include <errno.h>
#include <stdlib.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_resource.h>

static int ttm_sys_man_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
			     const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
			     struct ttm_resource **res)
{
	struct ttm_resource *r =
	    fault_should_fail(&ttm_fault_resource_alloc, sizeof(*r)) ? NULL : malloc(sizeof(*r));

	(void)page_alignment;
	if (!r)
		return -ENOMEM;
	ttm_resource_init(man, bo, place, size, r);
	*res = r;
	return 0;
}

static void ttm_sys_man_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	ttm_resource_fini(man, res);
	free(res);
}

static const struct ttm_resource_manager_func ttm_sys_manager_func = {
    .alloc = ttm_sys_man_alloc,
    .free = ttm_sys_man_free,
};

int ttm_sys_manager_init(struct ttm_resource_manager *man)
{
	/* Size 0: SYSTEM is limited by the page accounting, not by the manager. */
	int ret = ttm_resource_manager_init(man, &ttm_sys_manager_func, 0);

	if (ret)
		return ret;
	man->use_tt = true;
	man->use_type = true;
	return 0;
}

int ttm_sys_manager_fini(struct ttm_resource_manager *man)
{
	return ttm_resource_manager_fini(man);
}
