#!/usr/bin/env node
// Writes the "extra" Parquet corpus: the features DuckDB 1.5 cannot write
// (README.md, "What DuckDB 1.5.6 cannot write"), so that our reader is checked
// on them against independent readers.
//
//   node gen_corpus_extra.mjs [--unverified] OUT_DIR
//
// --unverified also writes files that no reference reader reads as the spec
// says (real BIT_PACKED levels; two-level lists named `array`/`<list>_tuple`
// with one field), for a look by hand; they are not part of the ctest corpus.
//
// Two writers, neither of them ours (src/format/parquet):
//   - hyparquet-writer (npm, exact version in /package.json): DATA_PAGE_V2,
//     RLE booleans, DELTA_BYTE_ARRAY, DELTA_BINARY_PACKED, REQUIRED columns,
//     several pages per chunk, standard lists in v2 pages;   files hw_*.parquet
//   - pqwrite.mjs (a small writer from the format spec, in this directory):
//     v1 and v2 pages, BIT_PACKED levels, INT96, legacy two-level lists and
//     bare repeated fields, Hadoop-framed LZ4 (codec 5), RLE booleans and
//     DELTA_BYTE_ARRAY in v1 pages, rows split across v1 pages;  files pq_*.parquet
//
// Data come from a seeded PRNG, so every run writes the same bytes. After
// writing, every file is read back with DuckDB and hyparquet; the script
// prints which of them can read it and exits 1 when a file is readable by
// neither (such a file would only be SKIPped by compare_parquet.mjs), or
// when a feature a file is meant to carry is not in it (page types, level
// encodings, split rows: checked from the page headers).

import { mkdirSync, rmSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
for (const p of ['@duckdb/node-api', 'hyparquet', 'hyparquet-writer']) {
    if (!existsSync(join(root, 'node_modules', p))) {
        console.error(`gen_corpus_extra: ${join(root, 'node_modules')} lacks ${p}; run scripts/install-deps.sh`);
        process.exit(1);
    }
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { parquetWriteBuffer } = await import('hyparquet-writer');
const { writeParquet } = await import('./pqwrite.mjs');
const { pageSummary } = await import('./parquet_pages.mjs');
const C = await import('./canonical.mjs');

const args = process.argv.slice(2);
const unverified = args[0] === '--unverified';
if (unverified) args.shift();
const outDir = args[0];
if (!outDir || args.length !== 1) {
    console.error('usage: node gen_corpus_extra.mjs [--unverified] OUT_DIR');
    process.exit(2);
}
mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (f.endsWith('.parquet')) rmSync(join(outDir, f));

// ------------------------------------------------------------------ data
// mulberry32: a small deterministic PRNG
function rng(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
const SEED = 20240612;
const R = rng(SEED);
const int = (lo, hi) => lo + Math.floor(R() * (hi - lo + 1)); // inclusive
const chance = p => R() < p;
const maybe = (p, f) => (chance(p) ? null : f());
const pick = a => a[Math.floor(R() * a.length)];
const bigRand = () => (BigInt(Math.floor(R() * 2 ** 32)) << 32n | BigInt(Math.floor(R() * 2 ** 32)));
const i64 = () => BigInt.asIntN(64, bigRand());
const bytes = n => Uint8Array.from({ length: n }, () => int(0, 255));
const WORDS = ['', 'a', 'apple', 'applesauce', 'apply', 'banana', 'band', 'bandana', 'ünïcødé ✓', '日本語', '😀 emoji',
    'esc "q" \\ \t\n\u0001', 'x'.repeat(300), 'prefix-shared-0001', 'prefix-shared-0002', 'prefix-shared-0100'];
const str = () => (chance(0.3) ? `${pick(WORDS)}${int(0, 999)}` : pick(WORDS));
const f64 = () => pick([NaN, Infinity, -Infinity, -0, 0, 5e-324, 1.7976931348623157e308, 0.1,
    (R() - 0.5) * 10 ** int(-20, 20), (R() - 0.5) * 10 ** int(-20, 20), (R() - 0.5) * 10 ** int(-20, 20)]);
const f32 = () => Math.fround(pick([NaN, Infinity, -0, 1.4e-45, 3.4028234663852886e38, (R() - 0.5) * 10 ** int(-10, 10), (R() - 0.5) * 1000]));
const i32 = () => pick([-2147483648, 2147483647, 0, int(-100, 100), int(-2147483648, 2147483647)]);
const list = (max, f, pNull = 0.1, pEmpty = 0.1) => (chance(pNull) ? null : chance(pEmpty) ? [] : Array.from({ length: int(1, max) }, f));

const written = []; // {name, wants: {...}}
function save(name, buf, wants = {}) {
    writeFileSync(join(outDir, name), buf);
    written.push({ name, wants });
}

// ------------------------------------------------------------------ hyparquet-writer files
{
    // flat: REQUIRED and OPTIONAL, RLE booleans, DELTA_* encodings, small pages, 2+ row groups, v2 pages
    const N = 2500;
    const cols = {
        id: [], req_b: [], opt_b: [], req_i32: [], opt_i32: [], req_i64: [], opt_i64: [], req_s: [], opt_s: [],
        opt_f64: [], req_f32: [], opt_bin: [],
    };
    for (let i = 0; i < N; i++) {
        cols.id.push(BigInt(i));
        cols.req_b.push(i % 37 < 20 ? true : chance(0.5));
        cols.opt_b.push(maybe(0.15, () => chance(0.7)));
        cols.req_i32.push(i32());
        cols.opt_i32.push(maybe(0.1, () => int(-1000, 1000) + i * 3));
        cols.req_i64.push(i64());
        cols.opt_i64.push(maybe(0.1, () => BigInt(i) * 1000003n - 7n));
        cols.req_s.push(`prefix-shared-${String(i).padStart(6, '0')}-${str()}`);
        cols.opt_s.push(maybe(0.2, str));
        cols.opt_f64.push(maybe(0.1, f64));
        cols.req_f32.push(f32());
        cols.opt_bin.push(maybe(0.1, () => bytes(int(0, 12))));
    }
    const columnData = [
        { name: 'id', data: cols.id, type: 'INT64', nullable: false, encoding: 'DELTA_BINARY_PACKED' },
        { name: 'req_b', data: cols.req_b, type: 'BOOLEAN', nullable: false, encoding: 'RLE' },
        { name: 'opt_b', data: cols.opt_b, type: 'BOOLEAN', encoding: 'RLE' },
        { name: 'req_i32', data: cols.req_i32, type: 'INT32', nullable: false, encoding: 'DELTA_BINARY_PACKED' },
        { name: 'opt_i32', data: cols.opt_i32, type: 'INT32', encoding: 'PLAIN' },
        { name: 'req_i64', data: cols.req_i64, type: 'INT64', nullable: false, encoding: 'PLAIN' },
        { name: 'opt_i64', data: cols.opt_i64, type: 'INT64', encoding: 'DELTA_BINARY_PACKED' },
        { name: 'req_s', data: cols.req_s, type: 'STRING', nullable: false, encoding: 'DELTA_BYTE_ARRAY' },
        { name: 'opt_s', data: cols.opt_s, type: 'STRING', encoding: 'DELTA_BYTE_ARRAY' },
        { name: 'opt_f64', data: cols.opt_f64, type: 'DOUBLE', encoding: 'BYTE_STREAM_SPLIT' },
        { name: 'req_f32', data: cols.req_f32, type: 'FLOAT', nullable: false, encoding: 'PLAIN' },
        { name: 'opt_bin', data: cols.opt_bin, type: 'BYTE_ARRAY', encoding: 'DELTA_LENGTH_BYTE_ARRAY' },
    ];
    for (const codec of ['UNCOMPRESSED', 'SNAPPY']) {
        save(`hw_v2_flat_${codec.toLowerCase()}.parquet`, new Uint8Array(parquetWriteBuffer({
            columnData, codec, pageSize: 2048, rowGroupSize: [1000, 1500], statistics: false,
        })), { page: ['DATA_PAGE_V2'], multiPage: true, encodings: ['RLE', 'DELTA_BYTE_ARRAY'] });
    }
}
{
    // standard 3-level lists and structs in v2 pages (repetition levels in v2; pages start at rows)
    const N = 1500;
    const li = [], ls = [], st = [];
    for (let i = 0; i < N; i++) {
        li.push(list(9, () => maybe(0.15, () => int(-50000, 50000))));
        ls.push(list(5, () => maybe(0.15, str)));
        st.push(maybe(0.1, () => ({ a: maybe(0.1, () => int(0, 999)), b: maybe(0.1, str) })));
    }
    const ids = Array.from({ length: N }, (_, i) => i);
    save('hw_v2_nested.parquet', new Uint8Array(parquetWriteBuffer({
        columnData: [
            { name: 'id', data: ids },
            { name: 'li', data: li },
            { name: 'ls', data: ls },
            { name: 'st', data: st },
        ],
        schema: [
            { name: 'root', num_children: 4 },
            { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
            { name: 'li', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
            { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
            { name: 'element', type: 'INT32', repetition_type: 'OPTIONAL' },
            { name: 'ls', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
            { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
            { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
            { name: 'st', repetition_type: 'OPTIONAL', num_children: 2 },
            { name: 'a', type: 'INT32', repetition_type: 'OPTIONAL' },
            { name: 'b', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        ],
        codec: 'UNCOMPRESSED', pageSize: 1024, statistics: false,
    })), { page: ['DATA_PAGE_V2'], multiPage: true });
}

// ------------------------------------------------------------------ pqwrite files
function pq(name, spec, wants) {
    const stats = {};
    const buf = writeParquet({ ...spec, stats });
    save(name, buf, { ...wants, splitRowPages: wants.splitRows ? stats.splitRowPages : undefined });
    return stats;
}
const STRING = (name, repetition = 'OPTIONAL') => ({ name, repetition, type: 'BYTE_ARRAY', convertedType: 'UTF8' });
const prim = (name, type, repetition = 'OPTIONAL', extra = {}) => ({ name, repetition, type, ...extra });
const list3 = (name, element, repetition = 'OPTIONAL') =>
    ({ name, repetition, convertedType: 'LIST', children: [{ name: 'list', repetition: 'REPEATED', children: [element] }] });
const wrap3 = l => (l === null ? null : { list: l.map(e => ({ element: e })) });

// REQUIRED columns of every physical type (v1 pages, RLE levels where any), several pages, 2 row groups
{
    const N = 2000, rows = [];
    for (let i = 0; i < N; i++) {
        rows.push({
            id: BigInt(i), b: chance(0.5), i32: i32(), i64: i64(), f: f32(), d: f64(), s: str(),
            bin: bytes(int(0, 9)), fixed: bytes(5), dec: BigInt(int(-99999, 99999)),
            st: { x: int(-5, 5), y: maybe(0.2, str) },
            opt: maybe(0.3, () => int(0, 100)),
        });
    }
    pq('pq_v1_required.parquet', {
        schema: [
            prim('id', 'INT64', 'REQUIRED'), prim('b', 'BOOLEAN', 'REQUIRED'), prim('i32', 'INT32', 'REQUIRED'),
            prim('i64', 'INT64', 'REQUIRED'), prim('f', 'FLOAT', 'REQUIRED'), prim('d', 'DOUBLE', 'REQUIRED'),
            STRING('s', 'REQUIRED'), prim('bin', 'BYTE_ARRAY', 'REQUIRED'),
            prim('fixed', 'FIXED_LEN_BYTE_ARRAY', 'REQUIRED', { typeLength: 5 }),
            prim('dec', 'INT64', 'REQUIRED', { convertedType: 'DECIMAL', precision: 12, scale: 3 }),
            { name: 'st', repetition: 'REQUIRED', children: [prim('x', 'INT32', 'REQUIRED'), STRING('y')] },
            prim('opt', 'INT32'),
        ],
        // flat REQUIRED columns have no levels: declare BIT_PACKED (as Impala does), harmless
        rows, rowGroups: [1200, 800], columns: { default: { pageValues: 350, levels: 'BIT_PACKED' }, 'st.y': { levels: 'RLE' }, opt: { levels: 'RLE' } },
    }, { page: ['DATA_PAGE'], multiPage: true, levels: ['def:BIT_PACKED', 'def:RLE'] });
}

// BIT_PACKED (deprecated) levels that are really there: neither DuckDB 1.5 nor
// hyparquet 1.33 reads them (both read every v1 level run as a length-prefixed
// RLE hybrid whatever the page header says), so only with --unverified.
if (unverified) {
    const N = 1800, rows = [];
    for (let i = 0; i < N; i++) {
        rows.push({ id: i, b: maybe(0.2, () => chance(0.5)), n: maybe(0.25, () => int(-1e6, 1e6)),
            s: maybe(0.3, str), d: maybe(0.1, f64), all_null: null, never_null: i * 7 });
    }
    pq('pq_v1_bitpacked_levels.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), prim('b', 'BOOLEAN'), prim('n', 'INT32'), STRING('s'), prim('d', 'DOUBLE'),
            prim('all_null', 'INT64'), prim('never_null', 'INT32')],
        rows, rowGroups: [1000, 800], columns: { default: { levels: 'BIT_PACKED', pageValues: 333 } },
    }, { page: ['DATA_PAGE'], multiPage: true, levels: ['def:BIT_PACKED'] });
}

// BIT_PACKED repetition and definition levels of a list (max rep 1, max def 3)
if (unverified) {
    const N = 800, rows = [];
    for (let i = 0; i < N; i++) rows.push({ id: i, li: wrap3(list(6, () => maybe(0.2, () => int(-99, 99)))) });
    pq('pq_v1_bitpacked_levels_list.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), list3('li', prim('element', 'INT32'))],
        rows, columns: { default: { levels: 'BIT_PACKED', pageValues: 200 } },
    }, { page: ['DATA_PAGE'], multiPage: true, levels: ['def:BIT_PACKED', 'rep:BIT_PACKED'] });
}

// RLE booleans, DELTA_BYTE_ARRAY, DELTA_LENGTH_BYTE_ARRAY, DELTA_BINARY_PACKED in v1 pages
{
    const N = 2200, rows = [];
    let acc = 0n;
    for (let i = 0; i < N; i++) {
        acc += BigInt(int(-1000, 100000));
        rows.push({
            id: i,
            b_req: i % 50 < 30 ? (i % 3 === 0) : chance(0.5),
            b_opt: maybe(0.2, () => (i % 100 < 60 ? true : chance(0.5))),
            s_dba: maybe(0.1, () => (chance(0.5) ? `prefix-shared-${String(i >> 2).padStart(5, '0')}` : str())),
            bin_dba: bytes(int(0, 6)),
            s_dlba: maybe(0.1, str),
            i32_delta: maybe(0.1, i32),
            i64_delta: maybe(0.1, () => (chance(0.9) ? acc : i64())),
        });
    }
    pq('pq_v1_encodings.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), prim('b_req', 'BOOLEAN', 'REQUIRED'), prim('b_opt', 'BOOLEAN'),
            STRING('s_dba'), prim('bin_dba', 'BYTE_ARRAY', 'REQUIRED'), STRING('s_dlba'), prim('i32_delta', 'INT32'), prim('i64_delta', 'INT64')],
        rows, rowGroups: [1100, 1100],
        columns: {
            default: { pageValues: 400 },
            b_req: { encoding: 'RLE' }, b_opt: { encoding: 'RLE' },
            s_dba: { encoding: 'DELTA_BYTE_ARRAY' }, bin_dba: { encoding: 'DELTA_BYTE_ARRAY' },
            s_dlba: { encoding: 'DELTA_LENGTH_BYTE_ARRAY' },
            i32_delta: { encoding: 'DELTA_BINARY_PACKED' }, i64_delta: { encoding: 'DELTA_BINARY_PACKED' },
        },
    }, { page: ['DATA_PAGE'], multiPage: true, encodings: ['RLE', 'DELTA_BYTE_ARRAY'] });
}

// DATA_PAGE_V2 from pqwrite: flat and nested, RLE booleans, DELTA_BYTE_ARRAY, several pages
{
    const N = 1600, rows = [];
    for (let i = 0; i < N; i++) {
        rows.push({
            id: BigInt(i), b: maybe(0.2, () => chance(0.5)), s: maybe(0.2, str), n: int(-9, 9),
            li: wrap3(list(7, () => maybe(0.2, () => int(-1000, 1000)))),
            ll: wrap3(list(3, () => wrap3(list(3, () => maybe(0.2, str))))),
            nul: null,
        });
    }
    pq('pq_v2_pages.parquet', {
        schema: [prim('id', 'INT64', 'REQUIRED'), prim('b', 'BOOLEAN'), STRING('s'), prim('n', 'INT32', 'REQUIRED'),
            list3('li', prim('element', 'INT32')),
            list3('ll', list3('element', STRING('element'))),
            prim('nul', 'DOUBLE')],
        rows, rowGroups: [900, 700],
        columns: {
            default: { page: 'v2', pageValues: 250 },
            b: { encoding: 'RLE' }, s: { encoding: 'DELTA_BYTE_ARRAY' }, n: { encoding: 'DELTA_BINARY_PACKED' },
        },
    }, { page: ['DATA_PAGE_V2'], multiPage: true, encodings: ['RLE', 'DELTA_BYTE_ARRAY'] });
}

// Hadoop-framed LZ4 (codec 5), v1 and v2 pages (in separate files)
for (const page of ['v1', 'v2']) {
    const N = 1500, rows = [];
    for (let i = 0; i < N; i++) {
        rows.push({ id: i, s: maybe(0.1, () => `${pick(WORDS)}-${i % 40}`), d: maybe(0.1, f64), rep: 'same text '.repeat(int(0, 5)),
            li: wrap3(list(5, () => maybe(0.2, () => int(0, 9)))), raw: maybe(0.5, () => int(0, 3)) });
    }
    pq(`pq_${page}_lz4_hadoop.parquet`, {
        schema: [prim('id', 'INT32', 'REQUIRED'), STRING('s'), prim('d', 'DOUBLE'), STRING('rep', 'REQUIRED'),
            list3('li', prim('element', 'INT32')), prim('raw', 'INT32')],
        rows, rowGroups: [800, 700],
        columns: { default: { page, codec: 'LZ4', pageValues: 300 }, ...(page === 'v2' ? { raw: { v2Uncompressed: true } } : {}) },
    }, { page: [page === 'v1' ? 'DATA_PAGE' : 'DATA_PAGE_V2'], multiPage: true, codec: 'LZ4' });
}

// INT96 timestamps (nanoseconds of day + Julian day)
{
    const N = 1200, rows = [];
    const DAY = 86400000000000n;
    const specials = [0n, -1n, 1n, DAY - 1n, -DAY, 999n, -999n, 1700000000123456789n, -2208988800000000000n /* 1900-01-01 */,
        -9223372036854775808n + 1000n, 9223372036854775807n - 1000n /* int64 nanosecond range: 1677..2262 */];
    for (let i = 0; i < N; i++) {
        const v = i < specials.length ? specials[i] : BigInt(int(-4e9, 4e9)) * 1000000000n + BigInt(int(0, 999999999));
        rows.push({ id: i, ts: i < specials.length ? v : maybe(0.1, () => v), ts_req: v + BigInt(i),
            lts: wrap3(list(3, () => maybe(0.2, () => BigInt(int(-1e9, 1e9)) * 1000000000n + BigInt(int(0, 999999999))))) });
    }
    pq('pq_v1_int96.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), prim('ts', 'INT96'), prim('ts_req', 'INT96', 'REQUIRED'), list3('lts', prim('element', 'INT96'))],
        rows, columns: { default: { pageValues: 500 } },
    }, { page: ['DATA_PAGE'], multiPage: true });

    // INT96 outside the int64-nanosecond range (before 1677-09-21 or after
    // 2262-04-11): valid INT96, exact in the canonical form (a decimal string)
    const far = [253402300799999999000n /* 9999-12-31T23:59:59.999999 */, -62135596800000000000n /* 0001-01-01 */,
        -9223372036854775808n - 1000n, 9223372036854775807n + 1000n, 0n];
    pq('pq_v1_int96_far.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), prim('ts', 'INT96')],
        rows: far.map((ts, id) => ({ id, ts })),
    }, { page: ['DATA_PAGE'] });
}

// Legacy two-level lists (LogicalTypes.md backward-compatibility rules), one shape per file
{
    const N = 700;
    const shapes = {
        // optional group a (LIST) { repeated int32 array; }
        list2_primitive: {
            schema: [{ name: 'a', convertedType: 'LIST', children: [prim('array', 'INT32', 'REPEATED')] }],
            row: () => ({ a: maybe(0.1, () => ({ array: list(6, () => int(-100, 100), 0, 0.15) })) }),
        },
        // optional group a (LIST) { repeated binary element (UTF8); }: primitive repeated field, name irrelevant
        list2_primitive_str: {
            schema: [{ name: 'a', convertedType: 'LIST', children: [{ ...STRING('str', 'REPEATED') }] }],
            row: () => ({ a: maybe(0.1, () => ({ str: list(4, str, 0, 0.15) })) }),
        },
        // optional group a (LIST) { repeated group array { optional binary s (UTF8); } }: element is the group
        list2_array_group: unverified && {
            schema: [{ name: 'a', convertedType: 'LIST', children: [{ name: 'array', repetition: 'REPEATED', children: [STRING('s')] }] }],
            row: () => ({ a: maybe(0.1, () => ({ array: list(5, () => ({ s: maybe(0.2, str) }), 0, 0.15) })) }),
        },
        // optional group a (LIST) { repeated group a_tuple { required int64 x; } }: element is the group
        list2_tuple: unverified && {
            schema: [{ name: 'a', convertedType: 'LIST', children: [{ name: 'a_tuple', repetition: 'REPEATED', children: [prim('x', 'INT64', 'REQUIRED')] }] }],
            row: () => ({ a: maybe(0.1, () => ({ a_tuple: list(5, () => ({ x: i64() }), 0, 0.15) })) }),
        },
        // optional group a (LIST) { repeated group pair { required int32 k; optional binary v (UTF8); } }: 2 children -> element is the group
        list2_multi_field: {
            schema: [{ name: 'a', convertedType: 'LIST', children: [{ name: 'pair', repetition: 'REPEATED', children: [prim('k', 'INT32', 'REQUIRED'), STRING('v')] }] }],
            row: () => ({ a: maybe(0.1, () => ({ pair: list(5, () => ({ k: int(0, 9), v: maybe(0.3, str) }), 0, 0.15) })) }),
        },
        // required group a (LIST) { repeated int32 array; } (a required list)
        list2_required: {
            schema: [{ name: 'a', repetition: 'REQUIRED', convertedType: 'LIST', children: [prim('array', 'INT32', 'REPEATED')] }],
            row: () => ({ a: { array: list(6, () => int(-100, 100), 0, 0.2) } }),
        },
        // repeated int32 x; repeated group rg { required int32 p; optional binary q (UTF8); }: bare repeated fields
        bare_repeated: {
            schema: [prim('x', 'INT32', 'REPEATED'),
                { name: 'rg', repetition: 'REPEATED', children: [prim('p', 'INT32', 'REQUIRED'), STRING('q')] },
                { name: 'st', children: [STRING('name'), prim('tags', 'BYTE_ARRAY', 'REPEATED', { convertedType: 'UTF8' })] }],
            row: () => ({ x: list(5, () => int(-9, 9), 0, 0.2), rg: list(3, () => ({ p: int(0, 99), q: maybe(0.3, str) }), 0, 0.2),
                st: maybe(0.1, () => ({ name: maybe(0.2, str), tags: list(3, str, 0, 0.3) })) }),
        },
        // a standard 3-level list whose elements are legacy 2-level lists: list<list<int>>
        list2_in_list3: {
            schema: [list3('a', { name: 'element', convertedType: 'LIST', children: [prim('array', 'INT32', 'REPEATED')] })],
            row: () => ({ a: wrap3(list(4, () => maybe(0.2, () => ({ array: list(3, () => int(0, 9), 0, 0.2) })))) }),
        },
    };
    for (const [shape, spec] of Object.entries(shapes)) {
        if (!spec) continue;
        const { schema, row } = spec;
        const rows = [];
        for (let i = 0; i < N; i++) rows.push({ id: i, ...row() });
        pq(`pq_v1_${shape}.parquet`, {
            schema: [prim('id', 'INT32', 'REQUIRED'), ...schema], rows, columns: { default: { pageValues: 300 } },
        }, { page: ['DATA_PAGE'], twoLevel: true });
    }
}

// Repeated rows split across v1 page boundaries (pages cut at a fixed count of level entries)
{
    const N = 900, rows = [];
    for (let i = 0; i < N; i++) {
        rows.push({
            id: i,
            li: wrap3(list(9, () => maybe(0.15, () => int(-500, 500)), 0.05, 0.05)),
            ls: wrap3(list(6, () => maybe(0.15, str), 0.05, 0.05)),
            ll: wrap3(list(4, () => wrap3(list(4, () => maybe(0.2, () => BigInt(int(0, 1e6))))))),
            lst: wrap3(list(4, () => maybe(0.1, () => ({ x: maybe(0.2, () => int(0, 99)), y: maybe(0.2, str) })))),
            bare: list(5, () => int(0, 9), 0, 0.1),
        });
    }
    pq('pq_v1_split_rows.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), list3('li', prim('element', 'INT32')), list3('ls', STRING('element')),
            list3('ll', list3('element', prim('element', 'INT64'))),
            list3('lst', { name: 'element', children: [prim('x', 'INT32'), STRING('y')] })],
        rows, rowGroups: [500, 400],
        columns: { default: { pageValues: 17, splitRows: true }, id: { pageValues: 100 }, 'ls.list.element': { pageValues: 23, splitRows: true, encoding: 'DELTA_BYTE_ARRAY' } },
    }, { page: ['DATA_PAGE'], multiPage: true, splitRows: true });
    // a bare repeated field (a required list of itself) split across pages
    pq('pq_v1_split_rows_bare.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), prim('bare', 'INT32', 'REPEATED'),
            { name: 'rg', repetition: 'REPEATED', children: [prim('p', 'INT32', 'REQUIRED'), STRING('q')] }],
        rows: rows.map(r => ({ id: r.id, bare: r.bare, rg: (r.bare ?? []).map(p => ({ p, q: p % 3 ? `q${p}` : null })) })),
        columns: { default: { pageValues: 11, splitRows: true }, id: { pageValues: 100 } },
    }, { page: ['DATA_PAGE'], multiPage: true, splitRows: true });
    pq('pq_v1_split_rows_lz4.parquet', {
        schema: [prim('id', 'INT32', 'REQUIRED'), list3('li', prim('element', 'INT32')),
            list3('ll', list3('element', prim('element', 'INT64')))],
        rows, columns: { default: { pageValues: 29, splitRows: true, codec: 'LZ4' } },
    }, { page: ['DATA_PAGE'], multiPage: true, splitRows: true });
    if (unverified) {
        pq('pq_v1_split_rows_lz4_bitpacked.parquet', {
            schema: [prim('id', 'INT32', 'REQUIRED'), list3('li', prim('element', 'INT32')),
                list3('ll', list3('element', prim('element', 'INT64')))],
            rows, columns: { default: { pageValues: 29, splitRows: true, codec: 'LZ4', levels: 'BIT_PACKED' } },
        }, { page: ['DATA_PAGE'], multiPage: true, splitRows: true, levels: ['def:BIT_PACKED', 'rep:BIT_PACKED'] });
    }
}

