/*
 * util/prometheus.c - the metrics registry (see util/prometheus.h).
 *
 * Families (one per metric name) keep their registration order, and each
 * holds its series in registration order, so the rendered text is stable.
 * Registration takes the registry's mutex; updates do not. A double is kept
 * as its bit pattern in an atomic 64-bit word and added to with a
 * compare-and-swap loop. Histogram buckets are stored per bucket and made
 * cumulative when rendered.
 *
 * Lookup is a linear scan: a process has tens of families and few series
 * each, and lookups happen at setup, not per event.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/prometheus.h"
#include "util/vec.h"

#define MAX_FAMILIES 4096
#define MAX_SERIES 65536
#define MAX_BOUNDS 64

typedef enum { KIND_COUNTER, KIND_GAUGE, KIND_HISTOGRAM } kind_t;

struct zb_metric {
    kind_t kind;
    char *labels;                   /* rendered: a="x",b="y"; "" if none */
    atomic_uint_fast64_t value;     /* double bits: value, or histogram sum */
    atomic_uint_fast64_t count;     /* histogram observations */
    atomic_uint_fast64_t *buckets;  /* histogram: n_bounds + 1 (+Inf) */
    const double *bounds;           /* the family's */
    size_t n_bounds;
};

typedef struct family {
    char *name;
    char *help;
    kind_t kind;
    double *bounds;
    size_t n_bounds;
    zb_vec series;                  /* zb_metric * */
} family;

struct zb_metrics {
    pthread_mutex_t lock;
    zb_vec families;                /* family * */
};

const double zb_metrics_job_seconds_buckets[] = {
    0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600
};
const size_t zb_metrics_job_seconds_buckets_len =
    sizeof zb_metrics_job_seconds_buckets /
    sizeof zb_metrics_job_seconds_buckets[0];

static uint64_t d2u(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static void atomic_add_double(atomic_uint_fast64_t *w, double v)
{
    uint_fast64_t old = atomic_load(w);

    while (!atomic_compare_exchange_weak(w, &old, d2u(u2d(old) + v)))
        ;
}

int zb_metrics_new(zb_metrics **out)
{
    zb_metrics *m;

    *out = NULL;
    if ((m = zb_calloc(1, sizeof *m)) == NULL)
        return ZB_ENOMEM;
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        zb_free(m);
        return ZB_ERROR;
    }
    zb_vec_init(&m->families, sizeof(family *), MAX_FAMILIES);
    *out = m;
    return ZB_OK;
}

static void free_series(zb_metric *s)
{
    if (s == NULL)
        return;
    zb_free(s->labels);
    zb_free(s->buckets);
    zb_free(s);
}

static void free_family(family *f)
{
    size_t i;

    if (f == NULL)
        return;
    for (i = 0; i < f->series.len; i++)
        free_series(*(zb_metric **)zb_vec_at(&f->series, i));
    zb_vec_free(&f->series);
    zb_free(f->name);
    zb_free(f->help);
    zb_free(f->bounds);
    zb_free(f);
}

void zb_metrics_free(zb_metrics *m)
{
    size_t i;

    if (m == NULL)
        return;
    for (i = 0; i < m->families.len; i++)
        free_family(*(family **)zb_vec_at(&m->families, i));
    zb_vec_free(&m->families);
    pthread_mutex_destroy(&m->lock);
    zb_free(m);
}

static int valid_name(const char *s, int allow_colon)
{
    size_t i;

    if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (i = 0; s[i]; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || (allow_colon && c == ':')))
            return 0;
    }
    return 1;
}

/* Escapes a label value or help text as the exposition format asks. */
static int append_escaped(zb_buf *b, const char *s, int quote)
{
    int rc = ZB_OK;

    for (; rc == ZB_OK && *s; s++) {
        if (*s == '\\')
            rc = zb_buf_puts(b, "\\\\");
        else if (*s == '\n')
            rc = zb_buf_puts(b, "\\n");
        else if (quote && *s == '"')
            rc = zb_buf_puts(b, "\\\"");
        else
            rc = zb_buf_putc(b, *s);
    }
    return rc;
}

static int render_labels(char **out, const char *const *labels)
{
    zb_buf b = ZB_BUF_INIT(64 * 1024);
    int rc = ZB_OK;
    size_t i;

    *out = NULL;
    for (i = 0; labels && labels[i] && rc == ZB_OK; i += 2) {
        if (labels[i + 1] == NULL || !valid_name(labels[i], 0) ||
            strncmp(labels[i], "__", 2) == 0 || strcmp(labels[i], "le") == 0) {
            rc = ZB_EINVAL;
            break;
        }
        if (i > 0)
            rc = zb_buf_putc(&b, ',');
        if (rc == ZB_OK)
            rc = zb_buf_appendf(&b, "%s=\"", labels[i]);
        if (rc == ZB_OK)
            rc = append_escaped(&b, labels[i + 1], 1);
        if (rc == ZB_OK)
            rc = zb_buf_putc(&b, '"');
    }
    if (rc == ZB_OK && (*out = zb_buf_detach(&b)) == NULL)
        rc = ZB_ENOMEM;
    zb_buf_free(&b);
    return rc;
}

