/*
 * test_catalog_rest: the REST catalog client (src/catalog/catalog_rest*.c)
 * against the in-process test server of rest_server.c.
 */
#include <stdlib.h>

#include "rest_server.h"
#include "zbtest.h"

extern const zbt_case test_catalog_rest_calls[];
extern const zbt_case test_catalog_rest_faults[];
extern const zbt_case test_catalog_rest_parse[];
extern const zbt_case test_catalog_rest_writers[];
extern const zbt_case test_catalog_rest_vended[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_catalog_rest_calls,
                                       test_catalog_rest_faults,
                                       test_catalog_rest_parse,
                                       test_catalog_rest_writers,
                                       test_catalog_rest_vended, NULL };
    const char *writer = getenv("ZB_TEST_REST_WRITER");

    /* One of concurrent_writers' writer processes (rest_writers.c). */
    if (writer)
        return rest_writer_main(writer);
    return zbt_main(argc, argv, suites);
}
