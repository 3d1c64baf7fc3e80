/*
 * tests/unit/ops/ops_fixture_files.c - the files half of the operation
 * suites' fixture kit (ops_fixture.h): the check that every file a
 * snapshot needs exists, the paths a set of snapshots references, tree
 * fingerprints (content hashes, or sizes and times), and files made or
 * copied by hand. Lists are built with malloc, outside the zb_malloc fault
 * hook, so that the torture suites can take trees around the code they
 * fail.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ops_fixture.h"
#include "util/alloc.h"
#include "util/buf.h"

/* ---- snapshots' files --------------------------------------------------- */

/* Whether path, resolved against t (into b), names a file. */
static int resolved_exists(of_env *e, const zb_table *t, zb_buf *b,
                           const char *path)
{
    const char *u;

    ZBT_OK_CTX(zb_table_resolve(b, &e->ctx, t, path), &e->ctx);
    u = zb_buf_cstr(b);
    if (strncmp(u, "file://", 7) == 0)
        u += 7;
    return of_exists(u);
}

long of_check_snapshot(of_env *e, const zb_table *t, const ice_snapshot *s,
                       of_check how)
{
    ice_manifest_list_reader *lr = NULL;
    ice_snapshot_iter *it = NULL;
    const ice_manifest_file *mf;
    const ice_manifest_entry *en;
    zb_buf b = ZB_BUF_INIT(1 << 16);
    char missing[4300] = "";
    int64_t records = 0;
    long files = 0;
    size_t i;
    int rc = ZB_OK;

    if (s->manifest_list) {
        if (!resolved_exists(e, t, &b, s->manifest_list)) {
            snprintf(missing, sizeof missing, "manifest list missing: %s",
                     zb_buf_cstr(&b));
            goto done;
        }
        files++;
        rc = ice_manifest_list_open(&lr, e->io, &e->ctx, s->manifest_list,
                                    t->meta->format_version, &t->paths);
        while (rc == ZB_OK &&
               (rc = ice_manifest_list_next(lr, &e->ctx, &mf)) > 0) {
            rc = ZB_OK;
            if (!resolved_exists(e, t, &b, mf->manifest_path)) {
                snprintf(missing, sizeof missing, "manifest missing: %s",
                         zb_buf_cstr(&b));
                goto done;
            }
            files++;
        }
        if (rc < 0)
            goto done;
    }
    rc = ice_snapshot_iter_open(&it, e->io, &e->ctx, t->meta, s, &t->paths);
    while (rc == ZB_OK && (rc = ice_snapshot_iter_next(it, &e->ctx, &en,
                                                       &mf)) > 0) {
        rc = ZB_OK;
        if (!resolved_exists(e, t, &b, en->data_file.file_path)) {
            snprintf(missing, sizeof missing, "file missing: %s",
                     zb_buf_cstr(&b));
            goto done;
        }
        files++;
        if (en->data_file.content == ICE_CONTENT_DATA)
            records += en->data_file.record_count;
    }
done:
    ice_snapshot_iter_free(it);
    ice_manifest_list_free(lr);
    zb_buf_free(&b);
    if (missing[0] || rc < 0) {
        if (how == OF_CHECK_SOFT)
            return -1;
        if (missing[0])
            zbt__fail(__FILE__, __LINE__, "snapshot %lld: %s",
                      (long long)s->snapshot_id, missing);
        zbt__fail(__FILE__, __LINE__, "snapshot %lld does not read: %s",
                  (long long)s->snapshot_id, e->ctx.err.msg);
    }
    /* Our own tables' summaries must add up; some fixture writers' do
     * not (impala-v2-null-delete-record was made by hand). */
    for (i = 0; i < s->n_summary && how == OF_CHECK_ALL; i++)
        if (strcmp(s->summary[i].key, "total-records") == 0)
            ZBT_EQ_INT(records, strtoll(s->summary[i].value, NULL, 10));
    return files;
}

