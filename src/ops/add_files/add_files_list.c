/*
 * ops/add_files/add_files_list.c - add-files' source (see add_files.c):
 * the Parquet files under a file or folder, hidden and non-Parquet files
 * skipped, sorted by path; and the key=value (Hive) directory levels of
 * each file's path, URL-decoded.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#define ZB_MODULE "add-files"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/add_files/add_files_int.h"
#include "ops/reachable/reachable_files.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/str.h"

/* ---- listing ---- */

static int push_src(af_run *run, const char *uri, uint64_t size)
{
    size_t rl = strlen(run->root);
    af_src *s;

    if (run->n_src == run->cap_src) {
        size_t cap = run->cap_src ? run->cap_src * 2 : 64;
        af_src *v;
        if (cap > AF_MAX_FILES)
            return zb_fail(run->ctx, ZB_EREFUSED, "%s: more than %u files",
                           run->root, AF_MAX_FILES);
        if ((v = zb_realloc(run->src, cap * sizeof *v)) == NULL)
            return zb_fail_oom(run->ctx);
        run->src = v;
        run->cap_src = cap;
    }
    s = &run->src[run->n_src];
    if ((s->uri = zb_arena_strdup(run->arena, uri)) == NULL)
        return zb_fail_oom(run->ctx);
    s->rel = strncmp(s->uri, run->root, rl) == 0 ? s->uri + rl : "";
    while (*s->rel == '/')
        s->rel++;
    s->size = size;
    run->n_src++;
    return ZB_OK;
}

