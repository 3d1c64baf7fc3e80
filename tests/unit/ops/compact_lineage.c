/*
 * tests/unit/ops/compact_lineage.c - v3 row lineage through compaction
 * (ops/compact/compact.h "Row lineage"): every live row's (_row_id,
 * _last_updated_sequence_number), read with the row stream's lineage
 * option, must be the same before and after a compaction, for binpack
 * (streamed, and row-group copied), sort, a file whose lineage columns
 * hold some nulls, and copies of the v3 fixtures. Independent facts:
 * generated tables are appends of `rows` rows with ids a * rows + i, so
 * before any rewrite a row's _row_id is its id and its sequence number
 * id / rows + 1; impala-v3-row-lineage holds i = 1, 2, 3 with row ids
 * 0, 1, 2 and sequence numbers 1, 2, 3 (its Java-compacted file's
 * columns, read with hyparquet). The new files carry the two columns
 * with no null, and the replace snapshot takes first-row-id from
 * next-row-id and advances it by added-rows. reset_row_lineage gives new
 * ids (no lineage columns in the new files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compact_test.h"
#include "exec/arrow/arrow.h"
#include "format/parquet/parquet.h"
#include "ops/ingest/table_write.h"
#include "plan/scan/scan_plan.h"
#include "plan/read/scan_read.h"
#include "util/alloc.h"

#define ROWS 50

typedef struct lrow {
    int64_t row_id, seq;           /* INT64_MIN: null */
    int64_t key;                   /* column "id" or "i", else -1 */
    uint64_t hash;                 /* the other columns' values */
} lrow;

static int valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;

    if (a->null_count == 0 || v == NULL)
        return 1;
    i += a->offset;
    return (v[i >> 3] >> (i & 7)) & 1;
}

static int64_t long_at(const struct ArrowArray *a, int64_t row)
{
    if (!valid_at(a, row))
        return INT64_MIN;
    return ((const int64_t *)a->buffers[1])[row + a->offset];
}

static int cmp_lrow(const void *x, const void *y)
{
    const lrow *a = x, *b = y;

    if (a->row_id != b->row_id)
        return a->row_id < b->row_id ? -1 : 1;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return 0;
}

/* The live rows of the current snapshot with their lineage (read with
 * lineage mode mode), sorted. */
static lrow *lineage_rows_as(of_env *e, size_t *n_out, int mode)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);
    zb_rowstream_opts ro = ZB_ROWSTREAM_OPTS_INIT;
    zb_rowstream *rs = NULL;
    zb_scan_task *tasks = NULL;
    zb_arena *arena = NULL;
    size_t n = 0, nr = 0, rcap = 0;
    lrow *rows = NULL;
    struct ArrowArray b;
    struct ArrowSchema sch;
    int rc;

    ZBT_CHECK(s != NULL);
    tasks = of_plan_tasks(e, t, s, &arena, &n);
    ro.meta = t->meta;
    ro.paths = &t->paths;
    ro.lineage = mode;
    ro.batch_rows = 7;             /* positions across several batches */
    ZBT_OK_CTX(zb_rowstream_open(&rs, e->io, &e->ctx, &ro, tasks, n),
               &e->ctx);
    while ((rc = zb_rowstream_next(rs, &e->ctx, &b, &sch)) == 1) {
        int64_t nc = b.n_children, r, c, key_col = -1;

        ZBT_CHECK(nc >= 2);
        ZBT_EQ_STR(sch.children[nc - 2]->name, "_row_id");
        ZBT_EQ_STR(sch.children[nc - 1]->name,
                   "_last_updated_sequence_number");
        ZBT_EQ_STR(sch.children[nc - 2]->format, "l");
        for (c = 0; c < nc - 2; c++)
            if ((strcmp(sch.children[c]->name, "id") == 0 &&
                 strcmp(sch.children[c]->format, "l") == 0) ||
                (strcmp(sch.children[c]->name, "i") == 0 &&
                 strcmp(sch.children[c]->format, "i") == 0))
                key_col = c;
        for (r = 0; r < b.length; r++) {
            lrow *x;
            uint64_t h = 14695981039346656037ull;

            if (nr == rcap) {
                rcap = rcap ? 2 * rcap : 64;
                ZBT_CHECK((rows = zb_realloc(rows, rcap * sizeof *rows)) !=
                          NULL);
            }
            x = &rows[nr++];
            for (c = 0; c < nc - 2; c++)
                h = of_hash_value(h, sch.children[c], b.children[c],
                              r + b.offset);
            x->hash = h;
            x->row_id = long_at(b.children[nc - 2], r + b.offset);
            x->seq = long_at(b.children[nc - 1], r + b.offset);
            x->key = -1;
            if (key_col >= 0) {
                const struct ArrowArray *ka = b.children[key_col];
                int64_t i = r + b.offset + ka->offset;

                x->key = sch.children[key_col]->format[0] == 'l'
                             ? ((const int64_t *)ka->buffers[1])[i]
                             : ((const int32_t *)ka->buffers[1])[i];
            }
        }
        b.release(&b);
        sch.release(&sch);
    }
    ZBT_OK_CTX(rc, &e->ctx);
    zb_rowstream_free(rs);
    zb_free(tasks);
    zb_arena_free(arena);
    zb_table_free(t);
    qsort(rows, nr, sizeof *rows, cmp_lrow);
    *n_out = nr;
    return rows;
}

