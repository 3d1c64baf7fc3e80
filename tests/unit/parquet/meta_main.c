#include "zbtest.h"

extern const zbt_case test_parquet_meta[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_parquet_meta, NULL };
    return zbt_main(argc, argv, suites);
}
