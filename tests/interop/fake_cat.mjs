#!/usr/bin/env node
// Stand-in for zb-parquet-cat: prints FILE's rows in canonical JSON (one
// object per line), read with hyparquet. Used to test compare_parquet.mjs
// before the C tool exists: `compare_parquet.mjs --cat fake_cat.mjs ...`
// then compares hyparquet with DuckDB.
import { readCanonicalHyparquet, toCanonicalJSON } from './canonical.mjs';

const file = process.argv[2];
if (!file || process.argv.length !== 3) {
    process.stderr.write('usage: fake_cat.mjs FILE.parquet\n');
    process.exit(2);
}
process.stdout.on('error', e => { if (e.code === 'EPIPE') process.exit(0); throw e; });
try {
    const { rows } = await readCanonicalHyparquet(file);
    const out = [];
    for (const r of rows) out.push(toCanonicalJSON(r));
    out.push('');
    process.stdout.write(out.join('\n'));
} catch (e) {
    process.stderr.write(`fake_cat: ${file}: ${e && e.stack || e}\n`);
    process.exit(1);
}
