// A fault-injecting HTTP proxy for the S3 tests, on loopback in front of
// an S3 server (s3rver). Requests are forwarded with their headers (Host
// included, so a SigV4 signature stays valid) and their bodies byte for
// byte; a share of them, chosen by a seeded generator, get a fault:
//   500          an InternalError reply (S3's XML error body), not forwarded
//   503slowdown  a 503 SlowDown reply, not forwarded
//   reset        forwarded; the reply's headers and half its body are sent,
//                then the connection is reset (RST)
//   short        forwarded; the reply declares its full Content-Length but
//                only half the body is sent, then the socket is closed
//   slow         forwarded; the reply waits slowMs before its headers
//   notxml       a ListObjectsV2 reply's body replaced by text that is not
//                XML (other requests are left alone)
//   dropreply    forwarded and done upstream; the connection is then
//                closed without a byte of the reply (a lost reply)
// and DeleteObjects can answer per-key <Error> entries for chosen keys
// (deletePerKeyErrors, exact keys, or deleteErrorRate, a share of keys):
// those keys are cut from the request body before it is forwarded, so
// they still exist upstream, and are listed in the stats (deleteErrors).
//
// s3rver answers AbortMultipartUpload with 405 MethodNotAllowed; the
// proxy answers that 405 with the 204 S3 gives (the parts s3rver keeps
// are never listed), so a client's abort is seen as done and counted.
// Where s3rver departs from S3 in what a lost reply exposes, the proxy
// answers as S3 does: a CompleteMultipartUpload of an upload already
// completed gets 404 NoSuchUpload (not forwarded), and an object made by
// a multipart upload shows S3's ETag (the MD5 of its parts' MD5s, "-",
// their count) in HEAD and GET replies, If-Match taking it too.
//
// Temporary keys: a request signed with an access key id that ends in
// EXP<ms since the epoch> is refused with 400 ExpiredToken once that time
// has passed (as S3 refuses an expired session token; a HEAD's reply has
// no body), and is otherwise forwarded signed by the upstream's own key
// id (--upstream-key, default S3RVER; s3rver checks the key id, not the
// signature). The stats count each such key's requests passed and refused.
//
// Control (never forwarded):
//   GET  /__proxy/stats   requests by method, by key and by operation;
//                         faults by kind; multipart uploads initiated,
//                         completed, aborted and still open; the keys
//                         forwarded for deletion (deletedKeys) and those
//                         refused (deleteErrors)
//   GET  /__proxy/faults  the fault settings in force
//   POST /__proxy/faults  JSON replacing the fault settings: rate (0..1),
//                         kinds, methods, ops (operation names, as in the
//                         stats' byOp), keyPattern (a regex on the key),
//                         maxFaults, slowMs, delayMs, deletePerKeyErrors,
//                         deleteErrorRate
//   POST /__proxy/reset   counters back to zero
//
// Usage: node fault_proxy.mjs --target http://127.0.0.1:PORT [--listen PORT]
//        [--delay-ms N] [--seed N] [--rate R --kinds a,b --methods GET,PUT]
//        [--slow-ms N] [--upstream-key ID]
//        [--log]   (--log: each request's line and Range on stderr)
// Prints `listening PORT` as its first line; stops on SIGTERM or SIGINT.
import http from 'node:http';
import crypto from 'node:crypto';

const KINDS = ['500', '503slowdown', 'reset', 'short', 'slow', 'notxml',
               'dropreply'];

function parseArgs(argv) {
  const a = { target: null, listen: 0, delayMs: 0, seed: 1, rate: 0,
              kinds: ['500', '503slowdown'], methods: null, slowMs: 5000,
              upstreamKey: 'S3RVER' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    const need = () => {
      if (v === undefined) { console.error(`fault_proxy: ${k} needs a value`); process.exit(2); }
      i++; return v;
    };
    if (k === '--target') a.target = need();
    else if (k === '--listen') a.listen = Number(need());
    else if (k === '--delay-ms') a.delayMs = Number(need());
    else if (k === '--seed') a.seed = Number(need());
    else if (k === '--rate') a.rate = Number(need());
    else if (k === '--kinds') a.kinds = need().split(',');
    else if (k === '--methods') a.methods = need().split(',');
    else if (k === '--slow-ms') a.slowMs = Number(need());
    else if (k === '--upstream-key') a.upstreamKey = need();
    else if (k === '--log') a.log = true;
    else { console.error(`fault_proxy: unknown argument ${k}`); process.exit(2); }
  }
  if (!a.target) { console.error('fault_proxy: --target URL is required'); process.exit(2); }
  return a;
}

