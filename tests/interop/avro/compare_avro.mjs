// Compares zb-avro-cat with avsc, record by record in canonical JSON,
// on every .avro file under the paths given (files or directories), and
// checks that the schema text zb-avro-cat reads from the header is the
// one avsc reads.
//
// With --written (files Zamboni wrote: zb-avro-gen's corpus) it also
// checks that the header schema keeps Iceberg's attributes (field-id on
// every record field, element-id on every array that is not an Iceberg
// map, key-id and value-id on every map), the file metadata, and the
// values of the sample records as avsc decodes them.
//
// Usage: node compare_avro.mjs --cat PATH [--written] PATH...
// Closes with "N passed, N failed" (one per file); exit 1 on a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readAvro } from './avsc_read.mjs';

const args = process.argv.slice(2);
let cat = null, written = false;
const roots = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--cat') cat = args[++i];
  else if (args[i] === '--written') written = true;
  else roots.push(args[i]);
}
if (!cat || roots.length === 0) {
  console.error('usage: compare_avro.mjs --cat PATH [--written] PATH...');
  process.exit(2);
}

function collect(p, out) {
  const st = fs.statSync(p);
  if (st.isDirectory()) {
    for (const e of fs.readdirSync(p).sort()) collect(path.join(p, e), out);
  } else if (p.endsWith('.avro')) {
    out.push(p);
  }
  return out;
}

function checkAttrs(node, where, problems) {
  if (typeof node === 'string' || node === null) return;
  if (Array.isArray(node)) {
    node.forEach((b, i) => checkAttrs(b, `${where}|${i}`, problems));
    return;
  }
  switch (node.type) {
    case 'record':
      for (const f of node.fields) {
        if (!Number.isInteger(f['field-id']))
          problems.push(`${where}.${f.name}: no field-id`);
        checkAttrs(f.type, `${where}.${f.name}`, problems);
      }
      break;
    case 'array':
      if (node.logicalType !== 'map' && !Number.isInteger(node['element-id']))
        problems.push(`${where}: array without element-id`);
      checkAttrs(node.items, `${where}[]`, problems);
      break;
    case 'map':
      if (!Number.isInteger(node['key-id']) || !Number.isInteger(node['value-id']))
        problems.push(`${where}: map without key-id/value-id`);
      checkAttrs(node.values, `${where}{}`, problems);
      break;
    default:
      break;
  }
}

// The sample's values that tests/unit/avro/sample.c makes for record i.
function checkSample(recs, problems) {
  if (recs.length !== 500) problems.push(`${recs.length} records, want 500`);
  recs.forEach((r, i) => {
    const bi = BigInt(i);
    const want = {
      l: BigInt.asIntN(64, bi * 0x9e3779b97f4a7c15n).toString(),
      i: Number(BigInt.asIntN(32, bi * 2654435761n)),
      s: `s${i}-\u00e9-"q"\\`,
      e: ['RED', 'GREEN', 'BLUE'][i % 3],
      opt: i % 6 === 5 ? null : (-bi).toString(),
      tags: Array.from({ length: i % 4 }, (_, k) => (k % 2 ? 'tag-b' : 'tag-a')),
    };
    for (const [k, v] of Object.entries(want))
      if (JSON.stringify(r[k]) !== JSON.stringify(v))
        problems.push(`record ${i} field ${k}: ${JSON.stringify(r[k])} != ${JSON.stringify(v)}`);
  });
}

let passed = 0, failed = 0;
const files = roots.flatMap((r) => collect(r, []));
for (const file of files) {
  const problems = [];
  try {
    const ours = execFileSync(cat, [file], { maxBuffer: 1 << 30 })
      .toString().split('\n').filter((l) => l.length > 0);
    const schemaOurs = execFileSync(cat, ['--schema', file]).toString()
      .replace(/\n$/, '');
    const theirs = await readAvro(file);
    if (schemaOurs !== theirs.schemaText) problems.push('schema text differs');
    if (ours.length !== theirs.records.length)
      problems.push(`${ours.length} records, avsc ${theirs.records.length}`);
    for (let i = 0; i < Math.min(ours.length, theirs.records.length); i++) {
      const a = JSON.stringify(JSON.parse(ours[i]));
      const b = JSON.stringify(theirs.records[i]);
      if (a !== b) {
        problems.push(`record ${i} differs:\n  zb:   ${a.slice(0, 400)}\n  avsc: ${b.slice(0, 400)}`);
        break;
      }
    }
    if (written) {
      checkAttrs(JSON.parse(theirs.schemaText), 'sample', problems);
      if (!/"field-id":102/.test(theirs.schemaText) ||
          !/"element-id":14/.test(theirs.schemaText) ||
          !/"key-id":19,"value-id":20/.test(theirs.schemaText))
        problems.push('header schema lost the Iceberg ids');
      if (String(theirs.meta['format-version']) !== '2' ||
          String(theirs.meta['content']) !== 'data')
        problems.push('file metadata lost');
      checkSample(theirs.records, problems);
    }
  } catch (e) {
    problems.push(String(e && e.stack || e).split('\n').slice(0, 3).join(' '));
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL ${file}\n  ${problems.slice(0, 5).join('\n  ')}`);
  } else {
    passed++;
  }
}
console.log(`compare_avro: ${files.length} files`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || files.length === 0 ? 1 : 0);
