// Reads the tables test_ops_tidy rewrote (ZB_TIDY_OUT=<dir>: rw-v2, rw-v3,
// each made of 12 appends over 4 identity partitions, then one
// rewrite-manifests commit) with avsc, an Avro reader independent of
// ours, and checks the rewrite against format/spec.md:
//   - field ids of the manifest list, manifest_entry and data_file
//     records, and the partition field (1000);
//   - every entry of the new manifests is EXISTING (status 0) with its
//     snapshot id, sequence number and file sequence number written (not
//     null), and (v3) a first_row_id on every data file;
//   - each manifest-list entry: added_snapshot_id and sequence_number of
//     the new snapshot, counts (0 added, N existing, 0 deleted) and
//     existing_rows_count equal to its manifest's entries;
//   - each entry's partition value matches the part=N folder of its path,
//     and a partition's entries are not spread over more manifests than
//     needed (one manifest here);
//   - the live entries (path, snapshot id, data and file sequence
//     numbers, first row id, record count) equal those of the parent
//     snapshot, read with the spec's inheritance rules;
//   - total-records equals the sum of the record counts.
// Usage: node tidy_manifests.mjs <dir>
import fs from 'node:fs';
import path from 'node:path';
import { readAvroRecords } from './avro/avsc_read.mjs';

let failures = 0;
const fail = (msg) => { console.error('FAIL ' + msg); failures++; };
const eq = (a, b, what) => {
  if (String(a) !== String(b)) fail(`${what}: ${a} != ${b}`);
};

const LIST_IDS = {
  manifest_path: 500, manifest_length: 501, partition_spec_id: 502,
  content: 517, sequence_number: 515, min_sequence_number: 516,
  added_snapshot_id: 503, added_files_count: 504, existing_files_count: 505,
  deleted_files_count: 506, added_rows_count: 512, existing_rows_count: 513,
  deleted_rows_count: 514, partitions: 507, key_metadata: 519,
  first_row_id: 520,
};
const ENTRY_IDS = { status: 0, snapshot_id: 1, sequence_number: 3,
                    file_sequence_number: 4, data_file: 2 };
const FILE_IDS = {
  content: 134, file_path: 100, file_format: 101, partition: 102,
  record_count: 103, file_size_in_bytes: 104, column_sizes: 108,
  value_counts: 109, null_value_counts: 110, nan_value_counts: 137,
  lower_bounds: 125, upper_bounds: 128, key_metadata: 131,
  split_offsets: 132, equality_ids: 135, sort_order_id: 140,
  first_row_id: 142, referenced_data_file: 143, content_offset: 144,
  content_size_in_bytes: 145,
};

const recordOf = (t) => {
  if (Array.isArray(t)) return t.map(recordOf).find((x) => x);
  if (t && typeof t === 'object' && t.type === 'record') return t;
  return null;
};

function checkIds(rec, ids, where) {
  for (const f of rec.fields) {
    if (ids[f.name] === undefined) fail(`${where}: unknown field ${f.name}`);
    else eq(f['field-id'], ids[f.name], `${where}.${f.name} field-id`);
  }
}

// The live entries of a snapshot, inheritance applied as the spec says.
async function liveEntries(snap, remap, v) {
  const list = await readAvroRecords(remap(snap['manifest-list']));
  const out = [];
  for (const mf of list.records) {
    const m = await readAvroRecords(remap(mf.manifest_path));
    let next = mf.first_row_id ?? null;
    for (const e of m.records) {
      const d = e.data_file;
      let first = d.first_row_id ?? null;
      if (v >= 3 && (d.content ?? 0) === 0 && first == null && next != null) {
        first = next;
        next += d.record_count;
      }
      if (e.status === 2) continue;
      const seq = e.sequence_number ?? (e.status === 1 ? mf.sequence_number
                                                       : 'NULL');
      const fseq = e.file_sequence_number ??
        (e.status === 1 ? mf.sequence_number : 'NULL');
      out.push([d.file_path, e.snapshot_id ?? mf.added_snapshot_id, seq, fseq,
                first, d.record_count].join(' '));
    }
  }
  return { list, entries: out.sort() };
}

