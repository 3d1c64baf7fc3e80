// Partition evolution (src/ops/compact/compact_evolve.c) checked by the
// independent reader (scan_reference.mjs): the table test_ops_compact_evolve
// leaves in ZB_EVOLVE_KEEP (a day(ts) table whose old days were compacted
// into a month(ts) spec by the maintenance run, then its regular pass).
//   - the live rows of the current snapshot equal those of the last
//     append (before any replace), as a multiset;
//   - the default spec is still day(ts); a month(ts) spec exists;
//   - every row of every live data file lies in the file's partition:
//     month files hold rows of that month, day files rows of that day
//     (the file read on its own with hyparquet);
//   - the old days (before 2026-05-16) are all in the month spec, the
//     recent ones in the day spec.
//
// Usage: node compact_evolve_check.mjs TABLE_DIR
import path from 'node:path';
import { loadTable, snapshotOf, snapshotEntries, referenceScan, readParquet }
  from './scan_reference.mjs';

const DAY_US = 86400000000n;
const RECENT_DAY = 20589;        // 2026-05-16: the first day not evolved

function fail(msg) {
  console.error(`compact_evolve_check: ${msg}`);
  process.exit(1);
}

function micros(v) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(v);
  // canonical.mjs: a timestamp is a string of nanoseconds since the epoch
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return floorDiv(BigInt(v), 1000n);
  if (typeof v === 'string') {
    // "2026-03-01T12:34:56.123456"
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?/.exec(v);
    if (!m) fail(`unexpected timestamp text ${v}`);
    const sec = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    const frac = ((m[7] || '') + '000000').slice(0, 6);
    return BigInt(sec) * 1000n + BigInt(frac);
  }
  if (v instanceof Date) return BigInt(v.getTime()) * 1000n;
  fail(`unexpected timestamp value ${typeof v}`);
  return 0n;
}

function floorDiv(a, b) {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function dayOf(us) { return Number(floorDiv(us, DAY_US)); }

function monthOf(us) {
  const d = new Date(Number(floorDiv(us, 1000n)));
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
}

async function main(argv) {
  const dir = argv[0];
  if (!dir) {
    console.error('usage: node compact_evolve_check.mjs TABLE_DIR');
    process.exit(2);
  }
  const { meta, resolve } = loadTable(dir);
  const specs = meta['partition-specs'] || [];
  const fine = specs.find((s) => s['spec-id'] === meta['default-spec-id']);
  if (!fine || fine.fields.length !== 1 || fine.fields[0].transform !== 'day')
    fail(`default spec ${meta['default-spec-id']} is not day(ts)`);
  const coarse = specs.find((s) => s.fields.length === 1 &&
    s.fields[0].transform === 'month' &&
    s.fields[0]['source-id'] === fine.fields[0]['source-id']);
  if (!coarse) fail('no month(ts) spec in the metadata');

  // rows: current vs the last append
  const snaps = meta.snapshots || [];
  const appends = snaps.filter((s) => (s.summary || {}).operation === 'append');
  const replaces = snaps.filter((s) => (s.summary || {}).operation === 'replace');
  if (!appends.length || !replaces.length) fail('expected appends then replaces');
  const before = await referenceScan(dir, { snapshotId: String(appends[appends.length - 1]['snapshot-id']) });
  const after = await referenceScan(dir, {});
  const a = [...before.rows].sort(), b = [...after.rows].sort();
  if (a.length !== b.length) fail(`rows ${a.length} before, ${b.length} after`);
  for (let i = 0; i < a.length; i++)
    if (a[i] !== b[i]) fail(`row differs: ${a[i]} vs ${b[i]}`);

  // each file's rows in its partition
  const cur = snapshotOf(meta, meta['current-snapshot-id']);
  const entries = (await snapshotEntries(meta, cur, resolve)).filter((e) => e.content === 0);
  const tsId = fine.fields[0]['source-id'];
  let inCoarse = 0, inFine = 0, rows = 0;
  for (const e of entries) {
    const spec = specs.find((s) => s['spec-id'] === e.specId);
    const value = Number([...e.partById.values()][0]);
    const { tree, rows: fileRows } = await readParquet(resolve(e.path), null);
    const col = tree.children.findIndex((c) => c.element.field_id === tsId);
    if (col < 0) fail(`${path.basename(e.path)}: no ts column`);
    for (const r of fileRows) {
      const us = micros(r[col]);
      const got = spec.fields[0].transform === 'month' ? monthOf(us) : dayOf(us);
      if (got !== value)
        fail(`${path.basename(e.path)} (spec ${e.specId}, partition ${value}) holds a row of ${got}`);
      if (spec['spec-id'] === fine['spec-id'] && dayOf(us) < RECENT_DAY)
        fail(`${path.basename(e.path)}: an old day left in the day spec`);
      if (spec['spec-id'] === coarse['spec-id'] && dayOf(us) >= RECENT_DAY)
        fail(`${path.basename(e.path)}: a recent day moved to the month spec`);
      rows++;
    }
    if (e.specId === coarse['spec-id']) inCoarse++;
    else inFine++;
  }
  if (rows !== b.length) fail(`files hold ${rows} rows, the scan ${b.length}`);
  if (inCoarse === 0 || inFine === 0) fail(`files: ${inCoarse} month, ${inFine} day`);
  console.log(`compact_evolve_check: ${b.length} rows equal; ${inCoarse} file(s) in ` +
              `spec ${coarse['spec-id']} (month), ${inFine} in spec ${fine['spec-id']} (day)`);
}

main(process.argv.slice(2)).catch((e) => fail(e.stack || e.message));
