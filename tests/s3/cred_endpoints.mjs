// tests/s3/cred_endpoints.mjs - fake credential endpoints on loopback for
// the tests of src/io/s3/s3_creds*.c (tests/unit/io/test_s3_creds_remote.c):
//   POST /sts...        STS AssumeRoleWithWebIdentity (form body or query);
//                       the WebIdentityToken must equal --token-file's
//                       contents, read again at every request
//   GET  /container...  container credentials; Authorization must equal
//                       --container-token
//   PUT  /imds/latest/api/token, GET /imds/latest/meta-data/iam/
//                       security-credentials/[ROLE]: IMDSv2, each GET
//                       needing a token the PUT handed out
//   GET  /__stats       {"sts":N,"container":N,"imds":N,"imds_token":N}:
//                       credentials handed out per source
//   GET  /__config?lifetime_s=N&fail=sts,container,imds&key_exp_s=M
//                       credentials' lifetime from now (default 3600 s);
//                       the listed sources answer 500 until changed;
//                       key_exp_s: access key ids end in EXP<ms>, M s from
//                       now, when tests/s3/fault_proxy.mjs stops taking
//                       them (empty: no suffix, the default)
// Refusals echo what they were sent in their bodies, so that the tests can
// check that the client never copies a reply body into its messages.
//
// Usage: node cred_endpoints.mjs --token-file PATH --container-token TOKEN
// Prints "listening PORT" first, then serves until killed.
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';

const args = {};
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];

const stats = { sts: 0, container: 0, imds: 0, imds_token: 0 };
let lifetimeS = 3600;
let keyExpS = null;
let failing = new Set();
const imdsTokens = new Set();

function creds(kind) {
  const n = ++stats[kind];
  return {
    AccessKeyId: `ASIA${kind.toUpperCase()}${n}` +
      (keyExpS === null ? '' : `EXP${Date.now() + keyExpS * 1000}`),
    SecretAccessKey: `${kind}-secret-${n}`,
    Token: `${kind}-token-${n}`,
    Expiration: new Date(Date.now() + lifetimeS * 1000)
      .toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

function sts(req, res, url, body) {
  const form = new URLSearchParams(req.method === 'POST' ? body : url.search);
  const want = fs.readFileSync(args['token-file'], 'utf8').trim();
  const got = form.get('WebIdentityToken') ?? '';
  if (failing.has('sts'))
    return send(res, 500, 'text/plain', 'sts is failing');
  if (form.get('Action') !== 'AssumeRoleWithWebIdentity' ||
      form.get('Version') !== '2011-06-15' || !form.get('RoleArn') ||
      !form.get('RoleSessionName') || got !== want) {
    return send(res, 400, 'text/xml',
      '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">' +
      '<Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>' +
      `<Message>bad token ${got}</Message></Error>` +
      '<RequestId>x</RequestId></ErrorResponse>');
  }
  const c = creds('sts');
  send(res, 200, 'text/xml',
    '<AssumeRoleWithWebIdentityResponse ' +
    'xmlns="https://sts.amazonaws.com/doc/2011-06-15/">\n' +
    '  <AssumeRoleWithWebIdentityResult>\n' +
    `    <SubjectFromWebIdentityToken>system:sa</SubjectFromWebIdentityToken>\n` +
    '    <Credentials>\n' +
    `      <AccessKeyId>${c.AccessKeyId}</AccessKeyId>\n` +
    `      <SecretAccessKey>${c.SecretAccessKey}</SecretAccessKey>\n` +
    `      <SessionToken>${c.Token}</SessionToken>\n` +
    `      <Expiration>${c.Expiration}</Expiration>\n` +
    '    </Credentials>\n' +
    `    <AssumedRoleUser><Arn>${form.get('RoleArn')}</Arn></AssumedRoleUser>\n` +
    '  </AssumeRoleWithWebIdentityResult>\n' +
    '</AssumeRoleWithWebIdentityResponse>\n');
}

function container(req, res) {
  const got = req.headers.authorization ?? '';
  if (failing.has('container'))
    return send(res, 500, 'text/plain', 'container is failing');
  if (got !== args['container-token'])
    return send(res, 401, 'application/json',
      JSON.stringify({ message: `bad authorization ${got}` }));
  send(res, 200, 'application/json', JSON.stringify(creds('container')));
}

function imds(req, res, path) {
  if (failing.has('imds'))
    return send(res, 500, 'text/plain', 'imds is failing');
  if (path === '/latest/api/token') {
    if (req.method !== 'PUT' ||
        !req.headers['x-aws-ec2-metadata-token-ttl-seconds'])
      return send(res, 400, 'text/plain', 'PUT with a ttl');
    const t = crypto.randomBytes(16).toString('hex');
    imdsTokens.add(t);
    stats.imds_token++;
    return send(res, 200, 'text/plain', t);
  }
  const t = req.headers['x-aws-ec2-metadata-token'];
  if (!imdsTokens.has(t))
    return send(res, 401, 'text/plain', `bad token ${t}`);
  const prefix = '/latest/meta-data/iam/security-credentials/';
  if (path === prefix)
    return send(res, 200, 'text/plain', 'test-role\n');
  if (path === prefix + 'test-role') {
    const c = creds('imds');
    return send(res, 200, 'text/plain', JSON.stringify({
      Code: 'Success', LastUpdated: new Date().toISOString(),
      Type: 'AWS-HMAC', ...c }, null, 2));
  }
  send(res, 404, 'text/plain', 'not found');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url, 'http://127.0.0.1');
    try {
      if (url.pathname === '/__stats')
        return send(res, 200, 'application/json', JSON.stringify(stats));
      if (url.pathname === '/__config') {
        if (url.searchParams.has('lifetime_s'))
          lifetimeS = Number(url.searchParams.get('lifetime_s'));
        if (url.searchParams.has('key_exp_s'))
          keyExpS = url.searchParams.get('key_exp_s') === '' ? null
            : Number(url.searchParams.get('key_exp_s'));
        if (url.searchParams.has('fail'))
          failing = new Set(url.searchParams.get('fail').split(',')
            .filter((s) => s));
        return send(res, 200, 'application/json', '{}');
      }
      if (url.pathname.startsWith('/sts')) return sts(req, res, url, body);
      if (url.pathname.startsWith('/container')) return container(req, res);
      if (url.pathname.startsWith('/imds/'))
        return imds(req, res, url.pathname.slice('/imds'.length));
      send(res, 404, 'text/plain', 'no such endpoint');
    } catch (e) {
      console.error(e);
      send(res, 500, 'text/plain', 'server error');
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
