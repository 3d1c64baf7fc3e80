/*
 * apply-properties on generated tables in folders: properties set and
 * removed (only what differs), the sort order by column names and as
 * JSON, a format-version upgrade (v1 -> v2, live files unchanged), a
 * refused downgrade, dry run and no-op runs commit nothing (the folder's
 * files unchanged, byte for byte and by time), the report lines, and the
 * table-config key mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ops/apply_properties.h"
#include "table/commit/commit.h"
#include "ops_fixture.h"
#include "util/alloc.h"

static void report(char *out, size_t n, const char *ident,
                   const zb_apply_props_result *r, int dry)
{
    zb_buf b;

    zb_buf_init(&b, 1 << 20);
    ZBT_EQ_INT(zb_apply_properties_report(&b, ident, r, dry), 0);
    snprintf(out, n, "%s", zb_buf_cstr(&b));
    zb_buf_free(&b);
}

static void test_ops_tidy_props__set_remove(void)
{
    of_env e;
    ice_kv set[] = { { "write.target-file-size-bytes", "1000" },
                     { "commit.retry.num-retries", "7" },
                     { "zb.test", "x" } };
    const char *rm[] = { "zb.absent", "zb.test2" };
    zb_apply_props_opts o = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
    char *before, *after, text[2048];
    zb_table *t;
    of_items a, b;

    of_open(&e, "props");
    of_make_table(&e, 2, 0, 1, 2, 10);
    of_live(&a, &e);
    o.set = set;
    o.n_set = 3;
    o.remove = rm;
    o.n_remove = 2;
    /* dry run: the three changes, nothing written */
    before = of_listing(e.dir);
    e.t.dry_run = 1;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 3);
    ZBT_EQ_INT(r.committed, 0);
    report(text, sizeof text, "db.t", &r, 1);
    ZBT_EQ_STR(text, "db.t: would set 3 properties\n"
               "  write.target-file-size-bytes: (unset) -> 1000\n"
               "  commit.retry.num-retries: (unset) -> 7\n"
               "  zb.test: (unset) -> x\n");
    after = of_listing(e.dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_apply_props_result_free(&r);
    /* the run */
    e.t.dry_run = 0;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.committed, 1);
    ZBT_EQ_U64(r.n_changes, 3);
    zb_apply_props_result_free(&r);
    t = of_load(&e);
    ZBT_EQ_STR(ice_metadata_property(t->meta, "write.target-file-size-bytes"),
               "1000");
    ZBT_EQ_STR(ice_metadata_property(t->meta, "zb.test"), "x");
    zb_table_free(t);
    of_live(&b, &e);
    of_items_same(&a, &b, NULL, 0);
    of_items_free(&b);
    /* again: nothing differs, nothing committed */
    zb_free(before);
    before = of_listing(e.dir);
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 0);
    ZBT_EQ_INT(r.committed, 0);
    report(text, sizeof text, "db.t", &r, 0);
    ZBT_EQ_STR(text, "db.t: properties already match\n");
    after = of_listing(e.dir);
    ZBT_EQ_STR(after, before);
    zb_free(after);
    zb_free(before);
    /* a changed value and a removal of a present key */
    set[0].value = "2000";
    rm[1] = "zb.test";
    o.n_set = 1;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 2);
    report(text, sizeof text, "db.t", &r, 0);
    ZBT_EQ_STR(text, "db.t: set 2 properties\n"
               "  write.target-file-size-bytes: 1000 -> 2000\n"
               "  zb.test: x -> (unset)\n");
    zb_apply_props_result_free(&r);
    t = of_load(&e);
    ZBT_CHECK(ice_metadata_property(t->meta, "zb.test") == NULL);
    ZBT_EQ_STR(ice_metadata_property(t->meta, "commit.retry.num-retries"),
               "7");
    zb_table_free(t);
    of_live(&b, &e);
    of_items_same(&a, &b, NULL, 0);
    of_items_free(&b);
    of_items_free(&a);
    /* a reserved key is refused */
    set[0].key = "format-version";
    ZBT_RC(zb_apply_properties(&e.t, &e.ctx, &o, &r), ZB_EINVAL);
    zb_apply_props_result_free(&r);
    of_close(&e);
}

