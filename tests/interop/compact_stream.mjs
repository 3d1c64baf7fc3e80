// Compaction of streaming-like tables (issue 8): zb-stream-gen builds,
// through the SQLite catalog, tables of many small append commits with
// position deletes (many data files, several delete files, some files
// hit twice), equality deletes on (k1, k2) committed between appends,
// and mid-way an added column and (partitioned) an added bucket[2](id)
// partition field. For each table this script
//   - reads the live rows with scan_reference.mjs (avsc + hyparquet, its
//     own delete code, nothing shared with src/) and requires the count
//     the generator computed from its own account of the deletes;
//   - runs `zamboni compact` through the CLI and the same catalog, with
//     a target size that leaves several files per partition;
//   - reads the rows again: the same multiset of JSON lines is required;
//   - from the new metadata: the current snapshot is a compaction, the
//     data file count fell, and in every partition (spec id + partition
//     tuple) the live data files number at most ceil(sum of their sizes
//     on disk / target) + 1; no delete file that is still live applies to
//     a file the compaction wrote (equality: data seq below its own in
//     scope; position: a row naming the file); as every file is then an
//     output, remove-dangling-deletes must drop every delete file out of
//     the outputs' sequence number scope and leave the rows as they were.
// A last, smaller partitioned table is compacted with --sort-by and each
// file the compaction wrote must be sorted by that order (read with
// hyparquet).
//
// Usage: node compact_stream.mjs ZAMBONI ZB_STREAM_GEN
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { referenceScan, loadTable, snapshotOf, snapshotEntries, readParquet }
  from './scan_reference.mjs';

