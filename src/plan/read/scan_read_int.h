/*
 * plan/read/scan_read_int.h - private to the row stream (scan_read*.c,
 * scan_project.c, scan_field_schema.c, scan_missing.c, scan_eqkey.c,
 * scan_posdel.c, scan_eqdel.c): projection of a file's Arrow batches to
 * the read schema, name mappings, delete indexes.
 */
#ifndef ZB_PLAN_SCAN_READ_INT_H
#define ZB_PLAN_SCAN_READ_INT_H

#include <stddef.h>
#include <stdint.h>

#include "exec/arrow/arrow.h"
#include "plan/read/scan_read.h"
#include "table/value/ice_value.h"
#include "table/metadata/metadata.h"
#include "util/arena.h"
#include "util/buf.h"

/* Field ids of the position-delete columns (format/spec.md). */
#define ZB_POSDEL_FILE_PATH_ID 2147483546
#define ZB_POSDEL_POS_ID 2147483545

/* --- name mapping (schema.name-mapping.default) ------------------------ */

typedef struct zb_nm_field {
    int32_t id;                    /* -1 when the entry has none */
    size_t n_names;
    const char **names;
    size_t n_fields;
    struct zb_nm_field *fields;    /* nested mapping */
} zb_nm_field;

/*
 * Parses the JSON of a name mapping into root (a field without names whose
 * fields are the top level), in arena. ZB_ECORRUPT names what is wrong.
 */
int zb_scan__name_mapping_parse(zb_nm_field *root, zb_arena *arena,
                                zb_ctx *ctx, const char *json);

/* The entry among nm's fields with field id id, or NULL. */
const zb_nm_field *zb_scan__nm_find(const zb_nm_field *nm, int32_t id);

/* --- projection --------------------------------------------------------- */

/* One data (or delete) file as the projection sees it. */
typedef struct zb_proj_file {
    const char *uri;               /* for messages */
    int has_ids;                   /* the file's columns carry field ids */
    const zb_nm_field *nm;         /* mapping root, for files without ids */
    /* Identity-partition values for source fields the file lacks. */
    const ice_partition_spec *spec;
    const ice_data_file *df;
    zb_arena *arena;               /* parsed defaults live here */
} zb_proj_file;

/*
 * Fills out (an Arrow array of the read type t) with rows sel[0..n) of the
 * source array sa (schema ss), each at physical index sa->offset + base +
 * sel[k] (sel NULL: k itself), converting values to t. sa NULL: the field
 * is missing from the file; its rows read as the identity-partition value,
 * the initial default of f, or null. f may be NULL (list elements, map
 * keys and values). nm: the name-mapping entry of this field (may be NULL).
 */
int zb_scan__gather(const zb_proj_file *pf, zb_ctx *ctx,
                    struct ArrowArray *out, const ice_type *t,
                    const ice_field *f, const zb_nm_field *nm,
                    const struct ArrowSchema *ss, const struct ArrowArray *sa,
                    const uint32_t *sel, size_t n, int64_t base);

/*
 * Whether a source column (schema ss) has exactly the Arrow form of read
 * type t, so that its array may be moved into a batch without a copy.
 */
int zb_scan__can_move(const zb_proj_file *pf, const ice_type *t,
                      const zb_nm_field *nm, const struct ArrowSchema *ss);

/*
 * The index of the child of the source struct ss that holds read field f
 * (by field id, or by the mapping's names when the file has no ids), or
 * -1. *nm_out gets f's mapping entry (NULL when none).
 */
int zb_scan__src_child(const zb_proj_file *pf, const struct ArrowSchema *ss,
                       const ice_field *f, const zb_nm_field *nm_level,
                       const zb_nm_field **nm_out);

/* The Arrow schema of read field f (name, field-id metadata, type). */
int zb_scan__field_schema(struct ArrowSchema *out, const ice_field *f);

/*
 * Appends the canonical key bytes of row i of a (an array of read type t
 * as zb_scan__gather makes it): a marker byte (0 null, 1 present) and
 * then the value: 8 bytes for the integer and time types, the bits of a
 * double (NaN folded to one), 16 bytes of a decimal, 4-byte length and
 * bytes for strings and binary, the bytes of fixed and uuid, 1 for bool.
 */
int zb_scan__key_append(zb_buf *out, const struct ArrowArray *a,
                        const ice_type *t, int64_t i);

