/*
 * ops/orphans/remove_orphans.c - remove-orphans (remove_orphans.h).
 *
 * Call order in zb_remove_orphans: load the table; refuse a short guard;
 * find the roots (resolved, normalized, nested ones dropped); check the
 * other tables of the catalog (check_other_tables); list every root into
 * the stream LIST; reload the table and put the reachable files into
 * REACH (snapshots' manifest lists and, through a stream of distinct
 * manifests, each manifest once with its live files; statistics;
 * metadata files); join
 * LIST with REACH, counting referenced and unreferenced files, writing
 * the deletable ones to a record file and noting referenced files that
 * are missing; run the safety checks; delete in batches.
 *
 * Hadoop checksum files (".NAME.crc") are listed under NAME's path with a
 * byte 1 after it (ZB_REACH_CRC), so that in the join each comes right
 * after NAME: one whose NAME is referenced or listed belongs to it (kept
 * with it, deleted with it by zb_reach_delete, counted with it); only one
 * whose NAME is gone is an orphan of its own.
 *
 * The table is loaded again after the listing, so a file that a writer
 * commits before the listing ends is reachable, and one it writes after
 * the listing is never seen; one written but not committed yet is
 * younger than the guard.
 */
#define ZB_MODULE "orphans"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ops/orphans/remove_orphans.h"
#include "ops/reachable/reachable_files.h"
#include "table/commit/commit.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"

#define DEFAULT_MEMORY ((uint64_t)128 << 20)
#define MAX_ROOTS 3
#define MAX_NS_DEPTH 16

typedef struct orphan_run {
    const zb_table *t;              /* as loaded first; then as reloaded */
    zb_table *fresh;                /* the table reloaded after listing */
    const char *ident;
    zb_catalog *cat;
    zb_io *io;
    zb_ctx *ctx;
    char *roots[MAX_ROOTS];
    size_t n_roots;
    int64_t cutoff_ms;              /* older than this: deletable */
    zb_pathfile *del;
    zb_remove_orphans_result *r;
    uint64_t snap_files_under;      /* lists, manifests, content under roots */
    int metadata_under;
    char first_missing[512];
    char unreadable[2 * ZB_ERR_MSG_SIZE]; /* first list or manifest unread */
    zb_pathmem mem;                 /* the path streams: one budget holder */
    zb_buf last;                    /* the path the join saw last */
    zb_buf scratch;                 /* a checksum file's own path */
    unsigned read_threads;          /* reading manifests */
} orphan_run;

static int64_t clock_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int under_roots(const orphan_run *o, const char *path)
{
    size_t i;

    for (i = 0; i < o->n_roots; i++)
        if (zb_reach_under(path, o->roots[i]))
            return 1;
    return 0;
}

/* Adds a root: resolved, normalized, unless one already covers it. */
static int add_root(orphan_run *o, const char *path, int resolve)
{
    zb_buf res = ZB_BUF_INIT(ZB_REACH_MAX_PATH), norm = ZB_BUF_INIT(
                                                     ZB_REACH_MAX_PATH);
    size_t i, j;
    int rc;

    if (resolve)
        rc = zb_table_resolve(&res, o->ctx, o->t, path);
    else
        rc = zb_buf_puts(&res, path) < 0 ? zb_fail_oom(o->ctx) : ZB_OK;
    if (rc < 0 || (rc = zb_reach_normalize(&norm, o->ctx, res.ptr)) < 0)
        goto done;
    for (i = 0; i < o->n_roots; i++)
        if (zb_reach_under(norm.ptr, o->roots[i]))
            goto done;
    /* Roots the new one covers go. */
    for (i = j = 0; i < o->n_roots; i++) {
        if (zb_reach_under(o->roots[i], norm.ptr))
            zb_free(o->roots[i]);
        else
            o->roots[j++] = o->roots[i];
    }
    o->n_roots = j;
    if ((o->roots[o->n_roots] = zb_buf_detach(&norm)) == NULL) {
        rc = zb_fail_oom(o->ctx);
        goto done;
    }
    o->n_roots++;
done:
    zb_buf_free(&res);
    zb_buf_free(&norm);
    return rc;
}

/* Logs a data or metadata path that lies outside the listed roots: its
 * files are left alone. */
