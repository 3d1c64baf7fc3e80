// Checks the manifests and manifest lists that zb-manifest-gen wrote
// (table folders v<N>-<part|unpart>):
//   1. avsc decodes every table's current snapshot exactly as our reader
//      does (the comparison of avsc_manifests.mjs);
//   2. every header schema carries the spec's field ids: manifest_entry,
//      data_file (with the key and value ids of each metrics map and the
//      element ids of split_offsets and equality_ids), the partition
//      struct's ids, manifest_file and field_summary; and the key-value
//      metadata Iceberg writers set (schema, schema-id, partition-spec,
//      partition-spec-id, format-version, content);
// Usage: node check_written.mjs --cat ZB_MANIFEST_CAT DIR
import fs from 'node:fs';
import path from 'node:path';
import { compare } from './avsc_manifests.mjs';
import { readAvro } from '../avro/avsc_read.mjs';

const args = process.argv.slice(2);
const cat = args[args.indexOf('--cat') + 1];
const root = args[args.length - 1];
let failed = 0;
const fail = (m) => { console.log(`FAIL ${m}`); failed++; };

function ids(record) {
  return new Map(record.fields.map((f) => [f['field-id'], f]));
}
const base = (t) => (Array.isArray(t) ? t.find((b) => b !== 'null') : t);

const ENTRY = { 1: [0, 1, 2], 2: [0, 1, 2, 3, 4], 3: [0, 1, 2, 3, 4] };
const DF_ALL = [100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131,
  132, 140];
const DF = { 1: [...DF_ALL, 105], 2: [...DF_ALL, 134, 135, 143],
  3: [...DF_ALL, 134, 135, 142, 143, 144, 145] };
const MAPS = { 108: [117, 118], 109: [119, 120], 110: [121, 122],
  137: [138, 139], 125: [126, 127], 128: [129, 130] };
const LIST = { 1: [500, 501, 502, 503, 504, 505, 506, 512, 513, 514, 507, 519],
  2: [500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514, 507, 519] };
LIST[3] = [...LIST[2], 520];

async function checkManifest(file, v, partitioned) {
  const m = await readAvro(file);
  const s = JSON.parse(m.schemaText);
  const e = ids(s);
  for (const id of ENTRY[v]) if (!e.has(id)) fail(`${file}: entry field id ${id}`);
  if (e.size !== ENTRY[v].length) fail(`${file}: entry has ${e.size} fields`);
  const df = ids(base(e.get(2).type));
  for (const id of DF[v]) if (!df.has(id)) fail(`${file}: data_file field id ${id}`);
  if (df.size !== DF[v].length) fail(`${file}: data_file has ${df.size} fields`);
  for (const [id, [k, val]] of Object.entries(MAPS)) {
    const rec = base(df.get(Number(id)).type).items;
    const kv = ids(rec);
    if (!kv.has(k) || !kv.has(val) || kv.get(k).name !== 'key')
      fail(`${file}: map ${id} lacks key/value ids ${k}/${val}`);
  }
  if (base(df.get(132).type)['element-id'] !== 133) fail(`${file}: 133`);
  if (v >= 2 && base(df.get(135).type)['element-id'] !== 136) fail(`${file}: 136`);
  const part = ids(base(df.get(102).type));
  const want = partitioned ? [1000, 1001, 1002, 1003] : [];
  if (JSON.stringify([...part.keys()]) !== JSON.stringify(want))
    fail(`${file}: partition ids ${[...part.keys()]}`);
  if (partitioned) {
    const dec = base(part.get(1003).type);
    if (dec.logicalType !== 'decimal' || dec.precision !== 9 || dec.scale !== 2)
      fail(`${file}: decimal partition type ${JSON.stringify(dec)}`);
    if (base(part.get(1000).type).logicalType !== 'date') fail(`${file}: date`);
  }
  const keys = ['schema', 'schema-id', 'partition-spec', 'partition-spec-id',
    'format-version', ...(v >= 2 ? ['content'] : [])];
  for (const k of keys) if (!m.meta[k]) fail(`${file}: metadata key ${k}`);
  if (String(m.meta['format-version']) !== String(v)) fail(`${file}: format-version`);
  JSON.parse(m.meta.schema.toString());
  JSON.parse(m.meta['partition-spec'].toString());
  return m.records.length;
}

async function checkList(file, v) {
  const m = await readAvro(file);
  const s = ids(JSON.parse(m.schemaText));
  for (const id of LIST[v]) if (!s.has(id)) fail(`${file}: manifest_file id ${id}`);
  if (s.size !== LIST[v].length) fail(`${file}: manifest_file has ${s.size} fields`);
  const sum = ids(base(s.get(507).type).items);
  if (base(s.get(507).type)['element-id'] !== 508) fail(`${file}: 508`);
  for (const id of [509, 518, 510, 511]) if (!sum.has(id)) fail(`${file}: summary ${id}`);
  for (const k of ['snapshot-id', 'format-version'])
    if (!m.meta[k]) fail(`${file}: metadata key ${k}`);
  return m.records.length;
}

const rc = await compare(cat, root);
if (rc !== 0) failed++;
for (const name of fs.readdirSync(root).sort()) {
  const mdir = path.join(root, name, 'metadata');
  if (!fs.existsSync(mdir)) continue;
  const v = Number(name[1]);
  const partitioned = name.endsWith('-part');
  let n = 0;
  for (const f of fs.readdirSync(mdir).sort()) {
    if (!f.endsWith('.avro')) continue;
    const p = path.join(mdir, f);
    n += f.startsWith('snap-') ? await checkList(p, v)
                               : await checkManifest(p, v, partitioned);
  }
  console.log(`ok   ${name}: field ids and metadata keys checked (${n} records)`);
}

// icebird: check_icebird.mjs (its own ctest, interop_manifest_icebird).
console.log(failed ? `FAILED (${failed})` : 'all written files check out');
process.exitCode = failed ? 1 : 0;