static lrow *lineage_rows(of_env *e, size_t *n_out)
{
    return lineage_rows_as(e, n_out, ZB_LINEAGE_READ);
}

static void same_lineage(const lrow *a, size_t na, const lrow *b, size_t nb)
{
    size_t i;

    ZBT_EQ_U64(na, nb);
    for (i = 0; i < na && i < nb; i++) {
        if (a[i].row_id != b[i].row_id || a[i].seq != b[i].seq ||
            a[i].hash != b[i].hash)
            printf("  row %zu: before (%lld, %lld), after (%lld, %lld)\n",
                   i, (long long)a[i].row_id, (long long)a[i].seq,
                   (long long)b[i].row_id, (long long)b[i].seq);
        ZBT_CHECK(a[i].row_id == b[i].row_id);
        ZBT_CHECK(a[i].seq == b[i].seq);
        ZBT_CHECK(a[i].hash == b[i].hash);
    }
}

/* Row ids present and distinct. */
static void distinct_ids(const lrow *a, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        ZBT_CHECK(a[i].row_id != INT64_MIN && a[i].seq != INT64_MIN);
        if (i > 0)
            ZBT_CHECK(a[i].row_id > a[i - 1].row_id);
    }
}

/* A generated table's rows as appended: _row_id = id, seq = id/rows+1. */
static void as_appended(const lrow *a, size_t n, const int64_t *gone,
                        size_t n_gone)
{
    size_t i, k;

    for (i = 0; i < n; i++) {
        ZBT_CHECK(a[i].row_id == a[i].key);
        ZBT_CHECK(a[i].seq == a[i].key / ROWS + 1);
        for (k = 0; k < n_gone; k++)
            ZBT_CHECK(a[i].key != gone[k]);
    }
}

/* Whether Parquet file uri has both lineage columns, with no null. */
static int file_has_lineage(of_env *e, const char *uri)
{
    pq_reader *r = NULL;
    const pq_schema *sc;
    const pq_file_meta *fm;
    size_t i, g;
    int found = 0;

    ZBT_OK_CTX(pq_reader_open(&r, e->io, &e->ctx, uri, NULL), &e->ctx);
    sc = pq_reader_schema(r);
    fm = pq_reader_meta(r);
    for (i = 0; i < sc->root->n_children; i++) {
        const pq_node *c = sc->root->children[i];

        if (c->elem == NULL || !c->elem->has_field_id ||
            (c->elem->field_id != ZB_ROW_ID_FIELD_ID &&
             c->elem->field_id != ZB_LAST_UPDATED_SEQ_FIELD_ID))
            continue;
        found++;
        for (g = 0; g < fm->n_row_groups; g++) {
            const pq_column_meta *cm =
                &fm->row_groups[g].columns[c->leaf_index].meta_data;

            ZBT_CHECK(cm->has_statistics && cm->statistics.has_null_count);
            ZBT_CHECK(cm->statistics.null_count == 0);
        }
    }
    pq_reader_free(r);
    return found == 2;
}

