/*
 * tests/harness/zbtest.c - the runner of zbtest.h.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zbtest.h"

static jmp_buf case_jump;
static char case_message[1024];
static char tmpdir_path[4096];

void zbt__fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(case_message, sizeof case_message, "%s:%d: ", file, line);

    va_start(ap, fmt);
    vsnprintf(case_message + n, sizeof case_message - (size_t)n, fmt, ap);
    va_end(ap);
    longjmp(case_jump, 1);
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void zbt_rmtree(const char *path)
{
    nftw(path, remove_one, 64, FTW_DEPTH | FTW_PHYS);
}

const char *zbt_tmpdir(void)
{
    const char *base = getenv("TMPDIR");

    if (tmpdir_path[0])
        return tmpdir_path;
    snprintf(tmpdir_path, sizeof tmpdir_path, "%s/zbtest-XXXXXX",
             base && base[0] ? base : "/tmp");
    if (mkdtemp(tmpdir_path) == NULL) {
        tmpdir_path[0] = '\0';
        zbt__fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
    }
    return tmpdir_path;
}

void zbt_write_file(const char *path, const void *data, size_t len)
{
    char dir[4096];
    char *p;
    FILE *f;

    snprintf(dir, sizeof dir, "%s", path);
    for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
    if ((f = fopen(path, "wb")) == NULL)
        zbt__fail(__FILE__, __LINE__, "fopen %s: %s", path, strerror(errno));
    if (len && fwrite(data, 1, len, f) != len) {
        fclose(f);
        zbt__fail(__FILE__, __LINE__, "fwrite %s", path);
    }
    fclose(f);
}

static zbt_files *find_out;
static const char *find_suffix;

static int find_one(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
    size_t n = strlen(path), m = strlen(find_suffix);

    (void)st;
    (void)ftw;
    if (flag != FTW_F || n < m || strcmp(path + n - m, find_suffix) != 0)
        return 0;
    if (find_out->n == find_out->cap) {
        find_out->cap = find_out->cap ? find_out->cap * 2 : 64;
        find_out->paths = realloc(find_out->paths,
                                  find_out->cap * sizeof *find_out->paths);
    }
    find_out->paths[find_out->n++] = strdup(path);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t zbt_find_files(zbt_files *out, const char *dir, const char *suffix)
{
    find_out = out;
    find_suffix = suffix;
    nftw(dir, find_one, 32, FTW_PHYS);
    qsort(out->paths, out->n, sizeof *out->paths, by_name);
    return out->n;
}

void zbt_files_free(zbt_files *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        free(f->paths[i]);
    free(f->paths);
    memset(f, 0, sizeof *f);
}

static int selected(const char *name, int argc, char **argv)
{
    int i;

    if (argc < 2)
        return 1;
    for (i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return 1;
    return 0;
}

/* Runs one case; 1 if it passed. Kept apart so that longjmp cannot
 * clobber the runner's counters. */
static int run_case(const zbt_case *c)
{
    case_message[0] = '\0';
    if (setjmp(case_jump) != 0)
        return 0;
    c->fn();
    return 1;
}

int zbt_main(int argc, char **argv, const zbt_case *const *suites)
{
    unsigned passed = 0, failed = 0;
    size_t s, i;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (s = 0; suites[s]; s++) {
        for (i = 0; suites[s][i].name; i++) {
            const zbt_case *c = &suites[s][i];
            if (!selected(c->name, argc, argv))
                continue;
            if (run_case(c)) {
                printf("PASS %s\n", c->name);
                passed++;
            } else {
                printf("FAIL %s\n     %s\n", c->name, case_message);
                failed++;
            }
            if (tmpdir_path[0]) {
                zbt_rmtree(tmpdir_path);
                tmpdir_path[0] = '\0';
            }
        }
    }
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
