#!/usr/bin/env node
// `zamboni add-files` on Parquet files that DuckDB wrote (no field ids,
// hive-partitioned NAME=VALUE directories): the table's rows, read by the
// independent reader (scan_reference.mjs: manifests by avsc, files by
// hyparquet through the name mapping, partition columns from the
// manifests), must equal DuckDB's own read of the files with
// hive_partitioning. Then: a second directory added to the existing table;
// the same directory again is refused (exit 3, no new snapshot); a file
// whose column type does not fit is refused naming it; a truncated
// Parquet file fails the run (exit 1, naming it) and nothing is committed;
// --dry-run commits nothing; files under _temporary/ and .spark-staging
// folders are skipped; file:// and file: forms of added files are still
// duplicates; a column the table lacks, and a NAME=VALUE folder for a
// column that is not identity-partitioned and not in the file, are refused.
//
//   node add_files.mjs ZAMBONI WORK_DIR
//
// Prints `N passed, N failed`; exit 1 on failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
if (!fs.existsSync(path.join(root, 'node_modules', '@duckdb', 'node-api'))) {
  console.error('add_files: node_modules lacks @duckdb/node-api; run scripts/install-deps.sh');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const { referenceScan } = await import('./scan_reference.mjs');
const { readAvro } = await import('./avro/avsc_read.mjs');

const [zamboni, workArg] = process.argv.slice(2);
if (!zamboni || !workArg) {
  console.error('usage: node add_files.mjs ZAMBONI WORK_DIR');
  process.exit(2);
}
const work = path.resolve(workArg);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`PASS ${name}`); }
  else { failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`); }
}

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET threads=1; SET TimeZone='UTC'");
await con.run(`CREATE TABLE ev AS SELECT
    i::BIGINT AS id,
    (i * 7 % 1000)::INTEGER AS small,
    'name-' || i AS name,
    i * 0.5 AS amount,
    (i * 0.25)::DOUBLE AS ratio,
    (i * 1.5)::REAL AS score,
    TIMESTAMP '2024-01-01 00:00:00' + to_seconds(i * 37) AS ts,
    (i % 2 = 0) AS flag,
    CAST(i / 4 AS DECIMAL(10, 2)) AS price,
    CASE WHEN i % 5 = 0 THEN NULL ELSE 'x' || (i % 3) END AS maybe,
    [i, i + 1] AS tags,
    ['eu', 'us', 'ap'][i % 3 + 1] AS region,
    DATE '2024-01-01' + (i % 2)::INTEGER AS day
  FROM range(0, 900) t(i)`);

const dir1 = path.join(work, 'src1'), dir2 = path.join(work, 'src2');
await con.run(`COPY (SELECT * FROM ev WHERE id < 600) TO '${dir1}'
  (FORMAT PARQUET, PARTITION_BY (region, day))`);
await con.run(`COPY (SELECT * FROM ev WHERE id >= 600) TO '${dir2}'
  (FORMAT PARQUET, PARTITION_BY (region, day))`);
// Files a source directory commonly holds besides the data.
fs.writeFileSync(path.join(dir1, '_SUCCESS'), '');
fs.writeFileSync(path.join(dir1, 'README.txt'), 'not parquet\n');

// DuckDB's read of the files, in the reference reader's JSON forms.
async function duckRows(globs) {
  const list = globs.map((g) => `'${g}'`).join(', ');
  const r = await con.runAndReadAll(`SELECT id, small, name,
      CAST(amount AS VARCHAR) AS amount, ratio, score::DOUBLE AS score,
      strftime(ts, '%Y-%m-%dT%H:%M:%S.%f') AS ts, flag,
      CAST(price AS VARCHAR) AS price, maybe, to_json(tags)::VARCHAR AS tags,
      region, strftime(day, '%Y-%m-%d') AS day
    FROM read_parquet([${list}], hive_partitioning = true)`);
  return r.getRowObjects().map((o) => norm({ ...o, tags: JSON.parse(o.tags) }));
}

function norm(o) {
  const out = {};
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    out[k] = typeof v === 'bigint' ? Number(v)
      : Array.isArray(v) ? v.map(Number) : v;
  }
  return JSON.stringify(out);
}

async function tableRows(dir) {
  const r = await referenceScan(dir);
  return r.rows.map((line) => norm(JSON.parse(line)));
}

function sameRows(a, b) {
  const x = [...a].sort(), y = [...b].sort();
  if (x.length !== y.length) return `${x.length} rows != ${y.length} rows`;
  for (let i = 0; i < x.length; i++)
    if (x[i] !== y[i]) return `row ${i}: ${x[i]} != ${y[i]}`;
  return '';
}

function run(...args) {
  const r = spawnSync(zamboni, ['add-files', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function snapshots(dir) {
  const metaDir = path.join(dir, 'metadata');
  const files = fs.readdirSync(metaDir).filter((f) => /^v\d+\.metadata\.json$/.test(f));
  files.sort((a, b) => Number(a.slice(1, -14)) - Number(b.slice(1, -14)));
  const meta = JSON.parse(fs.readFileSync(path.join(metaDir, files[files.length - 1]), 'utf8'));
  return (meta.snapshots || []).length;
}

const table = path.join(work, 'table');

// 1. --dry-run --create: nothing created.
let r = run(table, '--source', dir1, '--create', '--dry-run');
check('dry run exits 0', r.code === 0, r.err);
check('dry run says what it would do', /would add \d+ file\(s\), 600 rows/.test(r.out), r.out);
check('dry run creates nothing', !fs.existsSync(table));

// 2. --create from hive-partitioned DuckDB files.
r = run(table, '--source', dir1, '--create');
check('create exits 0', r.code === 0, r.err);
check('create reports 600 rows', /added \d+ file\(s\), 600 rows/.test(r.out), r.out);
check('create skips the non-Parquet file', /skipped 2 file\(s\)/.test(r.out), r.out);
const meta = JSON.parse(fs.readFileSync(path.join(table, 'metadata', 'v2.metadata.json'), 'utf8'));
check('name mapping set', typeof meta.properties?.['schema.name-mapping.default'] === 'string');
const spec = meta['partition-specs'].find((s) => s['spec-id'] === meta['default-spec-id']);
check('identity partitioned on region, day',
      spec.fields.map((f) => `${f.name}:${f.transform}`).join(',') === 'region:identity,day:identity',
      JSON.stringify(spec));
const dayField = meta.schemas[0].fields.find((f) => f.name === 'day');
check('day inferred as date', dayField?.type === 'date', JSON.stringify(dayField));
let want = await duckRows([`${dir1}/**/*.parquet`]);
let diff = sameRows(await tableRows(table), want);
check('rows equal DuckDB read of src1', diff === '', diff);

// 3. A second directory appended to the existing table.
r = run(table, '--source', dir2);
check('second add exits 0', r.code === 0, r.err);
want = await duckRows([`${dir1}/**/*.parquet`, `${dir2}/**/*.parquet`]);
diff = sameRows(await tableRows(table), want);
check('rows equal DuckDB read of src1 + src2', diff === '', diff);
const snaps = snapshots(table);
check('two append snapshots', snaps === 2, String(snaps));

// 3b. Metrics from the footers, checked against DuckDB's own aggregates of
// each file: record and value counts, null counts, and the bounds of a
// long, an int, a string (under 16 characters: whole), a timestamp and a
// decimal; identity partition values from the directories.
async function checkMetrics(dir) {
  const m = latestMeta(dir);
  const ids = Object.fromEntries(m.schemas.find((x) => x['schema-id'] === m['current-schema-id'])
    .fields.map((f) => [f.name, f.id]));
  const snap = m.snapshots.find((x) => String(x['snapshot-id']) === String(m['current-snapshot-id']));
  const ml = await readAvro(snap['manifest-list']);
  let n = 0, bad = '';
  const le = (v, bytes) => { const b = Buffer.alloc(bytes); if (bytes === 8) b.writeBigInt64LE(BigInt(v)); else b.writeInt32LE(Number(v)); return '0x' + b.toString('hex'); };
  const str = (s) => '0x' + Buffer.from(s, 'utf8').toString('hex');
  const be = (v) => { let h = BigInt(v).toString(16); if (h.length % 2) h = '0' + h; if (parseInt(h[0], 16) >= 8) h = '00' + h; return '0x' + h; };
  for (const mf of ml.records) {
    for (const rec of (await readAvro(mf.manifest_path)).records) {
      const d = rec.data_file;
      const map = (a) => Object.fromEntries((a || []).map((e) => [e.key, e.value]));
      const lo = map(d.lower_bounds), hi = map(d.upper_bounds);
      const vc = map(d.value_counts), nc = map(d.null_value_counts);
      const q = (await con.runAndReadAll(`SELECT count(*) AS n, min(id) AS a, max(id) AS b,
          min(small) AS c, max(small) AS e, min(name) AS f, max(name) AS g,
          epoch_us(min(ts)) AS h, epoch_us(max(ts)) AS i, count(maybe) AS j,
          min(price * 100)::BIGINT AS k, max(price * 100)::BIGINT AS l
        FROM read_parquet('${d.file_path}')`)).getRowObjects()[0];
      const want = {
        record_count: String(q.n), vc: String(q.n), nc_maybe: String(q.n - q.j),
        lo_id: le(q.a, 8), hi_id: le(q.b, 8), lo_small: le(q.c, 4), hi_small: le(q.e, 4),
        lo_name: str(q.f), hi_name: str(q.g), lo_ts: le(q.h, 8), hi_ts: le(q.i, 8),
        lo_price: be(q.k), hi_price: be(q.l),
        region: d.file_path.match(/region=([^/]+)/)[1],
      };
      const got = {
        record_count: String(d.record_count), vc: vc[ids.id], nc_maybe: nc[ids.maybe],
        lo_id: lo[ids.id], hi_id: hi[ids.id], lo_small: lo[ids.small], hi_small: hi[ids.small],
        lo_name: lo[ids.name], hi_name: hi[ids.name], lo_ts: lo[ids.ts], hi_ts: hi[ids.ts],
        lo_price: lo[ids.price], hi_price: hi[ids.price], region: d.partition.region,
      };
      if (JSON.stringify(got) !== JSON.stringify(want) && !bad)
        bad = `${d.file_path}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
      n++;
    }
  }
  return n > 0 ? bad : 'no entries';
}
function latestMeta(dir) {
  const metaDir = path.join(dir, 'metadata');
  const files = fs.readdirSync(metaDir).filter((f) => /^v\d+\.metadata\.json$/.test(f));
  files.sort((a, b) => Number(a.slice(1, -14)) - Number(b.slice(1, -14)));
  return JSON.parse(fs.readFileSync(path.join(metaDir, files[files.length - 1]), 'utf8'));
}
diff = await checkMetrics(table);
check('metrics and partition values match DuckDB per file', diff === '', diff);