/* The path from a read-schema root to field id: the fields on the way. */
#define ZB_SCAN_MAX_PATH 16
size_t zb_scan__field_path(const ice_field **path, size_t max,
                           const ice_type *root, int32_t id);

/* A struct child's field id from its "PARQUET:field_id" metadata, or -1. */
int32_t zb_scan__arrow_field_id(const struct ArrowSchema *s);

/* Whether two paths name the same file (as written, or without scheme
 * and authority). */
int zb_scan__same_path(const char *a, size_t alen, const char *b,
                       size_t blen);

/* --- helpers the projection's files share ------------------------------ */

/* Whether slot phys (offset included) of a is valid. */
static inline int zb_scan__src_valid(const struct ArrowArray *a, int64_t phys)
{
    const uint8_t *bits;

    if (a->null_count == 0 || a->n_buffers == 0)
        return 1;
    bits = a->buffers[0];
    return bits == NULL || zb_arrow_bit(bits, phys);
}

/* Marks slot i of out valid, or counts a null. */
static inline void zb_scan__set_valid(struct ArrowArray *out, int64_t i,
                                      int valid)
{
    if (valid)
        zb_arrow_set_bit((uint8_t *)out->buffers[0], i);
    else
        out->null_count++;
}

/* The name of field f for messages (NULL: a list element, key or value). */
static inline const char *zb_scan__fname(const ice_field *f)
{
    return f ? f->name : "(element)";
}

/* A zeroed buffer of bytes (at least one), or NULL. */
void *zb_scan__alloc_buf(size_t bytes);

/* Allocates the validity bitmap of out (buffer 0), all bits clear. */
int zb_scan__alloc_validity(struct ArrowArray *out, size_t n);

/* The byte width of a fixed-width read type's values, or 0. */
int zb_scan__value_width(ice_type_id id);

/* Whether read type id is a string or binary (offsets and data). */
int zb_scan__is_varlen(ice_type_id id);

/* The Arrow format string of read type t into out; ZB_EUNSUPPORTED. */
int zb_scan__type_format(char *out, size_t size, const ice_type *t);

/* The read type of each of a variant's two parts (binary). */
extern const ice_type zb_scan__variant_part;

/*
 * Fills out with n rows of constant v (NULL: null) in the Arrow form of
 * read type t (f: the field, for messages).
 */
int zb_scan__fill_const(const zb_proj_file *pf, zb_ctx *ctx,
                        struct ArrowArray *out, const ice_type *t,
                        const ice_field *f, const ice_value *v, size_t n);

/* A missing field: rows of the partition value, the default, or null. */
int zb_scan__gather_missing(const zb_proj_file *pf, zb_ctx *ctx,
                            struct ArrowArray *out, const ice_type *t,
                            const ice_field *f, size_t n);

/* --- distinct delete files and data paths --------------------------------- */

typedef struct zb_delfile {
    const zb_scan_file *f;         /* its first listing */
    size_t n_tasks;
    size_t *tasks;                 /* the tasks listing it, ascending */
} zb_delfile;

typedef struct zb_delindex {
    size_t n;
    zb_delfile *files;             /* in order of first appearance */
    size_t *task_buf;
} zb_delindex;

/* The distinct delete files of tasks (DVs: by path and offset).
 * ZB_OK or ZB_ENOMEM (no message). */
int zb_scan__delindex_build(zb_delindex *out, const zb_scan_task *tasks,
                            size_t n);
void zb_scan__delindex_free(zb_delindex *x);

/* Data file paths of some tasks, found as written or without scheme and
 * authority. */
typedef struct zb_pathmap {
    const zb_scan_task *tasks;
    size_t cap;
    size_t *slots;
} zb_pathmap;

int zb_scan__pathmap_build(zb_pathmap *m, const zb_scan_task *tasks,
                           const size_t *cand, size_t n);
/* The task whose data file p names (as written first), or SIZE_MAX. */
size_t zb_scan__pathmap_find(const zb_pathmap *m, const char *p, size_t len);
void zb_scan__pathmap_free(zb_pathmap *m);

/* --- the stream ------------------------------------------------------- */

#include "exec/keyset/keyset.h"
#include "format/parquet/parquet.h"
#include "zamboni/budget.h"

/* One key column of an equality set: its path in the schema it is from. */
typedef struct zb_eqkey {
    int32_t id;
    const ice_type *root;          /* the schema root the path starts at */
    const ice_field *path[ZB_SCAN_MAX_PATH];
    size_t depth;
} zb_eqkey;

