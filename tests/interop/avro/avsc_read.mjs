// The one Avro reader of the JavaScript tests: decodes an object container
// file with avsc (independent of our codec), longs as BigInt
// (LongType.__with, per avsc's docs). readAvro wraps unions so that every
// branch is known and turns each record into the canonical form of
// tools/zb_avro_cat.c; readAvroRecords gives avsc's own values (unions
// unwrapped) and the writer's schema, for checks of manifests by field.
// Codecs: null and deflate are avsc's; snappy (hysnappy, with the CRC32
// checked) and zstd (fzstd) come with hyparquet-compressors.
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
let avro;
try {
  avro = require('avsc');
} catch (e) {
  console.error('avsc is missing: run scripts/install-deps.sh (npm ci)');
  process.exit(1);
}
const { snappyUncompress } = await import('hysnappy');
const { decompress: zstdDecompress } = await import('fzstd');

export const longType = avro.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a === b ? 0 : a < b ? -1 : 1),
});

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

function snappyLength(buf) {
  let n = 0, shift = 0, i = 0;
  for (;;) {
    const b = buf[i++];
    n += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return n;
    shift += 7;
  }
}

const codecs = {
  null: (buf, cb) => cb(null, buf),
  deflate: (buf, cb) => zlib.inflateRaw(buf, cb),
  snappy: (buf, cb) => {
    try {
      const body = buf.subarray(0, buf.length - 4);
      const out = Buffer.from(snappyUncompress(body, snappyLength(body)));
      if (crc32(out) !== buf.readUInt32BE(buf.length - 4))
        return cb(new Error('snappy CRC32 mismatch'));
      cb(null, out);
    } catch (e) {
      cb(e);
    }
  },
  zstd: (buf, cb) => {
    try {
      cb(null, Buffer.from(zstdDecompress(buf)));
    } catch (e) {
      cb(e);
    }
  },
};

function num(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return x;
}

// The canonical form of zb-avro-cat (see its header comment).
export function canonical(type, v) {
  const t = type.typeName;
  if (type === longType || t === 'abstract:long') return v.toString();
  switch (t) {
    case 'null': return null;
    case 'boolean': case 'int': case 'string': case 'enum': return v;
    case 'long': return String(v);
    case 'float': case 'double': return num(v);
    case 'bytes': case 'fixed': return '0x' + Buffer.from(v).toString('hex');
    case 'record': case 'error': {
      const o = {};
      for (const f of type.fields) o[f.name] = canonical(f.type, v[f.name]);
      return o;
    }
    case 'array': return v.map((x) => canonical(type.itemsType, x));
    case 'map': {
      const o = {};
      for (const k of Object.keys(v)) o[k] = canonical(type.valuesType, v[k]);
      return o;
    }
    case 'union:wrapped': {
      if (v === null) return null;
      const name = Object.keys(v)[0];
      const branch = type.types.find((b) => b.branchName === name);
      return canonical(branch, v[name]);
    }
    default:
      if (type.underlyingType) return canonical(type.underlyingType, v);
      throw new Error(`unhandled avsc type ${t}`);
  }
}

// Decodes every record of one file with the BigInt long type; unions are
// wrapped ({branch: value}) when wrapUnions, else a value or null.
function decodeFile(path, wrapUnions) {
  return new Promise((resolve, reject) => {
    let schema = null, type = null, header = null;
    const records = [];
    avro.createFileDecoder(path, {
      codecs,
      parseHook: (s) => {
        schema = s;
        return avro.Type.forSchema(s, {
          registry: { long: longType },
          wrapUnions,
          // {"type": "long", "logicalType": ...} does not go through the
          // registry: every long, bare or annotated, is the BigInt type.
          typeHook: (t) => (t === 'long' || (t && t.type === 'long')
                            ? longType : undefined),
        });
      },
    })
      .on('metadata', (t, codec, h) => { type = t; header = h; })
      .on('data', (rec) => records.push(rec))
      .on('error', reject)
      .on('end', () => resolve({ schema, type, header, records }));
  });
}

// { schemaText, codec, meta, records: [canonical...] } of one file.
export async function readAvro(path) {
  const { type, header, records } = await decodeFile(path, true);
  return {
    schemaText: header.meta['avro.schema'].toString(),
    codec: (header.meta['avro.codec'] || 'null').toString(),
    meta: header.meta,
    records: records.map((rec) => canonical(type, rec)),
  };
}

// { schema, meta, records } of one file as avsc decodes it, for checks
// that read fields by name: schema is the writer's (parsed JSON, with its
// field-id attributes), longs are BigInt, a union is its value or null.
export async function readAvroRecords(path) {
  const { schema, header, records } = await decodeFile(path, false);
  return { schema, meta: header.meta, records };
}
