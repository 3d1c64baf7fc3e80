// The live rows of many tables read by the independent reader
// (tests/interop/scan_reference.mjs: avsc manifests, hyparquet data, the
// spec's delete rules; no code shared with src/), in one process. Reads
// lines "NAME METADATA_FILE TABLE_DIR" on stdin; prints for each table
//   NAME ROWS SHA256 REWRITES
// ROWS the live rows, SHA256 of their canonical JSON lines sorted,
// REWRITES the snapshots whose summary says a rewrite replaced data files
// (operation "replace" with deleted data files), i.e. the compaction
// commits, counted by snapshot id over every metadata file in the table's
// metadata folder: expire may have dropped them from the current one. Exit 1 when a table cannot be read
// (named on stderr).
// Usage: node fleet_rows.mjs < LIST
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
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
    const mdir = path.dirname(metadataFile);
    const ids = new Set();
    for (const f of fs.readdirSync(mdir).filter((n) => n.endsWith('.metadata.json'))) {
      const meta = parseMetadataText(fs.readFileSync(path.join(mdir, f), 'utf8'));
      for (const s of meta.snapshots ?? []) {
        const sum = s.summary ?? {};
        if (sum.operation === 'replace' && Number(sum['deleted-data-files'] ?? 0) > 0)
          ids.add(String(s['snapshot-id']));
      }
    }
    const rewrites = ids.size;
    process.stdout.write(`${name} ${rows.length} ${h.digest('hex')} ${rewrites}\n`);
  } catch (err) {
    console.error(`fleet_rows: ${name}: ${err.message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