const [zamboni, gen] = process.argv.slice(2);
if (!zamboni || !gen) {
  console.error('usage: node compact_stream.mjs ZAMBONI ZB_STREAM_GEN');
  process.exit(2);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zb-compact-stream-'));
const db = path.join(work, 'catalog.db');
const wh = path.join(work, 'wh');
const env = { ...process.env, ZAMBONI_ROOT: path.join(work, 'root') };
delete env.ZAMBONI_URI; delete env.ZAMBONI_WAREHOUSE; delete env.ZAMBONI_ENGINE;
let failed = 0;

function fail(msg) { console.log(`FAIL ${msg}`); failed++; }
function ok(msg) { console.log(`ok   ${msg}`); }

function counts(lines) {
  const m = new Map();
  for (const l of lines) m.set(l, (m.get(l) || 0) + 1);
  return m;
}

function generate(name, args) {
  const t0 = Date.now();
  const expect = path.join(work, `${name}.ids`);
  const out = execFileSync(gen, ['--sqlite', db, '--table', `ns.${name}`,
    '--location', wh, '--expect', expect, ...args], { encoding: 'utf8', env });
  const ids = fs.readFileSync(expect, 'utf8').split('\n').filter((l) => l).sort();
  const m = /expected_rows (\d+) appended_rows (\d+) data_files (\d+) delete_files (\d+) commits (\d+)/.exec(out);
  if (!m) throw new Error(`zb-stream-gen gave no summary: ${out}`);
  const [, expected, appended, dataFiles, deleteFiles, commits] = m.map(Number);
  return { dir: path.join(wh, 'ns', name), ids, expected, appended, dataFiles,
    deleteFiles, commits, ms: Date.now() - t0 };
}

async function liveEntries(dir) {
  const { meta, resolve } = loadTable(dir);
  const snap = snapshotOf(meta, null);
  const entries = await snapshotEntries(meta, snap, resolve);
  for (const e of entries) e.bytes = fs.statSync(resolve(e.path)).size;
  return { meta, snap, resolve, entries };
}

function compact(name, target, extra) {
  const t0 = Date.now();
  const out = execFileSync(zamboni, ['compact', `ns.${name}`, '--uri', `sqlite:${db}`,
    '--warehouse', 'zamboni', '--local-warehouse', wh,
    '--target-file-size-bytes', String(target), ...extra],
  { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  return { out, ms: Date.now() - t0 };
}

// Compares two canonical values (ints and longs come as decimal text) in
// a key's order: nulls first or last whatever the direction.
function cmpVal(a, b, key) {
  const an = a === null || a === undefined, bn = b === null || b === undefined;
  if (an || bn) return an && bn ? 0 : (an ? (key.nullsFirst ? -1 : 1) : (key.nullsFirst ? 1 : -1));
  let c;
  if (key.type === 'int' || key.type === 'long') {
    const x = BigInt(a), y = BigInt(b);
    c = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === 'string') {
    c = Buffer.compare(Buffer.from(a), Buffer.from(b));
  } else {
    c = a < b ? -1 : a > b ? 1 : 0;
  }
  return key.desc ? -c : c;
}

// Field ids of the sort keys by name, from the current schema.
function sortKeys(meta, keys) {
  const schema = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id']);
  return keys.map((k) => {
    const f = schema.fields.find((x) => x.name === k.name);
    return { ...k, id: f.id, type: f.type };
  });
}

async function checkSorted(resolve, files, keys) {
  let bad = 0, rows = 0;
  for (const f of files) {
    const pf = await readParquet(resolve(f.path), null);
    const idx = keys.map((k) => pf.tree.children.findIndex((c) => c.fieldId === k.id));
    const val = (r, i) => (idx[i] >= 0 ? r[idx[i]] : null);
    rows += pf.rows.length;
    for (let r = 1; r < pf.rows.length; r++) {
      let c = 0;
      for (let i = 0; i < keys.length && c === 0; i++) {
        c = cmpVal(val(pf.rows[r - 1], i), val(pf.rows[r], i), keys[i]);
      }
      if (c > 0) {
        fail(`${f.path}: row ${r} is before row ${r - 1} in the sort order`);
        bad++;
        break;
      }
    }
  }
  return { bad, rows };
}

async function runCase(name, genArgs, target, extraCompact, sortKeysSpec) {
  console.log(`-- ${name}`);
  const g = generate(name, genArgs);
  const before = await referenceScan(g.dir);
  const b = await liveEntries(g.dir);
  const dataBefore = b.entries.filter((e) => e.content === 0);
  const delBefore = b.entries.filter((e) => e.content !== 0);
  console.log(`   generated: ${g.commits} commits (${g.dataFiles} data files appended, ` +
    `${g.deleteFiles} delete files) in ${g.ms} ms; ${g.appended} rows appended`);
  console.log(`   before: ${before.rows.length} live rows, ${dataBefore.length} data files, ` +
    `${delBefore.length} delete files; reader removed ${before.stats.byPos} by position, ` +
    `${before.stats.byEq} by equality`);
  // How the position deletes spread: data files named, and by 2+ files.
  const named = new Map();
  for (const d of delBefore.filter((e) => e.content === 1)) {
    const pf = await readParquet(b.resolve(d.path), null);
    const pi = pf.tree.children.findIndex((x) => x.fieldId === 2147483546);
    for (const p of new Set(pf.rows.map((r) => r[pi]))) named.set(p, (named.get(p) || 0) + 1);
  }
  const bySpec = (es) => [...es.reduce((m, e) => m.set(e.specId, (m.get(e.specId) || 0) + 1), new Map())]
    .sort().map(([k, v]) => `spec ${k}: ${v}`).join(', ');
  console.log(`   position deletes name ${named.size} data files, ` +
    `${[...named.values()].filter((v) => v > 1).length} of them in 2+ delete files; ` +
    `data files by spec: ${bySpec(dataBefore)}`);
  const seen = before.rows.map((l) => String(JSON.parse(l.replace(/"id":(\d+)/, '"id":"$1"')).id)).sort();
  const firstDiff = seen.findIndex((v, i) => v !== g.ids[i]);
  if (before.rows.length !== g.expected || seen.length !== g.ids.length || firstDiff >= 0)
    fail(`${name}: reference reader sees ${before.rows.length} rows, the generator expects ${g.expected}` +
      (firstDiff >= 0 ? ` (first id differing: ${seen[firstDiff]} vs ${g.ids[firstDiff]})` : ''));
  else ok(`${name}: reference reader sees exactly the ids the generator's own delete account leaves (${g.expected} rows)`);
  if (before.stats.byPos === 0 || before.stats.byEq === 0)
    fail(`${name}: the deletes removed nothing (pos ${before.stats.byPos}, eq ${before.stats.byEq})`);

  let c;
  try {
    c = compact(name, target, extraCompact);
  } catch (e) {
    fail(`${name}: zamboni compact exited ${e.status}: ${e.stderr || ''}${e.stdout || ''}`);
    return;
  }
  const after = await referenceScan(g.dir);
  const a = await liveEntries(g.dir);
  const dataAfter = a.entries.filter((e) => e.content === 0);
  const delAfter = a.entries.filter((e) => e.content !== 0);
  console.log(`   compact (target ${target} bytes${extraCompact.length ? ' ' + extraCompact.join(' ') : ''}): ${c.ms} ms`);
  console.log(`   after: ${after.rows.length} live rows, ${dataAfter.length} data files, ` +
    `${delAfter.length} delete files`);

  console.log(`   data files by spec after: ${bySpec(dataAfter)}`);
  const op = a.snap?.summary?.['zamboni.operation'];
  if (op !== 'compaction' || a.snap.summary.operation !== 'replace')
    fail(`${name}: current snapshot is ${a.snap?.summary?.operation}/${op}, not a compaction replace`);

  const ca = counts(before.rows), cb = counts(after.rows);
  let diff = before.rows.length !== after.rows.length;
  for (const [k, v] of ca) if (cb.get(k) !== v) { diff = true; break; }
  if (diff) {
    fail(`${name}: ${before.rows.length} rows before compaction, ${after.rows.length} after`);
    for (const l of before.rows.filter((x) => !cb.has(x)).slice(0, 3)) console.log(`  only before: ${l}`);
    for (const l of after.rows.filter((x) => !ca.has(x)).slice(0, 3)) console.log(`  only after:  ${l}`);
  } else {
    ok(`${name}: same ${after.rows.length} rows (multiset) before and after`);
  }

  if (dataAfter.length >= dataBefore.length)
    fail(`${name}: data files did not fall (${dataBefore.length} -> ${dataAfter.length})`);

  // Files per partition against ceil(bytes / target) + 1.
  const parts = new Map();
  for (const e of dataAfter) {
    const k = `spec ${e.specId} ${e.partition}`;
    const p = parts.get(k) || { n: 0, bytes: 0 };
    p.n++; p.bytes += e.bytes;
    parts.set(k, p);
  }
  let over = 0, worst = '';
  for (const [k, p] of [...parts].sort()) {
    const bound = Math.ceil(p.bytes / target) + 1;
    if (p.n > bound) {
      fail(`${name}: partition ${k}: ${p.n} data files, ${p.bytes} bytes, bound ${bound}`);
      over++;
    }
    if (!worst || p.n > parts.get(worst).n) worst = k;
  }
  if (!over)
    ok(`${name}: ${parts.size} partitions, each within ceil(bytes/target)+1 data files ` +
      `(most: ${parts.get(worst).n} files, ${parts.get(worst).bytes} bytes, in ${worst})`);

  // Delete files still live must not apply to the files compaction wrote.
  const oldPaths = new Set(dataBefore.map((e) => e.path));
  const outputs = dataAfter.filter((e) => !oldPaths.has(e.path));
  const outPaths = new Set(outputs.map((e) => e.path));
  const specFields = (id) => a.meta['partition-specs'].find((s) => s['spec-id'] === id).fields.length;
  let applying = 0;
  for (const d of delAfter) {
    if (d.content === 2) {
      const hit = outputs.find((o) => o.seq < d.seq &&
        ((o.specId === d.specId && o.partition === d.partition) || specFields(d.specId) === 0));
      if (hit) { applying++; fail(`${name}: equality delete ${d.path} (seq ${d.seq}) applies to output ${hit.path} (seq ${hit.seq})`); }
    } else {
      const pf = await readParquet(a.resolve(d.path), null);
      const pi = pf.tree.children.findIndex((x) => x.fieldId === 2147483546);
      const hit = pf.rows.find((r) => outPaths.has(r[pi]));
      if (hit) { applying++; fail(`${name}: position delete ${d.path} names output ${hit[pi]}`); }
    }
  }
  if (!applying)
    ok(`${name}: ${outputs.length} files written; none of the ${delAfter.length} live delete files applies to them`);

  // Every data file is now a compaction output whose data sequence number
  // is that of the snapshot compaction started from, at or above every
  // delete's: remove-dangling-deletes must drop every equality delete and
  // every position delete below the outputs' sequence number, and change
  // no row. A position delete of that very sequence number (the table's
  // last commit) is still in the outputs' scope by sequence number alone,
  // so it may stay (Iceberg Java's rule keeps it too): it names none of
  // them (checked above).
  if (outputs.length === dataAfter.length && !applying) {
    try {
      execFileSync(zamboni, ['remove-dangling-deletes', `ns.${name}`, '--uri', `sqlite:${db}`,
        '--warehouse', 'zamboni', '--local-warehouse', wh],
      { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
      const r = await referenceScan(g.dir);
      const left = (await liveEntries(g.dir)).entries.filter((e) => e.content !== 0);
      const cr = counts(r.rows);
      let same = r.rows.length === after.rows.length;
      for (const [k, v] of cb) if (cr.get(k) !== v) { same = false; break; }
      const minSeq = (d) => outputs.filter((o) => o.specId === d.specId && o.partition === d.partition)
        .reduce((m, o) => (m === null || o.seq < m ? o.seq : m), null);
      const wrong = left.filter((d) => d.content !== 1 || minSeq(d) === null || d.seq < minSeq(d));
      for (const d of wrong)
        fail(`${name}: remove-dangling-deletes kept ${d.content === 2 ? 'equality' : 'position'} delete ` +
          `${d.path} (seq ${d.seq}; outputs of its partition from seq ${minSeq(d)})`);
      if (!same)
        fail(`${name}: remove-dangling-deletes changed the rows: ${r.rows.length}, want ${after.rows.length}`);
      if (!wrong.length && same)
        ok(`${name}: remove-dangling-deletes dropped ${delAfter.length - left.length} of ${delAfter.length} ` +
          `delete files, rows unchanged (${left.length} kept: position deletes of the outputs' sequence number)`);
    } catch (e) {
      fail(`${name}: zamboni remove-dangling-deletes exited ${e.status}: ${e.stderr || ''}${e.stdout || ''}`);
    }
  }

  if (sortKeysSpec) {
    const keys = sortKeys(a.meta, sortKeysSpec);
    const s = await checkSorted(a.resolve, outputs, keys);
    if (!s.bad) ok(`${name}: ${outputs.length} output files (${s.rows} rows) each sorted by ${extraCompact[1]}`);
  }
}

async function main() {
  const t0 = Date.now();
  // Partitioned: identity(k1), 4 files a commit; from commit 201 the added
  // column and bucket[2](id), 8 files a commit.
  await runCase('part', ['--partitioned', '--commits', '400', '--rows', '6',
    '--pos-every', '25', '--pos-files', '14', '--eq-every', '9', '--seed', '7'],
  4096, []);
  // Unpartitioned: 8 files a commit.
  await runCase('flat', ['--commits', '300', '--files', '8', '--rows', '6',
    '--pos-every', '20', '--pos-files', '16', '--eq-every', '11', '--seed', '11'],
  16384, []);
  // Sorted compaction of a smaller partitioned table.
  await runCase('sorted', ['--partitioned', '--commits', '120', '--rows', '8',
    '--pos-every', '15', '--pos-files', '10', '--eq-every', '7', '--seed', '5'],
  4096, ['--sort-by', 'region nulls first, k2 desc, id'],
  [{ name: 'region', nullsFirst: true, desc: false },
    { name: 'k2', nullsFirst: false, desc: true },
    { name: 'id', nullsFirst: false, desc: false }]);
  console.log(`\n${failed ? 'FAIL' : 'ok'}: ${failed} failure(s), ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (!failed) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`tables kept in ${work}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
