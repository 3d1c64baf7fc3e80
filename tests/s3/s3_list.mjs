// Lists every object under s3://BUCKET/PREFIX with the independent
// client, one line per object: SIZE KEY (sorted by key).
// node s3_list.mjs s3://BUCKET[/PREFIX]
import { s3Client, parseS3Uri, listAll } from './s3_client.mjs';

const [uri] = process.argv.slice(2);
if (!uri) { console.error('usage: s3_list.mjs s3://BUCKET[/PREFIX]'); process.exit(2); }
const { bucket, prefix } = parseS3Uri(uri);
const objects = await listAll(s3Client(), bucket, prefix);
objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
for (const o of objects) console.log(`${o.size} ${o.key}`);
