// Compaction against the independent reader: for every fixture table that
// test_ops_compact compacted into OUT_DIR (a copy, with a small target and
// rewrite_all), the live rows of the original (FIXTURES_DIR/NAME) and of
// the compacted copy, both read by scan_reference.mjs (avsc manifests,
// hyparquet data, deletes applied by its own code, sharing nothing with
// src/), must be the same multiset of canonical JSON lines. The copy must
// also have a newer metadata file whose current snapshot is a compaction
// ("replace", zamboni.operation=compaction) whenever compaction committed.
// For v3 tables each line also carries the row's _row_id and
// _last_updated_sequence_number (computed by scan_reference.mjs from the
// manifests' first_row_id inheritance and the files' columns): compaction
// must keep both.
//
// Usage: node compact_compare.mjs OUT_DIR FIXTURES_DIR
import fs from 'node:fs';
import path from 'node:path';
import { referenceScan, loadTable, snapshotOf } from './scan_reference.mjs';

function tableDir(root) {
  if (fs.existsSync(path.join(root, 'metadata'))) return root;
  for (const sub of fs.readdirSync(root).sort())
    if (fs.existsSync(path.join(root, sub, 'metadata'))) return path.join(root, sub);
  return null;
}

function remapsFor(name, root) {
  if (name === 'impala-multi-location')
    return [['/test-warehouse/iceberg_test/hadoop_catalog/ice', root]];
  return [];
}

function counts(lines) {
  const m = new Map();
  for (const l of lines) m.set(l, (m.get(l) || 0) + 1);
  return m;
}

async function main([outDir, fixtures]) {
  if (!outDir || !fixtures) {
    console.error('usage: node compact_compare.mjs OUT_DIR FIXTURES_DIR');
    process.exit(2);
  }
  let failed = 0, compared = 0, compacted = 0;
  for (const name of fs.readdirSync(outDir).sort()) {
    const origRoot = path.join(fixtures, name);
    const copyRoot = path.join(outDir, name);
    if (!fs.existsSync(origRoot)) continue;
    const a = tableDir(origRoot), b = tableDir(copyRoot);
    if (!a || !b) { console.log(`FAIL ${name}: no table folder`); failed++; continue; }
    try {
      const v3 = loadTable(a, { remaps: remapsFor(name, origRoot) }).meta['format-version'] >= 3;
      const ra = await referenceScan(a, { remaps: remapsFor(name, origRoot), lineage: v3 });
      const rb = await referenceScan(b, { remaps: remapsFor(name, copyRoot), lineage: v3 });
      const ca = counts(ra.rows), cb = counts(rb.rows);
      let diff = ra.rows.length !== rb.rows.length;
      for (const [k, v] of ca) if (cb.get(k) !== v) { diff = true; break; }
      const { meta } = loadTable(b, { remaps: remapsFor(name, copyRoot) });
      const snap = snapshotOf(meta, null);
      const op = snap?.summary?.['zamboni.operation'];
      if (op === 'compaction') {
        compacted++;
        if (snap.summary.operation !== 'replace') {
          console.log(`FAIL ${name}: compaction snapshot operation ${snap.summary.operation}`);
          failed++;
        }
      }
      compared++;
      if (diff) {
        failed++;
        const onlyA = ra.rows.filter((l) => !cb.has(l)).slice(0, 3);
        const onlyB = rb.rows.filter((l) => !ca.has(l)).slice(0, 3);
        console.log(`FAIL ${name}: ${ra.rows.length} rows before, ${rb.rows.length} after`);
        for (const l of onlyA) console.log(`  only before: ${l}`);
        for (const l of onlyB) console.log(`  only after:  ${l}`);
      } else {
        console.log(`ok   ${name}: ${rb.rows.length} rows${op ? ' (compacted)' : ''}${v3 ? ', row lineage kept' : ''}`);
      }
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}: ${e.message}`);
    }
  }
  console.log(`\n${compared} tables compared, ${compacted} compacted, ${failed} failed`);
  if (compared < 30 || compacted < 20) {
    console.log('too few tables compared or compacted');
    process.exit(1);
  }
  process.exit(failed ? 1 : 0);
}

main(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });
