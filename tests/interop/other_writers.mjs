// Tables as other writers leave them (issue 22), each shape built here:
//   gzip      a table folder whose writer set write.metadata.compression-
//             codec=gzip (vN.gz.metadata.json, version-hint N), and the
//             same in the SQLite catalog (NNNNN-<uuid>.gz.metadata.json);
//   upgraded  a v1 table upgraded to v2 and then v3, with v1, v2 and v3
//             manifests, one v1 manifest carrying a sequence_number field
//             as some older writers wrote it;
//   named     a metadata file with a free name, named directly;
//   crc       Hadoop checksum files (.NAME.crc) beside every file.
// On each, scan, compact, expire and remove-orphans must keep the live rows
// as the independent reference reader (scan_reference.mjs: avsc, hyparquet,
// node's zlib) reads them; new metadata of a gzip table must be gzip under
// Java's names and load in the reference reader; no live file's checksum
// file may go. A .gz.metadata.json that is not gzip, and a truncated one,
// must stay clear errors.
//
// Usage: node other_writers.mjs ZAMBONI WORK_DIR
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
if (!fs.existsSync(path.join(root, 'node_modules', '@duckdb', 'node-api'))) {
  console.error('other_writers: node_modules lacks @duckdb/node-api; run scripts/install-deps.sh');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const { DuckDBInstance } = await import('@duckdb/node-api');
const avro = (await import('avsc')).default;
const { referenceScan, findLatestMetadata, readMetadataText, parseMetadataText } =
  await import('./scan_reference.mjs');
const { readAvroRecords, longType } = await import('./avro/avsc_read.mjs');

const [zamboniArg, workArg] = process.argv.slice(2);
const zamboni = zamboniArg && path.resolve(zamboniArg);
if (!zamboni || !workArg) {
  console.error('usage: node other_writers.mjs ZAMBONI WORK_DIR');
  process.exit(2);
}
const work = path.resolve(workArg);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const env = { ...process.env, ZAMBONI_ROOT: path.join(work, 'root') };
for (const k of ['ZAMBONI_URI', 'ZAMBONI_WAREHOUSE', 'ZAMBONI_ENGINE']) delete env[k];

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`PASS ${name}`); }
  else { failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`); }
}

function zb(args, cwd = undefined) {
  const r = spawnSync(zamboni, args, { encoding: 'utf8', env, cwd, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout || '', err: r.stderr || '' };
}

// Rows as sorted canonical JSON (keys sorted): both readers print
// Appendix D values; ints here are small.
function canon(lines) {
  return lines.filter((l) => l !== '').map((l) => {
    const o = JSON.parse(l);
    return JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
  }).sort();
}
async function refRows(dir, opts = {}) {
  return canon((await referenceScan(dir, opts)).rows);
}
function zbRows(table, extra = []) {
  const r = zb(['scan', table, '--format', 'jsonl', ...extra]);
  if (r.code !== 0) throw new Error(`scan ${table}: exit ${r.code}: ${r.err}`);
  return canon(r.out.split('\n'));
}
function same(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }

// Metadata JSON written back with its long ids as numbers again
// (parseMetadataText keeps 16+ digit integers as strings).
function metadataText(meta) {
  return JSON.stringify(meta, null, 2).replace(/"(-?\d{16,})"/g, '$1');
}

// What a Java writer does for the next version of a table folder: the
// edited metadata as v<N+1>[.gz].metadata.json, the old one in the
// metadata-log, version-hint.text N+1.
function writeNextVersion(dir, edit, gzip) {
  const cur = findLatestMetadata(dir);
  const meta = parseMetadataText(readMetadataText(cur));
  const v = Number(/v(\d+)\./.exec(path.basename(cur))[1]) + 1;
  edit(meta);
  meta['metadata-log'] = [...(meta['metadata-log'] || []),
    { 'timestamp-ms': meta['last-updated-ms'], 'metadata-file': cur }];
  meta['last-updated-ms'] = Date.now();
  const name = path.join(dir, 'metadata', `v${v}${gzip ? '.gz' : ''}.metadata.json`);
  const text = metadataText(meta);
  fs.writeFileSync(name, gzip ? zlib.gzipSync(text) : text);
  fs.writeFileSync(path.join(dir, 'metadata', 'version-hint.text'), String(v));
  return name;
}

function isGzip(file) {
  const b = fs.readFileSync(file);
  return b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;
}

function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out); else out.push(p);
  }
  return out;
}

// A Hadoop checksum file beside every file that has none. Young, so that
// a checksum file whose file went is gone only if it went with it (not by
// remove-orphans' age rule); the test ages some itself.
const OLD = (Date.now() - 3 * 86400000) / 1000;
function addChecksums(dir) {
  for (const f of walk(dir)) {
    const b = path.basename(f);
    if (b.startsWith('.')) continue;
    const crc = path.join(path.dirname(f), `.${b}.crc`);
    if (fs.existsSync(crc)) continue;
    fs.writeFileSync(crc, Buffer.concat([Buffer.from('crc\0\0\0\x02\0'),
      Buffer.alloc(4)]));
  }
}
// Every checksum file whose file exists must still be there.
function checksumsOfLive(dir, before) {
  return before.filter((crc) => {
    const own = path.join(path.dirname(crc), path.basename(crc).slice(1, -4));
    return fs.existsSync(own) && !fs.existsSync(crc);
  });
}
function checksumList(dir) {
  return walk(dir).filter((f) => /^\..*\.crc$/.test(path.basename(f)));
}

// ---- source files (DuckDB writes them) ---------------------------------

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run('SET threads=1');
async function parquetBatch(dir, from, to) {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = from; i < to; i += 50)
    await con.run(`COPY (SELECT r::BIGINT AS id, (r % 7)::INTEGER AS k,
        CASE WHEN r % 5 = 0 THEN NULL ELSE 'v' || r END AS s
      FROM range(${i}, ${Math.min(i + 50, to)}) t(r))
      TO '${path.join(dir, `part-${i}.parquet`)}' (FORMAT PARQUET)`);
}

function addFiles(table, src, extra = []) {
  const r = zb(['add-files', table, '--source', src, ...extra]);
  if (r.code !== 0) throw new Error(`add-files ${table}: exit ${r.code}: ${r.err}`);
}

// scan, compact, expire and remove-orphans on table (read at dir), the
// rows compared with the reference after each.
async function maintain(label, table, dir, extra = []) {
  const want = await refRows(dir);
  check(`${label}: scan equals the reference (${want.length} rows)`,
    same(zbRows(table, extra), want));
  const steps = [
    ['compact', '--min-input-files', '2', '--target-file-size-bytes', '100000000'],
    ['expire', '--max-snapshot-age-days', '0', '--min-snapshots-to-keep', '1'],
    ['remove-orphans', '--older-than-days', '1'],
  ];
  for (const [verb, ...args] of steps) {
    const r = zb([verb, table, ...extra, ...args]);
    check(`${label}: ${verb} exits 0`, r.code === 0, `${r.code}: ${r.err}`);
    const got = await refRows(dir);
    check(`${label}: rows after ${verb} (reference reader)`, same(got, want),
      `${got.length} vs ${want.length}`);
    check(`${label}: zamboni scan after ${verb}`, same(zbRows(table, extra), want));
  }
}

// ---- gzip metadata, table folder, with checksum files ------------------

{
  const t = path.join(work, 'gz_folder');
  await parquetBatch(path.join(t, 'data', 'a'), 0, 200);
  await parquetBatch(path.join(t, 'data', 'b'), 200, 300);
  addFiles(t, path.join(t, 'data', 'a'), ['--create']);
  const gzName = writeNextVersion(t, (m) => {
    m.properties = { ...(m.properties || {}), 'write.metadata.compression-codec': 'gzip',
      'write.metadata.delete-after-commit.enabled': 'true',
      'write.metadata.previous-versions-max': '2' };
  }, true);
  addChecksums(t);
  // an orphan and a checksum file whose file is gone, both old
  // a live file's checksum file as old as an orphan: kept by ownership
  const oldCrc = path.join(t, 'metadata', '.version-hint.text.crc');
  fs.utimesSync(oldCrc, OLD, OLD);
  const orphan = path.join(t, 'data', 'orphan.parquet');
  fs.copyFileSync(path.join(t, 'data', 'a', 'part-0.parquet'), orphan);
  fs.utimesSync(orphan, OLD, OLD);
  addChecksums(t);
  const stray = path.join(t, 'data', '.gone.parquet.crc');
  fs.writeFileSync(stray, 'crc\0');
  fs.utimesSync(stray, OLD, OLD);
  const crcs = checksumList(t).filter((f) => f !== stray);

  check('gz folder: the writer\'s vN.gz.metadata.json is the latest',
    findLatestMetadata(t) === gzName);
  const d = zb(['describe', t]);
  check('gz folder: describe reads gzip metadata', d.code === 0, d.err);
  addFiles(t, path.join(t, 'data', 'b'));
  const next = findLatestMetadata(t);
  check('gz folder: a commit writes vN.gz.metadata.json',
    /\/v\d+\.gz\.metadata\.json$/.test(next) && next !== gzName, next);
  check('gz folder: the new metadata is gzip', isGzip(next));
  check('gz folder: the hint names its version',
    fs.readFileSync(path.join(t, 'metadata', 'version-hint.text'), 'utf8').trim() ===
      /v(\d+)\./.exec(path.basename(next))[1]);
  await maintain('gz folder', t, t);
  const last = findLatestMetadata(t);
  check('gz folder: metadata still gzip after maintenance',
    /\.gz\.metadata\.json$/.test(last) && isGzip(last), last);
  const lost = checksumsOfLive(t, crcs);
  check('crc: no live file\'s checksum file deleted', lost.length === 0, lost.join(' '));
  const left = crcs.filter((crc) => fs.existsSync(crc) &&
    !fs.existsSync(path.join(path.dirname(crc), path.basename(crc).slice(1, -4))));
  const went = crcs.filter((crc) =>
    !fs.existsSync(path.join(path.dirname(crc), path.basename(crc).slice(1, -4))));
  check(`crc: every checksum file whose file went (${went.length}: compact, expire, ` +
    'metadata pruning) went too', went.length > 0 && left.length === 0, left.join(' '));
  check('crc: an old checksum file of a live file kept', fs.existsSync(oldCrc) &&
    fs.existsSync(path.join(t, 'metadata', 'version-hint.text')));
  check('crc: the orphan and its checksum file deleted',
    !fs.existsSync(orphan) && !fs.existsSync(path.join(t, 'data', '.orphan.parquet.crc')));
  check('crc: a checksum file whose file is gone deleted', !fs.existsSync(stray));
}

// ---- gzip metadata in the SQLite catalog -------------------------------

{
  const db = path.join(work, 'catalog.db');
  const wh = path.join(work, 'wh');
  fs.writeFileSync(db, '');
  const cat = ['--uri', `sqlite:${db}`, '--warehouse', 'w', '--local-warehouse', wh];
  const dir = path.join(wh, 'ns', 'gz');
  await parquetBatch(path.join(dir, 'data', 'a'), 0, 120);
  await parquetBatch(path.join(dir, 'data', 'b'), 120, 200);
  addFiles('ns.gz', path.join(dir, 'data', 'a'), ['--create', ...cat]);
  addFiles('ns.gz', path.join(dir, 'data', 'b'), cat);
  const sql = (q) => spawnSync('sqlite3', [db, q], { encoding: 'utf8' });
  const cur = sql("SELECT metadata_location FROM iceberg_tables WHERE table_name='gz'").stdout.trim();
  check('gz catalog: the table is in the catalog', cur.endsWith('.metadata.json'), cur);
  // the other writer sets the codec: its next file is gzip, Java-named
  const meta = parseMetadataText(readMetadataText(cur));
  meta.properties = { ...(meta.properties || {}), 'write.metadata.compression-codec': 'gzip' };
  meta['metadata-log'] = [...(meta['metadata-log'] || []),
    { 'timestamp-ms': meta['last-updated-ms'], 'metadata-file': cur }];
  const v = Number(/(\d+)-/.exec(path.basename(cur))[1]) + 1;
  const gzName = path.join(path.dirname(cur),
    `${String(v).padStart(5, '0')}-0f0e0d0c-0b0a-4908-8706-050403020100.gz.metadata.json`);
  fs.writeFileSync(gzName, zlib.gzipSync(metadataText(meta)));
  const u = sql(`UPDATE iceberg_tables SET metadata_location='${gzName}', ` +
    `previous_metadata_location='${cur}' WHERE table_name='gz'`);
  check('gz catalog: sqlite3 moved the pointer', u.status === 0, u.stderr);
  const want = await refRows(dir, { metadataFile: gzName });
  check('gz catalog: scan equals the reference', same(zbRows('ns.gz', cat), want));
  const c = zb(['compact', 'ns.gz', ...cat, '--min-input-files', '2']);
  check('gz catalog: compact exits 0', c.code === 0, c.err);
  const now = sql("SELECT metadata_location FROM iceberg_tables WHERE table_name='gz'").stdout.trim();
  check('gz catalog: new metadata NNNNN-<uuid>.gz.metadata.json',
    /\/\d{5}-[0-9a-f-]{36}\.gz\.metadata\.json$/.test(now) && now !== gzName, now);
  check('gz catalog: the new metadata is gzip', fs.existsSync(now) && isGzip(now));
  const after = await refRows(dir, { metadataFile: now });
  check('gz catalog: rows after compact (reference reading the gzip file)', same(after, want));
  check('gz catalog: zamboni scan after compact', same(zbRows('ns.gz', cat), want));
}

// ---- v1 upgraded to v3: v1, v2 and v3 manifests --------------------------

// Rewrites a v1 manifest with a sequence_number field in its entries (null),
// as some older writers did; its metadata still says format-version 1.
async function addSequenceNumberField(file) {
  const { meta, records } = await readAvroRecords(file);
  const schema = JSON.parse(meta['avro.schema'].toString());
  const at = schema.fields.findIndex((f) => f.name === 'snapshot_id');
  schema.fields.splice(at + 1, 0, { name: 'sequence_number', type: ['null', 'long'],
    default: null, 'field-id': 3 });
  const type = avro.Type.forSchema(schema, {
    registry: { long: longType }, wrapUnions: false,
    typeHook: (t) => (t === 'long' || (t && t.type === 'long') ? longType : undefined),
  });
  const metadata = {};
  for (const [k, v] of Object.entries(meta)) if (!k.startsWith('avro.')) metadata[k] = v;
  await new Promise((resolve, reject) => {
    const out = fs.createWriteStream(file + '.tmp');
    const enc = new avro.streams.BlockEncoder(type, { codec: 'null', metadata });
    enc._schema = schema;   // the header keeps every field-id as written
    enc.pipe(out);
    out.on('finish', resolve);
    enc.on('error', reject);
    for (const r of records) enc.write({ ...r, sequence_number: null });
    enc.end();
  });
  fs.renameSync(file + '.tmp', file);
  return String(meta['format-version']);
}

{
  const t = path.join(work, 'upgraded');
  for (const [n, a, b] of [['a', 0, 100], ['c', 1000, 1100], ['d', 1100, 1150], ['e', 1150, 1200]])
    await parquetBatch(path.join(t, 'data', n), a, b);
  addFiles(t, path.join(t, 'data', 'a'), ['--create', '--format-version', '1']);
  addFiles(t, path.join(t, 'data', 'c'));
  const v1meta = parseMetadataText(readMetadataText(findLatestMetadata(t)));
  check('upgraded: created as v1', v1meta['format-version'] === 1);
  // an older writer's sequence_number field in one v1 manifest
  const mdir = path.join(t, 'metadata');
  const v1man = fs.readdirSync(mdir).filter((n) => /-m\d+\.avro$/.test(n) || (/\.avro$/.test(n) && !n.startsWith('snap-')));
  check('upgraded: the rewritten manifest still says format-version 1',
    await addSequenceNumberField(path.join(mdir, v1man[0])) === '1');
  // upgrades as Java's upgradeFormatVersion leaves them
  writeNextVersion(t, (m) => {
    m['format-version'] = 2;
    m['last-sequence-number'] = 0;
    for (const s of m.snapshots || []) s['sequence-number'] = 0;
  }, false);
  addFiles(t, path.join(t, 'data', 'd'));
  writeNextVersion(t, (m) => { m['format-version'] = 3; m['next-row-id'] = 0; }, false);
  addFiles(t, path.join(t, 'data', 'e'));
  const seen = new Set();
  for (const n of fs.readdirSync(mdir).filter((x) => x.endsWith('.avro') && !x.startsWith('snap-'))) {
    const b = fs.readFileSync(path.join(mdir, n));
    const m = /format-version[\s\S]{1,3}?(\d)/.exec(b.toString('latin1'));
    if (m) seen.add(m[1]);
  }
  check('upgraded: v1, v2 and v3 manifests present', seen.has('1') && seen.has('2') && seen.has('3'),
    [...seen].join(','));
  // row lineage (spec "First Row ID Assignment"): the first v3 manifest
  // list gives the files written before the upgrade their row ids
  const rowIds = async () => (await referenceScan(t, { lineage: true })).rows
    .map((l) => JSON.parse(l)._row_id);
  const ids = await rowIds();
  check('upgraded: every row has a row id, none twice',
    ids.every((x) => x !== null) && new Set(ids).size === ids.length,
    `${ids.filter((x) => x === null).length} null of ${ids.length}`);
  await maintain('upgraded v1->v3', t, t);
  const after = (await rowIds()).sort((a, b) => a - b);
  check('upgraded: row ids kept through maintenance',
    same(after, ids.sort((a, b) => a - b)));
}

// ---- a metadata file with a free name, named directly --------------------

{
  const t = path.join(work, 'named');
  await parquetBatch(path.join(t, 'data', 'a'), 0, 150);
  addFiles(t, path.join(t, 'data', 'a'), ['--create']);
  const latest = findLatestMetadata(t);
  const free = path.join(work, 'exported-table.json');
  fs.copyFileSync(latest, free);
  const want = await refRows(t, { metadataFile: free });
  check('named: scan of a free-named file equals the reference', same(zbRows(free), want));
  check('named: scan of its file: URI', same(zbRows(`file:${free}`), want));
  const d = zb(['describe', free]);
  check('named: describe reads it', d.code === 0, d.err);
  const c = zb(['compact', free, '--min-input-files', '2']);
  check('named: compact of a file outside the table folder refused, exit 3',
    c.code === 3 && /newest metadata/.test(c.err), `${c.code}: ${c.err}`);
  check('named: compact of the newest file by name',
    zb(['compact', latest, '--min-input-files', '2']).code === 0);
  const o = zb(['remove-orphans', latest, '--older-than-days', '1']);
  check('named: remove-orphans from an older file refused, exit 3',
    o.code === 3 && /newest/.test(o.err), `${o.code}: ${o.err}`);
  const od = zb(['remove-orphans', latest, '--older-than-days', '0', '--dry-run']);
  check('named: a dry-run remove-orphans from an older file refused too, exit 3',
    od.code === 3 && /newest/.test(od.err), `${od.code}: ${od.err}`);
  const md = zb(['maintenance', latest, '--dry-run']);
  check('named: a dry-run maintenance from an older file refused, exit 3',
    md.code === 3, `${md.code}: ${md.err}`);
  const newest = findLatestMetadata(t);
  let e = zb(['expire', `file:${newest}`, '--max-snapshot-age-days', '0',
    '--min-snapshots-to-keep', '1']);
  check('named: expire from the newest file as a file: URI', e.code === 0, e.err);
  e = zb(['expire', path.relative(t, findLatestMetadata(t))], t);
  check('named: expire from the newest file as a relative path', e.code === 0, e.err);
  e = zb(['remove-orphans', findLatestMetadata(t), '--older-than-days', '1']);
  check('named: remove-orphans from the newest file', e.code === 0, e.err);
  check('named: rows kept', same(await refRows(t), want));
}

// ---- bad gzip metadata stays a clear error --------------------------------

{
  const t = path.join(work, 'bad');
  await parquetBatch(path.join(t, 'data', 'a'), 0, 50);
  addFiles(t, path.join(t, 'data', 'a'), ['--create']);
  const cur = findLatestMetadata(t);
  const text = fs.readFileSync(cur);
  const notGz = path.join(t, 'metadata', 'v9.gz.metadata.json');
  fs.writeFileSync(notGz, text);
  fs.writeFileSync(path.join(t, 'metadata', 'version-hint.text'), '9');
  let r = zb(['scan', t, '--count']);
  check('bad: a .gz.metadata.json that is not gzip: exit != 0, named',
    r.code !== 0 && r.err.includes('v9.gz.metadata.json') && /not gzip/.test(r.err),
    `${r.code}: ${r.err}`);
  const gz = zlib.gzipSync(text);
  fs.writeFileSync(notGz, gz.subarray(0, gz.length >> 1));
  r = zb(['scan', t, '--count']);
  check('bad: a truncated .gz.metadata.json: exit != 0, says truncated',
    r.code !== 0 && /truncated/.test(r.err), `${r.code}: ${r.err}`);
  r = zb(['scan', notGz, '--count']);
  check('bad: the truncated file named directly: a clear error',
    r.code !== 0 && /gzip/.test(r.err) && !/Segmentation|Abort/.test(r.err), `${r.code}: ${r.err}`);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
