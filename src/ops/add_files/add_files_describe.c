/*
 * ops/add_files/add_files_describe.c - one source file as a data file
 * (see add_files.c): its footer read and its columns mapped to the
 * table's schema, its metrics, and its partition values from its column
 * bounds or its Hive directories, checked against each other and the
 * spec.
 */
#define ZB_MODULE "add-files"

#include <string.h>

#include "ops/add_files/add_files_int.h"
#include "util/alloc.h"
#include "util/err.h"

/* ---- each file ---- */

static const ice_column_metrics *column_of(const ice_data_file_metrics *dm,
                                           int32_t id)
{
    size_t i;

    for (i = 0; i < dm->n_columns; i++)
        if (dm->columns[i].field_id == id)
            return &dm->columns[i];
    return NULL;
}

/* Whether a transform keeps order (a <= b gives t(a) <= t(b)), so that
 * equal transforms of the bounds mean one partition for the whole file. */
static int keeps_order(ice_transform_kind k)
{
    return k == ICE_TR_IDENTITY || k == ICE_TR_TRUNCATE ||
           k == ICE_TR_YEAR || k == ICE_TR_MONTH || k == ICE_TR_DAY ||
           k == ICE_TR_HOUR;
}

/* One partition value from the source column's whole bounds. */
static int value_from_stats(ice_value *out, af_run *run, const af_plan *p,
                            const af_src *s, size_t i,
                            const ice_data_file_metrics *dm)
{
    zb_ctx *ctx = run->ctx;
    const ice_partition_field *pf = &p->spec->fields[i];
    const ice_type *st = ice_schema_find_type(p->schema, pf->source_id);
    const ice_column_metrics *c = column_of(dm, pf->source_id);
    ice_value lo, hi, tlo, thi;
    ice_prim rp;
    int rc;

    if ((rc = ice_transform_result_type(&rp, ctx, &p->tr[i], &st->prim)) < 0)
        return rc;
    if (c == NULL || !c->has_value_count)
        return zb_fail(ctx, ZB_EREFUSED, "%s: partition field %s: the file "
                       "has no column for field %d and no %s=VALUE "
                       "directory", s->uri, pf->name, (int)pf->source_id,
                       pf->name);
    if (c->lower == NULL || c->upper == NULL) {
        if (c->has_null_count && c->null_count == c->value_count) {
            *out = ice_value_null(rp.id);
            return ZB_OK;
        }
        return zb_fail(ctx, ZB_EREFUSED, "%s: partition field %s: no "
                       "statistics for its source column to take the "
                       "value from", s->uri, pf->name);
    }
    if ((rc = ice_value_from_bytes(&lo, ctx, &st->prim, c->lower,
                                   c->lower_len)) < 0 ||
        (rc = ice_value_from_bytes(&hi, ctx, &st->prim, c->upper,
                                   c->upper_len)) < 0)
        return zb_err_prefix(ctx, "%s: partition field %s", s->uri,
                             pf->name);
    /* The bounds' transforms tell the partition of every value between
     * them only when the transform keeps order; bucket (and any other)
     * does not: then the column must hold one value. */
    if (!keeps_order(p->tr[i].kind) && ice_value_cmp(&lo, &hi) != 0)
        return zb_fail(ctx, ZB_EREFUSED, "%s: partition field %s: its "
                       "column holds several values and transform %s does "
                       "not keep order, so the file's partition cannot be "
                       "told from its bounds; a data file must hold one "
                       "partition", s->uri, pf->name, pf->transform);
    if ((rc = ice_transform_apply(&tlo, ctx, &p->tr[i], &lo)) < 0 ||
        (rc = ice_transform_apply(&thi, ctx, &p->tr[i], &hi)) < 0)
        return zb_err_prefix(ctx, "%s: partition field %s", s->uri,
                             pf->name);
    if (ice_value_cmp(&tlo, &thi) != 0 ||
        (c->has_null_count && c->null_count > 0)) {
        zb_buf a = ZB_BUF_INIT(256), b = ZB_BUF_INIT(256);
        ice_transform_to_human(&a, ctx, &p->tr[i], &tlo);
        ice_transform_to_human(&b, ctx, &p->tr[i], &thi);
        rc = zb_fail(ctx, ZB_EREFUSED, "%s: its rows span several "
                     "partitions of field %s (%s to %s%s); a data file "
                     "must hold one partition", s->uri, pf->name,
                     zb_buf_cstr(&a), zb_buf_cstr(&b),
                     c->has_null_count && c->null_count > 0
                         ? ", and nulls" : "");
        zb_buf_free(&a);
        zb_buf_free(&b);
        return rc;
    }
    *out = tlo;
    return ZB_OK;
}

