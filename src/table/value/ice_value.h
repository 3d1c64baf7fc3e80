/*
 * table/value/ice_value.h - single Iceberg values: a tagged union over the
 * primitive types of table/value/ice_type.h, their serializations and ordering.
 *
 * Written from format/spec.md:
 *   - Appendix D "Binary single-value serialization" (manifest lower and
 *     upper bounds), with the "Schema Evolution" table of bound lengths for
 *     promoted types;
 *   - Appendix D "JSON single-value serialization" (default values,
 *     partition statistics, REST);
 *   - "Sorting" for the order of floating-point values.
 *
 * Ownership: string, binary and fixed values point at bytes they do not
 * own (ICE_VALUE borrows). A value decoded from bytes points into those
 * bytes; a value parsed from JSON or text points into the arena passed in.
 * Keep the source alive as long as the value.
 *
 * Errors: ZB_ECORRUPT for input that is not a valid serialization of the
 * type (wrong length, bad syntax, out of range), ZB_EUNSUPPORTED for types
 * that have no such serialization (variant, geometry, nested), ZB_EINVAL
 * for a broken calling contract, ZB_ENOMEM from buffers and arenas. The
 * message is left in ctx->err.
 */
#ifndef ZB_TABLE_ICE_VALUE_H
#define ZB_TABLE_ICE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "table/value/ice_type.h"
#include "util/arena.h"
#include "util/buf.h"

/* A 128-bit two's-complement integer: the unscaled value of a decimal. */
typedef struct ice_i128 {
    int64_t hi;
    uint64_t lo;
} ice_i128;

typedef struct ice_value {
    ice_type_id type;   /* set for null values too */
    int is_null;
    union {
        int32_t b;      /* BOOLEAN: 0 or 1 */
        int32_t i;      /* INT; DATE (days from 1970-01-01) */
        int64_t l;      /* LONG; TIME (us from midnight); TIMESTAMP and
                           TIMESTAMPTZ (us); TIMESTAMP_NS, TIMESTAMPTZ_NS
                           (ns from 1970-01-01 00:00 UTC) */
        float f;        /* FLOAT */
        double d;       /* DOUBLE */
        struct {
            ice_i128 unscaled;
            int32_t scale;
        } dec;          /* DECIMAL: unscaled * 10^-scale */
        struct {
            const uint8_t *ptr;
            size_t len;
        } bin;          /* STRING (UTF-8), BINARY, FIXED: borrowed */
        uint8_t uuid[16]; /* UUID, big-endian (RFC 4122 byte order) */
    } u;
} ice_value;

/* The spec's name of a primitive type ("timestamptz"); "nested" for
 * struct, list and map. */
const char *ice_type_name(ice_type_id t);

/* Constructors; string, binary and fixed borrow their bytes. */
ice_value ice_value_null(ice_type_id type);
ice_value ice_value_bool(int b);
ice_value ice_value_int(int32_t v);
ice_value ice_value_long(int64_t v);
ice_value ice_value_float(float v);
ice_value ice_value_double(double v);
ice_value ice_value_date(int32_t days);
/* type is TIME, TIMESTAMP, TIMESTAMPTZ, TIMESTAMP_NS or TIMESTAMPTZ_NS. */
ice_value ice_value_time(ice_type_id type, int64_t v);
ice_value ice_value_decimal(ice_i128 unscaled, int32_t scale);
ice_value ice_value_decimal64(int64_t unscaled, int32_t scale);
ice_value ice_value_string(const char *s, size_t len);
ice_value ice_value_binary(const void *p, size_t len);
ice_value ice_value_fixed(const void *p, size_t len);
ice_value ice_value_uuid(const uint8_t bytes[16]);

/* ---- 128-bit helpers for decimals ---- */

ice_i128 ice_i128_from_i64(int64_t v);
/* -1, 0 or 1. */
int ice_i128_cmp(ice_i128 a, ice_i128 b);
/* Floor modulo by a positive divisor: the result is in [0, w). */
uint32_t ice_i128_floor_mod(ice_i128 v, uint32_t w);
/* a - b, wrapping modulo 2^128. */
ice_i128 ice_i128_sub(ice_i128 a, ice_i128 b);

/*
 * The minimal two's-complement big-endian bytes of v (at least one byte,
 * as Java's BigInteger.toByteArray): writes 1..16 bytes to out[16] and
 * returns how many.
 */
size_t ice_i128_to_min_be(uint8_t out[16], ice_i128 v);

