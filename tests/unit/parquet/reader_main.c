#include "zbtest.h"

extern const zbt_case test_parquet_reader[], test_parquet_schema[],
    test_parquet_writer[], test_parquet_writer_metrics[],
    test_parquet_compression[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_parquet_schema, test_parquet_reader,
                                       test_parquet_writer,
                                       test_parquet_writer_metrics,
                                       test_parquet_compression, NULL };
    return zbt_main(argc, argv, suites);
}
