#include "zbtest.h"

extern const zbt_case test_io_local[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_io_local, NULL };
    return zbt_main(argc, argv, suites);
}
