#include "zbtest.h"

extern const zbt_case test_exec_deletes_roaring[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_exec_deletes_roaring, NULL };
    return zbt_main(argc, argv, suites);
}
