/*
 * util/prometheus.h - a registry of counters, gauges and histograms, rendered
 * in the Prometheus text exposition format (version 0.0.4).
 *
 * A series is found or created by name and labels, once, and then updated
 * through its handle without locks (the values are atomics), so hot paths
 * pay one atomic add. Handles stay valid until the registry is freed.
 *
 *     zb_metric *done;
 *     const char *labels[] = { "op", "compact", NULL };
 *     zb_metrics_counter(&done, m, "zamboni_tasks_total", "Tasks run.", labels);
 *     zb_metric_add(done, 1);
 *     zb_metrics_render(&buf, m);
 *
 * Labels are a NULL-terminated array of name, value, name, value, ...
 * strings, or NULL. Registering a name again with another type, other
 * help text or other histogram bounds is ZB_EINVAL.
 */
#ifndef ZB_UTIL_METRICS_H
#define ZB_UTIL_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct zb_metric zb_metric;

int zb_metrics_new(zb_metrics **out);
void zb_metrics_free(zb_metrics *m);

int zb_metrics_counter(zb_metric **out, zb_metrics *m, const char *name,
                       const char *help, const char *const *labels);
int zb_metrics_gauge(zb_metric **out, zb_metrics *m, const char *name,
                     const char *help, const char *const *labels);
/* bounds: n_bounds strictly increasing finite upper bounds; +Inf is added. */
int zb_metrics_histogram(zb_metric **out, zb_metrics *m, const char *name,
                         const char *help, const double *bounds,
                         size_t n_bounds, const char *const *labels);

/* Counters: v >= 0 (negative values are ignored). Gauges: any v. */
void zb_metric_add(zb_metric *s, double v);
/* Gauges only. */
void zb_metric_set(zb_metric *s, double v);
/* Histograms only. */
void zb_metric_observe(zb_metric *s, double v);

/* The value of a counter or gauge, or a histogram's sum. */
double zb_metric_value(const zb_metric *s);
/* A histogram's count of observations. */
uint64_t zb_metric_count(const zb_metric *s);

/* Appends the whole registry in the Prometheus text format. */
int zb_metrics_render(zb_buf *out, zb_metrics *m);

/* Bucket bounds for waits that last from milliseconds to an hour. */
extern const double zb_metrics_job_seconds_buckets[];
extern const size_t zb_metrics_job_seconds_buckets_len;

#endif
