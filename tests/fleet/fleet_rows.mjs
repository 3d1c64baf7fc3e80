// The live rows of many tables read by the independent reader
// (tests/interop/scan_reference.mjs: avsc manifests, hyparquet data, the
// spec's delete rules; no code shared with src/), in one process. Reads
// lines "NAME METADATA_FILE TABLE_DIR" on stdin; prints for each table
//   NAME ROWS SHA256 REWRITES
// ROWS the live rows, SHA256 of their canonical JSON lines sorted,
// REWRITES the snapshots of the current metadata whose summary says a
// rewrite replaced data files (operation "replace" with deleted data
// files), i.e. the compaction commits. Exit 1 when a table cannot be read
// (named on stderr).
// Usage: node fleet_rows.mjs < LIST
import fs from 'node:fs';
import crypto from 'node:crypto';
import { referenceScan, parseMetadataText } from '../interop/scan_reference.mjs';

const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.trim());
let failed = 0;
for (const line of lines) {
  const [name, metadataFile, dir] = line.trim().split(/\s+/);
  try {
    const r = await referenceScan(dir, { metadataFile });
    const rows = [...r.rows].sort();
    const h = crypto.createHash('sha256');
    for (const l of rows) h.update(l + '\n');
    const meta = parseMetadataText(fs.readFileSync(metadataFile, 'utf8'));
    const rewrites = (meta.snapshots ?? []).filter((s) => {
      const sum = s.summary ?? {};
      return sum.operation === 'replace' && Number(sum['deleted-data-files'] ?? 0) > 0;
    }).length;
    process.stdout.write(`${name} ${rows.length} ${h.digest('hex')} ${rewrites}\n`);
  } catch (err) {
    console.error(`fleet_rows: ${name}: ${err.message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