static family *find_family(zb_metrics *m, const char *name)
{
    size_t i;

    for (i = 0; i < m->families.len; i++) {
        family *f = *(family **)zb_vec_at(&m->families, i);
        if (strcmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}

static int same_bounds(const family *f, const double *bounds, size_t n)
{
    return f->n_bounds == n &&
           (n == 0 || memcmp(f->bounds, bounds, n * sizeof *bounds) == 0);
}

static int new_family(family **out, zb_metrics *m, const char *name,
                      const char *help, kind_t kind, const double *bounds,
                      size_t n_bounds)
{
    family *f = NULL;
    int rc = ZB_ENOMEM;

    if ((f = zb_calloc(1, sizeof *f)) == NULL)
        return ZB_ENOMEM;
    zb_vec_init(&f->series, sizeof(zb_metric *), MAX_SERIES);
    f->kind = kind;
    f->n_bounds = n_bounds;
    if ((f->name = zb_strdup(name)) == NULL ||
        (f->help = zb_strdup(help)) == NULL)
        goto done;
    if (n_bounds) {
        if ((f->bounds = zb_calloc(n_bounds, sizeof *bounds)) == NULL)
            goto done;
        memcpy(f->bounds, bounds, n_bounds * sizeof *bounds);
    }
    if ((rc = zb_vec_append(&m->families, &f)) < 0)
        goto done;
    *out = f;
    f = NULL;
done:
    free_family(f);
    return rc;
}

static int register_series(zb_metric **out, zb_metrics *m, const char *name,
                           const char *help, kind_t kind,
                           const double *bounds, size_t n_bounds,
                           const char *const *labels)
{
    zb_metric *s = NULL;
    char *rendered = NULL;
    family *f;
    size_t i;
    int rc;

    *out = NULL;
    if (!valid_name(name, 1) || help == NULL)
        return ZB_EINVAL;
    for (i = 0; i < n_bounds; i++)
        if (!isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1]))
            return ZB_EINVAL;
    if ((rc = render_labels(&rendered, labels)) < 0)
        return rc;
    pthread_mutex_lock(&m->lock);
    if ((f = find_family(m, name)) != NULL) {
        if (f->kind != kind || strcmp(f->help, help) != 0 ||
            !same_bounds(f, bounds, n_bounds)) {
            rc = ZB_EINVAL;
            goto done;
        }
        for (i = 0; i < f->series.len; i++) {
            zb_metric *e = *(zb_metric **)zb_vec_at(&f->series, i);
            if (strcmp(e->labels, rendered) == 0) {
                *out = e;
                goto done;
            }
        }
    } else if ((rc = new_family(&f, m, name, help, kind, bounds,
                                n_bounds)) < 0) {
        goto done;
    }
    rc = ZB_ENOMEM;
    if ((s = zb_calloc(1, sizeof *s)) == NULL)
        goto done;
    s->kind = kind;
    s->labels = rendered;
    rendered = NULL;
    s->bounds = f->bounds;
    s->n_bounds = f->n_bounds;
    if (kind == KIND_HISTOGRAM &&
        (s->buckets = zb_calloc(n_bounds + 1, sizeof *s->buckets)) == NULL)
        goto done;
    if ((rc = zb_vec_append(&f->series, &s)) < 0)
        goto done;
    *out = s;
    s = NULL;
done:
    pthread_mutex_unlock(&m->lock);
    free_series(s);
    zb_free(rendered);
    return rc;
}

int zb_metrics_counter(zb_metric **out, zb_metrics *m, const char *name,
                       const char *help, const char *const *labels)
{
    return register_series(out, m, name, help, KIND_COUNTER, NULL, 0, labels);
}

int zb_metrics_gauge(zb_metric **out, zb_metrics *m, const char *name,
                     const char *help, const char *const *labels)
{
    return register_series(out, m, name, help, KIND_GAUGE, NULL, 0, labels);
}

int zb_metrics_histogram(zb_metric **out, zb_metrics *m, const char *name,
                         const char *help, const double *bounds,
                         size_t n_bounds, const char *const *labels)
{
    if (n_bounds > MAX_BOUNDS || (n_bounds && bounds == NULL))
        return ZB_EINVAL;
    return register_series(out, m, name, help, KIND_HISTOGRAM, bounds,
                           n_bounds, labels);
}

