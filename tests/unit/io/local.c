/*
 * FileIO on the local filesystem: every call of zamboni/io.h, with the
 * URI forms Iceberg metadata uses, the no-overwrite rule, and listings of
 * deep and wide trees checked against the tree the test made.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "util/alloc.h"
#include "zbtest.h"

static char path_buf[8][4096];
static int path_next;

/* tmpdir + "/" + rel, in a rotating static buffer. */
static const char *in_tmp(const char *rel)
{
    char *p = path_buf[path_next++ % 8];

    snprintf(p, 4096, "%s/%s", zbt_tmpdir(), rel);
    return p;
}

static char *read_text(zb_io *io, zb_ctx *ctx, const char *uri)
{
    zb_buf b = ZB_BUF_INIT(1 << 20);

    ZBT_OK_CTX(zb_io__read_all(&b, io, ctx, uri), ctx);
    return zb_buf_detach(&b);
}

static void setup(zb_io **io, zb_ctx *ctx)
{
    zb_ctx_init(ctx);
    ZBT_OK_CTX(zb_io_new(io, ctx), ctx);
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    ZBT_CHECK(d != NULL);
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.' || (de->d_name[1] && de->d_name[1] != '.'))
            n++;
    closedir(d);
    return n;
}

static void test_io_local__write_new_then_read_and_stat(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    zb_io_stat st;
    char uri[4200], range[4];
    char *text;

    setup(&io, &ctx);
    snprintf(uri, sizeof uri, "file://%s", in_tmp("t/metadata/v1.json"));
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, uri, "{\"a\":1}", 7), &ctx);
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, uri), &ctx);
    ZBT_EQ_U64(st.size_bytes, 7);
    ZBT_CHECK(st.mtime_ms > 1600000000000LL);
    text = read_text(io, &ctx, uri);
    ZBT_EQ_STR(text, "{\"a\":1}");
    zb_free(text);
    ZBT_OK_CTX(zb_io_read_range(io, &ctx, uri, 2, range, 3), &ctx);
    ZBT_CHECK(memcmp(range, "a\":", 3) == 0);
    /* The same file through the other spellings. */
    snprintf(uri, sizeof uri, "file:%s", in_tmp("t/metadata/v1.json"));
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, uri), &ctx);
    snprintf(uri, sizeof uri, "file://localhost%s",
             in_tmp("t/metadata/v1.json"));
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, uri), &ctx);
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, in_tmp("t/metadata/v1.json")),
               &ctx);
    zb_io_free(io);
}

static void test_io_local__write_new_never_overwrites(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    const char *p = in_tmp("x.bin");
    char *text;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, p, "first", 5), &ctx);
    ZBT_RC(zb_io_write_new(io, &ctx, p, "second!", 7), ZB_EEXISTS);
    ZBT_CONTAINS(ctx.err.msg, p);
    text = read_text(io, &ctx, p);
    ZBT_EQ_STR(text, "first");
    zb_free(text);
    ZBT_EQ_INT(count_entries(zbt_tmpdir()), 1);
    zb_io_free(io);
}

static void test_io_local__streamed_commit_loses_race_without_damage(void)
{
    zb_io *io = NULL;
    zb_io_writer *w = NULL;
    zb_ctx ctx;
    const char *p = in_tmp("data/part-0.parquet");
    char *text;
    int i;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_writer_open(&w, io, &ctx, p), &ctx);
    for (i = 0; i < 1000; i++)
        ZBT_OK_CTX(zb_io_writer_write(w, &ctx, "0123456789", 10), &ctx);
    ZBT_EQ_U64(zb_io_writer_bytes(w), 10000);
    /* Nothing is visible before commit. */
    ZBT_CHECK(access(p, F_OK) != 0);
    /* Someone else takes the name meanwhile. */
    ZBT_OK_CTX(zb_io_write_new(io, &ctx, p, "theirs", 6), &ctx);
    ZBT_RC(zb_io_writer_commit(w, &ctx), ZB_EEXISTS);
    text = read_text(io, &ctx, p);
    ZBT_EQ_STR(text, "theirs");
    zb_free(text);
    /* No temporary file is left behind. */
    ZBT_EQ_INT(count_entries(in_tmp("data")), 1);
    zb_io_free(io);
}

