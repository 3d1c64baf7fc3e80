#include "zbtest.h"

extern const zbt_case test_exec_deletes_roaring[];
extern const zbt_case test_exec_deletes_spill[];
extern const zbt_case test_exec_deletes_keyset[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_exec_deletes_roaring,
                                       test_exec_deletes_spill,
                                       test_exec_deletes_keyset, NULL };
    return zbt_main(argc, argv, suites);
}
