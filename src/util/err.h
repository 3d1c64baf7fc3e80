/*
 * util/err.h - setting and reading the error record of a zb_ctx.
 *
 * Set the message where the error is found, with zb_fail(), and pass the rc
 * up unchanged. A caller that knows more context (which file, which table)
 * may add it in front with zb_err_prefix(); it never replaces the lower
 * message. Code that handles an error and carries on calls zb_err_clear().
 *
 * Each .c file that reports errors defines ZB_MODULE before including this
 * header, so that the record names where the error came from.
 */
#ifndef ZB_UTIL_ERR_H
#define ZB_UTIL_ERR_H

#include <assert.h>

#include "zamboni/zamboni.h"

#ifndef ZB_MODULE
#define ZB_MODULE "zamboni"
#endif

#if defined(__GNUC__)
#define ZB_PRINTF(fmt_idx, arg_idx) \
    __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define ZB_PRINTF(fmt_idx, arg_idx)
#endif

/* Records code, module and message in err; returns code. */
int zb_err__set(zb_err *err, int code, const char *module, const char *fmt,
                ...) ZB_PRINTF(4, 5);

/* Puts "<context>: " in front of the message; returns err->code. */
int zb_err__prefix(zb_err *err, const char *fmt, ...) ZB_PRINTF(2, 3);

/* Records ZB_ENOMEM without allocating; returns ZB_ENOMEM. */
int zb_err__oom(zb_err *err, const char *module);

void zb_err_clear(zb_err *err);

/* Copies src into dst (for handing a worker thread's error to its task). */
void zb_err_copy(zb_err *dst, const zb_err *src);

#define zb_fail(ctx, code, ...) \
    zb_err__set(&(ctx)->err, (code), ZB_MODULE, __VA_ARGS__)
#define zb_fail_oom(ctx) zb_err__oom(&(ctx)->err, ZB_MODULE)
#define zb_err_prefix(ctx, ...) zb_err__prefix(&(ctx)->err, __VA_ARGS__)

/*
 * A broken calling contract: aborts in debug builds, and in release builds
 * returns ZB_EINVAL from the enclosing int function.
 */
#ifdef NDEBUG
#define ZB_ASSERT_ARG(expr) \
    do { if (!(expr)) return ZB_EINVAL; } while (0)
#else
#define ZB_ASSERT_ARG(expr) assert(expr)
#endif

#define ZB_UNUSED(x) ((void)(x))

#endif
