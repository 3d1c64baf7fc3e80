#include "zbtest.h"

extern const zbt_case test_exec_budget[];
extern const zbt_case test_exec_budget_nested[];
extern const zbt_case test_exec_sys_limits[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = {
        test_exec_budget, test_exec_budget_nested, test_exec_sys_limits, NULL
    };
    return zbt_main(argc, argv, suites);
}
