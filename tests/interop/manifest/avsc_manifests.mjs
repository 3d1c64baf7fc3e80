// The live entries of an Iceberg table's current snapshot, decoded by
// avsc (through ../avro/avsc_read.mjs) from the manifest list and the
// manifests, with the spec's inheritance rules applied here, written
// independently of src/table/manifest_*.c, and printed in the canonical
// form of tools/zb_manifest_cat.c (see its header comment).
//
// Fields are found by their Iceberg field ids in each file's schema, as
// the C reader does. A manifest_entry or data_file field that this script
// does not know, holding a non-null value, fails loudly: "not read yet:".
//
// Usage:
//   node avsc_manifests.mjs [--remap FROM=TO]... --metadata FILE TABLE_DIR
//       prints the header and entry lines for the table
//   node avsc_manifests.mjs --compare --cat ZB_MANIFEST_CAT FIXTURES_DIR
//       for every table folder: runs zb-manifest-cat, decodes the same
//       files with avsc, compares line by line; exit 1 on any difference
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { readAvro } from '../avro/avsc_read.mjs';

// data_file fields by id: the canonical key.
const DF = {
  134: 'content', 100: 'file_path', 101: 'file_format', 102: 'partition',
  103: 'record_count', 104: 'file_size_in_bytes', 105: 'block_size_in_bytes',
  108: 'column_sizes', 109: 'value_counts', 110: 'null_value_counts',
  137: 'nan_value_counts', 125: 'lower_bounds', 128: 'upper_bounds',
  131: 'key_metadata', 132: 'split_offsets', 135: 'equality_ids',
  140: 'sort_order_id', 142: 'first_row_id', 143: 'referenced_data_file',
  144: 'content_offset', 145: 'content_size_in_bytes',
};
const MAPS = new Set(['column_sizes', 'value_counts', 'null_value_counts',
  'nan_value_counts', 'lower_bounds', 'upper_bounds']);