size_t of_check_files(of_env *e)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    long n = s ? of_check_snapshot(e, t, s, OF_CHECK_FILES) : 0;

    zb_table_free(t);
    return (size_t)n;
}

/* ---- lines -------------------------------------------------------------- */

typedef struct strlist {
    char **s;
    size_t n, cap;
} strlist;

static void sl_add(strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        ZBT_CHECK(l->s != NULL);
    }
    l->s[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Joins a list (sorted, duplicates dropped) into lines; frees it. */
static char *sl_join(strlist *l)
{
    size_t i, len = 1, at = 0;
    char *out;

    if (l->n > 0)
        qsort(l->s, l->n, sizeof *l->s, cmp_str);
    for (i = 0; i < l->n; i++)
        len += strlen(l->s[i]) + 1;
    out = malloc(len);
    ZBT_CHECK(out != NULL);
    out[0] = '\0';
    for (i = 0; i < l->n; i++) {
        if (i > 0 && strcmp(l->s[i], l->s[i - 1]) == 0)
            continue;
        at += (size_t)sprintf(out + at, "%s\n", l->s[i]);
    }
    for (i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
    return out;
}

static void add_resolved(of_env *e, const zb_table *t, strlist *l,
                         const char *path)
{
    zb_buf b = ZB_BUF_INIT(1 << 16);
    char *s;

    ZBT_OK_CTX(zb_table_resolve(&b, &e->ctx, t, path), &e->ctx);
    s = strdup(zb_buf_cstr(&b));
    ZBT_CHECK(s != NULL);
    sl_add(l, s);
    zb_buf_free(&b);
}

char *of_snapshot_paths(of_env *e, const zb_table *t,
                        const unsigned char *flags, int keep)
{
    strlist l = { 0 };
    size_t i, k;

    for (i = 0; i < t->meta->n_snapshots; i++) {
        const ice_snapshot *s = &t->meta->snapshots[i];
        ice_manifest_list_reader *lr = NULL;
        const ice_manifest_file *mf;
        if (flags[i] != keep)
            continue;
        ZBT_CHECK(s->manifest_list != NULL);
        add_resolved(e, t, &l, s->manifest_list);
        for (k = 0; k < t->meta->n_statistics; k++)
            if (t->meta->statistics[k].snapshot_id == s->snapshot_id)
                add_resolved(e, t, &l, t->meta->statistics[k].statistics_path);
        for (k = 0; k < t->meta->n_partition_statistics; k++)
            if (t->meta->partition_statistics[k].snapshot_id == s->snapshot_id)
                add_resolved(e, t, &l,
                             t->meta->partition_statistics[k].statistics_path);
        ZBT_OK_CTX(ice_manifest_list_open(&lr, e->io, &e->ctx,
                                          s->manifest_list,
                                          t->meta->format_version, &t->paths),
                   &e->ctx);
        while (ice_manifest_list_next(lr, &e->ctx, &mf) > 0) {
            ice_manifest_reader *mr = NULL;
            const ice_manifest_entry *en;
            add_resolved(e, t, &l, mf->manifest_path);
            ZBT_OK_CTX(ice_manifest_open(&mr, e->io, &e->ctx, mf, NULL,
                                         t->meta->format_version, &t->paths),
                       &e->ctx);
            while (ice_manifest_next(mr, &e->ctx, &en) > 0)
                if (!keep || en->status != ICE_STATUS_DELETED)
                    add_resolved(e, t, &l, en->data_file.file_path);
            ice_manifest_free(mr);
        }
        ice_manifest_list_free(lr);
    }
    return sl_join(&l);
}

/* ---- trees -------------------------------------------------------------- */

static uint64_t file_hash(const char *path, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    uint64_t h = 1469598103934665603ull;
    int c;

    *size = 0;
    ZBT_CHECK(f != NULL);
    while ((c = getc(f)) != EOF) {
        h = (h ^ (uint64_t)(unsigned char)c) * 1099511628211ull;
        (*size)++;
    }
    fclose(f);
    return h;
}

/* One line per file under dir: its content hash (by_time=0) or its
 * modification time. */
static void walk(strlist *l, const char *dir, int by_time)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[4096], *line;
        struct stat st;
        uint64_t size, h;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(l, path, by_time);
            continue;
        }
        line = malloc(strlen(path) + 64);
        ZBT_CHECK(line != NULL);
        if (by_time) {
            sprintf(line, "%s %lld %lld.%09ld", path, (long long)st.st_size,
                    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
        } else {
            h = file_hash(path, &size);
            sprintf(line, "%s\t%llu\t%016llx", path,
                    (unsigned long long)size, (unsigned long long)h);
        }
        sl_add(l, line);
    }
    closedir(d);
}