async function checkTable(dir) {
  const hint = fs.readFileSync(path.join(dir, 'metadata/version-hint.text'),
                               'utf8').trim();
  const meta = JSON.parse(fs.readFileSync(
    path.join(dir, `metadata/v${hint}.metadata.json`), 'utf8')
    .replace(/([:\[,]\s*)(-?\d{16,})/g, '$1"$2"'));
  const before = failures;
  const v = meta['format-version'];
  // The table was written in a temporary folder (and a folder table may
  // record an empty location): paths are remapped at its folder name.
  const base = '/' + path.basename(dir) + '/';
  const remap = (p) => {
    const i = p.lastIndexOf(base);
    return i < 0 ? p : path.join(dir, p.slice(i + base.length));
  };
  const cur = String(meta['current-snapshot-id']);
  const snap = meta.snapshots.find((s) => String(s['snapshot-id']) === cur);
  const parent = meta.snapshots.find(
    (s) => String(s['snapshot-id']) === String(snap['parent-snapshot-id']));
  eq(snap.summary.operation, 'replace', `${dir} operation`);
  eq(snap.summary['manifests-replaced'], 12, `${dir} manifests-replaced`);
  const list = await readAvroRecords(remap(snap['manifest-list']));
  checkIds(recordOf(list.schema), LIST_IDS, 'manifest_file');
  eq(list.records.length, 1, `${dir} manifests`);
  let total = 0n, entries = 0;
  const partsSeen = new Map();
  for (const mf of list.records) {
    eq(mf.added_snapshot_id, cur, `${mf.manifest_path} added_snapshot_id`);
    eq(mf.sequence_number, snap['sequence-number'], 'manifest sequence_number');
    const m = await readAvroRecords(remap(mf.manifest_path));
    const entry = recordOf(m.schema);
    checkIds(entry, ENTRY_IDS, 'manifest_entry');
    const df = recordOf(entry.fields.find((f) => f.name === 'data_file').type);
    checkIds(df, FILE_IDS, 'data_file');
    const part = recordOf(df.fields.find((f) => f.name === 'partition').type);
    eq(part.fields.map((f) => f['field-id']).join(','), '1000',
       'partition field ids');
    let rows = 0n;
    for (const e of m.records) {
      const d = e.data_file;
      eq(e.status, 0, `${d.file_path} status`);
      if (e.snapshot_id == null) fail(`${d.file_path}: snapshot_id null`);
      if (e.sequence_number == null) fail(`${d.file_path}: sequence_number null`);
      if (e.file_sequence_number == null)
        fail(`${d.file_path}: file_sequence_number null`);
      if (v >= 3 && d.first_row_id == null)
        fail(`${d.file_path}: first_row_id null`);
      const folder = /part=(\d+)/.exec(d.file_path);
      if (!folder) fail(`${d.file_path}: no part= folder`);
      else eq(d.partition.part, folder[1], `${d.file_path} partition`);
      const k = String(d.partition.part);
      if (!partsSeen.has(k)) partsSeen.set(k, new Set());
      partsSeen.get(k).add(mf.manifest_path);
      rows += d.record_count;
      entries++;
    }
    eq(mf.added_files_count, 0, 'added_files_count');
    eq(mf.existing_files_count, m.records.length, 'existing_files_count');
    eq(mf.deleted_files_count, 0, 'deleted_files_count');
    eq(mf.existing_rows_count, rows, 'existing_rows_count');
    total += rows;
  }
  eq(partsSeen.size, 4, `${dir} partitions`);
  for (const [k, s] of partsSeen) eq(s.size, 1, `partition ${k} manifests`);
  eq(entries, 12, `${dir} entries`);
  eq(snap.summary['total-records'], total, `${dir} total-records`);
  const now = await liveEntries(snap, remap, v);
  const was = await liveEntries(parent, remap, v);
  eq(now.entries.join('\n'), was.entries.join('\n'),
     `${dir} live entries vs the parent's`);
  if (failures === before)
    console.log(`ok ${dir}: v${v}, ${entries} entries in ` +
                `${list.records.length} manifest(s), same as the parent`);
}

const root = process.argv[2];
if (!root) {
  console.error('usage: node tidy_manifests.mjs <dir>');
  process.exit(2);
}
const dirs = fs.readdirSync(root).filter((d) =>
  fs.existsSync(path.join(root, d, 'metadata/version-hint.text')));
if (dirs.length < 2) fail(`${root}: expected the rw-v2 and rw-v3 tables`);
for (const d of dirs.sort()) await checkTable(path.join(root, d));
if (failures > 0) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
