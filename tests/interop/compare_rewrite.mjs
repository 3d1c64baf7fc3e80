#!/usr/bin/env node
// Checks Zamboni's Parquet WRITER against DuckDB: each file is copied with
// zb-parquet-copy (our reader into our writer), and DuckDB must read from
// the copy exactly what it reads from the original: same row count, same
// canonical values (canonical.mjs), same field ids. Files rotate through
// the writer's codecs, every third one is written with small pages and
// small row groups so that multi-page chunks and many row groups occur,
// and every second one with data pages v2.
//
//   node compare_rewrite.mjs --copy PATH/zb-parquet-copy --out DIR [--row-group-copy] FILE_OR_DIR...
//
// With --row-group-copy the copy appends the original's row groups as they
// are (compressed pages copied, not decoded); a file whose schema the
// writer would declare differently is skipped with the writer's reason.
//
// Prints PASS/FAIL/SKIP per file and `N passed, N failed, N skipped`; a
// file is skipped only when the writer refuses a type it does not write
// (its message names the type), and each skip is listed. Exit 1 on failure.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
if (!existsSync(join(root, 'node_modules', '@duckdb', 'node-api'))) {
    console.error('compare_rewrite: node_modules lacks @duckdb/node-api; run scripts/install-deps.sh');
    console.log('0 passed, 1 failed');
    process.exit(1);
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const C = await import('./canonical.mjs');

let copy = null, out = null, rowGroupCopy = false;
const inputs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--copy') copy = argv[++i];
    else if (argv[i] === '--out') out = argv[++i];
    else if (argv[i] === '--row-group-copy') rowGroupCopy = true;
    else inputs.push(argv[i]);
}
if (!copy || !out || inputs.length === 0) {
    console.error('usage: node compare_rewrite.mjs --copy PATH/zb-parquet-copy --out DIR FILE_OR_DIR...');
    process.exit(2);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

function collect(p, acc) {
    if (statSync(p).isDirectory()) {
        for (const e of readdirSync(p).sort()) collect(join(p, e), acc);
    } else if (p.endsWith('.parquet')) acc.push(p);
    return acc;
}
const files = inputs.flatMap((p) => collect(p, []));

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

async function fieldIds(file) {
    const r = await conn.runAndReadAll(
        'SELECT field_id FROM parquet_schema(?) WHERE field_id IS NOT NULL ORDER BY field_id', [file]);
    return r.getRows().map((x) => String(x[0])).join(',');
}

const codecs = ['zstd', 'snappy', 'gzip', 'uncompressed', 'lz4_raw', 'brotli'];
let passed = 0, failed = 0, skipped = 0;
for (let i = 0; i < files.length; i++) {
    const src = files[i];
    const dst = join(out, `${i}-${basename(src)}`);
    const args = rowGroupCopy ? ['--row-group-copy'] : ['--codec', codecs[i % codecs.length]];
    if (!rowGroupCopy && i % 3 === 0) args.push('--page-bytes', '2048', '--row-group-bytes', '65536');
    if (!rowGroupCopy && i % 2 === 1) args.push('--page-v2');
    const p = spawnSync(copy, [...args, src, dst], { encoding: 'utf8' });
    if (p.status !== 0) {
        if (/is not written to Parquet by this writer|row-group copy refused/.test(p.stderr)) {
            console.log(`SKIP ${src}: ${p.stderr.trim()}`);
            skipped++;
        } else {
            console.log(`FAIL ${src}: zb-parquet-copy exited ${p.status}: ${p.stderr.trim()}`);
            failed++;
        }
        continue;
    }
    try {
        const [a, b] = [await read(src), await read(dst)];
        const problems = [];
        if (a.names.join() !== b.names.join()) problems.push(`columns ${a.names} vs ${b.names}`);
        if (a.rows.length !== b.rows.length) problems.push(`rows ${a.rows.length} vs ${b.rows.length}`);
        for (let r = 0; r < a.rows.length && problems.length < 3; r++) {
            for (let c = 0; c < a.names.length && problems.length < 3; c++) {
                if (!C.canonicalEqual(a.rows[r][c], b.rows[r]?.[c]))
                    problems.push(`row ${r} column ${a.names[c]}: original=${C.toCanonicalJSON(a.rows[r][c])} copy=${C.toCanonicalJSON(b.rows[r]?.[c])}`);
            }
        }
        const [fa, fb] = [await fieldIds(src), await fieldIds(dst)];
        if (fa !== fb) problems.push(`field ids ${fa} vs ${fb}`);
        if (problems.length) {
            console.log(`FAIL ${src} (${args.join(' ')}): ${problems.join('; ')}`);
            failed++;
        } else {
            console.log(`PASS ${src} (${a.rows.length} rows, ${args.join(' ')})`);
            passed++;
        }
    } catch (e) {
        console.log(`FAIL ${src}: DuckDB: ${e.message}`);
        failed++;
    }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
