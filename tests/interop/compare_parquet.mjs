#!/usr/bin/env node
// Compares a Parquet cat tool's canonical JSON rows with independent readers.
//
//   node compare_parquet.mjs --cat PATH/zb-parquet-cat [--reader duckdb|hyparquet|both] FILE_OR_DIR...
//
// For each .parquet file (directories are searched recursively, in sorted
// order) the cat tool is run as `CAT FILE` (a .mjs/.js CAT is run with node)
// and its stdout parsed as one JSON object per line. The same file is read
// with DuckDB (default) and/or hyparquet, canonicalized (see canonical.mjs),
// and the row count and every value compared. Prints per file
//   PASS file (N rows)
//   FAIL file: row R column C: ours=... theirs=...   (first 3 differences)
//   SKIP file: reason                                  (no reference reader can read it)
// and finally `N passed, N failed, N skipped`. Exit code 1 on any failure.
//
// When DuckDB cannot read a file, hyparquet is used instead. When DuckDB reads
// a timestamp/time column at a coarser unit than the file stores (INT96 or
// NANOS read as microseconds), our values are truncated toward negative
// infinity to DuckDB's unit before comparing, and the column is listed in a
// NOTE line (and counted at the end), never silently.

import { spawn } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
if (!existsSync(join(root, 'node_modules', '@duckdb', 'node-api')) ||
    !existsSync(join(root, 'node_modules', 'hyparquet'))) {
    console.error(`compare_parquet: ${join(root, 'node_modules')} lacks the npm packages; run scripts/install-deps.sh`);
    console.log('0 passed, 1 failed');
    process.exit(1);
}

const { DuckDBInstance, DuckDBTypeId } = await import('@duckdb/node-api');
const C = await import('./canonical.mjs');

// ---------------------------------------------------------------- args
function usage(msg) {
    if (msg) console.error(`compare_parquet: ${msg}`);
    console.error('usage: node compare_parquet.mjs --cat PATH/zb-parquet-cat [--reader duckdb|hyparquet|both] FILE_OR_DIR...');
    process.exit(2);
}
let cat = null, reader = 'duckdb', verbose = false;
const inputs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--cat') cat = argv[++i];
    else if (a.startsWith('--cat=')) cat = a.slice(6);
    else if (a === '--reader') reader = argv[++i];
    else if (a.startsWith('--reader=')) reader = a.slice(9);
    else if (a === '-v' || a === '--verbose') verbose = true;
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else inputs.push(a);
}
if (!cat) usage('--cat is required');
if (!['duckdb', 'hyparquet', 'both'].includes(reader)) usage(`unknown reader ${reader}`);
if (!inputs.length) usage('no FILE_OR_DIR given');
if (!existsSync(cat)) usage(`cat tool ${cat} does not exist`);

function collect(p, out) {
    const st = statSync(p);
    if (st.isDirectory()) {
        for (const name of readdirSync(p).sort()) collect(join(p, name), out);
    } else if (p.endsWith('.parquet')) {
        out.push(p);
    }
}
const files = [];
for (const p of inputs) {
    if (!existsSync(p)) { console.error(`compare_parquet: ${p} does not exist`); process.exit(2); }
    collect(p, files);
}

// ---------------------------------------------------------------- readers
function runCat(file) {
    return new Promise(res => {
        const isJs = /\.(mjs|cjs|js)$/.test(cat);
        const child = spawn(isJs ? process.execPath : cat, isJs ? [cat, file] : [file],
            { stdio: ['ignore', 'pipe', 'pipe'] });
        const out = [], err = [];
        child.stdout.on('data', d => out.push(d));
        child.stderr.on('data', d => err.push(d));
        const timer = setTimeout(() => child.kill('SIGKILL'), 300000);
        child.on('error', e => { clearTimeout(timer); res({ code: -1, stdout: '', stderr: String(e) }); });
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            res({ code: code ?? `signal ${signal}`, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
        });
    });
}

let duck = null;
async function duckConn() {
    if (!duck) {
        const inst = await DuckDBInstance.create(':memory:');
        duck = await inst.connect();
        await duck.run('SET threads=1');
    }
    return duck;
}

async function readDuckDB(file) {
    const conn = await duckConn();
    const r = await conn.runAndReadAll(
        'SELECT * FROM read_parquet(?, hive_partitioning=false, binary_as_string=false)', [file]);
    const names = r.columnNames();
    const types = r.columnTypes();
    const rows = r.getRows().map(row => {
        const o = {};
        names.forEach((n, i) => { o[n] = C.canonicalFromDuckDB(row[i], types[i]); });
        return o;
    });
    return { name: 'duckdb', columns: names, types, rows };
}

