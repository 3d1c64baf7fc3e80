/*
 * bench/run_child.c - runs one or more commands one after the other as
 * child processes and reports, for the sequence, the wall seconds and
 * the peak RSS, the way the user-facing benchmark scripts measure the
 * zamboni executable and DuckDB's node process alike.
 *
 *   run_child [-o RESULT_FILE] CMD [ARG...] [--then CMD [ARG...]]...
 *
 * The commands run in order; the first that does not exit 0 ends the
 * sequence. The peak RSS is the largest ru_maxrss that wait4 returns
 * for any of the commands: for a terminated child the kernel reports the
 * largest of the child and its waited-for descendants, so a shell that
 * runs the program counts the program (one process's peak, not a sum).
 * The result is one line,
 *
 *   wall_s=12.345 maxrss_kib=123456 rc=0 step=2 steps_s=0.412,11.933
 *
 * (rc: the exit code of the last command run, 128+N for a signal N;
 * step: its 1-based index; steps_s: each command's wall seconds), written to RESULT_FILE (default stderr).
 * run_child itself exits with rc. The children keep its stdout and
 * stderr.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv[0..] until NULL; returns its exit code (128+N for signal N,
 * 127 when it cannot start) and raises *maxrss_kib to its peak. */
static int run_one(char **argv, long *maxrss_kib)
{
    struct rusage ru;
    int status = 0;
    pid_t pid = fork();

    if (pid < 0) {
        fprintf(stderr, "run_child: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "run_child: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "run_child: wait4: %s\n", strerror(errno));
            return 127;
        }
    }
    if (ru.ru_maxrss > *maxrss_kib)
        *maxrss_kib = ru.ru_maxrss;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 127;
}

int main(int argc, char **argv)
{
    const char *result_path = NULL;
    FILE *out = stderr;
    long maxrss_kib = 0;
    int first = 1, rc = 0, step = 0, i;
    double t0, wall, *steps;

    if (argc > 2 && strcmp(argv[1], "-o") == 0) {
        result_path = argv[2];
        first = 3;
    }
    if (first >= argc || strcmp(argv[first], "--then") == 0) {
        fprintf(stderr, "usage: run_child [-o RESULT_FILE] CMD [ARG...] "
                        "[--then CMD [ARG...]]...\n");
        return 2;
    }
    steps = calloc((size_t)argc, sizeof *steps); /* at most argc steps */
    if (steps == NULL) {
        fprintf(stderr, "run_child: out of memory\n");
        return 127;
    }
    t0 = now_seconds();
    while (first < argc) {
        int end = first;
        double s0;

        while (end < argc && strcmp(argv[end], "--then") != 0)
            end++;
        if (end == first) {
            fprintf(stderr, "run_child: empty command after --then\n");
            rc = 2;
            break;
        }
        argv[end] = NULL; /* ends this command; argv[argc] is NULL */
        s0 = now_seconds();
        rc = run_one(argv + first, &maxrss_kib);
        steps[step++] = now_seconds() - s0;
        if (rc != 0)
            break;
        first = end + 1;
    }
    wall = now_seconds() - t0;
    if (result_path != NULL) {
        out = fopen(result_path, "w");
        if (out == NULL) {
            fprintf(stderr, "run_child: %s: %s\n", result_path,
                    strerror(errno));
            free(steps);
            return 127;
        }
    }
    fprintf(out, "wall_s=%.3f maxrss_kib=%ld rc=%d step=%d steps_s=", wall,
            maxrss_kib, rc, step);
    for (i = 0; i < step; i++)
        fprintf(out, "%s%.3f", i ? "," : "", steps[i]);
    fputc('\n', out);
    free(steps);
    if (out != stderr)
        fclose(out);
    return rc;
}