/* Live data files with lineage columns (and the number of data files). */
static size_t files_with_lineage(of_env *e, size_t *n_data)
{
    of_items it;
    size_t i, n = 0;

    of_live(&it, e);
    *n_data = 0;
    for (i = 0; i < it.n; i++)
        if (it.v[i].content == 0) {
            (*n_data)++;
            n += (size_t)file_has_lineage(e, it.v[i].path);
        }
    of_items_free(&it);
    return n;
}

typedef struct rowids {
    int64_t next_row_id;
    int64_t first_row_id, added_rows; /* of the current snapshot */
    int64_t seq;
} rowids;

static void row_ids_of(of_env *e, rowids *out)
{
    zb_table *t = of_load(e);
    const ice_snapshot *s = ice_metadata_current_snapshot(t->meta);

    ZBT_CHECK(t->meta->has_next_row_id);
    out->next_row_id = t->meta->next_row_id;
    ZBT_CHECK(s != NULL && s->has_first_row_id && s->has_added_rows);
    out->first_row_id = s->first_row_id;
    out->added_rows = s->added_rows;
    out->seq = s->sequence_number;
    zb_table_free(t);
}

/* The replace took its row ids from next-row-id and advanced it by its
 * added-rows, covering the new files it gave first_row_ids. */
static void check_replace(of_env *e, const rowids *before,
                          const zb_compact_result *r)
{
    rowids after;
    char *op = of_summary(e, "operation");
    of_items it;
    size_t i;
    int64_t added = 0;

    row_ids_of(e, &after);
    ZBT_EQ_STR(op, "replace");
    zb_free(op);
    ZBT_CHECK(after.first_row_id == before->next_row_id);
    ZBT_CHECK(after.next_row_id == after.first_row_id + after.added_rows);
    of_live(&it, e);
    for (i = 0; i < it.n; i++)
        if (it.v[i].content == 0 && it.v[i].snap == r->snapshot_id) {
            /* Added by the replace: inherited ids in its range. */
            ZBT_CHECK(it.v[i].first_row_id >= after.first_row_id);
            ZBT_CHECK(it.v[i].first_row_id + it.v[i].records <=
                      after.next_row_id);
            added += it.v[i].records;
        }
    of_items_free(&it);
    ZBT_CHECK(added > 0);
    ZBT_CHECK(after.added_rows >= added);
}

static uint64_t copied(const zb_compact_result *r)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < r->plan.n_groups; i++)
        n += r->plan.groups[i].copied_files;
    return n;
}

/* Binpack of a partitioned v3 table with DVs, then again after more
 * appends, with row-group copy allowed both times. */
