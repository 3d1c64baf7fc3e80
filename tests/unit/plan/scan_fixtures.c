/*
 * Scan planning over the fixture tables of ../shared/fixtures.
 *
 * all_snapshots: every snapshot of every table whose manifest list is
 * present is planned, and each task is compared with a naive reference
 * written here from format/spec.md "Scan Planning" (every delete entry
 * tested against every data entry, entries read with ice_snapshot_iter,
 * partitions compared by their human strings): the same data files, the
 * same deletes in the order scan_task.h gives (DV, position by sequence
 * number, equality by sequence number), counts and stats consistent, and
 * for the current snapshot every URI exists.
 *
 * The other cases check facts read by hand from the fixtures' manifests
 * (zb-manifest-cat and avsc dumps), written down in each case.
 */
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "scan_test.h"
#include "util/arena.h"
#include "util/buf.h"

typedef struct rent {
    char path[1024];
    char ref[1024];                /* "" when the delete names no file */
    char part[512];
    int content;
    int dv;
    int unpart;
    int64_t seq;
    int32_t spec;
    int64_t offset;
} rent;

static const char *strip(const char *p)
{
    const char *s = strstr(p, "://");

    if (s == NULL || strchr(p, '/') < s)
        return p;
    s = strchr(s + 3, '/');
    return s ? s : "";
}

static int same_path(const char *a, const char *b)
{
    return strcmp(a, b) == 0 || strcmp(strip(a), strip(b)) == 0;
}

static int spec_unpartitioned(const ice_metadata *m, int32_t id)
{
    const ice_partition_spec *s = ice_metadata_spec(m, id);
    size_t i;

    if (s == NULL)
        return 0;
    for (i = 0; i < s->n_fields; i++)
        if (strcmp(s->fields[i].transform, "void") != 0)
            return 0;
    return 1;
}

static void pinned_path(char *out, size_t cap, const ice_data_file *f)
{
    const ice_metric_bytes *lo = NULL, *hi = NULL;
    size_t i;

    out[0] = '\0';
    if (f->referenced_data_file != NULL) {
        snprintf(out, cap, "%s", f->referenced_data_file);
        return;
    }
    for (i = 0; i < f->lower_bounds.n; i++)
        if (f->lower_bounds.items[i].field_id == 2147483546)
            lo = &f->lower_bounds.items[i];
    for (i = 0; i < f->upper_bounds.n; i++)
        if (f->upper_bounds.items[i].field_id == 2147483546)
            hi = &f->upper_bounds.items[i];
    if (lo && hi && lo->len == hi->len && lo->len < cap &&
        memcmp(lo->ptr, hi->ptr, lo->len) == 0) {
        memcpy(out, lo->ptr, lo->len);
        out[lo->len] = '\0';
    }
}

