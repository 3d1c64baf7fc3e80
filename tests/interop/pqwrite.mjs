// A small, self-contained Parquet writer for the interop tests, written from
// the Parquet format spec (parquet.thrift, Encodings.md) and the Thrift
// compact protocol spec. It exists to write what DuckDB and hyparquet-writer
// cannot: v1 pages with legacy BIT_PACKED levels, INT96, legacy two-level
// lists and bare repeated fields, Hadoop-framed LZ4 (codec 5), rows split
// across v1 page boundaries, and (also) DATA_PAGE_V2, RLE booleans and
// DELTA_BYTE_ARRAY in v1 pages. It is deliberately simple: no statistics, no
// dictionaries, no indexes. Not a general-purpose writer.
//
//   import { writeParquet } from './pqwrite.mjs'
//   const bytes = writeParquet({
//     schema: [ { name, repetition, type, typeLength, convertedType, scale, precision, children }, ... ],
//     rows: [ { col: value, ... }, ... ],      // physical shape (see shred below)
//     rowGroups: [n1, n2, ...],                 // rows per row group (default: one group)
//     columns: { 'a.b.c': opts, ... },          // per leaf, by dotted path; `default` for all others
//   })
//
// Column options (all optional):
//   page:       'v1' (DATA_PAGE, default) | 'v2' (DATA_PAGE_V2)
//   encoding:   'PLAIN' (default) | 'RLE' (BOOLEAN only) | 'DELTA_BINARY_PACKED' (INT32/INT64)
//               | 'DELTA_LENGTH_BYTE_ARRAY' | 'DELTA_BYTE_ARRAY' (BYTE_ARRAY)
//   levels:     'RLE' (default) | 'BIT_PACKED' (v1 only: legacy MSB-first levels, no length prefix)
//   codec:      'UNCOMPRESSED' (default) | 'LZ4' (Hadoop framing, codec 5)
//   pageValues: at most this many level entries per page (default: one page)
//   splitRows:  v1 only: cut pages exactly at pageValues even inside a repeated row
//   v2Uncompressed: v2 with a codec: write is_compressed=false pages (data stored raw)
//
// Row values in "physical shape": a REPEATED field takes an array (null or
// [] = no occurrence), a group takes an object, a leaf takes: BOOLEAN bool;
// INT32 number; INT64 bigint or number; INT96 bigint nanoseconds since the
// epoch (stored as Julian day + nanoseconds of day); FLOAT/DOUBLE number;
// BYTE_ARRAY string (UTF-8) or Uint8Array; FIXED_LEN_BYTE_ARRAY Uint8Array.

// ---------------------------------------------------------------- constants
const TYPE = { BOOLEAN: 0, INT32: 1, INT64: 2, INT96: 3, FLOAT: 4, DOUBLE: 5, BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 };
const REP = { REQUIRED: 0, OPTIONAL: 1, REPEATED: 2 };
const CONVERTED = {
    UTF8: 0, MAP: 1, MAP_KEY_VALUE: 2, LIST: 3, ENUM: 4, DECIMAL: 5, DATE: 6, TIME_MILLIS: 7, TIME_MICROS: 8,
    TIMESTAMP_MILLIS: 9, TIMESTAMP_MICROS: 10, UINT_8: 11, UINT_16: 12, UINT_32: 13, UINT_64: 14,
    INT_8: 15, INT_16: 16, INT_32: 17, INT_64: 18, JSON: 19, BSON: 20, INTERVAL: 21,
};
const ENC = { PLAIN: 0, PLAIN_DICTIONARY: 2, RLE: 3, BIT_PACKED: 4, DELTA_BINARY_PACKED: 5, DELTA_LENGTH_BYTE_ARRAY: 6, DELTA_BYTE_ARRAY: 7, RLE_DICTIONARY: 8 };
const CODEC = { UNCOMPRESSED: 0, SNAPPY: 1, GZIP: 2, LZO: 3, BROTLI: 4, LZ4: 5, ZSTD: 6, LZ4_RAW: 7 };
const PAGE = { DATA_PAGE: 0, DICTIONARY_PAGE: 2, DATA_PAGE_V2: 3 };

