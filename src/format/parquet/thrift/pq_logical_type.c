/*
 * format/parquet/thrift/pq_logical_type.c - decoding the LogicalType union
 * of a schema element (parquet.thrift): exactly one member is set, and its
 * field id is the kind. Members with parameters (decimal, time, timestamp,
 * integer) are decoded; the others are markers, skipped whatever they hold.
 */
#define ZB_MODULE "parquet"

#include "format/parquet/thrift/pq_meta.h"
#include "format/parquet/thrift/pq_meta_int.h"
#include "format/parquet/thrift/pq_thrift.h"

/* A struct field whose members are all skipped (empty marker structs). */
static int empty_struct(pq_thrift *t, const pq_thrift_field *f,
                        const char *what)
{
    int rc;

    if ((rc = pq_thrift_field_struct(t, f, what)) < 0)
        return rc;
    return pq_thrift_skip(t, PQ_TT_STRUCT, what);
}

static int decimal_type(pq_thrift *t, pq_logical *lt)
{
    static const char *const names[] = { NULL, "scale", "precision" };
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "DecimalType")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "DecimalType")) > 0) {
        if (f.id == 1)
            rc = pq_thrift_field_i32(t, &f, &lt->scale, "DecimalType.scale");
        else if (f.id == 2)
            rc = pq_thrift_field_i32(t, &f, &lt->precision,
                                     "DecimalType.precision");
        else
            rc = pq_thrift_skip_field(t, &f, "DecimalType");
        if (rc < 0)
            return rc;
        if (f.id == 1 || f.id == 2)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, "DecimalType", seen, BIT(1) | BIT(2), names);
}

/* TimeUnit: a union of empty structs. An unknown member leaves unit 0. */
static int time_unit(pq_thrift *t, pq_time_unit *unit)
{
    pq_thrift_field f;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "TimeUnit")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "TimeUnit")) > 0) {
        if ((rc = empty_struct(t, &f, "TimeUnit")) < 0)
            return rc;
        if (f.id >= PQ_UNIT_MILLIS && f.id <= PQ_UNIT_NANOS)
            *unit = (pq_time_unit)f.id;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return ZB_OK;
}

/* TimeType and TimestampType have the same fields. */
static int time_type(pq_thrift *t, pq_logical *lt, const char *what)
{
    static const char *const names[] = { NULL, "isAdjustedToUTC", "unit" };
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, what)) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, what)) > 0) {
        if (f.id == 1)
            rc = pq_thrift_field_bool(t, &f, &lt->is_adjusted_to_utc, what);
        else if (f.id == 2 &&
                 (rc = pq_thrift_field_struct(t, &f, what)) == ZB_OK)
            rc = time_unit(t, &lt->unit);
        else if (f.id != 2)
            rc = pq_thrift_skip_field(t, &f, what);
        if (rc < 0)
            return rc;
        if (f.id == 1 || f.id == 2)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, what, seen, BIT(1) | BIT(2), names);
}

static int int_type(pq_thrift *t, pq_logical *lt)
{
    static const char *const names[] = { NULL, "bitWidth", "isSigned" };
    size_t start = t->pos;
    pq_thrift_field f;
    uint32_t seen = 0;
    int16_t last;
    int8_t width;
    int rc;

    if ((rc = pq_thrift_struct_begin(t, &last, "IntType")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "IntType")) > 0) {
        if (f.id == 1) {
            size_t at = t->pos;

            if ((rc = pq_thrift_field_i8(t, &f, &width,
                                         "IntType.bitWidth")) < 0)
                return rc;
            if (width != 8 && width != 16 && width != 32 && width != 64)
                return pq_thrift_fail(t, at, "IntType.bitWidth",
                                      "bit width %d", (int)width);
            lt->bit_width = width;
        } else if (f.id == 2) {
            rc = pq_thrift_field_bool(t, &f, &lt->is_signed,
                                      "IntType.isSigned");
        } else {
            rc = pq_thrift_skip_field(t, &f, "IntType");
        }
        if (rc < 0)
            return rc;
        if (f.id == 1 || f.id == 2)
            seen |= BIT(f.id);
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return pq_meta__require(t, start, "IntType", seen, BIT(1) | BIT(2), names);
}

/*
 * LogicalType is a union: kind is the field number of its member. A
 * member this decoder does not know is skipped and its number kept.
 */
int pq_meta__logical_type(pq_thrift *t, pq_logical *lt)
{
    size_t start = t->pos;
    pq_thrift_field f;
    int16_t last;
    int rc, members = 0;

    if ((rc = pq_thrift_struct_begin(t, &last, "LogicalType")) < 0)
        return rc;
    while ((rc = pq_meta__next(t, &f, &last, "LogicalType")) > 0) {
        if ((rc = pq_thrift_field_struct(t, &f, "LogicalType")) < 0)
            return rc;
        if (++members > 1)
            return pq_thrift_fail(t, start, "LogicalType",
                                  "union has more than one member");
        switch (f.id) {
        case PQ_LT_DECIMAL:
            rc = decimal_type(t, lt);
            break;
        case PQ_LT_TIME:
            rc = time_type(t, lt, "TimeType");
            break;
        case PQ_LT_TIMESTAMP:
            rc = time_type(t, lt, "TimestampType");
            break;
        case PQ_LT_INTEGER:
            rc = int_type(t, lt);
            break;
        default:
            rc = pq_thrift_skip(t, PQ_TT_STRUCT, "LogicalType");
            break;
        }
        if (rc < 0)
            return rc;
        if (f.id > 0)
            lt->kind = (pq_logical_kind)f.id;
    }
    if (rc < 0)
        return rc;
    pq_thrift_struct_end(t);
    return ZB_OK;
}
