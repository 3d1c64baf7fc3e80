// `zamboni scan` against the independent reader of scan_reference.mjs on
// every table folder under the fixtures: for every snapshot of each table
// (the current one and every older one), the JSON lines of
// `zamboni scan --snapshot ID --format jsonl` and the reference's rows
// must be the same multiset, and `zamboni scan --count` must print their
// number. Rows are compared in a canonical form derived from the scanned
// schema (scan_reference.mjs: each value parsed as its type and printed
// again), so "1.5" and "1.50" for a double, or a timestamp's fraction
// digits, cannot make a false difference, while a wrong JSON kind (a
// decimal printed as a number) can. A table whose rows differ fails
// with a few rows from each side. The plain scan is also printed with
// --format csv and parsed (RFC 4180): header, records and fields must be
// the JSON lines' (cli/verbs/scan_print.h gives the mapping).
//
// Exceptions are listed in EXPECTED below, each with its reason and what
// zamboni must do instead (no silent skips).
//
// Usage: node scan_compare.mjs --zamboni PATH [--only NAME,...] FIXTURES_DIR
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { referenceScan, loadTable, fromJsonValue, toJsonText, typeKind }
  from './scan_reference.mjs';

// Known cases where the rows cannot be compared: fixture -> snapshot id
// ('current' for the plain scan, '*' for all) -> { reason, exit, stderr } (zamboni's exit code and a
// pattern its message must match).
const EXPECTED = {
  'duckdb-eq-deletes': {
    '7342794868382145167': {
      reason: 'fixture gap (README.md): the manifest list of this old ' +
              'snapshot is absent from the source repository',
      exit: 1, stderr: /snap-7342794868382145167.*(not found|No such file)|(not found|No such file).*snap-7342794868382145167/i,
    },
  },
};

// Extra remaps some fixtures need (fixtures/README.md).
function extraRemaps(name, dir) {
  if (name === 'impala-multi-location')
    return [['/test-warehouse/iceberg_test/hadoop_catalog/ice', path.dirname(dir)]];
  return [];
}

function tableDirs(root) {
  const out = [];
  for (const name of fs.readdirSync(root).sort()) {
    const p = path.join(root, name);
    if (!fs.statSync(p).isDirectory()) continue;
    if (fs.existsSync(path.join(p, 'metadata'))) out.push([name, p]);
    else for (const sub of fs.readdirSync(p).sort())
      if (fs.existsSync(path.join(p, sub, 'metadata'))) out.push([name, path.join(p, sub)]);
  }
  return out;
}

// ------------------------------------------------------------ JSON with exact numbers

// Parses JSON text; numbers become {num: 'text'} so that longs stay exact
// and the comparison can tell a number from a string.
export function parseExact(text) {
  let i = 0;
  const ws = () => { while (/\s/.test(text[i])) i++; };
  const fail = (m) => { throw new Error(`${m} at ${i} in ${text.slice(0, 200)}`); };
  function value() {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const o = {}; ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws(); const k = value();
        if (typeof k !== 'string') fail('object key');
        ws(); if (text[i++] !== ':') fail('expected :');
        if (Object.prototype.hasOwnProperty.call(o, k)) fail(`duplicate key ${k}`);
        o[k] = value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] === '}') return o;
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++; const a = []; ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value()); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] === ']') return a;
        fail('expected , or ]');
      }
    }
    if (c === '"') {
      const m = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/.exec(text.slice(i));
      if (!m) fail('bad string');
      i += m[0].length;
      return JSON.parse(m[0]);
    }
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!m) fail('bad value');
    i += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    if (m[0] === 'null') return null;
    return { num: m[0] };
  }
  const v = value(); ws();
  if (i !== text.length) fail('trailing text');
  return v;
}

const isNum = (v) => v !== null && typeof v === 'object' && typeof v.num === 'string';
const NUM_KINDS = new Set(['int', 'long', 'float', 'double']);