static int note_outside_root(orphan_run *o, const char *key, const char *path)
{
    zb_buf res = ZB_BUF_INIT(ZB_REACH_MAX_PATH), norm = ZB_BUF_INIT(
                                                     ZB_REACH_MAX_PATH);
    size_t i;
    int rc, under = 0;

    if ((rc = zb_table_resolve(&res, o->ctx, o->t, path)) == ZB_OK &&
        (rc = zb_reach_normalize(&norm, o->ctx, res.ptr)) == ZB_OK) {
        for (i = 0; i < o->n_roots; i++)
            under |= zb_reach_under(norm.ptr, o->roots[i]);
        if (!under)
            zb_log_warn(o->ctx, "%s: %s %s lies outside the table location: "
                        "not listed, nothing there is deleted", o->t->ident,
                        key, path);
    }
    zb_buf_free(&res);
    zb_buf_free(&norm);
    return rc;
}

/* ---- other tables of the catalog --------------------------------------- */

typedef struct name_list {
    char **items;
    size_t n, cap;
} name_list;

static int collect(const char *item, void *payload)
{
    name_list *l = payload;

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **n = zb_realloc(l->items, cap * sizeof *n);
        if (n == NULL)
            return ZB_ENOMEM;
        l->items = n;
        l->cap = cap;
    }
    if ((l->items[l->n] = zb_strdup(item)) == NULL)
        return ZB_ENOMEM;
    l->n++;
    return 0;
}

static void names_free(name_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        zb_free(l->items[i]);
    zb_free(l->items);
    memset(l, 0, sizeof *l);
}

/* One table: is its root inside ours? */
static int check_table(orphan_run *o, const char *ident)
{
    zb_table *other = NULL;
    zb_buf norm = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    int rc;

    if (strcmp(ident, o->t->ident) == 0)
        return ZB_OK;
    if ((rc = zb_catalog_load_table(o->cat, o->ctx, ident, &other)) < 0) {
        rc = zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: "
                     "cannot load table %s to check that it does not lie "
                     "inside this table's location (%s)", o->t->ident, ident,
                     o->ctx->err.msg);
        goto done;
    }
    if ((rc = zb_reach_normalize(&norm, o->ctx, other->root)) < 0)
        goto done;
    if (under_roots(o, norm.ptr))
        rc = zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: "
                     "table %s lies at %s, inside this table's location %s",
                     o->t->ident, ident, norm.ptr, o->roots[0]);
done:
    zb_table_free(other);
    zb_buf_free(&norm);
    return rc;
}

static int check_namespace(orphan_run *o, const char *ns, int depth)
{
    name_list kids = { 0 }, tables = { 0 };
    size_t i, n = strlen(ns);
    int rc;

    if (depth > MAX_NS_DEPTH)
        return ZB_OK;
    rc = zb_catalog_list_tables(o->cat, o->ctx, ns, collect, &tables);
    for (i = 0; rc == ZB_OK && i < tables.n; i++)
        rc = check_table(o, tables.items[i]);
    if (rc == ZB_OK) {
        rc = zb_catalog_list_namespaces(o->cat, o->ctx, ns, collect, &kids);
        if (rc == ZB_EUNSUPPORTED) {
            zb_err_clear(&o->ctx->err);
            rc = ZB_OK;
        }
    }
    /* Only true children: a catalog without nesting may list ns again. */
    for (i = 0; rc == ZB_OK && i < kids.n; i++)
        if (strncmp(kids.items[i], ns, n) == 0 && kids.items[i][n] == '.')
            rc = check_namespace(o, kids.items[i], depth + 1);
    names_free(&kids);
    names_free(&tables);
    return rc;
}

static int check_other_tables(orphan_run *o)
{
    name_list top = { 0 };
    size_t i;
    int rc;

    if (zb_catalog_get_kind(o->cat) == ZB_CATALOG_PATH ||
        !(zb_catalog_caps(o->cat) & ZB_CATALOG_CAP_NAMESPACES))
        return ZB_OK;
    rc = zb_catalog_list_namespaces(o->cat, o->ctx, NULL, collect, &top);
    for (i = 0; rc == ZB_OK && i < top.n; i++)
        rc = check_namespace(o, top.items[i], 0);
    names_free(&top);
    if (rc == ZB_ENOMEM && o->ctx->err.code != ZB_ENOMEM)
        rc = zb_fail_oom(o->ctx);
    if (rc < 0 && rc != ZB_EUNSAFE && rc != ZB_ENOMEM)
        rc = zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: the "
                     "catalog's tables cannot be enumerated to check that "
                     "none lies inside this table's location (%s)",
                     o->t->ident, o->ctx->err.msg);
    return rc;
}

