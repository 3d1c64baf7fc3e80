// An independent reader of an Iceberg table's live rows, written from
// format/spec.md ("Scan Planning", "Column Projection", "Default values",
// Appendix D) and format/puffin-spec.md ("deletion-vector-v1"), sharing no
// code with src/: manifests are decoded by avsc (../avro/avsc_read.mjs,
// longs as BigInt), data and delete files by hyparquet (through the exact
// helpers of ../canonical.mjs), deletion vectors by the Roaring decoder
// below. It is what `zamboni scan --format jsonl` is compared with
// (scan_compare.mjs).
//
// Output: one JSON object per live row, keyed by the top-level column
// names of the scanned schema in schema order; each value in the JSON
// single-value serialization of Appendix D (ints and longs as numbers,
// decimals as strings, dates "YYYY-MM-DD", times and timestamps ISO with
// 6 or 9 fraction digits, timestamptz with "+00:00", binary and fixed as
// lowercase hex, uuid lowercase, nested structs as objects keyed by field
// id, lists as arrays, maps as {"keys": [...], "values": [...]}). Variant
// has no Appendix D form: it is printed as {"metadata": HEX, "value": HEX},
// its two binary parts (the same choice as src/cli/verbs/scan_print.c).
//
// Planning (spec "Scan Planning"): the live (ADDED/EXISTING) entries of the
// snapshot's manifests; data sequence numbers inherited from the manifest
// list for ADDED entries with a null one (0 in v1). A deletion vector
// applies to the data file it references with data seq <= its own, same
// spec and partition; a position delete file to data files with data seq
// <= its own, same spec and partition, its referenced_data_file if set,
// and only when no deletion vector applies; an equality delete file to
// data files with data seq < its own and the same spec and partition, or
// to every data file when its spec is unpartitioned. Position delete rows
// name their data file by path: equal as written, or equal once the scheme
// and authority are stripped from both (Impala writes hdfs://host:port/...
// in delete files, /... in manifests). Rows with a null path match nothing.
// Equality keys compare by value; null equals null.
//
// Projection (spec "Column Projection"): columns by field id; a file
// without field ids gets them from schema.name-mapping.default. A field the
// file lacks takes its identity-partition value from the manifest, else
// its initial-default, else null.
//
// The schema scanned is the table's current schema; with --snapshot ID,
// the schema that snapshot records (its schema-id), as time travel reads.
//
// Usage:
//   node scan_reference.mjs [--remap OLD=NEW]... [--snapshot ID] [--count]
//        [--metadata FILE] TABLE_DIR
//   node scan_reference.mjs --snapshots TABLE_DIR   (ids, oldest first)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { readAvro } from './avro/avsc_read.mjs';
import { hyparquetRawMetadata, hyparquetParsers, canonicalFromHyparquet }
  from './canonical.mjs';

const POS_PATH_ID = 2147483546;
const POS_POS_ID = 2147483545;

// ------------------------------------------------------------ metadata