static const char *base_name(const char *uri)
{
    const char *b = strrchr(uri, '/');

    return b ? b + 1 : uri;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* 1 when the file looks like Parquet ("PAR1" at both ends), 0 when not,
 * or the read's rc: a file that cannot be read is not skipped. */
static int looks_parquet(af_run *run, const char *uri, uint64_t size)
{
    char head[4], tail[4];
    int rc;

    if (size < 12)
        return 0;
    if ((rc = zb_io_read_range(run->t->io, run->ctx, uri, 0, head, 4)) < 0 ||
        (rc = zb_io_read_range(run->t->io, run->ctx, uri, size - 4, tail,
                               4)) < 0)
        return rc;
    return memcmp(head, "PAR1", 4) == 0 && memcmp(tail, "PAR1", 4) == 0;
}

/* 1 when a directory of uri below the source root is hidden or
 * temporary (Spark's and Hive's listings leave these out): a name that
 * starts with '.' (.spark-staging, .hive-staging), or with '_' and has
 * no '=' (_temporary; "_k=v" is a partition directory). */
static int in_hidden_dir(const af_run *run, const char *uri)
{
    size_t rl = strlen(run->root);
    const char *p = strncmp(uri, run->root, rl) == 0 ? uri + rl : uri;
    const char *slash;

    if (p == uri)
        return 0;                  /* not below the root: nothing to judge */
    while (*p == '/')
        p++;
    while ((slash = strchr(p, '/')) != NULL) {
        size_t n = (size_t)(slash - p);
        if (n > 0 && (p[0] == '.' ||
                      (p[0] == '_' && memchr(p, '=', n) == NULL)))
            return 1;
        p = slash + 1;
    }
    return 0;
}

static int consider(af_run *run, const char *uri, uint64_t size)
{
    const char *b = base_name(uri);
    int rc;

    if (b[0] == '.' || b[0] == '_' || in_hidden_dir(run, uri)) {
        run->skipped++;
        return ZB_OK;
    }
    if (!ends_with(b, ".parquet")) {
        if ((rc = looks_parquet(run, uri, size)) < 0)
            return rc;
        if (rc == 0) {
            run->skipped++;
            return ZB_OK;
        }
    }
    return push_src(run, uri, size);
}

static int cmp_src(const void *a, const void *b)
{
    return strcmp(((const af_src *)a)->uri, ((const af_src *)b)->uri);
}

int zb_af__list_source(af_run *run)
{
    zb_ctx *ctx = run->ctx;
    const char *src = run->o->source;
    zb_io_lister *l = NULL;
    zb_io_entry e;
    zb_io_stat st;
    char abs[PATH_MAX];
    int rc;

    /* A local path, file: URIs among them, is made a plain absolute path:
     * the one form the table names local files in. */
    if (strncasecmp(src, "file:", 5) == 0) {
        zb_buf local = ZB_BUF_INIT(PATH_MAX);
        if ((rc = zb_reach_normalize(&local, ctx, src)) < 0)
            return rc;
        if (realpath(zb_buf_cstr(&local), abs) == NULL) {
            zb_buf_free(&local);
            return zb_fail(ctx, ZB_ENOTFOUND, "source %s does not exist",
                           src);
        }
        zb_buf_free(&local);
        src = abs;
    } else if (strstr(src, "://") == NULL) {
        if (realpath(src, abs) == NULL)
            return zb_fail(ctx, ZB_ENOTFOUND, "source %s does not exist",
                           src);
        src = abs;
    }
    if ((run->root = zb_arena_strdup(run->arena, src)) == NULL)
        return zb_fail_oom(ctx);
    if (zb_io_stat_uri(&st, run->t->io, ctx, src) == ZB_OK) {
        /* one file: its own directory is the source */
        const char *slash = strrchr(run->root, '/');
        if (slash != NULL)
            run->root = zb_arena_strndup(run->arena, run->root,
                                         (size_t)(slash - run->root));
        if (run->root == NULL)
            return zb_fail_oom(ctx);
        return consider(run, src, st.size_bytes);
    }
    zb_err_clear(&ctx->err);
    if ((rc = zb_io_list(&l, run->t->io, ctx, src)) < 0)
        return zb_err_prefix(ctx, "listing the source");
    while ((rc = zb_io_lister_next(l, ctx, &e)) > 0)
        if ((rc = consider(run, e.uri, e.size_bytes)) < 0)
            break;
    zb_io_lister_free(l);
    if (rc < 0)
        return rc;
    if (run->n_src == 0)
        return zb_fail(ctx, ZB_ENOTFOUND, "no Parquet files under %s (%llu "
                       "other file(s) skipped)", src,
                       (unsigned long long)run->skipped);
    qsort(run->src, run->n_src, sizeof *run->src, cmp_src);
    return ZB_OK;
}

/* ---- hive directories ---- */

static char *url_decode(zb_arena *a, const char *s, size_t n)
{
    char *out = zb_arena_alloc(a, n + 1);
    size_t i, k = 0;

    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        int hi = i + 2 < n ? zb_str_hex_digit((unsigned char)s[i + 1]) : -1;
        int lo = i + 2 < n ? zb_str_hex_digit((unsigned char)s[i + 2]) : -1;

        if (s[i] == '%' && hi >= 0 && lo >= 0) {
            out[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    return out;
}

/* The key=value directory levels of rel, outermost first. */
int zb_af__hive_keys(af_kv *out, size_t *n_out, zb_arena *a, zb_ctx *ctx,
                     const char *rel)
{
    const char *p = rel, *slash;

    *n_out = 0;
    while ((slash = strchr(p, '/')) != NULL) {
        const char *eq = memchr(p, '=', (size_t)(slash - p));

        if (eq != NULL && eq > p && *n_out < AF_MAX_KEYS) {
            af_kv *kv = &out[(*n_out)++];
            kv->key = url_decode(a, p, (size_t)(eq - p));
            kv->value = url_decode(a, eq + 1, (size_t)(slash - eq - 1));
            if (kv->key == NULL || kv->value == NULL)
                return zb_fail_oom(ctx);
            if (strcmp(kv->value, HIVE_NULL) == 0)
                kv->value = NULL;
        }
        p = slash + 1;
    }
    return ZB_OK;
}

const char *zb_af__hive_find(const af_kv *kv, size_t n, const char *key,
                             int *found)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0) {
            *found = 1;
            return kv[i].value;
        }
    *found = 0;
    return NULL;
}
