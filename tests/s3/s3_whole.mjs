// No partial or temporary object under s3://BUCKET/PREFIX: every object,
// fetched with the independent client, has the listed size and is a whole
// file of a kind a table holds: Parquet (PAR1 at both ends, the footer
// length inside the file), Avro (the Obj\x01 magic), metadata JSON that
// parses, a version hint that is a number, a Puffin file (PFA1 at both
// ends). Anything else is reported as a temporary or unknown object.
// node s3_whole.mjs s3://BUCKET/PREFIX   (exit 1 with one line per problem)
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { s3Client, parseS3Uri, listAll } from './s3_client.mjs';

const [uri] = process.argv.slice(2);
if (!uri) { console.error('usage: s3_whole.mjs s3://BUCKET/PREFIX'); process.exit(2); }
const { bucket, prefix } = parseS3Uri(uri);
const client = s3Client();
const problems = [];
const objects = await listAll(client, bucket, prefix);
const ends = (b, magic) => b.length >= 2 * magic.length &&
  b.subarray(0, magic.length).toString('latin1') === magic &&
  b.subarray(b.length - magic.length).toString('latin1') === magic;
for (const o of objects) {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.key }));
  const b = Buffer.from(await r.Body.transformToByteArray());
  const why = [];
  if (b.length !== o.size) why.push(`fetched ${b.length} bytes, listed ${o.size}`);
  if (o.key.endsWith('.parquet')) {
    if (!ends(b, 'PAR1')) why.push('not PAR1 at both ends');
    else if (b.readUInt32LE(b.length - 8) + 12 > b.length) why.push('footer longer than the file');
  } else if (o.key.endsWith('.avro')) {
    if (b.subarray(0, 4).toString('latin1') !== 'Obj\x01') why.push('no Avro magic');
  } else if (o.key.endsWith('.metadata.json')) {
    try { JSON.parse(b.toString('utf8')); } catch (e) { why.push(`not JSON: ${e.message}`); }
  } else if (/version-hint\.te?xt$/.test(o.key)) {
    if (!/^\s*\d+\s*$/.test(b.toString('utf8'))) why.push('not a version number');
  } else if (o.key.endsWith('.puffin') || o.key.endsWith('.bin')) {
    if (!ends(b, 'PFA1')) why.push('not PFA1 at both ends');
  } else {
    why.push('a temporary or unknown object');
  }
  if (why.length) problems.push(`${o.key} (${o.size} bytes): ${why.join('; ')}`);
}
for (const p of problems) console.log(p);
console.error(`s3_whole: ${objects.length} object(s), ${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);
