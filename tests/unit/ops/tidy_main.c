/* test_ops_tidy: apply-properties, remove-dangling-deletes and
 * rewrite-manifests (tidy_props.c, tidy_dangling.c, tidy_rewrite.c,
 * tidy_faults.c), and the settings resolver (tidy_settings.c). */
#include "zbtest.h"

extern const zbt_case test_ops_tidy_props[];
extern const zbt_case test_ops_tidy_dangling[];
extern const zbt_case test_ops_tidy_rewrite[];
extern const zbt_case test_ops_tidy_faults[];
extern const zbt_case test_ops_tidy_settings[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_ops_tidy_props,
                                         test_ops_tidy_dangling,
                                         test_ops_tidy_rewrite,
                                         test_ops_tidy_faults,
                                         test_ops_tidy_settings, NULL };

    return zbt_main(argc, argv, suites);
}
