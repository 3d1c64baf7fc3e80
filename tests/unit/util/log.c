#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/log.h"
#include "zbtest.h"

/* Runs one event through a logger writing to memory; returns the text. */
static char *capture(zb_log_level level, zb_log_format format,
                     zb_log_level at, const char *const *fields,
                     const char *msg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    zb_log *log = NULL;

    ZBT_CHECK(f != NULL);
    ZBT_EQ_INT(zb_log_new(&log, f, level, format), ZB_OK);
    zb_log_event(log, at, "io", fields, "%s", msg);
    zb_log_free(log);
    fclose(f);
    return text;
}

static void test_util_log__human_line(void)
{
    const char *fields[] = { "table", "db.t", NULL };
    char *text = capture(ZB_LOG_INFO, ZB_LOG_HUMAN, ZB_LOG_WARN, fields,
                         "listed 3 files");

    ZBT_CONTAINS(text, " WARN  io: listed 3 files table=db.t\n");
    ZBT_EQ_INT(text[4], '-');   /* starts with an ISO date */
    free(text);
}

static void test_util_log__json_line_parses_with_jansson(void)
{
    const char *fields[] = { "path", "/a \"q\"\n", NULL };
    char *text = capture(ZB_LOG_DEBUG, ZB_LOG_JSON, ZB_LOG_DEBUG, fields,
                         "tab\there");
    json_error_t error;
    json_t *obj = json_loads(text, JSON_REJECT_DUPLICATES, &error);

    ZBT_CHECK(obj != NULL);
    ZBT_EQ_STR(json_string_value(json_object_get(obj, "level")), "debug");
    ZBT_EQ_STR(json_string_value(json_object_get(obj, "module")), "io");
    ZBT_EQ_STR(json_string_value(json_object_get(obj, "msg")), "tab\there");
    ZBT_EQ_STR(json_string_value(json_object_get(obj, "path")), "/a \"q\"\n");
    ZBT_CHECK(json_string_value(json_object_get(obj, "ts")) != NULL);
    ZBT_EQ_INT(text[strlen(text) - 1], '\n');
    json_decref(obj);
    free(text);
}

static void test_util_log__below_level_is_silent(void)
{
    char *text = capture(ZB_LOG_WARN, ZB_LOG_HUMAN, ZB_LOG_INFO, NULL, "x");

    ZBT_EQ_STR(text, "");
    free(text);
}

static void test_util_log__parse_names(void)
{
    zb_log_level level = ZB_LOG_INFO;
    zb_log_format format = ZB_LOG_HUMAN;

    ZBT_EQ_INT(zb_log_parse_level(&level, "trace"), ZB_OK);
    ZBT_EQ_INT(level, ZB_LOG_TRACE);
    ZBT_EQ_INT(zb_log_parse_level(&level, "warning"), ZB_OK);
    ZBT_EQ_INT(level, ZB_LOG_WARN);
    ZBT_EQ_INT(zb_log_parse_level(&level, "loud"), ZB_EINVAL);
    ZBT_EQ_INT(zb_log_parse_format(&format, "json"), ZB_OK);
    ZBT_EQ_INT(format, ZB_LOG_JSON);
    ZBT_EQ_INT(zb_log_parse_format(&format, "xml"), ZB_EINVAL);
}

const zbt_case test_util_log[] = {
    ZBT_CASE(test_util_log__human_line),
    ZBT_CASE(test_util_log__json_line_parses_with_jansson),
    ZBT_CASE(test_util_log__below_level_is_silent),
    ZBT_CASE(test_util_log__parse_names),
    ZBT_END
};