static void test_ops_compact_lineage__binpack(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    lrow *a, *b;
    size_t na, nb, with, n_data;
    int64_t pos[] = { 0, 7, ROWS - 1 };
    int64_t gone[4] = { 0 };
    rowids ids;
    char *p;

    of_open(&e, "lin-bin");
    of_make_table(&e, 3, 1, 2, 6, ROWS);
    p = ct_delete_pos(&e, 0, pos, 3, 0);
    zb_free(p);
    /* A second DV on another file of partition 0. */
    p = ct_delete_pos(&e, 1, pos + 1, 1, 0);
    zb_free(p);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 6 * ROWS - 4);
    distinct_ids(a, na);
    /* Partition 0 holds appends 0, 2, 4: the deleted ids are theirs. */
    {
        of_items it;
        size_t i, k = 0;

        of_live(&it, &e);
        for (i = 0; i < it.n && k < 2; i++)
            if (it.v[i].content == 0) {
                int64_t f = it.v[i].first_row_id;

                if (k == 0) {
                    gone[0] = f + 0;
                    gone[1] = f + 7;
                    gone[2] = f + ROWS - 1;
                } else {
                    gone[3] = f + 7;
                }
                k++;
            }
        of_items_free(&it);
        ZBT_EQ_INT(k, 2);       /* every id of gone[] was found */
    }
    as_appended(a, na, gone, 4);
    row_ids_of(&e, &ids);
    o.target_file_bytes = 4096;
    o.rewrite_all = 1;
    o.copy_min_rows = 1;           /* copy were it allowed: it is not */
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_CHECK(r.groups_committed > 0);
    ZBT_EQ_U64(copied(&r), 0);     /* the inputs lack the columns */
    check_replace(&e, &ids, &r);
    zb_compact_result_free(&r);
    b = lineage_rows(&e, &nb);
    same_lineage(a, na, b, nb);
    as_appended(b, nb, gone, 4);
    with = files_with_lineage(&e, &n_data);
    ZBT_EQ_U64(with, n_data);
    zb_free(b);

    /* More appends (no columns) next to compacted files (columns, no
     * nulls): the latter may be copied, the rows keep their lineage. */
    of_append(&e, 0, 6 * ROWS, ROWS);
    of_append(&e, 1, 7 * ROWS, ROWS);
    zb_free(a);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 8 * ROWS - 4);
    distinct_ids(a, na);
    row_ids_of(&e, &ids);
    o.target_file_bytes = 1 << 20;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    printf("  second run: %llu file(s) copied by row group\n",
           (unsigned long long)copied(&r));
    ZBT_CHECK(copied(&r) > 0);
    check_replace(&e, &ids, &r);
    zb_compact_result_free(&r);
    b = lineage_rows(&e, &nb);
    same_lineage(a, na, b, nb);
    with = files_with_lineage(&e, &n_data);
    ZBT_EQ_U64(with, n_data);
    zb_free(a);
    zb_free(b);
    of_close(&e);
}

/* Sort and z-order carry the columns through the external sort. */
static void test_ops_compact_lineage__sort(void)
{
    static const zb_compact_sort_field by_id_desc[] = { { 1, 1, 0 } };
    static const zb_compact_sort_field zcols[] = { { 1, 0, 0 },
                                                   { 2, 0, 0 } };
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    lrow *a, *b;
    size_t na, nb, with, n_data;
    int64_t pos[] = { 3, 4 };
    char *p;

    of_open(&e, "lin-sort");
    of_make_table(&e, 3, 0, 1, 4, ROWS);
    p = ct_delete_pos(&e, 2, pos, 2, -1);
    zb_free(p);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 4 * ROWS - 2);
    as_appended(a, na, NULL, 0);
    o.target_file_bytes = 4096;
    o.rewrite_all = 1;
    o.strategy = ZB_COMPACT_SORT;
    o.sort_fields = by_id_desc;
    o.n_sort_fields = 1;
    o.sort_memory_bytes = 64 << 10;  /* spill sorted runs */
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    zb_compact_result_free(&r);
    b = lineage_rows(&e, &nb);
    same_lineage(a, na, b, nb);
    zb_free(b);
    with = files_with_lineage(&e, &n_data);
    ZBT_EQ_U64(with, n_data);
    o.strategy = ZB_COMPACT_ZORDER;
    o.min_input_files = 1;         /* the one sorted file too */
    o.sort_fields = zcols;
    o.n_sort_fields = 2;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    zb_compact_result_free(&r);
    b = lineage_rows(&e, &nb);
    same_lineage(a, na, b, nb);
    zb_free(a);
    zb_free(b);
    of_close(&e);
}

