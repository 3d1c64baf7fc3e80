#include "scan_test.h"
const zbt_case test_plan_scan_bad[] = { ZBT_END };
