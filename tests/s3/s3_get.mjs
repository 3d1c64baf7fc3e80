// Downloads every object under s3://BUCKET/PREFIX into a local folder
// with the independent client, keeping the key's path below PREFIX:
// node s3_get.mjs s3://BUCKET/PREFIX DIR
// Each body is checked against the listed size (a short body fails).
import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { s3Client, parseS3Uri, listAll } from './s3_client.mjs';

const [uri, dir] = process.argv.slice(2);
if (!uri || !dir) { console.error('usage: s3_get.mjs s3://BUCKET/PREFIX DIR'); process.exit(2); }
const { bucket, prefix } = parseS3Uri(uri);
const base = prefix.replace(/\/$/, '');
const client = s3Client();
const objects = await listAll(client, bucket, base ? base + '/' : '');
for (const o of objects) {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.key }));
  const body = Buffer.from(await r.Body.transformToByteArray());
  if (body.length !== o.size) throw new Error(`${o.key}: got ${body.length} bytes, listed ${o.size}`);
  const rel = base ? o.key.slice(base.length + 1) : o.key;
  const out = path.join(dir, rel);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, body);
}
console.log(`got ${objects.length} object(s) from s3://${bucket}/${prefix}`);