/* An int64 column of n values; valid[i] == 0: null. */
static void long_col(struct ArrowArray *a, const int64_t *v,
                     const int *valid, size_t n)
{
    uint8_t *bits;
    int64_t *vals;
    size_t i;

    ZBT_CHECK(zb_arrow_array_init(a, 2, 0) == 0);
    ZBT_CHECK((bits = zb_calloc(1, (n + 7) / 8 + 1)) != NULL);
    ZBT_CHECK((vals = zb_calloc(n + 1, sizeof *vals)) != NULL);
    for (i = 0; i < n; i++) {
        vals[i] = v[i];
        if (valid == NULL || valid[i])
            zb_arrow_set_bit(bits, (int64_t)i);
        else
            a->null_count++;
    }
    a->buffers[0] = bits;
    a->buffers[1] = vals;
    a->length = (int64_t)n;
}

/* An all-null string column of n rows. */
static void null_str_col(struct ArrowArray *sa, size_t n)
{
    ZBT_CHECK(zb_arrow_array_init(sa, 3, 0) == 0);
    sa->buffers[0] = zb_calloc(1, (n + 7) / 8 + 1);
    sa->buffers[1] = zb_calloc(n + 1, sizeof(int32_t));
    sa->buffers[2] = zb_calloc(1, 1);
    ZBT_CHECK(sa->buffers[0] && sa->buffers[1] && sa->buffers[2]);
    sa->length = (int64_t)n;
    sa->null_count = (int64_t)n;
}

/*
 * Commits one data file of ids 1000..1003 with lineage columns: _row_id
 * (900000, null, 900002, null), _last_updated_sequence_number (null, 1,
 * null, 1); bad: _row_id is a string column instead.
 */
static void commit_lineage_file(of_env *e, int bad)
{
    static const int64_t id[] = { 1000, 1001, 1002, 1003 };
    static const int64_t rid[] = { 900000, 0, 900002, 0 };
    static const int rid_ok[] = { 1, 0, 1, 0 };
    static const int64_t sq[] = { 0, 1, 0, 1 };
    static const int sq_ok[] = { 0, 1, 0, 1 };
    const char *names[5] = { "id", "part", "payload", "_row_id",
                             "_last_updated_sequence_number" };
    const char *fmts[5] = { "l", "i", "u", "l", "l" };
    const char *fids[5] = { "1", "2", "3", "2147483540", "2147483539" };
    zb_table *t;
    zb_arena *arena = NULL;
    ice_data_file df;
    struct ArrowSchema s;
    struct ArrowArray b;
    size_t i;

    if (bad)
        fmts[3] = "u";
    ZBT_CHECK(zb_arrow_schema_init(&s, "+s", "", NULL, 0, 0, 5) == 0);
    for (i = 0; i < 5; i++) {
        const char *kv[] = { "PARQUET:field_id", fids[i], NULL };
        char *md = NULL;
        size_t mdl = 0;

        ZBT_CHECK(zb_arrow_metadata(&md, &mdl, kv) == 0);
        ZBT_CHECK(zb_arrow_schema_init(s.children[i], fmts[i], names[i],
                                       md, mdl,
                                       i >= 2 ? ARROW_FLAG_NULLABLE : 0,
                                       0) == 0);
        zb_free(md);
    }
    ZBT_CHECK(zb_arrow_array_init(&b, 1, 5) == 0);
    b.length = 4;
    long_col(b.children[0], id, NULL, 4);
    {
        struct ArrowArray *pa = b.children[1];
        int32_t *pv;

        ZBT_CHECK(zb_arrow_array_init(pa, 2, 0) == 0);
        ZBT_CHECK((pv = zb_calloc(5, sizeof *pv)) != NULL);
        pa->buffers[1] = pv;
        pa->length = 4;
    }
    null_str_col(b.children[2], 4);
    if (bad)
        null_str_col(b.children[3], 4);
    else
        long_col(b.children[3], rid, rid_ok, 4);
    long_col(b.children[4], sq, sq_ok, 4);
    t = of_load(e);
    ZBT_CHECK(zb_arena_new(&arena, (size_t)1 << 24) == 0);
    ZBT_OK_CTX(zb_ingest_write_parquet(&df, arena, e->io, &e->ctx, t,
                                       ICE_CONTENT_DATA, &s, &b, 1, NULL),
               &e->ctx);
    ZBT_OK_CTX(zb_ingest_commit_files(&t, e->cat, e->io, &e->ctx, &df, NULL,
                                      1), &e->ctx);
    zb_table_free(t);
    b.release(&b);
    s.release(&s);
    zb_arena_free(arena);
}

