#!/usr/bin/env node
// Checks the page index our Parquet writer writes (pq_writer_opts.page_index)
// with independent readers. test_parquet_page_index, run with
// PQ_PAGE_INDEX_OUT=DIR, leaves its files in DIR: each X.parquet has a page
// index, X-plain.parquet holds the same rows without one. For every column
// chunk of X.parquet, hyparquet's readOffsetIndex and readColumnIndex must
// give exactly the data pages that a walk of the chunk's page headers
// (hyparquet's parquetHeader) finds: offsets, sizes with header, first row
// indexes (from the pages' row counts, for flat columns and v2 pages), and
// per page the min, max and null count of the page header's statistics;
// where the header has no bounds (a string past 64 bytes), the index's
// truncated bounds must hold for every value hyparquet reads from the page.
// The synthetic v1 file's first_row_index must equal its v2 twin's (same
// rows, same codec, same page cuts; v2 headers count rows even in nested
// columns, v1 headers do not).
// DuckDB must read X.parquet and X-plain.parquet to the same rows (whole
// and under a filter).
//
//   node page_index.mjs --gen PATH_TO_test_parquet_page_index --out DIR
//
// Prints PASS/FAIL per file and `N passed, N failed`. Exit 1 on failure.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
for (const pkg of ['@duckdb/node-api', 'hyparquet', 'hyparquet-compressors']) {
    if (!existsSync(join(root, 'node_modules', pkg))) {
        console.error(`page_index: node_modules lacks ${pkg}; run scripts/install-deps.sh`);
        console.log('0 passed, 1 failed');
        process.exit(1);
    }
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { parquetMetadata, parquetReadObjects, readColumnIndex, readOffsetIndex } = await import('hyparquet');
const { compressors } = await import('hyparquet-compressors');
const { parquetHeader } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/column.js')).href);
const { convertMetadata } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/metadata.js')).href);
const { DEFAULT_PARSERS } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/convert.js')).href);

const args = process.argv.slice(2);
const opt = (k) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : undefined; };
const gen = opt('--gen'), out = opt('--out');
if (!gen || !out) {
    console.error('usage: node page_index.mjs --gen TEST_BINARY --out DIR');
    process.exit(2);
}
const run = spawnSync(gen, [], { env: { ...process.env, PQ_PAGE_INDEX_OUT: out }, stdio: 'inherit' });
if (run.status !== 0) {
    console.error(`page_index: ${gen} failed (${run.status})`);
    console.log('0 passed, 1 failed');
    process.exit(1);
}

const show = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Date ? x.toISOString() : x));
const same = (a, b) => show(a) === show(b);