// Checks the JSON kind of v against type t and returns the plain JSON
// value that fromJsonValue() reads.
function plain(v, t) {
  if (v === null) return null;
  const k = typeKind(t);
  if (k === 'boolean') {
    if (typeof v !== 'boolean') throw new Error(`${k} printed as ${JSON.stringify(v)}`);
    return v;
  }
  if (NUM_KINDS.has(k)) {
    // NaN and the infinities print as strings (Appendix D has no form)
    if ((k === 'float' || k === 'double') && ['NaN', 'Infinity', '-Infinity'].includes(v))
      return v;
    if (!isNum(v)) throw new Error(`${k} printed as ${JSON.stringify(v)}`);
    if ((k === 'int' || k === 'long') && /[.eE]/.test(v.num))
      throw new Error(`${k} printed as ${v.num}`);
    return v.num;
  }
  if (k === 'variant') return v;
  if (k === 'struct') {
    if (typeof v !== 'object' || Array.isArray(v) || isNum(v))
      throw new Error(`struct printed as ${JSON.stringify(v)}`);
    const o = {};
    for (const key of Object.keys(v)) {
      const f = t.fields.find((x) => String(x.id) === key);
      if (!f) throw new Error(`struct key ${key} is no field id`);
      o[key] = plain(v[key], f.type);
    }
    for (const f of t.fields) if (!(String(f.id) in o)) throw new Error(`struct lacks field ${f.id}`);
    return o;
  }
  if (k === 'list') {
    if (!Array.isArray(v)) throw new Error(`list printed as ${JSON.stringify(v)}`);
    return v.map((x) => plain(x, t.element));
  }
  if (k === 'map') {
    if (!v || !Array.isArray(v.keys) || !Array.isArray(v.values) || Object.keys(v).length !== 2)
      throw new Error(`map printed as ${JSON.stringify(v)}`);
    return { keys: v.keys.map((x) => plain(x, t.key)), values: v.values.map((x) => plain(x, t.value)) };
  }
  if (typeof v !== 'string') throw new Error(`${k} printed as ${JSON.stringify(v)}`);
  return v;
}

function canonValue(v, t) {
  const p = plain(v, t);
  if (typeKind(t) === 'variant') return JSON.stringify(p);
  if (['NaN', 'Infinity', '-Infinity'].includes(p)) return JSON.stringify(p);
  return toJsonText(fromJsonValue(p, t), t);
}

// The canonical text of one JSON line of a row of schema.
export function canonicalRow(line, schema) {
  const o = parseExact(line);
  if (o === null || typeof o !== 'object' || Array.isArray(o) || isNum(o))
    throw new Error(`a row is not an object: ${line.slice(0, 200)}`);
  const names = schema.fields.map((f) => f.name);
  const keys = Object.keys(o);
  if (keys.join('\u0001') !== names.join('\u0001'))
    throw new Error(`columns ${JSON.stringify(keys)}, schema ${JSON.stringify(names)}`);
  return '{' + schema.fields.map((f) => {
    try {
      return `${JSON.stringify(f.name)}:${canonValue(o[f.name], f.type)}`;
    } catch (e) {
      throw new Error(`column ${f.name}: ${e.message}`);
    }
  }).join(',') + '}';
}

// ------------------------------------------------------------ CSV

// RFC 4180 records of text (CRLF line ends); each field {text, quoted}.
export function parseCsv(text) {
  const rows = [];
  let i = 0;
  while (i < text.length) {
    const row = [];
    for (;;) {
      let f = '', quoted = false;
      if (text[i] === '"') {
        quoted = true;
        i++;
        for (;;) {
          if (i >= text.length) throw new Error('unterminated quoted field');
          if (text[i] === '"') {
            if (text[i + 1] === '"') { f += '"'; i += 2; continue; }
            i++;
            break;
          }
          f += text[i++];
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          if (text[i] === '"') throw new Error('quote inside an unquoted field');
          f += text[i++];
        }
      }
      row.push({ text: f, quoted });
      if (text[i] === ',') { i++; continue; }
      if (text.startsWith('\r\n', i)) { i += 2; break; }
      throw new Error(`record not ended by CRLF at ${i}`);
    }
    rows.push(row);
  }
  return rows;
}

// The CSV fields a JSON line must print as (scan_print.h): null empty,
// an empty string "", strings their text, other primitives their JSON
// text without quotes, nested values their JSON text.
function exactText(v) {
  if (v === null) return 'null';
  if (isNum(v)) return v.num;
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(exactText).join(',') + ']';
  return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ':' + exactText(v[k])).join(',') + '}';
}

