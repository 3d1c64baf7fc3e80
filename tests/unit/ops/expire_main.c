/* test_ops_expire: the reachable-file machinery (expire_reach.c), expire
 * (expire_gen.c), remove-orphans (orphans_gen.c) and both on the fixture
 * tables (orphans_fixtures.c), allocation failures in both
 * (expire_torture.c), old metadata files and progress (expire_meta.c). */
#include "zbtest.h"

extern const zbt_case test_ops_reach[];
extern const zbt_case test_ops_expire_gen[];
extern const zbt_case test_ops_orphans_gen[];
extern const zbt_case test_ops_orphans_fixtures[];
extern const zbt_case test_ops_expire_torture[];
extern const zbt_case test_ops_expire_meta[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_reach, test_ops_expire_gen,
                                       test_ops_orphans_gen,
                                       test_ops_orphans_fixtures,
                                       test_ops_expire_torture,
                                       test_ops_expire_meta, NULL };

    return zbt_main(argc, argv, suites);
}
