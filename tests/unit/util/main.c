#include "zbtest.h"

extern const zbt_case test_util_err[], test_util_alloc[], test_util_buf[],
    test_util_arena[], test_util_str[], test_util_log[], test_util_metrics[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_util_err, test_util_alloc,
                                       test_util_buf, test_util_arena,
                                       test_util_str, test_util_log,
                                       test_util_metrics, NULL };
    return zbt_main(argc, argv, suites);
}