// ---------------------------------------------------------------- bytes
class Bytes {
    constructor() { this.buf = new Uint8Array(1024); this.len = 0; }
    ensure(n) {
        if (this.len + n <= this.buf.length) return;
        let cap = this.buf.length * 2;
        while (cap < this.len + n) cap *= 2;
        const b = new Uint8Array(cap); b.set(this.buf.subarray(0, this.len)); this.buf = b;
    }
    u8(b) { this.ensure(1); this.buf[this.len++] = b & 0xff; }
    bytes(a) { this.ensure(a.length); this.buf.set(a, this.len); this.len += a.length; }
    u32le(v) { this.ensure(4); new DataView(this.buf.buffer).setUint32(this.len, v >>> 0, true); this.len += 4; }
    u32be(v) { this.ensure(4); new DataView(this.buf.buffer).setUint32(this.len, v >>> 0, false); this.len += 4; }
    i64le(v) { this.ensure(8); new DataView(this.buf.buffer).setBigInt64(this.len, BigInt.asIntN(64, BigInt(v)), true); this.len += 8; }
    f32le(v) { this.ensure(4); new DataView(this.buf.buffer).setFloat32(this.len, v, true); this.len += 4; }
    f64le(v) { this.ensure(8); new DataView(this.buf.buffer).setFloat64(this.len, v, true); this.len += 8; }
    uleb(v) { // unsigned LEB128 of a non-negative number or bigint
        let x = BigInt(v);
        if (x < 0n) throw new Error(`uleb of negative ${v}`);
        do { let b = Number(x & 0x7fn); x >>= 7n; if (x) b |= 0x80; this.u8(b); } while (x);
    }
    zigzag(v, bits = 64) { const x = BigInt.asIntN(bits, BigInt(v)); this.uleb(BigInt.asUintN(bits, (x << 1n) ^ (x >> BigInt(bits - 1)))); }
    get() { return this.buf.slice(0, this.len); }
}
const utf8 = new TextEncoder();
const asBytes = v => (typeof v === 'string' ? utf8.encode(v) : v);

// ---------------------------------------------------------------- thrift compact protocol
// A struct is an array of [fieldId, kind, value]; fields whose value is
// undefined are left out. Kinds: 'bool', 'i32', 'i64', 'binary',
// 'struct', ['list', elemKind].
const CT = { bool_true: 1, bool_false: 2, i32: 5, i64: 6, binary: 8, list: 9, struct: 12 };
function ctype(kind) { return Array.isArray(kind) ? CT.list : kind === 'bool' ? CT.bool_true : CT[kind]; }

function writeValue(w, kind, v) {
    if (Array.isArray(kind)) {
        const et = ctype(kind[1]);
        if (v.length < 15) w.u8((v.length << 4) | et); else { w.u8(0xf0 | et); w.uleb(v.length); }
        for (const x of v) kind[1] === 'bool' ? w.u8(x ? 1 : 2) : writeValue(w, kind[1], x);
    } else if (kind === 'i32') w.zigzag(v, 32);
    else if (kind === 'i64') w.zigzag(v, 64);
    else if (kind === 'binary') { const b = asBytes(v); w.uleb(b.length); w.bytes(b); }
    else if (kind === 'struct') writeStruct(w, v);
    else throw new Error(`thrift kind ${kind}`);
}

function writeStruct(w, fields) {
    let last = 0;
    for (const [id, kind, v] of fields) {
        if (v === undefined || v === null) continue;
        const t = kind === 'bool' ? (v ? CT.bool_true : CT.bool_false) : ctype(kind);
        const d = id - last;
        if (d > 0 && d <= 15) w.u8((d << 4) | t); else { w.u8(t); w.zigzag(id, 16); }
        last = id;
        if (kind !== 'bool') writeValue(w, kind, v);
    }
    w.u8(0); // stop
}