const args = parseArgs(process.argv.slice(2));
const target = new URL(args.target);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
  console.error('fault_proxy: the target must be on loopback');
  process.exit(2);
}
const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

// mulberry32: small, seeded, the same faults for the same seed and order.
let rngState = args.seed >>> 0;
function rand() {
  rngState = (rngState + 0x6D2B79F5) >>> 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

let faults;
function setFaults(f) {
  const kinds = f.kinds ?? ['500', '503slowdown'];
  for (const k of kinds)
    if (!KINDS.includes(k)) throw new Error(`unknown fault kind '${k}' (known: ${KINDS.join(', ')})`);
  faults = {
    rate: Number(f.rate ?? 0),
    kinds,
    methods: f.methods ?? null,
    ops: f.ops ?? null,
    keyPattern: f.keyPattern ?? null,
    maxFaults: f.maxFaults ?? null,
    slowMs: Number(f.slowMs ?? args.slowMs),
    delayMs: Number(f.delayMs ?? args.delayMs),
    deletePerKeyErrors: f.deletePerKeyErrors ?? [],
    deleteErrorRate: Number(f.deleteErrorRate ?? 0),
  };
  faults.keyRe = faults.keyPattern ? new RegExp(faults.keyPattern) : null;
  faultsLeft = faults.maxFaults;
}
let faultsLeft = null;
setFaults({ rate: args.rate, kinds: args.kinds, methods: args.methods });

let stats;
function resetStats() {
  stats = {
    requests: { total: 0, byMethod: {}, byKey: {}, byOp: {} },
    faults: { total: 0, byKind: {} },
    multipart: { initiated: 0, completed: 0, aborted: 0, open: [],
                 repeatedCompletes: 0 },
    tempKeys: { passed: {}, refused: {}, refusedTotal: 0 },
    deleteErrors: [],
    deletedKeys: [],
  };
}
resetStats();
const openUploads = new Map();  // uploadId -> key
const doneUploads = new Set();  // uploadIds completed
const mpEtags = new Map();      // key -> { upstream, s3 } ETags
const bump = (o, k) => { o[k] = (o[k] ?? 0) + 1; };

// Path-style addressing: /BUCKET/KEY?QUERY.
function describe(req) {
  const u = new URL(req.url, 'http://proxy');
  const parts = u.pathname.split('/');
  const bucket = decodeURIComponent(parts[1] ?? '');
  const key = decodeURIComponent(parts.slice(2).join('/'));
  const q = u.searchParams;
  let op;
  const m = req.method;
  if (!key) {
    if (m === 'GET' && q.get('list-type') === '2') op = 'ListObjectsV2';
    else if (m === 'GET') op = bucket ? 'ListObjects' : 'ListBuckets';
    else if (m === 'POST' && q.has('delete')) op = 'DeleteObjects';
    else op = `${m}Bucket`;
  } else if (m === 'POST' && q.has('uploads')) op = 'CreateMultipartUpload';
  else if (m === 'POST' && q.has('uploadId')) op = 'CompleteMultipartUpload';
  else if (m === 'PUT' && q.has('uploadId')) op = 'UploadPart';
  else if (m === 'DELETE' && q.has('uploadId')) op = 'AbortMultipartUpload';
  else op = { GET: 'GetObject', HEAD: 'HeadObject', PUT: 'PutObject',
              DELETE: 'DeleteObject' }[m] ?? m;
  return { bucket, key, op, uploadId: q.get('uploadId') };
}

function xmlEscape(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
          .replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
function xmlUnescape(s) {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
          .replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
          .replace(/&#x([0-9a-fA-F]+);/g, (_, h) => String.fromCodePoint(parseInt(h, 16)))
          .replace(/&amp;/g, '&');
}

function errorReply(res, status, code, message, resource) {
  const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' + code +
    '</Code><Message>' + xmlEscape(message) + '</Message><Resource>' +
    xmlEscape(resource) + '</Resource><RequestId>fault-proxy</RequestId></Error>';
  res.writeHead(status, { 'Content-Type': 'application/xml',
                          'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function chooseFault(req, d) {
  if (faults.rate <= 0 || faults.kinds.length === 0) return null;
  if (faults.methods && !faults.methods.includes(req.method)) return null;
  if (faults.ops && !faults.ops.includes(d.op)) return null;
  if (faults.keyRe && !faults.keyRe.test(d.key)) return null;
  if (faultsLeft !== null && faultsLeft <= 0) return null;
  if (rand() >= faults.rate) return null;
  let kinds = faults.kinds;
  // notxml only fits a listing; elsewhere it is no fault at all.
  if (d.op !== 'ListObjectsV2') kinds = kinds.filter((k) => k !== 'notxml');
  if (kinds.length === 0) return null;
  const kind = kinds[Math.floor(rand() * kinds.length)];
  if (faultsLeft !== null) faultsLeft--;
  stats.faults.total++;
  bump(stats.faults.byKind, kind);
  return kind;
}

// DeleteObjects: keys chosen to fail are cut from the request; their
// <Error> entries are added to the reply.
function splitDelete(body) {
  const text = body.toString('utf8');
  const objects = [...text.matchAll(/<Object>([\s\S]*?)<\/Object>/g)];
  const refused = [];
  let kept = 0;
  const rewritten = text.replace(/<Object>([\s\S]*?)<\/Object>/g, (whole, inner) => {
    const m = /<Key>([\s\S]*?)<\/Key>/.exec(inner);
    const key = m ? xmlUnescape(m[1]) : '';
    const fail = faults.deletePerKeyErrors.includes(key) ||
                 (faults.deleteErrorRate > 0 && rand() < faults.deleteErrorRate);
    if (fail) { refused.push(key); return ''; }
    kept++;
    stats.deletedKeys.push(key);
    return whole;
  });
  return { objects: objects.length, refused, kept, body: Buffer.from(rewritten, 'utf8') };
}

function deleteErrorsXml(keys) {
  return keys.map((k) => '<Error><Key>' + xmlEscape(k) +
    '</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>').join('');
}

function trackMultipart(d, status, body) {
  if (status < 200 || status > 299) return;
  if (d.op === 'CreateMultipartUpload') {
    const m = /<UploadId>([^<]*)<\/UploadId>/.exec(body?.toString('utf8') ?? '');
    stats.multipart.initiated++;
    if (m) openUploads.set(m[1], d.key);
  } else if (d.op === 'CompleteMultipartUpload') {
    // S3 may answer 200 with an <Error> body: that is no completion.
    if (body && /<Error>/.test(body.toString('utf8'))) return;
    stats.multipart.completed++;
    openUploads.delete(d.uploadId);
    doneUploads.add(d.uploadId);
  } else if (d.op === 'AbortMultipartUpload') {
    stats.multipart.aborted++;
    openUploads.delete(d.uploadId);
  }
  stats.multipart.open = [...openUploads.entries()].map(([id, key]) => ({ uploadId: id, key }));
}

// S3's ETag of a multipart object from a CompleteMultipartUpload body.
function multipartEtag(reqBody) {
  const md5s = [...reqBody.toString('utf8').matchAll(/<ETag>([\s\S]*?)<\/ETag>/g)]
    .map((m) => xmlUnescape(m[1]).replace(/"/g, ''));
  if (md5s.length === 0 || md5s.some((e) => !/^[0-9a-f]{32}$/i.test(e))) return null;
  const h = crypto.createHash('md5');
  for (const e of md5s) h.update(Buffer.from(e, 'hex'));
  return `"${h.digest('hex')}-${md5s.length}"`;
}

// Temporary keys (see the top): null to go on, or the reply was sent.
function checkTempKey(req, res, headers) {
  const m = /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '');
  const exp = m ? /EXP(\d+)$/.exec(m[1]) : null;
  if (!exp) return null;
  const key = m[1];
  if (Date.now() >= Number(exp[1])) {
    bump(stats.tempKeys.refused, key);
    stats.tempKeys.refusedTotal++;
    readBody(req).catch(() => {});
    errorReply(res, 400, 'ExpiredToken', 'The provided token has expired.', req.url);
    return true;
  }
  bump(stats.tempKeys.passed, key);
  headers.authorization = req.headers.authorization.replace(
    `Credential=${key}/`, `Credential=${args.upstreamKey}/`);
  return null;
}

function forward(req, headers, body) {
  return new Promise((resolve, reject) => {
    const up = http.request({
      host: target.hostname, port: target.port, method: req.method,
      path: req.url, headers, agent: upstreamAgent,
    }, resolve);
    up.on('error', reject);
    if (body) up.end(body);
    else req.pipe(up);
  });
}

function forwardHeaders(req) {
  const h = { ...req.headers };
  delete h.connection;
  delete h['keep-alive'];
  return h;
}

// The upstream reply's headers without hop-by-hop ones.
function replyHeaders(up, overrides = {}) {
  const h = { ...up.headers };
  delete h.connection;
  delete h['keep-alive'];
  delete h['transfer-encoding'];
  return { ...h, ...overrides };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function control(req, res) {
  const send = (status, obj) => {
    const body = JSON.stringify(obj, null, 1);
    res.writeHead(status, { 'Content-Type': 'application/json',
                            'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const u = new URL(req.url, 'http://proxy');
  const body = await readBody(req);
  if (req.method === 'GET' && u.pathname === '/__proxy/stats') return send(200, stats);
  if (req.method === 'GET' && u.pathname === '/__proxy/faults')
    return send(200, { ...faults, keyRe: undefined, faultsLeft });
  if (req.method === 'POST' && u.pathname === '/__proxy/faults') {
    try { setFaults(JSON.parse(body.toString('utf8') || '{}')); }
    catch (e) { return send(400, { error: e.message }); }
    return send(200, { ...faults, keyRe: undefined });
  }
  if (req.method === 'POST' && u.pathname === '/__proxy/reset') {
    resetStats(); openUploads.clear(); return send(200, { ok: true });
  }
  send(404, { error: `no control endpoint ${req.method} ${u.pathname}` });
}

async function handle(req, res) {
  if (req.url.startsWith('/__proxy/')) return control(req, res);
  const d = describe(req);
  if (args.log)
    console.error(`${req.method} ${req.url}${req.headers.range ? ' range ' + req.headers.range : ''}`);
  stats.requests.total++;
  bump(stats.requests.byMethod, req.method);
  bump(stats.requests.byOp, d.op);
  if (d.key) bump(stats.requests.byKey, d.key);
  if (faults.delayMs > 0) await sleep(faults.delayMs);

  const headers = forwardHeaders(req);
  if (checkTempKey(req, res, headers)) return;
  if (d.op === 'CompleteMultipartUpload' && doneUploads.has(d.uploadId)) {
    await readBody(req);
    stats.multipart.repeatedCompletes++;
    return errorReply(res, 404, 'NoSuchUpload', 'The specified upload does not exist. ' +
      'The upload ID may be invalid, or the upload may have been aborted or completed.', req.url);
  }
  const mp = mpEtags.get(d.key);
  for (const h of ['if-match', 'if-none-match'])
    if (mp && headers[h] === mp.s3) headers[h] = mp.upstream;

  const fault = chooseFault(req, d);
  if (fault === '500' || fault === '503slowdown') {
    await readBody(req);
    if (fault === '500') return errorReply(res, 500, 'InternalError', 'We encountered an internal error. Please try again.', req.url);
    return errorReply(res, 503, 'SlowDown', 'Please reduce your request rate.', req.url);
  }

  let reqBody = null;
  let refused = [];
  if (d.op === 'CompleteMultipartUpload') reqBody = await readBody(req);
  if (d.op === 'DeleteObjects' &&
      (faults.deletePerKeyErrors.length > 0 || faults.deleteErrorRate > 0)) {
    const split = splitDelete(await readBody(req));
    refused = split.refused;
    stats.deleteErrors.push(...refused);
    if (split.kept === 0) {
      // Nothing left to forward: the reply is the errors alone.
      const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        deleteErrorsXml(refused) + '</DeleteResult>';
      res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml) });
      return res.end(xml);
    }
    reqBody = split.body;
    headers['content-length'] = String(reqBody.length);
    delete headers['transfer-encoding'];
    if (headers['content-md5'])
      headers['content-md5'] = crypto.createHash('md5').update(reqBody).digest('base64');
  } else if (d.op === 'DeleteObjects') {
    // Record what is asked to be deleted, forwarding the same bytes.
    reqBody = await readBody(req);
    for (const m of reqBody.toString('utf8').matchAll(/<Key>([\s\S]*?)<\/Key>/g))
      stats.deletedKeys.push(xmlUnescape(m[1]));
  }

  let up;
  try {
    up = await forward(req, headers, reqBody);
  } catch (e) {
    return errorReply(res, 502, 'BadGateway', `fault_proxy: upstream failed: ${e.message}`, req.url);
  }

  if (d.op === 'DeleteObject' && up.statusCode >= 200 && up.statusCode < 300)
    stats.deletedKeys.push(d.key);
  if ((d.op === 'PutObject' || d.op === 'DeleteObject') && up.statusCode < 300)
    mpEtags.delete(d.key);
  const etagOverride = mp && up.headers.etag === mp.upstream &&
    (d.op === 'HeadObject' || d.op === 'GetObject') ? { etag: mp.s3 } : {};
  // Buffer the reply when it must be read or changed; else stream it.
  const mustBuffer = fault !== null || refused.length > 0 ||
    ['CreateMultipartUpload', 'CompleteMultipartUpload', 'AbortMultipartUpload'].includes(d.op);
  if (!mustBuffer) {
    res.writeHead(up.statusCode, replyHeaders(up, etagOverride));
    up.pipe(res);
    return;
  }
  let body = await readBody(up);
  let status = up.statusCode;
  let extra = {};
  if (d.op === 'AbortMultipartUpload' && status === 405) {
    status = 204;
    body = Buffer.alloc(0);
    extra = { 'content-type': undefined };
  }
  trackMultipart(d, status, body);
  if (d.op === 'CompleteMultipartUpload' && status === 200 && !/<Error>/.test(body.toString('utf8'))) {
    const s3 = multipartEtag(reqBody);
    const m = /<ETag>([^<]*)<\/ETag>/.exec(body.toString('utf8'));
    if (s3 && m) {
      const upstream = xmlUnescape(m[1]);
      mpEtags.set(d.key, { upstream, s3 });
      body = Buffer.from(body.toString('utf8').replace(m[0], `<ETag>${xmlEscape(s3)}</ETag>`), 'utf8');
    }
  }
  if (fault === 'dropreply') {
    req.socket.destroy();
    return;
  }
  Object.assign(extra, etagOverride);
  if (refused.length > 0 && status === 200) {
    const text = body.toString('utf8');
    const at = text.lastIndexOf('</DeleteResult>');
    if (at >= 0) body = Buffer.from(text.slice(0, at) + deleteErrorsXml(refused) + text.slice(at), 'utf8');
  }
  if (fault === 'notxml') {
    body = Buffer.from('this is not XML {"Contents": [' + '\u0000\u00ff', 'latin1');
    extra['content-type'] = 'application/xml';
  }
  // A HEAD reply keeps the object's length; it has no body to change.
  const h = req.method === 'HEAD' ? replyHeaders(up, extra)
    : replyHeaders(up, { ...extra, 'content-length': String(body.length) });
  for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k];

  if (fault === 'slow') {
    await sleep(faults.slowMs);
    if (res.destroyed) return;
  }
  if (fault === 'reset') {
    res.writeHead(status, h);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
      setTimeout(() => req.socket.resetAndDestroy(), 20);
    });
    if (body.length === 0) req.socket.resetAndDestroy();
    return;
  }
  if (fault === 'short' && req.method === 'HEAD') {
    // No body to cut: the connection closes before the reply.
    req.socket.end();
    return;
  }
  if (fault === 'short') {
    const declared = Math.max(body.length, 1);
    h['content-length'] = String(declared);
    res.writeHead(status, h);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
      setTimeout(() => req.socket.end(), 20);
    });
    return;
  }
  res.writeHead(status, h);
  res.end(body);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((e) => {
    if (!res.headersSent) errorReply(res, 502, 'BadGateway', `fault_proxy: ${e.message}`, req.url);
    else res.destroy();
  });
});
server.keepAliveTimeout = 30000;
server.listen(args.listen, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
const stop = () => { server.close(); upstreamAgent.destroy(); process.exit(0); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