char *of_tree(const char *dir)
{
    strlist l = { 0 };

    walk(&l, dir, 0);
    return sl_join(&l);
}

char *of_listing(const char *dir)
{
    strlist l = { 0 };
    struct stat st;
    char *text, *out;

    ZBT_CHECK(stat(dir, &st) == 0);
    walk(&l, dir, 1);
    text = sl_join(&l);
    out = zb_strdup(text);
    free(text);
    ZBT_CHECK(out != NULL);
    return out;
}

char *of_tree_minus(const char *a, const char *b)
{
    strlist l = { 0 };
    const char *p = a;
    size_t bl = strlen(b);
    /* b as "\n" + b so that its first line matches too. */
    char *bb = malloc(bl + 2);

    ZBT_CHECK(bb != NULL);
    bb[0] = '\n';
    memcpy(bb + 1, b, bl + 1);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = (size_t)(nl - p);
        char *line = strndup(p, n);
        char *needle = malloc(n + 3);
        ZBT_CHECK(line && needle);
        sprintf(needle, "\n%s\n", line);
        if (strstr(bb, needle) == NULL)
            sl_add(&l, line);
        else
            free(line);
        free(needle);
        p = nl + 1;
    }
    free(bb);
    return sl_join(&l);
}

size_t of_lines(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '\n';
    return n;
}

void of_copy(const char *from, const char *to)
{
    char cmd[2200];

    snprintf(cmd, sizeof cmd, "cp -R '%s' '%s'", from, to);
    ZBT_CHECK(system(cmd) == 0);
}

void of_make_file(const char *path, size_t len, int64_t age_ms)
{
    struct timespec ts[2];
    int64_t when = of_now_ms() - age_ms;
    char *buf = calloc(1, len + 1);
    int fd;

    ZBT_CHECK(buf != NULL);
    memset(buf, 'x', len);
    zbt_write_file(path, buf, len);
    free(buf);
    ts[0].tv_sec = ts[1].tv_sec = (time_t)(when / 1000);
    ts[0].tv_nsec = ts[1].tv_nsec = (long)(when % 1000) * 1000000;
    fd = open(path, O_RDONLY);
    ZBT_CHECK(fd >= 0);
    ZBT_CHECK(futimens(fd, ts) == 0);
    close(fd);
}

int of_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

void of_keep_for_icebird(const zb_table *t, const char *out,
                         const int64_t *ids, const int64_t *rows, size_t n)
{
    char path[1024];
    FILE *f;
    size_t i, j;

    snprintf(path, sizeof path, "%s/expected.json", out);
    f = fopen(path, "w");
    ZBT_CHECK(f != NULL);
    fprintf(f, "{\"metadata\": \"%s\", \"rows\": [", t->metadata_location);
    for (i = 0; i < t->meta->n_snapshots; i++) {
        for (j = 0; j < n && ids[j] != t->meta->snapshots[i].snapshot_id; j++)
            ;
        ZBT_CHECK(j < n);
        fprintf(f, "%s%lld", i ? ", " : "", (long long)rows[j]);
    }
    fprintf(f, "]}\n");
    fclose(f);
}
