// Tables that Zamboni's table-writing API builds (zb-table-gen: several
// processes appending at once through the SQLite catalog, then a position
// delete and an equality delete) read back by an independent reader,
// icebird 0.3.1 (package.json, exact), or for format version 3, whose
// position deletes are deletion vectors that icebird cannot read, the
// test's own reader (scan_reference.mjs: avsc, hyparquet, its own Roaring
// decoder): every append of every process is in the history, and the live
// rows are exactly the rows written minus the two deleted ones.
// Usage: node table_write.mjs ZB_TABLE_GEN PROCS APPENDS ROWS FORMAT_VERSION
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

let icebird;
try { icebird = await import('icebird'); } catch {
  console.log('icebird is not installed: run npm ci'); process.exit(1);
}
globalThis.fetch = async (url) => {
  const p = decodeURIComponent(String(url).replace(/^file:\/\//, ''));
  if (!fs.existsSync(p)) return new Response(null, { status: 404 });
  return new Response(fs.readFileSync(p));
};

const [gen, P, K, R, V] = process.argv.slice(2);
const procs = Number(P), appends = Number(K), rows = Number(R);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zb-table-write-'));
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed++;
};
try {
  const metadataLocation = execFileSync(gen, [
    '--sqlite', path.join(dir, 'catalog.db'), '--table', 'ingest.events',
    '--location', path.join(dir, 'wh'), '--procs', P, '--appends', K,
    '--rows', R, '--format-version', V, '--delete-pos', '--delete-eq',
  ], { encoding: 'utf8' }).trim();
  const tableUrl = path.dirname(path.dirname(metadataLocation));
  const metadataFileName = path.basename(metadataLocation);
  const metadata = JSON.parse(fs.readFileSync(metadataLocation, 'utf8'));

  // History: one append snapshot per (process, append), then the two
  // delete-file commits, which Iceberg records as "delete" (RowDelta).
  const ops = metadata.snapshots.map((s) => s.summary.operation);
  const nAppend = ops.filter((o) => o === 'append').length;
  const nDelete = ops.filter((o) => o === 'delete').length;
  check(nAppend === procs * appends && nDelete === 2 && ops.length === nAppend + 2,
    `history: ${nAppend} append and ${nDelete} delete snapshots (expected ${procs * appends} and 2)`);
  const added = metadata.snapshots
    .filter((s) => Number(s.summary['added-data-files'] ?? 0) === 1)
    .map((s) => Number(s.summary['added-records']));
  check(added.length === procs * appends && added.every((n) => n === rows),
    `every data append added ${rows} records (${added.length} of them)`);

  let got;
  if (Number(V) >= 3) {
    const { referenceScan } = await import('./scan_reference.mjs');
    const r = await referenceScan(tableUrl, { metadataFile: metadataLocation });
    got = r.rows.map((l) => JSON.parse(l));
    const dvs = metadata.snapshots.filter((x) => x.summary['added-dvs'] !== undefined ||
      Number(x.summary['added-delete-files'] ?? 0) > 0);
    check(dvs.length === 2, `two delete commits (${dvs.length})`);
  } else {
    got = await icebird.icebergRead({ tableUrl, metadataFileName });
  }
  const seen = new Map();
  for (const r of got) {
    const id = BigInt(r.id);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  let missing = [], wrong = 0, dup = 0;
  for (let p = 0; p < procs; p++)
    for (let a = 0; a < appends; a++)
      for (let i = 0; i < rows; i++) {
        const id = BigInt(p) * 1000000000n + BigInt(a * rows + i);
        const n = seen.get(id) ?? 0;
        if (n === 0) missing.push({ id, i });
        if (n > 1) dup++;
      }
  for (const r of got) {
    const id = BigInt(r.id);
    const p = Number(id / 1000000000n), k = Number(id % 1000000000n);
    const a = Math.floor(k / rows), i = k % rows;
    const payload = i % 7 === 6 ? null : `p${p}-a${a}-r${i}`;
    if (Number(r.proc) !== p || (r.payload ?? null) !== payload) wrong++;
  }
  check(got.length === procs * appends * rows - 2,
    `${Number(V) >= 3 ? 'the reference reader' : 'icebird'} reads ${got.length} live rows (expected ${procs * appends * rows - 2})`);
  check(dup === 0 && wrong === 0, `no duplicated rows (${dup}), no wrong values (${wrong})`);
  check(missing.length === 2 && missing.some((m) => m.id === 1n) &&
        missing.some((m) => m.i === 0),
    `missing exactly the equality-deleted id 1 and one row 0 deleted by position: ${missing.map((m) => m.id).join(', ')}`);
} catch (e) {
  console.log(`FAIL ${e.message}`);
  failed++;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`table_write: ${failed ? 'FAILED' : 'passed'}`);
process.exitCode = failed ? 1 : 0;
