// Issue 21's scenario: compaction on a hot table. zb-hot-writer appends
// and deletes by position every 40 ms for 25 s on a table partitioned by
// day over two days; meanwhile `zamboni compact` runs three times, 5 s
// apart, then (while no run has carried a delete yet) again every 0.3 s
// until a second before the writer stops. A run commits every group it
// planned, or its report names why not: one of the exceptions that
// still drop a group (a concurrent rewrite of the same files, an
// equality delete the starting sequence number does not cover, a lost
// position map) or a lost commit race (the
// issue's goal of no lost race is not met yet: a replace attempt, 20-40
// ms here (bench/hot_commit.sh), is not always inside the writer's 32 ms
// quiet gap); at least one run commits every group, and
// concurrent deletes must have been carried (the report's "carried
// deletes" line) at least once;
// and the live rows must be exactly the ones the writer's commits leave
// (its own account, --expect), read by three readers that share no code
// with src/: DuckDB (read_parquet over the live data and position delete
// files, deletion vectors by the reference's Roaring decoder), the
// reference reader (avsc + hyparquet) and icebird. No file may be left
// under the table that no snapshot references (a retry reuses manifests
// and carried delete files across attempts and must delete what it
// superseded).
//
// Cases: a folder (PATH) table on format 2 (position delete files), and
// a table of the SQLite catalog on format 3 (deletion vectors: carried
// deletes become one DV per new data file). HOT_SECONDS shortens them.
// A third, shorter case compacts with --sort-by 'id desc' (the sorted
// position map, compact_carry_sorted.c) on a format 3 folder table.
//
// Usage: node compact_hot.mjs ZAMBONI ZB_HOT_WRITER
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { referenceScan, loadTable, snapshotOf, snapshotEntries, readDeletionVector }
  from './scan_reference.mjs';
import { readAvro } from './avro/avsc_read.mjs';

const [zamboni, writer] = process.argv.slice(2);
if (!zamboni || !writer) {
  console.error('usage: compact_hot.mjs ZAMBONI ZB_HOT_WRITER');
  process.exit(2);
}
const { DuckDBInstance } = await import('@duckdb/node-api');
let icebird;
try { icebird = await import('icebird'); } catch {
  console.log('icebird is not installed: run scripts/install-deps.sh');
  process.exit(1);
}

