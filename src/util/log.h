/*
 * util/log.h - leveled logging to stderr, as text or as JSON lines.
 *
 * Human format (the default), one line per event:
 *     2026-11-29T10:02:03.120Z INFO  io: listed 3 files prefix=/w/t
 * JSON format (--log-format json), one object per line:
 *     {"ts":"2026-11-29T10:02:03.120Z","level":"info","module":"io",
 *      "msg":"listed 3 files","prefix":"/w/t"}
 *
 * A logger is thread-safe: each event is formatted apart and written with
 * one call under a lock, so lines from threads never interleave. A zb_ctx
 * whose log is NULL uses the process default logger (stderr, info, human),
 * which the CLI configures from its flags at startup.
 */
#ifndef ZB_UTIL_LOG_H
#define ZB_UTIL_LOG_H

#include <stdio.h>

#include "util/err.h"

typedef enum zb_log_level {
    ZB_LOG_ERROR = 0,
    ZB_LOG_WARN,
    ZB_LOG_INFO,
    ZB_LOG_DEBUG,
    ZB_LOG_TRACE
} zb_log_level;

typedef enum zb_log_format {
    ZB_LOG_HUMAN = 0,
    ZB_LOG_JSON
} zb_log_format;

/* stream is borrowed and must outlive the logger. */
int zb_log_new(zb_log **out, FILE *stream, zb_log_level level,
               zb_log_format format);
void zb_log_free(zb_log *log);

/* The process default logger; never NULL. */
zb_log *zb_log_default(void);

void zb_log_configure(zb_log *log, zb_log_level level, zb_log_format format);
int zb_log_enabled(const zb_log *log, zb_log_level level);

/* "error", "warn", "info", "debug", "trace"; ZB_OK or ZB_EINVAL. */
int zb_log_parse_level(zb_log_level *out, const char *name);
/* "human" (or "text"), "json"; ZB_OK or ZB_EINVAL. */
int zb_log_parse_format(zb_log_format *out, const char *name);

/*
 * Writes one event. fields is NULL or a NULL-terminated array of
 * key, value, key, value, ... strings added to the event.
 */
void zb_log_event(zb_log *log, zb_log_level level, const char *module,
                  const char *const *fields, const char *fmt, ...)
    ZB_PRINTF(5, 6);

/* The logger a context writes to. */
zb_log *zb_log__of(const zb_ctx *ctx);

#define zb_log_at(ctx, level, ...) \
    zb_log_event(zb_log__of(ctx), (level), ZB_MODULE, NULL, __VA_ARGS__)
#define zb_log_error(ctx, ...) zb_log_at(ctx, ZB_LOG_ERROR, __VA_ARGS__)
#define zb_log_warn(ctx, ...) zb_log_at(ctx, ZB_LOG_WARN, __VA_ARGS__)
#define zb_log_info(ctx, ...) zb_log_at(ctx, ZB_LOG_INFO, __VA_ARGS__)
#define zb_log_debug(ctx, ...) zb_log_at(ctx, ZB_LOG_DEBUG, __VA_ARGS__)

#endif
