#include "util/alloc.h"
#include "util/prometheus.h"
#include "zbtest.h"

static char *render(zb_metrics *m)
{
    zb_buf b = ZB_BUF_INIT(1 << 20);

    ZBT_EQ_INT(zb_metrics_render(&b, m), ZB_OK);
    return zb_buf_detach(&b);
}

static void test_util_metrics__counter_and_gauge_text(void)
{
    const char *labels[] = { "op", "compact", "table", "a\"b\\c", NULL };
    zb_metrics *m = NULL;
    zb_metric *c = NULL, *c2 = NULL, *g = NULL;
    char *text;

    ZBT_EQ_INT(zb_metrics_new(&m), ZB_OK);
    ZBT_EQ_INT(zb_metrics_counter(&c, m, "zamboni_tasks_total",
                                  "Tasks run.\nAll of them.", labels), ZB_OK);
    ZBT_EQ_INT(zb_metrics_counter(&c2, m, "zamboni_tasks_total",
                                  "Tasks run.\nAll of them.", labels), ZB_OK);
    ZBT_CHECK(c == c2);
    ZBT_EQ_INT(zb_metrics_gauge(&g, m, "zamboni_queue_depth", "Queued.",
                                NULL), ZB_OK);
    zb_metric_add(c, 2);
    zb_metric_add(c, -5);   /* counters never go down */
    zb_metric_set(g, 7.5);
    zb_metric_add(g, -1);
    text = render(m);
    ZBT_EQ_STR(text,
               "# HELP zamboni_tasks_total Tasks run.\\nAll of them.\n"
               "# TYPE zamboni_tasks_total counter\n"
               "zamboni_tasks_total{op=\"compact\",table=\"a\\\"b\\\\c\"} 2\n"
               "# HELP zamboni_queue_depth Queued.\n"
               "# TYPE zamboni_queue_depth gauge\n"
               "zamboni_queue_depth 6.5\n");
    zb_free(text);
    zb_metrics_free(m);
}

static void test_util_metrics__histogram_is_cumulative(void)
{
    const double bounds[] = { 0.1, 1, 10 };
    zb_metrics *m = NULL;
    zb_metric *h = NULL;
    char *text;

    ZBT_EQ_INT(zb_metrics_new(&m), ZB_OK);
    ZBT_EQ_INT(zb_metrics_histogram(&h, m, "wait_seconds", "Waits.", bounds,
                                    3, NULL), ZB_OK);
    zb_metric_observe(h, 0.05);
    zb_metric_observe(h, 1);     /* le is inclusive */
    zb_metric_observe(h, 3);
    zb_metric_observe(h, 100);
    ZBT_EQ_U64(zb_metric_count(h), 4);
    text = render(m);
    ZBT_EQ_STR(text,
               "# HELP wait_seconds Waits.\n"
               "# TYPE wait_seconds histogram\n"
               "wait_seconds_bucket{le=\"0.1\"} 1\n"
               "wait_seconds_bucket{le=\"1\"} 2\n"
               "wait_seconds_bucket{le=\"10\"} 3\n"
               "wait_seconds_bucket{le=\"+Inf\"} 4\n"
               "wait_seconds_sum 104.05\n"
               "wait_seconds_count 4\n");
    zb_free(text);
    zb_metrics_free(m);
}

static void test_util_metrics__conflicting_registration_rejected(void)
{
    const double bounds[] = { 1, 2 };
    const double bad[] = { 2, 1 };
    const char *bad_label[] = { "le", "1", NULL };
    zb_metrics *m = NULL;
    zb_metric *s = NULL;

    ZBT_EQ_INT(zb_metrics_new(&m), ZB_OK);
    ZBT_EQ_INT(zb_metrics_counter(&s, m, "x_total", "X.", NULL), ZB_OK);
    ZBT_EQ_INT(zb_metrics_gauge(&s, m, "x_total", "X.", NULL), ZB_EINVAL);
    ZBT_EQ_INT(zb_metrics_counter(&s, m, "x_total", "Other.", NULL),
               ZB_EINVAL);
    ZBT_EQ_INT(zb_metrics_counter(&s, m, "9bad", "X.", NULL), ZB_EINVAL);
    ZBT_EQ_INT(zb_metrics_counter(&s, m, "y", "Y.", bad_label), ZB_EINVAL);
    ZBT_EQ_INT(zb_metrics_histogram(&s, m, "h", "H.", bad, 2, NULL),
               ZB_EINVAL);
    ZBT_EQ_INT(zb_metrics_histogram(&s, m, "h", "H.", bounds, 2, NULL),
               ZB_OK);
    ZBT_EQ_INT(zb_metrics_histogram(&s, m, "h", "H.", bounds, 1, NULL),
               ZB_EINVAL);
    zb_metrics_free(m);
}

/* Fails each allocation of a registration in turn: every run returns
 * ZB_ENOMEM and leaks nothing (SQLite-style torture). */
static void test_util_metrics__allocation_torture(void)
{
    const char *labels[] = { "k", "v", NULL };
    const double bounds[] = { 1, 2 };
    uint64_t base = zb_alloc_live_bytes(), n;
    int succeeded = 0;

    for (n = 1; !succeeded && n < 1000; n++) {
        zb_metrics *m = NULL;
        zb_metric *s = NULL;
        int rc;

        zb_alloc__fail_at(n, 1);
        rc = zb_metrics_new(&m);
        if (rc == ZB_OK)
            rc = zb_metrics_histogram(&s, m, "h", "H.", bounds, 2, labels);
        if (rc == ZB_OK)
            rc = zb_metrics_counter(&s, m, "c", "C.", labels);
        succeeded = zb_alloc__fail_at(0, 0) == 0;
        if (!succeeded)
            ZBT_EQ_INT(rc, ZB_ENOMEM);
        else
            ZBT_EQ_INT(rc, ZB_OK);
        zb_metrics_free(m);
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(succeeded);
    ZBT_CHECK(n > 5);
}

const zbt_case test_util_metrics[] = {
    ZBT_CASE(test_util_metrics__counter_and_gauge_text),
    ZBT_CASE(test_util_metrics__histogram_is_cumulative),
    ZBT_CASE(test_util_metrics__conflicting_registration_rejected),
    ZBT_CASE(test_util_metrics__allocation_torture),
    ZBT_END
};