// ---------------------------------------------------------------- level and value encodings
const bitWidth = max => (max === 0 ? 0 : 32 - Math.clz32(max));

// RLE / bit-packing hybrid (LSB-first bit packing); no length prefix.
export function rleHybrid(values, width) {
    const w = new Bytes();
    const byteW = (width + 7) >> 3;
    let pending = [];
    const flushPacked = () => {
        if (!pending.length) return;
        const groups = Math.ceil(pending.length / 8);
        while (pending.length < groups * 8) pending.push(0);
        w.uleb((groups << 1) | 1);
        const out = new Uint8Array(groups * width);
        let bit = 0;
        for (const v of pending) {
            for (let b = 0; b < width; b++, bit++) if ((v >>> b) & 1) out[bit >> 3] |= 1 << (bit & 7);
        }
        w.bytes(out);
        pending = [];
    };
    let i = 0;
    while (i < values.length) {
        let run = 1;
        while (i + run < values.length && values[i + run] === values[i]) run++;
        if (run >= 8 && pending.length % 8 === 0) {
            flushPacked();
            w.uleb(run << 1);
            for (let b = 0; b < byteW; b++) w.u8((values[i] >>> (8 * b)) & 0xff);
            i += run;
        } else {
            pending.push(values[i]);
            i++;
        }
    }
    flushPacked();
    return w.get();
}

// Deprecated BIT_PACKED: MSB-first, back to back, last byte zero-padded.
export function bitPackedLegacy(values, width) {
    const out = new Uint8Array(Math.ceil(values.length * width / 8));
    let bit = 0;
    for (const v of values) {
        for (let b = width - 1; b >= 0; b--, bit++) if ((v >>> b) & 1) out[bit >> 3] |= 0x80 >> (bit & 7);
    }
    return out;
}

// DELTA_BINARY_PACKED: blocks of 128 values, 4 miniblocks of 32; arithmetic
// wraps at the physical width (32 or 64 bits).
export function deltaBinaryPacked(values, bits) {
    const w = new Bytes();
    const BLOCK = 128, MINI = 4, PER = BLOCK / MINI;
    const vs = values.map(v => BigInt.asIntN(bits, BigInt(v)));
    w.uleb(BLOCK); w.uleb(MINI); w.uleb(vs.length);
    w.zigzag(vs.length ? vs[0] : 0n, bits);
    const deltas = [];
    for (let i = 1; i < vs.length; i++) deltas.push(BigInt.asIntN(bits, vs[i] - vs[i - 1]));
    for (let s = 0; s < deltas.length; s += BLOCK) {
        const block = deltas.slice(s, s + BLOCK);
        let min = block[0];
        for (const d of block) if (d < min) min = d;
        w.zigzag(min, bits);
        const rel = block.map(d => BigInt.asUintN(bits, d - min));
        const widths = [];
        for (let m = 0; m < MINI; m++) {
            const part = rel.slice(m * PER, (m + 1) * PER);
            let mx = 0n;
            for (const r of part) if (r > mx) mx = r;
            widths.push(part.length ? mx.toString(2).length * (mx > 0n ? 1 : 0) : 0);
        }
        for (const bw of widths) w.u8(bw);
        for (let m = 0; m < MINI; m++) {
            const part = rel.slice(m * PER, (m + 1) * PER);
            if (!part.length) break; // unneeded miniblocks of the last block have no body
            const bw = widths[m];
            const out = new Uint8Array(PER * bw / 8);
            let bit = 0;
            for (let k = 0; k < PER; k++) {
                const r = k < part.length ? part[k] : 0n;
                for (let b = 0; b < bw; b++, bit++) if ((r >> BigInt(b)) & 1n) out[bit >> 3] |= 1 << (bit & 7);
            }
            w.bytes(out);
        }
    }
    return w.get();
}