function csvOfJsonLine(line, schema) {
  const o = parseExact(line);
  return schema.fields.map((f) => {
    const v = o[f.name];
    if (v === null) return { text: '', quoted: false };
    if (typeof v === 'string') return { text: v, quoted: v === '' ? true : null };
    return { text: exactText(v), quoted: null };
  });
}

// zamboni's CSV against its JSON lines (same rows, same order).
function checkCsv(csvText, jsonLines, schema) {
  const recs = parseCsv(csvText);
  if (!recs.length) return 'no header line';
  const header = recs[0].map((f) => f.text);
  const names = schema.fields.map((f) => f.name);
  if (header.join('\u0001') !== names.join('\u0001'))
    return `header ${JSON.stringify(header)}, schema ${JSON.stringify(names)}`;
  if (recs.length - 1 !== jsonLines.length)
    return `${recs.length - 1} CSV records, ${jsonLines.length} JSON lines`;
  for (let r = 0; r < jsonLines.length; r++) {
    const exp = csvOfJsonLine(jsonLines[r], schema);
    for (let c = 0; c < exp.length; c++) {
      const got = recs[r + 1][c];
      if (!got || got.text !== exp[c].text ||
          (exp[c].quoted !== null && got.quoted !== exp[c].quoted))
        return `record ${r + 1} column ${names[c]}: ${JSON.stringify(got)} for JSON ${clip(jsonLines[r])}`;
    }
  }
  return null;
}

// ------------------------------------------------------------ comparison

function runZamboni(zb, args) {
  const r = spawnSync(zb, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  return { code: r.status, out: r.stdout || '', err: (r.stderr || '').trim() };
}

// Multiset difference of two sorted arrays: [onlyA, onlyB].
function diffSorted(a, b) {
  const onlyA = [], onlyB = [];
  let i = 0, j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) onlyA.push(a[i++]);
    else if (i >= a.length || b[j] < a[i]) onlyB.push(b[j++]);
    else { i++; j++; }
  }
  return [onlyA, onlyB];
}

const clip = (s) => (s.length > 300 ? s.slice(0, 300) + '...' : s);

