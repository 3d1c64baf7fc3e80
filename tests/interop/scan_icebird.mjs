// A check of the reference reader (scan_reference.mjs) itself: icebird
// (npm, exact version in package.json), an Iceberg reader written by
// others, reads the current snapshot of each fixture table, and its rows
// must be the reference's rows. icebird converts values lossily (hyparquet
// turns decimals into JS numbers and timestamps into Dates with
// millisecond precision), so both sides are compared in a loose form:
// integers exact, floats as floats, decimals as numbers, dates as
// "YYYY-MM-DD", timestamps to the millisecond, binary as hex.
//
// icebird 0.3.1 does not read everything; the tables where it cannot give
// the live rows are listed in ICEBIRD_LIMITS with the reason, and for
// them the test requires that icebird indeed fails or differs (so that a
// new icebird version that copes is noticed). Every other table must
// match.
//
// Usage: node scan_icebird.mjs FIXTURES_DIR
import fs from 'node:fs';
import path from 'node:path';
import { referenceScan, loadTable, makeResolver, typeKind } from './scan_reference.mjs';

let icebird;
try { icebird = await import('icebird'); } catch {
  console.log('icebird is not installed: run scripts/install-deps.sh');
  process.exit(1);
}

// Each reason was checked against the rows: the reference and zamboni
// agree there, and icebird 0.3.1's code does what the reason says.
const EQ = 'icebird 0.3.1 matches equality deletes by comparing every column of ' +
  'the delete row by name with JS !== (object values such as dates never ' +
  'match; a null in the delete row matches anything) and ignores the ' +
  "delete file's partition scope";
const RAW = 'icebird compares position-delete paths as raw strings; Impala ' +
  'writes hdfs://host:port/... in delete files and /... in manifests';
const ICEBIRD_LIMITS = {
  'duckdb-hive-part-evolution': 'icebird does not fill identity-partition ' +
    'columns that the data files lack from the partition values (spec ' +
    '"Column Projection", first rule)',
  'duckdb-name-mapping': 'icebird needs sequence numbers in manifests (v1 has none)',
  'duckdb-pyiceberg-defaults': 'icebird leaves columns an older data file lacks ' +
    'undefined instead of their initial-default',
  'impala-v1-alltypes-part': "icebird's Avro reader has no fixed type (decimal partition values)",
  'impala-v1-non-partitioned': 'icebird needs "schemas" (a v1 table may only have "schema")',
  'impala-v1-partitioned': 'icebird needs "schemas" (a v1 table may only have "schema")',
  'impala-v2-eq-and-pos': `${RAW}; ${EQ}`,
  'impala-v2-eq-nulls': EQ,
  'impala-v2-eq-part-evolution': EQ,
  'impala-v2-eq-partitioned': EQ,
  'impala-v2-eq-schema-evolution': `${EQ}; it also finds columns by name, not field id (renamed columns read null)`,
  'impala-v2-pos-and-multi-eq': `${RAW}; ${EQ}`,
  'impala-v3-default-part': 'icebird leaves columns an older data file lacks ' +
    'null instead of their initial-default',
  'impala-v3-deletion-vectors': 'icebird 0.3.1 does not apply deletion vectors',
  'impala-v2-pos-delete': RAW,
  'impala-v2-pos-delete-all': RAW,
  'impala-v2-pos-update-all': RAW,
  'impala-v2-pos-partitioned': RAW,
  'impala-v2-pos-some-files': RAW,
  'impala-lineitem-multiblock': RAW,
  'impala-v2-null-delete-record': `${RAW}; it also fails on delete rows with a null file_path`,
};

// Loose forms. Decimals as numbers rounded to the type's scale; times as
// microseconds; timestamps to the millisecond; binary, fixed and variant
// columns are left out ('~'): hyparquet hands unannotated BYTE_ARRAY
// values to icebird as UTF-8 text, which loses bytes.
const LEFT_OUT = new Set(['binary', 'fixed', 'variant']);

function looseDecimal(v, t) {
  return Number(v).toFixed(t.scale ?? Number(/,\s*(-?\d+)\)/.exec(t)?.[1] ?? 0));
}

function looseTimestampText(s) {
  const m = /^(.*T\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?/.exec(s);
  const hms = m[1].length === 16 ? m[1] + ':00' : m[1];
  return `${hms}.${(m[2] || '').padEnd(3, '0').slice(0, 3)}`;
}

function timeMicros(s) {
  const m = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$/.exec(s);
  return String((BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3] || 0)) * 1000000n +
                BigInt((m[4] || '').padEnd(6, '0').slice(0, 6)));
}

// Loose form of a reference value (JSON single-value, longs kept as text
// by parseLoose) of type t.
function looseRef(v, t) {
  const k = typeKind(t);
  if (LEFT_OUT.has(k)) return '~';
  if (v === null || v === undefined) return null;
  switch (k) {
    case 'int': case 'long': return String(v);
    case 'float': return Math.fround(Number(v));
    case 'double': return Number(v);
    case 'decimal': return looseDecimal(v, t);
    case 'time': return timeMicros(v);
    case 'timestamp': case 'timestamptz': case 'timestamp_ns': case 'timestamptz_ns':
      return looseTimestampText(v);
    default: return v;
  }
}

