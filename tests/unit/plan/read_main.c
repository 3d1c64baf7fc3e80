/* test_plan_read: the row-stream suites (read_*.c). */
#include "zbtest.h"

extern const zbt_case test_plan_read_deletes[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_plan_read_deletes, NULL };

    return zbt_main(argc, argv, suites);
}