/* A directory's value against the column's bounds, when the file holds
 * the column: both bounds must equal it (or the column be all null for a
 * null directory). */
static int check_path_value(af_run *run, const af_plan *p, const af_src *s,
                            size_t i, const ice_data_file_metrics *dm,
                            const ice_value *v, const char *text)
{
    zb_ctx *ctx = run->ctx;
    const ice_partition_field *pf = &p->spec->fields[i];
    const ice_type *st = ice_schema_find_type(p->schema, pf->source_id);
    const ice_column_metrics *c = column_of(dm, pf->source_id);
    ice_value lo, hi;
    int rc;

    if (c == NULL || !c->has_value_count)
        return ZB_OK;              /* the usual case: not in the file */
    if (c->lower == NULL || c->upper == NULL) {
        int all_null = c->has_null_count && c->null_count == c->value_count;
        if (v->is_null || !all_null)
            return ZB_OK;          /* nothing to compare with */
        return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s, but its "
                       "column holds only nulls", s->uri, pf->name, text);
    }
    if ((rc = ice_value_from_bytes(&lo, ctx, &st->prim, c->lower,
                                   c->lower_len)) < 0 ||
        (rc = ice_value_from_bytes(&hi, ctx, &st->prim, c->upper,
                                   c->upper_len)) < 0)
        return zb_err_prefix(ctx, "%s: column of %s", s->uri, pf->name);
    if (v->is_null || ice_value_cmp(&lo, v) != 0 || ice_value_cmp(&hi, v) != 0)
        return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s does not "
                       "match the values of its column in the file",
                       s->uri, pf->name, text ? text : HIVE_NULL);
    return ZB_OK;
}

static int partition_of(ice_data_file *df, af_run *run, const af_plan *p,
                        const af_src *s, const pq_write_result *res)
{
    zb_ctx *ctx = run->ctx;
    const ice_partition_spec *spec = p->spec;
    ice_data_file_metrics dm;
    int have_dm = 0;
    af_kv kv[AF_MAX_KEYS];
    size_t n_kv, i;
    ice_value *vals;
    const char **names;
    int32_t *ids;
    int rc;

    df->n_partition = spec->n_fields;
    if (spec->n_fields == 0)
        return ZB_OK;
    if ((rc = zb_af__hive_keys(kv, &n_kv, run->arena, ctx, s->rel)) < 0)
        return rc;
    vals = zb_arena_calloc(run->arena, spec->n_fields, sizeof *vals);
    names = zb_arena_calloc(run->arena, spec->n_fields, sizeof *names);
    ids = zb_arena_calloc(run->arena, spec->n_fields, sizeof *ids);
    if (vals == NULL || names == NULL || ids == NULL)
        return zb_fail_oom(ctx);
    for (i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *pf = &spec->fields[i];
        const ice_field *sf = ice_schema_find_field(p->schema, pf->source_id);
        const ice_type *st = ice_schema_find_type(p->schema, pf->source_id);
        const char *v;
        int found = 0;

        names[i] = pf->name;
        ids[i] = pf->field_id;
        if (st == NULL || st->id >= ICE_STRUCT)
            return zb_fail(ctx, ZB_EREFUSED, "partition field %s: source "
                           "field %d is not a primitive of the schema",
                           pf->name, (int)pf->source_id);
        if (p->tr[i].kind == ICE_TR_VOID) {
            ice_prim rp;
            if ((rc = ice_transform_result_type(&rp, ctx, &p->tr[i],
                                                &st->prim)) < 0)
                return rc;
            vals[i] = ice_value_null(rp.id);
            continue;
        }
        if (p->tr[i].kind == ICE_TR_UNKNOWN)
            return zb_fail(ctx, ZB_EUNSUPPORTED, "partition field %s: "
                           "transform %s is not known to this build",
                           pf->name, pf->transform);
        if (p->tr[i].kind == ICE_TR_IDENTITY) {
            v = zb_af__hive_find(kv, n_kv, pf->name, &found);
            if (!found && sf != NULL)
                v = zb_af__hive_find(kv, n_kv, sf->name, &found);
            if (found) {
                if (v == NULL) {
                    vals[i] = ice_value_null(st->id);
                } else if ((rc = ice_value_from_text(&vals[i], ctx,
                                                     run->arena, &st->prim,
                                                     v, strlen(v))) < 0) {
                    if (rc == ZB_ENOMEM)
                        return rc;
                    zb_err_clear(&ctx->err);
                    return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s "
                                   "is not a value of type %s", s->uri,
                                   pf->name, v, ice_type_name(st->id));
                }
                /* The column, when the file has it too, must agree. */
                if (!have_dm) {
                    if ((rc = ice_metrics_from_parquet(&dm, ctx, run->arena,
                                                       &p->cfg_full,
                                                       res)) < 0)
                        return rc;
                    have_dm = 1;
                }
                if ((rc = check_path_value(run, p, s, i, &dm, &vals[i],
                                           v)) < 0)
                    return rc;
                continue;
            }
        }
        if (!have_dm) {
            if ((rc = ice_metrics_from_parquet(&dm, ctx, run->arena,
                                               &p->cfg_full, res)) < 0)
                return rc;
            have_dm = 1;
        }
        if ((rc = value_from_stats(&vals[i], run, p, s, i, &dm)) < 0)
            return rc;
    }
    df->partition = vals;
    df->partition_names = names;
    df->partition_field_ids = ids;
    return ZB_OK;
}

