// The tables that test_ops_expire's generated_table cases expired or
// cleaned of orphans (kept in the folder given, with expected.json), read
// back by an independent reader, icebird (package.json, exact version):
// every snapshot left reads whole, with the live rows that Zamboni's row
// stream read from it before the operation.
// Usage: node expire_check.mjs DIR
import fs from 'node:fs';
import path from 'node:path';

let icebird;
try { icebird = await import('icebird'); } catch {
  console.log('icebird is not installed: run npm ci'); process.exit(1);
}
globalThis.fetch = async (url) => {
  const p = decodeURIComponent(String(url).replace(/^file:\/\//, ''));
  if (!fs.existsSync(p)) return new Response(null, { status: 404 });
  return new Response(fs.readFileSync(p));
};

const dir = process.argv[2];
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
const metadata = JSON.parse(fs.readFileSync(expected.metadata, 'utf8'));
const tableUrl = path.dirname(path.dirname(expected.metadata));
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed++;
};
check(metadata.snapshots.length === expected.rows.length,
  `${metadata.snapshots.length} snapshots retained (expected ${expected.rows.length})`);
for (let i = 0; i < metadata.snapshots.length; i++) {
  const s = metadata.snapshots[i];
  // Time travel: the same metadata with this snapshot as the current one.
  const md = { ...metadata, 'current-snapshot-id': s['snapshot-id'] };
  try {
    const rows = await icebird.icebergRead({ tableUrl, metadata: md });
    check(rows.length === expected.rows[i],
      `snapshot ${i} (${s.summary.operation}): icebird reads ${rows.length} live rows (expected ${expected.rows[i]})`);
  } catch (e) {
    check(false, `snapshot ${i}: ${e.message}`);
  }
}
console.log(`expire_check: ${failed ? 'FAILED' : 'passed'}`);
process.exitCode = failed ? 1 : 0;