function deltaLengthByteArray(values) {
    const bs = values.map(asBytes);
    const w = new Bytes();
    w.bytes(deltaBinaryPacked(bs.map(b => b.length), 32));
    for (const b of bs) w.bytes(b);
    return w.get();
}

function deltaByteArray(values) {
    const bs = values.map(asBytes);
    const prefixes = [], suffixes = [];
    let prev = new Uint8Array(0);
    for (const b of bs) {
        let p = 0;
        while (p < b.length && p < prev.length && b[p] === prev[p]) p++;
        prefixes.push(p); suffixes.push(b.subarray(p));
        prev = b;
    }
    const w = new Bytes();
    w.bytes(deltaBinaryPacked(prefixes, 32));
    w.bytes(deltaLengthByteArray(suffixes));
    return w.get();
}

const JULIAN_EPOCH = 2440588n; // Julian day number of 1970-01-01
const NANOS_PER_DAY = 86400n * 1000000000n;

function plain(values, node) {
    const w = new Bytes();
    switch (node.type) {
    case 'BOOLEAN': {
        const out = new Uint8Array(Math.ceil(values.length / 8));
        values.forEach((v, i) => { if (v) out[i >> 3] |= 1 << (i & 7); });
        w.bytes(out); break;
    }
    case 'INT32': for (const v of values) w.u32le(v | 0); break;
    case 'INT64': for (const v of values) w.i64le(v); break;
    case 'INT96': for (const v of values) {
        const n = BigInt(v);
        let day = n / NANOS_PER_DAY, rem = n % NANOS_PER_DAY;
        if (rem < 0n) { rem += NANOS_PER_DAY; day -= 1n; }
        w.i64le(rem); w.u32le(Number(day + JULIAN_EPOCH));
    } break;
    case 'FLOAT': for (const v of values) w.f32le(v); break;
    case 'DOUBLE': for (const v of values) w.f64le(v); break;
    case 'BYTE_ARRAY': for (const v of values) { const b = asBytes(v); w.u32le(b.length); w.bytes(b); } break;
    case 'FIXED_LEN_BYTE_ARRAY': for (const v of values) {
        if (v.length !== node.typeLength) throw new Error(`${node.name}: FLBA value of ${v.length} bytes, want ${node.typeLength}`);
        w.bytes(v);
    } break;
    default: throw new Error(`type ${node.type}`);
    }
    return w.get();
}

function encodeValues(values, node, encoding) {
    switch (encoding) {
    case 'PLAIN': return plain(values, node);
    case 'RLE': {
        if (node.type !== 'BOOLEAN') throw new Error('RLE data encoding is for BOOLEAN only');
        const body = rleHybrid(values.map(v => (v ? 1 : 0)), 1);
        const w = new Bytes(); w.u32le(body.length); w.bytes(body); return w.get(); // length prefix, v1 and v2
    }
    case 'DELTA_BINARY_PACKED': return deltaBinaryPacked(values, node.type === 'INT32' ? 32 : 64);
    case 'DELTA_LENGTH_BYTE_ARRAY': return deltaLengthByteArray(values);
    case 'DELTA_BYTE_ARRAY': return deltaByteArray(values);
    default: throw new Error(`encoding ${encoding}`);
    }
}

