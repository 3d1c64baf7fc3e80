/* tests/unit/codec/codec_main.c - runs the test_codec suite. */
#include "zbtest.h"

extern const zbt_case test_codec[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_codec, NULL };
    return zbt_main(argc, argv, suites);
}
