/* test_table_commit: the commit suites (commit_apply.c, commit_snap.c,
 * commit_create.c, commit_fixtures.c). */
#include "zbtest.h"

extern const zbt_case test_table_commit_apply[];
extern const zbt_case test_table_commit_snap[];
extern const zbt_case test_table_commit_create[];
extern const zbt_case test_table_commit_fixtures[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_table_commit_apply,
                                         test_table_commit_snap,
                                         test_table_commit_create,
                                         test_table_commit_fixtures, NULL };

    return zbt_main(argc, argv, suites);
}