/* The live entries of snap through ice_snapshot_iter; n in *n. */
static rent *read_entries(sfx *f, const ice_snapshot *snap, size_t *n)
{
    ice_snapshot_iter *it = NULL;
    const ice_manifest_entry *e;
    const ice_manifest_file *mf;
    rent *out = NULL;
    size_t cap = 0, i;
    zb_buf b = ZB_BUF_INIT(1 << 20);
    int rc;

    *n = 0;
    ZBT_OK_CTX(ice_snapshot_iter_open(&it, f->io, &f->ctx, f->m, snap,
                                      &f->o), &f->ctx);
    while ((rc = ice_snapshot_iter_next(it, &f->ctx, &e, &mf)) > 0) {
        const ice_data_file *d = &e->data_file;
        rent *r;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            out = realloc(out, cap * sizeof *out);
            ZBT_CHECK(out != NULL);
        }
        r = &out[(*n)++];
        memset(r, 0, sizeof *r);
        snprintf(r->path, sizeof r->path, "%s", d->file_path);
        r->content = (int)d->content;
        r->dv = d->content == ICE_CONTENT_POSITION_DELETES &&
            d->file_format && strcasecmp(d->file_format, "puffin") == 0;
        r->seq = e->sequence_number;
        r->spec = mf->partition_spec_id;
        r->offset = d->content_offset;
        r->unpart = spec_unpartitioned(f->m, r->spec);
        if (d->content == ICE_CONTENT_POSITION_DELETES)
            pinned_path(r->ref, sizeof r->ref, d);
        zb_buf_clear(&b);
        for (i = 0; i < d->n_partition; i++) {
            if (d->partition[i].is_null) {
                ZBT_CHECK(zb_buf_puts(&b, "N;") == 0);
                continue;
            }
            ZBT_CHECK(zb_buf_putc(&b, 'V') == 0);
            ZBT_OK_CTX(ice_value_to_human(&b, &f->ctx, &d->partition[i]),
                       &f->ctx);
            ZBT_CHECK(zb_buf_putc(&b, ';') == 0);
        }
        ZBT_CHECK(b.len < sizeof r->part);
        snprintf(r->part, sizeof r->part, "%s", zb_buf_cstr(&b));
    }
    ZBT_OK_CTX(rc, &f->ctx);
    ice_snapshot_iter_free(it);
    zb_buf_free(&b);
    return out;
}

static int exists(const char *uri)
{
    struct stat st;

    return stat(uri, &st) == 0;
}

/* Index of the delete (path, offset) within t->d[from, to), or -1. */
static int find_del(const stask *t, size_t from, size_t to, const rent *e)
{
    size_t i;

    for (i = from; i < to; i++)
        if (strcmp(t->d[i].path, e->path) == 0 &&
            t->d[i].offset == e->offset)
            return (int)i;
    return -1;
}