/* A data file written with lineage columns holding some nulls: a value
 * is taken where present, inherited where null; compaction keeps both. */
static void test_ops_compact_lineage__mixed(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    lrow *a, *c;
    size_t na, nc, i, k;
    int64_t first = 0, seq = 0;

    of_open(&e, "lin-mixed");
    of_make_table(&e, 3, 0, 1, 2, ROWS);
    commit_lineage_file(&e, 0);
    {
        of_items it;

        of_live(&it, &e);
        for (i = 0; i < it.n; i++)
            if (it.v[i].content == 0 && it.v[i].records == 4) {
                first = it.v[i].first_row_id;
                seq = it.v[i].seq;
            }
        of_items_free(&it);
    }
    ZBT_CHECK(first == 2 * ROWS);
    ZBT_CHECK(seq == 3);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 2 * ROWS + 4);
    for (i = 0, k = 0; i < na; i++) {
        if (a[i].key < 1000)
            continue;
        k++;
        switch (a[i].key) {
        case 1000:
            ZBT_CHECK(a[i].row_id == 900000 && a[i].seq == seq);
            break;
        case 1001:
            ZBT_CHECK(a[i].row_id == first + 1 && a[i].seq == 1);
            break;
        case 1002:
            ZBT_CHECK(a[i].row_id == 900002 && a[i].seq == seq);
            break;
        default:
            ZBT_CHECK(a[i].row_id == first + 3 && a[i].seq == 1);
        }
    }
    ZBT_EQ_U64(k, 4);
    o.target_file_bytes = 1 << 20;
    o.rewrite_all = 1;
    o.copy_min_rows = 1;           /* nulls in the columns: no copy */
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_EQ_U64(copied(&r), 0);
    zb_compact_result_free(&r);
    c = lineage_rows(&e, &nc);
    same_lineage(a, na, c, nc);
    zb_free(a);
    zb_free(c);
    of_close(&e);
}

/* A _row_id column that is no integer: ZB_ECORRUPT naming the file,
 * nothing committed. */
static void test_ops_compact_lineage__bad_type(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    int64_t id;

    of_open(&e, "lin-bad");
    of_make_table(&e, 3, 0, 1, 2, ROWS);
    commit_lineage_file(&e, 1);
    id = of_current_id(&e);
    o.rewrite_all = 1;
    ZBT_RC(ct_compact(&e, &o, &r), ZB_ECORRUPT);
    ZBT_CONTAINS(e.ctx.err.msg, "row lineage column _row_id");
    ZBT_CONTAINS(e.ctx.err.msg, ".parquet");
    zb_compact_result_free(&r);
    ZBT_EQ_INT(of_current_id(&e), id);
    /* The opt-out reads no lineage: it compacts. */
    o.reset_row_lineage = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    zb_compact_result_free(&r);
    of_close(&e);
}

/* reset_row_lineage: new ids from the replace's range, no columns. */
static void test_ops_compact_lineage__reset(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    lrow *a;
    size_t na, i, n_data;
    rowids before, after;

    of_open(&e, "lin-reset");
    of_make_table(&e, 3, 0, 1, 3, ROWS);
    row_ids_of(&e, &before);
    o.rewrite_all = 1;
    o.reset_row_lineage = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    zb_compact_result_free(&r);
    row_ids_of(&e, &after);
    ZBT_EQ_U64(files_with_lineage(&e, &n_data), 0);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 3 * ROWS);
    distinct_ids(a, na);
    for (i = 0; i < na; i++) {
        ZBT_CHECK(a[i].row_id >= before.next_row_id);
        ZBT_CHECK(a[i].row_id < after.next_row_id);
        ZBT_CHECK(a[i].seq == before.seq); /* the starting one */
    }
    zb_free(a);
    of_close(&e);
}

