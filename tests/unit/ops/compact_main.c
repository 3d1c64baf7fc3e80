/* test_ops_compact: compaction (compact_gen.c generated tables,
 * compact_race.c a concurrent writer, compact_fixtures.c the fixture
 * tables, compact_par.c threads and the budget). */
#include "zbtest.h"

extern const zbt_case test_ops_compact_gen[];
extern const zbt_case test_ops_compact_fixtures[];
extern const zbt_case test_ops_compact_race[];
extern const zbt_case test_ops_compact_sort[];
extern const zbt_case test_ops_compact_lineage[];
extern const zbt_case test_ops_compact_par[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_compact_gen,
                                         test_ops_compact_fixtures,
                                         test_ops_compact_race,
                                         test_ops_compact_sort,
                                         test_ops_compact_lineage,
                                         test_ops_compact_par, NULL };

    return zbt_main(argc, argv, suites);
}
