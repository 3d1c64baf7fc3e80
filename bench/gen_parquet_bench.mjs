// Writes the Parquet files that bench/parquet_read.sh decodes: an event
// schema (ids, timestamps, low- and high-cardinality strings, doubles,
// booleans, a 100-300 byte payload, some nulls), zstd level 3, with
// DuckDB. Usage: node gen_parquet_bench.mjs OUT_DIR [FILES] [ROWS_PER_FILE] [K/N]
// K/N (e.g. 0/2): write only the files whose index is K modulo N, so that
// N processes make one set together; the files are the same either way.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const [out, nFiles = '8', rowsPer = '1000000', share = '0/1'] = process.argv.slice(2);
const [job, jobs] = share.split('/').map(Number);
if (!out || !(jobs >= 1) || !(job >= 0 && job < jobs)) {
  console.error('usage: gen_parquet_bench.mjs OUT_DIR [FILES] [ROWS] [K/N]');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (let f = job; f < Number(nFiles); f += jobs) {
  const file = path.join(out, `events-${String(f).padStart(3, '0')}.parquet`);
  if (fs.existsSync(file)) continue;
  const base = f * Number(rowsPer);
  await con.run(`COPY (
    SELECT i + ${base} AS event_id,
           TIMESTAMP '2026-01-01' + to_microseconds(((i + ${base}) * 37) % 86400000000) AS event_time,
           CASE WHEN i % 17 = 0 THEN NULL ELSE 'type_' || (i % 12) END AS event_type,
           'user-' || hash(i + ${base}) % 1000000 AS user_id,
           (hash(i * 3 + ${base}) % 100000) / 100.0 AS amount,
           i % 3 = 0 AS flag,
           CASE WHEN i % 11 = 0 THEN NULL ELSE repeat(chr(CAST(97 + (i % 26) AS INTEGER)), CAST(100 + (i % 200) AS BIGINT)) || hash(i + ${base})::VARCHAR END AS payload
    FROM range(${rowsPer}) t(i))
    TO '${file}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3, ROW_GROUP_SIZE 122880)`);
}
console.log(`bench files in ${out}`);
