#include "zbtest.h"

extern const zbt_case test_exec_budget[];
extern const zbt_case test_exec_budget_nested[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = {
        test_exec_budget, test_exec_budget_nested, NULL
    };
    return zbt_main(argc, argv, suites);
}
