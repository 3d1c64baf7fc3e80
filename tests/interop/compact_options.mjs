// Issue 21, Iceberg's rewrite_data_files options through the CLI, on the
// table test_ops_compact_options__keep leaves (partitioned by part: 0 two
// tiny files and one large, 1 one mid file alone, 2 one tiny file alone,
// 3 two mid files; the target is the mid file's size), checked by DuckDB
// (every live data file read with read_parquet, listed by the
// independent manifest reader of scan_reference.mjs):
//   - `plan` names why: above max-file-size-bytes (split), single
//     candidate files alone in their partition, each option's origin;
//     with --verbose each file's reason;
//   - `compact --min-file-size-bytes 0` rewrites only the large file and
//     splits it into files of about the target (none above 180% of it),
//     the rows unchanged, the other files untouched;
//   - `compact --sort-by id --rewrite-all` rewrites every live file, the
//     ones alone in their partition too, each new file sorted by id, the
//     rows unchanged;
//   - table-config.json keys reach the plan (origin "table config"), a
//     flag beats them;
//   - a bad option value is a usage error (exit 2).
// Usage: node compact_options.mjs ZAMBONI TABLE_DIR
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadTable, snapshotOf, snapshotEntries } from './scan_reference.mjs';

const { DuckDBInstance } = await import('@duckdb/node-api');
const [zamboni, dir] = process.argv.slice(2).map((p) => path.resolve(p));

function fail(msg) {
  console.error(`compact_options: ${msg}`);
  process.exit(1);
}

function run(args, want = 0) {
  const r = spawnSync(zamboni, args, { encoding: 'utf8', cwd: '/tmp' });
  if (r.status !== want)
    fail(`zamboni ${args.join(' ')}: exit ${r.status}, wanted ${want}\n${r.stdout}${r.stderr}`);
  return r.stdout + r.stderr;
}

async function liveFiles() {
  const { meta, resolve } = loadTable(dir);
  const entries = await snapshotEntries(meta, snapshotOf(meta, null), resolve);
  return entries.filter((e) => e.content === 0).map((e) => ({
    path: e.path, file: resolve(e.path), size: fs.statSync(resolve(e.path)).size,
    part: [...e.partById.values()][0], records: Number(e.recordCount),
  }));
}

const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run('SET threads = 1');

async function fileRows(f) {
  const q = `'${f.file.replaceAll("'", "''")}'`;
  const res = await conn.runAndReadAll(
    `SELECT id, part, payload FROM read_parquet(${q}, file_row_number = true) ORDER BY file_row_number`);
  return res.getRows().map((r) => `${r[0]}|${r[1]}|${r[2]}`);
}

async function allRows(files) {
  const out = [];
  for (const f of files) out.push(...await fileRows(f));
  return out.sort();
}

function sameRows(a, b, what) {
  if (a.length !== b.length) fail(`${what}: ${b.length} rows, wanted ${a.length}`);
  for (let i = 0; i < a.length; i++)
    if (a[i] !== b[i]) fail(`${what}: row ${i} is ${b[i]}, wanted ${a[i]}`);
}

const files0 = await liveFiles();
const mid = files0.filter((f) => f.part === 1);
if (mid.length !== 1 || files0.length !== 7) fail(`unexpected table: ${files0.length} files`);
const target = mid[0].size;
const rows0 = await allRows(files0);
const T = ['--target-file-size-bytes', String(target)];

// plan
let out = run(['plan', dir, ...T, '--max-files-to-rewrite', '100']);
for (const want of ['above max-file-size-bytes (split)', 'single candidate file',
  'alone in its partition',
  `max-file-size-bytes ${Math.trunc(target * 1.8)} (default: 180% of the target)`,
  'max-files-to-rewrite 100 (flag --max-files-to-rewrite)',
  'delete-file-threshold 1 (default: 1, ours'])
  if (!out.includes(want)) fail(`plan lacks "${want}":\n${out}`);

