#!/usr/bin/env node
// Checks the statistics Zamboni's Parquet WRITER puts in its files against
// what independent readers compute from the data. Each input file is
// copied with zb-parquet-copy (our reader into our writer; every second
// file in row groups of about 64 KiB so that files have many of them),
// which also prints the Iceberg metrics of the copy (--iceberg-metrics
// full). Then, for every column that is not inside a list or a map:
//
//  1. footer statistics, per row group, as DuckDB reads them
//     (parquet_metadata: stats_min_value, stats_max_value, stats_null_count)
//     must equal DuckDB's own min(), max() and count of nulls over the rows
//     of that row group (read_parquet with file_row_number, cut at the
//     row-group row counts); floats leave NaN out of min and max, as the
//     Parquet specification asks, and compare numerically (-0 = +0);
//  2. the same statistics as hyparquet decodes them (parquetMetadata) must
//     agree with those values too: null_count always, min and max where
//     hyparquet decodes them to something comparable (numbers, bigints,
//     strings of UTF8 columns, booleans, dates and timestamps to the
//     millisecond);
//  3. for top-level primitive columns, the Iceberg metrics (value_count,
//     null_value_count, nan_value_count, and the untruncated lower and
//     upper bounds of mode full, decoded from Iceberg's binary
//     single-value serialization) must equal DuckDB's count(*), count of
//     nulls, count of NaN, min and max over the whole file.
//
// What is not compared is listed as SKIP with the reason (byte arrays
// longer than the writer's bound caps, groups of only nulls or NaN, types
// hyparquet decodes lossily). Every mismatch prints file, row group,
// column, ours and theirs.
//
//   node compare_stats.mjs --copy PATH/zb-parquet-copy --out DIR FILE_OR_DIR...
//
// Prints `N passed, N failed, N skipped` (files; a file passes when none of
// its checks fails). Exit 1 on any failure.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync, mkdirSync, rmSync, readFileSync } from 'node:fs';
import { join, resolve, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
if (!existsSync(join(root, 'node_modules', '@duckdb', 'node-api')) ||
    !existsSync(join(root, 'node_modules', 'hyparquet'))) {
    console.error('compare_stats: node_modules lacks @duckdb/node-api or hyparquet; run scripts/install-deps.sh');
    console.log('0 passed, 1 failed');
    process.exit(1);
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { parquetMetadata } = await import('hyparquet');

const CHUNK_BOUND_BYTES = 64;    // STAT_MAX_BYTES of pq_writer_int.h
const FILE_BOUND_BYTES = 256;    // PQ_METRICS_BOUND_BYTES of parquet_write.h

let copy = null, out = null;
const inputs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--copy') copy = argv[++i];
    else if (argv[i] === '--out') out = argv[++i];
    else inputs.push(argv[i]);
}
if (!copy || !out || inputs.length === 0) {
    console.error('usage: node compare_stats.mjs --copy PATH/zb-parquet-copy --out DIR FILE_OR_DIR...');
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
await conn.run("SET TimeZone='UTC'");

const q = (s) => '"' + String(s).replace(/"/g, '""') + '"';
const lit = (s) => "'" + String(s).replace(/'/g, "''") + "'";
const show = (v) => (typeof v === 'bigint' ? `${v}` : v instanceof Date ? v.toISOString() :
    v instanceof Uint8Array ? Buffer.from(v).toString('hex') : JSON.stringify(v));

// The schema as a tree (parquet_schema rows are depth first), and each
// leaf with its path, ancestors' repetition and annotations.
async function leaves(file) {
    const res = await conn.runAndReadAll(
        'SELECT name, type, repetition_type, num_children, converted_type, scale, logical_type FROM parquet_schema(?)', [file]);
    const rows = res.getRows().map(([name, type, rep, nc, conv, scale, logical]) =>
        ({ name, type, rep, nc: Number(nc ?? 0), conv, scale: Number(scale ?? 0), logical: logical ?? '' }));
    const outl = [];
    let i = 1;
    function walk(path, repeated, inList) {
        const el = rows[i++];
        const p = [...path, el.name];
        const rep = repeated || el.rep === 'REPEATED';
        const isList = inList || el.conv === 'LIST' || el.conv === 'MAP' || el.conv === 'MAP_KEY_VALUE';
        if (el.nc === 0) outl.push({ ...el, path: p, inRepeated: rep || isList });
        for (let k = 0; k < el.nc; k++) walk(p, rep, isList);
    }
    while (i < rows.length) walk([], false, false);
    return outl;
}

function kindOf(l) {
    if (l.type === 'FLOAT' || l.type === 'DOUBLE') return 'float';
    if (l.type === 'BOOLEAN') return 'bool';
    if (l.type === 'BYTE_ARRAY' && (l.conv === 'UTF8' || /String|JSON|Enum/i.test(l.logical))) return 'string';
    if ((l.type === 'BYTE_ARRAY' || l.type === 'FIXED_LEN_BYTE_ARRAY') && l.conv === 'DECIMAL') return 'decimal';
    if (l.type === 'FIXED_LEN_BYTE_ARRAY' && /UUID/i.test(l.logical)) return 'uuid';
    if (l.type === 'BYTE_ARRAY' || l.type === 'FIXED_LEN_BYTE_ARRAY') return 'blob';
    if (l.type === 'INT96') return 'int96';
    if (/TimeType\(|^TIME_/i.test(l.logical + ' ' + (l.conv ?? '')) || /^TIME_/.test(l.conv ?? '')) return 'time';
    if (/TimestampType|TIMESTAMP/i.test(l.logical + ' ' + (l.conv ?? ''))) return 'temporal';
    if (l.conv === 'DATE' || /DateType/i.test(l.logical)) return 'date';
    if (l.conv === 'DECIMAL') return 'decimal';
    return 'int';
}

// Per row group (or, with no bounds, the whole file as group 0): nulls,
// NaN, min, max (as DuckDB's VARCHAR and as numbers where they are
// numbers), and the longest byte length.
async function computeGroups(file, l, bounds) {
    const kind = kindOf(l);
    const e = l.path.map(q).join('.');
    const valid = kind === 'float' ? 'v IS NOT NULL AND NOT isnan(v)' : 'v IS NOT NULL';
    const len = kind === 'string' ? 'strlen(v)' : kind === 'blob' ? 'octet_length(v)' : 'NULL';
    const num = kind === 'float' || kind === 'int' || kind === 'decimal' ? '(%)::DOUBLE'
        : kind === 'date' ? 'epoch_ms((%)::TIMESTAMP)::DOUBLE'
            : kind === 'temporal' ? "epoch_ms(try_cast((%) AS TIMESTAMP))::DOUBLE"
                : kind === 'time' ? "epoch_us(DATE '1970-01-01' + (%)::TIME)::DOUBLE" : 'NULL';
    const hex = kind === 'blob' ? 'lower(hex(%))' : 'NULL';
    const mn = `min(v) FILTER (WHERE ${valid})`, mx = `max(v) FILTER (WHERE ${valid})`;
    const vals = bounds.map(([g, lo, hi]) => `(${g}, ${lo}, ${hi})`).join(',');
    const sql = `WITH d AS (SELECT ${e} AS v, file_row_number AS rn FROM read_parquet(${lit(file)}, file_row_number=true, binary_as_string=false)),
        b AS (SELECT * FROM (VALUES ${vals}) t(g, lo, hi))
        SELECT b.g, count(*) - count(v), ${kind === 'float' ? 'count(*) FILTER (WHERE isnan(v))' : '0'},
               (${mn})::VARCHAR, (${mx})::VARCHAR,
               ${num.replace('%', mn)}, ${num.replace('%', mx)},
               ${hex.replace('%', mn)}, ${hex.replace('%', mx)},
               max(${len}), count(*), count(*) FILTER (WHERE ${valid})
        FROM d JOIN b ON d.rn >= b.lo AND d.rn < b.hi GROUP BY b.g ORDER BY b.g`;
    const res = await conn.runAndReadAll(sql);
    const m = new Map();
    for (const [g, nulls, nans, minS, maxS, minN, maxN, minH, maxH, maxLen, rows, valid_] of res.getRows())
        m.set(Number(g), { nulls: Number(nulls), nans: Number(nans), minS, maxS, minN, maxN, minH, maxH,
            maxLen: maxLen == null ? 0 : Number(maxLen), rows: Number(rows), valid: Number(valid_) });
    return m;
}

function sameValue(kind, a, b) {
    if (a == null || b == null) return a == b;
    if (kind === 'float') return Number(a) === Number(b);
    return String(a) === String(b);
}

// hyparquet's decoded statistic against DuckDB's computed value.
function hypCompare(kind, l, v, c, which) {
    if (v === undefined) return { skip: 'hyparquet gives none' };
    const s = which === 'min' ? c.minS : c.maxS;
    const n = which === 'min' ? c.minN : c.maxN;
    if (kind === 'time' && (typeof v === 'bigint' || typeof v === 'number')) {
        // hyparquet leaves TIME as the stored integer, in the stored unit.
        const unit = /MILLIS=Milli|TIME_MILLIS/.test(`${l.logical} ${l.conv}`) ? 1e-3
            : /NANOS=Nano/.test(l.logical) ? 1e3 : 1;
        // TIME_NS passes through DuckDB's TIME (microseconds): within 1 us.
        return { ok: Math.abs(Number(v) - Number(n) * unit) < (unit > 1 ? 1000 : 1e-9) };
    }
    if (typeof v === 'bigint' || typeof v === 'number') {
        if (kind === 'decimal' || kind === 'float') return { ok: Number(v) === Number(n) || Math.abs(Number(v) - Number(n)) <= 1e-9 * Math.abs(Number(n)) };
        return { ok: String(v) === String(s) };
    }
    if (typeof v === 'boolean') return { ok: String(v) === String(s) };
    if (v instanceof Date) return { ok: Math.abs(v.getTime() - Number(n)) < 1 };
    if (typeof v === 'string' && kind === 'string') return { ok: v === s };
    if (typeof v === 'string' && kind === 'uuid') return { ok: v === s };
    if (v instanceof Uint8Array && kind === 'blob')
        return { ok: Buffer.from(v).toString('hex') === (which === 'min' ? c.minH : c.maxH) };
    return { skip: `hyparquet decodes ${l.type} ${l.conv ?? ''} statistics as ${typeof v}` };
}

// ---- Iceberg bound decoding (format/spec.md Appendix D) ----
function decodeBound(type, hex, scale) {
    const b = Buffer.from(hex, 'hex');
    switch (type) {
    case 'boolean': return b[0] ? 'true' : 'false';
    case 'int': case 'date': return String(b.readInt32LE(0));
    case 'long': case 'time': case 'timestamp': case 'timestamptz':
    case 'timestamp_ns': case 'timestamptz_ns':
        return b.length === 4 ? String(b.readInt32LE(0)) : String(b.readBigInt64LE(0));
    case 'float': return b.readFloatLE(0);
    case 'double': return b.readDoubleLE(0);
    case 'decimal': {
        let u = 0n;
        for (const x of b) u = (u << 8n) | BigInt(x);
        if (b.length && (b[0] & 0x80)) u -= 1n << BigInt(8 * b.length);
        const neg = u < 0n;
        let d = (neg ? -u : u).toString().padStart(scale + 1, '0');
        if (scale > 0) d = d.slice(0, d.length - scale) + '.' + d.slice(d.length - scale);
        return (neg ? '-' : '') + d;
    }
    case 'string': return b.toString('utf8');
    case 'uuid': { const h = b.toString('hex'); return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`; }
    default: return b.toString('hex');
    }
}

// DuckDB's min/max of a column in the unit of the Iceberg type.
function icebergExpr(type, agg) {
    switch (type) {
    case 'date': return `datediff('day', DATE '1970-01-01', ${agg})::VARCHAR`;
    case 'time': return `epoch_us(DATE '1970-01-01' + (${agg})::TIME)::VARCHAR`;
    case 'timestamp': case 'timestamptz': return `epoch_us(${agg})::VARCHAR`;
    case 'timestamp_ns': case 'timestamptz_ns': return `epoch_ns(${agg})::VARCHAR`;
    case 'boolean': return `(${agg})::VARCHAR`;
    case 'float': case 'double': return `(${agg})::DOUBLE`;
    case 'binary': case 'fixed': return `lower(hex(${agg}))`;
    case 'string': return `${agg}`;
    default: return `(${agg})::VARCHAR`;
    }
}

const codecs = ['zstd', 'snappy', 'gzip', 'uncompressed', 'lz4_raw'];
let passed = 0, failed = 0, skipped = 0;
const skipReasons = new Map();
function noteSkip(reason) { skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1); }

for (let i = 0; i < files.length; i++) {
    const src = files[i];
    const dst = join(out, `${i}-${basename(src)}`);
    const args = ['--codec', codecs[i % codecs.length], '--iceberg-metrics', 'full'];
    if (i % 2 === 0) args.push('--page-bytes', '4096', '--row-group-bytes', '65536');
    if (i % 3 === 1) args.push('--page-v2');
    const p = spawnSync(copy, [...args, src, dst], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (p.status !== 0) {
        if (/is not written to Parquet by this writer/.test(p.stderr)) {
            console.log(`SKIP ${src}: ${p.stderr.trim()}`);
            skipped++;
        } else {
            console.log(`FAIL ${src}: zb-parquet-copy exited ${p.status}: ${p.stderr.trim()}`);
            failed++;
        }
        continue;
    }
    const problems = [];
    let checks = 0;
    try {
        const metrics = JSON.parse(p.stdout);
        const ls = await leaves(dst);
        const md = (await conn.runAndReadAll(
            `SELECT row_group_id, row_group_num_rows, column_id, stats_min_value, stats_max_value, stats_null_count
             FROM parquet_metadata(?) ORDER BY row_group_id, column_id`, [dst])).getRows();
        const groups = [];
        let at = 0;
        for (const [g, n] of md) {
            if (groups[Number(g)] === undefined) {
                groups[Number(g)] = [Number(g), at, at + Number(n)];
                at += Number(n);
            }
        }
        const hyp = parquetMetadata(new Uint8Array(readFileSync(dst)).buffer);
        for (let c = 0; c < ls.length; c++) {
            const l = ls[c], kind = kindOf(l), col = l.path.join('.');
            if (l.inRepeated) { noteSkip('inside a list or map (counts are per level, not per row)'); continue; }
            if (kind === 'int96') { noteSkip('INT96 (no defined order)'); continue; }
            if (groups.length === 0) continue;
            const comp = await computeGroups(dst, l, groups);
            for (const [g] of groups) {
                const row = md.find((r) => Number(r[0]) === g && Number(r[2]) === c);
                const cg = comp.get(g) ?? { nulls: 0, nans: 0, rows: 0, valid: 0, maxLen: 0 };
                const [, , , smin, smax, snull] = row;
                const where = `${basename(src)} rg ${g} column ${col}`;
                checks++;
                if (snull == null || Number(snull) !== cg.nulls)
                    problems.push(`${where}: null_count ours=${snull} DuckDB=${cg.nulls}`);
                const hs = hyp.row_groups[g].columns[c].meta_data.statistics ?? {};
                if (hs.null_count === undefined || Number(hs.null_count) !== cg.nulls)
                    problems.push(`${where}: null_count hyparquet=${hs.null_count} DuckDB=${cg.nulls}`);
                if (cg.valid === 0) {
                    if (smin != null || smax != null)
                        problems.push(`${where}: bounds ${smin}..${smax} for a group of only nulls/NaN`);
                    noteSkip(kind === 'float' && cg.nans ? 'float row group of only NaN (and nulls): no bounds' : 'row group of only nulls: no bounds');
                    continue;
                }
                if ((kind === 'string' || kind === 'blob') && cg.maxLen > CHUNK_BOUND_BYTES) {
                    if (smin != null || smax != null)
                        problems.push(`${where}: bounds written although a value has ${cg.maxLen} bytes`);
                    noteSkip(`byte array longer than ${CHUNK_BOUND_BYTES} bytes in the group: chunk bounds not written`);
                    continue;
                }
                const infinite = kind === 'float' && smin == null && smax == null &&
                    (!Number.isFinite(Number(cg.minN)) || !Number.isFinite(Number(cg.maxN)));
                if (infinite) {
                    // DuckDB's parquet_metadata hides float bounds that are
                    // infinite; hyparquet's decoding is compared below.
                    noteSkip('DuckDB metadata: float row group with an infinite bound (DuckDB shows none; hyparquet compared)');
                } else {
                    if (!sameValue(kind, smin, cg.minS))
                        problems.push(`${where}: min ours=${smin} DuckDB=${cg.minS}`);
                    if (!sameValue(kind, smax, cg.maxS))
                        problems.push(`${where}: max ours=${smax} DuckDB=${cg.maxS}`);
                }
                for (const which of ['min', 'max']) {
                    const r = hypCompare(kind, l, hs[`${which}_value`], cg, which);
                    if (r.skip) noteSkip(`hyparquet ${which}: ${r.skip.replace(/\s+/g, ' ')}`);
                    else if (!r.ok)
                        problems.push(`${where}: ${which} hyparquet=${show(hs[`${which}_value`])} DuckDB=${which === 'min' ? cg.minS : cg.maxS}`);
                }
            }
        }
        // 3. Iceberg metrics of top-level primitive columns over the file.
        for (let c = 0; c < ls.length; c++) {
            const l = ls[c];
            if (l.path.length !== 1 || l.inRepeated) continue;
            const fm = Object.values(metrics.columns).find((m) => m.name === l.path[0]);
            if (!fm) { noteSkip('Iceberg metrics: leaf without field id or Iceberg type'); continue; }
            const e = q(l.path[0]);
            const isF = fm.type === 'float' || fm.type === 'double';
            const valid = isF ? `${e} IS NOT NULL AND NOT isnan(${e})` : `${e} IS NOT NULL`;
            const len = fm.type === 'string' ? `strlen(${e})` : fm.type === 'binary' ? `octet_length(${e})` : 'NULL';
            const [[rows, nonNull, nans, lo, hi, maxLen]] = (await conn.runAndReadAll(
                `SELECT count(*), count(${e}), ${isF ? `count(*) FILTER (WHERE isnan(${e}))` : '0'},
                        ${icebergExpr(fm.type, `min(${e}) FILTER (WHERE ${valid})`)},
                        ${icebergExpr(fm.type, `max(${e}) FILTER (WHERE ${valid})`)}, max(${len})
                 FROM read_parquet(${lit(dst)}, binary_as_string=false)`)).getRows();
            const where = `${basename(src)} Iceberg metrics field ${Object.keys(metrics.columns).find((k) => metrics.columns[k] === fm)} (${l.path[0]})`;
            checks++;
            if (fm.value_count !== Number(rows)) problems.push(`${where}: value_count ours=${fm.value_count} DuckDB=${rows}`);
            if (fm.null_value_count !== Number(rows) - Number(nonNull))
                problems.push(`${where}: null_value_count ours=${fm.null_value_count} DuckDB=${Number(rows) - Number(nonNull)}`);
            if (isF && fm.nan_value_count !== Number(nans))
                problems.push(`${where}: nan_value_count ours=${fm.nan_value_count} DuckDB=${nans}`);
            if (!isF && fm.nan_value_count !== undefined)
                problems.push(`${where}: nan_value_count ${fm.nan_value_count} for a ${fm.type}`);
            if (lo == null) {
                if (fm.lower_bound !== undefined || fm.upper_bound !== undefined)
                    problems.push(`${where}: bounds for a column of only nulls/NaN`);
                continue;
            }
            if (maxLen != null && Number(maxLen) > FILE_BOUND_BYTES) {
                noteSkip(`Iceberg bounds: value longer than ${FILE_BOUND_BYTES} bytes (bound kept as a prefix)`);
                continue;
            }
            const ours = [fm.lower_bound, fm.upper_bound].map((h) => (h === undefined ? undefined : decodeBound(fm.type, h, l.scale)));
            let theirs = [lo, hi];
            if (fm.type === 'time' && /NANOS=Nano/.test(l.logical)) {
                // Nanoseconds kept in Iceberg's microseconds: the lower
                // bound rounds down, the upper one up (DuckDB's TIME cast
                // truncates, so take the exact text).
                const [[a, b]] = (await conn.runAndReadAll(
                    `SELECT min(${e})::VARCHAR, max(${e})::VARCHAR FROM read_parquet(${lit(dst)})`)).getRows();
                const ns = (t) => {
                    const [h, m, sec] = t.split(':');
                    const [si, frac = ''] = sec.split('.');
                    return ((BigInt(h) * 60n + BigInt(m)) * 60n + BigInt(si)) * 1000000000n + BigInt(frac.padEnd(9, '0'));
                };
                const lo_ = ns(a), hi_ = ns(b);
                theirs = [String(lo_ / 1000n), String(hi_ / 1000n + (hi_ % 1000n ? 1n : 0n))];
            }
            if (fm.type === 'decimal') theirs = theirs.map((x) => String(x).replace(/^(-?)\./, '$10.'));
            for (let k = 0; k < 2; k++) {
                const eq = isF ? Number(ours[k]) === Number(theirs[k]) : String(ours[k]) === String(theirs[k]);
                if (!eq) problems.push(`${where}: ${k ? 'upper' : 'lower'} bound ours=${ours[k]} DuckDB=${theirs[k]}`);
            }
        }
    } catch (err) {
        problems.push(`error: ${err.stack ?? err.message}`);
    }
    if (problems.length) {
        console.log(`FAIL ${src} (${args.join(' ')}):`);
        for (const pr of problems.slice(0, 20)) console.log(`  ${pr}`);
        if (problems.length > 20) console.log(`  ... ${problems.length - 20} more`);
        failed++;
    } else {
        console.log(`PASS ${src} (${checks} checks, ${args.join(' ')})`);
        passed++;
    }
}
for (const [reason, n] of [...skipReasons.entries()].sort())
    console.log(`SKIPPED ${n}x: ${reason}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
