/* test_service: the task queue and the size classes (service/). */
#include "zbtest.h"

extern const zbt_case test_service_queue[];
extern const zbt_case test_service_size_class[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_service_size_class,
                                       test_service_queue, NULL };

    return zbt_main(argc, argv, suites);
}