static void test_io_local__streamed_commit_and_abort(void)
{
    zb_io *io = NULL;
    zb_io_writer *w = NULL;
    zb_io_stat st;
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_writer_open(&w, io, &ctx, in_tmp("d/kept")), &ctx);
    ZBT_OK_CTX(zb_io_writer_write(w, &ctx, "abc", 3), &ctx);
    ZBT_OK_CTX(zb_io_writer_commit(w, &ctx), &ctx);
    ZBT_OK_CTX(zb_io_stat_uri(&st, io, &ctx, in_tmp("d/kept")), &ctx);
    ZBT_EQ_U64(st.size_bytes, 3);
    ZBT_OK_CTX(zb_io_writer_open(&w, io, &ctx, in_tmp("d/dropped")), &ctx);
    ZBT_OK_CTX(zb_io_writer_write(w, &ctx, "abc", 3), &ctx);
    zb_io_writer_abort(w);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, in_tmp("d/dropped")), ZB_ENOTFOUND);
    ZBT_EQ_INT(count_entries(in_tmp("d")), 1);
    /* Opening a writer on a taken name fails at once. */
    ZBT_RC(zb_io_writer_open(&w, io, &ctx, in_tmp("d/kept")), ZB_EEXISTS);
    ZBT_CHECK(w == NULL);
    zb_io_free(io);
}

static void test_io_local__missing_and_short_reads(void)
{
    zb_io *io = NULL;
    zb_io_file *f = NULL;
    zb_io_stat st;
    zb_ctx ctx;
    char buf[16];

    setup(&io, &ctx);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, in_tmp("nope")), ZB_ENOTFOUND);
    ZBT_CONTAINS(ctx.err.msg, "nope");
    ZBT_RC(zb_io_open(&f, io, &ctx, in_tmp("nope")), ZB_ENOTFOUND);
    ZBT_RC(zb_io_open(&f, io, &ctx, zbt_tmpdir()), ZB_ENOTFOUND);
    zbt_write_file(in_tmp("five"), "12345", 5);
    ZBT_OK_CTX(zb_io_open(&f, io, &ctx, in_tmp("five")), &ctx);
    ZBT_EQ_U64(zb_io_file_size(f), 5);
    ZBT_OK_CTX(zb_io_file_read(f, &ctx, 1, buf, 4), &ctx);
    ZBT_CHECK(memcmp(buf, "2345", 4) == 0);
    ZBT_RC(zb_io_file_read(f, &ctx, 2, buf, 4), ZB_EIO);
    ZBT_CONTAINS(ctx.err.msg, "passes the end");
    ZBT_RC(zb_io_file_read(f, &ctx, UINT64_MAX, buf, 1), ZB_EIO);
    ZBT_OK_CTX(zb_io_file_read(f, &ctx, 5, buf, 0), &ctx);
    zb_io_file_close(f);
    zb_io_free(io);
}

static void test_io_local__read_all_respects_the_cap(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    zb_buf b = ZB_BUF_INIT(4);

    setup(&io, &ctx);
    zbt_write_file(in_tmp("five"), "12345", 5);
    ZBT_RC(zb_io__read_all(&b, io, &ctx, in_tmp("five")), ZB_ENOMEM);
    ZBT_CONTAINS(ctx.err.msg, "5 bytes");
    ZBT_EQ_U64(b.len, 0);
    zb_buf_free(&b);
    zb_io_free(io);
}

static void test_io_local__delete_and_batch_delete(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    const char *uris[4];
    int rcs[4];
    size_t failed = 99;
    zb_io_stat st;

    setup(&io, &ctx);
    zbt_write_file(in_tmp("a"), "1", 1);
    zbt_write_file(in_tmp("b"), "1", 1);
    zbt_write_file(in_tmp("c"), "1", 1);
    ZBT_OK_CTX(zb_io_delete(io, &ctx, in_tmp("a")), &ctx);
    ZBT_RC(zb_io_delete(io, &ctx, in_tmp("a")), ZB_ENOTFOUND);
    uris[0] = in_tmp("b");
    uris[1] = in_tmp("missing");
    uris[2] = in_tmp("c");
    uris[3] = "s3://bucket/key";
    ZBT_OK_CTX(zb_io_delete_batch(io, &ctx, uris, 4, rcs, &failed), &ctx);
    ZBT_EQ_U64(failed, 2);
    ZBT_EQ_INT(rcs[0], ZB_OK);
    ZBT_EQ_INT(rcs[1], ZB_ENOTFOUND);
    ZBT_EQ_INT(rcs[2], ZB_OK);
    ZBT_EQ_INT(rcs[3], ZB_EUNSUPPORTED);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, in_tmp("c")), ZB_ENOTFOUND);
    ZBT_EQ_INT(count_entries(zbt_tmpdir()), 0);
    zb_io_free(io);
}

