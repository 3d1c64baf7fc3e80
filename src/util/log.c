/*
 * util/log.c - leveled logging (see util/log.h).
 *
 * An event is rendered into a capped buffer first and written with a single
 * fwrite under the logger's mutex. If the buffer cannot be allocated the
 * event is still written, as a fixed notice, because a log that goes quiet
 * when memory is short hides the one thing worth knowing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/log.h"
#include "util/str.h"

#define MAX_EVENT_BYTES (64 * 1024)

struct zb_log {
    FILE *stream;
    atomic_int level;     /* zb_log_level; read without the lock */
    atomic_int format;    /* zb_log_format */
    pthread_mutex_t lock;
};

static zb_log default_log = {
    NULL, ZB_LOG_INFO, ZB_LOG_HUMAN, PTHREAD_MUTEX_INITIALIZER
};

static const char *const level_names[] = { "error", "warn", "info", "debug",
                                           "trace" };
static const char *const level_tags[] = { "ERROR", "WARN ", "INFO ",
                                          "DEBUG", "TRACE" };

int zb_log_new(zb_log **out, FILE *stream, zb_log_level level,
               zb_log_format format)
{
    zb_log *log;

    *out = NULL;
    if ((log = zb_calloc(1, sizeof *log)) == NULL)
        return ZB_ENOMEM;
    if (pthread_mutex_init(&log->lock, NULL) != 0) {
        zb_free(log);
        return ZB_ERROR;
    }
    log->stream = stream;
    atomic_store(&log->level, (int)level);
    atomic_store(&log->format, (int)format);
    *out = log;
    return ZB_OK;
}

void zb_log_free(zb_log *log)
{
    if (log == NULL || log == &default_log)
        return;
    pthread_mutex_destroy(&log->lock);
    zb_free(log);
}

zb_log *zb_log_default(void)
{
    return &default_log;
}

zb_log *zb_log__of(const zb_ctx *ctx)
{
    return ctx && ctx->log ? ctx->log : &default_log;
}

void zb_log_configure(zb_log *log, zb_log_level level, zb_log_format format)
{
    atomic_store(&log->level, (int)level);
    atomic_store(&log->format, (int)format);
}

int zb_log_enabled(const zb_log *log, zb_log_level level)
{
    return (int)level <= atomic_load(&log->level);
}

int zb_log_parse_level(zb_log_level *out, const char *name)
{
    size_t i;

    for (i = 0; i < sizeof level_names / sizeof level_names[0]; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (zb_log_level)i;
            return ZB_OK;
        }
    }
    if (strcmp(name, "warning") == 0) {
        *out = ZB_LOG_WARN;
        return ZB_OK;
    }
    return ZB_EINVAL;
}

int zb_log_parse_format(zb_log_format *out, const char *name)
{
    if (strcmp(name, "human") == 0 || strcmp(name, "text") == 0)
        *out = ZB_LOG_HUMAN;
    else if (strcmp(name, "json") == 0)
        *out = ZB_LOG_JSON;
    else
        return ZB_EINVAL;
    return ZB_OK;
}

static void utc_timestamp(char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L);
}

static int render_human(zb_buf *b, const char *ts, zb_log_level level,
                        const char *module, const char *const *fields,
                        const char *msg)
{
    int rc = zb_buf_appendf(b, "%s %s %s: %s", ts, level_tags[level],
                            module, msg);

    for (; rc == ZB_OK && fields && fields[0] && fields[1]; fields += 2)
        rc = zb_buf_appendf(b, " %s=%s", fields[0], fields[1]);
    return rc == ZB_OK ? zb_buf_putc(b, '\n') : rc;
}

static int render_json(zb_buf *b, const char *ts, zb_log_level level,
                       const char *module, const char *const *fields,
                       const char *msg)
{
    int rc = zb_buf_appendf(b, "{\"ts\":\"%s\",\"level\":\"%s\",\"module\":",
                            ts, level_names[level]);

    if (rc == ZB_OK)
        rc = zb_str_append_json(b, module);
    if (rc == ZB_OK)
        rc = zb_buf_puts(b, ",\"msg\":");
    if (rc == ZB_OK)
        rc = zb_str_append_json(b, msg);
    for (; rc == ZB_OK && fields && fields[0] && fields[1]; fields += 2) {
        rc = zb_buf_putc(b, ',');
        if (rc == ZB_OK)
            rc = zb_str_append_json(b, fields[0]);
        if (rc == ZB_OK)
            rc = zb_buf_putc(b, ':');
        if (rc == ZB_OK)
            rc = zb_str_append_json(b, fields[1]);
    }
    return rc == ZB_OK ? zb_buf_puts(b, "}\n") : rc;
}

void zb_log_event(zb_log *log, zb_log_level level, const char *module,
                  const char *const *fields, const char *fmt, ...)
{
    static const char fallback[] = "log: out of memory formatting an event\n";
    zb_buf msg = ZB_BUF_INIT(MAX_EVENT_BYTES);
    zb_buf line = ZB_BUF_INIT(MAX_EVENT_BYTES * 2);
    char ts[96];
    va_list ap;
    int rc;
    FILE *out;

    if (log == NULL)
        log = &default_log;
    if (!zb_log_enabled(log, level))
        return;
    va_start(ap, fmt);
    rc = zb_buf_vappendf(&msg, fmt, ap);
    va_end(ap);
    utc_timestamp(ts, sizeof ts);
    pthread_mutex_lock(&log->lock);
    out = log->stream ? log->stream : stderr;
    if (rc == ZB_OK) {
        rc = atomic_load(&log->format) == ZB_LOG_JSON
                 ? render_json(&line, ts, level, module ? module : "",
                               fields, zb_buf_cstr(&msg))
                 : render_human(&line, ts, level, module ? module : "",
                                fields, zb_buf_cstr(&msg));
    }
    if (rc == ZB_OK)
        fwrite(line.ptr, 1, line.len, out);
    else
        fwrite(fallback, 1, sizeof fallback - 1, out);
    fflush(out);
    pthread_mutex_unlock(&log->lock);
    zb_buf_free(&msg);
    zb_buf_free(&line);
}
