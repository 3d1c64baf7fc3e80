#!/usr/bin/env node
// Writes a corpus of Parquet files with DuckDB for the interop tests.
//
//   node gen_corpus.mjs OUT_DIR
//
// The data is generated in SQL from hash(row, salt, SEED), so every run with
// the same DuckDB version writes the same values. Every column (except `id`)
// has some nulls. After writing, the files' metadata is read back (DuckDB's
// parquet_schema()/parquet_metadata(), and the page headers with hyparquet's
// page-header parser, since DuckDB does not expose page types) and a summary
// of the physical/logical types, codecs, encodings, page types, row groups and
// pages actually present is printed, followed by the required features that
// no file has (what DuckDB cannot write). See README.md.

import { mkdirSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
if (!existsSync(join(root, 'node_modules', '@duckdb', 'node-api')) ||
    !existsSync(join(root, 'node_modules', 'hyparquet'))) {
    console.error(`gen_corpus: ${join(root, 'node_modules')} lacks the npm packages; run scripts/install-deps.sh`);
    process.exit(1);
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { pageSummary } = await import('./parquet_pages.mjs');

const outDir = process.argv[2];
if (!outDir || process.argv.length !== 3) {
    console.error('usage: node gen_corpus.mjs OUT_DIR');
    process.exit(2);
}
mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (f.endsWith('.parquet')) rmSync(join(outDir, f));

const SEED = 20240611;
const N = 3000;

const inst = await DuckDBInstance.create(':memory:');
const db = await inst.connect();
const sql = async (s, params) => (await db.runAndReadAll(s, params)).getRows();
await sql('SET threads=1');
await sql("SET TimeZone='UTC'").catch(() => {}); // TIMESTAMPTZ casts: UTC without ICU anyway

// h(i, salt): deterministic pseudo-random UBIGINT; r(i, salt, m): 0..m-1;
// nul(i, salt): true for ~1 row in 13.
await sql(`CREATE MACRO h(i, salt) AS hash(i, salt, ${SEED})`);
await sql('CREATE MACRO r(i, salt, m) AS (h(i, salt) % m)::BIGINT');
await sql('CREATE MACRO nul(i, salt) AS h(i, salt + 7777) % 13 = 0');
// exact decimal text of hugeint v / 10^s, for casts to DECIMAL(p, s)
await sql(`CREATE MACRO dectxt(v, s) AS
    (CASE WHEN v < 0 THEN '-' ELSE '' END) ||
    substr(lpad(abs(v)::VARCHAR, s + 1, '0'), 1, length(lpad(abs(v)::VARCHAR, s + 1, '0')) - s) ||
    CASE WHEN s > 0 THEN '.' || right(lpad(abs(v)::VARCHAR, s + 1, '0'), s) ELSE '' END`);
// signed value with up to `digits` decimal digits
await sql(`CREATE MACRO sdig(i, salt, digits) AS
    (CASE WHEN h(i, salt + 1) % 2 = 0 THEN 1 ELSE -1 END) *
    (((h(i, salt) >> 1)::HUGEINT * 18446744073709551616 + h(i, salt + 2)) % (10::HUGEINT ** digits)::HUGEINT)`);
await sql(`CREATE MACRO hexbytes(i, salt, n) AS
    unhex(left(lpad(to_hex(h(i, salt)), 16, '0') || lpad(to_hex(h(i, salt + 1)), 16, '0') ||
               lpad(to_hex(h(i, salt + 2)), 16, '0'), 2 * n))`);
await sql(`CREATE MACRO mkuuid(i, salt) AS (
    substr(x, 1, 8) || '-' || substr(x, 9, 4) || '-' || substr(x, 13, 4) || '-' || substr(x, 17, 4) || '-' || substr(x, 21, 12)
  )::UUID FROM (SELECT lpad(to_hex(h(i, salt)), 16, '0') || lpad(to_hex(h(i, salt + 1)), 16, '0') AS x)`).catch(async () => {
    await sql(`CREATE MACRO mkuuid(i, salt) AS (
        substr(lpad(to_hex(h(i, salt)), 16, '0'), 1, 8) || '-' || substr(lpad(to_hex(h(i, salt)), 16, '0'), 9, 4) || '-' ||
        substr(lpad(to_hex(h(i, salt)), 16, '0'), 13, 4) || '-' || substr(lpad(to_hex(h(i, salt + 1)), 16, '0'), 1, 4) || '-' ||
        substr(lpad(to_hex(h(i, salt + 1)), 16, '0'), 5, 12))::UUID`);
});
await sql("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'ecstatic')");

const maybe = (salt, expr) => `CASE WHEN nul(i, ${salt}) THEN NULL ELSE ${expr} END`;

const FLOAT_SPECIALS = `CASE r(i, 112, 37)
    WHEN 0 THEN 'nan'::FLOAT WHEN 1 THEN 'inf'::FLOAT WHEN 2 THEN '-inf'::FLOAT
    WHEN 3 THEN '-0.0'::FLOAT WHEN 4 THEN 0::FLOAT WHEN 5 THEN '1.4e-45'::FLOAT
    WHEN 6 THEN '3.4028235e38'::FLOAT WHEN 7 THEN '-1.17549435e-38'::FLOAT
    ELSE ((r(i, 113, 2000001) - 1000000)::DOUBLE / 997.0 * 10 ** (r(i, 114, 21) - 10))::FLOAT END`;
const DOUBLE_SPECIALS = `CASE r(i, 115, 37)
    WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE
    WHEN 3 THEN '-0.0'::DOUBLE WHEN 4 THEN 0::DOUBLE WHEN 5 THEN '5e-324'::DOUBLE
    WHEN 6 THEN '1.7976931348623157e308'::DOUBLE WHEN 7 THEN 0.1::DOUBLE WHEN 8 THEN 1e21::DOUBLE
    ELSE (h(i, 116)::DOUBLE / 7.0 - 1.3e18) * 10 ** (r(i, 117, 61) - 40) END`;
const STRINGS = `CASE r(i, 120, 9)
    WHEN 0 THEN ''
    WHEN 1 THEN 'ünïcødé ✓ 日本語 😀 ' || i
    WHEN 2 THEN repeat('long-', 60) || i
    WHEN 3 THEN 'esc "quote" \\ back' || chr(9) || 'tab' || chr(10) || 'nl' || chr(1) || 'ctl' || chr(127) || i
    ELSE 's' || h(i, 121)::VARCHAR END`;

// ------------------------------------------------------------------ tables
const tables = {};

tables.primitives = `SELECT
    i AS id,
    ${maybe(1, 'h(i, 101) % 2 = 0')} AS b,
    ${maybe(2, '(r(i, 102, 256) - 128)::TINYINT')} AS i8,
    ${maybe(3, '(r(i, 103, 65536) - 32768)::SMALLINT')} AS i16,
    ${maybe(4, `CASE r(i, 104, 50) WHEN 0 THEN -2147483648 WHEN 1 THEN 2147483647
                ELSE r(i, 105, 4294967296) - 2147483648 END::INTEGER`)} AS i32,
    ${maybe(5, `CASE r(i, 106, 50) WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807
                WHEN 2 THEN r(i, 107, 1000) - 500
                ELSE (h(i, 108) >> 1)::BIGINT * (CASE WHEN h(i, 109) % 2 = 0 THEN 1 ELSE -1 END) END`)} AS i64,
    ${maybe(6, 'r(i, 110, 256)::UTINYINT')} AS u8,
    ${maybe(7, 'r(i, 111, 65536)::USMALLINT')} AS u16,
    ${maybe(8, `CASE r(i, 118, 50) WHEN 0 THEN 4294967295 ELSE r(i, 119, 4294967296) END::UINTEGER`)} AS u32,
    ${maybe(9, `CASE r(i, 122, 50) WHEN 0 THEN 18446744073709551615::UBIGINT WHEN 1 THEN 0::UBIGINT ELSE h(i, 123) END`)} AS u64,
    ${maybe(10, FLOAT_SPECIALS)} AS f32,
    ${maybe(11, DOUBLE_SPECIALS)} AS f64,
    ${maybe(12, STRINGS)} AS s,
    ${maybe(13, `CASE r(i, 124, 6) WHEN 0 THEN ''::BLOB ELSE hexbytes(i, 125, r(i, 128, 24)::INT) END`)} AS bin,
    ${maybe(14, 'mkuuid(i, 130)')} AS u,
    ${maybe(15, `CASE r(i, 132, 101) WHEN 0 THEN DATE '0001-01-01' WHEN 1 THEN DATE '9999-12-31'
                ELSE DATE '1970-01-01' + (r(i, 133, 146000) - 73000)::INTEGER END`)} AS dt,
    ${maybe(16, `CASE r(i, 134, 101) WHEN 0 THEN TIME '00:00:00' WHEN 1 THEN TIME '23:59:59.999999'
                ELSE TIME '00:00:00' + to_microseconds(r(i, 135, 86400000000)) END`)} AS t_us,
    ${maybe(17, `printf('%02d:%02d:%02d.%09d', r(i, 136, 24), r(i, 137, 60), r(i, 138, 60), r(i, 139, 1000000000))::TIME_NS`)} AS t_ns,
    ${maybe(18, `(TIME '00:00:00' + to_microseconds(r(i, 140, 86400000000)))::TIMETZ`)} AS t_us_utc,
    ${maybe(19, 'make_timestamp(r(i, 141, 8000000000000000) - 4000000000000000)')} AS ts_us,
    ${maybe(20, 'make_timestamp(r(i, 142, 8000000000000000) - 4000000000000000)::TIMESTAMP_MS')} AS ts_ms,
    ${maybe(21, 'make_timestamp_ns(r(i, 143, 8000000000000000000) - 4000000000000000000)')} AS ts_ns,
    ${maybe(22, 'make_timestamp(r(i, 144, 8000000000000000) - 4000000000000000)::TIMESTAMP_S')} AS ts_s,
    ${maybe(23, 'make_timestamp(r(i, 145, 8000000000000000) - 4000000000000000)::TIMESTAMPTZ')} AS ts_us_utc,
    ${maybe(24, 'dectxt(sdig(i, 146, 4), 2)::DECIMAL(4,2)')} AS dec4,
    ${maybe(25, 'dectxt(sdig(i, 149, 9), 3)::DECIMAL(9,3)')} AS dec9,
    ${maybe(26, 'dectxt(sdig(i, 152, 18), 6)::DECIMAL(18,6)')} AS dec18,
    ${maybe(27, 'dectxt(sdig(i, 155, 38), 10)::DECIMAL(38,10)')} AS dec38,
    ${maybe(28, 'dectxt(sdig(i, 158, 10), 0)::DECIMAL(10,0)')} AS dec10_0,
    ${maybe(29, 'dectxt(sdig(i, 161, 30), 30)::DECIMAL(30,30)')} AS dec30_30,
    ${maybe(30, `(['sad', 'ok', 'happy', 'ecstatic'])[r(i, 164, 4) + 1]::mood`)} AS en,
    ${maybe(31, `('{"k": ' || i || ', "s": "x\\u00e9", "a": [1, 2.5, null]}')::JSON`)} AS js
  FROM range(${N}) t(i)`;

const IL = (salt, n, expr) => `list_transform(range(r(i, ${salt}, ${n})), lambda j: ${expr})`;
const jh = (salt) => `h(i * 1000 + j, ${salt})`;
const jh2 = (salt) => `h(i * 1000000 + j * 1000 + k, ${salt})`;
const listOrNull = (salt, expr, typ) => `CASE r(i, ${salt}, 9) WHEN 0 THEN NULL WHEN 1 THEN ${typ.startsWith('MAP') ? 'MAP {}' : '[]'}::${typ} ELSE ${expr} END`;

tables.nested = `SELECT
    i AS id,
    ${maybe(40, `{'a': CASE WHEN nul(i, 41) THEN NULL ELSE r(i, 42, 1000)::INTEGER END,
                 'b': CASE WHEN nul(i, 43) THEN NULL ELSE 'b' || i END,
                 'c': CASE WHEN nul(i, 44) THEN NULL ELSE r(i, 45, 1000)::DOUBLE / 8 END}`)} AS st,
    ${listOrNull(46, IL(47, 7, `CASE WHEN ${jh(48)} % 6 = 0 THEN NULL ELSE (${jh(49)} % 100000)::INTEGER - 50000 END`), 'INTEGER[]')} AS li,
    ${listOrNull(50, IL(51, 5, `CASE WHEN ${jh(52)} % 6 = 0 THEN NULL ELSE 'e' || ${jh(53)} % 97 END`), 'VARCHAR[]')} AS ls,
    ${listOrNull(54, `map_from_entries(${IL(55, 5, `{'k': 'k' || j, 'v': CASE WHEN ${jh(56)} % 5 = 0 THEN NULL ELSE (${jh(57)} % 1000)::INTEGER END}`)})`, 'MAP(VARCHAR, INTEGER)')} AS m,
    ${listOrNull(58, IL(59, 4, `CASE WHEN ${jh(60)} % 7 = 0 THEN NULL ELSE {'x': CASE WHEN ${jh(61)} % 5 = 0 THEN NULL ELSE (${jh(62)} % 100)::INTEGER END, 'y': 'y' || j} END`), 'STRUCT(x INTEGER, y VARCHAR)[]')} AS lst,
    ${maybe(63, `{'xs': ${listOrNull(64, IL(65, 4, `(${jh(66)} % 10)::BIGINT`), 'BIGINT[]')},
                  'ys': ${listOrNull(67, IL(68, 3, `CASE WHEN ${jh(69)} % 4 = 0 THEN NULL ELSE 'y' || j END`), 'VARCHAR[]')}}`)} AS sl,
    ${listOrNull(70, `map_from_entries(${IL(71, 4, `{'k': (j * 3 - 5)::INTEGER, 'v': CASE WHEN ${jh(72)} % 5 = 0 THEN NULL ELSE {'p': (${jh(73)} % 1000)::DOUBLE / 3, 'q': CASE WHEN ${jh(74)} % 3 = 0 THEN NULL ELSE 'q' || j END} END}`)})`, 'MAP(INTEGER, STRUCT(p DOUBLE, q VARCHAR))')} AS ms,
    ${listOrNull(75, IL(76, 4, `CASE ${jh(77)} % 5 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[] ELSE list_transform(range((${jh(78)} % 4)::BIGINT), lambda k: CASE WHEN ${jh2(79)} % 5 = 0 THEN NULL ELSE (${jh2(80)} % 100)::INTEGER END) END`), 'INTEGER[][]')} AS ll,
    ${maybe(81, `{'a': CASE WHEN nul(i, 82) THEN NULL ELSE {'b': ${listOrNull(83, IL(84, 3, `CASE WHEN ${jh(85)} % 6 = 0 THEN NULL ELSE {'c': map_from_entries(list_transform(range((${jh(86)} % 3)::BIGINT), lambda k: {'k': 'c' || k, 'v': CASE WHEN ${jh2(87)} % 4 = 0 THEN NULL ELSE list_transform(range((${jh2(88)} % 3)::BIGINT), lambda x: (x * 10 + k)::BIGINT) END})), 'd': (${jh(89)} % 100)::SMALLINT} END`), 'STRUCT(c MAP(VARCHAR, BIGINT[]), d SMALLINT)[]')}} END, 'z': 'z' || i}`)} AS deep,
    array_value(r(i, 91, 100)::INTEGER, CASE WHEN nul(i, 90) THEN NULL ELSE r(i, 92, 100)::INTEGER END, NULL::INTEGER) AS arr3,
    ${listOrNull(93, IL(94, 3, `CASE WHEN ${jh(95)} % 5 = 0 THEN NULL ELSE dectxt(((${jh(96)} % 2000000)::HUGEINT - 1000000), 2)::DECIMAL(9,2) END`), 'DECIMAL(9,2)[]')} AS ldec,
    ${listOrNull(97, IL(98, 3, `CASE WHEN ${jh(99)} % 5 = 0 THEN NULL ELSE make_timestamp((${jh(100)} % 4000000000000000)::BIGINT) END`), 'TIMESTAMP[]')} AS lts
  FROM range(${N}) t(i)`;

tables.mixed = `SELECT
    i AS id,
    ${maybe(1, '(r(i, 105, 4294967296) - 2147483648)::INTEGER')} AS i32,
    ${maybe(2, 'r(i, 107, 1000) - 500')} AS i64_small,
    ${maybe(3, DOUBLE_SPECIALS)} AS f64,
    ${maybe(4, FLOAT_SPECIALS)} AS f32,
    ${maybe(5, STRINGS)} AS s,
    ${maybe(6, `(['red', 'green', 'blue'])[r(i, 165, 3) + 1]`)} AS s_low,
    ${maybe(7, 'hexbytes(i, 125, r(i, 128, 24)::INT)')} AS bin,
    ${maybe(8, 'dectxt(sdig(i, 152, 18), 6)::DECIMAL(18,6)')} AS dec18,
    ${maybe(9, 'make_timestamp(r(i, 141, 8000000000000000) - 4000000000000000)')} AS ts,
    ${maybe(10, 'h(i, 101) % 3 = 0')} AS b,
    ${listOrNull(46, IL(47, 5, `CASE WHEN ${jh(48)} % 6 = 0 THEN NULL ELSE (${jh(49)} % 100000)::INTEGER END`), 'INTEGER[]')} AS li,
    ${maybe(11, `{'a': CASE WHEN nul(i, 41) THEN NULL ELSE r(i, 42, 10)::INTEGER END, 'b': 'b' || (i % 17)}`)} AS st
  FROM range(${N}) t(i)`;

tables.low_cardinality = `SELECT
    i AS id,
    ${maybe(1, 'r(i, 170, 10)::INTEGER')} AS i32,
    ${maybe(2, 'r(i, 171, 7)::BIGINT * 1000000000000')} AS i64,
    ${maybe(3, 'r(i, 172, 5)::DOUBLE / 4')} AS f64,
    ${maybe(4, 'r(i, 173, 5)::FLOAT / 4')} AS f32,
    ${maybe(5, `(['alpha', 'beta', 'gamma', 'delta', ''])[r(i, 174, 5) + 1]`)} AS s,
    ${maybe(6, `DATE '2024-01-01' + r(i, 175, 12)::INTEGER`)} AS dt,
    ${maybe(7, `dectxt(r(i, 176, 6)::HUGEINT, 2)::DECIMAL(18,2)`)} AS dec18,
    ${maybe(8, `dectxt(r(i, 177, 6)::HUGEINT, 2)::DECIMAL(38,2)`)} AS dec38,
    ${maybe(9, 'hexbytes(i % 4, 178, 3)')} AS bin,
    ${maybe(10, 'h(i, 179) % 2 = 0')} AS b,
    ${maybe(11, 'mkuuid(i % 3, 180)')} AS u,
    'constant' AS s_const,
    NULL::INTEGER AS all_null
  FROM range(${N}) t(i)`;

tables.high_cardinality = `SELECT
    i AS id,
    ${maybe(1, '(r(i, 105, 4294967296) - 2147483648)::INTEGER')} AS i32,
    ${maybe(2, '(h(i, 108) >> 1)::BIGINT - 4611686018427387904')} AS i64,
    ${maybe(3, '(h(i, 116)::DOUBLE / 7.0 - 1.3e18)')} AS f64,
    ${maybe(4, '(h(i, 117)::DOUBLE / 7.0 - 1.3e18)::FLOAT')} AS f32,
    ${maybe(5, `'unique-' || h(i, 121)::VARCHAR || repeat('x', r(i, 122, 40)::INTEGER)`)} AS s,
    ${maybe(6, 'hexbytes(i, 125, 1 + r(i, 128, 23)::INT)')} AS bin,
    ${maybe(7, 'dectxt(sdig(i, 155, 38), 10)::DECIMAL(38,10)')} AS dec38,
    ${maybe(8, 'mkuuid(i, 130)')} AS u,
    ${maybe(9, 'make_timestamp_ns((h(i, 143) >> 1)::BIGINT - 4611686018427387904)')} AS ts_ns
  FROM range(${N * 4}) t(i)`;

tables.many_rows = `SELECT
    i AS id,
    ${maybe(1, '(r(i, 105, 4294967296) - 2147483648)::INTEGER')} AS i32,
    ${maybe(2, `'v' || h(i, 121)::VARCHAR`)} AS s,
    ${maybe(3, 'h(i, 116)::DOUBLE / 7.0')} AS f64,
    ${listOrNull(46, IL(47, 4, `(${jh(49)} % 100)::INTEGER`), 'INTEGER[]')} AS li
  FROM range(200000) t(i)`;

// ------------------------------------------------------------------ files
const files = [];
const add = (name, table, opts) => files.push({ name, table, opts });

for (const v of ['V1', 'V2']) {
    add(`primitives_${v.toLowerCase()}.parquet`, 'primitives', `PARQUET_VERSION ${v}`);
    add(`nested_${v.toLowerCase()}.parquet`, 'nested', `PARQUET_VERSION ${v}`);
    add(`low_cardinality_${v.toLowerCase()}.parquet`, 'low_cardinality', `PARQUET_VERSION ${v}`);
    add(`high_cardinality_${v.toLowerCase()}.parquet`, 'high_cardinality', `PARQUET_VERSION ${v}`);
    for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli']) {
        add(`codec_${codec}_${v.toLowerCase()}.parquet`, 'mixed', `PARQUET_VERSION ${v}, COMPRESSION ${codec}`);
    }
}
add('codec_lz4_v1.parquet', 'mixed', "COMPRESSION lz4"); // DuckDB's 'lz4' writes LZ4_RAW too
add('row_groups_v1.parquet', 'mixed', 'ROW_GROUP_SIZE 500, PARQUET_VERSION V1');
add('row_groups_v2.parquet', 'nested', 'ROW_GROUP_SIZE 700, PARQUET_VERSION V2, COMPRESSION zstd');
add('many_rows_v1.parquet', 'many_rows', 'PARQUET_VERSION V1, COMPRESSION snappy');
add('many_rows_v2.parquet', 'many_rows', 'PARQUET_VERSION V2, COMPRESSION zstd, ROW_GROUP_SIZE 150000');
tables.intervals = `SELECT i AS id,
    ${maybe(1, 'to_months(r(i, 190, 1200)::INTEGER) + to_days(r(i, 191, 400)::INTEGER) + to_milliseconds(r(i, 192, 86400000))')} AS iv
  FROM range(${N}) t(i)`;
add('interval_v1.parquet', 'intervals', 'PARQUET_VERSION V1');
add('empty.parquet', 'mixed_empty', 'PARQUET_VERSION V1');
tables.mixed_empty = `SELECT * FROM (${tables.mixed}) WHERE false`;

for (const t of Object.keys(tables)) await sql(`CREATE TABLE ${t} AS ${tables[t]}`);
for (const f of files) {
    const path = join(outDir, f.name);
    await sql(`COPY (SELECT * FROM ${f.table} ORDER BY id) TO '${path.replace(/'/g, "''")}' (FORMAT parquet, ${f.opts})`);
}

// ------------------------------------------------------------------ summary

// One label per annotated leaf, from converted_type and/or logical_type as
// DuckDB's parquet_schema() prints them.
function logicalFeature(type, conv, lt) {
    const unit = t => /NanoSeconds/.test(t) ? 'NANOS' : /MicroSeconds/.test(t) ? 'MICROS' : 'MILLIS';
    const utc = t => /isAdjustedToUTC=1/.test(t) ? 'UTC' : 'local';
    if (lt && /^TimestampType/.test(lt)) return `TIMESTAMP ${unit(lt)} ${utc(lt)}`;
    if (lt && /^TimeType/.test(lt)) return `TIME ${unit(lt)} ${utc(lt)}`;
    if (conv === 'TIMESTAMP_MILLIS' || conv === 'TIMESTAMP_MICROS') return `TIMESTAMP ${conv.slice(10)} UTC`;
    if (conv === 'TIME_MILLIS' || conv === 'TIME_MICROS') return `TIME ${conv.slice(5)} UTC`;
    if (conv === 'DECIMAL' || (lt && /^DecimalType/.test(lt))) return `DECIMAL on ${type}`;
    if (conv === 'UTF8' || lt === 'StringType()') return 'STRING';
    if (conv === 'ENUM' || lt === 'EnumType()') return 'ENUM';
    if (conv === 'JSON' || lt === 'JsonType()') return 'JSON';
    if (conv === 'BSON' || lt === 'BsonType()') return 'BSON';
    if (lt === 'UUIDType()') return 'UUID';
    if (conv === 'DATE' || lt === 'DateType()') return 'DATE';
    if (lt === 'Float16Type()') return 'FLOAT16';
    if (conv === 'INTERVAL') return 'INTERVAL';
    if (conv && /^U?INT_/.test(conv)) return conv;
    if (lt && /^IntType/.test(lt)) return 'INTEGER annotation';
    if (conv === 'LIST' || conv === 'MAP' || conv === 'MAP_KEY_VALUE') return conv;
    return lt || conv ? `other ${lt ?? ''} ${conv ?? ''}` : null;
}

const seen = {
    physical: new Set(), logical: new Set(), codec: new Set(), encoding: new Set(),
    page: new Set(), levels: new Set(), misc: new Set(),
};
console.log(`gen_corpus: wrote ${files.length} files to ${outDir} (DuckDB ${(await sql('SELECT version()'))[0][0]})`);
const emptyEnc = new Set();
for (const f of files) {
    const path = join(outDir, f.name);
    const schema = await sql(`SELECT name, type, repetition_type, converted_type, logical_type, num_children
                              FROM parquet_schema(?)`, [path]);
    const meta = await sql(`SELECT DISTINCT compression, encodings, path_in_schema FROM parquet_metadata(?)`, [path]);
    const codecs = new Set(), encs = new Set();
    for (const [codec, encodings, col] of meta) {
        codecs.add(codec); seen.codec.add(codec);
        for (const e of String(encodings ?? '').split(',').map(s => s.trim())) {
            if (!e) { emptyEnc.add(`${f.name}:${col}`); continue; }
            encs.add(e); seen.encoding.add(e);
        }
    }
    for (const [name, type, rep, conv, logical, nch] of schema) {
        if (type) seen.physical.add(type);
        if (rep === 'REQUIRED' && type && !Number(nch)) seen.misc.add('REQUIRED leaf column');
        const lf = logicalFeature(type, conv ?? null, logical === null ? null : String(logical));
        if (lf) seen.logical.add(lf);
    }
    // legacy two-level lists: LIST group whose repeated child is the element
    for (let k = 0; k < schema.length; k++) {
        if (String(schema[k][3]) === 'LIST') {
            const child = schema[k + 1];
            if (child && (child[0] !== 'list' || child[5] === null || Number(child[5]) !== 1)) seen.misc.add('two-level LIST');
            else seen.misc.add('three-level LIST');
        }
    }
    const p = pageSummary(path);
    p.types.forEach(t => seen.page.add(t));
    p.levelEnc.forEach(t => seen.levels.add(t));
    if (p.rowGroups > 1) seen.misc.add('multiple row groups');
    if (p.maxPages > 1) seen.misc.add('multiple data pages per column chunk');
    console.log(`  ${f.name}: ${p.rows} rows, ${p.rowGroups} row group(s), max ${p.maxPages} data page(s)/chunk; ` +
        `codecs ${[...codecs].join(',')}; encodings ${[...encs].sort().join(',')}; ` +
        `pages ${[...p.types].sort().join(',')}; levels ${[...p.levelEnc].sort().join(',')}`);
}

const required = {
    physical: ['BOOLEAN', 'INT32', 'INT64', 'INT96', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'],
    logical: ['STRING', 'ENUM', 'JSON', 'UUID', 'DATE', 'TIME MILLIS local', 'TIME MICROS local', 'TIME MICROS UTC',
        'TIME NANOS local', 'TIMESTAMP MILLIS local', 'TIMESTAMP MILLIS UTC', 'TIMESTAMP MICROS local',
        'TIMESTAMP MICROS UTC', 'TIMESTAMP NANOS local', 'TIMESTAMP NANOS UTC',
        'DECIMAL on INT32', 'DECIMAL on INT64', 'DECIMAL on FIXED_LEN_BYTE_ARRAY', 'DECIMAL on BYTE_ARRAY',
        'INT_8', 'INT_16', 'INT_32', 'INT_64', 'UINT_8', 'UINT_16', 'UINT_32', 'UINT_64', 'FLOAT16', 'INTERVAL',
        'LIST', 'MAP'],
    codec: ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD', 'LZ4_RAW', 'BROTLI', 'LZ4', 'LZO'],
    encoding: ['PLAIN', 'RLE_DICTIONARY', 'PLAIN_DICTIONARY', 'DELTA_BINARY_PACKED', 'DELTA_LENGTH_BYTE_ARRAY',
        'DELTA_BYTE_ARRAY', 'BYTE_STREAM_SPLIT', 'RLE', 'BIT_PACKED'],
    page: ['DATA_PAGE', 'DATA_PAGE_V2', 'DICTIONARY_PAGE'],
    levels: ['def:RLE', 'def:BIT_PACKED'],
    misc: ['multiple row groups', 'multiple data pages per column chunk', 'three-level LIST', 'two-level LIST', 'REQUIRED leaf column'],
};
// normalize logical spellings of DuckDB's parquet_schema() output
const norm = s => s.replace(/\s+/g, ' ');
const missing = [];
for (const [k, list] of Object.entries(required)) {
    for (const want of list) {
        const have = [...seen[k]].some(x => norm(x) === norm(want));
        if (!have) missing.push(`${k}: ${want}`);
    }
}
console.log(`  present: physical ${[...seen.physical].sort().join(',')}`);
console.log(`  present: logical ${[...seen.logical].sort().join('; ')}`);
console.log(`  present: codecs ${[...seen.codec].sort().join(',')}; encodings ${[...seen.encoding].sort().join(',')}; ` +
    `pages ${[...seen.page].sort().join(',')}; levels ${[...seen.levels].sort().join(',')}; ${[...seen.misc].sort().join('; ')}`);
if (emptyEnc.size) console.log(`  note: DuckDB wrote a column chunk with an EMPTY encodings list (valid per the spec? readers must not rely on it): ${[...emptyEnc].join(', ')}`);
console.log(`  NOT written by DuckDB (not in this corpus): ${missing.join('; ') || 'none'}`);
