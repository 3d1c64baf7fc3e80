#!/usr/bin/env node
// Checks a Parquet file written by Zamboni's footer and page header
// writers (pq_meta_write, pq_page_header_write) with independent readers.
//
//   node check_written_footer.mjs --demo PATH/zb-parquet-write-demo OUT_DIR
//
// Runs the demo tool to write OUT_DIR/zb_written_demo.parquet (one REQUIRED
// INT64 column "x", field_id 1, 5 rows in one PLAIN uncompressed data page
// v1), then checks:
//   DuckDB:    the rows and values; parquet_schema() (field_id 1, INT64,
//              REQUIRED); parquet_metadata() (statistics, codec, offsets);
//              parquet_kv_metadata(); parquet_file_metadata() (created_by,
//              version, column_orders = TYPE_ORDER)
//   hyparquet: parquetMetadata() field by field, the rows, and the raw
//              Thrift of the footer (column_orders, field 7)
// Prints one PASS/FAIL line per check and `N passed, N failed`; exit 1 on
// any failure.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
if (!existsSync(join(root, 'node_modules', '@duckdb', 'node-api')) ||
    !existsSync(join(root, 'node_modules', 'hyparquet'))) {
    console.error(`check_written_footer: ${join(root, 'node_modules')} lacks the npm packages; run scripts/install-deps.sh`);
    console.log('0 passed, 1 failed');
    process.exit(1);
}

// The values of DEMO_VALUES in tools/zb_parquet_write_demo.c.
const VALUES = [1n, -2n, 300n, 4000000000n, -5n];

const argv = process.argv.slice(2);
let demo = null;
const rest = [];
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--demo') demo = argv[++i];
    else rest.push(argv[i]);
}
if (!demo || rest.length !== 1) {
    console.error('usage: node check_written_footer.mjs --demo PATH/zb-parquet-write-demo OUT_DIR');
    process.exit(2);
}
mkdirSync(rest[0], { recursive: true });
const file = resolve(rest[0], 'zb_written_demo.parquet');
const run = spawnSync(demo, [file], { encoding: 'utf8' });
if (run.status !== 0) {
    console.error(`check_written_footer: ${demo} exited ${run.status}: ${run.stderr}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
}

let passed = 0, failed = 0;
function check(name, fn) {
    return Promise.resolve().then(fn).then(() => {
        passed++;
        console.log(`PASS ${name}`);
    }, (e) => {
        failed++;
        console.log(`FAIL ${name}: ${e.message}`);
    });
}
const show = (v) => JSON.stringify(v, (_, x) => typeof x === 'bigint' ? `${x}n` : x);
function eq(what, got, want) {
    if (show(got) !== show(want))
        throw new Error(`${what}: got ${show(got)}, want ${show(want)}`);
}

// ---------------------------------------------------------------- DuckDB
const { DuckDBInstance } = await import('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const sqlFile = `'${file.replace(/'/g, "''")}'`;
async function rows(sql) {
    return (await con.runAndReadAll(sql)).getRowObjectsJson();
}

await check('duckdb rows', async () => {
    const r = await rows(`SELECT x FROM read_parquet(${sqlFile})`);
    eq('rows', r.map((o) => BigInt(o.x)), VALUES);
});
await check('duckdb parquet_schema', async () => {
    const r = await rows(`SELECT name, type, repetition_type, num_children, field_id
                          FROM parquet_schema(${sqlFile})`);
    eq('schema', r, [
        { name: 'schema', type: null, repetition_type: null, num_children: '1', field_id: null },
        { name: 'x', type: 'INT64', repetition_type: 'REQUIRED', num_children: null, field_id: '1' },
    ]);
});
await check('duckdb parquet_metadata', async () => {
    const r = await rows(`SELECT row_group_num_rows, num_values, path_in_schema, type,
                                 stats_null_count, stats_min_value, stats_max_value,
                                 compression, encodings, data_page_offset,
                                 dictionary_page_offset, total_compressed_size,
                                 total_uncompressed_size
                          FROM parquet_metadata(${sqlFile})`);
    eq('row count', r.length, 1);
    const m = r[0];
    eq('row_group_num_rows', m.row_group_num_rows, '5');
    eq('num_values', m.num_values, '5');
    eq('path_in_schema', m.path_in_schema, 'x');
    eq('type', m.type, 'INT64');
    eq('stats_null_count', m.stats_null_count, '0');
    eq('stats_min_value', m.stats_min_value, '-5');
    eq('stats_max_value', m.stats_max_value, '4000000000');
    eq('compression', m.compression, 'UNCOMPRESSED');
    eq('encodings', m.encodings, 'PLAIN, RLE');
    eq('data_page_offset', m.data_page_offset, '4');
    eq('dictionary_page_offset', m.dictionary_page_offset, null);
    eq('sizes', m.total_compressed_size, m.total_uncompressed_size);
});
await check('duckdb kv and file metadata', async () => {
    const kv = await rows(`SELECT key::VARCHAR AS key, value::VARCHAR AS value
                           FROM parquet_kv_metadata(${sqlFile})`);
    eq('kv', kv, [{ key: 'zamboni.demo', value: 'tiny file' }]);
    const f = await rows(`SELECT created_by, num_rows, num_row_groups, format_version,
                                 column_orders FROM parquet_file_metadata(${sqlFile})`);
    eq('file metadata', f, [{
        created_by: 'zamboni version 0.1.0 (zb-parquet-write-demo)',
        num_rows: '5', num_row_groups: '1', format_version: '1',
        column_orders: ['ColumnOrder(TYPE_ORDER=TypeDefinedOrder())'],
    }]);
});
await check('duckdb uses the statistics', async () => {
    // Filters outside [min, max] must still give the right answers.
    const r = await rows(`SELECT count(*) AS n FROM read_parquet(${sqlFile})
                          WHERE x > 4000000000 OR x < -5`);
    eq('count', r[0].n, '0');
});

