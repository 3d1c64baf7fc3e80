// Canonical JSON form of Parquet values, shared by every reader in the
// interop tests (our C reader's `zb-parquet-cat`, DuckDB, hyparquet).
//
// One row is one JSON object whose keys are the top-level column names in
// schema order. Values:
//   null                      -> null
//   boolean                   -> true / false
//   any integer type          -> JSON string of the decimal integer ("-12")
//   float, double             -> JSON number with 17 significant digits (float
//                                widened to double exactly); NaN, +inf, -inf
//                                -> "NaN", "Infinity", "-Infinity"; -0 keeps
//                                its sign ("-0")
//   string, enum, json        -> JSON string (json: the text as stored)
//   binary, fixed binary      -> "0x" + lowercase hex ("0x00ff"; empty "0x")
//   uuid                      -> "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lowercase)
//   decimal(p, s)             -> JSON string, exactly s digits after the point,
//                                no point when s = 0 ("-1.50", "0.001", "7")
//   date                      -> JSON number of days since 1970-01-01
//   time (any unit)           -> JSON string of nanoseconds since midnight
//   timestamp (any unit, UTC-adjusted or not, INT96)
//                             -> JSON string of nanoseconds since the epoch
//   float16                   -> like float (widened to double)
//   interval (FLBA 12)        -> {"months": "m", "days": "d", "nanos": "n"}
//   struct                    -> JSON object, fields in schema order
//   list                      -> JSON array
//   map                       -> JSON array of {"key": k, "value": v}
//
// In memory (what the converters below return and what the comparator
// compares) a canonical value is plain JSON data: numbers are JS numbers
// (possibly -0), everything else strings/booleans/null/arrays/objects.

import { DuckDBTypeId } from '@duckdb/node-api';

const NS_PER = { s: 1000000000n, ms: 1000000n, us: 1000n, ns: 1n };

// ---------------------------------------------------------------- helpers

export function hex(bytes) {
    let s = '0x';
    for (const b of bytes) s += b.toString(16).padStart(2, '0');
    return s;
}

export function canonicalDouble(x) {
    const v = Number(x);
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    return v;
}

/** Exact decimal text of unscaled/10^scale with exactly `scale` fraction digits. */
export function formatDecimal(unscaled, scale) {
    let u = BigInt(unscaled);
    const neg = u < 0n;
    if (neg) u = -u;
    let digits = u.toString();
    if (scale > 0) {
        digits = digits.padStart(scale + 1, '0');
        digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
    }
    return (neg ? '-' : '') + digits;
}

/** Two's complement big-endian bytes -> BigInt. */
export function bytesToSignedBigInt(bytes) {
    if (!bytes.length) return 0n;
    let v = 0n;
    for (const b of bytes) v = (v << 8n) | BigInt(b);
    const bits = BigInt(bytes.length * 8);
    if (bytes[0] & 0x80) v -= 1n << bits;
    return v;
}

