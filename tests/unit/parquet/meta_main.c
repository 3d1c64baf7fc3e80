#include "zbtest.h"

extern const zbt_case test_parquet_meta[];
extern const zbt_case test_parquet_meta_write[];
extern const zbt_case test_parquet_meta_write_files[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = {
        test_parquet_meta, test_parquet_meta_write,
        test_parquet_meta_write_files, NULL
    };
    return zbt_main(argc, argv, suites);
}
