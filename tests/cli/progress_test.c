/*
 * tests/cli/progress_test.c - the progress line (src/cli/verbs/progress.c):
 * nothing is installed when stderr is not a terminal; the line shows the
 * series of the current operation ("  compact: groups 1/4, files ...",
 * bytes in binary units), rewrites itself with "\r" and erase, is cut to
 * the terminal's width, is throttled, starts afresh for another
 * operation, and is erased by clear and end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/verbs/progress.h"
#include "zbtest.h"

/* Everything written to f so far, as a string (malloc'd). */
static char *contents(FILE *f)
{
    long n;
    char *s;

    fflush(f);
    n = ftell(f);
    ZBT_CHECK(n >= 0);
    s = malloc((size_t)n + 1);
    ZBT_CHECK(s != NULL);
    rewind(f);
    ZBT_CHECK(fread(s, 1, (size_t)n, f) == (size_t)n);
    s[n] = '\0';
    return s;
}

static void test_cli_progress__not_a_terminal(void)
{
    zb_ctx ctx;

    zb_ctx_init(&ctx);
    ZBT_EQ_INT(zb_cli_progress_install(&ctx, 0), 0);
    ZBT_CHECK(ctx.progress == NULL);
    /* A stray call with no output open prints nothing and is harmless. */
    zb_cli__progress_cb("expire: files deleted", 1, 2, NULL);
    zb_cli_progress_end(&ctx);
}

static void test_cli_progress__line(void)
{
    FILE *f = tmpfile();
    char line[256], *s;
    zb_ctx ctx;

    ZBT_CHECK(f != NULL);
    zb_ctx_init(&ctx);
    zb_cli__progress_open(f, 200, 0);
    zb_cli__progress_cb("compact: groups", 0, 4, NULL);
    zb_cli__progress_cb("compact: files", 0, 16, NULL);
    zb_cli__progress_cb("compact: bytes", 0, 4096, NULL);
    zb_cli__progress_cb("compact: groups", 1, 4, NULL);
    zb_cli__progress_cb("compact: files", 4, 16, NULL);
    zb_cli__progress_cb("compact: bytes", 1024, 4096, NULL);
    zb_cli__progress_line(line, sizeof line);
    ZBT_EQ_STR(line, "  compact: groups 1/4, files 4/16, bytes 1.0KiB/4.0KiB");
    s = contents(f);
    ZBT_CHECK(s[0] == '\r');
    ZBT_CONTAINS(s, "\r  compact: groups 1/4, files 4/16, bytes "
                    "1.0KiB/4.0KiB\033[K");
    ZBT_CHECK(strchr(s, '\n') == NULL);       /* never a new line */
    free(s);
    /* Another operation starts afresh. */
    zb_cli__progress_cb("expire: files deleted", 3, 10, NULL);
    zb_cli__progress_line(line, sizeof line);
    ZBT_EQ_STR(line, "  expire: files deleted 3/10");
    /* Cleared: the line ends erased. */
    zb_cli_progress_clear();
    s = contents(f);
    ZBT_CHECK(strlen(s) >= 4);
    ZBT_EQ_STR(s + strlen(s) - 4, "\r\033[K");
    free(s);
    zb_cli_progress_end(&ctx);
    fclose(f);
}

static void test_cli_progress__width_and_rate(void)
{
    FILE *f = tmpfile();
    char *s, *p;
    int lines = 0;

    ZBT_CHECK(f != NULL);
    zb_cli__progress_open(f, 20, 0);
    zb_cli__progress_cb("remove-orphans: files deleted", 5, 1000, NULL);
    s = contents(f);
    /* "\r" + 19 characters + erase */
    ZBT_EQ_STR(s, "\r  remove-orphans: f\033[K");
    free(s);
    zb_cli_progress_clear();

    /* A long interval: one line for many calls. */
    rewind(f);
    zb_cli__progress_open(f, 200, 3600 * 1000);
    for (int i = 0; i <= 1000; i++)
        zb_cli__progress_cb("expire: files deleted", (uint64_t)i, 1000, NULL);
    s = contents(f);
    for (p = s; (p = strchr(p, '\r')) != NULL; p++)
        lines++;
    ZBT_EQ_INT(lines, 1);
    free(s);
    zb_cli_progress_end(NULL);
    fclose(f);
}

static const zbt_case cases[] = {
    ZBT_CASE(test_cli_progress__not_a_terminal),
    ZBT_CASE(test_cli_progress__line),
    ZBT_CASE(test_cli_progress__width_and_rate),
    ZBT_END
};

int main(int argc, char **argv)
{
    const zbt_case *const suites[] = { cases, NULL };

    return zbt_main(argc, argv, suites);
}
