#include "zbtest.h"

extern const zbt_case test_parquet_encoding[], test_parquet_encoding_files[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_parquet_encoding,
                                       test_parquet_encoding_files, NULL };
    return zbt_main(argc, argv, suites);
}