async function readHyparquet(file) {
    const { columns, rows, tree } = await C.readCanonicalHyparquet(file);
    return { name: 'hyparquet', columns, types: null, rows, tree };
}

// Top-level columns whose Parquet leaves are finer than the DuckDB unit read.
async function finerThanDuckDB(file, ref) {
    const res = {};
    let tree;
    try {
        const { parquetMetadata, parquetSchema } = await import('hyparquet');
        const { readFile } = await import('node:fs/promises');
        const buf = await readFile(file);
        tree = parquetSchema(parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)));
    } catch { return res; }
    const leafUnits = (node, acc) => {
        if (!node.children.length) {
            const el = node.element, lt = el.logical_type;
            if (el.type === 'INT96') acc.push(['INT96', 1n]);
            else if ((lt?.type === 'TIMESTAMP' || lt?.type === 'TIME') && lt.unit === 'NANOS') acc.push([`${lt.type} NANOS`, 1n]);
        }
        for (const c of node.children) leafUnits(c, acc);
        return acc;
    };
    const duckUnits = (t, acc) => {
        const u = C.duckdbTimeUnitNanos(t);
        if (u > 1n) acc.push(u);
        if (t.valueType) duckUnits(t.valueType, acc);
        if (t.keyType) duckUnits(t.keyType, acc);
        if (t.entryTypes) t.entryTypes.forEach(e => duckUnits(e, acc));
        return acc;
    };
    tree.children.forEach((node, i) => {
        if (i >= ref.types.length) return;
        const fine = leafUnits(node, []);
        const coarse = duckUnits(ref.types[i], []);
        if (fine.length && coarse.length) {
            res[ref.columns[i]] = `${[...new Set(fine.map(f => f[0]))].join('/')} read by DuckDB as ${ref.types[i].toString()}`;
        }
    });
    return res;
}