/* ---- calendar: days from 1970-01-01 in the proleptic Gregorian calendar */

void ice_civil_from_days(int64_t days, int64_t *year, int *month, int *day);
int64_t ice_days_from_civil(int64_t year, int month, int day);

/* Floor division and modulo for a positive divisor; no overflow. */
int64_t ice_floor_div(int64_t a, int64_t b);
int64_t ice_floor_mod(int64_t a, int64_t b);

/* ---- binary single-value serialization (Appendix D) ---- */

/*
 * Appends the binary serialization of v to out. Null values and the
 * types without one fail with ZB_EINVAL or ZB_EUNSUPPORTED.
 */
int ice_value_to_bytes(zb_buf *out, zb_ctx *ctx, const ice_value *v);

/*
 * Decodes len bytes as a value of type. String, binary and fixed values
 * point into data. Length checks: boolean 1, int/date/float 4,
 * long/time/timestamps/double 8, uuid 16, fixed the type's length,
 * decimal 1..16; anything else is ZB_ECORRUPT. As format/spec.md "Schema
 * Evolution" requires, bounds written before a promotion are accepted: a
 * long of 4 bytes is an int, a double of 4 bytes a float, and a timestamp
 * or timestamp_ns of 4 bytes a date (converted to the type's unit).
 */
int ice_value_from_bytes(ice_value *out, zb_ctx *ctx, const ice_prim *type,
                         const void *data, size_t len);

/* ---- JSON single-value serialization (Appendix D) ---- */

/*
 * Appends v as JSON text to out: null, true, 34, 1.0, "14.20",
 * "2017-11-16", "22:31:08.123456", "2017-11-16T22:31:08.123456",
 * "...+00:00", "...123456789", "f79c3e09-...", "000102ff" (hex). Floats
 * that JSON cannot hold (NaN, infinities) fail with ZB_EINVAL.
 */
int ice_value_to_json(zb_buf *out, zb_ctx *ctx, const ice_value *v);

/*
 * Parses one JSON value (len bytes of text) of the given type. JSON null
 * gives a null value. Strings are copied into arena. Decimal text must
 * carry the type's scale ("14.20" for scale 2, "2E+20" for scale -20).
 */
int ice_value_from_json(ice_value *out, zb_ctx *ctx, zb_arena *arena,
                        const ice_prim *type, const char *json, size_t len);

/*
 * Parses the text inside a JSON string of the given type ("2017-11-16",
 * "14.20", hex for binary); for string values the text itself (copied
 * into arena). Numbers, booleans and dates are parsed from their JSON or
 * ISO-8601 spelling.
 */
int ice_value_from_text(ice_value *out, zb_ctx *ctx, zb_arena *arena,
                        const ice_prim *type, const char *s, size_t len);

/* ---- ordering ---- */

/*
 * Orders two values of the same type (an INT may meet a LONG, a FLOAT a
 * DOUBLE, a DATE a TIMESTAMP after promotion): <0, 0, >0. Nulls sort
 * first. Signed integers and times numerically; floats as the spec's
 * "Sorting" section says, -NaN < -Inf < -x < -0 < 0 < x < Inf < NaN;
 * decimals numerically across scales; strings, binary, fixed and uuid as
 * unsigned bytes (for UTF-8 that is code point order); false < true.
 */
int ice_value_cmp(const ice_value *a, const ice_value *b);

/* ---- human strings and hashing ---- */

/*
 * Appends the "human string" that Iceberg writers put in partition paths
 * (not defined by the spec; this follows what Iceberg Java's transforms
 * print): dates 2017-11-16; times 22:31:08 or 22:31:08.123456 (trailing
 * zero groups dropped as java.time prints them); timestamps
 * 2017-11-16T22:31:08.000001, timestamptz with a trailing Z; decimals
 * 14.20; floats 1.0 / 1.0E10; binary and fixed in base64; uuid in
 * lowercase; null as "null".
 */
int ice_value_to_human(zb_buf *out, zb_ctx *ctx, const ice_value *v);

/*
 * The Appendix B 32-bit hash of v (as a Java int, bit for bit), also for
 * boolean, float and double, which the spec's second table defines
 * though they cannot be bucketed. Null, unknown and nested values fail
 * with ZB_EUNSUPPORTED. Nanosecond timestamps hash as their microseconds.
 */
int ice_value_hash(uint32_t *out, zb_ctx *ctx, const ice_value *v);

#endif