// Metadata JSON with integers of 16 or more digits kept exact (as strings).
export function parseMetadataText(text) {
  return JSON.parse(text.replace(/([:\[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g,
                                 '$1"$2"'));
}

function versionOf(name) {
  let m = /^v(\d+)(\.gz)?\.metadata\.json(\.gz)?$/.exec(name);
  if (m) return Number(m[1]);
  m = /^(\d+)-.*\.metadata\.json(\.gz)?$/.exec(name);
  if (m) return Number(m[1]);
  return -1;
}

// A metadata file's text: gzip (write.metadata.compression-codec=gzip)
// inflated by node's own zlib.
export function readMetadataText(file) {
  const b = fs.readFileSync(file);
  if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b)
    return zlib.gunzipSync(b).toString('utf8');
  return b.toString('utf8');
}

// The newest metadata file: version-hint.text, else the highest version.
export function findLatestMetadata(dir) {
  const mdir = path.join(dir, 'metadata');
  const hint = path.join(mdir, 'version-hint.text');
  if (fs.existsSync(hint)) {
    const h = fs.readFileSync(hint, 'utf8').trim();
    const cands = /^\d+$/.test(h)
      ? [`v${h}.metadata.json`, `v${h}.gz.metadata.json`].map((n) => path.join(mdir, n))
      : [path.join(mdir, h)];
    for (const cand of cands) if (h && fs.existsSync(cand)) return cand;
  }
  let best = null, bestV = -1;
  for (const name of fs.readdirSync(mdir).sort()) {
    const v = versionOf(name);
    if (v > bestV) { bestV = v; best = name; }
  }
  if (!best) throw new Error(`${dir}: no metadata file`);
  return path.join(mdir, best);
}

function stripScheme(p) {
  return p.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/, '');
}

function underPrefix(p, prefix) {
  if (!prefix) return null;
  const pre = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (p === pre) return '';
  if (p.startsWith(pre + '/')) return p.slice(pre.length);
  return null;
}

// Path resolution: the given remaps, then the recorded location -> the
// folder (as written, without "./", or with scheme+authority stripped).
export function makeResolver(dir, location, remaps) {
  const locs = [location];
  if (location.startsWith('./')) locs.push(location.slice(2));
  return (p) => {
    for (const [from, to] of remaps) {
      const rest = underPrefix(p, from);
      if (rest !== null) return to.replace(/\/$/, '') + rest;
    }
    for (const loc of locs) {
      let rest = underPrefix(p, loc);
      if (rest === null && p.startsWith('./')) rest = underPrefix(p.slice(2), loc);
      if (rest === null) rest = underPrefix(stripScheme(p), stripScheme(loc));
      if (rest !== null) return dir + rest;
    }
    return p.replace(/^file:(\/\/)?/, '');
  };
}

// ------------------------------------------------------------ types

function parseType(t) {
  if (typeof t !== 'string') return t;
  let m = /^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$/.exec(t);
  if (m) return { prim: 'decimal', precision: Number(m[1]), scale: Number(m[2]) };
  m = /^fixed\[\s*(\d+)\s*\]$/.exec(t);
  if (m) return { prim: 'fixed', length: Number(m[1]) };
  return { prim: t.replace(/\(.*$/, '') };
}

export function typeKind(t) {
  if (typeof t === 'string') return parseType(t).prim;
  return t.type;
}

// ------------------------------------------------------------ values
//
// Internal form by type: boolean -> boolean; int, long, time (us),
// timestamp[tz] (us), timestamp[tz]_ns (ns), decimal (unscaled) -> BigInt;
// float, double -> Number; date -> Number of days; string, uuid -> string;
// binary, fixed -> lowercase hex string; struct -> Map(id -> value);
// list -> Array; map -> {keys, values}; variant -> {metadata, value} hex.

const pad = (n, w) => String(n).padStart(w, '0');

function civil(days) {
  // days from 1970-01-01 -> [y, m, d], proleptic Gregorian
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) -
                          Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function dateText(days) {
  const [y, m, d] = civil(days);
  const ys = y < 0 ? '-' + pad(-y, 4) : y > 9999 ? '+' + y : pad(y, 4);
  return `${ys}-${pad(m, 2)}-${pad(d, 2)}`;
}

const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

function timeOfDay(unitsInDay, perSec, digits) {
  const s = unitsInDay / perSec, frac = unitsInDay % perSec;
  return `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}` +
         `.${pad(frac, digits)}`;
}

function timestampText(v, perSec, digits, tz) {
  const perDay = 86400n * perSec;
  const days = floorDiv(v, perDay);
  const rest = v - days * perDay;
  return `${dateText(Number(days))}T${timeOfDay(rest, perSec, digits)}` +
         (tz ? '+00:00' : '');
}

function decimalText(unscaled, scale) {
  if (scale < 0) return `${unscaled}E+${-scale}`;
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = digits.slice(0, -scale) + '.' + digits.slice(-scale);
  }
  return (neg ? '-' : '') + digits;
}

// JSON number text of a double, or of a float with the fewest digits
// that read back (as a float) to the same value.
function jsonNumber(x, isFloat = false) {
  if (!Number.isFinite(x)) throw new Error(`no JSON form for ${x}`);
  if (Object.is(x, -0)) return '-0.0';
  let s = String(x);
  if (isFloat) {
    for (let p = 1; p <= 9; p++) {
      const t = x.toPrecision(p);
      if (Math.fround(Number(t)) === x) { s = String(Number(t)); break; }
    }
  }
  return /[.eE]/.test(s) ? s : s + '.0';
}

// JSON text of an internal value of type t.
export function toJsonText(v, t) {
  if (v === null || v === undefined) return 'null';
  const k = typeKind(t);
  switch (k) {
    case 'boolean': return v ? 'true' : 'false';
    case 'int': case 'long': return v.toString();
    case 'float': return jsonNumber(Math.fround(v), true);
    case 'double': return jsonNumber(v);
    case 'decimal': return JSON.stringify(decimalText(v, parseType(t).scale));
    case 'date': return JSON.stringify(dateText(v));
    case 'time': return JSON.stringify(timeOfDay(v, 1000000n, 6));
    case 'timestamp': return JSON.stringify(timestampText(v, 1000000n, 6, false));
    case 'timestamptz': return JSON.stringify(timestampText(v, 1000000n, 6, true));
    case 'timestamp_ns': return JSON.stringify(timestampText(v, 1000000000n, 9, false));
    case 'timestamptz_ns': return JSON.stringify(timestampText(v, 1000000000n, 9, true));
    case 'string': case 'uuid': case 'binary': case 'fixed':
      return JSON.stringify(v);
    case 'variant':
      return `{"metadata":${JSON.stringify(v.metadata)},"value":${JSON.stringify(v.value)}}`;
    case 'struct':
      return '{' + t.fields.map((f) =>
        `"${f.id}":${toJsonText(v.get(f.id), f.type)}`).join(',') + '}';
    case 'list':
      return '[' + v.map((x) => toJsonText(x, t.element)).join(',') + ']';
    case 'map':
      return `{"keys":[${v.keys.map((x) => toJsonText(x, t.key)).join(',')}],` +
             `"values":[${v.values.map((x) => toJsonText(x, t.value)).join(',')}]}`;
    default:
      throw new Error(`no JSON form for type ${JSON.stringify(t)}`);
  }
}

function parseTimestamp(s, perSec) {
  const m = /^([+-]?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:\d\d)?$/.exec(s);
  if (!m) throw new Error(`bad timestamp ${s}`);
  const days = BigInt(daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])));
  const digits = perSec === 1000000n ? 6 : 9;
  const frac = BigInt((m[7] || '').padEnd(digits, '0').slice(0, digits) || '0');
  let secs = days * 86400n + BigInt(m[4]) * 3600n + BigInt(m[5]) * 60n + BigInt(m[6] || 0);
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1n : 1n;
    secs -= sign * (BigInt(m[8].slice(1, 3)) * 3600n + BigInt(m[8].slice(4, 6)) * 60n);
  }
  return secs * perSec + frac;
}

