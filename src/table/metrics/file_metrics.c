/*
 * table/metrics/file_metrics.c - Iceberg data-file metrics from the Parquet
 * writer's per-leaf metrics (see file_metrics.h for the rules and their sources).
 *
 * ice_metrics_from_parquet walks the writer's leaves in schema order. For
 * each leaf with a field id it finds the field in the table schema (its
 * full dotted name, its top-level column and whether a list or map
 * encloses it: find_field), settles the metrics mode (mode_of: default,
 * inferred-column limit, sort order, column property, in Java's order),
 * keeps the counts the mode allows, and for bounds converts the Parquet
 * PLAIN min and max to Iceberg values of the field's type (to_value),
 * truncating strings and binary (the ice_metrics_truncate_* functions),
 * and serializes them with ice_value_to_bytes. The columns are sorted by
 * field id at the end.
 */
#define ZB_MODULE "table"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table/value/ice_value.h"
#include "table/metrics/file_metrics.h"
#include "util/log.h"

#define PROP_DEFAULT "write.metadata.metrics.default"
#define PROP_COLUMN "write.metadata.metrics.column."
#define PROP_MAX_INFERRED "write.metadata.metrics.max-inferred-column-defaults"
#define NAME_MAX_BYTES 1024

/* ---- modes ---- */

int ice_metrics_mode_parse(ice_metrics_mode *out, zb_ctx *ctx,
                           const char *s)
{
    const char *p;
    long n = 0;

    out->kind = ICE_METRICS_TRUNCATE;
    out->length = ICE_METRICS_DEFAULT_TRUNCATE;
    if (s == NULL)
        return zb_fail(ctx, ZB_EINVAL, "metrics mode missing");
    if (strcasecmp(s, "none") == 0) {
        out->kind = ICE_METRICS_NONE;
        return ZB_OK;
    }
    if (strcasecmp(s, "counts") == 0) {
        out->kind = ICE_METRICS_COUNTS;
        return ZB_OK;
    }
    if (strcasecmp(s, "full") == 0) {
        out->kind = ICE_METRICS_FULL;
        return ZB_OK;
    }
    if (strncasecmp(s, "truncate(", 9) == 0) {
        for (p = s + 9; isdigit((unsigned char)*p) && n <= INT32_MAX; p++)
            n = n * 10 + (*p - '0');
        if (p > s + 9 && p[0] == ')' && p[1] == '\0' && n > 0 &&
            n <= INT32_MAX) {
            out->length = (int32_t)n;
            return ZB_OK;
        }
    }
    return zb_fail(ctx, ZB_EINVAL, "invalid metrics mode '%s' (none, "
                   "counts, truncate(N) with N > 0, full)", s);
}

void ice_metrics_config_init(ice_metrics_config *cfg,
                             const ice_schema *schema,
                             const ice_sort_order *sort_order,
                             const ice_kv *props, size_t n_props)
{
    cfg->schema = schema;
    cfg->sort_order = sort_order;
    cfg->props = props;
    cfg->n_props = n_props;
}

static const char *prop(const ice_metrics_config *cfg, const char *key)
{
    size_t i;

    for (i = 0; i < cfg->n_props; i++)
        if (cfg->props[i].key && strcmp(cfg->props[i].key, key) == 0)
            return cfg->props[i].value;
    return NULL;
}

/* A field found in the schema. */
typedef struct field_info {
    const ice_type *type;
    size_t top_index;            /* its top-level column */
    int repeated;                /* inside a list or a map */
    char name[NAME_MAX_BYTES];   /* full dotted name */
} field_info;

static int find_in(field_info *fi, const ice_type *t, int32_t id,
                   size_t nlen, int rep, size_t top);

/* Appends ".part" (or "part" at the root) to fi->name, tries it. */
static int try_child(field_info *fi, const char *part, int32_t child_id,
                     const ice_type *child, int32_t id, size_t nlen,
                     int rep, size_t top)
{
    size_t plen = strlen(part), at = nlen ? nlen + 1 : 0;

    if (at + plen + 1 > sizeof fi->name)
        return 0;
    if (nlen)
        fi->name[nlen] = '.';
    memcpy(fi->name + at, part, plen + 1);
    if (child_id == id) {
        fi->type = child;
        fi->top_index = top;
        fi->repeated = rep;
        return 1;
    }
    return child ? find_in(fi, child, id, at + plen, rep, top) : 0;
}