// Loose form of an icebird value (icebird hands the JSON text of an
// initial-default through as it is: strings are read as that text).
function looseIce(v, t) {
  const k = typeKind(t);
  if (LEFT_OUT.has(k)) return '~';
  if (v === null || v === undefined) return null;
  switch (k) {
    case 'int': case 'long': return String(typeof v === 'bigint' ? v : BigInt(v));
    case 'float': return Math.fround(Number(v));
    case 'double': return Number(v);
    case 'decimal': return looseDecimal(v, t);
    case 'boolean': return Boolean(v);
    case 'date': return v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
    case 'time': return typeof v === 'string' ? timeMicros(v) : String(v);
    case 'timestamp': case 'timestamptz': case 'timestamp_ns': case 'timestamptz_ns':
      if (typeof v === 'string') return looseTimestampText(v);
      return (v instanceof Date ? v : new Date(Number(v))).toISOString().replace(/Z$/, '');
    case 'uuid':
      return v instanceof Uint8Array
        ? Buffer.from(v).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')
        : String(v).toLowerCase();
    default: return typeof v === 'bigint' ? String(v) : v;
  }
}

function parseLoose(line) {
  return JSON.parse(line.replace(/([:\[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

function key(obj) {
  return JSON.stringify(obj, (k, v) => (typeof v === 'bigint' ? String(v) : v));
}

function tableDirs(root) {
  const out = [];
  for (const name of fs.readdirSync(root).sort()) {
    const p = path.join(root, name);
    if (!fs.statSync(p).isDirectory()) continue;
    if (fs.existsSync(path.join(p, 'metadata'))) out.push([name, p, []]);
    else for (const sub of fs.readdirSync(p).sort())
      if (fs.existsSync(path.join(p, sub, 'metadata')))
        // impala-multi-location: data under sibling folders (fixtures/README.md)
        out.push([name, path.join(p, sub), [['/test-warehouse/iceberg_test/hadoop_catalog/ice', p]]]);
  }
  return out;
}

// fetch() over local files, paths resolved as the reference resolves them.
function installFetch(resolve) {
  globalThis.fetch = async (url, init = {}) => {
    let p = String(url);
    const s3 = /^https:\/\/([^./]+)\.s3\.amazonaws\.com(\/.*)$/.exec(p);
    if (s3) p = `s3a://${s3[1]}${s3[2]}`;
    p = resolve(p);
    if (!fs.existsSync(p)) return new Response(null, { status: 404 });
    const buf = fs.readFileSync(p);
    if (init.method === 'HEAD')
      return new Response(null, { status: 200, headers: { 'Content-Length': String(buf.length) } });
    const range = new Headers(init.headers || {}).get('Range');
    if (range) {
      const m = /bytes=(\d+)-(\d*)/.exec(range);
      const end = m[2] ? Number(m[2]) + 1 : buf.length;
      return new Response(buf.subarray(Number(m[1]), end), { status: 206 });
    }
    return new Response(buf, { status: 200 });
  };
}

async function main(root) {
  let passed = 0, failed = 0, limited = 0;
  for (const [name, dir, remaps] of tableDirs(root)) {
    const { meta, metadataFile } = loadTable(dir, { remaps });
    const resolve = makeResolver(dir, meta.location, remaps);
    installFetch((p) => {
      if (p.startsWith(dir)) return p;
      return resolve(p);
    });
    const ref = await referenceScan(dir, { remaps });
    // both read the current snapshot with the current schema
    const schema = ref.schema;
    let theirs, err = null;
    try {
      const rows = await icebird.icebergRead({ tableUrl: dir,
        metadataFileName: path.basename(metadataFile) });
      theirs = rows.map((r) => key(Object.fromEntries(schema.fields.map((f) =>
        [f.name, looseIce(r[f.name], f.type)])))).sort();
    } catch (e) {
      err = e.message;
    }
    let diff = err;
    if (!err) {
      const ours = ref.rows.map((l) => {
        const o = parseLoose(l);
        return key(Object.fromEntries(schema.fields.map((f) => [f.name, looseRef(o[f.name], f.type)])));
      }).sort();
      if (ours.join('\n') !== theirs.join('\n')) {
        const a = ours.filter((x) => !theirs.includes(x)).slice(0, 2);
        const b = theirs.filter((x) => !ours.includes(x)).slice(0, 2);
        diff = `reference ${ours.length} rows, icebird ${theirs.length}; only reference: ${a.join(' | ') || '-'}; only icebird: ${b.join(' | ') || '-'}`;
      }
    }
    const limit = ICEBIRD_LIMITS[name];
    if (limit) {
      if (diff) {
        console.log(`known ${name}: ${limit} (icebird: ${diff.slice(0, 200)})`);
        limited++;
      } else {
        console.log(`FAIL ${name}: listed as beyond icebird (${limit}) but icebird now agrees: update ICEBIRD_LIMITS`);
        failed++;
      }
    } else if (diff) {
      console.log(`FAIL ${name}: ${diff.slice(0, 600)}`);
      failed++;
    } else {
      console.log(`ok   ${name}: ${ref.rows.length} rows agree with icebird`);
      passed++;
    }
  }
  console.log(`\n${passed} tables agree, ${limited} beyond icebird (listed), ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main(process.argv[2]).catch((e) => {
  console.error(`scan_icebird: ${e.stack || e.message}`);
  process.exit(1);
});