// ---------------------------------------------------------------- codecs
// One LZ4 block (LZ4 block format): greedy matching on a 4-byte hash. Keeps
// the format's end-of-block rules: the last match starts at least 12 bytes
// before the end and the last 5 bytes are literals.
export function lz4Block(src) {
    const n = src.length, w = new Bytes();
    const MINMATCH = 4, MFLIMIT = 12, LASTLITERALS = 5;
    const table = new Int32Array(1 << 16).fill(-1);
    const hash = i => Math.imul(src[i] | src[i + 1] << 8 | src[i + 2] << 16 | src[i + 3] << 24, 2654435761) >>> 16;
    const len = (x) => { while (x >= 255) { w.u8(255); x -= 255; } w.u8(x); };
    const sequence = (litStart, litEnd, offset, matchLen) => {
        const L = litEnd - litStart, M = matchLen - MINMATCH;
        w.u8((Math.min(L, 15) << 4) | (matchLen ? Math.min(M, 15) : 0));
        if (L >= 15) len(L - 15);
        w.bytes(src.subarray(litStart, litEnd));
        if (!matchLen) return;
        w.u8(offset & 0xff); w.u8(offset >> 8);
        if (M >= 15) len(M - 15);
    };
    let anchor = 0, i = 0;
    while (i + MFLIMIT <= n) {
        const h = hash(i), cand = table[h];
        table[h] = i;
        if (cand >= 0 && i - cand <= 65535 && src[cand] === src[i] && src[cand + 1] === src[i + 1] &&
            src[cand + 2] === src[i + 2] && src[cand + 3] === src[i + 3]) {
            let m = MINMATCH;
            while (i + m < n - LASTLITERALS && src[cand + m] === src[i + m]) m++;
            sequence(anchor, i, i - cand, m);
            i += m; anchor = i;
        } else i++;
    }
    sequence(anchor, n, 0, 0);
    return w.get();
}

// Hadoop BlockCompressorStream framing: [u32 BE raw size][u32 BE compressed size][LZ4 block].
function compress(codec, bytes) {
    if (codec === 'UNCOMPRESSED') return bytes;
    if (codec === 'LZ4') {
        const block = lz4Block(bytes);
        const w = new Bytes(); w.u32be(bytes.length); w.u32be(block.length); w.bytes(block); return w.get();
    }
    throw new Error(`codec ${codec}`);
}

// ---------------------------------------------------------------- schema
function prepareSchema(children) {
    const leaves = [];
    const walk = (node, parentPath, maxRep, maxDef, chain) => {
        const rep = node.repetition ?? 'OPTIONAL';
        const r = maxRep + (rep === 'REPEATED' ? 1 : 0);
        const d = maxDef + (rep === 'REQUIRED' ? 0 : 1);
        const path = [...parentPath, node.name];
        const ch = [...chain, node];
        if (node.children) node.children.forEach(c => walk(c, path, r, d, ch));
        else leaves.push({ node, path, maxRep: r, maxDef: d, chain: ch });
    };
    children.forEach(c => walk(c, [], 0, 0, []));
    return leaves;
}

function flattenSchema(children) {
    const out = [[[4, 'binary', 'schema'], [5, 'i32', children.length]]];
    const walk = node => {
        out.push([
            [1, 'i32', node.children ? undefined : TYPE[node.type]],
            [2, 'i32', node.typeLength],
            [3, 'i32', REP[node.repetition ?? 'OPTIONAL']],
            [4, 'binary', node.name],
            [5, 'i32', node.children ? node.children.length : undefined],
            [6, 'i32', node.convertedType === undefined ? undefined : CONVERTED[node.convertedType]],
            [7, 'i32', node.scale],
            [8, 'i32', node.precision],
        ]);
        if (node.children) node.children.forEach(walk);
    };
    children.forEach(walk);
    return out;
}

