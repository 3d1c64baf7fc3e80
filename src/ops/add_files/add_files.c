/*
 * ops/add_files/add_files.c - `zamboni add-files`: existing Parquet files
 * become data files of a table in one append (ops/add_files/add_files.h says
 * what is checked and refused). Order: list the source; load the table (or,
 * with create, build its first metadata in memory from the first file); read
 * every footer, map its columns, make its metrics and partition values; refuse
 * duplicates; then, unless dry run, create the table and commit. The listing is
 * add_files_list.c's, create's first metadata add_files_create.c's, each file's
 * description add_files_describe.c's.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#define ZB_MODULE "add-files"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/add_files/add_files.h"
#include "ops/add_files/add_files_int.h"
#include "ops/reachable/reachable_files.h"
#include "ops/ingest/table_write.h"
#include "catalog/catalog_retry.h"
#include "table/commit/commit.h"
#include "table/metrics/file_metrics.h"
#include "table/value/transform.h"
#include "util/alloc.h"
#include "util/err.h"

#define AF_ARENA_MAX ((size_t)1 << 30)

/* ---- duplicates ---- */

static int cmp_norm(const void *a, const void *b)
{
    return strcmp(((const af_norm *)a)->norm, ((const af_norm *)b)->norm);
}

static int cmp_norm_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const af_norm *)elem)->norm);
}

/* The normalized paths of the files, sorted: run->norms. */
static int make_norms(af_run *run)
{
    zb_buf b = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    size_t i;
    int rc = ZB_OK;

    if ((run->norms = zb_calloc(run->n_src + 1, sizeof *run->norms)) == NULL)
        return zb_fail_oom(run->ctx);
    for (i = 0; i < run->n_src && rc == ZB_OK; i++) {
        if ((rc = zb_reach_normalize(&b, run->ctx, run->src[i].uri)) < 0)
            break;
        run->norms[i].src = &run->src[i];
        if ((run->norms[i].norm = zb_arena_strdup(run->arena,
                                                  zb_buf_cstr(&b))) == NULL)
            rc = zb_fail_oom(run->ctx);
    }
    zb_buf_free(&b);
    if (rc == ZB_OK)
        qsort(run->norms, run->n_src, sizeof *run->norms, cmp_norm);
    return rc;
}

/* Files of run that name the same file twice among themselves. */
static int refuse_repeats(af_run *run)
{
    size_t i;

    if (run->o->allow_duplicates)
        return ZB_OK;
    for (i = 1; i < run->n_src; i++)
        if (strcmp(run->norms[i].norm, run->norms[i - 1].norm) == 0)
            return zb_fail(run->ctx, ZB_EREFUSED, "%s and %s are the same "
                           "file; --allow-duplicates adds it twice",
                           run->norms[i - 1].src->uri,
                           run->norms[i].src->uri);
    return ZB_OK;
}

/* Files of run already live in t: *n_dup and the first one's path. The
 * table's paths are resolved (its remaps) and both sides normalized, so
 * that /x/a.parquet, file:/x/a.parquet and file:///x/a.parquet meet. */
static int find_duplicates(af_run *run, const zb_table *t, size_t *n_dup,
                           const char **first)
{
    const ice_snapshot *snap = ice_metadata_current_snapshot(t->meta);
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    zb_buf resolved = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    zb_buf norm = ZB_BUF_INIT(ZB_REACH_MAX_PATH);
    int rc;

    *n_dup = 0;
    *first = NULL;
    if (snap == NULL)
        return ZB_OK;
    if ((rc = ice_snapshot_iter_open(&it, run->t->io, run->ctx, t->meta,
                                     snap, &t->paths)) < 0)
        return rc;
    while ((rc = ice_snapshot_iter_next(it, run->ctx, &e, &mf)) > 0) {
        const af_norm *hit;

        if (e->data_file.content != ICE_CONTENT_DATA)
            continue;
        if ((rc = zb_table_resolve(&resolved, run->ctx, t,
                                   e->data_file.file_path)) < 0 ||
            (rc = zb_reach_normalize(&norm, run->ctx,
                                     zb_buf_cstr(&resolved))) < 0)
            break;
        hit = bsearch(zb_buf_cstr(&norm), run->norms, run->n_src,
                      sizeof *run->norms, cmp_norm_key);
        if (hit != NULL) {
            if (*first == NULL)
                *first = hit->src->uri;
            (*n_dup)++;
        }
    }
    ice_snapshot_iter_free(it);
    zb_buf_free(&resolved);
    zb_buf_free(&norm);
    return rc < 0 ? rc : ZB_OK;
}

