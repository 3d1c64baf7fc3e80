/*
 * exec/arrow/arrow.h - columnar batches in the Arrow C Data Interface layout.
 *
 * The two structs are the ABI that the data ecosystem shares
 * (arrow.apache.org, "The Arrow C data interface"); the guard macro is the
 * one the specification gives, so this header coexists with any other
 * definition of them. Rows travel through Zamboni as ArrowArray batches
 * described by an ArrowSchema.
 *
 * zb_arrow_* below build arrays whose buffers come from zb_malloc and
 * whose release callback frees them, children included.
 */
#ifndef ZB_EXEC_ARROW_H
#define ZB_EXEC_ARROW_H

#include <stddef.h>
#include <stdint.h>

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/*
 * Makes *out an empty array with n_buffers buffer slots (all NULL) and
 * n_children zeroed child arrays, owned by out: release frees the buffers
 * that were set (they must come from zb_malloc) and releases the children.
 * Returns ZB_OK or ZB_ENOMEM.
 */
int zb_arrow_array_init(struct ArrowArray *out, int64_t n_buffers,
                        int64_t n_children);

/*
 * Makes *out a schema node with a copy of format and name (name may be
 * NULL), metadata (may be NULL; the binary form of the specification,
 * copied with metadata_len bytes), flags, and n_children zeroed children.
 */
int zb_arrow_schema_init(struct ArrowSchema *out, const char *format,
                         const char *name, const char *metadata,
                         size_t metadata_len, int64_t flags,
                         int64_t n_children);

/*
 * Makes *out a leaf (or, with n_children, a nested) field of format and
 * name carrying the "PARQUET:field_id" metadata that writers turn into
 * Parquet field ids; nullable sets ARROW_FLAG_NULLABLE.
 */
int zb_arrow_schema_field(struct ArrowSchema *out, const char *format,
                          const char *name, int32_t field_id, int nullable,
                          int64_t n_children);

/* Releases an array or schema if it is live; safe on released ones. */
void zb_arrow_array_release(struct ArrowArray *a);
void zb_arrow_schema_release(struct ArrowSchema *s);

/*
 * Builds Arrow's binary metadata from kv, a NULL-terminated array of key,
 * value, key, value, ... strings, into a new zb_malloc'd buffer (*out,
 * *out_len); *out is NULL when kv holds no pair. Returns ZB_OK or
 * ZB_ENOMEM.
 */
int zb_arrow_metadata(char **out, size_t *out_len, const char *const *kv);

/*
 * Copies the value of key in Arrow's binary metadata (may be NULL) into
 * out (NUL-terminated, truncated to size). Returns 1 if found, else 0.
 */
int zb_arrow_metadata_get(char *out, size_t size, const char *metadata,
                          const char *key);

/* Bit helpers for validity bitmaps (least significant bit first). */
static inline int zb_arrow_bit(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void zb_arrow_set_bit(uint8_t *bits, int64_t i)
{
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

#endif
