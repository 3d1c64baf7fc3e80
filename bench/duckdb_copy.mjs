// DuckDB's side of the rewrite comparison: COPY the given Parquet files
// into one zstd file (level from ZSTD_LEVEL, default 3) with THREADS
// threads; prints rows/s, input MB/s, CPU time and peak RSS.
// Usage: node duckdb_copy.mjs THREADS OUT FILE...
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const [threads, out, ...files] = process.argv.slice(2);
const level = Number(process.env.ZSTD_LEVEL || 3);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = ${Number(threads)}`);
const list = '[' + files.map((f) => `'${f}'`).join(',') + ']';
const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
fs.rmSync(out, { force: true });
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
await con.run(`COPY (SELECT * FROM read_parquet(${list})) TO '${out}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${level})`);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const rows = Number((await (await con.run(`SELECT count(*) FROM read_parquet('${out}')`)).getRows())[0][0]);
console.log(`duckdb   copy threads=${threads} files=${files.length} rows=${rows}: ${(rows / secs).toFixed(0)} rows/s, ${(bytes / 1e6 / secs).toFixed(1)} MB/s in, ${((c.user + c.system) / 1e6).toFixed(2)} s cpu, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
