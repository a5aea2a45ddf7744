// SPDX-License-Identifier: MIT
/* With FAULT_INJECT_ENABLED=0 every hook is a constant false. */
#include <fault_inject.h>
#include <ktest.h>

#include <errno.h>

DEFINE_FAULT_POINT(off_point, "test_off_point")

KTEST(fault_should_fail_compiled_out_is_false)
{
	for (int i = 0; i < 100; i++)
		EXPECT_FALSE(fault_should_fail(&off_point, 4096));
	EXPECT_EQ(fault_hits(&off_point), 0);
}