/* Required top-level fields the file lacks (and no directory gives). */
static int check_required(af_run *run, const af_plan *p, const af_src *s,
                          const af_columns *cols)
{
    const ice_type *root = p->schema->root;
    af_kv kv[AF_MAX_KEYS];
    size_t n_kv, i, j;
    int rc, found;

    if ((rc = zb_af__hive_keys(kv, &n_kv, run->arena, run->ctx, s->rel)) < 0)
        return rc;
    for (i = 0; i < root->n_fields; i++) {
        const ice_field *f = &root->fields[i];
        int present = 0;

        if (!f->required)
            continue;
        for (j = 0; j < cols->n_top; j++)
            present |= cols->top_ids[j] == f->id;
        if (!present && (zb_af__hive_find(kv, n_kv, f->name, &found), !found))
            return zb_fail(run->ctx, ZB_EREFUSED, "%s: the table's required "
                           "column %s (field %d) is not in the file",
                           s->uri, f->name, (int)f->id);
    }
    return ZB_OK;
}

/* Whether a key=value directory gives an identity partition field's
 * value (partition_of takes it: the field's name or its column's). */
static int key_is_identity(const af_plan *p, const char *key)
{
    size_t i;

    for (i = 0; i < p->spec->n_fields; i++) {
        const ice_partition_field *pf = &p->spec->fields[i];
        const ice_field *sf;

        if (p->tr[i].kind != ICE_TR_IDENTITY)
            continue;
        sf = ice_schema_find_field(p->schema, pf->source_id);
        if (strcmp(pf->name, key) == 0 ||
            (sf != NULL && strcmp(sf->name, key) == 0))
            return 1;
    }
    return 0;
}

/*
 * key=value directories naming a top-level column that no identity
 * partition field takes: the directory's value would be lost (the column
 * reads what the file holds, null when it lacks it). Such a file is
 * refused unless it holds the column with every value equal to the
 * directory's (or lacks it and the directory says null).
 */