// ------------------------------------------------------------- hyparquet
const { parquetMetadata, parquetReadObjects } = await import('hyparquet');
const { deserializeTCompactProtocol } = await import('hyparquet/src/thrift.js');
const bytes = readFileSync(file);
const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

await check('hyparquet metadata', async () => {
    const md = parquetMetadata(buf);
    eq('version', md.version, 1);
    eq('num_rows', md.num_rows, 5n);
    eq('created_by', md.created_by, 'zamboni version 0.1.0 (zb-parquet-write-demo)');
    eq('key_value_metadata', md.key_value_metadata, [{ key: 'zamboni.demo', value: 'tiny file' }]);
    eq('schema[0]', [md.schema[0].name, md.schema[0].num_children, md.schema[0].type], ['schema', 1, undefined]);
    const x = md.schema[1];
    eq('schema[1]', [x.name, x.type, x.repetition_type, x.field_id, x.num_children],
       ['x', 'INT64', 'REQUIRED', 1, undefined]);
    eq('row groups', md.row_groups.length, 1);
    const rg = md.row_groups[0];
    eq('rg', [rg.num_rows, rg.file_offset, rg.ordinal, rg.columns.length], [5n, 4n, 0, 1]);
    eq('rg sizes', rg.total_compressed_size, rg.total_byte_size);
    const cc = rg.columns[0];
    eq('file_offset', cc.file_offset, 4n);
    eq('file_path', cc.file_path, undefined);
    const cm = cc.meta_data;
    eq('meta', [cm.type, cm.encodings, cm.path_in_schema, cm.codec, cm.num_values, cm.data_page_offset],
       ['INT64', ['PLAIN', 'RLE'], ['x'], 'UNCOMPRESSED', 5n, 4n]);
    eq('total sizes', cm.total_compressed_size, cm.total_uncompressed_size);
    eq('chunk size', cm.total_compressed_size, rg.total_byte_size);
    eq('statistics', [cm.statistics.min_value, cm.statistics.max_value, cm.statistics.null_count,
                      cm.statistics.min, cm.statistics.max, cm.statistics.distinct_count],
       [-5n, 4000000000n, 0n, undefined, undefined, undefined]);
    // The footer's declared length matches where the data ends.
    eq('footer', 4 + Number(cm.total_compressed_size) + md.metadata_length + 8, bytes.length);
});
await check('hyparquet rows', async () => {
    const r = await parquetReadObjects({ file: buf });
    eq('rows', r.map((o) => o.x), VALUES);
});
await check('hyparquet raw thrift: column_orders', async () => {
    const len = bytes.readUInt32LE(bytes.length - 8);
    const view = new DataView(buf);
    const reader = { view, offset: bytes.length - 8 - len };
    const raw = deserializeTCompactProtocol(reader);
    // FileMetaData 7: list<ColumnOrder>, one per leaf; 1: TYPE_ORDER {}.
    eq('column_orders', raw.field_7, [{ field_1: {} }]);
    eq('footer ends at its length', reader.offset, bytes.length - 8);
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