static void test_ops_tidy_props__sort_order(void)
{
    of_env e;
    zb_sort_column cols[] = { { "part", 0, 0, NULL },
                              { "id", 1, 1, "bucket[4]" } };
    zb_apply_props_opts o = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
    const ice_sort_order *so;
    char text[1024], *before, *after;
    zb_table *t;
    json_t *j;

    of_open(&e, "sort");
    of_make_table(&e, 2, 1, 2, 2, 10);
    o.sort = cols;
    o.n_sort = 2;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 1);
    ZBT_EQ_INT(r.committed, 1);
    report(text, sizeof text, "t", &r, 0);
    ZBT_EQ_STR(text, "t: set 1 property\n  sort-order: unsorted -> part asc "
               "nulls-last, bucket[4](id) desc nulls-first\n");
    zb_apply_props_result_free(&r);
    t = of_load(&e);
    so = ice_metadata_sort_order(t->meta, t->meta->default_sort_order_id);
    ZBT_CHECK(so != NULL && so->n_fields == 2);
    ZBT_EQ_INT(so->fields[0].source_id, 2);
    ZBT_CHECK(so->fields[0].null_order == ICE_NULLS_LAST);
    ZBT_EQ_INT(so->fields[1].source_id, 1);
    ZBT_EQ_STR(so->fields[1].transform, "bucket[4]");
    ZBT_CHECK(so->fields[1].direction == ICE_SORT_DESC);
    zb_table_free(t);
    /* the same order as JSON: nothing to do */
    j = json_loads("{\"order-id\":5,\"fields\":["
                   "{\"transform\":\"identity\",\"source-id\":2,"
                   "\"direction\":\"asc\",\"null-order\":\"nulls-last\"},"
                   "{\"transform\":\"bucket[4]\",\"source-id\":1,"
                   "\"direction\":\"desc\",\"null-order\":\"nulls-first\"}]}",
                   0, NULL);
    ZBT_CHECK(j != NULL);
    o.n_sort = 0;
    o.sort_order = (const zb_json *)j;
    before = of_listing(e.dir);
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 0);
    after = of_listing(e.dir);
    ZBT_EQ_STR(after, before);
    zb_free(before);
    zb_free(after);
    json_decref(j);
    /* back to unsorted */
    o.sort_order = NULL;
    o.sort_unsorted = 1;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 1);
    zb_apply_props_result_free(&r);
    t = of_load(&e);
    ZBT_EQ_INT(t->meta->default_sort_order_id, 0);
    zb_table_free(t);
    /* an unknown column */
    cols[0].column = "nope";
    o.sort_unsorted = 0;
    o.n_sort = 1;
    ZBT_RC(zb_apply_properties(&e.t, &e.ctx, &o, &r), ZB_EINVAL);
    ZBT_CONTAINS(e.ctx.err.msg, "nope");
    zb_apply_props_result_free(&r);
    of_close(&e);
}

/*
 * v1 -> v2. The table gets its snapshot after the upgrade: a v1 snapshot
 * carried into v2 has no "sequence-number", which the metadata checks
 * of table/commit refuse today (Iceberg Java reads it as 0); see the
 * report.
 */