// 4. The same files again: refused, nothing committed.
r = run(table, '--source', dir2);
check('duplicates refused with exit 3', r.code === 3, `${r.code} ${r.err}`);
check('duplicates message names a file', r.err.includes(dir2), r.err);
check('no snapshot after duplicates', snapshots(table) === 2);

// 5. A column whose type does not fit (id as a string).
const bad = path.join(work, 'bad');
fs.mkdirSync(bad);
await con.run(`COPY (SELECT 'abc' AS id, 'n' AS name) TO '${bad}/wrong.parquet' (FORMAT PARQUET)`);
r = run(table, '--source', bad);
check('type mismatch refused with exit 3', r.code === 3, `${r.code} ${r.err}`);
check('type mismatch names file and column',
      r.err.includes('wrong.parquet') && r.err.includes('id'), r.err);

// 6. A truncated Parquet file among good ones: exit 1, nothing committed.
const corrupt = path.join(work, 'corrupt', 'region=eu', 'day=2024-01-01');
fs.mkdirSync(corrupt, { recursive: true });
await con.run(`COPY (SELECT * EXCLUDE (region, day) FROM ev WHERE id < 10 AND region = 'eu' AND day = DATE '2024-01-01') TO '${corrupt}/a.parquet' (FORMAT PARQUET)`);
const whole = fs.readFileSync(path.join(corrupt, 'a.parquet'));
fs.writeFileSync(path.join(corrupt, 'b.parquet'), whole.subarray(0, whole.length - 20));
r = run(table, '--source', path.join(work, 'corrupt'));
check('corrupt file fails with exit 1', r.code === 1, `${r.code} ${r.err}`);
check('corrupt file is named', r.err.includes('b.parquet'), r.err);
check('no snapshot after the corrupt file', snapshots(table) === 2);

