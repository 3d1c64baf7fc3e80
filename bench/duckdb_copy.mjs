// DuckDB's side of the rewrite comparison: COPY the given Parquet files
// into one zstd file (level from ZSTD_LEVEL, default 3) with THREADS
// threads, sorted by COLS when --order-by=COLS comes first (a comma
// list of column names, each ascending with nulls last, as the sort
// compaction of bench_compact sorts); prints rows/s, input MB/s, CPU
// time and peak RSS. With --result=FILE it also writes
// "copy_s=SECONDS rows=N cpu_s=SECONDS" to FILE: the COPY statement's own
// wall time, which compact_vs_duckdb.sh compares against.
// Usage: node duckdb_copy.mjs [--order-by=COLS] [--result=FILE] THREADS OUT FILE...
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const args = process.argv.slice(2);
let orderBy = null;
let resultFile = null;
while (args.length > 0 && args[0].startsWith('--')) {
  const a = args.shift();
  if (a.startsWith('--order-by=')) {
    orderBy = a.slice('--order-by='.length).split(',').filter((c) => c !== '');
    if (orderBy.length === 0 || orderBy.some((c) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(c))) {
      console.error('duckdb_copy: --order-by takes a comma list of column names');
      process.exit(2);
    }
  } else if (a.startsWith('--result=')) {
    resultFile = a.slice('--result='.length);
  } else {
    console.error(`duckdb_copy: unknown option ${a}`);
    process.exit(2);
  }
}
const [threads, out, ...files] = args;
if (!out || files.length === 0) {
  console.error('usage: duckdb_copy.mjs [--order-by=COLS] [--result=FILE] THREADS OUT FILE...');
  process.exit(2);
}
const level = Number(process.env.ZSTD_LEVEL || 3);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = ${Number(threads)}`);
const list = '[' + files.map((f) => `'${f}'`).join(',') + ']';
const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
const order = orderBy ? ` ORDER BY ${orderBy.map((c) => `"${c}" ASC NULLS LAST`).join(', ')}` : '';
fs.rmSync(out, { force: true });
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
await con.run(`COPY (SELECT * FROM read_parquet(${list})${order}) TO '${out}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${level})`);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const rows = Number((await (await con.run(`SELECT count(*) FROM read_parquet('${out}')`)).getRows())[0][0]);
const what = orderBy ? `copy order by ${orderBy.join(',')}` : 'copy';
console.log(`duckdb   ${what} threads=${threads} files=${files.length} rows=${rows}: ${(rows / secs).toFixed(0)} rows/s, ${(bytes / 1e6 / secs).toFixed(1)} MB/s in, ${((c.user + c.system) / 1e6).toFixed(2)} s cpu, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
if (resultFile) fs.writeFileSync(resultFile, `copy_s=${secs.toFixed(3)} rows=${rows} cpu_s=${((c.user + c.system) / 1e6).toFixed(3)}\n`);