// Dremel shredding of one leaf: rows -> (rep, def, value) triples.
function shred(leaf, rows) {
    const reps = [], defs = [], vals = [];
    const emit = (r, d, v) => { reps.push(r); defs.push(d); vals.push(d === leaf.maxDef ? v : null); };
    const chain = leaf.chain;
    // visit chain[i] holding value v; r = rep level to emit for the first value, d = def so far
    const visit = (i, v, r, d, repDepth) => {
        const node = chain[i];
        const rep = node.repetition ?? 'OPTIONAL';
        const next = (x, rr, dd) => {
            if (i === chain.length - 1) emit(rr, dd, x);
            else {
                const child = chain[i + 1].name;
                if (x === null || typeof x !== 'object' || Array.isArray(x) || !(child in x)) {
                    throw new Error(`${leaf.path.join('.')}: group ${node.name} needs an object with a key ${child}`);
                }
                visit(i + 1, x[child], rr, dd, repDepth + (rep === 'REPEATED' ? 1 : 0));
            }
        };
        if (rep === 'REPEATED') {
            if (v === null || v === undefined || v.length === 0) { emit(r, d, null); return; }
            v.forEach((x, k) => next(x, k === 0 ? r : repDepth + 1, d + 1));
        } else if (rep === 'OPTIONAL') {
            if (v === null || v === undefined) { emit(r, d, null); return; }
            next(v, r, d + 1);
        } else {
            if (v === null || v === undefined) throw new Error(`${leaf.path.join('.')}: REQUIRED ${node.name} is null`);
            next(v, r, d);
        }
    };
    for (const row of rows) visit(0, row[chain[0].name], 0, 0, 0);
    return { reps, defs, vals };
}

// ---------------------------------------------------------------- pages and chunks
function levelsV1(levels, max, enc) {
    const width = bitWidth(max);
    if (enc === 'BIT_PACKED') return bitPackedLegacy(levels, width);
    const body = rleHybrid(levels, width);
    const w = new Bytes(); w.u32le(body.length); w.bytes(body); return w.get();
}

function pageHeader(h) {
    const w = new Bytes();
    writeStruct(w, [
        [1, 'i32', h.type],
        [2, 'i32', h.uncompressed],
        [3, 'i32', h.compressed],
        [5, 'struct', h.v1 && [[1, 'i32', h.v1.numValues], [2, 'i32', h.v1.encoding], [3, 'i32', h.v1.defEnc], [4, 'i32', h.v1.repEnc]]],
        [8, 'struct', h.v2 && [[1, 'i32', h.v2.numValues], [2, 'i32', h.v2.numNulls], [3, 'i32', h.v2.numRows],
            [4, 'i32', h.v2.encoding], [5, 'i32', h.v2.defLen], [6, 'i32', h.v2.repLen],
            [7, 'bool', h.v2.isCompressed ? undefined : false]]],
    ]);
    return w.get();
}

function pageRanges(reps, n, opts) {
    if (!opts.pageValues || n === 0) return [[0, n]];
    const split = opts.splitRows && (opts.page ?? 'v1') === 'v1';
    const ranges = [];
    let s = 0;
    while (s < n) {
        let e = Math.min(s + opts.pageValues, n);
        if (!split) while (e < n && reps[e] !== 0) e++;
        ranges.push([s, e]);
        s = e;
    }
    return ranges;
}

