// Uploads a local file or folder (recursively) to S3 with the independent
// client: node s3_put.mjs LOCAL s3://BUCKET/PREFIX
// A folder's files go to PREFIX/RELATIVE/PATH; a file goes to PREFIX.
import fs from 'node:fs';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client, parseS3Uri } from './s3_client.mjs';

const [local, uri] = process.argv.slice(2);
if (!local || !uri) { console.error('usage: s3_put.mjs LOCAL s3://BUCKET/PREFIX'); process.exit(2); }
const { bucket, prefix } = parseS3Uri(uri);
const client = s3Client();

function files(dir, rel = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...files(dir, r));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

const jobs = fs.statSync(local).isDirectory()
  ? files(local).map((r) => [path.join(local, r), prefix.replace(/\/$/, '') + '/' + r])
  : [[local, prefix]];
let n = 0;
for (const [file, key] of jobs) {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: fs.readFileSync(file) }));
  n++;
}
console.log(`put ${n} object(s) under s3://${bucket}/${prefix}`);