static int refuse_duplicates(af_run *run, const zb_table *t)
{
    const char *first;
    size_t n;
    int rc;

    if (run->o->allow_duplicates)
        return ZB_OK;
    if ((rc = find_duplicates(run, t, &n, &first)) < 0)
        return rc;
    if (n > 0)
        return zb_fail(run->ctx, ZB_EREFUSED, "%zu of the files are data "
                       "files of %s already (%s%s); --allow-duplicates adds "
                       "them again", n, t->ident, first,
                       n > 1 ? ", ..." : "");
    return ZB_OK;
}

/* ---- the commit ---- */

typedef struct af_commit {
    af_run *run;
    ice_commit_op *op;
    ice_commit_result r;
    const char *planned;           /* metadata the files were checked on */
    int32_t schema_id, spec_id;
    const char *mapping_text;      /* to set when the table has none */
} af_commit;

static int build_attempt(zb_json **reqs, zb_json **updates, zb_ctx *ctx,
                         const zb_table *t, void *payload)
{
    af_commit *c = payload;
    json_t *q = NULL, *u = NULL;
    int rc;

    ice_commit_result_free(&c->r);
    c->r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
    if (t->meta->current_schema_id != c->schema_id ||
        t->meta->default_spec_id != c->spec_id)
        return zb_fail(ctx, ZB_EREFUSED, "%s: its schema or partition spec "
                       "changed while the files were checked; run add-files "
                       "again", t->ident);
    if (strcmp(t->metadata_location, c->planned) != 0 &&
        (rc = refuse_duplicates(c->run, t)) < 0)
        return rc;
    if ((rc = ice_commit_op_build(c->op, ctx, t->meta, &c->r)) < 0)
        return rc;
    q = c->r.requirements ? json_copy((json_t *)c->r.requirements)
                          : json_array();
    u = c->r.updates ? json_copy((json_t *)c->r.updates) : json_array();
    if (q == NULL || u == NULL ||
        json_array_append_new(q, json_pack("{s:s, s:i}", "type",
                                           "assert-current-schema-id",
                                           "current-schema-id",
                                           (int)c->schema_id)) < 0 ||
        json_array_append_new(q, json_pack("{s:s, s:i}", "type",
                                           "assert-default-spec-id",
                                           "default-spec-id",
                                           (int)c->spec_id)) < 0 ||
        (c->mapping_text != NULL &&
         ice_metadata_property(t->meta, NAME_MAPPING) == NULL &&
         json_array_append_new(u, json_pack("{s:s, s:{s:s}}", "action",
                                            "set-properties", "updates",
                                            NAME_MAPPING,
                                            c->mapping_text)) < 0)) {
        json_decref(q);
        json_decref(u);
        return zb_fail_oom(ctx);
    }
    *reqs = (zb_json *)q;
    *updates = (zb_json *)u;
    return ZB_OK;
}

static void drop_attempt(zb_ctx *ctx, const zb_table *t, void *payload)
{
    af_commit *c = payload;

    (void)t;
    ice_commit_result_delete_files(&c->r, c->run->t->io, ctx);
    ice_commit_result_free(&c->r);
    c->r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
}

static int commit(af_run *run, const zb_table *t, const char *mapping_text,
                  zb_add_files_result *res)
{
    zb_ctx *ctx = run->ctx;
    ice_commit_op_opts o = ICE_COMMIT_OP_OPTS_INIT;
    zb_catalog_retry_opts ro = ZB_CATALOG_RETRY_OPTS_INIT;
    zb_table *next = NULL;
    af_commit c;
    char count[32];
    size_t i;
    int rc;

    memset(&c, 0, sizeof c);
    c.run = run;
    c.r = (ice_commit_result)ICE_COMMIT_RESULT_INIT;
    c.planned = t->metadata_location;
    c.schema_id = t->meta->current_schema_id;
    c.spec_id = t->meta->default_spec_id;
    c.mapping_text = mapping_text;
    o.kind = ICE_OP_APPEND;
    o.io = run->t->io;
    o.root = t->root;
    o.paths = &t->paths;
    if ((rc = ice_commit_op_new(&c.op, ctx, &o)) < 0)
        return rc;
    snprintf(count, sizeof count, "%zu", run->n_files);
    for (i = 0; i < run->n_files && rc == ZB_OK; i++)
        rc = ice_commit_op_add_file(c.op, ctx, c.spec_id, &run->files[i]);
    if (rc == ZB_OK)
        rc = ice_commit_op_set_summary(c.op, ctx, "zamboni.add-files",
                                       count);
    if (rc == ZB_OK) {
        ro.cleanup = drop_attempt;
        rc = zb_catalog_commit_retry(run->t->catalog, ctx, t->ident,
                                     build_attempt, &c, &ro, &next);
    }
    if (rc == ZB_OK)
        res->snapshot_id = c.r.snapshot_id;
    zb_table_free(next);
    ice_commit_result_free(&c.r);
    ice_commit_op_free(c.op);
    return rc;
}

