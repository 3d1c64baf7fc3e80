/* test_http: serve's HTTP side (service/http/). */
#include "zbtest.h"

extern const zbt_case test_http_cases[];
extern const zbt_case test_http_dashboard_cases[];

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { test_http_cases, test_http_dashboard_cases,
                                       NULL };

    return zbt_main(argc, argv, suites);
}