// 7b. --partition-by: month(ts) from the statistics, after the directories.
const table2 = path.join(work, 'table-month');
r = run(table2, '--source', dir1, '--create', '--partition-by', 'month(ts)');
check('create --partition-by exits 0', r.code === 0, r.err);
const meta2 = latestMeta(table2);
const spec2 = meta2['partition-specs'].find((s) => s['spec-id'] === meta2['default-spec-id']);
check('partitioned on region, day, ts_month',
      spec2.fields.map((f) => `${f.name}:${f.transform}`).join(',') === 'region:identity,day:identity,ts_month:month',
      JSON.stringify(spec2));
diff = sameRows(await tableRows(table2), await duckRows([`${dir1}/**/*.parquet`]));
check('rows of the month-partitioned table equal DuckDB read of src1', diff === '', diff);

// 7c. Nested columns (struct, map, list of structs) mapped by name.
const nestedSrc = path.join(work, 'nested');
fs.mkdirSync(nestedSrc);
await con.run(`COPY (SELECT i::INTEGER AS k,
    {'a': i::INTEGER, 'b': 'v' || i} AS st,
    MAP {'x': i::INTEGER, 'y': (i * 2)::INTEGER} AS m,
    [{'p': i::INTEGER}, {'p': NULL}] AS ls
  FROM range(0, 50) t(i)) TO '${nestedSrc}/n.parquet' (FORMAT PARQUET)`);
