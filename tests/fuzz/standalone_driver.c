/*
 * Replays fuzz inputs without libFuzzer: every regular file of each
 * directory (or each file) named on the command line is read whole and
 * passed to LLVMFuzzerTestOneInput, in name order. A target that crashes
 * or aborts fails the ctest case; so does finding no input at all, which
 * means a wrong corpus path. Used by the replay_* tests of plain builds
 * (after libgit2's fuzzers/standalone_driver.c).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long size;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    /* An exact-size copy, so that ASan sees a read past the input. */
    data = malloc(size ? (size_t)size : 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir; returns how many, or -1. */
static long run_dir(const char *dir)
{
    char **names = NULL, path[4096];
    size_t n = 0, cap = 0, i;
    struct dirent *de;
    struct stat st;
    long count = 0;
    DIR *d = opendir(dir);

    if (d == NULL) {
        fprintf(stderr, "cannot open %s\n", dir);
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **grown;

            cap = cap ? 2 * cap : 64;
            if ((grown = realloc(names, cap * sizeof *names)) == NULL)
                abort();
            names = grown;
        }
        if ((names[n] = malloc(strlen(de->d_name) + 1)) == NULL)
            abort();
        memcpy(names[n], de->d_name, strlen(de->d_name) + 1);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(path) < 0)
                count = -1;
            else if (count >= 0)
                count++;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    struct stat st;
    long total = 0, n;
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++) {
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "cannot stat %s\n", argv[i]);
            return 1;
        }
        n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) + 1;
        if (n < 0)
            return 1;
        total += n;
    }
    printf("%ld inputs replayed\n", total);
    if (total == 0) {
        fprintf(stderr, "no inputs found\n");
        return 1;
    }
    return 0;
}
