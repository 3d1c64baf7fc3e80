/*
 * zamboni/error.h - return codes and the error record.
 *
 * Every fallible function returns int: ZB_OK (0) or one of the negative
 * codes below. The human-readable detail (module and a one-line message with
 * its context) is left in the zb_err of the caller's zb_ctx, never in a
 * global, so that a task can move between threads and workers with its
 * error. The record has a fixed size: an out-of-memory error is reported
 * without allocating.
 */
#ifndef ZAMBONI_ERROR_H
#define ZAMBONI_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zb_rc {
    ZB_OK = 0,
    ZB_ERROR = -1,        /* generic failure */
    ZB_ENOTFOUND = -2,    /* a file, table or key does not exist */
    ZB_EEXISTS = -3,      /* would overwrite something that exists */
    ZB_ECONFLICT = -4,    /* lost a commit race: reload and retry */
    ZB_EUNSAFE = -5,      /* a safety check aborted the work */
    ZB_ENOMEM = -6,       /* allocation failed or a size cap was hit */
    ZB_ECORRUPT = -7,     /* malformed or truncated input */
    ZB_EIO = -8,          /* storage or network failure */
    ZB_ETIMEOUT = -9,     /* no answer in time; outcome may be unknown */
    ZB_ECANCELED = -10,   /* the stop flag was raised */
    ZB_EINVAL = -11,      /* a caller broke a function's contract */
    ZB_EUSAGE = -12,      /* bad command line or configuration */
    ZB_EREFUSED = -13,    /* valid request that Zamboni will not do */
    ZB_EUNSUPPORTED = -14, /* a feature this build does not have */
    ZB_EFENCED = -15      /* a commit refused: its lease was lost */
} zb_rc;

/*
 * Size of zb_err.msg, including the terminating NUL: room for a reason and
 * a few long object-store paths of context in front of it.
 */
#define ZB_ERR_MSG_SIZE 1024
#define ZB_ERR_MODULE_SIZE 16

typedef struct zb_err {
    int code;                          /* ZB_OK when clear */
    char module[ZB_ERR_MODULE_SIZE];   /* "io", "budget", ... */
    char msg[ZB_ERR_MSG_SIZE];         /* one line, no newline */
} zb_err;

/* The constant name of a code, such as "ZB_ENOTFOUND"; never NULL. */
const char *zb_rc_name(int rc);

#ifdef __cplusplus
}
#endif
#endif