static void upgrade_to_v3(of_env *e)
{
    zb_table *t = of_load(e), *t2 = NULL;
    json_t *reqs = json_array();
    json_t *updates = json_loads("[{\"action\":\"upgrade-format-version\","
                                 "\"format-version\":3}]", 0, NULL);

    ZBT_CHECK(reqs != NULL && updates != NULL);
    ZBT_OK_CTX(zb_catalog_commit(e->cat, &e->ctx, t, (const zb_json *)reqs,
                                 (const zb_json *)updates, &t2),
               &e->ctx);
    ZBT_EQ_INT(t2->meta->format_version, 3);
    zb_table_free(t);
    zb_table_free(t2);
    json_decref(reqs);
    json_decref(updates);
}

/*
 * A v2 table upgraded to v3 (format/spec.md "Row Lineage for Upgraded
 * Tables"): its files have no first_row_id until a snapshot assigns
 * them one. Read as they are, both lineage columns are null (the spec's
 * reader rule); the rewrite mode gives the files' data sequence numbers
 * (append a: a + 1) and null row ids. Compacted right away, the rows get
 * new ids from the replace's range and keep their data sequence number:
 * the same _last_updated_sequence_number they read when another commit
 * (an append) comes first and the upgraded files get first_row_ids.
 * Compacted again, every row keeps its lineage, columns without nulls.
 */
static void test_ops_compact_lineage__upgraded(void)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    lrow *a, *b, *c;
    size_t na, nb, nc, i, n_data;
    rowids before, after;

    of_open(&e, "lin-upgraded");
    of_make_table(&e, 2, 1, 2, 4, ROWS);
    upgrade_to_v3(&e);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 4 * ROWS);
    for (i = 0; i < na; i++)
        ZBT_CHECK(a[i].row_id == INT64_MIN && a[i].seq == INT64_MIN);
    zb_free(a);
    a = lineage_rows_as(&e, &na, ZB_LINEAGE_REWRITE);
    ZBT_EQ_U64(na, 4 * ROWS);
    for (i = 0; i < na; i++)
        ZBT_CHECK(a[i].row_id == INT64_MIN && a[i].seq == a[i].key / ROWS + 1);
    zb_free(a);

    {
        zb_table *t = of_load(&e);

        ZBT_CHECK(t->meta->has_next_row_id && t->meta->next_row_id == 0);
        zb_table_free(t);
    }
    before.next_row_id = 0;
    o.target_file_bytes = 1 << 20;
    o.rewrite_all = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_CHECK(r.groups_committed > 0);
    check_replace(&e, &before, &r);
    zb_compact_result_free(&r);
    row_ids_of(&e, &after);
    b = lineage_rows(&e, &nb);
    ZBT_EQ_U64(nb, 4 * ROWS);
    for (i = 0; i < nb; i++) {
        ZBT_CHECK(b[i].row_id >= before.next_row_id &&
                  b[i].row_id < after.next_row_id);
        if (b[i].seq != b[i].key / ROWS + 1)
            printf("  id %lld: _last_updated_sequence_number %lld, not "
                   "%lld\n", (long long)b[i].key, (long long)b[i].seq,
                   (long long)(b[i].key / ROWS + 1));
        ZBT_CHECK(b[i].seq == b[i].key / ROWS + 1);
    }
    distinct_ids(b, nb);

    /* Compacted again: the ids are now in the files, kept as they are. */
    o.min_input_files = 1;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    ZBT_CHECK(r.groups_committed > 0);
    zb_compact_result_free(&r);
    c = lineage_rows(&e, &nc);
    same_lineage(b, nb, c, nc);
    ZBT_EQ_U64(files_with_lineage(&e, &n_data), n_data);
    zb_free(b);
    zb_free(c);
    of_close(&e);

    /* An append first: the upgraded files get first_row_ids and their
     * rows inherit the same sequence numbers as above. */
    of_open(&e, "lin-upgraded-append");
    of_make_table(&e, 2, 1, 2, 4, ROWS);
    upgrade_to_v3(&e);
    of_append(&e, 0, 4 * ROWS, ROWS);
    a = lineage_rows(&e, &na);
    ZBT_EQ_U64(na, 5 * ROWS);
    distinct_ids(a, na);
    for (i = 0; i < na; i++)
        ZBT_CHECK(a[i].seq == a[i].key / ROWS + 1);
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    zb_compact_result_free(&r);
    b = lineage_rows(&e, &nb);
    same_lineage(a, na, b, nb);
    zb_free(a);
    zb_free(b);
    of_close(&e);
}