static void test_io_local__unknown_scheme_names_it(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    zb_io_stat st;

    setup(&io, &ctx);
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "s3://bucket/t/data/x.parquet"),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "'s3'");
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "hdfs://nn:8020/t/x"),
           ZB_EUNSUPPORTED);
    ZBT_CONTAINS(ctx.err.msg, "'hdfs'");
    ZBT_RC(zb_io_stat_uri(&st, io, &ctx, "file://otherhost/x"),
           ZB_EUNSUPPORTED);
    zb_io_free(io);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists uri and returns the sorted entries, each as "relpath:size". */
static char **list_sorted(zb_io *io, zb_ctx *ctx, const char *uri,
                          size_t *n_out)
{
    zb_io_lister *l = NULL;
    zb_io_entry e;
    char **out = NULL;
    size_t n = 0, cap = 0, prefix = strlen(uri);
    int rc;

    ZBT_OK_CTX(zb_io_list(&l, io, ctx, uri), ctx);
    while ((rc = zb_io_lister_next(l, ctx, &e)) == 1) {
        char item[8192];
        ZBT_CHECK(strncmp(e.uri, uri, prefix) == 0);
        snprintf(item, sizeof item, "%s:%llu", e.uri + prefix,
                 (unsigned long long)e.size_bytes);
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            out = realloc(out, cap * sizeof *out);
        }
        out[n++] = strdup(item);
    }
    ZBT_EQ_INT(rc, 0);
    zb_io_lister_free(l);
    qsort(out, n, sizeof *out, cmp_str);
    *n_out = n;
    return out;
}

