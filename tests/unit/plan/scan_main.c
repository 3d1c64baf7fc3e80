/* test_plan_scan: scan planning suites (scan_fixtures.c, scan_filter.c,
 * scan_bad.c). */
#include "zbtest.h"

extern const zbt_case test_plan_scan_fixtures[];
extern const zbt_case test_plan_scan_filter[];
extern const zbt_case test_plan_scan_bad[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_plan_scan_fixtures,
                                       test_plan_scan_filter,
                                       test_plan_scan_bad, NULL };

    return zbt_main(argc, argv, suites);
}
