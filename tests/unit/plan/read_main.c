/* test_plan_read: the row-stream suites (read_*.c). */
#include "zbtest.h"

extern const zbt_case test_plan_read_deletes[];
extern const zbt_case test_plan_read_schema[];
extern const zbt_case test_plan_read_fixtures[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_plan_read_deletes,
                                       test_plan_read_schema,
                                       test_plan_read_fixtures, NULL };

    return zbt_main(argc, argv, suites);
}
