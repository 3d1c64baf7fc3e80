/* test_table_commit: the commit suites (commit_apply.c, commit_snap.c). */
#include "zbtest.h"

extern const zbt_case test_table_commit_apply[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_table_commit_apply, NULL };

    return zbt_main(argc, argv, suites);
}
