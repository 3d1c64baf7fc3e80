#include "zbtest.h"

extern const zbt_case test_table_values[], test_table_values_json[],
    test_table_transform[], test_table_partfix[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_table_values,
                                       test_table_values_json,
                                       test_table_transform,
                                       test_table_partfix, NULL };
    return zbt_main(argc, argv, suites);
}
