#include "zbtest.h"

extern const zbt_case test_exec_deletes_roaring[];
extern const zbt_case test_exec_deletes_spill[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_exec_deletes_roaring,
                                       test_exec_deletes_spill, NULL };
    return zbt_main(argc, argv, suites);
}