static int find_in(field_info *fi, const ice_type *t, int32_t id,
                   size_t nlen, int rep, size_t top)
{
    size_t i;

    switch (t->id) {
    case ICE_STRUCT:
        for (i = 0; i < t->n_fields; i++) {
            const ice_field *f = &t->fields[i];
            if (try_child(fi, f->name ? f->name : "", f->id, f->type, id,
                          nlen, rep, nlen ? top : i))
                return 1;
        }
        return 0;
    case ICE_LIST:
        return try_child(fi, "element", t->element_id, t->element, id, nlen,
                         1, top);
    case ICE_MAP:
        return try_child(fi, "key", t->key_id, t->key, id, nlen, 1, top) ||
               try_child(fi, "value", t->value_id, t->value, id, nlen, 1,
                         top);
    default:
        return 0;
    }
}

static int find_field(field_info *fi, const ice_schema *s, int32_t id)
{
    memset(fi, 0, sizeof *fi);
    return s && s->root && find_in(fi, s->root, id, 0, 0, 0);
}

static int preserves_order(const char *transform)
{
    return transform &&
           (strcmp(transform, "identity") == 0 ||
            strncmp(transform, "truncate[", 9) == 0 ||
            strcmp(transform, "year") == 0 || strcmp(transform, "month") == 0 ||
            strcmp(transform, "day") == 0 || strcmp(transform, "hour") == 0);
}

static int is_sorted_column(const ice_sort_order *o, int32_t id)
{
    size_t i;

    for (i = 0; o && i < o->n_fields; i++)
        if (o->fields[i].source_id == id &&
            preserves_order(o->fields[i].transform))
            return 1;
    return 0;
}

static ice_metrics_mode mode_from(zb_ctx *ctx, const char *s,
                                  ice_metrics_mode fallback,
                                  const char *what)
{
    ice_metrics_mode m;

    if (ice_metrics_mode_parse(&m, ctx, s) == ZB_OK)
        return m;
    zb_log_warn(ctx, "ignoring invalid metrics mode (%s): %s", what, s);
    zb_err_clear(&ctx->err);
    return fallback;
}

static int32_t max_inferred(const ice_metrics_config *cfg, zb_ctx *ctx)
{
    const char *v = prop(cfg, PROP_MAX_INFERRED);
    char *end = NULL;
    long n;

    if (v == NULL)
        return ICE_METRICS_MAX_INFERRED_DEFAULT;
    n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 0 || n > INT32_MAX) {
        zb_log_warn(ctx, "invalid value for %s: %s, falling back to %d",
                    PROP_MAX_INFERRED, v, ICE_METRICS_MAX_INFERRED_DEFAULT);
        return ICE_METRICS_MAX_INFERRED_DEFAULT;
    }
    return (int32_t)n;
}

static ice_metrics_mode mode_for(const ice_metrics_config *cfg, zb_ctx *ctx,
                                 const field_info *fi, int32_t field_id)
{
    const ice_metrics_mode t16 = { ICE_METRICS_TRUNCATE,
                                   ICE_METRICS_DEFAULT_TRUNCATE };
    const ice_metrics_mode none = { ICE_METRICS_NONE, 0 };
    ice_metrics_mode dflt, mode;
    const char *configured = prop(cfg, PROP_DEFAULT), *col;
    char key[sizeof PROP_COLUMN + NAME_MAX_BYTES];
    int32_t limit = max_inferred(cfg, ctx);
    size_t n_top = cfg->schema && cfg->schema->root
                       ? cfg->schema->root->n_fields : 0;

    if (configured) {
        dflt = mode_from(ctx, configured, t16, "default");
        mode = dflt;
    } else if (n_top <= (size_t)limit) {
        dflt = mode = t16;
    } else {
        /* The first `limit` top-level columns, all they hold included. */
        dflt = none;
        mode = fi->top_index < (size_t)limit ? t16 : none;
    }
    if (is_sorted_column(cfg->sort_order, field_id))
        mode = dflt.kind == ICE_METRICS_NONE || dflt.kind == ICE_METRICS_COUNTS
                   ? t16 : dflt;
    snprintf(key, sizeof key, "%s%s", PROP_COLUMN, fi->name);
    if ((col = prop(cfg, key)) != NULL)
        mode = mode_from(ctx, col, dflt, fi->name);
    return mode;
}

