/*
 * service/http/http_route.c - the dashboard's paths and its login form's
 * body (http_route.h). Paths are split on '/' into at most a few
 * segments, each checked before it is copied into the route's fixed
 * fields, so that a long or odd path is a 404, never an overflow.
 */
#define ZB_MODULE "http"

#include <stdlib.h>
#include <string.h>

#include "service/http/http_route.h"
#include "util/str.h"

#define MAX_SEGS 8

typedef struct seg {
    const char *p;
    size_t n;
} seg;

/* A segment a route may carry: non-empty, no control byte, not a dot
 * segment. */
static int seg_ok(const seg *s, size_t max)
{
    size_t i;

    if (s->n == 0 || s->n >= max)
        return 0;
    if ((s->n == 1 && s->p[0] == '.') ||
        (s->n == 2 && s->p[0] == '.' && s->p[1] == '.'))
        return 0;
    for (i = 0; i < s->n; i++)
        if ((unsigned char)s->p[i] < 0x20 || s->p[i] == 0x7f)
            return 0;
    /* names go into JSON answers: a byte string that is no UTF-8 names
     * nothing (404), not a failed answer */
    return zb_str_utf8_valid(s->p, s->n);
}

static int seg_is(const seg *s, const char *word)
{
    return s->n == strlen(word) && memcmp(s->p, word, s->n) == 0;
}

static int seg_copy(char *out, size_t size, const seg *s)
{
    if (!seg_ok(s, size))
        return 0;
    memcpy(out, s->p, s->n);
    out[s->n] = '\0';
    return 1;
}

static int seg_id(int64_t *out, const seg *s)
{
    int64_t v = 0;
    size_t i;

    if (s->n == 0 || s->n > 18)
        return 0;
    for (i = 0; i < s->n; i++) {
        if (s->p[i] < '0' || s->p[i] > '9')
            return 0;
        v = v * 10 + (s->p[i] - '0');
    }
    *out = v;
    return v > 0;
}

/* Splits path ("/a/b/c", a trailing '/' allowed) into segments; -1 when
 * it does not start with '/', has more than MAX_SEGS or an empty one
 * inside. */
static int split(seg *segs, const char *path)
{
    const char *p = path, *q;
    int n = 0;

    if (p == NULL || p[0] != '/')
        return -1;
    p++;
    while (*p != '\0') {
        if (n == MAX_SEGS)
            return -1;
        q = strchr(p, '/');
        segs[n].p = p;
        segs[n].n = q ? (size_t)(q - p) : strlen(p);
        if (segs[n].n == 0)
            return -1;             /* "//" */
        n++;
        if (q == NULL)
            break;
        p = q + 1;                 /* a trailing '/' ends the loop */
    }
    return n;
}

static void api(zb_http_route *r, const seg *s, int n)
{
    if (n == 1 && seg_is(&s[0], "fleet"))
        r->kind = ZB_ROUTE_API_FLEET;
    else if (n == 1 && seg_is(&s[0], "warehouses"))
        r->kind = ZB_ROUTE_API_WAREHOUSES;
    else if (n == 2 && seg_is(&s[0], "warehouses") &&
             seg_copy(r->warehouse, sizeof r->warehouse, &s[1]))
        r->kind = ZB_ROUTE_API_WAREHOUSE;
    else if (n == 4 && seg_is(&s[0], "warehouses") &&
             seg_is(&s[2], "tables") &&
             seg_copy(r->warehouse, sizeof r->warehouse, &s[1]) &&
             seg_copy(r->table, sizeof r->table, &s[3]))
        r->kind = ZB_ROUTE_API_TABLE;
    else if (n == 5 && seg_is(&s[0], "warehouses") &&
             seg_is(&s[2], "tables") && seg_is(&s[4], "plan") &&
             seg_copy(r->warehouse, sizeof r->warehouse, &s[1]) &&
             seg_copy(r->table, sizeof r->table, &s[3]))
        r->kind = ZB_ROUTE_API_TABLE_PLAN;
    else if (n == 1 && seg_is(&s[0], "tasks"))
        r->kind = ZB_ROUTE_API_TASKS;
    else if (n == 2 && seg_is(&s[0], "tasks") && seg_id(&r->task_id, &s[1]))
        r->kind = ZB_ROUTE_API_TASK;
    else if (n == 1 && seg_is(&s[0], "workers"))
        r->kind = ZB_ROUTE_API_WORKERS;
    else if (n == 1 && seg_is(&s[0], "runs"))
        r->kind = ZB_ROUTE_API_RUNS;
}

void zb_http_route_parse(zb_http_route *out, const char *path)
{
    seg s[MAX_SEGS];
    int64_t id;
    int n;

    memset(out, 0, sizeof *out);
    if ((n = split(s, path)) < 0)
        return;
    if (n == 0) {
        out->kind = ZB_ROUTE_PAGE;
    } else if (n >= 3 && seg_is(&s[0], "api") && seg_is(&s[1], "v1")) {
        api(out, s + 2, n - 2);
    } else if (n == 2 && seg_is(&s[0], "assets") &&
               seg_copy(out->asset, sizeof out->asset, &s[1])) {
        out->kind = ZB_ROUTE_ASSET;
    } else if (n == 1 && seg_is(&s[0], "login")) {
        out->kind = ZB_ROUTE_LOGIN;
    } else if (n == 1 && seg_is(&s[0], "logout")) {
        out->kind = ZB_ROUTE_LOGOUT;
    } else if ((n == 2 && seg_is(&s[0], "warehouses") &&
                seg_copy(out->warehouse, sizeof out->warehouse, &s[1])) ||
               (n == 3 && seg_is(&s[0], "tables") &&
                seg_copy(out->warehouse, sizeof out->warehouse, &s[1]) &&
                seg_copy(out->table, sizeof out->table, &s[2])) ||
               (n == 2 && seg_is(&s[0], "tasks") && seg_id(&id, &s[1]))) {
        out->kind = ZB_ROUTE_PAGE;
    }
    if (out->kind == ZB_ROUTE_NONE)
        memset(out, 0, sizeof *out);
}

int zb_http_form_value(const char *body, size_t len, const char *key,
                       char *out, size_t out_size)
{
    size_t klen = strlen(key), i = 0, o;
    int hi, lo;

    if (out_size == 0)
        return 0;
    out[0] = '\0';
    while (i < len) {
        size_t end = i;

        while (end < len && body[end] != '&')
            end++;
        if (end - i > klen && memcmp(body + i, key, klen) == 0 &&
            body[i + klen] == '=') {
            o = 0;
            for (i += klen + 1; i < end; i++) {
                char c = body[i];

                if (c == '+') {
                    c = ' ';
                } else if (c == '%') {
                    if (end - i < 3 ||
                        (hi = zb_str_hex_digit(
                             (unsigned char)body[i + 1])) < 0 ||
                        (lo = zb_str_hex_digit(
                             (unsigned char)body[i + 2])) < 0)
                        return 0;
                    c = (char)(hi * 16 + lo);
                    i += 2;
                }
                if (c == '\0' || o + 1 >= out_size)
                    return 0;
                out[o++] = c;
            }
            out[o] = '\0';
            return 1;
        }
        i = end + 1;
    }
    return 0;
}
