/* test_ops_tidy: apply-properties, remove-dangling-deletes and
 * rewrite-manifests (tidy_props.c, tidy_dangling.c, tidy_rewrite.c,
 * tidy_faults.c). */
#include "zbtest.h"

extern const zbt_case test_ops_tidy_props[];
extern const zbt_case test_ops_tidy_dangling[];
extern const zbt_case test_ops_tidy_rewrite[];
extern const zbt_case test_ops_tidy_faults[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_tidy_props,
                                         test_ops_tidy_dangling,
                                         test_ops_tidy_rewrite,
                                         test_ops_tidy_faults, NULL };

    return zbt_main(argc, argv, suites);
}