// Internal value from a JSON single-value (an initial-default).
export function fromJsonValue(j, t) {
  if (j === null || j === undefined) return null;
  const k = typeKind(t);
  switch (k) {
    case 'boolean': return Boolean(j);
    case 'int': case 'long': return BigInt(j);
    case 'float': case 'double': return Number(j);
    case 'decimal': {
      const { scale } = parseType(t);
      const s = String(j);
      const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
      if (!m) throw new Error(`bad decimal ${s}`);
      let u = BigInt(m[2] + (m[3] || '') || '0');
      const fscale = (m[3] || '').length - Number(m[4] || 0);
      if (fscale < scale) u *= 10n ** BigInt(scale - fscale);
      else if (fscale > scale) u /= 10n ** BigInt(fscale - scale);
      return m[1] ? -u : u;
    }
    case 'date': {
      const m = /^([+-]?\d{4,})-(\d\d)-(\d\d)$/.exec(j);
      return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case 'time': {
      const m = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?$/.exec(j);
      return (BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3] || 0)) * 1000000n +
             BigInt((m[4] || '').padEnd(6, '0').slice(0, 6) || '0');
    }
    case 'timestamp': case 'timestamptz': return parseTimestamp(j, 1000000n);
    case 'timestamp_ns': case 'timestamptz_ns': return parseTimestamp(j, 1000000000n);
    case 'string': return String(j);
    case 'uuid': case 'binary': case 'fixed': return String(j).toLowerCase();
    case 'struct': {
      const out = new Map();
      for (const f of t.fields) {
        const d = j[String(f.id)];
        out.set(f.id, d === undefined ? fromJsonValue(f['initial-default'], f.type)
                                      : fromJsonValue(d, f.type));
      }
      return out;
    }
    case 'list': return j.map((x) => fromJsonValue(x, t.element));
    case 'map': return { keys: j.keys.map((x) => fromJsonValue(x, t.key)),
                         values: j.values.map((x) => fromJsonValue(x, t.value)) };
    default: throw new Error(`no default for type ${JSON.stringify(t)}`);
  }
}

// ------------------------------------------------------------ Parquet