/* ---- listing and reachable set -------------------------------------------- */

/* A listed file; a checksum file keyed by its file's path + byte 1. */
static int list_one(orphan_run *o, zb_pathsort *list, const zb_io_entry *e)
{
    zb_buf norm = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    int rc;

    if ((rc = zb_reach_normalize(&norm, o->ctx, e->uri)) < 0)
        goto done;
    rc = zb_reach_crc_owner(&o->scratch, o->ctx, norm.ptr, norm.len);
    if (rc == 1 && zb_buf_putc(&o->scratch, '\1') < 0)
        rc = zb_fail_oom(o->ctx);
    if (rc == 1)
        rc = zb_pathsort_add(list, o->ctx, o->scratch.ptr, o->scratch.len,
                             ZB_REACH_LISTED | ZB_REACH_CRC, e->size_bytes,
                             e->mtime_ms);
    else if (rc == 0)
        rc = zb_pathsort_add(list, o->ctx, norm.ptr, norm.len,
                             ZB_REACH_LISTED, e->size_bytes, e->mtime_ms);
done:
    zb_buf_free(&norm);
    return rc;
}

static int list_roots(orphan_run *o, zb_pathsort *list)
{
    zb_io_lister *l = NULL;
    zb_io_entry e;
    size_t i;
    int rc = ZB_OK;

    for (i = 0; i < o->n_roots && rc == ZB_OK; i++) {
        if ((rc = zb_io_list(&l, o->io, o->ctx, o->roots[i])) < 0) {
            if (rc == ZB_ENOTFOUND && i > 0) {   /* a data path not made yet */
                zb_err_clear(&o->ctx->err);
                rc = ZB_OK;
                continue;
            }
            break;
        }
        while ((rc = zb_io_lister_next(l, o->ctx, &e)) > 0)
            if ((rc = list_one(o, list, &e)) < 0)
                break;
        zb_io_lister_free(l);
        l = NULL;
    }
    if (rc < 0 && rc != ZB_ENOMEM && rc != ZB_ECANCELED)
        rc = zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: "
                     "cannot list %s (%s)", o->t->ident,
                     o->roots[i < o->n_roots ? i : 0], o->ctx->err.msg);
    return rc < 0 ? rc : ZB_OK;
}

/*
 * A manifest list or manifest that does not read hides the files only it
 * names, which would then look unreferenced. Noted here; when it lies
 * under a root the join reports it missing (naming it), and otherwise
 * the run aborts after the join all the same (safety_checks).
 */
static int tolerate_missing(orphan_run *o, int rc, const char *what)
{
    if (rc != ZB_ENOTFOUND)
        return rc;
    zb_log_warn(o->ctx, "%s: %s: %s", o->t->ident, what, o->ctx->err.msg);
    if (o->unreadable[0] == '\0')
        snprintf(o->unreadable, sizeof o->unreadable, "%s: %s", what,
                 o->ctx->err.msg);
    zb_err_clear(&o->ctx->err);
    return ZB_OK;
}

/* A manifest read (zb_reach_reader): one that is missing is noted. */
static int manifest_read(void *payload, zb_ctx *ctx, int rc)
{
    (void)ctx;
    return tolerate_missing(payload, rc, "manifest");
}

