/*
 * table/manifest/manifest_int.h - private to the manifest_*.c files: finding
 * fields by Iceberg field id in a file's Avro schema, and checked getters
 * of Avro values that name the file, record and field on error.
 */
#ifndef ZB_TABLE_MANIFEST_INT_H
#define ZB_TABLE_MANIFEST_INT_H

#include "table/manifest/manifest.h"

/* Where a reader is, for messages. */
typedef struct mf_where {
    const char *uri;
    uint64_t record;               /* 0-based record number */
} mf_where;

/* For a field absent from a file's schema. */
#define MF_ABSENT (-1)

/*
 * The index of the field with this Iceberg id in a record node, or
 * MF_ABSENT. When no field has the id but one is named name and has no
 * field-id at all, that is ZB_ECORRUPT ("schema lacks field ids"); the
 * return is then the negative rc, distinguished from MF_ABSENT by
 * *rc_out.
 */
int mf__field(int *idx_out, zb_ctx *ctx, const char *uri,
              const zb_avro_node *rec, int64_t id, const char *name,
              int required);

/* The node under a ["null", X] union (X), or the node itself. */
const zb_avro_node *mf__base(const zb_avro_node *n);

/* The value under a union: NULL for the null branch or a null value. */
const zb_avro_value *mf__unwrap(const zb_avro_value *v);

/*
 * The field idx of record value rec unwrapped (NULL when absent:
 * idx MF_ABSENT, or null).
 */
const zb_avro_value *mf__get(const zb_avro_value *rec, int idx);

/* Checked conversions; ZB_ECORRUPT naming where and name on a mismatch. */
int mf__long(int64_t *out, zb_ctx *ctx, const mf_where *w, const char *name,
             const zb_avro_value *v);
int mf__int(int32_t *out, zb_ctx *ctx, const mf_where *w, const char *name,
            const zb_avro_value *v);
int mf__bool(int *out, zb_ctx *ctx, const mf_where *w, const char *name,
             const zb_avro_value *v);
int mf__str(const char **out, zb_ctx *ctx, const mf_where *w,
            const char *name, const zb_avro_value *v);
int mf__bytes(const uint8_t **out, size_t *len, zb_ctx *ctx,
              const mf_where *w, const char *name, const zb_avro_value *v);
/* A required value: NULL is "missing required field". */
int mf__missing(zb_ctx *ctx, const mf_where *w, const char *name);

/* The prim an Avro partition field node stands for (logical types). */
int mf__avro_prim(ice_prim *out, zb_ctx *ctx, const char *uri,
                  const char *field, const zb_avro_node *n);

/* Avro value to ice_value of type prim (strings and bytes borrowed). */
int mf__to_ice(ice_value *out, zb_ctx *ctx, const mf_where *w,
               const char *name, const ice_prim *prim,
               const zb_avro_value *v);

/* JSON string literal of s appended to out. */
int mf__json_str(zb_buf *out, const char *s);

/* Building records to write: values come from an arena reset per record. */
typedef struct mf_build {
    zb_arena *arena;
    int oom;                       /* set when an allocation failed */
} mf_build;

/*
 * Prepares slot for a field: a plain field returns slot; an optional one
 * becomes a ["null", T] union, and the function returns where to put the
 * T value when present, or NULL (the null branch) when not.
 */
zb_avro_value *mfb_field(mf_build *b, zb_avro_value *slot, int optional,
                         int present);
/* n zeroed values, or NULL (b->oom set). */
zb_avro_value *mfb_alloc(mf_build *b, size_t n);
/* Helpers that set a slot (NULL slot: nothing). */
void mfb_long(zb_avro_value *slot, int64_t v);
void mfb_int(zb_avro_value *slot, int32_t v);
void mfb_str(zb_avro_value *slot, const char *s);
void mfb_bytes(zb_avro_value *slot, const uint8_t *p, size_t n);
void mfb_bool(zb_avro_value *slot, int v);
/* A record of n fields into slot; returns its items (NULL on oom). */
zb_avro_value *mfb_record(mf_build *b, zb_avro_value *slot, size_t n);
/* An array of n items into slot; returns its items (NULL on oom). */
zb_avro_value *mfb_array(mf_build *b, zb_avro_value *slot, size_t n);

/* One field of a record the writers emit (manifest_schema.c). versions
 * and optional are bit masks: bit v for format version v. */
typedef struct mf_desc {
    int id;
    const char *name;
    const char *type;              /* Avro type JSON; NULL: built */
    unsigned versions;
    unsigned optional;
} mf_desc;

/* Each ends with an entry whose name is NULL. */
extern const mf_desc mf__list_fields[];
extern const mf_desc mf__entry_fields[];
extern const mf_desc mf__data_file_fields[];

int mf__desc_in(const mf_desc *d, int version);
int mf__desc_optional(const mf_desc *d, int version);

/* Bytes of the Avro fixed that holds a decimal of this precision. */
size_t mf__decimal_bytes(int32_t precision);

/* The partition tuple's types: each field's transform result type. */
int mf__partition_types(ice_prim *out, zb_ctx *ctx, const ice_schema *schema,
                        const ice_partition_spec *spec);

#endif
