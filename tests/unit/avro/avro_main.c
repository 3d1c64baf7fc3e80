/* test_avro: the format/avro module's unit tests (tests/unit/avro). */
#include "zbtest.h"

extern const zbt_case test_avro_schema[], test_avro_read[],
    test_avro_write[], test_avro_schema_cache[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_avro_schema, test_avro_read,
                                       test_avro_write,
                                       test_avro_schema_cache, NULL };
    return zbt_main(argc, argv, suites);
}