const SECONDS = Number(process.env.HOT_SECONDS || 25);
// 5 s apart (a run that takes longer delays the next). The table's
// retries (zb-hot-writer sets 60) span the writer's end, so a run that
// is still retrying when it stops commits the deletes carried from its
// last seconds, even while a replace attempt is slower than the
// writer's 40 ms between commits (the README says so).
const RUNS_AT = [10, 15, 20].map((s) => (s * SECONDS) / 25);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zb-hot-'));
const env = { ...process.env, ZAMBONI_ROOT: path.join(work, 'root') };
delete env.ZAMBONI_URI; delete env.ZAMBONI_WAREHOUSE; delete env.ZAMBONI_ENGINE;
let failed = 0;
const fail = (m) => { console.log(`FAIL ${m}`); failed++; };
const ok = (m) => console.log(`ok   ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A dropped group is allowed only for these (ops/compact/compact_commit.c).
const EXCEPTIONS = [/removed data file/, /equality deletes/, /position map/,
  /cannot be carried/, /could not be carried/, /no longer an ancestor/];

function run(cmd, args) {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

function parseReport(out) {
  const n = (re) => { const m = re.exec(out); return m ? Number(m[1]) : 0; };
  const committed = n(/across (\d+) compaction group/);
  const dropped = n(/warning: (\d+) group\(s\) dropped/);
  const failedGroups = n(/warning: (\d+) group\(s\) failed/);
  const drops = out.split('\n').filter((l) => /^\s+dropped group \d+/.test(l));
  const m = /carried deletes: (\d+) group\(s\) committed with (\d+) concurrent delete file\(s\) carried, hiding (\d+) row\(s\)/.exec(out);
  return { committed, dropped, failedGroups, planned: committed + dropped + failedGroups,
    drops, carriedGroups: m ? Number(m[1]) : 0, carriedFiles: m ? Number(m[2]) : 0,
    carriedRows: m ? Number(m[3]) : 0 };
}

// DuckDB: the ids of the live rows, deletes applied by the spec's rules
// (a position delete or DV applies to a live data file it names whose
// data sequence number is not above its own, in the same partition).
async function duckdbIds(conn, dir) {
  const { meta, resolve } = loadTable(dir);
  const snap = snapshotOf(meta, null);
  const entries = await snapshotEntries(meta, snap, resolve);
  const data = entries.filter((e) => e.content === 0);
  const dels = entries.filter((e) => e.content === 1);
  const q = (p) => `'${resolve(p).replaceAll("'", "''")}'`;
  const dead = new Map();          // data path -> Set of positions
  const byPath = new Map(data.map((d) => [d.path, d]));
  const applies = (d, del) => d && d.seq <= del.seq && d.specId === del.specId &&
    d.partition === del.partition;
  let dvs = 0;
  for (const del of dels) {
    if (String(del.format).toUpperCase() === 'PUFFIN') {
      dvs++;
      const d = byPath.get(del.referenced);
      if (!applies(d, del)) continue;
      const set = dead.get(d.path) || new Set();
      for (const p of readDeletionVector(resolve(del.path), Number(del.offset), Number(del.size)))
        set.add(Number(p));
      dead.set(d.path, set);
      continue;
    }
    const res = await conn.runAndReadAll(`SELECT file_path, pos FROM read_parquet(${q(del.path)})`);
    for (const [fp, pos] of res.getRows()) {
      const d = byPath.get(fp);
      if (!applies(d, del)) continue;
      const set = dead.get(fp) || new Set();
      set.add(Number(pos));
      dead.set(fp, set);
    }
  }
  const ids = [];
  for (const d of data) {
    const res = await conn.runAndReadAll(
      `SELECT id, file_row_number FROM read_parquet(${q(d.path)}, file_row_number = true)`);
    const set = dead.get(d.path);
    for (const [id, pos] of res.getRows())
      if (!set || !set.has(Number(pos))) ids.push(String(id));
  }
  return { ids: ids.sort(), dataFiles: data.length, deleteFiles: dels.length, dvs, entries };
}

function installFetch(resolve) {
  globalThis.fetch = async (url, init = {}) => {
    const p = resolve(String(url));
    if (!fs.existsSync(p)) return new Response(null, { status: 404 });
    const buf = fs.readFileSync(p);
    if (init.method === 'HEAD')
      return new Response(null, { status: 200, headers: { 'Content-Length': String(buf.length) } });
    const range = new Headers(init.headers || {}).get('Range');
    if (range) {
      const m = /bytes=(\d+)-(\d*)/.exec(range);
      const end = m[2] ? Number(m[2]) + 1 : buf.length;
      return new Response(buf.subarray(Number(m[1]), end), { status: 206 });
    }
    return new Response(buf, { status: 200 });
  };
}

