#include "zbtest.h"

extern const zbt_case test_requests[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_requests, NULL };
    return zbt_main(argc, argv, suites);
}
