// The fault proxy checked on its own, before any test trusts it: the
// independent client (@aws-sdk/client-s3, one attempt per request, so a
// fault is seen) through fault_proxy.mjs against s3rver, one case per
// fault kind, plus an echo server behind the proxy showing that the Host
// header and the request bodies reach the server unchanged.
// Usage: node proxy_selftest.mjs --s3rver PATH/TO/s3rver.mjs
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  PutObjectCommand, GetObjectCommand, DeleteObjectsCommand, HeadObjectCommand,
  CreateMultipartUploadCommand, UploadPartCommand, CompleteMultipartUploadCommand,
  AbortMultipartUploadCommand, ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { s3Client, listAll } from './s3_client.mjs';
import { startListening } from './servers.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const argv = process.argv.slice(2);
const s3rverJs = argv[argv.indexOf('--s3rver') + 1];
if (argv.indexOf('--s3rver') < 0 || !s3rverJs) { console.error('usage: proxy_selftest.mjs --s3rver PATH'); process.exit(2); }

let pass = 0, fail = 0;
function check(name, cond, why = '') {
  if (cond) { console.log(`PASS ${name}`); pass++; }
  else { console.log(`FAIL ${name}${why ? ': ' + why : ''}`); fail++; }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zb-proxy-selftest-'));
const bucket = 'selftest';
const s3 = await startListening(process.execPath, [s3rverJs, '--dir', dir, '--port', '0', '--bucket', bucket]);
const proxy = await startListening(process.execPath, [path.join(here, 'fault_proxy.mjs'),
  '--target', `http://127.0.0.1:${s3.port}`, '--listen', '0', '--seed', '7']);
const proxyUrl = `http://127.0.0.1:${proxy.port}`;

async function control(method, what, body) {
  const r = await fetch(`${proxyUrl}/__proxy/${what}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) throw new Error(`${what}: ${JSON.stringify(j)}`);
  return j;
}
const setFaults = (f) => control('POST', 'faults', f);
const stats = () => control('GET', 'stats');
const reset = () => control('POST', 'reset', {});

const direct = s3Client(`http://127.0.0.1:${s3.port}`);
const via = s3Client(proxyUrl);
const viaShortTimeout = s3Client(proxyUrl, { requestHandler: { requestTimeout: 400, throwOnRequestTimeout: true } });

async function attempt(p) {
  try { return { ok: true, value: await p }; }
  catch (e) { return { ok: false, error: e }; }
}
const bodyOf = async (r) => Buffer.from(await r.Body.transformToByteArray());

// Raw GET through the proxy: the declared length and the bytes that came.
// (s3rver checks a V4 signature's form and date, not its value.)
function rawGet(key) {
  const now = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return new Promise((resolve) => {
    const req = http.get(`${proxyUrl}/${bucket}/${key}`, {
      headers: { authorization: `AWS4-HMAC-SHA256 Credential=S3RVER/${now.slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0`,
                 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': now } }, (res) => {
      let got = 0;
      res.on('data', (c) => { got += c.length; });
      const done = (how) => resolve({ status: res.statusCode, declared: Number(res.headers['content-length']), got, how, complete: res.complete });
      res.on('end', () => done('end'));
      res.on('error', (e) => done(e.code || e.message));
      res.on('aborted', () => done('aborted'));
    });
    req.on('error', (e) => resolve({ error: e.code || e.message }));
  });
}

try {
  const data = crypto.randomBytes(64 * 1024);
  // --- pass-through ------------------------------------------------
  await via.send(new PutObjectCommand({ Bucket: bucket, Key: 'a/obj.bin', Body: data }));
  const got = await bodyOf(await via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('passthrough_bytes_exact', got.equals(data));
  const directGot = await bodyOf(await direct.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('passthrough_stored_exact', directGot.equals(data));
  const head = await via.send(new HeadObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' }));
  check('passthrough_head_length', Number(head.ContentLength) === data.length, String(head.ContentLength));
  let st = await stats();
  check('stats_by_method', st.requests.byMethod.PUT === 1 && st.requests.byMethod.GET === 1 && st.requests.byMethod.HEAD === 1, JSON.stringify(st.requests.byMethod));
  check('stats_by_key', st.requests.byKey['a/obj.bin'] === 3, JSON.stringify(st.requests.byKey));
  check('stats_by_op', st.requests.byOp.PutObject === 1 && st.requests.byOp.GetObject === 1, JSON.stringify(st.requests.byOp));
  await reset();
  st = await stats();
  check('reset_clears', st.requests.total === 0 && st.faults.total === 0);

  // --- 500 and 503 SlowDown: S3 error replies, one fault then normal -
  await setFaults({ rate: 1, kinds: ['500'], maxFaults: 1 });
  let r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('fault_500', !r.ok && r.error.$metadata?.httpStatusCode === 500 && r.error.name === 'InternalError', r.ok ? 'succeeded' : `${r.error.name} ${r.error.$metadata?.httpStatusCode}`);
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('fault_max_faults', r.ok);
  await setFaults({ rate: 1, kinds: ['503slowdown'], methods: ['PUT'] });
  r = await attempt(via.send(new PutObjectCommand({ Bucket: bucket, Key: 'a/slow.bin', Body: data })));
  check('fault_503_slowdown', !r.ok && r.error.$metadata?.httpStatusCode === 503 && r.error.name === 'SlowDown', r.ok ? 'succeeded' : `${r.error.name}`);
  check('fault_503_not_forwarded', !(await listAll(direct, bucket, 'a/')).some((o) => o.key === 'a/slow.bin'));
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('fault_methods_filter', r.ok);
  await setFaults({ rate: 1, kinds: ['500'], keyPattern: 'other' });
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('fault_key_pattern_filter', r.ok);
  st = await stats();
  check('stats_faults_by_kind', st.faults.byKind['500'] === 1 && st.faults.byKind['503slowdown'] === 1 && st.faults.total === 2, JSON.stringify(st.faults));

  // --- reset mid-body ------------------------------------------------
  await setFaults({ rate: 1, kinds: ['reset'], maxFaults: 1 });
  let raw = await rawGet('a/obj.bin');
  check('fault_reset_mid_body', (raw.error || raw.how !== 'end' || !raw.complete) && (raw.got ?? 0) < data.length, JSON.stringify(raw));
  await setFaults({ rate: 1, kinds: ['reset'], maxFaults: 1 });
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })).then(bodyOf));
  check('fault_reset_sdk_fails', !r.ok, r.ok ? `got ${r.value.length} bytes` : '');

  // --- short body: full Content-Length declared, half sent ------------
  await setFaults({ rate: 1, kinds: ['short'], maxFaults: 1 });
  raw = await rawGet('a/obj.bin');
  check('fault_short_body', raw.declared === data.length && raw.got === data.length / 2 && !raw.complete, JSON.stringify(raw));
  await setFaults({ rate: 1, kinds: ['short'], maxFaults: 1 });
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })).then(bodyOf));
  check('fault_short_sdk_fails', !r.ok, r.ok ? `got ${r.value.length} bytes as data` : '');

  // --- slow: longer than the client's timeout ------------------------
  await setFaults({ rate: 1, kinds: ['slow'], slowMs: 1500, maxFaults: 1 });
  let t0 = Date.now();
  r = await attempt(viaShortTimeout.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('fault_slow_times_out', !r.ok && Date.now() - t0 < 1400, r.ok ? 'succeeded' : `${r.error.name} after ${Date.now() - t0} ms`);
  await setFaults({ rate: 1, kinds: ['slow'], slowMs: 600, maxFaults: 1 });
  t0 = Date.now();
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })).then(bodyOf));
  check('fault_slow_then_complete', r.ok && r.value.equals(data) && Date.now() - t0 >= 550, `${Date.now() - t0} ms`);

  // --- delay on every request ----------------------------------------
  await setFaults({ delayMs: 200 });
  t0 = Date.now();
  await via.send(new HeadObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' }));
  check('delay_ms', Date.now() - t0 >= 190, `${Date.now() - t0} ms`);

  // --- a listing that is not XML -------------------------------------
  await setFaults({ rate: 1, kinds: ['notxml'] });
  r = await attempt(via.send(new ListObjectsV2Command({ Bucket: bucket })));
  check('fault_notxml_listing', !r.ok, r.ok ? 'parsed' : '');
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })).then(bodyOf));
  check('fault_notxml_only_listings', r.ok && r.value.equals(data));

  // --- DeleteObjects with per-key errors ------------------------------
  await setFaults({ deletePerKeyErrors: ['d/k2'] });
  await reset();
  for (const k of ['d/k1', 'd/k2', 'd/k3'])
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: Buffer.from(k) }));
  const del = await via.send(new DeleteObjectsCommand({ Bucket: bucket,
    Delete: { Objects: ['d/k1', 'd/k2', 'd/k3'].map((Key) => ({ Key })) } }));
  const deleted = (del.Deleted ?? []).map((o) => o.Key).sort();
  const errors = (del.Errors ?? []).map((o) => `${o.Key}:${o.Code}`);
  check('delete_reply_deleted', JSON.stringify(deleted) === '["d/k1","d/k3"]', JSON.stringify(deleted));
  check('delete_reply_errors', JSON.stringify(errors) === '["d/k2:AccessDenied"]', JSON.stringify(errors));
  let left = (await listAll(direct, bucket, 'd/')).map((o) => o.key);
  check('delete_refused_key_kept', JSON.stringify(left) === '["d/k2"]', JSON.stringify(left));
  st = await stats();
  check('delete_stats', JSON.stringify(st.deleteErrors) === '["d/k2"]' && st.deletedKeys.sort().join() === 'd/k1,d/k3', JSON.stringify(st));
  const only = await via.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'd/k2' }] } }));
  check('delete_all_refused', (only.Deleted ?? []).length === 0 && (only.Errors ?? []).length === 1);
  left = (await listAll(direct, bucket, 'd/')).map((o) => o.key);
  check('delete_all_refused_kept', JSON.stringify(left) === '["d/k2"]');
  await setFaults({});
  for (const k of ['e/1', 'e/2', 'e/3', 'e/4', 'e/5', 'e/6'])
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: Buffer.from(k) }));
  await setFaults({ deleteErrorRate: 0.5 });
  await reset();
  const half = await via.send(new DeleteObjectsCommand({ Bucket: bucket,
    Delete: { Objects: ['e/1', 'e/2', 'e/3', 'e/4', 'e/5', 'e/6'].map((Key) => ({ Key })) } }));
  left = (await listAll(direct, bucket, 'e/')).map((o) => o.key).sort();
  const refused = (half.Errors ?? []).map((o) => o.Key).sort();
  check('delete_error_rate', JSON.stringify(left) === JSON.stringify(refused) && (half.Deleted ?? []).length + refused.length === 6,
        `left ${left} refused ${refused}`);

  // --- multipart uploads counted --------------------------------------
  await setFaults({});
  await reset();
  const part = crypto.randomBytes(5 * 1024 * 1024);
  const tail = crypto.randomBytes(1000);
  const mp = await via.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm/big.bin' }));
  const p1 = await via.send(new UploadPartCommand({ Bucket: bucket, Key: 'm/big.bin', UploadId: mp.UploadId, PartNumber: 1, Body: part }));
  const p2 = await via.send(new UploadPartCommand({ Bucket: bucket, Key: 'm/big.bin', UploadId: mp.UploadId, PartNumber: 2, Body: tail }));
  st = await stats();
  check('multipart_open_listed', st.multipart.initiated === 1 && st.multipart.open.length === 1 && st.multipart.open[0].key === 'm/big.bin', JSON.stringify(st.multipart));
  await via.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'm/big.bin', UploadId: mp.UploadId,
    MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }, { PartNumber: 2, ETag: p2.ETag }] } }));
  const whole = await bodyOf(await direct.send(new GetObjectCommand({ Bucket: bucket, Key: 'm/big.bin' })));
  check('multipart_bytes_exact', whole.equals(Buffer.concat([part, tail])));
  const mp2 = await via.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm/gone.bin' }));
  await via.send(new UploadPartCommand({ Bucket: bucket, Key: 'm/gone.bin', UploadId: mp2.UploadId, PartNumber: 1, Body: tail }));
  r = await attempt(via.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'm/gone.bin', UploadId: mp2.UploadId })));
  check('multipart_abort_answered', r.ok, r.ok ? '' : r.error.name);
  st = await stats();
  check('multipart_counts', st.multipart.initiated === 2 && st.multipart.completed === 1 && st.multipart.aborted === 1 && st.multipart.open.length === 0, JSON.stringify(st.multipart));
  check('multipart_aborted_invisible', !(await listAll(direct, bucket, 'm/')).some((o) => o.key === 'm/gone.bin'));

  // --- a lost Complete reply, and what S3 answers then ---------------
  await setFaults({ rate: 1, kinds: ['dropreply'], ops: ['CompleteMultipartUpload'], maxFaults: 1 });
  await reset();
  const mp3 = await via.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm/lost.bin' }));
  const q1 = await via.send(new UploadPartCommand({ Bucket: bucket, Key: 'm/lost.bin', UploadId: mp3.UploadId, PartNumber: 1, Body: part }));
  const q2 = await via.send(new UploadPartCommand({ Bucket: bucket, Key: 'm/lost.bin', UploadId: mp3.UploadId, PartNumber: 2, Body: tail }));
  const parts3 = { Parts: [{ PartNumber: 1, ETag: q1.ETag }, { PartNumber: 2, ETag: q2.ETag }] };
  r = await attempt(via.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'm/lost.bin', UploadId: mp3.UploadId, MultipartUpload: parts3 })));
  check('fault_dropreply_no_reply', !r.ok, r.ok ? 'answered' : '');
  const lost = await bodyOf(await direct.send(new GetObjectCommand({ Bucket: bucket, Key: 'm/lost.bin' })));
  check('fault_dropreply_done_upstream', lost.equals(Buffer.concat([part, tail])));
  r = await attempt(via.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: 'm/lost.bin', UploadId: mp3.UploadId, MultipartUpload: parts3 })));
  check('complete_again_no_such_upload', !r.ok && r.error.name === 'NoSuchUpload' && r.error.$metadata?.httpStatusCode === 404,
        r.ok ? 'succeeded' : r.error.name);
  const md5s = crypto.createHash('md5');
  for (const e of [q1.ETag, q2.ETag]) md5s.update(Buffer.from(e.replace(/"/g, ''), 'hex'));
  const s3Etag = `"${md5s.digest('hex')}-2"`;
  const h3 = await via.send(new HeadObjectCommand({ Bucket: bucket, Key: 'm/lost.bin' }));
  check('multipart_etag_as_s3', h3.ETag === s3Etag, `${h3.ETag} != ${s3Etag}`);
  r = await attempt(via.send(new GetObjectCommand({ Bucket: bucket, Key: 'm/lost.bin', IfMatch: s3Etag, Range: 'bytes=0-9' })));
  check('multipart_etag_if_match', r.ok && r.value.ETag === s3Etag, r.ok ? r.value.ETag : r.error.name);
  st = await stats();
  check('multipart_lost_counted', st.multipart.completed === 1 && st.multipart.repeatedCompletes === 1 && st.multipart.open.length === 0,
        JSON.stringify(st.multipart));
  await setFaults({ rate: 1, kinds: ['500'], ops: ['GetObject'] });
  r = await attempt(via.send(new HeadObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('fault_ops_filter', r.ok);
  await setFaults({});

  // --- temporary keys: refused once expired, else passed signed as S3RVER --
  await reset();
  const tmpClient = (id) => s3Client(proxyUrl, { credentials: { accessKeyId: id, secretAccessKey: 'x', sessionToken: 't' } });
  const live = `TMPKEY1EXP${Date.now() + 60000}`, dead = `TMPKEY2EXP${Date.now() - 1}`;
  r = await attempt(tmpClient(live).send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('temp_key_live_passes', r.ok);
  r = await attempt(tmpClient(dead).send(new GetObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('temp_key_expired_refused', !r.ok && r.error.name === 'ExpiredToken' && r.error.$metadata?.httpStatusCode === 400,
        r.ok ? 'passed' : r.error.name);
  r = await attempt(tmpClient(dead).send(new HeadObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })));
  check('temp_key_expired_head_400', !r.ok && r.error.$metadata?.httpStatusCode === 400, r.ok ? 'passed' : String(r.error.$metadata?.httpStatusCode));
  st = await stats();
  check('temp_key_stats', st.tempKeys.passed[live] === 1 && st.tempKeys.refused[dead] === 2 && st.tempKeys.refusedTotal === 2,
        JSON.stringify(st.tempKeys));

  // --- seeded share: some faults, not all -----------------------------
  await setFaults({ rate: 0.5, kinds: ['500', '503slowdown'] });
  await reset();
  let failed = 0;
  for (let i = 0; i < 40; i++)
    if (!(await attempt(via.send(new HeadObjectCommand({ Bucket: bucket, Key: 'a/obj.bin' })))).ok) failed++;
  st = await stats();
  check('rate_share', failed > 5 && failed < 35 && st.faults.total === failed, `${failed} of 40 failed, ${st.faults.total} faults`);
  r = await attempt(setFaults({ kinds: ['bogus'] }));
  check('bad_kind_refused', !r.ok);
  await setFaults({});
} catch (e) {
  check('selftest_ran', false, e.stack);
}

// --- Host header and bodies reach the server unchanged (echo server) --
const echo = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const b = Buffer.concat(chunks);
    const body = JSON.stringify({ host: req.headers.host, auth: req.headers.authorization,
      sha: crypto.createHash('sha256').update(b).digest('hex'), len: b.length });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
});
await new Promise((r) => echo.listen(0, '127.0.0.1', r));
const echoProxy = await startListening(process.execPath, [path.join(here, 'fault_proxy.mjs'),
  '--target', `http://127.0.0.1:${echo.address().port}`]);
const payload = crypto.randomBytes(300000);
const seen = await new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port: echoProxy.port, method: 'PUT', path: '/b/k',
    headers: { host: 'bucket.s3.example:9000', authorization: 'AWS4-HMAC-SHA256 x',
               'content-length': payload.length } }, async (res) => {
    try { resolve(JSON.parse((await new Promise((r) => { const c = []; res.on('data', (d) => c.push(d)); res.on('end', () => r(Buffer.concat(c))); })).toString())); }
    catch (e) { reject(e); }
  });
  req.on('error', reject);
  req.end(payload);
});
check('host_header_kept', seen.host === 'bucket.s3.example:9000', seen.host);
check('authorization_kept', seen.auth === 'AWS4-HMAC-SHA256 x');
check('body_byte_exact', seen.len === payload.length &&
      seen.sha === crypto.createHash('sha256').update(payload).digest('hex'), JSON.stringify(seen));
echoProxy.stop();
echo.close();

proxy.stop();
s3.stop();
fs.rmSync(dir, { recursive: true, force: true });
console.log(`proxy_selftest: ${pass} passed, ${fail} failed`);
process.exit(fail === 0 ? 0 : 1);
