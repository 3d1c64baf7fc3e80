/*
 * libFuzzer target: ice_metadata_parse on arbitrary bytes, and a round
 * trip for what parses.
 *
 * The parser must return ZB_OK, or ZB_ECORRUPT / ZB_EUNSUPPORTED /
 * ZB_ENOMEM with a message, never crash or read out of bounds. On ZB_OK
 * the model is walked (every string and nested type touched, so ASan
 * checks the arena copies), the current snapshot's ancestry is followed,
 * a property is set, and the document is written and parsed again: the
 * second parse must succeed and agree with the first on the counts.
 */
#include <stdlib.h>
#include <string.h>

#include "table/metadata/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(const char *s)
{
    if (s != NULL)
        sink += strlen(s);
}

static void walk_type(const ice_type *t, int depth)
{
    size_t i;

    if (t == NULL || depth > ICE_MAX_TYPE_DEPTH + 1)
        abort();
    touch(t->text);
    touch(t->crs);
    touch(t->edges);
    for (i = 0; i < t->n_fields; i++) {
        touch(t->fields[i].name);
        touch(t->fields[i].doc);
        touch(t->fields[i].initial_default);
        touch(t->fields[i].write_default);
        walk_type(t->fields[i].type, depth + 1);
    }
    if (t->id == ICE_LIST)
        walk_type(t->element, depth + 1);
    if (t->id == ICE_MAP) {
        walk_type(t->key, depth + 1);
        walk_type(t->value, depth + 1);
    }
}

static void walk(const ice_metadata *m)
{
    size_t i, j;

    touch(m->location);
    touch(m->table_uuid);
    if (ice_metadata_current_schema(m) == NULL ||
        ice_metadata_default_spec(m) == NULL)
        abort();
    for (i = 0; i < m->n_schemas; i++) {
        walk_type(m->schemas[i].root, 1);
        for (j = 0; j < m->schemas[i].n_identifier_field_ids; j++)
            sink += (size_t)m->schemas[i].identifier_field_ids[j];
    }
    for (i = 0; i < m->n_specs; i++)
        for (j = 0; j < m->specs[i].n_fields; j++) {
            touch(m->specs[i].fields[j].name);
            touch(m->specs[i].fields[j].transform);
            sink += (size_t)m->specs[i].fields[j].source_ids[0];
        }
    for (i = 0; i < m->n_snapshots; i++) {
        const ice_snapshot *s = &m->snapshots[i];

        if (ice_metadata_snapshot(m, s->snapshot_id) != s)
            abort();
        touch(s->manifest_list);
        touch(s->operation);
        for (j = 0; j < s->n_manifests; j++)
            touch(s->manifests[j]);
        for (j = 0; j < s->n_summary; j++)
            touch(s->summary[j].value);
    }
    for (i = 0; i < m->n_refs; i++)
        if (ice_metadata_snapshot(m, m->refs[i].snapshot_id) == NULL)
            abort();
    for (i = 0; i < m->n_properties; i++)
        touch(m->properties[i].value);
    for (i = 0; i < m->n_metadata_log; i++)
        touch(m->metadata_log[i].metadata_file);
    if (ice_metadata_ancestors(NULL, 0, m, m->current_snapshot_id) >
        m->n_snapshots)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ice_metadata *m = NULL, *again = NULL;
    zb_buf out = ZB_BUF_INIT((size_t)64 << 20);
    zb_ctx ctx;
    int rc;

    zb_ctx_init(&ctx);
    rc = ice_metadata_parse(&m, &ctx, (const char *)data, size, "fuzz");
    if (rc != ZB_OK) {
        if ((rc != ZB_ECORRUPT && rc != ZB_EUNSUPPORTED && rc != ZB_ENOMEM) ||
            ctx.err.msg[0] == 0 || m != NULL)
            abort();
        return 0;
    }
    walk(m);
    if (ice_metadata_set_property(m, &ctx, "fuzz", "1") != ZB_OK)
        abort();
    if (ice_metadata_write(&out, m, &ctx) != ZB_OK)
        abort();
    if (ice_metadata_parse(&again, &ctx, out.ptr, out.len, "again") != ZB_OK)
        abort();
    if (again->n_snapshots != m->n_snapshots ||
        again->n_schemas != m->n_schemas ||
        again->current_snapshot_id != m->current_snapshot_id ||
        strcmp(ice_metadata_property(again, "fuzz"), "1") != 0)
        abort();
    ice_metadata_free(again);
    ice_metadata_free(m);
    zb_buf_free(&out);
    return 0;
}