ice_metrics_mode ice_metrics_mode_of(const ice_metrics_config *cfg,
                                     zb_ctx *ctx, int32_t field_id)
{
    const ice_metrics_mode none = { ICE_METRICS_NONE, 0 };
    field_info fi;

    if (!find_field(&fi, cfg->schema, field_id))
        return none;
    return mode_for(cfg, ctx, &fi, field_id);
}

/* ---- truncation ---- */

static int is_cont(uint8_t b)
{
    return (b & 0xC0) == 0x80;
}

void ice_metrics_truncate_string_min(size_t *out_len, const uint8_t *s,
                                     size_t len, size_t n)
{
    size_t i, cps = 0;

    for (i = 0; i < len; i++) {
        if (!is_cont(s[i]) && cps++ == n) {
            *out_len = i;
            return;
        }
    }
    *out_len = len;
}

/* Bytes of s up to the last complete UTF-8 sequence (a prefix cut in the
 * middle of a character loses the character). */
static size_t utf8_whole(const uint8_t *s, size_t len)
{
    size_t p = len, need;

    while (p > 0 && len - p < 4 && is_cont(s[p - 1]))
        p--;
    if (p == 0)
        return len;
    p--;                          /* the lead byte of the last sequence */
    need = s[p] < 0x80 ? 1 : (s[p] & 0xE0) == 0xC0 ? 2
           : (s[p] & 0xF0) == 0xE0 ? 3 : (s[p] & 0xF8) == 0xF0 ? 4 : 1;
    return p + need > len ? p : len;
}

