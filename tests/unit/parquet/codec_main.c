/* tests/unit/parquet/codec_main.c - runs the test_parquet_codec suite. */
#include "zbtest.h"

extern const zbt_case test_parquet_codec[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_parquet_codec, NULL };
    return zbt_main(argc, argv, suites);
}
