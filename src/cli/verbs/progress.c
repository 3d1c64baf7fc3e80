/*
 * cli/verbs/progress.c - the progress line (cli/verbs/progress.h).
 *
 * The printer keeps the latest (done, total) of each series of the
 * current operation: a stage is "OP: WHAT" (ops/ops.h), and a stage
 * whose OP differs from the series held starts afresh. Each call
 * updates its series and, when the last line was written at least the
 * interval ago, rewrites the line: "\r", the text cut to the terminal's
 * width, then erase-to-end-of-line. A series whose WHAT is "bytes" is
 * shown in binary units. Compaction reports from its worker threads one
 * at a time; a mutex keeps the state whole anyway.
 */
#define ZB_MODULE "cli"

#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/verbs/progress.h"
#include "util/str.h"

#define MAX_SERIES 6
#define DEFAULT_INTERVAL_MS 100

typedef struct series {
    char stage[64];
    uint64_t done, total;
} series;

static struct {
    pthread_mutex_t lock;
    FILE *out;
    unsigned width;
    int64_t interval_ms;
    int64_t last_ms;
    int shown;                    /* a line is on the terminal */
    size_t n;
    series s[MAX_SERIES];
} P = { PTHREAD_MUTEX_INITIALIZER, NULL, 80, DEFAULT_INTERVAL_MS, 0, 0, 0,
        { { { 0 }, 0, 0 } } };

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Length of the "OP" part of a stage (all of it without ": "). */
static size_t op_len(const char *stage)
{
    const char *c = strstr(stage, ": ");

    return c ? (size_t)(c - stage) : strlen(stage);
}

static void append(char *out, size_t out_size, size_t *at, const char *s)
{
    size_t n = strlen(s);

    if (*at + 1 >= out_size)
        return;
    if (n > out_size - 1 - *at)
        n = out_size - 1 - *at;
    memcpy(out + *at, s, n);
    *at += n;
    out[*at] = '\0';
}

static void line_locked(char *out, size_t out_size)
{
    size_t i, at = 0;
    char a[32], b[32], part[128];

    if (out_size == 0)
        return;
    out[0] = '\0';
    for (i = 0; i < P.n; i++) {
        const series *s = &P.s[i];
        size_t ol = op_len(s->stage);
        const char *what = s->stage[ol] ? s->stage + ol + 2 : "";

        if (i == 0) {
            snprintf(part, sizeof part, "  %.*s:", (int)ol, s->stage);
            append(out, out_size, &at, part);
        }
        if (strcmp(what, "bytes") == 0) {
            zb_str_format_bytes(a, sizeof a, s->done);
            zb_str_format_bytes(b, sizeof b, s->total);
        } else {
            snprintf(a, sizeof a, "%llu", (unsigned long long)s->done);
            snprintf(b, sizeof b, "%llu", (unsigned long long)s->total);
        }
        snprintf(part, sizeof part, "%s %s%s%s/%s", i ? "," : "", what,
                 what[0] ? " " : "", a, b);
        append(out, out_size, &at, part);
    }
}

void zb_cli__progress_line(char *out, size_t out_size)
{
    pthread_mutex_lock(&P.lock);
    line_locked(out, out_size);
    pthread_mutex_unlock(&P.lock);
}

void zb_cli__progress_cb(const char *stage, uint64_t done, uint64_t total,
                         void *payload)
{
    char line[512];
    size_t i;
    int64_t t;

    (void)payload;
    if (stage == NULL)
        return;
    pthread_mutex_lock(&P.lock);
    if (P.out == NULL)
        goto done;
    if (P.n > 0 && (op_len(P.s[0].stage) != op_len(stage) ||
                    strncmp(P.s[0].stage, stage, op_len(stage)) != 0))
        P.n = 0;                   /* another operation */
    for (i = 0; i < P.n && strcmp(P.s[i].stage, stage) != 0; i++)
        ;
    if (i == P.n) {
        if (P.n == MAX_SERIES)
            goto done;
        snprintf(P.s[i].stage, sizeof P.s[i].stage, "%s", stage);
        P.n++;
    }
    P.s[i].done = done;
    P.s[i].total = total;
    t = now_ms();
    if (P.shown && t - P.last_ms < P.interval_ms)
        goto done;
    line_locked(line, sizeof line);
    if (P.width > 1 && strlen(line) > P.width - 1)
        line[P.width - 1] = '\0';  /* one line, never wrapped */
    fprintf(P.out, "\r%s\033[K", line);
    fflush(P.out);
    P.shown = 1;
    P.last_ms = t;
done:
    pthread_mutex_unlock(&P.lock);
}

void zb_cli__progress_open(FILE *out, unsigned width, int64_t interval_ms)
{
    pthread_mutex_lock(&P.lock);
    P.out = out;
    P.width = width ? width : 80;
    P.interval_ms = interval_ms;
    P.last_ms = 0;
    P.shown = 0;
    P.n = 0;
    pthread_mutex_unlock(&P.lock);
}

int zb_cli_progress_install(zb_ctx *ctx, int enabled)
{
    struct winsize ws;
    unsigned width = 80;

    if (!enabled || ctx == NULL)
        return 0;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        width = ws.ws_col;
    zb_cli__progress_open(stderr, width, DEFAULT_INTERVAL_MS);
    ctx->progress = zb_cli__progress_cb;
    ctx->progress_payload = NULL;
    return 1;
}

void zb_cli_progress_clear(void)
{
    pthread_mutex_lock(&P.lock);
    if (P.out != NULL && P.shown) {
        fputs("\r\033[K", P.out);
        fflush(P.out);
        P.shown = 0;
    }
    P.n = 0;
    pthread_mutex_unlock(&P.lock);
}

void zb_cli_progress_end(zb_ctx *ctx)
{
    zb_cli_progress_clear();
    pthread_mutex_lock(&P.lock);
    P.out = NULL;
    pthread_mutex_unlock(&P.lock);
    if (ctx != NULL && ctx->progress == zb_cli__progress_cb) {
        ctx->progress = NULL;
        ctx->progress_payload = NULL;
    }
}