const table3 = path.join(work, 'table-nested');
r = run(table3, '--source', nestedSrc, '--create');
check('create from nested columns exits 0', r.code === 0, r.err);
{
  const m3 = latestMeta(table3);
  const sc = m3.schemas.find((x) => x['schema-id'] === m3['current-schema-id']);
  // Structs print keyed by field id: back to names; maps as key/value lists.
  const byName = (t, v) => {
    if (v === null || typeof v !== 'object') return v;
    if (t?.type === 'struct')
      return Object.fromEntries(t.fields.map((f) => [f.name, byName(f.type, v[String(f.id)])]));
    if (t?.type === 'list') return v.map((x) => byName(t.element, x));
    if (t?.type === 'map')
      return Object.fromEntries(v.keys.map((k, i) => [k, byName(t.value, v.values[i])]));
    return v;
  };
  const named = (lines, cols) => lines.map((line) => {
    const o = JSON.parse(line);
    return JSON.stringify(Object.fromEntries(sc.fields.filter((f) => cols.includes(f.name))
      .map((f) => [f.name, byName(f.type, o[f.name])])));
  });
  // Every column by the reference reader; ls (a list of structs) also by
  // our own `zamboni scan`.
  const refRows = (await referenceScan(table3)).rows;
  const got = named(refRows, ['k', 'st', 'm']);
  const refLs = named(refRows, ['k', 'ls']);
  const sr = spawnSync(zamboni, ['scan', table3], { encoding: 'utf8' });
  check('zamboni scan of the nested table exits 0', sr.status === 0, sr.stderr);
  const gotLs = named(sr.stdout.split('\n').filter((x) => x), ['k', 'ls']);
  const q = await con.runAndReadAll(`SELECT k, to_json(st)::VARCHAR AS st,
      to_json(m)::VARCHAR AS m, to_json(ls)::VARCHAR AS ls
    FROM read_parquet('${nestedSrc}/n.parquet')`);
  const objs = q.getRowObjects();
  const exp = objs.map((o) => JSON.stringify({ k: o.k, st: JSON.parse(o.st), m: JSON.parse(o.m) }));
  diff = sameRows(got, exp);
  check('nested rows (struct, map) equal DuckDB read', diff === '', diff);
  const expLs = objs.map((o) => JSON.stringify({ k: o.k, ls: JSON.parse(o.ls) }));
  diff = sameRows(refLs, expLs);
  check('list of structs by the reference reader equals DuckDB read', diff === '', diff);
  diff = sameRows(gotLs, expLs);
  check('list of structs by zamboni scan equals DuckDB read', diff === '', diff);
}

// 7d. DuckDB writing the partition columns into the files too: the
// directories then partition on the files' own columns.
const withCols = path.join(work, 'with-cols');
await con.run(`COPY (SELECT id, name, region FROM ev WHERE id < 90) TO '${withCols}'
  (FORMAT PARQUET, PARTITION_BY (region), WRITE_PARTITION_COLUMNS true)`);
