/*
 * util/err.c - the error record of a zb_ctx (see util/err.h).
 *
 * Messages are formatted into the fixed buffer of the record, truncated if
 * they do not fit, and folded to one line: a message is a log line and a
 * line of CLI output, and a newline inside one would break both.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

static void set_module(zb_err *err, const char *module)
{
    snprintf(err->module, sizeof err->module, "%s", module ? module : "");
}

int zb_err__set(zb_err *err, int code, const char *module, const char *fmt,
                ...)
{
    char msg[sizeof err->msg];
    va_list ap;

    /* Formatted apart first: callers pass err->msg itself as an argument
     * (wrapping the cause), and vsnprintf must not write what it reads. */
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err->code = code;
    set_module(err, module);
    memcpy(err->msg, msg, sizeof msg);
    one_line(err->msg);
    return code;
}

/* Appends s to dst (holding *len bytes of size), truncating at the end. */
static void append_bounded(char *dst, size_t size, size_t *len, const char *s)
{
    size_t n = strlen(s);

    if (n > size - 1 - *len)
        n = size - 1 - *len;
    memcpy(dst + *len, s, n);
    *len += n;
    dst[*len] = '\0';
}

int zb_err__prefix(zb_err *err, const char *fmt, ...)
{
    char joined[ZB_ERR_MSG_SIZE];
    size_t len, keep, msg_len = strlen(err->msg);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(joined, sizeof joined, fmt, ap);
    va_end(ap);
    len = strlen(joined);
    if (msg_len) {
        /*
         * The lower message says what went wrong; the context only where.
         * When both do not fit, the context is cut short, not the reason.
         */
        keep = sizeof joined - 1 - msg_len;
        if (keep < 8)
            keep = 8; /* never less than a stub of context */
        if (len + 2 > keep) {
            len = keep - 5;
            memcpy(joined + len, "...", 4);
            len += 3;
        }
        append_bounded(joined, sizeof joined, &len, ": ");
        append_bounded(joined, sizeof joined, &len, err->msg);
    }
    memcpy(err->msg, joined, sizeof err->msg);
    one_line(err->msg);
    if (err->code == ZB_OK)
        err->code = ZB_ERROR;
    return err->code;
}

int zb_err__oom(zb_err *err, const char *module)
{
    static const char text[] = "out of memory";

    err->code = ZB_ENOMEM;
    set_module(err, module);
    memcpy(err->msg, text, sizeof text);
    return ZB_ENOMEM;
}

void zb_err_clear(zb_err *err)
{
    err->code = ZB_OK;
    err->module[0] = '\0';
    err->msg[0] = '\0';
}

void zb_err_copy(zb_err *dst, const zb_err *src)
{
    memcpy(dst, src, sizeof *dst);
}

const char *zb_rc_name(int rc)
{
    switch (rc) {
    case ZB_OK: return "ZB_OK";
    case ZB_ERROR: return "ZB_ERROR";
    case ZB_ENOTFOUND: return "ZB_ENOTFOUND";
    case ZB_EEXISTS: return "ZB_EEXISTS";
    case ZB_ECONFLICT: return "ZB_ECONFLICT";
    case ZB_EUNSAFE: return "ZB_EUNSAFE";
    case ZB_ENOMEM: return "ZB_ENOMEM";
    case ZB_ECORRUPT: return "ZB_ECORRUPT";
    case ZB_EIO: return "ZB_EIO";
    case ZB_ETIMEOUT: return "ZB_ETIMEOUT";
    case ZB_ECANCELED: return "ZB_ECANCELED";
    case ZB_EINVAL: return "ZB_EINVAL";
    case ZB_EUSAGE: return "ZB_EUSAGE";
    case ZB_EREFUSED: return "ZB_EREFUSED";
    case ZB_EUNSUPPORTED: return "ZB_EUNSUPPORTED";
    case ZB_EFENCED: return "ZB_EFENCED";
    default: return "ZB_UNKNOWN";
    }
}
