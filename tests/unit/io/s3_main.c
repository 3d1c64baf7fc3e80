#include "zbtest.h"

extern const zbt_case test_io_s3_parse[];
extern const zbt_case test_io_s3[];
extern const zbt_case test_io_s3_expired[];

/* Built twice: the parsers alone (unit), and with the server cases. */
int main(int argc, char **argv)
{
#ifdef ZB_TEST_S3_SERVER
    const zbt_case *const suites[] = { test_io_s3, test_io_s3_expired,
                                       NULL };
#else
    const zbt_case *const suites[] = { test_io_s3_parse, NULL };
#endif
    return zbt_main(argc, argv, suites);
}
