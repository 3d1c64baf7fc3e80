// The independent S3 client of bench/s3_compact.sh (@aws-sdk/client-s3;
// never zamboni's code), and a byte meter. The store is
// $ZAMBONI_S3_ENDPOINT, path-style, with AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY / AWS_REGION, as the benchmark gives zamboni.
//
//   put DIR s3://B/PREFIX [JOBS]        upload every file under DIR (key:
//                                       PREFIX/relative path), JOBS at once
//   put-many s3://B/PREFIX FROM TO BYTES [JOBS]
//                                       objects FROM..TO-1 of BYTES bytes,
//                                       PREFIX/NNNNNN/orphan-I.bin
//   get-all s3://B/PREFIX [JOBS]        GET every object under PREFIX (the
//                                       server's ceiling); prints
//                                       objects=N bytes=B seconds=S
//   sizes s3://B/PREFIX                 "SIZE KEY" lines
//   rm s3://B/PREFIX                    delete everything under PREFIX
//   meter --target URL                  an HTTP proxy on loopback that
//                                       forwards byte for byte (Host kept,
//                                       so signatures hold) and counts the
//                                       body bytes of GET replies by key;
//                                       prints `listening PORT`, then
//                                       GET /__meter/stats (JSON
//                                       {bytesByKey, getsByKey}) and
//                                       POST /__meter/reset
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import {
  S3Client, PutObjectCommand, GetObjectCommand, ListObjectsV2Command,
  DeleteObjectsCommand,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';

function die(msg) {
  process.stderr.write(`s3_bench.mjs: ${msg}\n`);
  process.exit(2);
}

function parseUri(uri) {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri ?? '');
  if (!m) die(`not an s3:// URI: ${uri}`);
  return { bucket: m[1], prefix: m[2].replace(/\/+$/, '') };
}

function client(jobs) {
  const endpoint = process.env.ZAMBONI_S3_ENDPOINT;
  if (!endpoint) die('ZAMBONI_S3_ENDPOINT is not set');
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: process.env.AWS_REGION || 'us-east-1',
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: jobs }),
    }),
  });
}

// Runs fn on every item, at most jobs at once.
async function pool(items, jobs, fn) {
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
}

function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

async function* listAll(s3, bucket, prefix) {
  let token;
  do {
    const r = await s3.send(new ListObjectsV2Command({
      Bucket: bucket, Prefix: prefix ? `${prefix}/` : undefined,
      ContinuationToken: token,
    }));
    for (const o of r.Contents ?? []) yield o;
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
}

async function put(dir, uri, jobs) {
  const { bucket, prefix } = parseUri(uri);
  const s3 = client(jobs);
  const files = walk(dir);
  await pool(files, jobs, async (f) => {
    const rel = path.relative(dir, f).split(path.sep).join('/');
    await s3.send(new PutObjectCommand({
      Bucket: bucket, Key: prefix ? `${prefix}/${rel}` : rel,
      Body: fs.readFileSync(f),
    }));
  });
  console.log(`objects=${files.length}`);
}

async function putMany(uri, from, to, bytes, jobs) {
  const { bucket, prefix } = parseUri(uri);
  const s3 = client(jobs);
  const body = Buffer.alloc(bytes, 0x61);
  const ids = Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  await pool(ids, jobs, async (i) => {
    // Folders of 1,000, as a partitioned table's data folders are.
    const dir = String(Math.floor(i / 1000)).padStart(6, '0');
    await s3.send(new PutObjectCommand({
      Bucket: bucket, Key: `${prefix}/${dir}/orphan-${i}.bin`, Body: body,
    }));
  });
  console.log(`objects=${ids.length}`);
}

async function getAll(uri, jobs) {
  const { bucket, prefix } = parseUri(uri);
  const s3 = client(jobs);
  const keys = [];
  for await (const o of listAll(s3, bucket, prefix)) keys.push(o.Key);
  let bytes = 0;
  const t0 = process.hrtime.bigint();
  await pool(keys, jobs, async (key) => {
    const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const b = await r.Body.transformToByteArray();
    bytes += b.length;
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`objects=${keys.length} bytes=${bytes} seconds=${s.toFixed(3)}`);
}

async function sizes(uri) {
  const { bucket, prefix } = parseUri(uri);
  const s3 = client(4);
  for await (const o of listAll(s3, bucket, prefix)) console.log(`${o.Size} ${o.Key}`);
}

async function rm(uri) {
  const { bucket, prefix } = parseUri(uri);
  const s3 = client(8);
  let batch = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await s3.send(new DeleteObjectsCommand({
      Bucket: bucket, Delete: { Objects: batch, Quiet: true },
    }));
    batch = [];
  };
  const keys = [];
  for await (const o of listAll(s3, bucket, prefix)) keys.push(o.Key);
  for (const Key of keys) {
    batch.push({ Key });
    if (batch.length === 1000) await flush();
  }
  await flush();
}

function meter(target) {
  const t = new URL(target);
  if (!['127.0.0.1', 'localhost'].includes(t.hostname)) die('the target must be on loopback');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let stats = { bytesByKey: {}, getsByKey: {} };
  const server = http.createServer((req, res) => {
    if (req.url === '/__meter/stats') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify(stats));
    }
    if (req.url === '/__meter/reset' && req.method === 'POST') {
      stats = { bytesByKey: {}, getsByKey: {} };
      res.writeHead(200);
      return res.end('{}');
    }
    const u = new URL(req.url, 'http://meter');
    const key = decodeURIComponent(u.pathname.split('/').slice(2).join('/'));
    const up = http.request({
      host: t.hostname, port: t.port, method: req.method, path: req.url,
      headers: req.headers, agent,
    }, (ur) => {
      res.writeHead(ur.statusCode, ur.headers);
      if (req.method === 'GET' && key) {
        stats.getsByKey[key] = (stats.getsByKey[key] ?? 0) + 1;
        ur.on('data', (c) => { stats.bytesByKey[key] = (stats.bytesByKey[key] ?? 0) + c.length; });
      }
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const [cmd, ...a] = process.argv.slice(2);
const num = (v, d) => (v === undefined ? d : Number(v));
switch (cmd) {
case 'put': await put(a[0], a[1], num(a[2], 16)); break;
case 'put-many': await putMany(a[0], num(a[1]), num(a[2]), num(a[3], 100), num(a[4], 32)); break;
case 'get-all': await getAll(a[0], num(a[1], 16)); break;
case 'sizes': await sizes(a[0]); break;
case 'rm': await rm(a[0]); break;
case 'meter':
  if (a[0] !== '--target' || !a[1]) die('usage: meter --target URL');
  meter(a[1]);
  break;
default:
  die('usage: put | put-many | get-all | sizes | rm | meter (see the head of this file)');
}