function annotationOf(el) {
  const lt = el.logical_type?.type;
  const ct = el.converted_type;
  if (el.type === 'INT96') return 'ns';
  if (lt === 'TIMESTAMP' || lt === 'TIME' || /^(TIMESTAMP|TIME)_/.test(ct || ''))
    return 'ns';        // canonical.mjs gives nanoseconds
  if (lt === 'STRING' || lt === 'JSON' || lt === 'ENUM' || ct === 'UTF8' ||
      ct === 'ENUM' || ct === 'JSON') return 'string';
  if (lt === 'UUID') return 'uuid';
  if (lt === 'DECIMAL' || ct === 'DECIMAL') return 'decimal';
  return null;
}

const hexToUtf8 = (h) => Buffer.from(h.slice(2), 'hex').toString('utf8');

function listElementNode(node) {
  let elem = node.children[0];
  if (elem.children.length === 1 &&
      !(elem.element.converted_type === 'MAP_KEY_VALUE')) elem = elem.children[0];
  return elem;
}

// Internal value of Iceberg type t from a canonical Parquet value of node.
function fromCanonical(v, t, node) {
  if (v === null || v === undefined) return null;
  const k = typeKind(t);
  const ann = node ? annotationOf(node.element) : null;
  switch (k) {
    case 'boolean': return Boolean(v);
    case 'int': case 'long': return BigInt(v);
    case 'float': case 'double': return Number(v);
    case 'decimal': {
      if (typeof v === 'string' && v.startsWith('0x')) throw new Error('undecorated decimal');
      return fromJsonValue(String(v), t);
    }
    case 'date': return Number(v);
    case 'time':
      return ann === 'ns' ? BigInt(v) / 1000n : BigInt(v);
    case 'timestamp': case 'timestamptz':
      return ann === 'ns' ? floorDiv(BigInt(v), 1000n) : BigInt(v);
    case 'timestamp_ns': case 'timestamptz_ns':
      return ann === 'ns' ? BigInt(v) : BigInt(v) * 1000n;
    case 'string':
      return typeof v === 'string' && ann !== 'string' && v.startsWith('0x') ? hexToUtf8(v) : v;
    case 'uuid': {
      if (ann === 'uuid') return v.toLowerCase();
      const h = v.slice(2);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    case 'binary': case 'fixed':
      return ann === 'string' ? Buffer.from(v, 'utf8').toString('hex') : v.slice(2);
    case 'variant': {
      const names = node.children.map((c) => c.element.name);
      return { metadata: v[names.includes('metadata') ? 'metadata' : names[0]].slice(2),
               value: v[names.includes('value') ? 'value' : names[1]].slice(2) };
    }
    case 'struct': {
      const out = new Map();
      for (const f of t.fields) {
        const child = node.children.find((c) => c.fieldId === f.id);
        out.set(f.id, child ? fromCanonical(v[child.element.name], f.type, child)
                            : fromJsonValue(f['initial-default'], f.type));
      }
      return out;
    }
    case 'list': {
      const elem = listElementNode(node);
      return v.map((x) => fromCanonical(x, t.element, elem));
    }
    case 'map': {
      const [kn, vn] = node.children[0].children;
      return { keys: v.map((e) => fromCanonical(e.key, t.key, kn)),
               values: v.map((e) => fromCanonical(e.value, t.value, vn)) };
    }
    default: throw new Error(`cannot read type ${JSON.stringify(t)}`);
  }
}

// Field ids on the tree: the file's, else the name mapping's.
// The repeated group between a LIST or MAP column and its element or
// key/value has no name in a name mapping: the mapping passes through it.
function isListOrMapMiddle(node, c) {
  const kind = node.element?.converted_type ?? node.element?.logical_type?.type;
  return c.element.repetition_type === 'REPEATED' && c.children.length > 0 &&
    (kind === 'LIST' || kind === 'MAP' || kind === 'MAP_KEY_VALUE');
}

function assignIds(node, mapping) {
  for (const c of node.children) {
    let id = c.element.field_id;
    let sub = null;
    if ((id === undefined || id === null) && mapping && isListOrMapMiddle(node, c)) {
      c.fieldId = null;
      assignIds(c, mapping);
      continue;
    }
    if (id === undefined || id === null) {
      const m = mapping?.find((e) => e.names?.includes(c.element.name));
      id = m ? m['field-id'] : undefined;
      sub = m?.fields ?? null;
    }
    c.fieldId = id ?? null;
    // nested: a list's or map's inner groups map through their element,
    // key and value names
    if (c.children.length) assignIds(c, sub);
  }
}

function hasIds(tree) {
  const walk = (n) => n.children.some((c) =>
    (c.element.field_id !== undefined && c.element.field_id !== null) || walk(c));
  return walk(tree);
}


export async function readParquet(file, nameMapping) {
  const { parquetMetadata, parquetSchema, parquetRead } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  const buf = fs.readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const metadata = parquetMetadata(ab);
  const tree = parquetSchema(metadata);
  if (hasIds(tree)) assignIds(tree, null);
  else assignIds(tree, nameMapping);
  let raw = [];
  await parquetRead({
    file: ab, metadata: hyparquetRawMetadata(metadata), compressors,
    utf8: false, geoparquet: false, parsers: hyparquetParsers,
    rowFormat: 'array', onComplete: (rows) => { raw = rows; },
  });
  const canon = raw.map((r) => tree.children.map((c, i) => canonicalFromHyparquet(r[i], c)));
  return { tree, rows: canon };
}

// ------------------------------------------------------------ deletion vectors

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// One 32-bit Roaring bitmap in the portable format at buf[off]; adds each
// value (high << 32 | low) to out. Returns the offset after it.
function readRoaring32(buf, off, high, out) {
  const cookie = buf.readUInt32LE(off);
  let n, runs = null, pos;
  if ((cookie & 0xffff) === 12347) {
    n = (cookie >>> 16) + 1;
    pos = off + 4;
    runs = buf.subarray(pos, pos + Math.ceil(n / 8));
    pos += Math.ceil(n / 8);
  } else if (cookie === 12346) {
    n = buf.readUInt32LE(off + 4);
    pos = off + 8;
  } else {
    throw new Error(`roaring: bad cookie ${cookie}`);
  }
  const keys = [], cards = [];
  for (let i = 0; i < n; i++) {
    keys.push(buf.readUInt16LE(pos));
    cards.push(buf.readUInt16LE(pos + 2) + 1);
    pos += 4;
  }
  if (!runs || n >= 4) pos += 4 * n;      // offset header
  const base = BigInt(high) << 32n;
  for (let i = 0; i < n; i++) {
    const hi16 = BigInt(keys[i]) << 16n;
    const isRun = runs && (runs[i >> 3] >> (i & 7)) & 1;
    if (isRun) {
      const nr = buf.readUInt16LE(pos);
      pos += 2;
      for (let r = 0; r < nr; r++) {
        const start = buf.readUInt16LE(pos), len = buf.readUInt16LE(pos + 2);
        pos += 4;
        for (let x = start; x <= start + len; x++) out.add(base | hi16 | BigInt(x));
      }
    } else if (cards[i] <= 4096) {
      for (let j = 0; j < cards[i]; j++) {
        out.add(base | hi16 | BigInt(buf.readUInt16LE(pos)));
        pos += 2;
      }
    } else {
      for (let w = 0; w < 1024; w++) {
        const word = buf.readBigUInt64LE(pos + w * 8);
        if (word === 0n) continue;
        for (let b = 0; b < 64; b++)
          if ((word >> BigInt(b)) & 1n) out.add(base | hi16 | BigInt(w * 64 + b));
      }
      pos += 8192;
    }
  }
  return pos;
}

export function readDeletionVector(file, offset, size) {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(size);
  try { fs.readSync(fd, buf, 0, size, offset); } finally { fs.closeSync(fd); }
  const len = buf.readUInt32BE(0);
  if (len + 8 !== size) throw new Error(`${file}: DV length ${len} vs blob ${size}`);
  if (buf.readUInt32BE(4) !== 0xd1d33964) throw new Error(`${file}: DV magic`);
  if (crc32(buf.subarray(4, 4 + len)) !== buf.readUInt32BE(4 + len))
    throw new Error(`${file}: DV CRC`);
  const out = new Set();
  const count = Number(buf.readBigUInt64LE(8));
  let pos = 16;
  for (let i = 0; i < count; i++) {
    const key = buf.readUInt32LE(pos);
    pos = readRoaring32(buf, pos + 4, key, out);
  }
  if (pos !== 4 + len) throw new Error(`${file}: DV has ${4 + len - pos} stray bytes`);
  return out;
}

// ------------------------------------------------------------ planning

function idsOf(schema) {
  return new Map(schema.fields.map((f) => [f['field-id'], f]));
}

const base = (t) => (Array.isArray(t) ? t.find((b) => b !== 'null') : t);

// Live entries of a snapshot: {content, path, seq, specId, partition
// (canonical JSON text keyed by partition field id), partitionById (Map),
// record_count, equality_ids, referenced, offset, size}.
export async function snapshotEntries(meta, snap, resolve) {
  let manifests;
  if (snap['manifest-list']) {
    const ml = await readAvro(resolve(snap['manifest-list']));
    const byId = idsOf(JSON.parse(ml.schemaText));
    const g = (r, id, d) => (byId.has(id) ? r[byId.get(id).name] : d);
    manifests = ml.records.map((r) => ({
      path: g(r, 500), specId: g(r, 502, 0), content: g(r, 517, 0),
      seq: BigInt(g(r, 515, '0')),
      firstRowId: g(r, 520, null),
    }));
  } else {
    manifests = (snap.manifests || []).map((p) => ({ path: p, specId: null, content: 0, seq: 0n }));
  }
  const out = [];
  for (const mf of manifests) {
    const m = await readAvro(resolve(mf.path));
    const schema = JSON.parse(m.schemaText);
    const byId = idsOf(schema);
    const dfSchema = base(byId.get(2).type);
    const dfById = idsOf(dfSchema);
    const partSchema = base(dfById.get(102).type);
    const specId = mf.specId ?? Number(m.meta['partition-spec-id']?.toString() ?? 0);
    // v3 first_row_id inheritance (spec "First Row ID Inheritance"): a
    // data file without one gets the manifest's plus the record counts
    // of the data files before it that had none.
    let nextRowId = mf.firstRowId === null || mf.firstRowId === undefined ? null : BigInt(mf.firstRowId);
    for (const rec of m.records) {
      const status = rec[byId.get(0).name];
      const d = rec[byId.get(2).name];
      const get = (id) => (dfById.has(id) ? d[dfById.get(id).name] : null);
      let firstRowId = get(142);
      if ((dfById.has(134) ? get(134) : 0) === 0 && (firstRowId === null || firstRowId === undefined)) {
        firstRowId = nextRowId;
        if (nextRowId !== null) nextRowId += BigInt(get(103));
      }
      if (status === 2) continue;
      let seq = byId.has(3) ? rec[byId.get(3).name] : null;
      if (seq === null || seq === undefined) {
        if (status !== 1 && mf.seq !== 0n)
          throw new Error(`${mf.path}: existing entry without a sequence number`);
        seq = mf.seq;
      }
      const part = get(102) || {};
      const partById = new Map();
      for (const pf of partSchema.fields) partById.set(pf['field-id'], part[pf.name]);
      out.push({
        content: dfById.has(134) ? get(134) : 0,
        path: get(100), format: get(101), seq: BigInt(seq), specId,
        partition: JSON.stringify([...partById.entries()]), partById,
        partTypes: new Map(partSchema.fields.map((pf) => [pf['field-id'], base(pf.type)])),
        recordCount: BigInt(get(103)), equalityIds: get(135),
        referenced: get(143), offset: get(144), size: get(145),
        firstRowId: firstRowId === null || firstRowId === undefined ? null : BigInt(firstRowId),
      });
    }
  }
  return out;
}

function specOf(meta, id) {
  if (meta['partition-specs'])
    return meta['partition-specs'].find((s) => s['spec-id'] === id);
  return { 'spec-id': 0, fields: meta['partition-spec'] || [] };
}

export function planTasks(meta, entries) {
  const data = entries.filter((e) => e.content === 0);
  const posFiles = entries.filter((e) => e.content === 1);
  const eqFiles = entries.filter((e) => e.content === 2);
  const samePart = (a, b) => a.specId === b.specId && a.partition === b.partition;
  return data.map((df) => {
    const dvs = posFiles.filter((d) => d.format?.toUpperCase() === 'PUFFIN' &&
      d.referenced === df.path && df.seq <= d.seq && samePart(df, d));
    const pos = dvs.length ? [] : posFiles.filter((d) =>
      d.format?.toUpperCase() !== 'PUFFIN' &&
      (d.referenced === null || d.referenced === undefined || d.referenced === df.path) &&
      df.seq <= d.seq && samePart(df, d));
    const eq = eqFiles.filter((d) => df.seq < d.seq &&
      (samePart(df, d) || specOf(meta, d.specId).fields.length === 0));
    return { data: df, dvs, pos, eq };
  });
}

// ------------------------------------------------------------ reading

// The schema a scan reads with: the table's current schema, or, for a
// snapshot chosen by id (time travel), the schema that snapshot records.
export function scanSchema(meta, snap, byId = false) {
  const schemas = meta.schemas || [meta.schema];
  let id = byId && snap && snap['schema-id'] !== undefined ? snap['schema-id'] : meta['current-schema-id'];
  if (id === undefined) id = schemas[0]['schema-id'];
  return schemas.find((s) => s['schema-id'] === id) || schemas[schemas.length - 1];
}

function findFieldType(meta, id) {
  const schemas = [...(meta.schemas || [meta.schema])].reverse();
  for (const s of schemas) {
    const f = s.fields.find((x) => x.id === id);
    if (f) return f;
  }
  throw new Error(`field id ${id} is in no schema`);
}

// Identity-partition value of field id in the data file's partition.
function identityValue(meta, df, field) {
  const spec = specOf(meta, df.specId);
  const pf = spec?.fields.find((p) => p['source-id'] === field.id && p.transform === 'identity');
  if (!pf) return undefined;
  const pid = pf['field-id'] ?? (1000 + spec.fields.indexOf(pf));
  if (!df.partById.has(pid)) return undefined;
  const v = df.partById.get(pid);
  if (v === null || v === undefined) return null;
  const k = typeKind(field.type);
  switch (k) {
    case 'boolean': return Boolean(v);
    case 'int': case 'long': case 'time': case 'timestamp': case 'timestamptz':
    case 'timestamp_ns': case 'timestamptz_ns': return BigInt(v);
    case 'float': case 'double': return Number(v);
    case 'date': return Number(v);
    case 'string': return v;
    case 'binary': case 'fixed': return v.slice(2);
    case 'decimal': {
      const b = Buffer.from(v.slice(2), 'hex');
      let n = 0n;
      for (const x of b) n = (n << 8n) | BigInt(x);
      if (b.length && b[0] & 0x80) n -= 1n << BigInt(8 * b.length);
      return n;
    }
    case 'uuid': {
      const h = v.slice(2);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    default: throw new Error(`identity partition of type ${k}`);
  }
}

// Value of top-level field `field` in row i of a read file.
function fieldValue(meta, df, file, row, field) {
  const idx = file.tree.children.findIndex((c) => c.fieldId === field.id);
  if (idx >= 0) return fromCanonical(row[idx], field.type, file.tree.children[idx]);
  const pv = df ? identityValue(meta, df, field) : undefined;
  if (pv !== undefined) return pv;
  return fromJsonValue(field['initial-default'], field.type);
}

function nameMappingOf(meta) {
  const p = meta.properties?.['schema.name-mapping.default'];
  return p ? JSON.parse(p) : null;
}

function pathMatches(a, b) {
  return a === b || stripScheme(a) === stripScheme(b);
}

// Row lineage (spec "Row Lineage"): the file's _row_id and
// _last_updated_sequence_number where non-null, else inherited from the
// file's first_row_id + position and its data sequence number. A file
// with no first_row_id (an upgraded table's snapshot from before any v3
// commit) reads null for both, per the reader rules of the spec's
// version 3 changes (a null first_row_id gives null in both columns).
const ROW_ID_ID = 2147483540, LAST_SEQ_ID = 2147483539;
function lineageText(df, file, row, i) {
  const col = (id) => {
    const k = file.tree.children.findIndex((c) => c.fieldId === id);
    return k >= 0 && row[k] !== null && row[k] !== undefined ? BigInt(row[k]) : null;
  };
  let rid = col(ROW_ID_ID), seq = col(LAST_SEQ_ID);
  if (rid === null && df.firstRowId !== null) rid = df.firstRowId + BigInt(i);
  if (seq === null && df.firstRowId !== null) seq = df.seq;
  return `,"_row_id":${rid === null ? 'null' : rid},"_last_updated_sequence_number":${seq === null ? 'null' : seq}`;
}

async function liveRows(meta, task, resolve, schema, mapping, lineage = false) {
  const df = task.data;
  const file = await readParquet(resolve(df.path), mapping);
  const deleted = new Set();
  for (const dv of task.dvs) {
    for (const p of readDeletionVector(resolve(dv.path), Number(dv.offset), Number(dv.size)))
      deleted.add(p);
  }
  for (const pd of task.pos) {
    const f = await readParquet(resolve(pd.path), mapping);
    const pi = f.tree.children.findIndex((c) => c.fieldId === POS_PATH_ID || c.element.name === 'file_path');
    const qi = f.tree.children.findIndex((c) => c.fieldId === POS_POS_ID || c.element.name === 'pos');
    for (const r of f.rows) {
      if (r[pi] === null || r[pi] === undefined || r[qi] === null) continue;
      if (pathMatches(r[pi], df.path)) deleted.add(BigInt(r[qi]));
    }
  }
  const eqSets = [];
  for (const ed of task.eq) {
    const f = await readParquet(resolve(ed.path), mapping);
    const fields = ed.equalityIds.map((id) => findFieldType(meta, id));
    const keys = new Set();
    for (const r of f.rows)
      keys.add(fields.map((fl) => toJsonText(fieldValue(meta, null, f, r, fl), fl.type)).join('\u0001'));
    eqSets.push({ fields, keys });
  }
  const out = [];
  let byPos = 0, byEq = 0;
  file.rows.forEach((r, i) => {
    if (deleted.has(BigInt(i))) { byPos++; return; }
    for (const s of eqSets) {
      const key = s.fields.map((fl) => toJsonText(fieldValue(meta, df, file, r, fl), fl.type)).join('\u0001');
      if (s.keys.has(key)) { byEq++; return; }
    }
    out.push('{' + schema.fields.map((f) =>
      `${JSON.stringify(f.name)}:${toJsonText(fieldValue(meta, df, file, r, f), f.type)}`).join(',') +
      (lineage ? lineageText(df, file, r, i) : '') + '}');
  });
  return { rows: out, read: file.rows.length, byPos, byEq };
}

export function loadTable(dir, { remaps = [], metadataFile = null } = {}) {
  const mfile = metadataFile || findLatestMetadata(dir);
  const meta = parseMetadataText(readMetadataText(mfile));
  const resolve = makeResolver(dir, meta.location, remaps);
  return { meta, resolve, metadataFile: mfile };
}

export function snapshotOf(meta, snapshotId) {
  const id = snapshotId ?? meta['current-snapshot-id'];
  if (id === undefined || id === null || String(id) === '-1') return null;
  const s = (meta.snapshots || []).find((x) => String(x['snapshot-id']) === String(id));
  if (!s) throw new Error(`snapshot ${id} is not in the table`);
  return s;
}

// {schema, rows: [json line], stats}; opts.lineage: each line ends with
// the rows' _row_id and _last_updated_sequence_number.
export async function referenceScan(dir, opts = {}) {
  const { meta, resolve } = loadTable(dir, opts);
  const snap = snapshotOf(meta, opts.snapshotId ?? null);
  const schema = scanSchema(meta, snap, opts.snapshotId !== undefined && opts.snapshotId !== null);
  const stats = { dataFiles: 0, read: 0, byPos: 0, byEq: 0 };
  const rows = [];
  if (!snap) return { schema, rows, stats };
  const entries = await snapshotEntries(meta, snap, resolve);
  const mapping = nameMappingOf(meta);
  for (const task of planTasks(meta, entries)) {
    if (task.data.format && task.data.format.toUpperCase() !== 'PARQUET')
      throw new Error(`${task.data.path}: ${task.data.format} data files are not read here`);
    const r = await liveRows(meta, task, resolve, schema, mapping, !!opts.lineage);
    stats.dataFiles++;
    stats.read += r.read; stats.byPos += r.byPos; stats.byEq += r.byEq;
    for (const line of r.rows) rows.push(line);
  }
  return { schema, rows, stats };
}

async function main(argv) {
  const remaps = [];
  let snapshotId = null, count = false, metadataFile = null, listSnaps = false, dir = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--remap') {
      const v = argv[++i];
      const eq = v.indexOf('=');
      remaps.push([v.slice(0, eq), v.slice(eq + 1)]);
    } else if (a === '--snapshot') snapshotId = argv[++i];
    else if (a === '--count') count = true;
    else if (a === '--metadata') metadataFile = argv[++i];
    else if (a === '--snapshots') listSnaps = true;
    else dir = a;
  }
  if (!dir) {
    console.error('usage: node scan_reference.mjs [--remap OLD=NEW]... [--snapshot ID] [--count] TABLE_DIR');
    process.exit(2);
  }
  if (listSnaps) {
    const { meta } = loadTable(dir, { remaps, metadataFile });
    for (const s of meta.snapshots || []) console.log(String(s['snapshot-id']));
    return;
  }
  const r = await referenceScan(dir, { remaps, snapshotId, metadataFile });
  if (count) console.log(r.rows.length);
  else process.stdout.write(r.rows.map((l) => l + '\n').join(''));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`scan_reference: ${e.message}`);
    process.exit(1);
  });
}