void zb_metric_add(zb_metric *s, double v)
{
    if (s == NULL || s->kind == KIND_HISTOGRAM ||
        (s->kind == KIND_COUNTER && !(v >= 0)))
        return;
    atomic_add_double(&s->value, v);
}

void zb_metric_set(zb_metric *s, double v)
{
    if (s && s->kind == KIND_GAUGE)
        atomic_store(&s->value, d2u(v));
}

void zb_metric_observe(zb_metric *s, double v)
{
    size_t i;

    if (s == NULL || s->kind != KIND_HISTOGRAM)
        return;
    for (i = 0; i < s->n_bounds && v > s->bounds[i]; i++)
        ;
    atomic_fetch_add(&s->buckets[i], 1);
    atomic_fetch_add(&s->count, 1);
    atomic_add_double(&s->value, v);
}

double zb_metric_value(const zb_metric *s)
{
    return u2d(atomic_load(&((zb_metric *)s)->value));
}

uint64_t zb_metric_count(const zb_metric *s)
{
    return atomic_load(&((zb_metric *)s)->count);
}

/* The shortest text that reads back as v ("0.1", not 0.10000000000000001). */
static void format_double(char *out, size_t size, double v)
{
    int precision;

    if (isnan(v)) {
        snprintf(out, size, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, size, "%s", v > 0 ? "+Inf" : "-Inf");
        return;
    }
    for (precision = 15; precision < 17; precision++) {
        snprintf(out, size, "%.*g", precision, v);
        if (strtod(out, NULL) == v)
            return;
    }
    snprintf(out, size, "%.17g", v);
}

static int append_number(zb_buf *b, double v)
{
    char text[40];

    format_double(text, sizeof text, v);
    return zb_buf_puts(b, text);
}

/* name{labels[,extra]} value\n */
static int append_sample(zb_buf *b, const char *name, const char *suffix,
                         const char *labels, const char *extra, double v)
{
    int has_labels = labels[0] != '\0', has_extra = extra && extra[0];
    int rc = zb_buf_appendf(b, "%s%s", name, suffix);

    if (rc == ZB_OK && (has_labels || has_extra))
        rc = zb_buf_appendf(b, "{%s%s%s}", labels,
                            has_labels && has_extra ? "," : "",
                            has_extra ? extra : "");
    if (rc == ZB_OK)
        rc = zb_buf_putc(b, ' ');
    if (rc == ZB_OK)
        rc = append_number(b, v);
    return rc == ZB_OK ? zb_buf_putc(b, '\n') : rc;
}

static int render_histogram(zb_buf *b, const family *f, const zb_metric *s)
{
    char le[64], bound[40];
    uint64_t cumulative = 0;
    size_t i;
    int rc = ZB_OK;

    for (i = 0; rc == ZB_OK && i <= f->n_bounds; i++) {
        cumulative += atomic_load(&s->buckets[i]);
        format_double(bound, sizeof bound,
                      i < f->n_bounds ? f->bounds[i] : INFINITY);
        snprintf(le, sizeof le, "le=\"%s\"", bound);
        rc = append_sample(b, f->name, "_bucket", s->labels, le,
                           (double)cumulative);
    }
    if (rc == ZB_OK)
        rc = append_sample(b, f->name, "_sum", s->labels, NULL,
                           zb_metric_value(s));
    if (rc == ZB_OK)
        rc = append_sample(b, f->name, "_count", s->labels, NULL,
                           (double)cumulative);
    return rc;
}

static int render_family(zb_buf *b, const family *f)
{
    static const char *const type_names[] = { "counter", "gauge",
                                              "histogram" };
    size_t i;
    int rc = zb_buf_appendf(b, "# HELP %s ", f->name);

    if (rc == ZB_OK)
        rc = append_escaped(b, f->help, 0);
    if (rc == ZB_OK)
        rc = zb_buf_appendf(b, "\n# TYPE %s %s\n", f->name,
                            type_names[f->kind]);
    for (i = 0; rc == ZB_OK && i < f->series.len; i++) {
        const zb_metric *s = *(zb_metric **)zb_vec_at(&f->series, i);
        if (f->kind == KIND_HISTOGRAM)
            rc = render_histogram(b, f, s);
        else
            rc = append_sample(b, f->name, "", s->labels, NULL,
                               zb_metric_value(s));
    }
    return rc;
}

int zb_metrics_render(zb_buf *out, zb_metrics *m)
{
    size_t i;
    int rc = ZB_OK;

    pthread_mutex_lock(&m->lock);
    for (i = 0; rc == ZB_OK && i < m->families.len; i++)
        rc = render_family(out, *(family **)zb_vec_at(&m->families, i));
    pthread_mutex_unlock(&m->lock);
    return rc;
}
