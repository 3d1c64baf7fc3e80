/* test_ops_tidy: apply-properties, remove-dangling-deletes and
 * rewrite-manifests (tidy_props.c, tidy_dangling.c, tidy_rewrite.c). */
#include "zbtest.h"

extern const zbt_case test_ops_tidy_props[];
extern const zbt_case test_ops_tidy_dangling[];
extern const zbt_case test_ops_tidy_rewrite[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_tidy_props,
                                         test_ops_tidy_dangling,
                                         test_ops_tidy_rewrite, NULL };

    return zbt_main(argc, argv, suites);
}