static void free_list(char **items, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

static void test_io_local__list_deep_and_wide_tree(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    char rel[4096], want[8192];
    char **got;
    char **expect;
    size_t n = 0, n_expect = 0, i, len = 0;
    const int depth = 120, wide = 300;

    setup(&io, &ctx);
    expect = calloc((size_t)(depth + wide + 1), sizeof *expect);
    /* One file at each of 120 levels: "/d000/d001/.../f". */
    rel[0] = '\0';
    for (i = 0; i < (size_t)depth; i++) {
        len += (size_t)snprintf(rel + len, sizeof rel - len, "/d%03zu", i);
        snprintf(want, sizeof want, "%s/f:%zu", rel, i);
        expect[n_expect++] = strdup(want);
        snprintf(want, sizeof want, "%s/f", rel + 1);
        {
            char body[200];
            memset(body, 'x', i);
            zbt_write_file(in_tmp(want), body, i);
        }
    }
    /* A wide directory with empty subdirectories mixed in. */
    for (i = 0; i < (size_t)wide; i++) {
        snprintf(want, sizeof want, "wide/part-%05zu.parquet", i);
        zbt_write_file(in_tmp(want), "p", 1);
        snprintf(want, sizeof want, "/wide/part-%05zu.parquet:1", i);
        expect[n_expect++] = strdup(want);
    }
    mkdir(in_tmp("wide/empty"), 0755);
    mkdir(in_tmp("wide/empty/deeper"), 0755);
    /* A symlink is not listed. */
    ZBT_EQ_INT(symlink(in_tmp("wide/part-00000.parquet"),
                       in_tmp("wide/link.parquet")), 0);
    qsort(expect, n_expect, sizeof *expect, cmp_str);

    got = list_sorted(io, &ctx, zbt_tmpdir(), &n);
    ZBT_EQ_U64(n, n_expect);
    for (i = 0; i < n; i++)
        ZBT_EQ_STR(got[i], expect[i]);
    free_list(got, n);

    /* A file: URI lists in the same form, trailing slash or not. */
    snprintf(want, sizeof want, "file:%s/wide/", zbt_tmpdir());
    got = list_sorted(io, &ctx, want, &n);
    ZBT_EQ_U64(n, (size_t)wide);
    /* No doubled slash after a prefix that ended in one. */
    ZBT_EQ_STR(got[0], "part-00000.parquet:1");
    free_list(got, n);
    free_list(expect, n_expect);
    zb_io_free(io);
}

static void test_io_local__list_missing_prefix_is_not_found(void)
{
    zb_io *io = NULL;
    zb_io_lister *l = NULL;
    zb_ctx ctx;

    setup(&io, &ctx);
    ZBT_RC(zb_io_list(&l, io, &ctx, in_tmp("no/such/dir")), ZB_ENOTFOUND);
    ZBT_CHECK(l == NULL);
    ZBT_CONTAINS(ctx.err.msg, "no/such/dir");
    zb_io_free(io);
}

/* Fails every allocation of a write and a read in turn: each run returns
 * ZB_ENOMEM or succeeds whole, leaks nothing, and leaves either no file or
 * the complete one. */
static void test_io_local__allocation_torture(void)
{
    uint64_t base = zb_alloc_live_bytes(), n;
    int done = 0;

    for (n = 1; !done && n < 500; n++) {
        zb_io *io = NULL;
        zb_ctx ctx;
        zb_buf b = ZB_BUF_INIT(1024);
        int rc;

        zbt_rmtree(in_tmp("t"));
        zb_ctx_init(&ctx);
        zb_alloc__fail_at(n, 1);
        rc = zb_io_new(&io, &ctx);
        if (rc == ZB_OK)
            rc = zb_io_write_new(io, &ctx, in_tmp("t/m/v1.json"), "{}", 2);
        if (rc == ZB_OK)
            rc = zb_io__read_all(&b, io, &ctx, in_tmp("t/m/v1.json"));
        done = zb_alloc__fail_at(0, 0) == 0;
        if (done) {
            ZBT_OK_CTX(rc, &ctx);
            ZBT_EQ_STR(zb_buf_cstr(&b), "{}");
        } else {
            ZBT_EQ_INT(rc, ZB_ENOMEM);
            if (access(in_tmp("t/m"), F_OK) == 0)
                ZBT_CHECK(count_entries(in_tmp("t/m")) <= 1);
        }
        zb_buf_free(&b);
        zb_io_free(io);
        ZBT_EQ_U64(zb_alloc_live_bytes(), base);
    }
    ZBT_CHECK(done);
}

/* A reader that opens the file over and over until told to stop. */
typedef struct hint_reader {
    const char *path;
    atomic_int stop;
    long opened, missing, empty;
} hint_reader;

static void *read_hint_loop(void *arg)
{
    hint_reader *r = arg;
    char b[32];

    while (!atomic_load(&r->stop)) {
        int fd = open(r->path, O_RDONLY);
        if (fd < 0) {
            if (errno == ENOENT)
                r->missing++;
            continue;
        }
        r->opened++;
        if (read(fd, b, sizeof b) <= 0)
            r->empty++;
        close(fd);
    }
    return NULL;
}

/*
 * zb_io_write_replace: creates, then replaces in one step: a reader
 * opening the file all the while never finds it missing or empty (the
 * delete-then-write it replaces in the folder catalog's version hint left
 * a gap), and no temporary file is left.
 */
static void test_io_local__write_replace_has_no_gap(void)
{
    zb_io *io = NULL;
    zb_ctx ctx;
    hint_reader r;
    pthread_t t;
    char text[32], *back;
    const char *path = in_tmp("hint/metadata/version-hint.text");
    int i, n;

    setup(&io, &ctx);
    ZBT_OK_CTX(zb_io_write_replace(io, &ctx, path, "1", 1), &ctx);
    memset(&r, 0, sizeof r);
    r.path = path;
    ZBT_EQ_INT(pthread_create(&t, NULL, read_hint_loop, &r), 0);
    for (i = 2; i <= 400; i++) {
        n = snprintf(text, sizeof text, "%d", i);
        ZBT_OK_CTX(zb_io_write_replace(io, &ctx, path, text, (size_t)n),
                   &ctx);
    }
    atomic_store(&r.stop, 1);
    pthread_join(t, NULL);
    ZBT_CHECK(r.opened > 0);
    ZBT_EQ_INT(r.missing, 0);
    ZBT_EQ_INT(r.empty, 0);
    back = read_text(io, &ctx, path);
    ZBT_EQ_STR(back, "400");
    zb_free(back);
    ZBT_EQ_INT(count_entries(in_tmp("hint/metadata")), 1);
    /* a directory name is refused */
    ZBT_RC(zb_io_write_replace(io, &ctx, in_tmp("hint/metadata/"), "x", 1),
           ZB_EINVAL);
    zb_io_free(io);
}

const zbt_case test_io_local[] = {
    ZBT_CASE(test_io_local__write_new_then_read_and_stat),
    ZBT_CASE(test_io_local__write_new_never_overwrites),
    ZBT_CASE(test_io_local__write_replace_has_no_gap),
    ZBT_CASE(test_io_local__streamed_commit_loses_race_without_damage),
    ZBT_CASE(test_io_local__streamed_commit_and_abort),
    ZBT_CASE(test_io_local__missing_and_short_reads),
    ZBT_CASE(test_io_local__read_all_respects_the_cap),
    ZBT_CASE(test_io_local__delete_and_batch_delete),
    ZBT_CASE(test_io_local__unknown_scheme_names_it),
    ZBT_CASE(test_io_local__list_deep_and_wide_tree),
    ZBT_CASE(test_io_local__list_missing_prefix_is_not_found),
    ZBT_CASE(test_io_local__allocation_torture),
    ZBT_END
};
