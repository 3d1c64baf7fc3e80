/*
 * service/http/prom.c - the Prometheus text format's lines (prom.h).
 */
#define ZB_MODULE "http"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "service/http/prom.h"

void zb_prom_init(zb_prom *p, zb_buf *out)
{
    p->out = out;
    p->rc = ZB_OK;
}

static void put(zb_prom *p, const char *s, size_t n)
{
    if (p->rc == ZB_OK)
        p->rc = zb_buf_append(p->out, s, n);
}

static void puts_(zb_prom *p, const char *s)
{
    put(p, s, strlen(s));
}

/* HELP text: backslash and newline escaped (a double quote stays). */
static void escape_help(zb_prom *p, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\')
            put(p, "\\\\", 2);
        else if (*v == '\n')
            put(p, "\\n", 2);
        else
            put(p, v, 1);
    }
}

void zb_prom_escape_label(zb_prom *p, const char *v)
{
    for (; v != NULL && *v; v++) {
        if (*v == '\\')
            put(p, "\\\\", 2);
        else if (*v == '"')
            put(p, "\\\"", 2);
        else if (*v == '\n')
            put(p, "\\n", 2);
        else
            put(p, v, 1);
    }
}

void zb_prom_family(zb_prom *p, const char *name, const char *type,
                    const char *help)
{
    puts_(p, "# HELP ");
    puts_(p, name);
    puts_(p, " ");
    escape_help(p, help);
    puts_(p, "\n# TYPE ");
    puts_(p, name);
    puts_(p, " ");
    puts_(p, type);
    puts_(p, "\n");
}

static void value_text(char *out, size_t size, double v)
{
    if (isnan(v))
        snprintf(out, size, "NaN");
    else if (isinf(v))
        snprintf(out, size, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%.17g", v);
}

void zb_prom_sample(zb_prom *p, const char *name, const char *const *labels,
                    double value)
{
    char num[64];
    size_t i;

    puts_(p, name);
    if (labels != NULL && labels[0] != NULL) {
        puts_(p, "{");
        for (i = 0; labels[i] != NULL && labels[i + 1] != NULL; i += 2) {
            if (i > 0)
                puts_(p, ",");
            puts_(p, labels[i]);
            puts_(p, "=\"");
            zb_prom_escape_label(p, labels[i + 1]);
            puts_(p, "\"");
        }
        puts_(p, "}");
    }
    value_text(num, sizeof num, value);
    puts_(p, " ");
    puts_(p, num);
    puts_(p, "\n");
}