static int reach_all(orphan_run *o, zb_pathsort *reach, uint64_t mem_each)
{
    const ice_metadata *m = o->t->meta;
    zb_reach_reader *rr = NULL;
    zb_pathsort *man = NULL;
    zb_buf scratch = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    const zb_pathrec *r;
    char *dir = NULL;
    size_t i;
    int rc;

    if ((rc = zb_pathsort_new_in(&man, o->ctx, "orphans", mem_each,
                                 &o->mem)) < 0)
        goto done;
    if ((rc = zb_pathsort_add_uri(reach, o->ctx, o->t->metadata_location,
                                  ZB_REACH_METADATA, 0, 0)) < 0)
        goto done;
    for (i = 0; i < m->n_metadata_log; i++)
        if ((rc = zb_reach_add(reach, o->ctx, o->t, &scratch,
                               m->metadata_log[i].metadata_file,
                               ZB_REACH_METALOG, 0)) < 0)
            goto done;
    if ((rc = ice_commit_metadata_dir(&dir, o->ctx, m, o->t->root)) < 0)
        goto done;
    zb_buf_clear(&scratch);
    if (zb_buf_appendf(&scratch, "%s/version-hint.text", dir) < 0) {
        rc = zb_fail_oom(o->ctx);
        goto done;
    }
    {
        zb_buf res = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
        rc = zb_reach_add(reach, o->ctx, o->t, &res, scratch.ptr,
                          ZB_REACH_METALOG, 0);
        zb_buf_free(&res);
        if (rc < 0)
            goto done;
    }
    for (i = 0; i < m->n_snapshots; i++) {
        rc = zb_reach_snapshot(reach, man, o->io, o->ctx, o->t,
                               &m->snapshots[i]);
        if ((rc = tolerate_missing(o, rc, "manifest list")) < 0)
            goto done;
    }
    if ((rc = zb_reach_stats(reach, o->ctx, o->t, &scratch,
                             ICE_NO_SNAPSHOT)) < 0 ||
        (rc = zb_pathsort_finish(man, o->ctx)) < 0)
        goto done;
    if ((rc = zb_reach_reader_new(&rr, o->ctx, o->io, o->t, o->read_threads,
                                  manifest_read, o)) < 0)
        goto done;
    while ((rc = zb_pathsort_next(man, o->ctx, &r)) > 0) {
        if ((rc = zb_pathsort_add(reach, o->ctx, r->path, r->len, r->tag,
                                  r->size_bytes, 0)) < 0 ||
            (rc = zb_reach_reader_add(rr, o->ctx, reach, r->path, 1)) < 0)
            goto done;
    }
    if (rc == 0)
        rc = zb_reach_reader_drain(rr, o->ctx);
done:
    zb_reach_reader_free(rr);
    zb_pathsort_free(man);
    zb_buf_free(&scratch);
    zb_free(dir);
    return rc < 0 ? rc : ZB_OK;
}

/*
 * A listed checksum file: 1 when the path before it in the join is its
 * file's (kept or deleted with it), else 0 with its own path in
 * o->scratch and *own its record, an orphan of its own.
 */
static int crc_of_last(orphan_run *o, const zb_pathrec *listed,
                       zb_pathrec *own)
{
    size_t n = listed->len - 1;       /* without the byte 1 */

    if (o->last.len == n && memcmp(o->last.ptr, listed->path, n) == 0)
        return 1;
    if (zb_reach_crc_path(&o->scratch, o->ctx, listed->path, n) < 0)
        return -1;
    *own = *listed;
    own->path = o->scratch.ptr;
    own->len = o->scratch.len;
    return 0;
}

static int join_fn(const zb_pathrec *listed, const zb_pathrec *refd,
                   void *payload)
{
    orphan_run *o = payload;
    zb_remove_orphans_result *r = o->r;
    zb_pathrec own;

    if (listed != NULL && (listed->tag & ZB_REACH_CRC)) {
        int k = crc_of_last(o, listed, &own);

        if (k < 0)
            return o->ctx->err.code;
        if (k == 1)
            return ZB_OK;
        listed = &own;
    } else {
        const zb_pathrec *p = listed ? listed : refd;

        zb_buf_clear(&o->last);
        if (zb_buf_append(&o->last, p->path, p->len) < 0)
            return zb_fail_oom(o->ctx);
    }

    if (refd != NULL && (refd->tag & (ZB_REACH_LIST | ZB_REACH_MANIFEST |
                                      ZB_REACH_DATA | ZB_REACH_DELETE)) &&
        under_roots(o, refd->path))
        o->snap_files_under++;
    if (refd != NULL && (refd->tag & ZB_REACH_METADATA) &&
        under_roots(o, refd->path))
        o->metadata_under = 1;
    if (listed != NULL) {
        r->files_scanned++;
        if (refd != NULL) {
            r->files_referenced++;
            return ZB_OK;
        }
        r->files_unreferenced++;
        if (listed->mtime_ms < o->cutoff_ms) {
            r->files_deleted++;
            r->bytes_deleted += listed->size_bytes;
            return zb_pathfile_write(o->del, o->ctx, listed);
        }
        r->files_left++;
        r->bytes_left += listed->size_bytes;
        return ZB_OK;
    }
    if ((refd->tag & ZB_REACH_REQUIRED) && under_roots(o, refd->path)) {
        if (r->refs_missing++ == 0)
            snprintf(o->first_missing, sizeof o->first_missing, "%s",
                     refd->path);
    }
    return ZB_OK;
}

