/*
 * service/http/prom.h - writing the Prometheus text exposition format,
 * version 0.0.4: "# HELP name text" (backslash and newline escaped), "#
 * TYPE name counter|gauge", then samples "name{k="v",...} value" with
 * label values escaped (backslash, double quote, newline). One family's
 * HELP and TYPE come once, before its samples.
 *
 *     zb_prom p;
 *     zb_prom_init(&p, &buf);
 *     zb_prom_family(&p, "zamboni_tasks", "gauge", "Live tasks.");
 *     zb_prom_sample(&p, "zamboni_tasks", labels, 3);
 *     if (p.rc < 0) ...                          (ZB_ENOMEM: buf's cap)
 */
#ifndef ZB_SERVICE_HTTP_PROM_H
#define ZB_SERVICE_HTTP_PROM_H

#include "util/buf.h"

typedef struct zb_prom {
    zb_buf *out;                   /* borrowed */
    int rc;                        /* the first failure; later writes skip */
} zb_prom;

/* The content type of the format. */
#define ZB_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

void zb_prom_init(zb_prom *p, zb_buf *out);

/* "# HELP" and "# TYPE" lines of the family name (type "counter" or
 * "gauge"). */
void zb_prom_family(zb_prom *p, const char *name, const char *type,
                    const char *help);

/* One sample: labels as NULL-ended pairs {"k", "v", ..., NULL} (NULL: no
 * labels). Values: integers print exactly, others as %.17g; NaN, +Inf,
 * -Inf as the format spells them. */
void zb_prom_sample(zb_prom *p, const char *name, const char *const *labels,
                    double value);

/* A label value's escaping alone (backslash, double quote, newline). */
void zb_prom_escape_label(zb_prom *p, const char *v);

#endif
