// A loopback S3 look-alike with faults chosen by the key's first path
// element, for the retry and resume cases of s3_server.c. Every object is
// 200,000 bytes, byte i = (i * 7) % 251, in any bucket:
//   slow503/...  the first two requests of each key: 503 SlowDown
//   cut/...      a GET whose range starts at 0 (or a suffix range) sends
//                its headers and half its body, then drops the connection
//   short/...    every GET drops the connection after half its body
//   stall/...    headers, then nothing
//   expired/...  400 ExpiredToken for requests signed with an access key
//                id that starts with EXPIRED; served as usual otherwise
//   count/P      its body is the number of requests seen for the key P
//                of the same bucket (e.g. count/expired/a)
// Prints "listening PORT" first; runs until SIGTERM.
import http from 'node:http';

const SIZE = 200000;
const body = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) body[i] = (i * 7) % 251;
const seen = new Map();

function slowDown(res) {
  res.writeHead(503, { 'Content-Type': 'application/xml', 'Retry-After': '0' });
  res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
    '<Message>Please reduce your request rate.</Message></Error>');
}

const server = http.createServer((req, res) => {
  req.resume();
  const path = decodeURIComponent(req.url.split('?')[0]);
  const key = path.split('/').slice(2).join('/');
  const kind = key.split('/')[0];
  const n = (seen.get(path) || 0) + 1;
  seen.set(path, n);
  if (kind === 'slow503' && n <= 2) return slowDown(res);
  if (kind === 'count') {
    const bucket = path.split('/')[1];
    const text = String(seen.get(`/${bucket}/${key.slice(6)}`) || 0);
    res.writeHead(200, { 'Content-Length': text.length, ETag: '"c"' });
    return res.end(req.method === 'HEAD' ? undefined : text);
  }
  const keyId = /Credential=([^/,\s]+)\//.exec(req.headers.authorization || '');
  if (kind === 'expired' && keyId && keyId[1].startsWith('EXPIRED')) {
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' +
      'ExpiredToken</Code><Message>The provided token has expired.</Message>' +
      '</Error>';
    res.writeHead(400, { 'Content-Type': 'application/xml',
                         'Content-Length': Buffer.byteLength(xml) });
    return res.end(req.method === 'HEAD' ? undefined : xml);
  }
  if (req.method === 'HEAD') {
    res.writeHead(200, { 'Content-Length': SIZE, ETag: '"e1"' });
    return res.end();
  }
  let start = 0;
  let end = SIZE - 1;
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range || '');
  if (m && m[1] === '') start = Math.max(0, SIZE - Number(m[2]));
  else if (m) { start = Number(m[1]); if (m[2] !== '') end = Math.min(end, Number(m[2])); }
  const part = body.subarray(start, end + 1);
  const headers = { 'Content-Length': part.length, ETag: '"e1"' };
  if (m) headers['Content-Range'] = `bytes ${start}-${end}/${SIZE}`;
  res.writeHead(m ? 206 : 200, headers);
  if (kind === 'stall') return;   // never a byte of the body
  if ((kind === 'cut' && start === 0) || kind === 'short') {
    res.write(part.subarray(0, Math.floor(part.length / 2)), () =>
      setTimeout(() => req.socket.destroy(), 20));
    return;
  }
  res.end(part);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
