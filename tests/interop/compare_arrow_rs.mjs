#!/usr/bin/env node
// A third reader for the files our writer makes: arrow-rs, through the
// npm package parquet-wasm. Each file is read by arrow-rs and written
// again by it; DuckDB must then read the same canonical values from
// arrow-rs's copy as from our file. A file arrow-rs misreads therefore
// fails (its copy holds other values), without a converter of our own
// for Arrow JS values in between.
//
//   node compare_arrow_rs.mjs FILE_OR_DIR...
//
// Prints PASS/FAIL per file and `N passed, N failed`. Exit 1 on failure.
import { readdirSync, statSync, existsSync, writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
for (const pkg of ['@duckdb/node-api', 'parquet-wasm']) {
    if (!existsSync(join(root, 'node_modules', pkg))) {
        console.error(`compare_arrow_rs: node_modules lacks ${pkg}; run scripts/install-deps.sh`);
        console.log('0 passed, 1 failed');
        process.exit(1);
    }
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { readParquet, writeParquet } = await import('parquet-wasm/node');
const C = await import('./canonical.mjs');

function collect(p, acc) {
    if (statSync(p).isDirectory()) {
        for (const e of readdirSync(p).sort()) collect(join(p, e), acc);
    } else if (p.endsWith('.parquet')) acc.push(p);
    return acc;
}
const files = process.argv.slice(2).flatMap((p) => collect(p, []));
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run('SET threads=1');
async function read(file) {
    const r = await conn.runAndReadAll(
        'SELECT * FROM read_parquet(?, hive_partitioning=false, binary_as_string=false)', [file]);
    const names = r.columnNames();
    const types = r.columnTypes();
    return { names, rows: r.getRows().map((row) => names.map((n, i) => C.canonicalFromDuckDB(row[i], types[i]))) };
}

// arrow-rs reads a UUID column as 16-byte fixed binary and its writer does
// not annotate it again, so DuckDB sees the copy's column as a blob: the
// same bytes, spelled as hex instead of a dashed UUID. Those compare equal,
// and each file where this happened is named in a NOTE.
function sameValue(ours, theirs, notes, column) {
    if (C.canonicalEqual(ours, theirs)) return true;
    if (typeof ours === 'string' && typeof theirs === 'string' &&
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(ours) &&
        theirs === '0x' + ours.replace(/-/g, '')) {
        notes.add(column);
        return true;
    }
    return false;
}

const tmp = mkdtempSync(join(tmpdir(), 'zb-arrow-rs-'));
let passed = 0, failed = 0;
for (const [i, file] of files.entries()) {
    try {
        const copy = join(tmp, `${i}.parquet`);
        writeFileSync(copy, writeParquet(readParquet(new Uint8Array(readFileSync(file)))));
        const [a, b] = [await read(file), await read(copy)];
        const problems = [];
        const notes = new Set();
        if (a.names.join() !== b.names.join()) problems.push(`columns ${a.names} vs ${b.names}`);
        if (a.rows.length !== b.rows.length) problems.push(`rows ${a.rows.length} vs ${b.rows.length}`);
        for (let r = 0; r < a.rows.length && problems.length < 3; r++)
            for (let c = 0; c < a.names.length && problems.length < 3; c++)
                if (!sameValue(a.rows[r][c], b.rows[r]?.[c], notes, a.names[c]))
                    problems.push(`row ${r} column ${a.names[c]}: ours=${C.toCanonicalJSON(a.rows[r][c])} arrow-rs=${C.toCanonicalJSON(b.rows[r]?.[c])}`);
        if (problems.length) { console.log(`FAIL ${file}: ${problems.join('; ')}`); failed++; }
        else {
            if (notes.size) console.log(`NOTE ${file}: uuid column(s) ${[...notes].join(', ')} come back from arrow-rs's writer unannotated; compared as bytes`);
            console.log(`PASS ${file} (${a.rows.length} rows)`);
            passed++;
        }
    } catch (e) {
        console.log(`FAIL ${file}: ${String(e.message || e).slice(0, 300)}`);
        failed++;
    }
}
rmSync(tmp, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