static int safety_checks(orphan_run *o)
{
    const zb_remove_orphans_result *r = o->r;

    if (r->refs_missing > 0)
        return zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: "
                       "%llu referenced file(s) missing from the listing of "
                       "%s, such as %s", o->t->ident,
                       (unsigned long long)r->refs_missing, o->roots[0],
                       o->first_missing);
    if (o->t->meta->n_snapshots > 0 && o->snap_files_under == 0)
        return zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: "
                       "the table has %zu snapshot(s) but none of their "
                       "manifest lists, manifests or data files lies under "
                       "%s", o->t->ident, o->t->meta->n_snapshots,
                       o->roots[0]);
    if (!o->metadata_under)
        return zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: "
                       "the current metadata file %s is not under %s",
                       o->t->ident, o->t->metadata_location, o->roots[0]);
    return ZB_OK;
}

static int run(orphan_run *o, const zb_op_target *t,
               const zb_remove_orphans_opts *opts)
{
    const char *p;
    zb_pathsort *list = NULL, *reach = NULL;
    uint64_t mem = opts && opts->max_memory_bytes ? opts->max_memory_bytes
                                                  : DEFAULT_MEMORY;
    zb_reach_deleted del;
    int rc;

    if ((rc = add_root(o, o->t->root, 0)) < 0)
        return rc;
    /* Only the table's location is listed, as Iceberg does: a
     * write.data.path or write.metadata.path outside it is often shared
     * by several tables, whose files this table does not know. */
    if ((p = ice_metadata_property(o->t->meta, ICE_PROP_DATA_PATH)) &&
        (rc = note_outside_root(o, ICE_PROP_DATA_PATH, p)) < 0)
        return rc;
    if ((p = ice_metadata_property(o->t->meta, ICE_PROP_METADATA_PATH)) &&
        (rc = note_outside_root(o, ICE_PROP_METADATA_PATH, p)) < 0)
        return rc;
    if ((rc = check_other_tables(o)) < 0)
        return rc;
    if ((rc = zb_pathsort_new_in(&list, o->ctx, "orphans", mem / 3,
                                 &o->mem)) < 0 ||
        (rc = zb_pathsort_new_in(&reach, o->ctx, "orphans", mem / 3,
                                 &o->mem)) < 0 ||
        (rc = zb_pathfile_open(&o->del, o->ctx, "orphans")) < 0 ||
        (rc = list_roots(o, list)) < 0 ||
        (rc = zb_catalog_load_table(o->cat, o->ctx, o->ident, &o->fresh)) <
            0)
        goto done;
    o->t = o->fresh;     /* what was committed until the listing ended */
    /* a metadata file named as the table is the newest no more once a
     * writer committed: its state would miss the writer's files (a dry
     * run too: it would list them as orphans) */
    if ((rc = zb_catalog_check_current(o->cat, o->ctx, o->ident)) < 0)
        goto done;
    if ((rc = reach_all(o, reach, mem / 3)) < 0 ||
        (rc = zb_pathsort_finish(list, o->ctx)) < 0 ||
        (rc = zb_pathsort_finish(reach, o->ctx)) < 0 ||
        (rc = zb_reach_join(o->ctx, zb_pathsort_next_cb, list,
                            zb_pathsort_next_cb, reach, join_fn, o)) < 0)
        goto done;
    zb_pathsort_free(list);
    zb_pathsort_free(reach);
    list = reach = NULL;
    zb_pathmem_release(&o->mem);
    if ((rc = safety_checks(o)) == ZB_OK && o->unreadable[0] != '\0')
        rc = zb_fail(o->ctx, ZB_EUNSAFE, "%s: aborted, nothing deleted: the "
                     "files of a %s are unknown", o->t->ident, o->unreadable);
    if (rc < 0) {
        o->r->files_deleted = o->r->bytes_deleted = 0;
        goto done;
    }
    if (t->dry_run || o->r->files_deleted == 0)
        goto done;
    if ((rc = zb_reach_delete_stage(&del, o->del, o->io, o->ctx,
                                    opts ? opts->delete_threads : 0,
                                    ZB_PROGRESS_ORPHANS_FILES)) < 0)
        goto done;
    o->r->files_deleted = del.files;
    o->r->bytes_deleted = del.bytes;
    o->r->files_not_deleted = del.failed;
    memcpy(o->r->first_error, del.first_error, sizeof o->r->first_error);
done:
    zb_pathsort_free(list);
    zb_pathsort_free(reach);
    zb_pathmem_release(&o->mem);
    return rc;
}