function writeChunk(out, leaf, rows, opts, stats) {
    const { node, maxRep, maxDef } = leaf;
    const { reps, defs, vals } = shred(leaf, rows);
    const pageKind = opts.page ?? 'v1';
    const encoding = opts.encoding ?? 'PLAIN';
    const levelEnc = opts.levels ?? 'RLE';
    const codec = opts.codec ?? 'UNCOMPRESSED';
    if (levelEnc === 'BIT_PACKED' && pageKind !== 'v1') throw new Error('BIT_PACKED levels are v1 only');
    const start = out.len;
    let uncompressedTotal = 0;
    for (const [s, e] of pageRanges(reps, reps.length, opts)) {
        const pr = reps.slice(s, e), pd = defs.slice(s, e);
        const present = [];
        for (let k = s; k < e; k++) if (defs[k] === maxDef) present.push(vals[k]);
        if (s > 0 && reps[s] !== 0) stats.splitRowPages++;
        stats.pages++;
        const data = encodeValues(present, node, encoding);
        let header, body, rawSize;
        if (pageKind === 'v1') {
            const w = new Bytes();
            if (maxRep > 0) w.bytes(levelsV1(pr, maxRep, levelEnc));
            if (maxDef > 0) w.bytes(levelsV1(pd, maxDef, levelEnc));
            w.bytes(data);
            const raw = w.get();
            body = compress(codec, raw);
            rawSize = raw.length;
            header = pageHeader({ type: PAGE.DATA_PAGE, uncompressed: raw.length, compressed: body.length,
                v1: { numValues: e - s, encoding: ENC[encoding], defEnc: ENC[levelEnc], repEnc: ENC[levelEnc] } });
        } else {
            const rl = maxRep > 0 ? rleHybrid(pr, bitWidth(maxRep)) : new Uint8Array(0);
            const dl = maxDef > 0 ? rleHybrid(pd, bitWidth(maxDef)) : new Uint8Array(0);
            const isCompressed = codec !== 'UNCOMPRESSED' && !opts.v2Uncompressed;
            const cdata = isCompressed ? compress(codec, data) : data;
            const w = new Bytes(); w.bytes(rl); w.bytes(dl); w.bytes(cdata);
            body = w.get();
            rawSize = rl.length + dl.length + data.length;
            header = pageHeader({ type: PAGE.DATA_PAGE_V2, uncompressed: rawSize, compressed: body.length,
                v2: { numValues: e - s, numNulls: pd.filter(d => d < maxDef).length,
                    numRows: pr.filter(r => r === 0).length, encoding: ENC[encoding],
                    defLen: dl.length, repLen: rl.length, isCompressed } });
        }
        out.bytes(header); out.bytes(body);
        uncompressedTotal += header.length + rawSize;
    }
    const encodings = [...new Set([ENC[encoding], ...(maxRep + maxDef > 0 && pageKind === 'v1' ? [ENC[levelEnc]] : []),
        ...(maxRep + maxDef > 0 && pageKind === 'v2' ? [ENC.RLE] : [])])];
    return [
        [2, 'i64', start],
        [3, 'struct', [
            [1, 'i32', TYPE[node.type]],
            [2, ['list', 'i32'], encodings],
            [3, ['list', 'binary'], leaf.path],
            [4, 'i32', CODEC[codec]],
            [5, 'i64', reps.length],
            [6, 'i64', uncompressedTotal],
            [7, 'i64', out.len - start],
            [9, 'i64', start],
        ]],
    ];
}

/** Returns the bytes of a Parquet file; `stats` gets {pages, splitRowPages}. */
export function writeParquet({ schema, rows, rowGroups, columns = {}, createdBy = 'zamboni-interop pqwrite', stats = {} }) {
    stats.pages = 0; stats.splitRowPages = 0;
    const leaves = prepareSchema(schema);
    const out = new Bytes();
    out.bytes(utf8.encode('PAR1'));
    const groups = [];
    const sizes = rowGroups ?? [rows.length];
    let at = 0;
    for (const n of sizes) {
        const part = rows.slice(at, at + n);
        at += n;
        const start = out.len;
        const chunks = leaves.map(leaf => {
            const key = leaf.path.join('.');
            const opts = { ...(columns.default ?? {}), ...(columns[key] ?? {}) };
            return writeChunk(out, leaf, part, opts, stats);
        });
        groups.push([[1, ['list', 'struct'], chunks], [2, 'i64', out.len - start], [3, 'i64', part.length]]);
    }
    if (at !== rows.length) throw new Error(`rowGroups add up to ${at}, not ${rows.length}`);
    const meta = new Bytes();
    writeStruct(meta, [
        [1, 'i32', 1],
        [2, ['list', 'struct'], flattenSchema(schema)],
        [3, 'i64', rows.length],
        [4, ['list', 'struct'], groups],
        [6, 'binary', createdBy],
    ]);
    const m = meta.get();
    out.bytes(m);
    out.u32le(m.length);
    out.bytes(utf8.encode('PAR1'));
    return out.get();
}
