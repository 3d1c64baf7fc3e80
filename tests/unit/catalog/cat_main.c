/* test_catalog: the catalog suites (SQL on SQLite and PostgreSQL; PATH). */
#include "zbtest.h"

extern const zbt_case test_catalog_sql[];
extern const zbt_case test_catalog_path[];
extern const zbt_case test_catalog_retry[];
extern const zbt_case test_catalog_s3[];
extern const zbt_case test_catalog_fence[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_catalog_sql, test_catalog_path,
                                       test_catalog_retry, test_catalog_s3,
                                       test_catalog_fence,
                                       NULL };

    return zbt_main(argc, argv, suites);
}