/* Checks one plan of snap against the reference. */
static void check_snapshot(sfx *f, const ice_snapshot *snap, int current,
                           const char *name)
{
    splan p;
    rent *all;
    size_t n_all, i, j, n_data = 0, n_pos = 0, n_eq = 0, n_dv = 0;
    uint64_t records = 0, refs = 0;
    int rc;

    rc = splan_run(&p, f, snap, NULL, 0);
    if (rc != 0)
        zbt__fail(__FILE__, __LINE__, "%s snapshot %lld: %s (%s)", name,
                  (long long)snap->snapshot_id, zb_rc_name(rc), f->ctx.err.msg);
    all = read_entries(f, snap, &n_all);
    for (j = 0; j < n_all; j++) {
        n_data += all[j].content == 0;
        n_eq += all[j].content == 2;
        n_dv += all[j].dv;
        n_pos += all[j].content == 1 && !all[j].dv;
    }
    if (p.n != n_data || p.st.pos_delete_files != n_pos ||
        p.st.eq_delete_files != n_eq || p.st.dv_files != n_dv)
        zbt__fail(__FILE__, __LINE__, "%s snapshot %lld: %zu data, %llu"
                  " pos, %llu eq, %llu dv; the iterator %zu, %zu, %zu, %zu",
                  name, (long long)snap->snapshot_id, p.n,
                  (unsigned long long)p.st.pos_delete_files,
                  (unsigned long long)p.st.eq_delete_files,
                  (unsigned long long)p.st.dv_files, n_data, n_pos, n_eq,
                  n_dv);
    ZBT_EQ_U64(p.st.data_files, n_data);
    ZBT_EQ_U64(p.st.pos_delete_files, n_pos);
    ZBT_EQ_U64(p.st.eq_delete_files, n_eq);
    ZBT_EQ_U64(p.st.dv_files, n_dv);
    ZBT_EQ_U64(p.st.data_files_skipped, 0);
    for (i = 0; i < p.n; i++) {
        const stask *t = &p.t[i];
        const rent *d = NULL;
        size_t ndv = 0, npos = 0, neq = 0;
        for (j = 0; j < n_all; j++)
            if (all[j].content == 0 && strcmp(all[j].path, t->path) == 0) {
                ZBT_CHECK(d == NULL);    /* paths are unique */
                d = &all[j];
            }
        ZBT_CHECK(d != NULL);
        ZBT_EQ_INT(t->seq, d->seq);
        ZBT_EQ_INT(t->spec_id, d->spec);
        records += (uint64_t)t->records;
        refs += t->n;
        if (current) {
            if (!exists(t->uri))
                zbt__fail(__FILE__, __LINE__, "%s: missing %s", name, t->uri);
            for (j = 0; j < t->n; j++)
                if (!exists(t->d[j].uri))
                    zbt__fail(__FILE__, __LINE__, "%s: missing %s", name,
                              t->d[j].uri);
        }
        /* the reference: DVs, then position, then equality deletes */
        for (j = 0; j < n_all; j++) {
            const rent *e = &all[j];
            int same = e->spec == d->spec && strcmp(e->part, d->part) == 0;
            if (e->dv && same && d->seq <= e->seq &&
                same_path(e->ref, d->path)) {
                ZBT_CHECK(find_del(t, 0, 1, e) == 0);
                ndv++;
            }
        }
        ZBT_CHECK(ndv <= 1);
        for (j = 0; j < n_all && ndv == 0; j++) {
            const rent *e = &all[j];
            int same = e->spec == d->spec && strcmp(e->part, d->part) == 0;
            if (e->content == 1 && !e->dv && same && d->seq <= e->seq &&
                (e->ref[0] == '\0' || same_path(e->ref, d->path))) {
                if (find_del(t, ndv, t->n, e) < 0)
                    zbt__fail(__FILE__, __LINE__, "%s: %s lacks position"
                              " delete %s", name, t->path, e->path);
                npos++;
            }
        }
        for (j = 0; j < n_all; j++) {
            const rent *e = &all[j];
            int same = e->spec == d->spec && strcmp(e->part, d->part) == 0;
            if (e->content == 2 && d->seq < e->seq && (same || e->unpart)) {
                if (find_del(t, ndv + npos, t->n, e) < 0)
                    zbt__fail(__FILE__, __LINE__, "%s: %s lacks equality"
                              " delete %s", name, t->path, e->path);
                neq++;
            }
        }
        if (t->n != ndv + npos + neq)
            zbt__fail(__FILE__, __LINE__, "%s: %s has %zu deletes, the"
                      " reference %zu", name, t->path, t->n,
                      ndv + npos + neq);
        for (j = 0; j < t->n; j++) {
            if (j < ndv)
                ZBT_CHECK(t->d[j].dv);
            else if (j < ndv + npos)
                ZBT_CHECK(t->d[j].content == 1 && !t->d[j].dv);
            else
                ZBT_CHECK(t->d[j].content == 2);
            if (j > ndv && j != ndv + npos)
                ZBT_CHECK(t->d[j - 1].seq <= t->d[j].seq);
        }
    }
    ZBT_EQ_U64(p.st.records, records);
    ZBT_EQ_U64(p.st.delete_refs, refs);
    ZBT_CHECK(p.st.unused_delete_files <= n_pos + n_eq + n_dv);
    free(all);
    splan_free(&p);
}