async function compareSnapshot(zb, name, dir, remaps, snapId, isCurrent, res) {
  const label = snapId === null ? `${name} (plain scan: current snapshot, current schema)`
                                 : `${name} @${snapId}${isCurrent ? ' (the current snapshot by id)' : ''}`;
  const remapArgs = remaps.flatMap(([f, t]) => ['--remap', `${f}=${t}`]);
  const expected = EXPECTED[name]?.[snapId ?? 'current'] ?? EXPECTED[name]?.['*'];
  const snapArgs = snapId === null ? [] : ['--snapshot', snapId];
  const zargs = ['scan', ...remapArgs, ...snapArgs, '--format', 'jsonl', dir];

  if (expected && !expected.countOnly) {
    const z = runZamboni(zb, zargs);
    if (z.code === expected.exit && expected.stderr.test(z.err)) {
      console.log(`known ${label}: ${expected.reason}; zamboni exits ${z.code}: ${clip(z.err)}`);
      res.known++;
    } else {
      console.log(`FAIL ${label}: expected exit ${expected.exit} matching ${expected.stderr} ` +
                  `(${expected.reason}); got exit ${z.code}: ${clip(z.err)}`);
      res.failed++;
    }
    return;
  }

  let ref;
  try {
    ref = await referenceScan(dir, { remaps, snapshotId: snapId });
  } catch (e) {
    console.log(`FAIL ${label}: the reference reader failed: ${e.message}`);
    res.failed++;
    return;
  }
  const problems = [];
  const zc = runZamboni(zb, ['scan', ...remapArgs, ...snapArgs, '--count', dir]);
  if (zc.code !== 0) problems.push(`--count exit ${zc.code}: ${clip(zc.err)}`);
  else if (zc.out.trim() !== String(ref.rows.length))
    problems.push(`--count prints ${zc.out.trim()}, reference ${ref.rows.length}`);

  const z = runZamboni(zb, zargs);
  if (expected && expected.countOnly && z.code !== 0) {
    // refused as expected: only the count is compared
    if (z.code !== expected.exit || !expected.stderr.test(z.err))
      problems.push(`rows: expected exit ${expected.exit} matching ${expected.stderr}; got ${z.code}: ${clip(z.err)}`);
    if (problems.length) {
      console.log(`FAIL ${label}: ${problems.join('; ')}`);
      res.failed++;
    } else {
      console.log(`known ${label}: count ${ref.rows.length} equal; rows not compared: ${expected.reason}`);
      res.known++;
    }
    return;
  }
  if (z.code !== 0) {
    problems.push(`jsonl exit ${z.code}: ${clip(z.err)}`);
  } else {
    let ours, theirs;
    try {
      theirs = ref.rows.map((l) => canonicalRow(l, ref.schema)).sort();
    } catch (e) {
      problems.push(`reference row: ${e.message}`);
    }
    try {
      ours = z.out.split('\n').filter((l) => l !== '').map((l) => canonicalRow(l, ref.schema)).sort();
    } catch (e) {
      problems.push(`zamboni row: ${e.message}`);
    }
    if (ours && theirs) {
      const [onlyOurs, onlyTheirs] = diffSorted(ours, theirs);
      if (onlyOurs.length || onlyTheirs.length) {
        problems.push(`${ours.length} rows vs reference ${theirs.length}; ` +
          `${onlyOurs.length} only in zamboni, e.g. ${onlyOurs.slice(0, 3).map(clip).join(' | ') || '-'}; ` +
          `${onlyTheirs.length} only in the reference, e.g. ${onlyTheirs.slice(0, 3).map(clip).join(' | ') || '-'}`);
      }
    }
  }
  if (snapId === null && z.code === 0) {
    // the plain scan again as CSV: the same rows as the JSON lines
    const zcsv = runZamboni(zb, ['scan', ...remapArgs, '--format', 'csv', dir]);
    let why = zcsv.code !== 0 ? `csv exit ${zcsv.code}: ${clip(zcsv.err)}` : null;
    if (!why) {
      try {
        why = checkCsv(zcsv.out, z.out.split('\n').filter((l) => l !== ''), ref.schema);
      } catch (e) {
        why = e.message;
      }
    }
    if (why) problems.push(`--format csv: ${why}`);
  }
  if (problems.length) {
    console.log(`FAIL ${label}: ${problems.join('; ')}`);
    res.failed++;
  } else {
    const s = ref.stats;
    console.log(`ok   ${label}: ${ref.rows.length} rows equal (read ${s.read}, ` +
                `deleted by position ${s.byPos}, by equality ${s.byEq}, ${s.dataFiles} data files)`);
    res.passed++;
  }
}

async function main(argv) {
  let zb = null, only = null, root = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--zamboni') zb = argv[++i];
    else if (argv[i] === '--only') only = argv[++i].split(',');
    else root = argv[i];
  }
  if (!zb || !root) {
    console.error('usage: node scan_compare.mjs --zamboni PATH [--only NAME,...] FIXTURES_DIR');
    process.exit(2);
  }
  const res = { passed: 0, failed: 0, known: 0 };
  const tables = tableDirs(root).filter(([n]) => !only || only.includes(n));
  for (const [name, dir] of tables) {
    const remaps = extraRemaps(name, dir);
    const { meta } = loadTable(dir, { remaps });
    const cur = meta['current-snapshot-id'];
    const snaps = (meta.snapshots || []).map((s) => String(s['snapshot-id']));
    if (!snaps.length) {
      console.log(`FAIL ${name}: no snapshot to compare`);
      res.failed++;
      continue;
    }
    // a plain scan, then every snapshot by id: the current one first,
    // then the others, oldest first
    const order = [null, String(cur), ...snaps.filter((s) => s !== String(cur))];
    for (const id of order)
      await compareSnapshot(zb, name, dir, remaps, id, id === String(cur), res);
    if (snaps.length < 2)
      console.log(`note ${name}: the table has one snapshot only`);
  }
  console.log(`\n${res.passed} snapshots equal, ${res.known} known exceptions (listed above), ` +
              `${res.failed} failed, over ${tables.length} tables`);
  process.exitCode = res.failed ? 1 : 0;
}

main(process.argv.slice(2)).catch((e) => {
  console.error(`scan_compare: ${e.stack || e.message}`);
  process.exit(1);
});