// table-config keys, and a flag over them
const tc = `${dir}.table-config.json`;
fs.writeFileSync(tc, JSON.stringify({ version: 2, warehouse: 'w', defaults: {
  max_files_to_rewrite: 2, rewrite_job_order: 'bytes-desc', rewrite_all: true } }));
out = run(['plan', dir, ...T, '--table-config', tc]);
for (const want of ['1 group(s), 2 file(s)',
  'max-files-to-rewrite 2 (table config max_files_to_rewrite, defaults)',
  'rewrite-job-order bytes-desc (table config rewrite_job_order, defaults)',
  'kept: 5 candidate file(s) over max-files-to-rewrite'])
  if (!out.includes(want)) fail(`plan with a table config lacks "${want}":\n${out}`);
out = run(['plan', dir, ...T, '--table-config', tc, '--max-files-to-rewrite', '4']);
if (!out.includes('max-files-to-rewrite 4 (flag --max-files-to-rewrite)') ||
    !out.includes('2 group(s), 4 file(s)'))
  fail(`the flag does not beat the key:\n${out}`);
fs.rmSync(tc);

// split: only the large file
const large = files0.filter((f) => f.part === 0).sort((a, b) => b.size - a.size)[0];
out = run(['plan', dir, ...T, '--verbose']);
if (!out.includes(`file ${large.path} bytes=${large.size} deletes=0: above max-file-size-bytes (split)`))
  fail(`plan --verbose does not name the large file's reason:\n${out}`);
for (const f of files0.filter((g) => g.part === 0 && g !== large))
  if (!out.includes(`file ${f.path} bytes=${f.size} deletes=0: below min-file-size-bytes`))
    fail(`plan --verbose does not name ${f.path}'s reason:\n${out}`);
if (large.size <= target * 1.8) fail(`the large file (${large.size}) is not above 180% of ${target}`);
out = run(['compact', dir, ...T, '--min-file-size-bytes', '0']);
const files1 = await liveFiles();
const gone = files0.filter((f) => !files1.some((g) => g.path === f.path));
const added = files1.filter((f) => !files0.some((g) => g.path === f.path));
if (gone.length !== 1 || gone[0].path !== large.path)
  fail(`the split removed ${gone.map((f) => f.path).join(', ')}:\n${out}`);
if (added.length < 3) fail(`the large file became ${added.length} file(s):\n${out}`);
let addedRows = 0;
for (const f of added) {
  if (f.part !== 0) fail(`${f.path}: partition ${f.part}, not 0`);
  if (f.size > target * 1.8) fail(`${f.path}: ${f.size} bytes, above 180% of ${target}`);
  addedRows += (await fileRows(f)).length;
}
if (addedRows !== large.records) fail(`split files hold ${addedRows} rows, not ${large.records}`);
sameRows(rows0, await allRows(files1), 'after the split');

// rewrite-all with a sort: every file, the single ones too
out = run(['compact', dir, ...T, '--sort-by', 'id', '--rewrite-all']);
if (out.includes('no groups')) fail(`--rewrite-all rewrote nothing:\n${out}`);
const files2 = await liveFiles();
for (const f of files2)
  if (files1.some((g) => g.path === f.path)) fail(`${f.path} was not rewritten:\n${out}`);
for (const p of [1, 2])
  if (!files2.some((f) => f.part === p)) fail(`partition ${p} lost its file`);
for (const f of files2) {
  const ids = (await fileRows(f)).map((r) => BigInt(r.split('|')[0]));
  for (let i = 1; i < ids.length; i++)
    if (ids[i - 1] > ids[i]) fail(`${f.path}: not sorted by id at row ${i}`);
}
sameRows(rows0, await allRows(files2), 'after --rewrite-all');

// usage errors
out = run(['compact', dir, '--rewrite-job-order', 'random'], 2);
if (!out.includes('bytes-asc')) fail(`no rule in the usage error:\n${out}`);
run(['plan', dir, '--delete-ratio-threshold', '1.5'], 2);
console.log(`compact_options: ok (target ${target}; split into ${added.length}; ${files2.length} files after --rewrite-all)`);