static void test_plan_scan_fixtures__all_snapshots(void)
{
    DIR *d = opendir(ZB_FIXTURES_DIR);
    struct dirent *de;
    char names[64][128];
    size_t n = 0, i, k, planned = 0;

    if (d == NULL) {
        printf("  (skipped: no fixtures at %s)\n", ZB_FIXTURES_DIR);
        return;
    }
    while ((de = readdir(d)) != NULL && n < 64)
        if (de->d_name[0] != '.' && strchr(de->d_name, '.') == NULL)
            snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    closedir(d);
    ZBT_CHECK(n >= 35);
    for (i = 0; i < n; i++) {
        sfx f;
        const ice_snapshot *cur;
        if (!sfx_open(&f, names[i]))
            continue;
        cur = ice_metadata_current_snapshot(f.m);
        for (k = 0; k < f.m->n_snapshots; k++) {
            const ice_snapshot *s = &f.m->snapshots[k];
            zb_buf u = ZB_BUF_INIT(4096);
            if (s->manifest_list != NULL) {
                ZBT_OK_CTX(ice_manifest_resolve_path(&u, &f.ctx, &f.o,
                                                     s->manifest_list),
                           &f.ctx);
                if (!exists(zb_buf_cstr(&u)) && s != cur) {
                    zb_buf_free(&u);
                    continue;      /* not copied (fixtures/README.md) */
                }
            }
            zb_buf_free(&u);
            check_snapshot(&f, s, s == cur, names[i]);
            planned++;
        }
        sfx_close(&f);
    }
    printf("  %zu snapshots of %zu tables planned\n", planned, n);
}

/* Spark's rewrite_data_files left a position delete file (seq 3) whose
 * file_path bounds (lower == upper) name data/3549308fee10b145-...,
 * a file the rewrite removed; the one live data file (seq 3, 4 rows,
 * data/00000-8-7d506ac2-...) gets no delete. */
