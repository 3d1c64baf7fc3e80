/* The table metrics tests (metrics.c); one ctest binary. */
#include "zbtest.h"

extern const zbt_case test_table_metrics[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_table_metrics, NULL };
    return zbt_main(argc, argv, suites);
}