// Metadata JSON with integers of 16+ digits kept exact (as strings).
export function parseMetadata(text) {
  return JSON.parse(text.replace(/([:\[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g,
                                 '$1"$2"'));
}

function remapPath(p, remaps) {
  for (const [from, to] of remaps) {
    if (p.startsWith(from) &&
        (p.length === from.length || p[from.length] === '/' ||
         from.endsWith('/')))
      return to + p.slice(from.length);
  }
  return p;
}

function fieldsById(recordSchema) {
  const m = new Map();
  for (const f of recordSchema.fields) m.set(f['field-id'], f);
  return m;
}

function unionBase(t) {
  if (Array.isArray(t)) return t.find((b) => b !== 'null');
  return t;
}

function decimalText(hex, scale) {
  const bytes = Buffer.from(hex.slice(2), 'hex');
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  if (bytes.length && bytes[0] & 0x80) n -= 1n << BigInt(8 * bytes.length);
  return `${n}e-${scale}`;
}

function pairs(v, keyName = 'key', valueName = 'value') {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((kv) => [kv[keyName], kv[valueName]]);
  return Object.keys(v).map((k) => [Number(k), v[k]]);
}

function canonEntry(rec, entrySchema, ctx) {
  const byId = fieldsById(entrySchema);
  const name = (id) => (byId.has(id) ? byId.get(id).name : null);
  for (const f of entrySchema.fields) {
    if (![0, 1, 2, 3, 4].includes(f['field-id']) && rec[f.name] !== null)
      throw new Error(`${ctx.file}: not read yet: manifest_entry field ${f.name}`);
  }
  const dfSchema = unionBase(byId.get(2).type);
  const dfById = fieldsById(dfSchema);
  const d = rec[name(2)];
  const out = {};
  for (const f of dfSchema.fields) {
    if (!(f['field-id'] in DF) && d[f.name] !== null)
      throw new Error(`${ctx.file}: not read yet: data_file field ${f.name}` +
                      ` (id ${f['field-id']})`);
  }
  const get = (id) => (dfById.has(id) ? d[dfById.get(id).name] : null);
  const status = rec[name(0)];
  let snap = byId.has(1) ? rec[name(1)] : null;
  if (snap === null) snap = ctx.mf.added_snapshot_id;
  const inheritSeq = (id) => {
    if (!byId.has(id)) return '0';
    const v = rec[name(id)];
    if (v !== null) return v;
    if (status === 1 || ctx.mf.sequence_number === '0')
      return ctx.mf.sequence_number;
    throw new Error(`${ctx.file}: entry with status ${status} and null seq`);
  };
  const content = dfById.has(134) ? get(134) : 0;
  let firstRowId = get(142);
  if (firstRowId === null && content === 0 && ctx.nextRowId !== null) {
    firstRowId = ctx.nextRowId.toString();
    ctx.nextRowId += BigInt(get(103));
  }
  // partition values; decimals as unscaled e-scale
  const partSchema = unionBase(dfById.get(102).type);
  const part = {};
  for (const pf of partSchema.fields) {
    let v = get(102)[pf.name];
    const t = unionBase(pf.type);
    if (v !== null && t && t.logicalType === 'decimal')
      v = decimalText(v, t.scale || 0);
    part[pf.name] = v;
  }
  const o = {
    manifest: ctx.mf.manifest_path, status, snapshot_id: snap,
    sequence_number: inheritSeq(3), file_sequence_number: inheritSeq(4),
    content, file_path: get(100), file_format: get(101), partition: part,
    record_count: get(103), file_size_in_bytes: get(104),
    block_size_in_bytes: get(105),
  };
  for (const id of [108, 109, 110, 137, 125, 128]) o[DF[id]] = pairs(get(id));
  o.key_metadata = get(131);
  o.split_offsets = get(132);
  o.equality_ids = get(135);
  o.sort_order_id = get(140);
  o.first_row_id = firstRowId;
  o.referenced_data_file = get(143);
  o.content_offset = get(144);
  o.content_size_in_bytes = get(145);
  void MAPS;
  return o;
}

// The header and entry objects for a table.
export async function tableLines(dir, metadataPath, remaps) {
  const meta = parseMetadata(fs.readFileSync(metadataPath, 'utf8'));
  const location = meta.location;
  const rm = [...remaps, [location, dir]];
  if (location.startsWith('./')) rm.push([location.slice(2), dir]);
  const version = meta['format-version'];
  const cur = meta['current-snapshot-id'];
  const header = { metadata: metadataPath, format_version: version, location };
  const lines = [header];
  if (cur === undefined || cur === null || String(cur) === '-1') {
    header.snapshot_id = null;
    return lines;
  }
  const snap = meta.snapshots.find((s) => String(s['snapshot-id']) === String(cur));
  header.snapshot_id = String(cur);
  header.manifest_list = snap['manifest-list'] ?? null;
  let manifests;
  if (snap['manifest-list']) {
    const ml = await readAvro(remapPath(snap['manifest-list'], rm));
    const mlSchema = JSON.parse(ml.schemaText);
    const byId = fieldsById(mlSchema);
    const g = (r, id, dflt) => (byId.has(id) ? r[byId.get(id).name] : dflt);
    manifests = ml.records.map((r) => ({
      manifest_path: g(r, 500),
      sequence_number: g(r, 515, '0'),
      added_snapshot_id: g(r, 503, null),
      first_row_id: g(r, 520, null),
    }));
  } else {
    manifests = snap.manifests.map((p) => ({
      manifest_path: p, sequence_number: '0', added_snapshot_id: null,
      first_row_id: null,
    }));
  }
  for (const mf of manifests) {
    const file = remapPath(mf.manifest_path, rm);
    const m = await readAvro(file);
    const schema = JSON.parse(m.schemaText);
    const ctx = { file, mf,
      nextRowId: mf.first_row_id === null ? null : BigInt(mf.first_row_id) };
    for (const rec of m.records) {
      const e = canonEntry(rec, schema, ctx);
      if (e.status !== 2) lines.push(e);
    }
  }
  return lines;
}

function tableDirs(root) {
  const out = [];
  for (const name of fs.readdirSync(root).sort()) {
    const p = path.join(root, name);
    if (!fs.statSync(p).isDirectory()) continue;
    if (fs.existsSync(path.join(p, 'metadata'))) out.push([name, p]);
    else for (const sub of fs.readdirSync(p).sort())
      if (fs.existsSync(path.join(p, sub, 'metadata')))
        out.push([name, path.join(p, sub)]);
  }
  return out;
}

// impala-multi-location keeps data under sibling folders (README.md).
function extraRemaps(name, dir) {
  if (name === 'impala-multi-location')
    return [['/test-warehouse/iceberg_test/hadoop_catalog/ice',
             path.dirname(dir)]];
  return [];
}

function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

export async function compare(cat, root) {
  let failed = 0, passed = 0;
  for (const [name, dir] of tableDirs(root)) {
    const remaps = extraRemaps(name, dir);
    const args = [];
    for (const [f, t] of remaps) args.push('--remap', `${f}=${t}`);
    args.push(dir);
    let ours;
    try {
      ours = execFileSync(cat, args, { encoding: 'utf8',
        maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] })
        .split('\n').filter((l) => l).map((l) => JSON.parse(l));
    } catch (e) {
      console.log(`FAIL ${name}: zb-manifest-cat: ${(e.stderr || e.message).trim()}`);
      failed++;
      continue;
    }
    let theirs;
    try {
      theirs = await tableLines(dir, ours[0].metadata, remaps);
    } catch (e) {
      console.log(`FAIL ${name}: avsc side: ${e.message}`);
      failed++;
      continue;
    }
    let bad = null;
    if (ours.length !== theirs.length)
      bad = `${ours.length - 1} entries vs avsc ${theirs.length - 1}`;
    for (let i = 0; !bad && i < ours.length; i++) {
      if (!sameJson(ours[i], theirs[i])) {
        const keys = new Set([...Object.keys(ours[i]), ...Object.keys(theirs[i])]);
        const diff = [...keys].filter((k) => !sameJson(ours[i][k], theirs[i][k]));
        bad = `line ${i + 1} differs in ${diff.join(', ')}: ours ` +
              `${JSON.stringify(diff.map((k) => ours[i][k]))} avsc ` +
              `${JSON.stringify(diff.map((k) => theirs[i][k]))}`;
      }
    }
    const entries = ours.slice(1);
    const kinds = [0, 1, 2].map((c) => entries.filter((e) => e.content === c).length);
    if (bad) {
      console.log(`FAIL ${name}: ${bad}`);
      failed++;
    } else {
      console.log(`ok   ${name}: v${ours[0].format_version}, ${entries.length}` +
                  ` live files (data ${kinds[0]}, pos-del ${kinds[1]},` +
                  ` eq-del ${kinds[2]})`);
      passed++;
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

async function main(argv) {
  const remaps = [];
  let metadata = null, cat = null, doCompare = false;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--remap') {
      const [f, ...t] = argv[++i].split('=');
      remaps.push([f, t.join('=')]);
    } else if (argv[i] === '--metadata') metadata = argv[++i];
    else if (argv[i] === '--cat') cat = argv[++i];
    else if (argv[i] === '--compare') doCompare = true;
    else rest.push(argv[i]);
  }
  if (doCompare && cat && rest.length === 1) return compare(cat, rest[0]);
  if (!doCompare && metadata && rest.length === 1) {
    for (const l of await tableLines(rest[0], metadata, remaps))
      console.log(JSON.stringify(l));
    return 0;
  }
  console.error('usage: avsc_manifests.mjs [--remap F=T]... --metadata FILE DIR\n' +
                '       avsc_manifests.mjs --compare --cat ZB_MANIFEST_CAT FIXTURES');
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`)
  process.exitCode = await main(process.argv.slice(2));
