// icebird 0.3.1 (package.json, exact) reads the manifests we wrote: for
// each written table folder, icebirdMetadata + icebergManifests through a
// fetch() that serves local paths (icebird fetches every path it finds in
// metadata, and our sample tables name local paths), then compares the
// live data/delete file paths, record counts and content types with
// zb-manifest-cat's. Data files are not read (the sample's do not exist).
// Where it applies: icebird 0.3.1's own Avro reader has no "fixed" type
// ("unsupported type: fixed": our partitioned sample has a decimal
// partition, which the spec stores as fixed) and fails on a v1 manifest
// without sequence-number columns ("iceberg manifest entry missing
// sequence number", where the spec says they read 0); --only names the
// folders to check (CMake passes v2-unpart,v3-unpart).
// Usage: node check_icebird.mjs --cat ZB_MANIFEST_CAT [--only A,B] DIR
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

let icebird;
try { icebird = await import('icebird'); } catch {
  console.log('icebird is not installed: run npm ci'); process.exit(1);
}
globalThis.fetch = async (url) => {
  const p = String(url).replace(/^file:\/\//, '');
  if (!fs.existsSync(p)) return new Response(null, { status: 404 });
  return new Response(fs.readFileSync(p));
};
const args = process.argv.slice(2);
const cat = args[args.indexOf('--cat') + 1];
const root = args[args.length - 1];
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
let failed = 0;
for (const name of fs.readdirSync(root).sort()) {
  const dir = path.join(root, name);
  if (!fs.existsSync(path.join(dir, 'metadata'))) continue;
  if (only && !only.includes(name)) continue;
  try {
    const metadata = await icebird.icebergMetadata({ tableUrl: dir });
    const lists = await icebird.icebergManifests(metadata);
    const theirs = lists.flatMap((m) => m.entries)
      .filter((e) => e.status !== 2)
      .map((e) => `${e.data_file.file_path}|${e.data_file.record_count}|${e.data_file.content ?? 0}`)
      .sort();
    const ours = execFileSync(cat, [dir], { encoding: 'utf8' }).split('\n')
      .filter((l) => l).slice(1).map((l) => JSON.parse(l))
      .map((e) => `${e.file_path}|${e.record_count}|${e.content}`).sort();
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      console.log(`FAIL ${name}: ours ${JSON.stringify(ours)} icebird ${JSON.stringify(theirs)}`);
      failed++;
    } else console.log(`ok   ${name}: icebird reads ${theirs.length} live files`);
  } catch (e) {
    console.log(`FAIL ${name}: icebird: ${e.message}`);
    failed++;
  }
}
process.exitCode = failed ? 1 : 0;
