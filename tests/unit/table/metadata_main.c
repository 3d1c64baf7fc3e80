/*
 * test_table_metadata: the table metadata suites. jansson's allocator is
 * replaced before anything allocates, with one that the allocation-failure
 * torture can fail and count (metadata_update.c).
 */
#include <jansson.h>

#include "metadata_test.h"
#include "zbtest.h"

extern const zbt_case test_table_metadata[];
extern const zbt_case test_table_metadata_update[];
extern const zbt_case test_table_metadata_fixtures[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_table_metadata,
                                       test_table_metadata_update,
                                       test_table_metadata_fixtures, NULL };

    json_set_alloc_funcs(test_json_malloc, test_json_free);
    return zbt_main(argc, argv, suites);
}