export function uuidFromBytes(bytes) {
    const h = hex(bytes).slice(2);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function float16ToNumber(bytes) {
    const bits = bytes[0] | (bytes[1] << 8);
    const sign = bits & 0x8000 ? -1 : 1;
    const exp = (bits >> 10) & 0x1f;
    const frac = bits & 0x3ff;
    if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
    if (exp === 0x1f) return frac ? NaN : sign * Infinity;
    return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

function intervalFromBytes(bytes) {
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return {
        months: String(dv.getUint32(0, true)),
        days: String(dv.getUint32(4, true)),
        nanos: String(BigInt(dv.getUint32(8, true)) * NS_PER.ms),
    };
}

const utf8 = new TextDecoder('utf-8');

/**
 * Formats a double as C's printf("%.17g") does (what zb-parquet-cat prints),
 * keeping the sign of -0. Non-finite values are not numbers in canonical form.
 */
export function formatG17(v) {
    if (Object.is(v, -0)) return '-0';
    if (v === 0) return '0';
    const [mant, expStr] = v.toExponential(16).split('e');
    const exp = Number(expStr);
    if (exp < -4 || exp >= 17) {
        let m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
        const e = Math.abs(exp);
        return `${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
    }
    let f = v.toFixed(Math.max(0, 16 - exp));
    if (f.includes('.')) f = f.replace(/0+$/, '').replace(/\.$/, '');
    return f;
}

/** JSON text of a canonical value, numbers printed like %.17g. */
export function toCanonicalJSON(v) {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'number') return formatG17(v);
    if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
    if (Array.isArray(v)) return '[' + v.map(toCanonicalJSON).join(',') + ']';
    return '{' + Object.keys(v).map(k => JSON.stringify(k) + ':' + toCanonicalJSON(v[k])).join(',') + '}';
}

/** Deep equality on canonical values; numbers with Object.is (-0 != 0). */
export function canonicalEqual(a, b) {
    if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) {
        if (a.length !== b.length) return false;
        for (let i = 0; i < a.length; i++) if (!canonicalEqual(a[i], b[i])) return false;
        return true;
    }
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (let i = 0; i < ka.length; i++) {
        if (ka[i] !== kb[i]) return false; // field order matters
        if (!canonicalEqual(a[ka[i]], b[kb[i]])) return false;
    }
    return true;
}

// ---------------------------------------------------------------- DuckDB

/** Nanoseconds per unit of a DuckDB time/timestamp type, or 0 if not one. */
export function duckdbTimeUnitNanos(type) {
    switch (type.typeId) {
        case DuckDBTypeId.TIMESTAMP_S: return NS_PER.s;
        case DuckDBTypeId.TIMESTAMP_MS: return NS_PER.ms;
        case DuckDBTypeId.TIMESTAMP:
        case DuckDBTypeId.TIMESTAMP_TZ:
        case DuckDBTypeId.TIME:
        case DuckDBTypeId.TIME_TZ: return NS_PER.us;
        case DuckDBTypeId.TIMESTAMP_NS:
        case DuckDBTypeId.TIME_NS: return NS_PER.ns;
        default: return 0n;
    }
}

/**
 * Canonical value of one value read with @duckdb/node-api, given the DuckDB
 * type of its column (result.columnType(i)).
 */
export function canonicalFromDuckDB(value, type) {
    if (value === null || value === undefined) return null;
    const T = DuckDBTypeId;
    switch (type.typeId) {
        case T.BOOLEAN: return value;
        case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT:
        case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT:
        case T.HUGEINT: case T.UHUGEINT: case T.BIGNUM:
            return String(value);
        case T.FLOAT: case T.DOUBLE:
            return canonicalDouble(value);
        case T.VARCHAR: case T.ENUM:
            return String(value);
        case T.BLOB:
            return hex(value.bytes);
        case T.UUID:
            return value.toString().toLowerCase();
        case T.DECIMAL:
            return formatDecimal(value.value, type.scale);
        case T.DATE:
            return value.days;
        case T.TIME:
            return String(value.micros * NS_PER.us);
        case T.TIME_TZ: // Parquet TIME(isAdjustedToUTC): DuckDB says offset +00
            return String((value.micros - BigInt(value.offset) * 1000000n) * NS_PER.us);
        case T.TIME_NS:
            return String(value.nanos);
        case T.TIMESTAMP: case T.TIMESTAMP_TZ:
            return String(value.micros * NS_PER.us);
        case T.TIMESTAMP_MS:
            return String(value.millis * NS_PER.ms);
        case T.TIMESTAMP_S:
            return String(value.seconds * NS_PER.s);
        case T.TIMESTAMP_NS:
            return String(value.nanos);
        case T.INTERVAL:
            return { months: String(value.months), days: String(value.days), nanos: String(value.micros * NS_PER.us) };
        case T.LIST: case T.ARRAY:
            return value.items.map(v => canonicalFromDuckDB(v, type.valueType));
        case T.STRUCT: {
            const out = {};
            type.entryNames.forEach((name, i) => {
                out[name] = canonicalFromDuckDB(value.entries[name], type.entryTypes[i]);
            });
            return out;
        }
        case T.MAP:
            return value.entries.map(e => ({
                key: canonicalFromDuckDB(e.key, type.keyType),
                value: canonicalFromDuckDB(e.value, type.valueType),
            }));
        default:
            throw new Error(`no canonical form for DuckDB type ${type.toString()}`);
    }
}

// ---------------------------------------------------------------- hyparquet

/**
 * hyparquet converts some logical types lossily (decimals to JS numbers,
 * timestamps to Date, map keys to object property names). To read exact
 * values, read with the metadata returned here: every annotation except LIST
 * is removed from the schema, so hyparquet hands back physical values (and
 * maps as plain repeated key_value groups); canonicalFromHyparquet() then
 * applies the ORIGINAL schema's annotations. Read options to use with it are
 * in hyparquetReadOptions().
 */
export function hyparquetRawMetadata(metadata) {
    const schema = metadata.schema.map(el => {
        const e = { ...el };
        const keepList = e.converted_type === 'LIST' || e.logical_type?.type === 'LIST';
        delete e.converted_type;
        delete e.logical_type;
        if (keepList) e.converted_type = 'LIST';
        return e;
    });
    return { ...metadata, schema };
}

export const hyparquetParsers = {
    // only reached for INT96 once annotations are stripped: keep exact nanos
    timestampFromNanoseconds: n => BigInt(n),
    timestampFromMicroseconds: n => BigInt(n) * NS_PER.us,
    timestampFromMilliseconds: n => BigInt(n) * NS_PER.ms,
    dateFromDays: d => d,
    stringFromBytes: b => b,
    jsonFromBytes: b => b,
};

function annotation(el) {
    const lt = el.logical_type;
    const ct = el.converted_type;
    if (lt?.type === 'DECIMAL' || ct === 'DECIMAL') return { kind: 'decimal', scale: lt?.scale ?? el.scale ?? 0 };
    if (lt?.type === 'TIMESTAMP') return { kind: 'timestamp', unit: lt.unit };
    if (ct === 'TIMESTAMP_MILLIS') return { kind: 'timestamp', unit: 'MILLIS' };
    if (ct === 'TIMESTAMP_MICROS') return { kind: 'timestamp', unit: 'MICROS' };
    if (lt?.type === 'TIME') return { kind: 'time', unit: lt.unit };
    if (ct === 'TIME_MILLIS') return { kind: 'time', unit: 'MILLIS' };
    if (ct === 'TIME_MICROS') return { kind: 'time', unit: 'MICROS' };
    if (lt?.type === 'DATE' || ct === 'DATE') return { kind: 'date' };
    if (lt?.type === 'UUID') return { kind: 'uuid' };
    if (lt?.type === 'FLOAT16') return { kind: 'float16' };
    if (ct === 'INTERVAL') return { kind: 'interval' };
    if (lt?.type === 'STRING' || lt?.type === 'ENUM' || lt?.type === 'JSON' ||
        ct === 'UTF8' || ct === 'ENUM' || ct === 'JSON') return { kind: 'string' };
    if (lt?.type === 'INTEGER') return { kind: 'int', unsigned: !lt.isSigned };
    if (ct && /^UINT_/.test(ct)) return { kind: 'int', unsigned: true };
    return { kind: 'none' };
}

const UNIT_NS = { MILLIS: NS_PER.ms, MICROS: NS_PER.us, NANOS: NS_PER.ns };

function toBytes(v) {
    if (v instanceof Uint8Array) return v;
    if (typeof v === 'string') return new TextEncoder().encode(v);
    throw new Error(`expected bytes, got ${typeof v}`);
}

function canonicalPrimitive(value, el) {
    const a = annotation(el);
    switch (el.type) {
        case 'BOOLEAN': return Boolean(value);
        case 'INT32':
        case 'INT64': {
            let v = BigInt(value);
            if (a.kind === 'decimal') return formatDecimal(v, a.scale);
            if (a.kind === 'date') return Number(v);
            if (a.kind === 'timestamp') return String(v * UNIT_NS[a.unit]);
            if (a.kind === 'time') return String(v * UNIT_NS[a.unit]);
            if (a.kind === 'int' && a.unsigned) v = BigInt.asUintN(el.type === 'INT32' ? 32 : 64, v);
            return String(v);
        }
        case 'INT96': // hyparquetParsers.timestampFromNanoseconds gives exact nanos
            return String(BigInt(value));
        case 'FLOAT':
        case 'DOUBLE':
            return canonicalDouble(value);
        case 'BYTE_ARRAY':
        case 'FIXED_LEN_BYTE_ARRAY': {
            const b = toBytes(value);
            if (a.kind === 'string') return utf8.decode(b);
            if (a.kind === 'decimal') return formatDecimal(bytesToSignedBigInt(b), a.scale);
            if (a.kind === 'uuid') return uuidFromBytes(b);
            if (a.kind === 'float16') return canonicalDouble(float16ToNumber(b));
            if (a.kind === 'interval') return intervalFromBytes(b);
            return hex(b);
        }
        default:
            throw new Error(`unknown physical type ${el.type}`);
    }
}

function isList(node) {
    const el = node.element;
    return (el.converted_type === 'LIST' || el.logical_type?.type === 'LIST') &&
        node.children.length === 1 && node.children[0].element.repetition_type === 'REPEATED' &&
        node.children[0].children.length <= 1;
}

function isMap(node) {
    const el = node.element;
    return (el.converted_type === 'MAP' || el.converted_type === 'MAP_KEY_VALUE' || el.logical_type?.type === 'MAP') &&
        node.children.length === 1 && node.children[0].element.repetition_type === 'REPEATED' &&
        node.children[0].children.length === 2;
}

/** Canonical value of a node's value ignoring the node's own repetition. */
function canonicalElement(value, node) {
    if (value === null || value === undefined) return null;
    if (!node.children.length) return canonicalPrimitive(value, node.element);
    if (isList(node)) {
        // the same list shapes hyparquet assembles (three-level; two-level
        // when the repeated child has no single child)
        let elem = node.children[0];
        if (elem.children.length === 1) elem = elem.children[0];
        return Array.from(value, v => canonicalValue(v, elem, elem === node.children[0]));
    }
    if (isMap(node)) {
        const kv = node.children[0];
        const [k, v] = kv.children;
        const entries = value[kv.element.name];
        if (entries === null || entries === undefined) return [];
        return Array.from(entries, e => ({
            key: canonicalValue(e?.[k.element.name], k),
            value: canonicalValue(e?.[v.element.name], v),
        }));
    }
    const out = {};
    for (const c of node.children) out[c.element.name] = canonicalValue(value[c.element.name], c);
    return out;
}

function canonicalValue(value, node, skipRepeated = false) {
    if (!skipRepeated && node.element.repetition_type === 'REPEATED') {
        if (value === null || value === undefined) return [];
        return Array.from(value, v => canonicalElement(v, node));
    }
    return canonicalElement(value, node);
}

/**
 * Canonical value of one value read with hyparquet (with hyparquetRawMetadata
 * and hyparquetParsers), given the column's node of parquetSchema(original
 * metadata) — the node with the original annotations.
 */
export function canonicalFromHyparquet(value, parquetSchemaNode) {
    return canonicalValue(value, parquetSchemaNode);
}

/** Reads a whole Parquet file with hyparquet; returns {columns, rows} canonical. */
export async function readCanonicalHyparquet(path) {
    const { parquetMetadata, parquetSchema, parquetRead } = await import('hyparquet');
    const { compressors } = await import('hyparquet-compressors');
    const { readFile } = await import('node:fs/promises');
    const buf = await readFile(path);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const metadata = parquetMetadata(ab);
    const tree = parquetSchema(metadata);
    const columns = tree.children.map(c => c.element.name);
    let raw = [];
    await parquetRead({
        file: ab,
        metadata: hyparquetRawMetadata(metadata),
        compressors,
        utf8: false,
        geoparquet: false,
        parsers: hyparquetParsers,
        rowFormat: 'array',
        onComplete: rows => { raw = rows; },
    });
    const rows = raw.map(r => {
        const o = {};
        tree.children.forEach((node, i) => { o[node.element.name] = canonicalFromHyparquet(r[i], node); });
        return o;
    });
    if (rows.length !== Number(metadata.num_rows)) {
        throw new Error(`hyparquet returned ${rows.length} rows, footer says ${metadata.num_rows}`);
    }
    return { columns, rows, tree };
}
