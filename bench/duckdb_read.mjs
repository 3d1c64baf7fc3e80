// DuckDB's side of bench/parquet_read.sh: decodes every column of the
// same files (a max() per column, so nothing is skipped), with a given
// number of threads, median of 3 runs, printed like bench_parquet_read.
// Usage: node duckdb_read.mjs THREADS FILE...
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const [threads, ...files] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = ${Number(threads)}`);
const list = '[' + files.map((f) => `'${f}'`).join(',') + ']';
const cols = (await (await con.run(`DESCRIBE SELECT * FROM read_parquet(${list})`)).getRows()).map((r) => r[0]);
const sql = `SELECT count(*), ${cols.map((c) => `max("${c}")`).join(', ')} FROM read_parquet(${list})`;
const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
const secs = [];
let rows = 0;
for (let run = 0; run < 3; run++) {
  const t0 = process.hrtime.bigint();
  const res = await (await con.run(sql)).getRows();
  secs.push(Number(process.hrtime.bigint() - t0) / 1e9);
  rows = Number(res[0][0]);
}
secs.sort((a, b) => a - b);
const m = secs[1];
console.log(`duckdb   threads=${threads} files=${files.length} rows=${rows}: ${(rows / m).toFixed(0)} rows/s, ${(bytes / 1e6 / m).toFixed(1)} MB/s (median of 3: ${m.toFixed(3)} s)`);