static void test_ops_tidy_props__format_upgrade(void)
{
    of_env e;
    zb_apply_props_opts o = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
    char text[512];
    zb_table *t;
    of_items a, b;
    uint64_t rows0, h0;

    of_open(&e, "v1");
    of_make_table(&e, 1, 1, 2, 0, 10);
    o.format_version = 2;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    report(text, sizeof text, "t", &r, 0);
    ZBT_EQ_STR(text, "t: set 1 property\n  format-version: 1 -> 2\n");
    zb_apply_props_result_free(&r);
    t = of_load(&e);
    ZBT_EQ_INT(t->meta->format_version, 2);
    zb_table_free(t);
    of_append(&e, 0, 0, 10);
    of_append(&e, 1, 10, 10);
    of_live(&a, &e);
    of_rows(&e, &rows0, &h0);
    ZBT_EQ_U64(rows0, 20);
    /* v2 -> v3 with data: the files stay as they are */
    o.format_version = 3;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 1);
    zb_apply_props_result_free(&r);
    of_live(&b, &e);
    of_items_same(&a, &b, NULL, 0);
    /* no downgrade */
    o.format_version = 2;
    ZBT_RC(zb_apply_properties(&e.t, &e.ctx, &o, &r), ZB_EREFUSED);
    zb_apply_props_result_free(&r);
    /* equal: nothing */
    o.format_version = 3;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_U64(r.n_changes, 0);
    of_items_free(&a);
    of_items_free(&b);
    of_close(&e);
}

static void test_ops_tidy_props__config_keys(void)
{
    zb_config_props c = ZB_CONFIG_PROPS_INIT;
    zb_config_prop p[ZB_CONFIG_PROPS_MAX];

    ZBT_EQ_U64(zb_config_props_to_properties(p, &c), 0);
    c.target_file_size_bytes = 134217728;
    c.previous_versions_max = 10;
    c.delete_after_commit = 1;
    c.max_snapshot_age_days = 5;
    c.min_snapshots_to_keep = 3;
    c.max_ref_age_days = 0;
    ZBT_EQ_U64(zb_config_props_to_properties(p, &c), 6);
    ZBT_EQ_STR(p[0].key, "write.target-file-size-bytes");
    ZBT_EQ_STR(p[0].value, "134217728");
    ZBT_EQ_STR(p[1].key, "write.metadata.previous-versions-max");
    ZBT_EQ_STR(p[1].value, "10");
    ZBT_EQ_STR(p[2].key, "write.metadata.delete-after-commit.enabled");
    ZBT_EQ_STR(p[2].value, "true");
    ZBT_EQ_STR(p[3].key, "history.expire.max-snapshot-age-ms");
    ZBT_EQ_STR(p[3].value, "432000000");
    ZBT_EQ_STR(p[4].key, "history.expire.min-snapshots-to-keep");
    ZBT_EQ_STR(p[4].value, "3");
    ZBT_EQ_STR(p[5].key, "history.expire.max-ref-age-ms");
    ZBT_EQ_STR(p[5].value, "0");
    c = (zb_config_props)ZB_CONFIG_PROPS_INIT;
    c.delete_after_commit = 0;
    ZBT_EQ_U64(zb_config_props_to_properties(p, &c), 1);
    ZBT_EQ_STR(p[0].value, "false");
}

/* One change is one metadata commit and no snapshot. */
static void test_ops_tidy_props__requirements(void)
{
    of_env e;
    ice_kv set[] = { { "k", "v" } };
    zb_apply_props_opts o = ZB_APPLY_PROPS_OPTS_INIT;
    zb_apply_props_result r = ZB_APPLY_PROPS_RESULT_INIT;
    size_t n0;

    of_open(&e, "req");
    of_make_table(&e, 2, 0, 1, 1, 5);
    n0 = of_snapshot_count(&e);
    o.set = set;
    o.n_set = 1;
    ZBT_OK_CTX(zb_apply_properties(&e.t, &e.ctx, &o, &r), &e.ctx);
    ZBT_EQ_INT(r.attempts, 1);
    ZBT_EQ_U64(of_snapshot_count(&e), n0);     /* no snapshot added */
    zb_apply_props_result_free(&r);
    of_close(&e);
}

const zbt_case test_ops_tidy_props[] = {
    ZBT_CASE(test_ops_tidy_props__set_remove),
    ZBT_CASE(test_ops_tidy_props__sort_order),
    ZBT_CASE(test_ops_tidy_props__format_upgrade),
    ZBT_CASE(test_ops_tidy_props__config_keys),
    ZBT_CASE(test_ops_tidy_props__requirements),
    ZBT_END
};
