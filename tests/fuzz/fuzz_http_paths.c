/*
 * libFuzzer target: the request input serve's dashboard parses itself
 * (service/http/http_route.h). The first byte picks the part: even, the
 * rest is a path for zb_http_route_parse; odd, a login form body for
 * zb_http_form_value (keys "token" and "next", into a small and a large
 * buffer). A route's fields must be terminated and fit, a page's or an
 * API's warehouse and table free of '/' and control bytes, a task id
 * positive; a form value found must be shorter than its buffer and hold
 * no NUL. Never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "service/http/http_route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_segment(const char *s, size_t size)
{
    size_t n = strnlen(s, size), i;

    if (n == size)
        abort();                   /* not terminated */
    for (i = 0; i < n; i++)
        if (s[i] == '/' || (unsigned char)s[i] < 0x20)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_http_route r;
    char small[8], large[1024];
    char *text;

    if (size == 0)
        return 0;
    if ((text = malloc(size)) == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if ((data[0] & 1) == 0) {
        zb_http_route_parse(&r, text);
        check_segment(r.warehouse, sizeof r.warehouse);
        check_segment(r.table, sizeof r.table);
        check_segment(r.asset, sizeof r.asset);
        if (r.kind == ZB_ROUTE_API_TASK && r.task_id <= 0)
            abort();
        if ((r.kind == ZB_ROUTE_API_WAREHOUSE ||
             r.kind == ZB_ROUTE_API_TABLE) && r.warehouse[0] == '\0')
            abort();
        if (r.kind == ZB_ROUTE_NONE &&
            (r.warehouse[0] || r.table[0] || r.asset[0] || r.task_id))
            abort();
    } else {
        if (zb_http_form_value((const char *)data + 1, size - 1, "token",
                               small, sizeof small) &&
            strnlen(small, sizeof small) >= sizeof small)
            abort();
        if (zb_http_form_value((const char *)data + 1, size - 1, "next",
                               large, sizeof large) &&
            strnlen(large, sizeof large) >= sizeof large)
            abort();
    }
    free(text);
    return 0;
}
