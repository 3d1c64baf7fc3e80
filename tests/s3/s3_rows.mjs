// The live rows of a table fetched from S3 (s3_get.mjs) read by readers
// that share no code with zamboni: tests/interop/scan_reference.mjs
// (avsc manifests, hyparquet data, the spec's delete rules) prints the
// live rows as canonical JSON lines, sorted, on stdout; and every data
// and delete file of the current snapshot is read by DuckDB
// (@duckdb/node-api) and by hyparquet, which must agree on each file's
// rows (canonical.mjs's forms). A file either cannot read, or a
// disagreement, fails (exit 1, the file named on stderr).
// Usage: node s3_rows.mjs --metadata FILE [--remap OLD=NEW]... TABLE_DIR
import { referenceScan, loadTable, snapshotOf, snapshotEntries }
  from '../interop/scan_reference.mjs';
import * as C from '../interop/canonical.mjs';

const argv = process.argv.slice(2);
const remaps = [];
let metadataFile = null, dir = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--remap') {
    const v = argv[++i], eq = v.indexOf('=');
    remaps.push([v.slice(0, eq), v.slice(eq + 1)]);
  } else if (argv[i] === '--metadata') metadataFile = argv[++i];
  else dir = argv[i];
}
if (!dir) { console.error('usage: s3_rows.mjs --metadata FILE [--remap OLD=NEW]... TABLE_DIR'); process.exit(2); }

const { DuckDBInstance } = await import('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run('SET threads=1');

async function duckRows(file) {
  const r = await conn.runAndReadAll(
    'SELECT * FROM read_parquet(?, hive_partitioning=false, binary_as_string=false)', [file]);
  const names = r.columnNames(), types = r.columnTypes();
  return r.getRows().map((row) => {
    const o = {};
    names.forEach((n, i) => { o[n] = C.canonicalFromDuckDB(row[i], types[i]); });
    return C.toCanonicalJSON(o);
  }).sort();
}

const { meta, resolve } = loadTable(dir, { remaps, metadataFile });
const snap = snapshotOf(meta, null);
let checked = 0, failed = 0;
if (snap) {
  for (const e of await snapshotEntries(meta, snap, resolve)) {
    if ((e.format ?? 'PARQUET').toUpperCase() !== 'PARQUET') continue;
    const file = resolve(e.path);
    try {
      const d = await duckRows(file);
      const h = (await C.readCanonicalHyparquet(file)).rows.map((o) => C.toCanonicalJSON(o)).sort();
      if (d.length !== Number(e.recordCount))
        throw new Error(`DuckDB read ${d.length} rows, the manifest says ${e.recordCount}`);
      if (d.join('\n') !== h.join('\n'))
        throw new Error(`DuckDB and hyparquet disagree (${d.length} vs ${h.length} rows)`);
      checked++;
    } catch (err) {
      console.error(`s3_rows: ${e.path}: ${err.message}`);
      failed++;
    }
  }
}
const r = await referenceScan(dir, { remaps, metadataFile });
process.stdout.write([...r.rows].sort().map((l) => l + '\n').join(''));
console.error(`s3_rows: ${checked} file(s) read alike by DuckDB and hyparquet, ${failed} not; ${r.rows.length} live rows`);
process.exit(failed ? 1 : 0);