/* ---- the run ---- */

static int plan_init(af_plan *p, af_run *run, const ice_metadata *m)
{
    zb_ctx *ctx = run->ctx;
    const char *nm = ice_metadata_property(m, NAME_MAPPING);
    json_error_t jerr;
    size_t i;
    int rc;

    memset(p, 0, sizeof *p);
    p->meta = m;
    p->schema = ice_metadata_current_schema(m);
    p->spec = ice_metadata_default_spec(m);
    if (p->schema == NULL || p->spec == NULL)
        return zb_fail(ctx, ZB_ECORRUPT, "%s: no current schema or default "
                       "partition spec", run->t->ident);
    if (p->spec->n_fields > sizeof p->tr / sizeof p->tr[0])
        return zb_fail(ctx, ZB_EUNSUPPORTED, "%s: more than %zu partition "
                       "fields", run->t->ident,
                       sizeof p->tr / sizeof p->tr[0]);
    for (i = 0; i < p->spec->n_fields; i++)
        if ((rc = ice_transform_parse(&p->tr[i], ctx,
                                      p->spec->fields[i].transform)) < 0)
            return rc;
    if (nm != NULL) {
        if ((p->mapping = json_loads(nm, 0, &jerr)) == NULL ||
            !json_is_array(p->mapping))
            return zb_fail(ctx, ZB_ECORRUPT, "%s: table property %s is not "
                           "a JSON list (%s)", run->t->ident, NAME_MAPPING,
                           p->mapping ? "not a list" : jerr.text);
    } else if ((p->mapping = zb_af__name_mapping(p->schema)) == NULL) {
        return zb_fail_oom(ctx);
    }
    ice_metrics_config_init(&p->cfg, p->schema,
                            ice_metadata_sort_order(m,
                                                    m->default_sort_order_id),
                            m->properties, m->n_properties);
    p->full_kv[0].key = "write.metadata.metrics.default";
    p->full_kv[0].value = "full";
    ice_metrics_config_init(&p->cfg_full, p->schema, NULL, p->full_kv, 1);
    return ZB_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct partition tuples among the files. */
static int count_partitions(af_run *run, uint64_t *out)
{
    const char **keys;
    size_t i, j;

    *out = 0;
    if (run->n_files == 0)
        return ZB_OK;
    if ((keys = zb_calloc(run->n_files, sizeof *keys)) == NULL)
        return zb_fail_oom(run->ctx);
    for (i = 0; i < run->n_files; i++) {
        const ice_data_file *f = &run->files[i];
        zb_buf b = ZB_BUF_INIT(1 << 16);

        int bad = 0;

        for (j = 0; j < f->n_partition && !bad; j++)
            bad = zb_buf_putc(&b, '/') < 0 ||
                  ice_value_to_human(&b, run->ctx, &f->partition[j]) < 0;
        keys[i] = bad ? NULL : zb_arena_strdup(run->arena, zb_buf_cstr(&b));
        zb_buf_free(&b);
        if (keys[i] == NULL) {
            zb_free(keys);
            return zb_fail_oom(run->ctx);
        }
    }
    qsort(keys, run->n_files, sizeof *keys, cmp_str);
    for (i = 0; i < run->n_files; i++)
        *out += i == 0 || strcmp(keys[i], keys[i - 1]) != 0;
    zb_free(keys);
    return ZB_OK;
}

int zb_add_files(const zb_op_target *t, zb_ctx *ctx,
                 const zb_add_files_opts *o, zb_add_files_result *res)
{
    af_run run;
    af_plan plan;
    zb_table *table = NULL;
    ice_metadata *created = NULL;
    const char *mapping_text = NULL;
    pq_reader *first = NULL;
    size_t i;
    int rc;

    ZB_ASSERT_ARG(t && t->catalog && t->io && t->ident && ctx && o && res);
    memset(res, 0, sizeof *res);
    memset(&run, 0, sizeof run);
    memset(&plan, 0, sizeof plan);
    run.t = t;
    run.ctx = ctx;
    run.o = o;
    if (o->source == NULL || o->source[0] == '\0')
        return zb_fail(ctx, ZB_EUSAGE, "add-files needs a source");
    if (o->partition_by != NULL && !o->create)
        return zb_fail(ctx, ZB_EUSAGE, "--partition-by is for --create (an "
                       "existing table keeps its partition spec)");
    if (zb_arena_new(&run.arena, AF_ARENA_MAX) < 0)
        return zb_fail_oom(ctx);
    if ((rc = zb_af__list_source(&run)) < 0)
        goto done;
    res->files_skipped = run.skipped;

    rc = zb_catalog_load_table(t->catalog, ctx, t->ident, &table);
    if (o->create) {
        if (rc == ZB_OK) {
            rc = zb_fail(ctx, ZB_EREFUSED, "%s exists already: add-files "
                         "--create makes a new table (leave --create out "
                         "to add to it)", t->ident);
            goto done;
        }
        if (rc != ZB_ENOTFOUND)
            goto done;
        zb_err_clear(&ctx->err);
        if ((rc = pq_reader_open(&first, t->io, ctx, run.src[0].uri,
                                 NULL)) < 0 ||
            (rc = zb_af__build_create(&created, &run,
                                      pq_reader_schema(first))) < 0)
            goto done;
        res->created = 1;
        res->mapping_set = 1;
    } else if (rc < 0) {
        if (rc == ZB_ENOTFOUND)
            zb_err_prefix(ctx, "add-files --create makes a new table");
        goto done;
    }
    if ((rc = plan_init(&plan, &run, created ? created : table->meta)) < 0)
        goto done;
    if (!created && ice_metadata_property(table->meta, NAME_MAPPING) == NULL) {
        if ((mapping_text = zb_af__dump_json(run.arena, plan.mapping)) ==
            NULL) {
            rc = zb_fail_oom(ctx);
            goto done;
        }
        res->mapping_set = 1;
    }

    /* Every footer is read and every file checked before any commit. */
    if ((run.files = zb_calloc(run.n_src, sizeof *run.files)) == NULL) {
        rc = zb_fail_oom(ctx);
        goto done;
    }
    for (i = 0; i < run.n_src; i++) {
        if (zb_ctx_stopped(ctx)) {
            rc = zb_fail(ctx, ZB_ECANCELED, "add-files: stopped");
            goto done;
        }
        if ((rc = zb_af__describe_file(&run.files[i], &run, &plan,
                                &run.src[i])) < 0)
            goto done;
        run.n_files++;
        res->rows_added += (uint64_t)run.files[i].record_count;
        res->bytes_added += (uint64_t)run.files[i].file_size_in_bytes;
    }
    if ((rc = count_partitions(&run, &res->partitions)) < 0 ||
        (rc = make_norms(&run)) < 0 || (rc = refuse_repeats(&run)) < 0)
        goto done;
    if (table != NULL && (rc = refuse_duplicates(&run, table)) < 0)
        goto done;
    res->files_added = run.n_files;
    if (t->dry_run)
        goto done;

    if (created != NULL) {
        const char *loc = zb_catalog_get_kind(t->catalog) == ZB_CATALOG_PATH
                              ? t->ident : NULL;
        if ((rc = zb_catalog_create_table(t->catalog, ctx, t->ident, loc,
                                          created, &table)) < 0) {
            zb_err_prefix(ctx, "creating %s", t->ident);
            goto done;
        }
    }
    rc = commit(&run, table, mapping_text, res);
    if (rc < 0)
        zb_err_prefix(ctx, "%s: committing %zu file(s)%s", t->ident,
                      run.n_files, created ? " (the table was created "
                                             "empty)" : "");
done:
    if (rc < 0)
        res->files_added = 0;
    json_decref(plan.mapping);
    pq_reader_free(first);
    ice_metadata_free(created);
    zb_table_free(table);
    zb_free(run.files);
    zb_free(run.norms);
    zb_free(run.src);
    zb_arena_free(run.arena);
    return rc;
}

int zb_add_files_report(zb_buf *out, const char *table,
                        const zb_add_files_result *r, int dry_run)
{
    int rc;

    if (r->created &&
        (rc = zb_buf_appendf(out, "%s: %s the table from the files' "
                             "schema\n", table,
                             dry_run ? "would create" : "created")) < 0)
        return rc;
    if ((rc = zb_buf_appendf(out, "%s: %s %llu file(s), %llu rows, %llu "
                             "bytes in %llu partition(s)\n", table,
                             dry_run ? "would add" : "added",
                             (unsigned long long)r->files_added,
                             (unsigned long long)r->rows_added,
                             (unsigned long long)r->bytes_added,
                             (unsigned long long)r->partitions)) < 0)
        return rc;
    if (r->files_skipped > 0 &&
        (rc = zb_buf_appendf(out, "  skipped %llu file(s) that are not "
                             "Parquet or are hidden\n",
                             (unsigned long long)r->files_skipped)) < 0)
        return rc;
    if (r->mapping_set && !r->created &&
        (rc = zb_buf_appendf(out, "  %s schema.name-mapping.default from "
                             "the current schema\n",
                             dry_run ? "would set" : "set")) < 0)
        return rc;
    if (!dry_run && r->snapshot_id != 0)
        rc = zb_buf_appendf(out, "  snapshot %lld\n",
                            (long long)r->snapshot_id);
    return rc < 0 ? rc : ZB_OK;
}
