// Issue 21: deletes carried while binpack moves rows into another partition
// spec, checked by the independent reader (scan_reference.mjs). Each table
// test_ops_compact's carried_into_new_spec cases leave (ZB_CARRY_SPEC_KEEP)
// was compacted from identity(part) into bucket[2](id) while a concurrent
// commit deleted 10 rows of one input. Its last three snapshots are the
// last append, that delete, and the compaction's replace. Checked:
//   - the delete took effect on its own: its snapshot has 10 rows fewer
//     than the append's;
//   - the replace kept exactly the delete's rows, as a multiset: the
//     carried position delete files (v2, one per bucket) or deletion
//     vectors (v3) hide the same rows on the new files;
//   - the replace's live delete files are of spec 1 and name only data
//     files the replace added.
//
// Usage: node compact_carry_spec_check.mjs TABLE_DIR...
import { loadTable, snapshotOf, snapshotEntries, referenceScan }
  from './scan_reference.mjs';

function fail(dir, msg) {
  console.error(`compact_carry_spec_check: ${dir}: ${msg}`);
  process.exit(1);
}

async function check(dir) {
  const { meta, resolve } = loadTable(dir);
  const cur = snapshotOf(meta, null);
  if (!cur || cur.summary?.operation !== 'replace')
    fail(dir, `the current snapshot is not the compaction's replace`);
  const del = snapshotOf(meta, String(cur['parent-snapshot-id']));
  const app = del && snapshotOf(meta, String(del['parent-snapshot-id']));
  if (!del || !app) fail(dir, 'the delete or the append before it is missing');
  const rows = async (s) => (await referenceScan(dir, {
    snapshotId: String(s['snapshot-id']) })).rows.sort();
  const a = await rows(app), d = await rows(del), c = await rows(cur);
  if (a.length - d.length !== 10)
    fail(dir, `the delete hid ${a.length - d.length} rows, want 10`);
  if (c.length !== d.length)
    fail(dir, `${c.length} rows after the compaction, ${d.length} before`);
  for (let i = 0; i < c.length; i++)
    if (c[i] !== d[i]) fail(dir, `row ${c[i]} differs from ${d[i]}`);
  const now = await snapshotEntries(meta, cur, resolve);
  const before = new Set((await snapshotEntries(meta, del, resolve)).map((e) => e.path));
  const fresh = now.filter((e) => !before.has(e.path));
  const added = new Set(fresh.filter((e) => e.content === 0).map((e) => e.path));
  const carried = fresh.filter((e) => e.content === 1);
  if (carried.length === 0) fail(dir, 'the replace added no delete file');
  const parts = new Set();
  for (const e of carried) {
    if (e.specId !== 1) fail(dir, `${e.path} is of spec ${e.specId}, want 1`);
    if (e.referenced && !added.has(e.referenced))
      fail(dir, `${e.path} names ${e.referenced}, not a new file`);
    parts.add(e.partition);
  }
  if (parts.size < 2)
    fail(dir, `the carried deletes are in ${parts.size} partition(s), want both buckets`);
  if (!carried[0].referenced && carried.length !== parts.size)
    fail(dir, `${carried.length} position delete files for ${parts.size} partitions, want one each`);
  console.log(`PASS ${dir}: ${c.length} rows as after the delete alone; ` +
              `${carried.length} carried delete file(s) of spec 1`);
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: node compact_carry_spec_check.mjs TABLE_DIR...');
  process.exit(2);
}
for (const d of dirs) await check(d);