async function checkIndexes(path) {
    const bytes = readFileSync(path);
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const view = new DataView(ab);
    const meta = parquetMetadata(ab);
    const problems = [];
    let chunks = 0, withCi = 0, pages = 0, truncated = 0;
    const firstRows = [];
    let rgStart = 0;
    for (const [g, rg] of meta.row_groups.entries()) {
        for (const cc of rg.columns) {
            const m = cc.meta_data;
            const where = `rg ${g} col ${m.path_in_schema.join('.')}`;
            chunks++;
            if (cc.offset_index_offset === undefined) { problems.push(`${where}: no offset index`); continue; }
            const oi = readOffsetIndex({ view, offset: Number(cc.offset_index_offset) });
            const el = schemaElement(meta.schema, m.path_in_schema);
            const flat = m.path_in_schema.length === 1;
            // The chunk's data pages, walked header by header.
            const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
            const end = start + Number(m.total_compressed_size);
            const walked = [];
            for (let off = start; off < end;) {
                const reader = { view, offset: off };
                const ph = parquetHeader(reader);
                const next = reader.offset + ph.compressed_page_size;
                if (ph.type === 'DATA_PAGE' || ph.type === 'DATA_PAGE_V2') {
                    const h = ph.data_page_header ?? ph.data_page_header_v2;
                    walked.push({
                        offset: off, size: next - off, values: h.num_values,
                        rows: ph.data_page_header_v2 ? ph.data_page_header_v2.num_rows : flat ? h.num_values : undefined,
                        stats: h.statistics,
                    });
                }
                off = next;
            }
            pages += walked.length;
            const locs = oi.page_locations;
            firstRows.push(`${where}: ${locs.map((l) => l.first_row_index).join(',')}`);
            if (locs.length !== walked.length) { problems.push(`${where}: ${locs.length} locations, ${walked.length} pages`); continue; }
            let row = 0n;
            walked.forEach((p, i) => {
                const l = locs[i];
                if (Number(l.offset) !== p.offset || l.compressed_page_size !== p.size)
                    problems.push(`${where} page ${i}: location ${l.offset}+${l.compressed_page_size}, page at ${p.offset}+${p.size}`);
                if (row !== undefined && BigInt(l.first_row_index) !== row)
                    problems.push(`${where} page ${i}: first_row_index ${l.first_row_index}, pages say ${row}`);
                row = p.rows === undefined || row === undefined ? undefined : row + BigInt(p.rows);
            });
            if (row !== undefined && row !== BigInt(rg.num_rows))
                problems.push(`${where}: pages hold ${row} rows, row group ${rg.num_rows}`);
            if (cc.column_index_offset === undefined) continue;
            withCi++;
            const ci = readColumnIndex({ view, offset: Number(cc.column_index_offset) }, el);
            if (ci.null_pages.length !== walked.length) { problems.push(`${where}: column index of ${ci.null_pages.length} pages`); continue; }
            const raw = readColumnIndex({ view, offset: Number(cc.column_index_offset) }, el, { stringFromBytes: (b) => b });
            for (const [i, p] of walked.entries()) {
                const st = p.stats ?? {};
                if (BigInt(ci.null_counts[i]) !== BigInt(st.null_count))
                    problems.push(`${where} page ${i}: null_counts ${ci.null_counts[i]}, page ${st.null_count}`);
                if (ci.null_pages[i]) {
                    if (st.min_value !== undefined) problems.push(`${where} page ${i}: null page with a page min`);
                    if (BigInt(st.null_count) !== BigInt(p.values)) problems.push(`${where} page ${i}: null page with values`);
                    continue;
                }
                if (st.min_value === undefined && el.type === 'BYTE_ARRAY' && flat) {
                    // The page header gave up (a long value): the index's
                    // bounds must hold for every value of the page.
                    const lo = raw.min_values[i], hi = raw.max_values[i];
                    const rowEnd = i + 1 < locs.length ? Number(locs[i + 1].first_row_index) : Number(rg.num_rows);
                    const vals = await parquetReadObjects({ file: ab, compressors, columns: [m.path_in_schema[0]],
                        rowStart: rgStart + Number(locs[i].first_row_index), rowEnd: rgStart + rowEnd });
                    const enc = new TextEncoder();
                    for (const o of vals) {
                        const v = o[m.path_in_schema[0]];
                        if (v === null || v === undefined) continue;
                        const b = typeof v === 'string' ? enc.encode(v) : v;
                        if (cmpBytes(b, lo) < 0 || cmpBytes(b, hi) > 0) {
                            problems.push(`${where} page ${i}: a value outside the index's truncated bounds`);
                            break;
                        }
                    }
                    if (lo.length > 64 || hi.length > 64) problems.push(`${where} page ${i}: bounds longer than 64 bytes`);
                    truncated++;
                    continue;
                }
                const pmin = convertMetadata(st.min_value, el, DEFAULT_PARSERS);
                const pmax = convertMetadata(st.max_value, el, DEFAULT_PARSERS);
                if (!same(pmin, ci.min_values[i]) || !same(pmax, ci.max_values[i]))
                    problems.push(`${where} page ${i}: index ${show(ci.min_values[i])}..${show(ci.max_values[i])}, page ${show(pmin)}..${show(pmax)}`);
            }
            // The boundary order against the bounds (numbers and strings).
            const mins = [], maxs = [];
            walked.forEach((_, i) => { if (!ci.null_pages[i]) { mins.push(ci.min_values[i]); maxs.push(ci.max_values[i]); } });
            const comparable = mins.every((v) => typeof v === 'number' || typeof v === 'bigint' ||
                (typeof v === 'string' && el.type === 'BYTE_ARRAY' && /^[\x20-\x7e]*$/.test(v)));
            if (comparable && mins.length > 0) {
                const le = (a, b) => a <= b, ge = (a, b) => a >= b;
                const ok = (f) => mins.every((v, i) => i === 0 || (f(mins[i - 1], v) && f(maxs[i - 1], maxs[i])));
                const want = ok(le) ? 'ASCENDING' : ok(ge) ? 'DESCENDING' : 'UNORDERED';
                if (ci.boundary_order !== want)
                    problems.push(`${where}: boundary_order ${ci.boundary_order}, bounds say ${want}`);
            }
        }
        rgStart += Number(rg.num_rows);
    }
    return { problems, chunks, withCi, pages, firstRows, truncated };
}

function cmpBytes(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
}

function schemaElement(schema, path) {
    // Depth-first walk of the flat schema list to the leaf named by path.
    let i = 0;
    function walk(depth, prefix) {
        const el = schema[i++];
        const here = depth === 0 ? [] : [...prefix, el.name];
        if (!el.num_children) return same(here, path) ? el : undefined;
        let found;
        for (let k = 0; k < el.num_children; k++) found = walk(depth + 1, here) ?? found;
        return found;
    }
    return walk(0, []);
}

const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run('SET threads=1');
async function rows(sql) {
    const r = await conn.runAndReadAll(sql);
    return r.getRowsJson().map((x) => JSON.stringify(x)).sort();
}

let passed = 0, failed = 0;
const files = readdirSync(out).filter((f) => f.endsWith('.parquet') && !f.endsWith('-plain.parquet')).sort();
if (files.length === 0) { console.error(`page_index: no files in ${out}`); failed++; }
for (const f of files) {
    const path = join(out, f), plain = join(out, f.replace(/\.parquet$/, '-plain.parquet'));
    const problems = [];
    let info = '';
    try {
        const r = await checkIndexes(path);
        // v1 and v2 files of the same rows cut pages at the same rows; v2
        // headers count them, so the v1 file's first_row_index (nested
        // columns included) must be the v2 file's.
        // (syn-*: both written with one codec, so row groups match too.)
        const twin = f.replace('-v1', '-v2');
        if (f.startsWith('syn-') && twin !== f && existsSync(join(out, twin)) &&
            !same(r.firstRows, (await checkIndexes(join(out, twin))).firstRows))
            problems.push(`first_row_index differs from ${twin}'s`);
        problems.push(...r.problems);
        info = `${r.chunks} chunks, ${r.withCi} column indexes, ${r.pages} pages, ${r.truncated} with truncated bounds`;
        const q = (p) => `SELECT * FROM read_parquet('${p.replace(/'/g, "''")}')`;
        const [a, b] = [await rows(q(path)), await rows(q(plain))];
        if (a.length === 0 || !same(a, b)) problems.push(`DuckDB reads ${a.length} rows, ${b.length} without the index, or they differ`);
        const cols = await conn.runAndReadAll(`DESCRIBE ${q(path)}`);
        const first = cols.getRowsJson()[0][0];
        const filt = (p) => `${q(p)} WHERE "${first}" IS NOT NULL AND "${first}" <= (SELECT min("${first}") FROM read_parquet('${path}'))`;
        if (!same(await rows(filt(path)), await rows(filt(plain)))) problems.push('DuckDB filtered reads differ');
    } catch (e) {
        problems.push(`error: ${e.stack || e}`);
    }
    if (problems.length) {
        failed++;
        console.log(`FAIL ${f}: ${problems.slice(0, 8).join('; ')}`);
    } else {
        passed++;
        console.log(`PASS ${f} (${info})`);
    }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
