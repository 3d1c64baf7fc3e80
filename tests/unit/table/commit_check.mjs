// Reads the tables that test_table_commit wrote (ZB_COMMIT_OUT=<dir>,
// one folder per format version) with avsc, an Avro reader independent
// of ours, and checks them against the spec and against what our
// snapshot iterator saw (expected.txt, one line per live entry of each
// snapshot):
//   - the field ids of manifest lists, manifest entries and data files
//     (format/spec.md "Manifests", "Manifest Lists");
//   - each manifest-list entry's counts equal the entries of its manifest;
//   - the live entries of every snapshot, with snapshot ids, data and
//     file sequence numbers and (v3) first row ids inherited as the spec
//     says, computed here, equal expected.txt;
//   - the summary totals (total-records, total-data-files,
//     total-delete-files, total-position-deletes, total-equality-deletes)
//     equal the sums over the live files.
// Usage: node commit_check.mjs <dir>
import fs from 'node:fs';
import path from 'node:path';
import { readAvroRecords } from '../../interop/avro/avsc_read.mjs';

let failures = 0;
function fail(msg) {
  console.error('FAIL ' + msg);
  failures++;
}
function eq(a, b, what) {
  if (String(a) !== String(b)) fail(`${what}: ${a} != ${b}`);
}

// Iceberg field ids by field name, per format/spec.md.
const LIST_IDS = {
  manifest_path: 500, manifest_length: 501, partition_spec_id: 502,
  content: 517, sequence_number: 515, min_sequence_number: 516,
  added_snapshot_id: 503, added_files_count: 504, added_data_files_count: 504,
  existing_files_count: 505, existing_data_files_count: 505,
  deleted_files_count: 506, deleted_data_files_count: 506,
  added_rows_count: 512, existing_rows_count: 513, deleted_rows_count: 514,
  partitions: 507, key_metadata: 519, first_row_id: 520,
};
const ENTRY_IDS = { status: 0, snapshot_id: 1, sequence_number: 3,
                    file_sequence_number: 4, data_file: 2 };
const FILE_IDS = {
  content: 134, file_path: 100, file_format: 101, partition: 102,
  record_count: 103, file_size_in_bytes: 104, block_size_in_bytes: 105,
  column_sizes: 108, value_counts: 109, null_value_counts: 110,
  nan_value_counts: 137, lower_bounds: 125, upper_bounds: 128,
  key_metadata: 131, split_offsets: 132, equality_ids: 135,
  sort_order_id: 140, first_row_id: 142, referenced_data_file: 143,
  content_offset: 144, content_size_in_bytes: 145,
};

function recordOf(t) {
  if (Array.isArray(t)) return t.map(recordOf).find((x) => x);
  if (t && typeof t === 'object' && t.type === 'record') return t;
  return null;
}

function checkIds(rec, ids, where) {
  for (const f of rec.fields) {
    const want = ids[f.name];
    if (want === undefined) fail(`${where}: unknown field ${f.name}`);
    else eq(f['field-id'], want, `${where}.${f.name} field-id`);
  }
}