const table4 = path.join(work, 'table-with-cols');
r = run(table4, '--source', withCols, '--create');
check('create with partition columns in the files exits 0', r.code === 0, r.err);
{
  const m4 = latestMeta(table4);
  const f4 = m4.schemas[0].fields.map((f) => f.name).join(',');
  check('no extra column for a directory the files hold', f4 === 'id,name,region', f4);
  const got = (await referenceScan(table4)).rows.map((l) => norm(JSON.parse(l)));
  const q = await con.runAndReadAll(`SELECT id, name, region FROM read_parquet('${withCols}/**/*.parquet', hive_partitioning = false)`);
  diff = sameRows(got, q.getRowObjects().map(norm));
  check('rows of the table equal DuckDB read', diff === '', diff);
}

// 8. What a Spark job leaves behind: an unfinished attempt's files under
// _temporary/ and a .spark-staging-* folder, both hive-partitioned like
// the committed files. They are skipped and counted: the table holds the
// committed files' rows only, as DuckDB reads them.
const sparkish = path.join(work, 'sparkish');
await con.run(`COPY (SELECT * FROM ev WHERE id < 300) TO '${sparkish}'
  (FORMAT PARQUET, PARTITION_BY (region, day))`);
fs.mkdirSync(path.join(sparkish, '_temporary', '0', '_temporary'), { recursive: true });
await con.run(`COPY (SELECT * FROM ev WHERE id >= 300 AND id < 400) TO
  '${sparkish}/_temporary/0/_temporary/attempt_1' (FORMAT PARQUET, PARTITION_BY (region, day))`);
await con.run(`COPY (SELECT * FROM ev WHERE id >= 400 AND id < 500) TO
  '${sparkish}/.spark-staging-1' (FORMAT PARQUET, PARTITION_BY (region, day))`);
const hidden = (dir) => fs.readdirSync(dir, { recursive: true })
  .filter((f) => f.endsWith('.parquet')).length;
const nHidden = hidden(path.join(sparkish, '_temporary')) + hidden(path.join(sparkish, '.spark-staging-1'));
const table5 = path.join(work, 'table-sparkish');
r = run(table5, '--source', sparkish, '--create');
check('create past _temporary and .spark-staging exits 0', r.code === 0, r.err);
check('hidden folders\' files skipped and counted',
      nHidden > 0 && new RegExp(`skipped ${nHidden} file\\(s\\)`).test(r.out), `${nHidden}: ${r.out}`);
diff = sameRows(await tableRows(table5), await duckRows([`${sparkish}/region=*/*/*.parquet`]));
check('rows equal DuckDB read of the committed files only', diff === '', diff);

// 9. The files of src2 named file:///..., file:/...: still duplicates.
for (const form of [`file://${dir2}`, `file:${dir2}`]) {
  r = run(table, '--source', form);
  check(`duplicates refused through ${form.slice(0, 7)}`, r.code === 3 && r.err.includes('data files of'), `${r.code} ${r.err}`);
}
check('no snapshot after file: URI duplicates', snapshots(table) === 2);

// 10. A column the table does not have is refused, not dropped; so is a
// NAME=VALUE folder for a column that is not identity-partitioned and
// that the file lacks (its value would be lost).
const extra = path.join(work, 'extra', 'region=eu', 'day=2024-01-01');
fs.mkdirSync(extra, { recursive: true });
await con.run(`COPY (SELECT id, name, 42 AS extra FROM ev WHERE id = 3) TO '${extra}/x.parquet' (FORMAT PARQUET)`);
r = run(table, '--source', path.join(work, 'extra'));
check('a file with a column the table lacks is refused (exit 3)', r.code === 3, `${r.code} ${r.err}`);
check('the refusal names the file and the column',
      r.err.includes('x.parquet') && r.err.includes('(extra)'), r.err);
const lost = path.join(work, 'lost', 'region=eu', 'day=2024-01-01', 'name=zzz');
fs.mkdirSync(lost, { recursive: true });
await con.run(`COPY (SELECT id FROM ev WHERE id = 3) TO '${lost}/y.parquet' (FORMAT PARQUET)`);
r = run(table, '--source', path.join(work, 'lost'));
check('a folder for a column the file lacks is refused (exit 3)', r.code === 3, `${r.code} ${r.err}`);
check('the refusal names the file and the folder',
      r.err.includes('y.parquet') && r.err.includes('name=zzz'), r.err);
check('no snapshot after the refusals', snapshots(table) === 2);

// 7. --create on an existing table is refused.
r = run(table, '--source', dir1, '--create');
check('create on an existing table exits 3', r.code === 3, `${r.code} ${r.err}`);

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