int zb_remove_orphans(const zb_op_target *t, zb_ctx *ctx,
                      const zb_remove_orphans_opts *opts,
                      zb_remove_orphans_result *r)
{
    orphan_run o;
    zb_table *tab = NULL;
    int64_t now = t && t->now_ms > 0 ? t->now_ms : clock_ms();
    int64_t guard;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && r);
    memset(r, 0, sizeof *r);
    memset(&o, 0, sizeof o);
    o.read_threads = opts ? opts->read_threads : 1;
    {
        zb_tset_value v;

        (void)zb_tset_resolve(&v, NULL, ZB_TSET_ORPHAN_AGE,
                              opts ? opts->older_than_ms : ZB_UNSET, NULL,
                              NULL);
        guard = v.value;
    }
    r->older_than_ms = guard;

    if (guard < ZB_ORPHANS_MIN_AGE_MS && !(opts && opts->force))
        return zb_fail(ctx, ZB_EREFUSED, "%s: an age guard of %lld ms is "
                       "below 24 hours: files that a running job has written "
                       "but not committed yet could be deleted (force it to "
                       "go ahead)", t->ident, (long long)guard);
    if ((rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &tab)) < 0)
        return rc;
    {
        /* As Iceberg refuses: with gc.enabled=false the table's files may
         * be shared with other tables. */
        const char *gc = ice_metadata_property(tab->meta, "gc.enabled");
        /* Java's Boolean.parseBoolean: anything but "true" is false. */
        if (gc != NULL && strcasecmp(gc, "true") != 0) {
            zb_table_free(tab);
            return zb_fail(ctx, ZB_EREFUSED, "%s: gc.enabled=false: its "
                           "files may be shared with other tables, so no "
                           "orphan is removed", t->ident);
        }
    }
    zb_buf_init(&o.last, ZB_REACH_MAX_PATH + 8);
    zb_buf_init(&o.scratch, ZB_REACH_MAX_PATH + 8);
    o.t = tab;
    o.ident = t->ident;
    o.cat = t->catalog;
    o.io = t->io;
    o.ctx = ctx;
    o.r = r;
    o.cutoff_ms = now - guard;
    rc = run(&o, t, opts);
    for (i = 0; i < o.n_roots; i++)
        zb_free(o.roots[i]);
    zb_pathfile_free(o.del);
    zb_buf_free(&o.last);
    zb_buf_free(&o.scratch);
    zb_table_free(o.fresh);
    zb_table_free(tab);
    return rc;
}

/* "3-day", "12-hour", "90-minute", "500-ms". */
static void guard_text(char *out, size_t n, int64_t ms)
{
    if (ms > 0 && ms % 86400000 == 0)
        snprintf(out, n, "%lld-day", (long long)(ms / 86400000));
    else if (ms > 0 && ms % 3600000 == 0)
        snprintf(out, n, "%lld-hour", (long long)(ms / 3600000));
    else if (ms > 0 && ms % 60000 == 0)
        snprintf(out, n, "%lld-minute", (long long)(ms / 60000));
    else
        snprintf(out, n, "%lld-ms", (long long)ms);
}

int zb_remove_orphans_report(zb_buf *out, const char *table,
                             const zb_remove_orphans_result *r, int dry_run)
{
    char sz[32], g[32];
    int e = 0;

    e |= zb_buf_appendf(out, "%s: scanned %llu file(s), %llu referenced, "
                        "%llu unreferenced\n", table,
                        (unsigned long long)r->files_scanned,
                        (unsigned long long)r->files_referenced,
                        (unsigned long long)r->files_unreferenced);
    zb_str_format_bytes(sz, sizeof sz, r->bytes_deleted);
    e |= zb_buf_appendf(out, "  %s %llu file(s) (%s)\n",
                        dry_run ? "would delete" : "deleted",
                        (unsigned long long)r->files_deleted, sz);
    if (r->files_left > 0) {
        zb_str_format_bytes(sz, sizeof sz, r->bytes_left);
        guard_text(g, sizeof g, r->older_than_ms);
        e |= zb_buf_appendf(out, "  %llu file(s) (%s) left in place: younger "
                            "than the %s age guard\n",
                            (unsigned long long)r->files_left, sz, g);
    }
    if (r->files_not_deleted > 0)
        e |= zb_buf_appendf(out, "  %llu file(s) could not be deleted\n",
                            (unsigned long long)r->files_not_deleted);
    return e ? ZB_ENOMEM : ZB_OK;
}
