/*
 * cli/verbs/demo_fleet.c - `zamboni demo DIR --fleet`: after the demo is
 * written, this executable is run again on it, ZAMBONI_ROOT=DIR (and the
 * catalog, queue and warehouse variables of the caller's environment
 * unset, so the demo's zamboni.yml decides): `db migrate`, then `serve`
 * (its default listen address) and one `worker`, each in a session of
 * its own so they outlive the demo, their output in DIR/serve.log and
 * DIR/worker.log, their PIDs in DIR/fleet.pids. serve is given a second
 * to bind; when it has exited by then, its log's last line is the error.
 */
#define _XOPEN_SOURCE 700
#define ZB_MODULE "cli"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/verbs/verbs.h"
#include "service/http/http.h"
#include "util/err.h"

static const char *const unset_vars[] = {
    "ZAMBONI_URI", "ZAMBONI_QUEUE_URI", "ZAMBONI_WAREHOUSE",
    "ZAMBONI_LOCAL_WAREHOUSE", "ZAMBONI_LISTEN", NULL
};

/* Runs `EXE verb` on dir; in the background (its pid in *pid) or waited
 * for (*pid the exit status). */
static int run_self(zb_ctx *ctx, const char *exe, const char *dir,
                    char *const *argv, const char *log, int background,
                    pid_t *pid)
{
    const char *verb = argv[1];
    int status = 0;
    pid_t p;
    size_t i;

    fflush(stdout);
    fflush(stderr);
    if ((p = fork()) < 0)
        return zb_fail(ctx, ZB_EIO, "cannot start zamboni %s: %s", verb,
                       strerror(errno));
    if (p == 0) {
        int in = open("/dev/null", O_RDONLY);
        int out = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644)
                      : open("/dev/null", O_WRONLY);

        if (background)
            setsid();              /* not stopped by the terminal's ^C */
        if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(out, 2) < 0 || chdir(dir) < 0)
            _exit(127);
        for (i = 0; unset_vars[i] != NULL; i++)
            unsetenv(unset_vars[i]);
        setenv("ZAMBONI_ROOT", dir, 1);
        execv(exe, argv);
        _exit(127);
    }
    if (background) {
        *pid = p;
        return ZB_OK;
    }
    while (waitpid(p, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return zb_fail(ctx, ZB_ERROR, "zamboni %s on %s failed (exit %d%s%s)",
                       verb, dir, WIFEXITED(status) ? WEXITSTATUS(status)
                                                    : -1,
                       log ? "; see " : "", log ? log : "");
    *pid = 0;
    return ZB_OK;
}

/* The last line of a log, for the message when serve did not stay up. */
static void last_line(const char *path, char *out, size_t size)
{
    char buf[4096];
    FILE *f = fopen(path, "r");

    out[0] = '\0';
    if (f == NULL)
        return;
    while (fgets(buf, sizeof buf, f) != NULL)
        if (buf[0] != '\n') {
            size_t k = strcspn(buf, "\n");

            if (k >= size)
                k = size - 1;
            memcpy(out, buf, k);
            out[k] = '\0';
        }
    fclose(f);
}

int zb_cli_demo_fleet(zb_ctx *ctx, const char *dir)
{
    char *const migrate_argv[] = { "zamboni", "db", "migrate", NULL };
    char *const serve_argv[] = { "zamboni", "serve", NULL };
    char *const worker_argv[] = { "zamboni", "worker", NULL };
    char exe[PATH_MAX], slog[PATH_MAX], wlog[PATH_MAX], pids[PATH_MAX];
    char line[600];
    struct timespec second = { 1, 0 };
    pid_t serve = 0, worker = 0, none;
    ssize_t n;
    FILE *f;
    int written;
    int rc, status;

    if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
        return zb_fail(ctx, ZB_EIO, "cannot find this executable to start "
                       "serve and worker: %s", strerror(errno));
    exe[n] = '\0';
    if (snprintf(slog, sizeof slog, "%s/serve.log", dir) >= (int)sizeof slog ||
        snprintf(wlog, sizeof wlog, "%s/worker.log", dir) >= (int)sizeof wlog ||
        snprintf(pids, sizeof pids, "%s/fleet.pids", dir) >= (int)sizeof pids)
        return zb_fail(ctx, ZB_EUSAGE, "the demo's folder name is too long");
    if ((rc = run_self(ctx, exe, dir, migrate_argv, NULL, 0, &none)) < 0)
        return rc;
    if ((rc = run_self(ctx, exe, dir, serve_argv, slog, 1, &serve)) < 0)
        return rc;
    nanosleep(&second, NULL);
    if (waitpid(serve, &status, WNOHANG) == serve) {
        last_line(slog, line, sizeof line);
        return zb_fail(ctx, ZB_EIO, "zamboni serve did not stay up: %s "
                       "(see %s)", line[0] ? line : "no output", slog);
    }
    if ((rc = run_self(ctx, exe, dir, worker_argv, wlog, 1, &worker)) < 0) {
        kill(serve, SIGTERM);
        return rc;
    }
    written = (f = fopen(pids, "w")) != NULL &&
              fprintf(f, "%ld %ld\n", (long)serve, (long)worker) >= 0;
    if (f != NULL && fclose(f) != 0)
        written = 0;
    if (!written)
        return zb_fail(ctx, ZB_EIO, "cannot write %s (serve %ld and worker "
                       "%ld run)", pids, (long)serve, (long)worker);
    printf("\nfleet started on the demo warehouse:\n"
           "  dashboard: http://%s/\n"
           "  serve  pid %ld, log %s\n"
           "  worker pid %ld, log %s\n"
           "stop them:\n"
           "  kill $(cat \"%s\")\n",
           ZB_HTTP_DEFAULT_LISTEN, (long)serve, slog, (long)worker, wlog,
           pids);
    return ZB_OK;
}