async function scenario(conn, c) {
  const t0 = Date.now();
  const expect = path.join(work, `${c.name}.ids`);
  const wargs = c.sqlite
    ? ['--sqlite', path.join(work, 'catalog.db'), '--table', `ns.${c.name}`,
       '--location', path.join(work, 'wh')]
    : ['--dir', path.join(work, c.name)];
  const dir = c.sqlite ? path.join(work, 'wh', 'ns', c.name) : path.join(work, c.name);
  const cargs = c.sqlite
    ? ['compact', `ns.${c.name}`, '--uri', `sqlite:${path.join(work, 'catalog.db')}`,
       '--warehouse', 'zamboni', '--local-warehouse', path.join(work, 'wh')]
    : ['compact', dir];
  const seconds = c.seconds || SECONDS;
  if (c.extra) cargs.push(...c.extra);
  const w = spawn(writer, [...wargs, '--format', String(c.format), '--seconds',
    String(seconds), '--every-ms', '40', ...(c.wextra || []), '--expect', expect], { env });
  let wout = '', werr = '';
  w.stdout.on('data', (d) => { wout += d; });
  w.stderr.on('data', (d) => { werr += d; });
  const wdone = new Promise((r) => w.on('close', (code) => r(code)));
  const runs = [];
  const compactOnce = async (extra) => {
    const r0 = Date.now();
    const r = await run(zamboni, cargs);
    const rep = parseReport(r.stdout);
    rep.ms = Date.now() - r0;
    rep.code = r.code;
    rep.out = r.stdout + r.stderr;
    rep.extra = extra;
    runs.push(rep);
  };
  for (const at of RUNS_AT.map((s) => (s * seconds) / SECONDS)) {
    const wait = t0 + at * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    await compactOnce(false);
  }
  // A run now takes 0.1-0.5 s, and a concurrent delete lands inside its
  // window only by chance (about one in two runs here), where a run that
  // retried for seconds always met some. So that carrying is checked on
  // every case, more runs follow, 0.3 s apart while the writer has a
  // second left, until one carried; each is checked like the three.
  while (!runs.some((r) => r.carriedGroups > 0) &&
         Date.now() < t0 + (seconds - 1) * 1000) {
    await sleep(300);
    await compactOnce(true);
  }
  const wcode = await wdone;
  if (wcode !== 0) {
    fail(`${c.name}: zb-hot-writer exited ${wcode}: ${werr.slice(0, 400)}`);
    return;
  }
  const summary = wout.trim();
  if (c.wextra) {
    // The writer merged DVs while compaction ran, so that a group saw
    // one it applied replaced (the runs above then dropped no group).
    const m = /merged_dvs (\d+)/.exec(summary);
    if (m && Number(m[1]) > 0) ok(`${c.name}: the writer merged ${m[1]} deletion vector(s)`);
    else fail(`${c.name}: the writer merged no deletion vector (${summary})`);
  }
  let carried = 0, carriedRows = 0, whole = 0;
  runs.forEach((r, i) => {
    const tag = `${c.name} ${r.extra ? 'extra ' : ''}run ${i + 1}`;
    console.log(`  ${tag}: ${r.committed}/${r.planned} group(s) committed, ` +
      `${r.carriedGroups} with carried deletes (${r.carriedFiles} file(s), ` +
      `${r.carriedRows} row(s) hidden), ${r.ms} ms`);
    // Losing the optimistic commit race every retry (the writer commits
    // in between each attempt) is no validation drop: the groups are
    // named "lost the commit race", and the run exits 1 saying so.
    const lost = /gave up after \d+ attempts/.test(r.out);
    if (r.code !== 0 && !lost) {
      fail(`${tag}: zamboni compact exited ${r.code}: ${r.out.slice(0, 600)}`);
      return;
    }
    if (r.planned > 0 && r.committed === r.planned) whole++;
    if (r.failedGroups > 0) fail(`${tag}: ${r.failedGroups} group(s) failed: ${r.out.slice(0, 600)}`);
    if (r.drops.length !== r.dropped)
      fail(`${tag}: ${r.dropped} group(s) dropped but ${r.drops.length} named`);
    for (const d of r.drops) {
      if (EXCEPTIONS.some((re) => re.test(d))) console.log(`  ${tag}: named exception: ${d.trim()}`);
      else if (lost && /lost the commit race/.test(d)) console.log(`  ${tag}: ${d.trim()}`);
      else fail(`${tag}: a group dropped for no named exception: ${d.trim()}`);
    }
    carried += r.carriedGroups;
    carriedRows += r.carriedRows;
  });
  if (whole > 0) ok(`${c.name}: ${whole} of ${runs.length} run(s) committed every group they planned`);
  else fail(`${c.name}: no run committed every group it planned`);
  if (carried > 0) ok(`${c.name}: ${carried} group(s) committed with carried deletes, hiding ${carriedRows} row(s)`);
  else fail(`${c.name}: no group carried concurrent deletes (${runs.map((r) => r.out).join(' | ').slice(0, 600)})`);
  const want = fs.readFileSync(expect, 'utf8').split('\n').filter((l) => l).sort();
  const dk = await duckdbIds(conn, dir);
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (same(dk.ids, want)) ok(`${c.name}: DuckDB reads the ${want.length} rows the writer's commits leave (${summary})`);
  else fail(`${c.name}: DuckDB ${dk.ids.length} rows, writer ${want.length}; only DuckDB: ` +
    `${dk.ids.filter((x) => !want.includes(x)).slice(0, 5)}; only writer: ${want.filter((x) => !dk.ids.includes(x)).slice(0, 5)}`);
  const ref = await referenceScan(dir);
  const refIds = ref.rows.map((l) => String(JSON.parse(l).id)).sort();
  if (same(refIds, want)) ok(`${c.name}: the reference reader (hyparquet) agrees`);
  else fail(`${c.name}: reference reader ${refIds.length} rows, writer ${want.length}`);
  const { metadataFile } = loadTable(dir);
  installFetch((p) => p.replace(/^file:\/\//, ''));
  let ibIds = null, ibErr = null;
  try {
    const rows = await icebird.icebergRead({ tableUrl: dir, metadataFileName: path.basename(metadataFile) });
    ibIds = rows.map((r) => String(r.id)).sort();
  } catch (e) { ibErr = e.message; }
  if (c.format >= 3 && dk.dvs > 0) {
    // As scan_icebird.mjs lists it: icebird 0.3.1 applies no deletion
    // vector (it reads a Puffin file as Parquet), before compaction too.
    console.log(`known ${c.name}: icebird 0.3.1 does not apply deletion vectors (${ibErr || `${ibIds.length} rows`})`);
  } else if (ibIds && same(ibIds, want)) ok(`${c.name}: icebird agrees`);
  else fail(`${c.name}: icebird ${ibErr || `${ibIds.length} rows`}, writer ${want.length}`);
  if (c.format >= 3) {
    // Each live DV names a live data file or a replaced one (the
    // concurrent vectors, dangling); no live data file has two.
    const live = new Set(dk.entries.filter((e) => e.content === 0).map((e) => e.path));
    const per = new Map();
    for (const e of dk.entries)
      if (e.content === 1 && live.has(e.referenced)) per.set(e.referenced, (per.get(e.referenced) || 0) + 1);
    const two = [...per.values()].filter((n) => n > 1).length;
    if (two === 0 && dk.dvs > 0) ok(`${c.name}: ${per.size} live data file(s) with one deletion vector each`);
    else fail(`${c.name}: ${two} data file(s) with more than one deletion vector (${dk.dvs} vectors)`);
  }
  const left = await unreferenced(dir);
  if (left.length === 0) ok(`${c.name}: no file left that no snapshot references`);
  else fail(`${c.name}: ${left.length} file(s) no snapshot references: ${left.slice(0, 3).join(', ')}`);
  console.log(`  ${c.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// Files under the table folder that no snapshot references (manifest
// lists, manifests, data and delete files): what the compactions' lost
// attempts wrote and did not clean up. Retries reuse manifests and
// carried delete files across attempts, and delete those superseded.
async function unreferenced(dir) {
  const { meta, resolve } = loadTable(dir);
  const ref = new Set();
  const manifests = new Set();
  for (const s of meta.snapshots || []) {
    ref.add(resolve(s['manifest-list']));
    const ml = await readAvro(resolve(s['manifest-list']));
    for (const r of ml.records) manifests.add(resolve(r.manifest_path));
  }
  // Each manifest once: every entry's file is referenced (a DELETED one
  // by the older snapshots that list it live).
  for (const m of manifests) {
    ref.add(m);
    for (const r of (await readAvro(m)).records) ref.add(resolve(r.data_file.file_path));
  }
  const all = [];
  const walk = (d) => {
    for (const f of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, f.name);
      if (f.isDirectory()) walk(p);
      else if (!/\.json$|version-hint\.text$/.test(f.name) && !f.name.startsWith('.')) all.push(p);
    }
  };
  walk(dir);
  return all.filter((p) => !ref.has(p));
}

const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
for (const c of [{ name: 'hot_path_v2', format: 2, sqlite: false },
  { name: 'hot_sql_v3', format: 3, sqlite: true },
  { name: 'hot_sort_v3', format: 3, sqlite: false, seconds: Math.min(SECONDS, 14),
    extra: ['--sort-by', 'id desc'] },
  // A writer that deletes again from files with a DV by merging it, as
  // Spark does (the old DV removed, a merged one added): carried too.
  { name: 'hot_merge_v3', format: 3, sqlite: false, seconds: Math.min(SECONDS, 12),
    wextra: ['--merge-dvs', '1'] }])
  await scenario(conn, c);
fs.rmSync(work, { recursive: true, force: true });
console.log(failed ? `${failed} check(s) failed` : 'all checks passed');
process.exitCode = failed ? 1 : 0;
