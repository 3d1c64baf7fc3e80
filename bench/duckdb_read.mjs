// DuckDB's side of bench/parquet_read.sh: decodes every column of the
// same files (a max() per column, so nothing is skipped), with a given
// number of threads, median of RUNS (default 3) runs, wall and CPU time,
// printed like bench_parquet_read.
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
const runs = Number(process.env.RUNS || 3);
const secs = [];
const cpu = [];
let rows = 0;
for (let run = 0; run < runs; run++) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const res = await (await con.run(sql)).getRows();
  secs.push(Number(process.hrtime.bigint() - t0) / 1e9);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1e6);
  rows = Number(res[0][0]);
}
secs.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
const m = secs[Math.floor(runs / 2)];
const mc = cpu[Math.floor(runs / 2)];
console.log(`duckdb   threads=${threads} files=${files.length} rows=${rows}: ${(rows / m).toFixed(0)} rows/s, ${(bytes / 1e6 / m).toFixed(1)} MB/s (median of ${runs}: ${m.toFixed(3)} s wall, ${mc.toFixed(3)} s cpu: ${(rows / mc).toFixed(0)} rows per cpu-s)`);