static int check_other_keys(af_run *run, const af_plan *p, const af_src *s,
                            const af_columns *cols, const pq_write_result *res)
{
    zb_ctx *ctx = run->ctx;
    const ice_type *root = p->schema->root;
    ice_data_file_metrics dm;
    int have_dm = 0;
    af_kv kv[AF_MAX_KEYS];
    size_t n_kv, k, i, j;
    int rc;

    if ((rc = zb_af__hive_keys(kv, &n_kv, run->arena, ctx, s->rel)) < 0)
        return rc;
    for (k = 0; k < n_kv; k++) {
        const char *text = kv[k].value ? kv[k].value : HIVE_NULL;
        const ice_field *f = NULL;
        const ice_column_metrics *c;
        ice_value v, lo, hi;
        const char *why = "";
        int in_file = 0, all_null;

        for (i = 0; i < root->n_fields && f == NULL; i++)
            if (strcmp(root->fields[i].name, kv[k].key) == 0)
                f = &root->fields[i];
        if (f == NULL || key_is_identity(p, kv[k].key))
            continue;
        for (j = 0; j < cols->n_top; j++)
            in_file |= cols->top_ids[j] == f->id;
        if (!in_file) {
            if (kv[k].value == NULL)
                continue;          /* the column reads null, as said */
            return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s names "
                           "column %s, which is not identity-partitioned "
                           "and not in the file: its value would be lost "
                           "(the column would read null)", s->uri,
                           kv[k].key, text, f->name);
        }
        if (f->type->id >= ICE_STRUCT)
            return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s names "
                           "column %s of type %s, which no directory value "
                           "can match", s->uri, kv[k].key, text, f->name,
                           ice_type_name(f->type->id));
        if (!have_dm) {
            if ((rc = ice_metrics_from_parquet(&dm, ctx, run->arena,
                                               &p->cfg_full, res)) < 0)
                return rc;
            have_dm = 1;
        }
        c = column_of(&dm, f->id);
        all_null = c != NULL && c->has_value_count && c->has_null_count &&
                   c->null_count == c->value_count;
        if (all_null && kv[k].value == NULL)
            continue;              /* all null, as the directory says */
        if (c == NULL || (!all_null && (c->lower == NULL ||
                                        c->upper == NULL)))
            why = " (the file has no statistics of it to check)";
        else if (kv[k].value != NULL && !all_null &&
                 (!c->has_null_count || c->null_count == 0)) {
            if ((rc = ice_value_from_text(&v, ctx, run->arena,
                                          &f->type->prim, kv[k].value,
                                          strlen(kv[k].value))) < 0) {
                if (rc == ZB_ENOMEM)
                    return rc;
                zb_err_clear(&ctx->err);
                return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s is "
                               "not a value of column %s's type %s",
                               s->uri, kv[k].key, text, f->name,
                               ice_type_name(f->type->id));
            }
            if ((rc = ice_value_from_bytes(&lo, ctx, &f->type->prim,
                                           c->lower, c->lower_len)) < 0 ||
                (rc = ice_value_from_bytes(&hi, ctx, &f->type->prim,
                                           c->upper, c->upper_len)) < 0)
                return zb_err_prefix(ctx, "%s: column %s", s->uri,
                                     f->name);
            if (ice_value_cmp(&lo, &v) == 0 && ice_value_cmp(&hi, &v) == 0)
                continue;
        }
        return zb_fail(ctx, ZB_EREFUSED, "%s: directory %s=%s names column "
                       "%s, which is not identity-partitioned, and the "
                       "file's values of it are not all %s%s", s->uri,
                       kv[k].key, text, f->name, text, why);
    }
    return ZB_OK;
}

int zb_af__describe_file(ice_data_file *df, af_run *run, const af_plan *p,
                         const af_src *s)
{
    zb_ctx *ctx = run->ctx;
    pq_reader *r = NULL;
    af_columns cols;
    pq_write_result res;
    ice_data_file_metrics dm;
    int rc;

    if ((rc = pq_reader_open(&r, run->t->io, ctx, s->uri, NULL)) < 0) {
        if (strstr(ctx->err.msg, s->uri) == NULL)
            zb_err_prefix(ctx, "%s", s->uri);
        return rc;
    }
    if ((rc = zb_af__map_columns(&cols, run->arena, ctx, s->uri,
                                 pq_reader_schema(r), p->schema,
                                 p->mapping)) < 0 ||
        (rc = check_required(run, p, s, &cols)) < 0 ||
        (rc = zb_af__footer_result(&res, run->arena, ctx, s->uri,
                                   pq_reader_meta(r), pq_reader_schema(r),
                                   cols.leaf_ids, s->size)) < 0 ||
        (rc = check_other_keys(run, p, s, &cols, &res)) < 0 ||
        (rc = ice_metrics_from_parquet(&dm, ctx, run->arena, &p->cfg,
                                       &res)) < 0 ||
        (rc = ice_data_file_from_metrics(df, ctx, run->arena, &dm,
                                         ICE_CONTENT_DATA, s->uri)) < 0 ||
        (rc = partition_of(df, run, p, s, &res)) < 0)
        goto done;
done:
    pq_reader_free(r);
    return rc;
}