/* A fixture copy compacted (min_input_files 1: single files too), once
 * with row-group copy allowed and once streamed. */
static void fixture(const char *name, uint64_t copy_min_rows,
                    const lrow *expect, size_t n_expect)
{
    of_env e;
    zb_compact_opts o = ZB_COMPACT_OPTS_INIT;
    zb_compact_result r;
    lrow *a, *b;
    size_t na, nb, i, with, n_data;
    rowids ids;

    if (!of_fixture(&e, name)) {
        of_close(&e);
        return;
    }
    a = lineage_rows(&e, &na);
    distinct_ids(a, na);
    for (i = 0; i < n_expect; i++) {
        ZBT_CHECK(i < na);
        if (i >= na)
            break;
        ZBT_CHECK(a[i].key == expect[i].key);
        ZBT_CHECK(a[i].row_id == expect[i].row_id);
        ZBT_CHECK(a[i].seq == expect[i].seq);
    }
    row_ids_of(&e, &ids);
    o.target_file_bytes = 4096;
    o.rewrite_all = 1;
    o.min_input_files = 1;
    o.copy_min_rows = copy_min_rows;
    ZBT_OK_CTX(ct_compact(&e, &o, &r), &e.ctx);
    printf("  %s: %llu group(s), %llu file(s) -> %llu, %llu copied, "
           "%zu rows\n", name, (unsigned long long)r.groups_committed,
           (unsigned long long)r.files_removed,
           (unsigned long long)r.files_added,
           (unsigned long long)copied(&r), na);
    ZBT_CHECK(r.groups_committed > 0);
    check_replace(&e, &ids, &r);
    zb_compact_result_free(&r);
    b = lineage_rows(&e, &nb);
    same_lineage(a, na, b, nb);
    with = files_with_lineage(&e, &n_data);
    ZBT_EQ_U64(with, n_data);
    of_check_files(&e);
    zb_free(a);
    zb_free(b);
    of_close(&e);
}

static void test_ops_compact_lineage__fixtures(void)
{
    /* Three appends of i = 1, 2, 3, then Spark's rewrite_data_files
     * (whose file holds the columns: hyparquet reads (0, 1), (1, 2),
     * (2, 3) there). */
    static const lrow lineage3[] = { { 0, 1, 1, 0 }, { 1, 2, 2, 0 },
                                     { 2, 3, 3, 0 } };

    fixture("impala-v3-row-lineage", 1, lineage3, 3);
    fixture("impala-v3-row-lineage", UINT64_MAX, lineage3, 3);
    fixture("impala-v3-deletion-vectors", 1, NULL, 0);
    fixture("impala-v3-default-part", 1, NULL, 0);
    fixture("impala-v3-all-types", 1, NULL, 0);
}

const zbt_case test_ops_compact_lineage[] = {
    ZBT_CASE(test_ops_compact_lineage__binpack),
    ZBT_CASE(test_ops_compact_lineage__sort),
    ZBT_CASE(test_ops_compact_lineage__mixed),
    ZBT_CASE(test_ops_compact_lineage__bad_type),
    ZBT_CASE(test_ops_compact_lineage__reset),
    ZBT_CASE(test_ops_compact_lineage__upgraded),
    ZBT_CASE(test_ops_compact_lineage__fixtures),
    ZBT_END
};
