/*
 * The live ids of a test table by the independent reference reader
 * (tests/interop/scan_reference.mjs), for the compaction tests that
 * check rows outside our own reader.
 */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "compact_test.h"
#include "util/alloc.h"
#include "zbtest.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The live ids by the reference reader, sorted; NULL without node. */
int64_t *ct_reference_ids(of_env *e, size_t *n)
{
    char cmd[4096], line[4096];
    int64_t *ids = NULL;
    size_t cap = 0;
    FILE *f;

    *n = 0;
    if (system("node --version >/dev/null 2>&1") != 0) {
        printf("  no node: the reference reader is not run\n");
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "node '%s/tests/interop/scan_reference.mjs' "
             "'%s'", ZB_SOURCE_DIR, e->dir);
    ZBT_CHECK((f = popen(cmd, "r")) != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        json_error_t err;
        json_t *row = json_loads(line, 0, &err);

        ZBT_CHECK(row != NULL && json_is_integer(json_object_get(row, "id")));
        if (*n == cap) {
            cap = cap ? cap * 2 : 1024;
            ZBT_CHECK((ids = zb_realloc(ids, cap * sizeof *ids)) != NULL);
        }
        ids[(*n)++] = (int64_t)json_integer_value(json_object_get(row, "id"));
        json_decref(row);
    }
    ZBT_EQ_INT(pclose(f), 0);
    if (ids == NULL)
        ZBT_CHECK((ids = zb_malloc(sizeof *ids)) != NULL);
    qsort(ids, *n, sizeof *ids, cmp_i64);
    return ids;
}

void ct_same_ids(const int64_t *a, size_t na, const int64_t *b,
                     size_t nb)
{
    size_t i;

    ZBT_EQ_U64(na, nb);
    for (i = 0; i < na && i < nb; i++)
        if (a[i] != b[i]) {
            printf("  id %zu: %lld, expected %lld\n", i, (long long)a[i],
                   (long long)b[i]);
            ZBT_CHECK(!"live ids differ");
            break;
        }
}
