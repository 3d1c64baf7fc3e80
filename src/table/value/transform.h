/*
 * table/value/transform.h - Iceberg partition transforms (format/spec.md
 * "Partition Transforms", "Bucket Transform Details", "Truncate Transform
 * Details", Appendix B) and partition path fields.
 *
 *     ice_transform t;
 *     ice_value pv;
 *     if ((rc = ice_transform_parse(&t, ctx, "bucket[16]")) < 0) ...
 *     if ((rc = ice_transform_apply(&pv, ctx, &t, &src)) < 0) ...
 *     ice_partition_path_field(&path, ctx, "id_bucket", &t, &pv);
 *
 * Transformed values borrow from their source value: a truncated string
 * or binary points into the source's bytes.
 */
#ifndef ZB_TABLE_TRANSFORM_H
#define ZB_TABLE_TRANSFORM_H

#include <stdint.h>

#include "table/value/ice_value.h"

typedef enum ice_transform_kind {
    ICE_TR_IDENTITY = 1,
    ICE_TR_BUCKET,      /* param: number of buckets N > 0 */
    ICE_TR_TRUNCATE,    /* param: width W > 0 */
    ICE_TR_YEAR,
    ICE_TR_MONTH,
    ICE_TR_DAY,
    ICE_TR_HOUR,
    ICE_TR_VOID,
    /* A well-formed name this build does not know ("zorder"): readers
     * must ignore such partition fields (spec, v3), writers must not
     * write them. */
    ICE_TR_UNKNOWN
} ice_transform_kind;

typedef struct ice_transform {
    ice_transform_kind kind;
    int32_t param;      /* N for bucket, W for truncate, else 0 */
} ice_transform;

/*
 * Parses a transform as written in partition specs and sort orders:
 * "identity", "bucket[N]", "truncate[W]", "year", "month", "day", "hour",
 * "void" (names case-insensitive, as Iceberg Java reads them). Another
 * bare name ([A-Za-z_][A-Za-z0-9_]*) gives ICE_TR_UNKNOWN. Returns
 * ZB_EINVAL, with a message quoting the string, for anything else:
 * "bucket[0]", "bucket[-1]", "truncate[x]", "bucket[", "bucket",
 * "identity[3]", a parameter above INT32_MAX.
 */
int ice_transform_parse(ice_transform *out, zb_ctx *ctx, const char *s);

/* Appends the canonical spelling ("bucket[16]", "day") to out. */
int ice_transform_format(zb_buf *out, const ice_transform *t);

/* Non-zero when the transform accepts a source of type src. */
int ice_transform_accepts(const ice_transform *t, ice_type_id src);

/*
 * The result type for a source type: int for bucket, year, month and
 * hour; date for day; the source type for identity, truncate and void.
 * ZB_EINVAL when the source type is not accepted, ZB_EUNSUPPORTED for
 * ICE_TR_UNKNOWN.
 */
int ice_transform_result_type(ice_prim *out, zb_ctx *ctx,
                              const ice_transform *t, const ice_prim *src);

/*
 * Applies the transform to a value. Null in gives null out (of the result
 * type), as does void. A source value of a type the transform does not
 * accept is ZB_EINVAL.
 */
int ice_transform_apply(ice_value *out, zb_ctx *ctx, const ice_transform *t,
                        const ice_value *in);

/*
 * Non-zero when a <= b implies t(a) <= t(b): identity, truncate, year,
 * month, day and hour (so column bounds project to partition bounds);
 * zero for bucket, void and unknown.
 */
int ice_transform_preserves_order(const ice_transform *t);

/*
 * Appends the human string of a transformed value (a partition value):
 * year 2017, month 2017-11, day 2017-11-16 (also from an int, as the spec
 * asks readers to accept), hour 2017-11-16-22, bucket the bucket number,
 * identity and truncate ice_value_to_human() of the value, null "null".
 */
int ice_transform_to_human(zb_buf *out, zb_ctx *ctx, const ice_transform *t,
                           const ice_value *partition_value);

/*
 * Appends one partition path segment, name=value, as Iceberg Java's
 * PartitionSpec.partitionToPath builds it (the spec does not define data
 * file paths): both the field name and the human string are escaped as
 * java.net.URLEncoder does with UTF-8 (A-Z a-z 0-9 . - * _ kept, space to
 * '+', every other byte %XX). Callers join segments with '/'.
 */
int ice_partition_path_field(zb_buf *out, zb_ctx *ctx, const char *name,
                             const ice_transform *t,
                             const ice_value *partition_value);

/* URL-encodes n bytes as java.net.URLEncoder does (see above). */
int ice_url_encode(zb_buf *out, const char *s, size_t n);

#endif
