// remove-dangling-deletes and rewrite-manifests on copies of fixture
// tables, checked by the independent reader (scan_reference.mjs: avsc,
// hyparquet, its own planning): the live rows of the table are the same
// multiset before and after, and the fixtures known to hold a dangling
// delete file lose exactly it. The operations' own tests compare rows with
// our row stream; this is the check that shares no code with src/.
// Usage: node tidy_rows.mjs ZAMBONI FIXTURES_DIR
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { referenceScan } from './scan_reference.mjs';

const [zamboni, fixtures] = process.argv.slice(2);
// Fixture -> dangling delete files the spec's rules leave in it (the
// fixtures README and the planner's facts: one position delete in the
// first two; equality deletes at their data's own sequence number in the
// Impala ones).
const tables = {
  'impala-spark-compaction-dangling': 1,
  'icebird-spark-bunnies': 1,
  'impala-v2-eq-delete': 1,
  'impala-v2-pos-partitioned': 0,
  'impala-v2-pos-some-files': 0,
  'duckdb-eq-deletes-partitioned': 0,
  'impala-v3-deletion-vectors': 0,
  'impala-v1-partitioned': 0,
};
let failed = 0;
const sorted = (rows) => [...rows].sort();
for (const [name, dangling] of Object.entries(tables)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zb-tidy-rows-'));
  const t = path.join(dir, name);
  try {
    fs.cpSync(path.join(fixtures, name), t, { recursive: true });
    const before = sorted((await referenceScan(t)).rows);
    const dd = execFileSync(zamboni, ['remove-dangling-deletes', t], { encoding: 'utf8' });
    const rm = execFileSync(zamboni, ['rewrite-manifests', t], { encoding: 'utf8' });
    const after = sorted((await referenceScan(t)).rows);
    const m = /removed (\d+) delete file/.exec(dd);
    const removed = m ? Number(m[1]) : 0;
    const same = before.length === after.length && before.every((r, i) => r === after[i]);
    const ok = same && removed === dangling;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${before.length} rows before, ${after.length} after` +
      `${same ? ' (same)' : ' (DIFFERENT)'}; dangling removed ${removed} (expected ${dangling}); ` +
      `rewrite-manifests: ${rm.trim().split('\n')[0].replace(`${t}: `, '')}`);
    if (!ok) failed++;
  } catch (e) {
    console.log(`FAIL ${name}: ${e.message.split('\n')[0]}`);
    failed++;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`tidy_rows: ${failed ? 'FAILED' : 'passed'}`);
process.exitCode = failed ? 1 : 0;
