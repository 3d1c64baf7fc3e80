#!/usr/bin/env node
// Checks the page statistics our writer puts in data page headers: for
// every data page of every flat top-level column (where a page's values
// are one contiguous run of rows), the page's min, max and null count,
// read with hyparquet's page-header parser, must equal what DuckDB
// computes over those rows. Decimals, fixed and binary columns and time
// columns are not compared, and are counted; a page whose strings pass
// 64 bytes carries no bounds, by design, and is counted too.
//
//   node compare_page_stats.mjs FILE_OR_DIR...
//
// Prints PASS/FAIL per file and `N passed, N failed`. Exit 1 on failure.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
for (const pkg of ['@duckdb/node-api', 'hyparquet']) {
    if (!existsSync(join(root, 'node_modules', pkg))) {
        console.error(`compare_page_stats: node_modules lacks ${pkg}; run scripts/install-deps.sh`);
        console.log('0 passed, 1 failed');
        process.exit(1);
    }
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { parquetMetadata } = await import('hyparquet');
const { parquetHeader } = await import(pathToFileURL(join(root, 'node_modules/hyparquet/src/column.js')).href);

function collect(p, acc) {
    if (statSync(p).isDirectory()) for (const e of readdirSync(p).sort()) collect(join(p, e), acc);
    else if (p.endsWith('.parquet')) acc.push(p);
    return acc;
}
const files = process.argv.slice(2).flatMap((p) => collect(p, []));
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run('SET threads=1');

// How to compare a column: the SQL giving DuckDB's min/max as a plain
// number or string, and how to decode our statistics bytes the same way.
function plan(el) {
    const lt = el.logical_type?.type, ct = el.converted_type;
    const q = (c) => `"${c.replace(/"/g, '""')}"`;
    if (el.type === 'INT32' && !lt && !ct) return { agg: (c) => `${c}::BIGINT`, dec: (b) => BigInt(b.readInt32LE(0)) };
    if (el.type === 'INT32' && (lt === 'DATE' || ct === 'DATE'))
        return { agg: (c) => `date_diff('day', DATE '1970-01-01', ${c})::BIGINT`, dec: (b) => BigInt(b.readInt32LE(0)) };
    if (el.type === 'INT64' && !lt && !ct) return { agg: (c) => `${c}::BIGINT`, dec: (b) => b.readBigInt64LE(0) };
    if (el.type === 'INT64' && lt === 'TIMESTAMP') {
        const unit = el.logical_type.unit;
        const f = unit === 'MILLIS' ? 'epoch_ms' : unit === 'NANOS' ? 'epoch_ns' : 'epoch_us';
        return { agg: (c) => `${f}(${c})::BIGINT`, dec: (b) => b.readBigInt64LE(0) };
    }
    if (el.type === 'DOUBLE' && !lt) return { agg: (c) => `${c}::DOUBLE`, dec: (b) => b.readDoubleLE(0), float: true };
    if (el.type === 'FLOAT' && !lt) return { agg: (c) => `${c}::DOUBLE`, dec: (b) => b.readFloatLE(0), float: true };
    if (el.type === 'BYTE_ARRAY' && (lt === 'STRING' || ct === 'UTF8'))
        return { agg: (c) => `${c}::VARCHAR`, dec: (b) => b.toString('utf8') };
    return null;
}

function same(a, b) {
    if (a === null || b === null) return a === b;
    if (typeof a === 'bigint' || typeof b === 'bigint') return BigInt(a) === BigInt(b);
    return a === b;   // numbers: -0 === 0, which is what the order allows
}

let passed = 0, failed = 0, pages = 0, skippedCols = 0, longBounds = 0;
for (const file of files) {
    const buf = readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const md = parquetMetadata(ab);
    const view = new DataView(ab);
    // Leaf index of each flat top-level primitive column.
    const flat = [];
    let leaf = 0;
    for (let i = 1, top = 0; top < md.schema[0].num_children; top++) {
        const el = md.schema[i];
        const leaves = [];
        const walk = () => { const e = md.schema[i++]; if (!e.num_children) { leaves.push(leaf++); return; } for (let k = 0; k < e.num_children; k++) walk(); };
        walk();
        if (!el.num_children && el.repetition_type !== 'REPEATED') flat.push({ el, leaf: leaves[0] });
    }
    const problems = [];
    let rowBase = 0;
    for (const rg of md.row_groups) {
        for (const { el, leaf: j } of flat) {
            const p = plan(el);
            if (!p) { skippedCols++; continue; }
            const m = rg.columns[j].meta_data;
            let off = Number(m.dictionary_page_offset ?? m.data_page_offset);
            if (m.dictionary_page_offset !== undefined && Number(m.dictionary_page_offset) === 0) off = Number(m.data_page_offset);
            const end = off + Number(m.total_compressed_size);
            let row = rowBase;
            while (off < end && problems.length < 3) {
                const reader = { view, offset: off };
                const ph = parquetHeader(reader);
                off = reader.offset + ph.compressed_page_size;
                const h = ph.data_page_header ?? ph.data_page_header_v2;
                if (!h) continue;
                const n = Number(h.num_values), s = h.statistics;
                const col = `"${el.name.replace(/"/g, '""')}"`;
                const r = (await (await conn.run(
                    `SELECT min(${p.agg(col)}) FILTER (WHERE ${p.float ? `NOT isnan(${col})` : 'true'}),
                            max(${p.agg(col)}) FILTER (WHERE ${p.float ? `NOT isnan(${col})` : 'true'}),
                            (count(*) - count(${col}))::BIGINT
                     FROM read_parquet(?, file_row_number=true, hive_partitioning=false)
                     WHERE file_row_number >= ${row} AND file_row_number < ${row + n}`, [file])).getRows())[0];
                row += n;
                pages++;
                if (!s) { problems.push(`row group page at row ${row - n}, column ${el.name}: no statistics`); continue; }
                const ours = [s.min_value ? p.dec(Buffer.from(s.min_value)) : null,
                              s.max_value ? p.dec(Buffer.from(s.max_value)) : null, BigInt(s.null_count ?? -1)];
                const theirs = [r[0], r[1], BigInt(r[2])];
                if (ours[0] === null && theirs[0] !== null && typeof theirs[0] === 'string') {
                    // The writer leaves out bounds longer than 64 bytes.
                    const len = (await (await conn.run(
                        `SELECT max(strlen(${col})) FROM read_parquet(?, file_row_number=true, hive_partitioning=false)
                         WHERE file_row_number >= ${row - n} AND file_row_number < ${row}`, [file])).getRows())[0][0];
                    if (Number(len) > 64) { longBounds++; theirs[0] = theirs[1] = null; }
                }
                if (!same(ours[0], theirs[0]) || !same(ours[1], theirs[1]) || ours[2] !== theirs[2])
                    problems.push(`page at rows ${row - n}..${row - 1}, column ${el.name}: ours min=${ours[0]} max=${ours[1]} nulls=${ours[2]}, DuckDB min=${theirs[0]} max=${theirs[1]} nulls=${theirs[2]}`);
            }
        }
        rowBase += Number(rg.num_rows);
    }
    if (problems.length) { console.log(`FAIL ${file}: ${problems.join('; ')}`); failed++; }
    else { console.log(`PASS ${file}`); passed++; }
}
console.log(`note: ${pages} data pages compared; ${longBounds} of them without bounds because a value passes 64 bytes (as the writer intends); ${skippedCols} column chunks of types not compared (decimal, fixed, binary, time, nested)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
