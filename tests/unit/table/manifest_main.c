/* test_table_manifest: the manifest suites (manifest.c). */
#include "zbtest.h"

extern const zbt_case test_table_manifest[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_table_manifest, NULL };

    return zbt_main(argc, argv, suites);
}
