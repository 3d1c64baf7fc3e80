// Checks a compacted table against its input, read by DuckDB (not by our
// reader): the live data files of the table's current snapshot (decoded
// from the manifests by avsc, tests/interop/manifest/avsc_manifests.mjs)
// hold the same columns, the same number of rows and the same multiset of
// row hashes (hash() of every column, compared with EXCEPT ALL both ways)
// as the input's Parquet files. With --order-by=COLS (ascending, nulls
// last, as `zamboni compact --sort-by` sorts by default) every output file
// must read back in that order, and the files' key ranges may overlap at
// most GROUPS deep (--groups=G: compaction sorts each group into files of
// disjoint ranges, so files from one group never overlap; ranges that only
// touch do not overlap). With --aggregate the multisets are compared by
// count, sum and bit_xor of the hashes instead (constant memory, for inputs
// of hundreds of millions of rows). Prints one PASS or FAIL line per check
// and exits 1 when any check fails.
// Usage: node duckdb_check.mjs INPUT_DIR TABLE_DIR [--order-by=COLS]
//            [--groups=G] [--aggregate] [--label=NAME]
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const pos = args.filter((a) => !a.startsWith('--'));
const opt = (name) => {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? null : a.slice(name.length + 3);
};
const [inputDir, tableDir] = pos;
if (!inputDir || !tableDir) {
  console.error('usage: duckdb_check.mjs INPUT_DIR TABLE_DIR [--order-by=COLS] [--groups=G]');
  process.exit(2);
}
const orderBy = opt('order-by') ? opt('order-by').split(',').filter((c) => c !== '') : null;
const groups = opt('groups') === null ? null : Number(opt('groups'));
const label = opt('label') || path.basename(tableDir);
const aggregate = args.includes('--aggregate');
let failed = 0;
const report = (ok, what, detail) => {
  if (!ok) failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${label}: ${what}${detail ? ` (${detail})` : ''}`);
};
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const list = (files) => '[' + files.map(q).join(',') + ']';

function listParquet(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listParquet(p));
    else if (e.name.endsWith('.parquet') && !e.name.startsWith('.')) out.push(p);
  }
  return out.sort();
}

// The current metadata file of a table folder: version-hint.text, else
// the highest vN.metadata.json.
function currentMetadata(dir) {
  const md = path.join(dir, 'metadata');
  const hint = path.join(md, 'version-hint.text');
  if (fs.existsSync(hint)) {
    const f = path.join(md, `v${fs.readFileSync(hint, 'utf8').trim()}.metadata.json`);
    if (fs.existsSync(f)) return f;
  }
  const vs = fs.readdirSync(md).map((n) => /^v(\d+)\.metadata\.json$/.exec(n)).filter(Boolean);
  if (vs.length === 0) throw new Error(`${dir}: no metadata file`);
  vs.sort((a, b) => Number(b[1]) - Number(a[1]));
  return path.join(md, vs[0][0]);
}

function liveDataFiles(dir) {
  const text = execFileSync('node', [path.join(here, '../tests/interop/manifest/avsc_manifests.mjs'),
    '--metadata', currentMetadata(dir), dir], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const files = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line);
    if (e.file_path === undefined || e.status === 2 || e.content !== 0) continue;
    files.push(e.file_path.replace(/^file:(\/\/)?/, ''));
  }
  return files;
}

const inputs = listParquet(inputDir);
const outputs = liveDataFiles(tableDir);
if (inputs.length === 0 || outputs.length === 0) {
  report(false, 'input and output files found', `${inputs.length} input, ${outputs.length} live output`);
  process.exit(1);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await (await con.run(sql)).getRows());

const inCols = await rows(`DESCRIBE SELECT * FROM read_parquet(${list(inputs)})`);
const outCols = await rows(`DESCRIBE SELECT * FROM read_parquet(${list(outputs)})`);
const colsText = (c) => c.map((r) => `${r[0]} ${r[1]}`).join(', ');
report(colsText(inCols) === colsText(outCols), 'same columns and types',
  `${outputs.length} live data file(s); ${colsText(outCols)}`);

const cols = inCols.map((r) => `"${r[0]}"`).join(', ');
if (aggregate) {
  const agg = async (files) => (await rows(`SELECT count(*), sum(h)::VARCHAR, bit_xor(h)::VARCHAR
    FROM (SELECT hash(${cols}) AS h FROM read_parquet(${list(files)}))`))[0];
  const [nIn, sumIn, xorIn] = await agg(inputs);
  const [nOut, sumOut, xorOut] = await agg(outputs);
  report(nIn === nOut, 'row count equals the input\'s', `input ${nIn}, output ${nOut}`);
  report(sumIn === sumOut && xorIn === xorOut, 'row-hash multiset equals the input\'s (sum and bit_xor of the hashes)',
    `sum ${sumIn} / ${sumOut}, xor ${xorIn} / ${xorOut}`);
} else {
  await con.run(`CREATE TEMP TABLE h_in AS SELECT hash(${cols}) AS h FROM read_parquet(${list(inputs)})`);
  await con.run(`CREATE TEMP TABLE h_out AS SELECT hash(${cols}) AS h FROM read_parquet(${list(outputs)})`);
  const [[nIn, nOut]] = await rows('SELECT (SELECT count(*) FROM h_in), (SELECT count(*) FROM h_out)');
  report(nIn === nOut, 'row count equals the input\'s', `input ${nIn}, output ${nOut}`);
  const [[onlyIn, onlyOut]] = await rows(`SELECT
    (SELECT count(*) FROM (SELECT h FROM h_in EXCEPT ALL SELECT h FROM h_out)),
    (SELECT count(*) FROM (SELECT h FROM h_out EXCEPT ALL SELECT h FROM h_in))`);
  report(onlyIn === 0n && onlyOut === 0n, 'row-hash multiset equals the input\'s',
    `${onlyIn} input row(s) missing, ${onlyOut} extra`);
}

if (orderBy) {
  const key = orderBy.map((c) => `"${c}" ASC NULLS LAST`).join(', ');
  const sel = orderBy.map((c) => `"${c}"`).join(', ');
  let unsorted = 0;
  const bad = [];
  await con.run('CREATE TEMP TABLE ends (f INTEGER, is_hi BOOLEAN, ' +
    orderBy.map((c, i) => `k${i} ${inCols.find((r) => r[0] === c)[1]}`).join(', ') + ')');
  for (let i = 0; i < outputs.length; i++) {
    const src = `read_parquet(${q(outputs[i])}, file_row_number = true)`;
    // Sorted iff ranking by (key, file position) gives the file position.
    const [[n]] = await rows(`SELECT count(*) FROM (SELECT file_row_number AS fr,
      row_number() OVER (ORDER BY ${key}, file_row_number) - 1 AS rn FROM ${src}) WHERE fr <> rn`);
    if (n !== 0n) { unsorted++; bad.push(`${path.basename(outputs[i])}: ${n} rows out of place`); }
    await con.run(`INSERT INTO ends SELECT ${i}, file_row_number > 0, ${sel} FROM ${src}
      WHERE file_row_number = 0 OR file_row_number = (SELECT count(*) - 1 FROM ${src})`);
  }
  report(unsorted === 0, `every output file reads back in (${orderBy.join(', ')}) order`,
    unsorted === 0 ? `${outputs.length} file(s)` : bad.slice(0, 3).join('; '));
  // Each file's first and last key as ranks in one ordering, so that the
  // comparison is DuckDB's (nulls last), not JavaScript's.
  const ends = await rows(`SELECT f, is_hi, dense_rank() OVER (ORDER BY ${orderBy.map((_, i) => `k${i} ASC NULLS LAST`).join(', ')}) FROM ends`);
  const lo = new Map(), hi = new Map();
  for (const [f, isHi, r] of ends) (isHi ? hi : lo).set(f, Number(r));
  for (const [f, r] of lo) if (!hi.has(f)) hi.set(f, r); // a one-row file
  // Deepest overlap: at each file's start, the files whose [lo, hi) holds it.
  let depth = 0;
  for (const [f, s] of lo) {
    let d = 1;
    for (const [g, t] of lo) if (g !== f && t <= s && s < hi.get(g)) d++;
    depth = Math.max(depth, d);
  }
  if (groups === null || Number.isNaN(groups)) {
    console.log(`INFO ${label}: key ranges overlap at most ${depth} deep (groups unknown: not checked)`);
  } else {
    report(depth <= Math.max(groups, 1), 'output files\' key ranges disjoint within each group',
      `overlap depth ${depth}, ${groups} group(s)`);
  }
}
process.exit(failed ? 1 : 0);