// ------------------------------------------------------------------ check: features present, readers that read each file
const inst = await DuckDBInstance.create(':memory:');
const db = await inst.connect();
await db.run('SET threads=1');
let bad = 0;
const readable = {};
for (const { name, wants } of written) {
    const path = join(outDir, name);
    const p = pageSummary(path);
    const problems = [];
    for (const t of wants.page ?? []) if (!p.types.has(t)) problems.push(`no ${t} page`);
    for (const l of wants.levels ?? []) if (!p.levelEnc.has(l)) problems.push(`no ${l} levels`);
    for (const e of wants.encodings ?? []) if (!p.dataEnc.has(e)) problems.push(`no ${e} data`);
    if (wants.multiPage && p.maxPages < 2) problems.push('one page per chunk');
    if (wants.splitRows && !(wants.splitRowPages > 0)) problems.push('no page starts inside a row');
    const ok = [];
    const errs = [];
    try {
        const r = await db.runAndReadAll('SELECT * FROM read_parquet(?, hive_partitioning=false, binary_as_string=false)', [path]);
        if (r.getRows().length !== p.rows) throw new Error(`row count ${r.getRows().length} != ${p.rows}`);
        ok.push('duckdb');
    } catch (e) { errs.push(`duckdb: ${String(e.message || e).split('\n')[0]}`); }
    try {
        const { rows } = await C.readCanonicalHyparquet(path);
        if (rows.length !== p.rows) throw new Error(`row count ${rows.length} != ${p.rows}`);
        ok.push('hyparquet');
    } catch (e) { errs.push(`hyparquet: ${String(e.message || e).split('\n')[0]}`); }
    readable[name] = ok;
    if (!ok.length && !unverified) problems.push('readable by neither DuckDB nor hyparquet');
    if (problems.length) bad++;
    console.log(`  ${name}: ${p.rows} rows, ${p.rowGroups} row group(s), max ${p.maxPages} page(s)/chunk` +
        (wants.splitRowPages ? `, ${wants.splitRowPages} page(s) starting inside a row` : '') +
        `; pages ${[...p.types].sort().join(',')}; levels ${[...p.levelEnc].sort().join(',')}; data ${[...p.dataEnc].sort().join(',')}` +
        `; read by ${ok.join('+') || 'NONE'}${errs.length ? ` (${errs.join('; ')})` : ''}` +
        (problems.length ? `\n    PROBLEM: ${problems.join('; ')}` : ''));
}
console.log(`gen_corpus_extra: wrote ${written.length} files to ${resolve(outDir)}${bad ? `; ${bad} with problems` : ''}`);
process.exit(bad ? 1 : 0);
