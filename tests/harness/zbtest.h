/*
 * tests/harness/zbtest.h - a small test runner in the manner of clar.
 *
 * A test is a void function named test_<module>_<topic>__<case>. Each
 * topic file exports a suite, an array of ZBT_CASE entries ended by
 * ZBT_END, and the module's main.c runs its suites with zbt_main. A failed
 * check ends its case at once (longjmp) and the runner goes on with the
 * next. The runner prints one line per case and closes with
 * "N passed, N failed"; its exit status is non-zero if any case failed.
 * Arguments are substrings: only cases whose names contain one of them run.
 */
#ifndef ZBTEST_H
#define ZBTEST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zamboni/error.h"

typedef struct zbt_case {
    const char *name;
    void (*fn)(void);
} zbt_case;

#define ZBT_CASE(fn) { #fn, fn }
#define ZBT_END { NULL, NULL }

int zbt_main(int argc, char **argv, const zbt_case *const *suites);

void zbt__fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#define ZBT_CHECK(expr)                                                     \
    do {                                                                    \
        if (!(expr))                                                        \
            zbt__fail(__FILE__, __LINE__, "check failed: %s", #expr);       \
    } while (0)

#define ZBT_EQ_INT(a, b)                                                    \
    do {                                                                    \
        long long zbt_a = (long long)(a), zbt_b = (long long)(b);           \
        if (zbt_a != zbt_b)                                                 \
            zbt__fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, \
                      zbt_a, zbt_b);                                        \
    } while (0)

#define ZBT_EQ_U64(a, b)                                                    \
    do {                                                                    \
        unsigned long long zbt_a = (unsigned long long)(a);                 \
        unsigned long long zbt_b = (unsigned long long)(b);                 \
        if (zbt_a != zbt_b)                                                 \
            zbt__fail(__FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, \
                      zbt_a, zbt_b);                                        \
    } while (0)

#define ZBT_EQ_STR(a, b)                                                    \
    do {                                                                    \
        const char *zbt_a = (a), *zbt_b = (b);                              \
        if (zbt_a == NULL || zbt_b == NULL || strcmp(zbt_a, zbt_b) != 0)    \
            zbt__fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, \
                      #b, zbt_a ? zbt_a : "(null)",                         \
                      zbt_b ? zbt_b : "(null)");                            \
    } while (0)

#define ZBT_CONTAINS(haystack, needle)                                      \
    do {                                                                    \
        const char *zbt_h = (haystack), *zbt_n = (needle);                  \
        if (zbt_h == NULL || strstr(zbt_h, zbt_n) == NULL)                  \
            zbt__fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
                      zbt_h ? zbt_h : "(null)", zbt_n);                     \
    } while (0)

/* Checks that an rc is ZB_OK, printing its name and message otherwise. */
#define ZBT_OK_CTX(rc_expr, ctx)                                            \
    do {                                                                    \
        int zbt_rc = (rc_expr);                                             \
        if (zbt_rc != 0)                                                    \
            zbt__fail(__FILE__, __LINE__, "%s: %s (%s)", #rc_expr,          \
                      zb_rc_name(zbt_rc), (ctx)->err.msg);                  \
    } while (0)

#define ZBT_RC(rc_expr, want)                                               \
    do {                                                                    \
        int zbt_rc = (rc_expr);                                             \
        if (zbt_rc != (want))                                               \
            zbt__fail(__FILE__, __LINE__, "%s: got %s, want %s", #rc_expr,  \
                      zb_rc_name(zbt_rc), zb_rc_name(want));                \
    } while (0)

/*
 * A fresh directory under $TMPDIR (or /tmp), removed with everything in it
 * when the case ends, pass or fail. Returns its path (static storage).
 */
const char *zbt_tmpdir(void);

/* Removes a tree; ignores what is not there. */
void zbt_rmtree(const char *path);

/* Paths of files, owned by the list. */
typedef struct zbt_files {
    char **paths;
    size_t n, cap;
} zbt_files;

/*
 * Appends every regular file under dir whose name ends in suffix, in
 * sorted order, and returns how many the list holds. A missing dir adds
 * nothing (callers say whether that is a skip or a failure).
 */
size_t zbt_find_files(zbt_files *out, const char *dir, const char *suffix);
void zbt_files_free(zbt_files *f);

/* Creates a file with the given contents, and its parent directories. */
void zbt_write_file(const char *path, const void *data, size_t len);

#endif
