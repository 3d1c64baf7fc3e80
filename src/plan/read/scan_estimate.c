/*
 * plan/read/scan_estimate.c - the memory a row stream over a group of scan
 * tasks needs, from manifest facts alone (the model is documented with
 * zb_scan_estimate_bytes in plan/read/scan_read.h).
 */
#include <string.h>

#include "plan/read/scan_read_int.h"

#define ROW_GROUP_BOUND ((uint64_t)128 << 20)
#define DEFAULT_ROW_WIDTH 64u

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t nonneg(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

static void add_delete(zb_scan_estimate *e, const ice_data_file *del)
{
    uint64_t recs = nonneg(del->record_count);

    if (del->content == ICE_CONTENT_POSITION_DELETES)
        e->position_bytes = sat_add(e->position_bytes, sat_mul(recs, 16));
    else if (del->content == ICE_CONTENT_EQUALITY_DELETES)
        e->equality_bytes = sat_add(e->equality_bytes,
            sat_mul(recs, 48 + 16 * (uint64_t)del->n_equality_ids));
}

uint64_t zb_scan_estimate_bytes(const zb_scan_task *tasks, size_t n,
                                size_t batch_rows, uint64_t eq_memory_bytes,
                                zb_scan_estimate *parts)
{
    zb_scan_estimate e;
    zb_delindex dx;
    size_t t, d, i;

    memset(&e, 0, sizeof e);
    if (batch_rows == 0)
        batch_rows = 65536;
    for (t = 0; t < n; t++) {
        const ice_data_file *df = tasks[t].data.file;
        uint64_t size = nonneg(df->file_size_in_bytes);
        uint64_t rows = nonneg(df->record_count);
        uint64_t width = rows ? size / rows : DEFAULT_ROW_WIDTH;
        uint64_t chunk = size < ROW_GROUP_BOUND ? size : ROW_GROUP_BOUND;
        uint64_t read;

        if (width < 8)
            width = 8;
        read = sat_add(sat_mul(chunk, 2),
                       sat_mul(sat_mul(batch_rows, width), 8));
        if (read > e.read_bytes)
            e.read_bytes = read;
    }
    /* Each delete file once, however many tasks list it (without the
     * memory to find out, each listing counts: an overestimate). */
    if (zb_scan__delindex_build(&dx, tasks, n) == ZB_OK) {
        for (i = 0; i < dx.n; i++)
            add_delete(&e, dx.files[i].f->file);
        zb_scan__delindex_free(&dx);
    } else {
        for (t = 0; t < n; t++)
            for (d = 0; d < tasks[t].n_deletes; d++)
                add_delete(&e, tasks[t].deletes[d].file);
    }
    if (eq_memory_bytes && e.equality_bytes > eq_memory_bytes) {
        uint64_t rows = 0;
        for (t = 0; t < n; t++)
            rows = sat_add(rows, nonneg(tasks[t].data.file->record_count));
        e.equality_bytes = sat_add(sat_add(eq_memory_bytes, 2u << 20),
                                   rows / 8 + 1);
    }
    e.total_bytes = sat_add(sat_add(e.read_bytes, e.position_bytes),
                            e.equality_bytes);
    if (parts)
        *parts = e;
    return e.total_bytes;
}