/* A distinct set of equality_ids (sorted). */
typedef struct zb_eqset {
    size_t n_ids;
    int32_t *ids;
    zb_eqkey *keys;
} zb_eqset;

/* A scope: the delete files of one eq set that apply to the same tasks. */
typedef struct zb_eqscope {
    uint32_t id;
    size_t eqset;
} zb_eqscope;

typedef struct zb_task_state {
    uint64_t *pos;                 /* sorted, distinct deleted positions */
    size_t n_pos;
    size_t *scopes;                /* indexes into rs->scopes */
    size_t n_scopes;
    uint8_t *eq_marks;             /* spilled sets: rows deleted by equality */
    size_t eq_marks_bytes;
} zb_task_state;

struct zb_rowstream {
    zb_io *io;
    zb_rowstream_opts opts;
    ice_manifest_opts paths;
    int has_paths;
    const ice_schema *schema;
    const zb_scan_task *tasks;
    size_t n_tasks;
    zb_arena *arena;
    zb_arena *batch_arena;         /* defaults parsed for one batch */
    zb_nm_field nm;
    int has_nm;
    const ice_field **out_fields;  /* the batch's fields */
    size_t n_out;
    size_t lineage_at;             /* out_fields index of _row_id (then
                                      _last_updated_sequence_number), or
                                      SIZE_MAX without opts.lineage */
    int lineage_rewrite;           /* opts.lineage == ZB_LINEAGE_REWRITE */
    zb_task_state *ts;
    zb_delindex dx;                /* distinct delete files */
    /* equality deletes */
    zb_eqset *eqsets;
    size_t n_eqsets;
    zb_eqscope *scopes;
    size_t n_scopes;
    zb_keyset *ks;
    int marked;                    /* eq deletes are in ts[].eq_marks */
    /* reading */
    size_t ti;                     /* task being read */
    pq_reader *r;
    struct ArrowSchema rschema;    /* the reader's batch schema */
    zb_proj_file pf;
    int8_t *movable;               /* per output field, this file: -1 ? */
    zb_buf uri;
    uint64_t row_base;             /* file position of the batch's row 0 */
    size_t pos_cur;
    size_t last_task;
    /* The last batch's rows as positions of its file (issue 21): the
     * first read row's position and whether sel picked rows. */
    uint64_t last_pos0;
    size_t last_nsel;
    int last_sel;
    uint32_t *sel;
    size_t sel_cap;
    uint8_t *del;                  /* per batch: 0 live, 1 pos, 2 eq */
    size_t del_cap;
    zb_buf key;
    int failed;
    zb_reservation res;            /* position lists and eq marks */
    zb_read_counts counts;
};

/* The URI of a scan file (its uri, else file_path through the paths). */
int zb_scan__file_uri(zb_rowstream *rs, zb_ctx *ctx, const zb_scan_file *f,
                      zb_buf *out);

/* Sets up pf for a file read through reader r. */
int zb_scan__proj_init(zb_rowstream *rs, zb_ctx *ctx, zb_proj_file *pf,
                       const zb_scan_file *f, const char *uri, pq_reader *r);

/* Opens file f reading the top-level read fields ids[0..n). */
int zb_scan__open_file(zb_rowstream *rs, zb_ctx *ctx, pq_reader **out,
                       const zb_scan_file *f, const char *uri,
                       const int32_t *ids, size_t n);

/*
 * pq_reader_next, with the reader taking its row groups from ctx->budget
 * only while the stream itself holds nothing there: a reader that waited
 * for room the stream's own key set or position lists hold would wait
 * forever.
 */
int zb_scan__reader_next(zb_rowstream *rs, zb_ctx *ctx, pq_reader *r,
                         struct ArrowArray *out);

/* Position deletes and DVs of every task into rs->ts[].pos. */
int zb_scan__posdel_load(zb_rowstream *rs, zb_ctx *ctx);

/* Equality sets, scopes and the key set; marks rows when it spilled. */
int zb_scan__eqdel_load(zb_rowstream *rs, zb_ctx *ctx);

/*
 * Marks in del[0..n) (value 2 where still 0) the rows of the batch (src
 * struct ss/sa of task ti, through pf) whose keys are deleted in a scope
 * of the task (in memory key set only).
 */
int zb_scan__eqdel_probe(zb_rowstream *rs, zb_ctx *ctx, size_t ti,
                         const zb_proj_file *pf, const struct ArrowSchema *ss,
                         const struct ArrowArray *sa, uint8_t *del, size_t n);

#endif