/* Decodes the code point at s[i]; its byte length in *n; -1 if invalid. */
static long decode(const uint8_t *s, size_t len, size_t i, size_t *n)
{
    uint8_t b = s[i];
    long cp;
    size_t k, need;

    if (b < 0x80) {
        *n = 1;
        return b;
    }
    if ((b & 0xE0) == 0xC0)
        need = 2, cp = b & 0x1F;
    else if ((b & 0xF0) == 0xE0)
        need = 3, cp = b & 0x0F;
    else if ((b & 0xF8) == 0xF0)
        need = 4, cp = b & 0x07;
    else
        return -1;
    if (i + need > len)
        return -1;
    for (k = 1; k < need; k++) {
        if (!is_cont(s[i + k]))
            return -1;
        cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    *n = need;
    return cp;
}

static size_t encode(uint8_t *out, long cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

long ice_metrics_truncate_binary_max(uint8_t *out, const uint8_t *s,
                                     size_t len, size_t n, int longer_known)
{
    size_t t = len < n ? len : n, i;

    if (!longer_known && len <= n) {
        if (len)
            memcpy(out, s, len);
        return (long)len;
    }
    for (i = t; i-- > 0;) {
        if (s[i] != 0xFF) {
            memcpy(out, s, i);
            out[i] = (uint8_t)(s[i] + 1);
            return (long)(i + 1);
        }
    }
    return -1;
}

long ice_metrics_truncate_string_max(uint8_t *out, const uint8_t *s,
                                     size_t len, size_t n, int longer_known)
{
    size_t whole = longer_known ? utf8_whole(s, len) : len;
    size_t end = 0, cps = 0, w, k;

    if (whole < len)
        longer_known = 1;
    /* Walk n code points; invalid UTF-8 is cut as bytes. */
    while (end < whole && cps < n) {
        if (decode(s, whole, end, &w) < 0)
            return ice_metrics_truncate_binary_max(out, s, whole, n,
                                                   longer_known);
        end += w;
        cps++;
    }
    if (end == whole && !longer_known) {
        if (len)
            memcpy(out, s, len);
        return (long)len;
    }
    /* Increment the last code point that can be, dropping those after it. */
    while (end > 0) {
        size_t at = end - 1;
        long cp;
        while (at > 0 && is_cont(s[at]))
            at--;
        cp = decode(s, end, at, &w);
        if (cp >= 0 && cp != 0x10FFFF) {
            cp = cp == 0xD7FF ? 0xE000 : cp + 1;
            memcpy(out, s, at);
            k = encode(out + at, cp);
            return (long)(at + k);
        }
        end = at;
    }
    return -1;
}

/* ---- values ---- */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int is_unsigned(const pq_leaf_metrics *m)
{
    return m->logical.kind == PQ_LT_INTEGER && !m->logical.is_signed;
}

/* Parquet integer of 4 or 8 bytes as int64 (0: not representable). */
static int int_value(int64_t *out, const pq_leaf_metrics *m,
                     const uint8_t *b, size_t len)
{
    if (m->type == PQ_INT32 && len == 4) {
        *out = is_unsigned(m) ? (int64_t)le32(b) : (int64_t)(int32_t)le32(b);
        return 1;
    }
    if (m->type == PQ_INT64 && len == 8) {
        uint64_t u = le64(b);
        if (is_unsigned(m) && u > INT64_MAX)
            return 0;
        *out = (int64_t)u;
        return 1;
    }
    return 0;
}

/* The stored unit of a time or timestamp column: 1 ms, 2 us, 3 ns. */
static int unit_of(const pq_leaf_metrics *m)
{
    if (m->logical.kind == PQ_LT_TIME || m->logical.kind == PQ_LT_TIMESTAMP)
        return (int)m->logical.unit;
    return m->type == PQ_INT32 ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
}

/* v in unit `from` as unit `to` (1 ms, 2 us, 3 ns), rounding down for a
 * lower bound and up for an upper one; 0 on overflow. */
static int rescale(int64_t *out, int64_t v, int from, int to, int upper)
{
    int64_t f = 1;
    int k;

    for (k = 0; k < (from > to ? from - to : to - from); k++)
        f *= 1000;
    if (from > to) {
        int64_t q = ice_floor_div(v, f);
        *out = upper && ice_floor_mod(v, f) ? q + 1 : q;
        return 1;
    }
    if (v > INT64_MAX / f || v < INT64_MIN / f)
        return 0;
    *out = v * f;
    return 1;
}

/* A big-endian two's complement of 1..16 bytes as a 128-bit integer. */
static int be_i128(ice_i128 *out, const uint8_t *b, size_t len)
{
    uint8_t full[16];
    size_t i;

    if (len == 0 || len > 16)
        return 0;
    memset(full, (b[0] & 0x80) ? 0xFF : 0, 16);
    memcpy(full + 16 - len, b, len);
    out->hi = 0;
    out->lo = 0;
    for (i = 0; i < 8; i++)
        out->hi = (int64_t)(((uint64_t)out->hi << 8) | full[i]);
    for (i = 8; i < 16; i++)
        out->lo = (out->lo << 8) | full[i];
    return 1;
}

/* One PLAIN bound as an Iceberg value of type t; 0 if it does not
 * convert. Strings, binary and fixed are handled by the caller. */
static int to_value(ice_value *out, const pq_leaf_metrics *m,
                    const ice_type *t, const uint8_t *b, size_t len,
                    int upper)
{
    int64_t x;

    switch (t->id) {
    case ICE_BOOLEAN:
        if (m->type != PQ_BOOLEAN || len != 1)
            return 0;
        *out = ice_value_bool(b[0] != 0);
        return 1;
    case ICE_INT:
        if (m->type != PQ_INT32 || !int_value(&x, m, b, len) ||
            x > INT32_MAX || x < INT32_MIN)
            return 0;
        *out = ice_value_int((int32_t)x);
        return 1;
    case ICE_LONG:
        if (!int_value(&x, m, b, len))
            return 0;
        *out = ice_value_long(x);
        return 1;
    case ICE_DATE:
        if (m->type != PQ_INT32 || len != 4)
            return 0;
        *out = ice_value_date((int32_t)le32(b));
        return 1;
    case ICE_FLOAT:
    case ICE_DOUBLE: {
        float f = 0;
        double d;
        if (m->type == PQ_FLOAT && len == 4) {
            uint32_t u = le32(b);
            memcpy(&f, &u, 4);
            d = f;
        } else if (m->type == PQ_DOUBLE && len == 8 && t->id == ICE_DOUBLE) {
            uint64_t u = le64(b);
            memcpy(&d, &u, 8);
        } else {
            return 0;
        }
        *out = t->id == ICE_FLOAT ? ice_value_float(f) : ice_value_double(d);
        return 1;
    }
    case ICE_TIME:
    case ICE_TIMESTAMP:
    case ICE_TIMESTAMPTZ:
    case ICE_TIMESTAMP_NS:
    case ICE_TIMESTAMPTZ_NS: {
        int to = t->id == ICE_TIMESTAMP_NS || t->id == ICE_TIMESTAMPTZ_NS
                     ? PQ_UNIT_NANOS : PQ_UNIT_MICROS;
        if (!int_value(&x, m, b, len) || is_unsigned(m) ||
            !rescale(&x, x, unit_of(m), to, upper))
            return 0;
        *out = ice_value_time(t->id, x);
        return 1;
    }
    case ICE_DECIMAL: {
        ice_i128 u;
        if (m->logical.kind == PQ_LT_DECIMAL &&
            m->logical.scale != t->prim.scale)
            return 0;
        if (m->type == PQ_INT32 || m->type == PQ_INT64) {
            if (!int_value(&x, m, b, len))
                return 0;
            u = ice_i128_from_i64(x);
        } else if (!be_i128(&u, b, len)) {
            return 0;
        }
        *out = ice_value_decimal(u, t->prim.scale);
        return 1;
    }
    case ICE_UUID:
        if (m->type != PQ_FIXED_LEN_BYTE_ARRAY || len != 16)
            return 0;
        *out = ice_value_uuid(b);
        return 1;
    case ICE_FIXED:
        if (m->type != PQ_FIXED_LEN_BYTE_ARRAY ||
            (int32_t)len != t->prim.length)
            return 0;
        *out = ice_value_fixed(b, len);
        return 1;
    default:
        return 0;
    }
}

static const uint8_t *arena_copy(zb_arena *a, const void *p, size_t n)
{
    uint8_t *q = zb_arena_alloc(a, n ? n : 1);

    if (q && n)
        memcpy(q, p, n);
    return q;
}

static int serialize(const uint8_t **out, size_t *out_len, zb_ctx *ctx,
                     zb_arena *a, const ice_value *v)
{
    zb_buf b = ZB_BUF_INIT(64);
    int rc;

    if ((rc = ice_value_to_bytes(&b, ctx, v)) < 0) {
        zb_buf_free(&b);
        zb_err_clear(&ctx->err);
        return rc == ZB_ENOMEM ? zb_fail_oom(ctx) : 0;
    }
    *out = arena_copy(a, b.ptr, b.len);
    *out_len = b.len;
    zb_buf_free(&b);
    return *out ? 1 : zb_fail_oom(ctx);
}

/* Bounds of a string or binary column: prefixes, the upper incremented. */
static int byte_bounds(ice_column_metrics *c, zb_ctx *ctx, zb_arena *a,
                       const pq_leaf_metrics *m, int is_string,
                       ice_metrics_mode mode)
{
    size_t n = mode.kind == ICE_METRICS_TRUNCATE ? (size_t)mode.length
                                                 : SIZE_MAX;
    size_t lo_len = m->min_len;
    uint8_t *up;
    long up_len;

    if (is_string) {
        if (m->min_truncated)
            lo_len = utf8_whole(m->min, lo_len);
        ice_metrics_truncate_string_min(&lo_len, m->min, lo_len, n);
    } else if (lo_len > n) {
        lo_len = n;
    }
    if ((c->lower = arena_copy(a, m->min, lo_len)) == NULL ||
        (up = zb_arena_alloc(a, m->max_len + 4)) == NULL)
        return zb_fail_oom(ctx);
    c->lower_len = lo_len;
    up_len = is_string
                 ? ice_metrics_truncate_string_max(up, m->max, m->max_len, n,
                                                   m->max_truncated)
                 : ice_metrics_truncate_binary_max(up, m->max, m->max_len, n,
                                                   m->max_truncated);
    if (up_len >= 0) {
        c->upper = up;
        c->upper_len = (size_t)up_len;
    }
    return ZB_OK;
}

static int bounds(ice_column_metrics *c, zb_ctx *ctx, zb_arena *a,
                  const pq_leaf_metrics *m, const ice_type *t,
                  ice_metrics_mode mode)
{
    ice_value lo, hi;
    int rc;

    if ((t->id == ICE_STRING || t->id == ICE_BINARY) &&
        m->type == PQ_BYTE_ARRAY)
        return byte_bounds(c, ctx, a, m, t->id == ICE_STRING, mode);
    if (m->min_truncated || m->max_truncated ||
        !to_value(&lo, m, t, m->min, m->min_len, 0) ||
        !to_value(&hi, m, t, m->max, m->max_len, 1))
        return ZB_OK;
    if ((rc = serialize(&c->lower, &c->lower_len, ctx, a, &lo)) <= 0 ||
        (rc = serialize(&c->upper, &c->upper_len, ctx, a, &hi)) <= 0) {
        c->lower = c->upper = NULL;
        c->lower_len = c->upper_len = 0;
        return rc;
    }
    return ZB_OK;
}

static int by_field_id(const void *x, const void *y)
{
    const ice_column_metrics *a = x, *b = y;

    return (a->field_id > b->field_id) - (a->field_id < b->field_id);
}

static int is_float_type(const ice_type *t)
{
    return t->id == ICE_FLOAT || t->id == ICE_DOUBLE;
}

int ice_metrics_from_parquet(ice_data_file_metrics *out, zb_ctx *ctx,
                             zb_arena *arena, const ice_metrics_config *cfg,
                             const pq_write_result *r)
{
    ice_column_metrics *cols;
    field_info *fi = NULL;
    int64_t *splits;
    size_t i, n = 0;
    int rc = ZB_OK;

    ZB_ASSERT_ARG(out && ctx && arena && cfg && r);
    memset(out, 0, sizeof *out);
    out->record_count = (int64_t)r->rows;
    out->file_size_bytes = (int64_t)r->file_bytes;
    if ((cols = zb_arena_calloc(arena, r->n_leaves + 1, sizeof *cols)) ==
            NULL ||
        (splits = zb_arena_calloc(arena, r->n_split_offsets + 1,
                                  sizeof *splits)) == NULL ||
        (fi = zb_arena_alloc(arena, sizeof *fi)) == NULL)
        return zb_fail_oom(ctx);
    if (r->n_split_offsets)
        memcpy(splits, r->split_offsets,
               r->n_split_offsets * sizeof *splits);
    for (i = 0; i < r->n_leaves; i++) {
        const pq_leaf_metrics *m = &r->leaves[i];
        ice_column_metrics *c = &cols[n];
        ice_metrics_mode mode;

        if (m->field_id < 0 || !find_field(fi, cfg->schema, m->field_id) ||
            fi->type == NULL || fi->type->id >= ICE_STRUCT)
            continue;
        mode = mode_for(cfg, ctx, fi, m->field_id);
        if (mode.kind == ICE_METRICS_NONE)
            continue;
        c->field_id = m->field_id;
        c->has_column_size = c->has_value_count = 1;
        c->column_size = (int64_t)m->column_bytes;
        c->value_count = m->value_count;
        if (m->null_count >= 0) {
            c->has_null_count = 1;
            c->null_count = m->null_count;
        }
        if (is_float_type(fi->type) && m->nan_count >= 0) {
            c->has_nan_count = 1;
            c->nan_count = m->nan_count;
        }
        n++;
        if (mode.kind == ICE_METRICS_COUNTS || !m->has_bounds ||
            m->in_repeated || fi->repeated)
            continue;
        if ((rc = bounds(c, ctx, arena, m, fi->type, mode)) < 0)
            return rc;
    }
    qsort(cols, n, sizeof *cols, by_field_id);
    out->columns = cols;
    out->n_columns = n;
    out->split_offsets = splits;
    out->n_split_offsets = r->n_split_offsets;
    return ZB_OK;
}
