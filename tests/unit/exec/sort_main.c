#include "zbtest.h"

extern const zbt_case test_exec_sort_key[];
extern const zbt_case test_exec_sort_spill[];
extern const zbt_case test_exec_sort_xsort[];
extern const zbt_case test_exec_sort_pool[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_exec_sort_key,
                                       test_exec_sort_spill,
                                       test_exec_sort_xsort,
                                       test_exec_sort_pool, NULL };
    return zbt_main(argc, argv, suites);
}