static void test_plan_scan_fixtures__dangling_pos_delete(void)
{
    sfx f;
    splan p;

    if (!sfx_open(&f, "impala-spark-compaction-dangling"))
        return;
    ZBT_OK_CTX(splan_run(&p, &f, NULL, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 1);
    ZBT_CONTAINS(p.t[0].path, "data/00000-8-7d506ac2-");
    ZBT_EQ_INT(p.t[0].seq, 3);
    ZBT_EQ_U64(p.t[0].n, 0);
    ZBT_EQ_U64(p.st.pos_delete_files, 1);
    ZBT_EQ_U64(p.st.unused_delete_files, 1);
    ZBT_EQ_U64(p.st.records, 4);
    splan_free(&p);
    sfx_close(&f);
}

/* Two overwrites, both spec 0 (d = 2023-12-24, identity): seq 1 added
 * data ...bdb0c103-...-00001 (2 rows) and eq delete -00002 on ids [2, 3];
 * seq 2 added data ...fe90d7bb-...-00001 and eq delete -00002. The seq 1
 * file gets only the seq 2 delete (strictly newer); the seq 2 file none. */
static void test_plan_scan_fixtures__eq_sequence_rule(void)
{
    sfx f;
    splan p;
    const stask *t;

    if (!sfx_open(&f, "impala-v2-eq-part-evolution"))
        return;
    ZBT_OK_CTX(splan_run(&p, &f, NULL, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 2);
    t = splan_find(&p, "bdb0c103-bfaf-49b4-935a-16a951e55b1c-00001");
    ZBT_EQ_INT(t->seq, 1);
    ZBT_EQ_U64(t->n, 1);
    ZBT_EQ_INT(t->d[0].content, 2);
    ZBT_EQ_INT(t->d[0].seq, 2);
    ZBT_CONTAINS(t->d[0].path, "fe90d7bb-47e7-4221-8e06-f63922d3fa23-00002");
    t = splan_find(&p, "fe90d7bb-47e7-4221-8e06-f63922d3fa23-00001");
    ZBT_EQ_U64(t->n, 0);
    ZBT_EQ_U64(p.st.eq_delete_files, 2);
    ZBT_EQ_U64(p.st.unused_delete_files, 1);
    splan_free(&p);
    sfx_close(&f);
}

/* Identity partition on action: 3 data files (seq 1) and 3 position
 * delete files (seq 2), one per partition: view -00001 (5 rows), click
 * -00002 (3 rows), download -00003 (2 rows). */
static void test_plan_scan_fixtures__pos_partitioned(void)
{
    static const char *const want[3][2] = {
        { "action=click/", "d29c50a84a5e-job_16597105613621_0032-00002" },
        { "action=download/", "d29c50a84a5e-job_16597105613621_0032-00003" },
        { "action=view/", "d29c50a84a5e-job_16597105613621_0032-00001" },
    };
    sfx f;
    splan p;
    size_t i;

    if (!sfx_open(&f, "impala-v2-pos-partitioned"))
        return;
    ZBT_OK_CTX(splan_run(&p, &f, NULL, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 3);
    for (i = 0; i < 3; i++) {
        const stask *t = splan_find(&p, want[i][0]);
        ZBT_EQ_U64(t->n, 1);
        ZBT_EQ_INT(t->d[0].content, 1);
        ZBT_CONTAINS(t->d[0].path, want[i][1]);
    }
    ZBT_EQ_U64(p.st.pos_delete_files, 3);
    ZBT_EQ_U64(p.st.unused_delete_files, 0);
    ZBT_EQ_U64(p.st.records, 20);
    splan_free(&p);
    sfx_close(&f);
}

/* v3, 5 data files of one row (seq 1, hdfs:// paths like the DVs); one
 * Puffin file (seq 2) holds two DVs: at offset 4 for data/00003-3-...,
 * at offset 46 for data/00001-1-.... */
static void test_plan_scan_fixtures__deletion_vectors(void)
{
    sfx f;
    splan p;
    const stask *t;

    if (!sfx_open(&f, "impala-v3-deletion-vectors"))
        return;
    ZBT_OK_CTX(splan_run(&p, &f, NULL, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 5);
    t = splan_find(&p, "data/00003-3-");
    ZBT_EQ_U64(t->n, 1);
    ZBT_CHECK(t->d[0].dv);
    ZBT_EQ_INT(t->d[0].offset, 4);
    ZBT_CONTAINS(t->d[0].path, "-deletes.puffin");
    t = splan_find(&p, "data/00001-1-");
    ZBT_EQ_U64(t->n, 1);
    ZBT_EQ_INT(t->d[0].offset, 46);
    ZBT_EQ_U64(splan_find(&p, "data/00000-0-")->n, 0);
    ZBT_EQ_U64(splan_find(&p, "data/00002-2-")->n, 0);
    ZBT_EQ_U64(splan_find(&p, "data/00004-4-")->n, 0);
    ZBT_EQ_U64(p.st.dv_files, 2);
    ZBT_EQ_U64(p.st.pos_delete_files, 0);
    splan_free(&p);
    sfx_close(&f);
}

/* Unpartitioned: data 00000-9-8b7ad7ff (seq 1, 4 rows) and 00000-12-
 * 3ac0d3a9 (seq 5, 2 rows); equality deletes at seq 2 (ids [2]), 3 ([1]),
 * 4 ([1, 2]) and 6 ([2]). Seq 1 gets all four in sequence order; seq 5
 * only the seq 6 one. Unpartitioned: global deletes. */
static void test_plan_scan_fixtures__eq_deletes_by_sequence(void)
{
    sfx f;
    splan p;
    const stask *t;

    if (!sfx_open(&f, "duckdb-eq-deletes"))
        return;
    ZBT_OK_CTX(splan_run(&p, &f, NULL, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 2);
    t = splan_find(&p, "00000-9-8b7ad7ff");
    ZBT_EQ_U64(t->n, 4);
    ZBT_EQ_INT(t->d[0].seq, 2);
    ZBT_CONTAINS(t->d[0].path, "delete-93d19556");
    ZBT_EQ_INT(t->d[1].seq, 3);
    ZBT_CONTAINS(t->d[1].path, "delete-242a4468");
    ZBT_EQ_INT(t->d[2].seq, 4);
    ZBT_CONTAINS(t->d[2].path, "delete-6b31fafe");
    ZBT_EQ_INT(t->d[3].seq, 6);
    ZBT_CONTAINS(t->d[3].path, "delete-2ca427ee");
    t = splan_find(&p, "00000-12-3ac0d3a9");
    ZBT_EQ_INT(t->seq, 5);
    ZBT_EQ_U64(t->n, 1);
    ZBT_CONTAINS(t->d[0].path, "delete-2ca427ee");
    ZBT_EQ_U64(p.st.records, 6);
    splan_free(&p);
    sfx_close(&f);
}

/* Four appends (seq 1-4, one data file each), then position deletes:
 * seq 5 pins (file_path lower == upper) the seq 2 file db95aeae, seq 6
 * the seq 3 file 162cd69d. Snapshot 752781918366351945 (seq 5) sees
 * only the first; the current one both. */
static void test_plan_scan_fixtures__older_snapshot(void)
{
    sfx f;
    splan p;
    const ice_snapshot *s;

    if (!sfx_open(&f, "impala-v2-pos-some-files"))
        return;
    ZBT_CHECK((s = ice_metadata_snapshot(f.m, 752781918366351945LL)) != NULL);
    ZBT_OK_CTX(splan_run(&p, &f, s, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 4);
    ZBT_EQ_U64(splan_find(&p, "_db95aeae-")->n, 1);
    ZBT_CONTAINS(splan_find(&p, "_db95aeae-")->d[0].path,
                 "20220819154922_62429d29");
    ZBT_EQ_U64(splan_find(&p, "_162cd69d-")->n, 0);
    ZBT_EQ_U64(splan_find(&p, "_1cad8c38-")->n, 0);
    ZBT_EQ_U64(splan_find(&p, "20220819154922_62429d29")->n, 0);
    ZBT_EQ_U64(p.st.pos_delete_files, 1);
    splan_free(&p);
    ZBT_OK_CTX(splan_run(&p, &f, NULL, NULL, 0), &f.ctx);
    ZBT_EQ_U64(p.n, 4);
    ZBT_EQ_U64(splan_find(&p, "_db95aeae-")->n, 1);
    ZBT_EQ_U64(splan_find(&p, "_162cd69d-")->n, 1);
    ZBT_CONTAINS(splan_find(&p, "_162cd69d-")->d[0].path,
                 "20220819155000_b0411d64");
    ZBT_EQ_U64(splan_find(&p, "_1cad8c38-")->n, 0);
    ZBT_EQ_U64(p.st.pos_delete_files, 2);
    ZBT_EQ_U64(p.st.unused_delete_files, 0);
    splan_free(&p);
    sfx_close(&f);
}

/* Tasks copied with zb_scan_task_copy outlive the plan and equal what
 * the plan yielded (splan_run's own copies). */
static void test_plan_scan_fixtures__task_copy(void)
{
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *t;
    zb_scan_task kept[8];
    zb_arena *arena = NULL;
    splan ref;
    sfx f;
    size_t n = 0, i, j;
    int rc;

    if (!sfx_open(&f, "impala-v3-deletion-vectors"))
        return;
    ZBT_OK_CTX(splan_run(&ref, &f, NULL, NULL, 0), &f.ctx);
    ZBT_CHECK(zb_arena_new(&arena, 1 << 20) == 0);
    po.manifest = &f.o;
    ZBT_OK_CTX(zb_scan_plan_open(&p, f.io, &f.ctx, f.m,
                                 ice_metadata_current_snapshot(f.m), &po),
               &f.ctx);
    while ((rc = zb_scan_plan_next(p, &f.ctx, &t)) > 0) {
        ZBT_CHECK(n < 8);
        ZBT_OK_CTX(zb_scan_task_copy(&kept[n++], &f.ctx, arena, t), &f.ctx);
    }
    ZBT_OK_CTX(rc, &f.ctx);
    zb_scan_plan_free(p);
    ZBT_EQ_U64(n, ref.n);
    for (i = 0; i < n; i++) {
        ZBT_EQ_STR(kept[i].data.file->file_path, ref.t[i].path);
        ZBT_EQ_STR(kept[i].data.uri, ref.t[i].uri);
        ZBT_EQ_INT(kept[i].data.data_sequence_number, ref.t[i].seq);
        ZBT_EQ_INT(kept[i].data.file->record_count, ref.t[i].records);
        ZBT_EQ_U64(kept[i].n_deletes, ref.t[i].n);
        for (j = 0; j < kept[i].n_deletes; j++) {
            const ice_data_file *d = kept[i].deletes[j].file;
            ZBT_EQ_STR(d->file_path, ref.t[i].d[j].path);
            ZBT_EQ_STR(kept[i].deletes[j].uri, ref.t[i].d[j].uri);
            ZBT_EQ_INT(d->content_offset, ref.t[i].d[j].offset);
            ZBT_CHECK(d->referenced_data_file != NULL);
            ZBT_CHECK(zb_scan_path_same(d->referenced_data_file,
                                        kept[i].data.file->file_path));
        }
    }
    zb_arena_free(arena);
    splan_free(&ref);
    sfx_close(&f);
}

static void test_plan_scan_fixtures__paths(void)
{
    ZBT_EQ_STR(zb_scan_path_strip("hdfs://localhost:20500/a/b"), "/a/b");
    ZBT_EQ_STR(zb_scan_path_strip("s3a://bucket/k/x.parquet"), "/k/x.parquet");
    ZBT_EQ_STR(zb_scan_path_strip("file:/tmp/x"), "/tmp/x");
    ZBT_EQ_STR(zb_scan_path_strip("/tmp/x"), "/tmp/x");
    ZBT_EQ_STR(zb_scan_path_strip("rel/a:b"), "rel/a:b");
    ZBT_EQ_STR(zb_scan_path_strip("s3://bucket"), "");
    ZBT_CHECK(zb_scan_path_same("hdfs://nn:1/w/t/f", "/w/t/f"));
    ZBT_CHECK(zb_scan_path_same("/w/t/f", "/w/t/f"));
    ZBT_CHECK(!zb_scan_path_same("/w/t/f", "/w/t/g"));
    ZBT_CHECK(!zb_scan_path_same(NULL, "/w"));
}

/* Plans snap at 1 and at threads threads: the same rc, message, tasks in
 * the same order, and stats. */
static void same_at_threads(sfx *f, const ice_snapshot *s,
                            const zb_scan_pred *preds, size_t n_preds,
                            unsigned threads, const char *name)
{
    splan a, b;
    char msg[sizeof f->ctx.err.msg];
    int ra, rb;

    ra = splan_run_threads(&a, f, s, preds, n_preds, 1);
    snprintf(msg, sizeof msg, "%s", ra < 0 ? f->ctx.err.msg : "");
    zb_err_clear(&f->ctx.err);
    rb = splan_run_threads(&b, f, s, preds, n_preds, threads);
    if (ra != rb || a.n != b.n)
        zbt__fail(__FILE__, __LINE__, "%s snapshot %lld: rc %d / %d, %zu / "
                  "%zu tasks at 1 and %u threads", name,
                  (long long)s->snapshot_id, ra, rb, a.n, b.n, threads);
    if (ra < 0)
        ZBT_EQ_STR(f->ctx.err.msg, msg);
    zb_err_clear(&f->ctx.err);
    ZBT_CHECK(a.n == 0 || memcmp(a.t, b.t, a.n * sizeof *a.t) == 0);
    ZBT_CHECK(memcmp(&a.st, &b.st, sizeof a.st) == 0);
    splan_free(&a);
    splan_free(&b);
}

/*
 * Every snapshot of every fixture table (those whose manifest list was not
 * copied included: the same error) planned with the manifests read on 3
 * threads and on 2: the plan of one thread, task for task, and its stats;
 * and the same with a filter that skips manifests and files.
 */
static void test_plan_scan_fixtures__threads_same_plan(void)
{
    DIR *d = opendir(ZB_FIXTURES_DIR);
    struct dirent *de;
    char names[64][128];
    size_t n = 0, i, k, planned = 0;

    if (d == NULL) {
        printf("  (skipped: no fixtures at %s)\n", ZB_FIXTURES_DIR);
        return;
    }
    while ((de = readdir(d)) != NULL && n < 64)
        if (de->d_name[0] != '.' && strchr(de->d_name, '.') == NULL)
            snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    closedir(d);
    ZBT_CHECK(n >= 35);
    for (i = 0; i < n; i++) {
        sfx f;
        if (!sfx_open(&f, names[i]))
            continue;
        for (k = 0; k < f.m->n_snapshots; k++) {
            same_at_threads(&f, &f.m->snapshots[k], NULL, 0, 3, names[i]);
            same_at_threads(&f, &f.m->snapshots[k], NULL, 0, 2, names[i]);
            planned++;
        }
        sfx_close(&f);
    }
    ZBT_CHECK(planned >= 35);
    {
        /* A filter on l_orderkey (field 1, long). */
        sfx f;
        if (sfx_open(&f, "duckdb-lineitem")) {
            const ice_snapshot *cur = ice_metadata_current_snapshot(f.m);
            zb_scan_pred pr;
            memset(&pr, 0, sizeof pr);
            pr.field_id = 1;
            pr.op = ZB_SCAN_LT;
            pr.literal = ice_value_long(1000);
            same_at_threads(&f, cur, &pr, 1, 3, "duckdb-lineitem");
            sfx_close(&f);
        }
    }
}

/* The stop flag with manifests read ahead: the next call after it is
 * raised is ZB_ECANCELED, and freeing the plan waits for its jobs. */
static void test_plan_scan_fixtures__threads_stop(void)
{
    sfx f;
    zb_scan_plan_opts po = ZB_SCAN_PLAN_OPTS_INIT;
    zb_scan_plan *p = NULL;
    const zb_scan_task *t;
    atomic_int stop = 0;

    if (!sfx_open(&f, "impala-v2-pos-delete"))
        return;
    f.ctx.stop = &stop;
    po.manifest = &f.o;
    po.threads = 3;
    ZBT_OK_CTX(zb_scan_plan_open(&p, f.io, &f.ctx, f.m,
                                 ice_metadata_current_snapshot(f.m), &po),
               &f.ctx);
    ZBT_EQ_INT(zb_scan_plan_next(p, &f.ctx, &t), 1);
    atomic_store(&stop, 1);
    ZBT_RC(zb_scan_plan_next(p, &f.ctx, &t), ZB_ECANCELED);
    zb_scan_plan_free(p);
    /* Raised before open: the delete pass stops. */
    p = NULL;
    ZBT_RC(zb_scan_plan_open(&p, f.io, &f.ctx, f.m,
                             ice_metadata_current_snapshot(f.m), &po),
           ZB_ECANCELED);
    ZBT_CHECK(p == NULL);
    f.ctx.stop = NULL;
    sfx_close(&f);
}

const zbt_case test_plan_scan_fixtures[] = {
    ZBT_CASE(test_plan_scan_fixtures__all_snapshots),
    ZBT_CASE(test_plan_scan_fixtures__dangling_pos_delete),
    ZBT_CASE(test_plan_scan_fixtures__eq_sequence_rule),
    ZBT_CASE(test_plan_scan_fixtures__pos_partitioned),
    ZBT_CASE(test_plan_scan_fixtures__deletion_vectors),
    ZBT_CASE(test_plan_scan_fixtures__eq_deletes_by_sequence),
    ZBT_CASE(test_plan_scan_fixtures__older_snapshot),
    ZBT_CASE(test_plan_scan_fixtures__task_copy),
    ZBT_CASE(test_plan_scan_fixtures__paths),
    ZBT_CASE(test_plan_scan_fixtures__threads_same_plan),
    ZBT_CASE(test_plan_scan_fixtures__threads_stop),
    ZBT_END
};
