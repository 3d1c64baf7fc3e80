// Writes seed inputs for fuzz_parquet_page: real column chunks of small
// Parquet files, each behind the 4-byte header that fuzz_parquet_page.c
// describes. Usage: node make_seeds.mjs OUT_DIR FILE...
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const [out, ...files] = process.argv.slice(2);
const types = { BOOLEAN: 0, INT32: 1, INT64: 2, INT96: 3, FLOAT: 4, DOUBLE: 5,
  BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 };
const codecs = { UNCOMPRESSED: 0, SNAPPY: 1, GZIP: 2, BROTLI: 4, LZ4: 5, ZSTD: 6, LZ4_RAW: 7 };
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
fs.mkdirSync(out, { recursive: true });
let n = 0;
for (const file of files) {
  const bytes = fs.readFileSync(file);
  const rows = (await (await con.run(`SELECT type, compression, data_page_offset,
      dictionary_page_offset, total_compressed_size, path_in_schema
      FROM parquet_metadata('${file}') WHERE row_group_id = 0`)).getRowObjects());
  for (const r of rows) {
    const dict = r.dictionary_page_offset === null ? null : Number(r.dictionary_page_offset);
    const start = dict !== null && dict > 0 && dict < Number(r.data_page_offset) ? dict : Number(r.data_page_offset);
    const len = Number(r.total_compressed_size);
    if (len > 16384) continue;
    const nested = String(r.path_in_schema).includes(',');
    const head = Buffer.from([types[r.type] ?? 1, nested ? 2 : 1, codecs[r.compression] ?? 0, r.type === 'BYTE_ARRAY' ? 1 : 0]);
    fs.writeFileSync(path.join(out, `seed-${String(n++).padStart(3, '0')}`), Buffer.concat([head, bytes.subarray(start, start + len)]));
  }
}
console.log(`${n} seeds in ${out}`);
