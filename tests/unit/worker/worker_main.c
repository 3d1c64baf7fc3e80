/* tests/unit/worker: the worker library's pieces that run alone. */
#include "zbtest.h"

extern const zbt_case test_worker_resources[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_worker_resources, NULL };
    return zbt_main(argc, argv, suites);
}
