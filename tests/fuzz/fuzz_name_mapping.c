/*
 * libFuzzer target: the table property schema.name-mapping.default
 * (src/plan/read/scan_namemap.c), a JSON text any writer may have put in a
 * table's metadata.
 *
 * The parser must return ZB_OK, or ZB_ECORRUPT / ZB_ENOMEM with a
 * message, never crash. On ZB_OK the tree is walked: every entry has its
 * names (non-NULL strings), ids are -1 or non-negative, and a lookup by
 * each id finds an entry with that id.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/read/scan_read_int.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const zb_nm_field *nm, int depth)
{
    size_t i, j;

    if (depth > ICE_MAX_TYPE_DEPTH + 1)
        abort();
    for (i = 0; i < nm->n_fields; i++) {
        const zb_nm_field *f = &nm->fields[i];
        if (f->id < -1)
            abort();
        for (j = 0; j < f->n_names; j++)
            if (f->names[j] == NULL)
                abort();
        if (f->id >= 0) {
            const zb_nm_field *g = zb_scan__nm_find(nm, f->id);
            if (g == NULL || g->id != f->id)
                abort();
        }
        walk(f, depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zb_ctx ctx;
    zb_arena *arena = NULL;
    zb_nm_field root;
    char *text;
    int rc;

    if (size > (1u << 20))
        return 0;
    zb_ctx_init(&ctx);
    if ((text = zb_malloc(size + 1)) == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (zb_arena_new(&arena, (size_t)64 << 20) < 0) {
        zb_free(text);
        return 0;
    }
    rc = zb_scan__name_mapping_parse(&root, arena, &ctx, text);
    if (rc == ZB_OK)
        walk(&root, 0);
    else if ((rc != ZB_ECORRUPT && rc != ZB_ENOMEM) || ctx.err.msg[0] == 0)
        abort();
    zb_arena_free(arena);
    zb_free(text);
    return 0;
}