async function checkTable(dir) {
  const hint = fs.readFileSync(path.join(dir, 'metadata/version-hint.text'),
                               'utf8').trim();
  // Snapshot ids need all 64 bits: long integers are read as strings.
  const meta = JSON.parse(fs.readFileSync(
    path.join(dir, `metadata/v${hint}.metadata.json`), 'utf8')
    .replace(/([:\[,]\s*)(-?\d{16,})/g, '$1"$2"'));
  const failuresBefore = failures;
  const v = meta['format-version'];
  const expected = new Map();
  for (const line of fs.readFileSync(path.join(dir, 'expected.txt'), 'utf8')
    .split('\n').filter((l) => l)) {
    const [snap, ...rest] = line.split(' ');
    if (!expected.has(snap)) expected.set(snap, []);
    expected.get(snap).push(rest.join(' '));
  }
  let snapsChecked = 0;
  for (const snap of meta.snapshots) {
    const sid = String(snap['snapshot-id']);
    const list = await readAvroRecords(snap['manifest-list']);
    eq(list.meta['snapshot-id'].toString(), sid, `${dir} list snapshot-id`);
    eq(list.meta['format-version'].toString(), String(v), 'list format-version');
    checkIds(recordOf(list.schema), LIST_IDS, 'manifest_file');
    const live = [];
    const totals = { records: 0n, data: 0, deletes: 0, pos: 0n, eq: 0n };
    for (const mf of list.records) {
      const m = await readAvroRecords(mf.manifest_path);
      const entry = recordOf(m.schema);
      checkIds(entry, ENTRY_IDS, 'manifest_entry');
      const df = recordOf(entry.fields.find((f) => f.name === 'data_file').type);
      checkIds(df, FILE_IDS, 'data_file');
      const part = recordOf(df.fields.find((f) => f.name === 'partition').type);
      eq(part.fields.map((f) => f['field-id']).join(','), '1000',
         'partition field ids');
      const counts = [0, 0, 0], rows = [0n, 0n, 0n];
      let nextRow = mf.first_row_id ?? null;
      for (const e of m.records) {
        const d = e.data_file;
        counts[e.status]++;
        rows[e.status] += d.record_count;
        // inheritance, format/spec.md
        const snapId = e.snapshot_id ?? mf.added_snapshot_id;
        let seq = e.sequence_number, fseq = e.file_sequence_number;
        if (v === 1) { seq = 0n; fseq = 0n; }
        if (seq == null && e.status === 1) seq = mf.sequence_number;
        if (fseq == null && e.status === 1) fseq = mf.sequence_number;
        let first = d.first_row_id ?? null;
        const content = d.content ?? 0;
        if (v >= 3 && content === 0 && first == null && nextRow != null) {
          first = nextRow;
          nextRow += d.record_count;
        }
        if (e.status === 2) continue;
        const name = path.basename(d.file_path);
        live.push(`${name} ${e.status} ${content} ${snapId} ${seq} ${fseq} ` +
                  `${first == null ? 'null' : first}`);
        if (content === 0) { totals.data++; totals.records += d.record_count; }
        else totals.deletes++;
        if (content === 1) totals.pos += d.record_count;
        if (content === 2) totals.eq += d.record_count;
      }
      eq(mf.added_files_count ?? mf.added_data_files_count, counts[1],
         `${mf.manifest_path} added count`);
      eq(mf.existing_files_count ?? mf.existing_data_files_count, counts[0],
         `${mf.manifest_path} existing count`);
      eq(mf.deleted_files_count ?? mf.deleted_data_files_count, counts[2],
         `${mf.manifest_path} deleted count`);
      eq(mf.added_rows_count, rows[1], `${mf.manifest_path} added rows`);
      eq(mf.existing_rows_count, rows[0], `${mf.manifest_path} existing rows`);
      eq(mf.deleted_rows_count, rows[2], `${mf.manifest_path} deleted rows`);
    }
    const want = (expected.get(sid) || []).slice().sort();
    live.sort();
    eq(live.join('|'), want.join('|'), `${dir} snapshot ${sid} live entries`);
    const s = snap.summary;
    eq(s['total-records'], totals.records, `${sid} total-records`);
    eq(s['total-data-files'], totals.data, `${sid} total-data-files`);
    eq(s['total-delete-files'], totals.deletes, `${sid} total-delete-files`);
    eq(s['total-position-deletes'], totals.pos, `${sid} total-position-deletes`);
    eq(s['total-equality-deletes'], totals.eq, `${sid} total-equality-deletes`);
    snapsChecked++;
  }
  if (snapsChecked < 3) fail(`${dir}: only ${snapsChecked} snapshots`);
  if (failures === failuresBefore)
    console.log(`ok ${dir}: v${v}, ${snapsChecked} snapshots`);
}

const root = process.argv[2];
if (!root) {
  console.error('usage: node commit_check.mjs <dir>');
  process.exit(2);
}
const dirs = fs.readdirSync(root).filter((d) =>
  fs.existsSync(path.join(root, d, 'metadata/version-hint.text')));
if (dirs.length < 3) fail(`${root}: expected the v1, v2 and v3 tables`);
for (const d of dirs.sort()) await checkTable(path.join(root, d));
process.exit(failures ? 1 : 0);