// ---------------------------------------------------------------- compare
function floorDiv(a, b) {
    const q = a / b;
    return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function show(v) {
    const s = C.toCanonicalJSON(v);
    return s.length > 200 ? s.slice(0, 200) + '…' : s;
}

// Compares ours with theirs; `type` is DuckDB's type (or null). Returns the
// path of the first difference ('' for the value itself) or null if equal.
function diff(ours, theirs, type, path, ctx) {
    if (type) {
        const u = C.duckdbTimeUnitNanos(type);
        if (ctx.coarse && u > 1n && typeof ours === 'string' && typeof theirs === 'string' && /^-?\d+$/.test(ours)) {
            const o = BigInt(ours);
            if (o % u !== 0n) ctx.truncated = true;
            return floorDiv(o, u) * u === BigInt(theirs) ? null : path;
        }
    }
    if (Array.isArray(ours) && Array.isArray(theirs)) {
        if (ours.length !== theirs.length) return `${path} (length ${ours.length} vs ${theirs.length})`;
        const isMap = type && type.typeId === DuckDBTypeId.MAP;
        const et = type ? (type.valueType ?? null) : null;
        for (let i = 0; i < ours.length; i++) {
            let d;
            if (isMap) {
                const a = ours[i], b = theirs[i];
                if (!a || !b || typeof a !== 'object' || typeof b !== 'object') d = C.canonicalEqual(a, b) ? null : `${path}[${i}]`;
                else d = diff(a.key, b.key, type.keyType, `${path}[${i}].key`, ctx) ??
                    diff(a.value, b.value, type.valueType, `${path}[${i}].value`, ctx) ??
                    (C.canonicalEqual(Object.keys(a), Object.keys(b)) ? null : `${path}[${i}]`);
            } else {
                d = diff(ours[i], theirs[i], et, `${path}[${i}]`, ctx);
            }
            if (d !== null) return d;
        }
        return null;
    }
    if (ours && theirs && typeof ours === 'object' && typeof theirs === 'object' &&
        !Array.isArray(ours) && !Array.isArray(theirs)) {
        const ka = Object.keys(ours), kb = Object.keys(theirs);
        if (!C.canonicalEqual(ka, kb)) return `${path} (fields ${JSON.stringify(ka)} vs ${JSON.stringify(kb)})`;
        for (const k of ka) {
            let ft = null;
            if (type && type.typeId === DuckDBTypeId.STRUCT) ft = type.entryTypes[type.entryNames.indexOf(k)] ?? null;
            const d = diff(ours[k], theirs[k], ft, `${path}.${k}`, ctx);
            if (d !== null) return d;
        }
        return null;
    }
    return C.canonicalEqual(ours, theirs) ? null : path;
}

function compareRows(ours, ref, coarseCols = {}) {
    const problems = [];
    let count = 0;
    const truncatedCols = new Set();
    if (ours.length !== ref.rows.length) {
        problems.push(`row count: ours=${ours.length} theirs=${ref.rows.length}`);
        count++;
    }
    const n = Math.min(ours.length, ref.rows.length);
    for (let r = 0; r < n; r++) {
        const o = ours[r], t = ref.rows[r];
        const ko = Object.keys(o);
        if (!C.canonicalEqual(ko, ref.columns)) {
            count++;
            if (problems.length < 3) problems.push(`row ${r}: columns ours=${JSON.stringify(ko)} theirs=${JSON.stringify(ref.columns)}`);
            continue;
        }
        ref.columns.forEach((col, i) => {
            const ctx = { truncated: false, coarse: Boolean(coarseCols[col]) };
            const d = diff(o[col], t[col], ref.types ? ref.types[i] : null, '', ctx);
            if (ctx.truncated) truncatedCols.add(col);
            if (d !== null) {
                count++;
                if (problems.length < 3) {
                    problems.push(`row ${r} column ${col}${d}: ours=${show(o[col])} theirs=${show(t[col])}`);
                }
            }
        });
    }
    return { problems, count, truncatedCols };
}

function parseLines(stdout) {
    const rows = [];
    const lines = stdout.split('\n');
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    for (let i = 0; i < lines.length; i++) {
        try { rows.push(JSON.parse(lines[i])); }
        catch (e) { throw new Error(`line ${i + 1} of the cat tool's output is not JSON (${e.message}): ${lines[i].slice(0, 200)}`); }
        if (rows[i] === null || typeof rows[i] !== 'object' || Array.isArray(rows[i])) {
            throw new Error(`line ${i + 1} of the cat tool's output is not a JSON object`);
        }
    }
    return rows;
}

// ---------------------------------------------------------------- main
let passed = 0, failed = 0, skipped = 0;
let notedCols = 0;
const notedFiles = new Set();

for (const file of files) {
    // reference readers, in order of preference
    const order = reader === 'hyparquet' ? ['hyparquet'] : reader === 'duckdb' ? ['duckdb', 'hyparquet'] : ['duckdb', 'hyparquet'];
    const refs = [], refErrors = [];
    for (const name of order) {
        try {
            refs.push(name === 'duckdb' ? await readDuckDB(file) : await readHyparquet(file));
            if (reader !== 'both') break;
        } catch (e) {
            refErrors.push(`${name}: ${String(e && e.message || e).split('\n')[0]}`);
        }
    }
    const catRes = await runCat(file);
    if (!refs.length) {
        console.log(`SKIP ${file}: no reference reader can read it (${refErrors.join('; ')})` +
            (catRes.code === 0 ? '' : `; cat tool also failed (exit ${catRes.code})`));
        skipped++;
        continue;
    }
    if (catRes.code !== 0) {
        console.log(`FAIL ${file}: cat tool exited ${catRes.code}: ${catRes.stderr.trim().split('\n').slice(0, 5).join(' | ')}`);
        failed++;
        continue;
    }
    let ours;
    try { ours = parseLines(catRes.stdout); }
    catch (e) { console.log(`FAIL ${file}: ${e.message}`); failed++; continue; }

    const via = refs.map(r => r.name).join('+');
    const fallback = refErrors.length && reader !== 'hyparquet' && refs[0].name !== 'duckdb'
        ? ` [via hyparquet; ${refErrors.join('; ')}]` : '';
    let ok = true;
    const lines = [];
    for (const ref of refs) {
        // columns whose file unit is finer than DuckDB's: compare at DuckDB's unit
        const finer = ref.name === 'duckdb' ? await finerThanDuckDB(file, ref) : {};
        const { problems, count, truncatedCols } = compareRows(ours, ref, finer);
        if (ref.name === 'duckdb') {
            const cols = Object.keys(finer);
            if (cols.length) {
                notedCols += cols.length;
                notedFiles.add(file);
                lines.push(`NOTE ${file}: compared at DuckDB's coarser time precision: ${cols.map(c => `${c} (${finer[c]}${truncatedCols.has(c) ? '; some of our values had digits below it' : ''})`).join(', ')}`);
            }
        }
        if (count) {
            ok = false;
            const tag = refs.length > 1 || fallback ? ` [vs ${ref.name}]` : '';
            lines.unshift(`FAIL ${file}${tag}: ${problems[0]}` +
                problems.slice(1).map(p => `\n    ${p}`).join('') +
                (count > problems.length ? `\n    (${count} differences in all)` : ''));
        }
    }
    if (ok) {
        lines.unshift(`PASS ${file} (${ours.length} rows)` + (verbose || fallback ? ` [${via}]${fallback}` : ''));
        passed++;
    } else {
        failed++;
    }
    console.log(lines.join('\n'));
}

if (notedCols) console.log(`note: ${notedCols} column(s) in ${notedFiles.size} file(s) compared at DuckDB's coarser timestamp/time precision`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
