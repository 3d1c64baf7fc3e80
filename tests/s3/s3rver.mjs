// Starts s3rver (node_modules, 3.7.1) on 127.0.0.1 for the S3 tests:
//   node tests/s3/s3rver.mjs --dir DIR [--port N] [--bucket NAME]...
// Port 0 (the default) takes a free port. The first line on stdout is
// exactly "listening PORT"; the server then runs until SIGTERM or SIGINT.
// s3rver checks SigV4 signatures with its own keys: access key id and
// secret are both "S3RVER".
import S3rver from 's3rver';
import fs from 'node:fs';

function usage(msg) {
  process.stderr.write(`s3rver.mjs: ${msg}\n` +
    'usage: node tests/s3/s3rver.mjs --dir DIR [--port N] [--bucket NAME]...\n');
  process.exit(2);
}

const args = process.argv.slice(2);
let dir = null;
let port = 0;
const buckets = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const v = args[i + 1];
  if (a === '--dir' && v !== undefined) { dir = v; i++; }
  else if (a === '--port' && v !== undefined) { port = Number(v); i++; }
  else if (a === '--bucket' && v !== undefined) { buckets.push(v); i++; }
  else usage(`unknown argument ${a}`);
}
if (!dir) usage('--dir is required');
if (!Number.isInteger(port) || port < 0 || port > 65535) usage('bad --port');
fs.mkdirSync(dir, { recursive: true });

const server = new S3rver({
  address: '127.0.0.1',
  port,
  directory: dir,
  silent: true,
  configureBuckets: buckets.map((name) => ({ name })),
});

const addr = await server.run();
process.stdout.write(`listening ${addr.port}\n`);

let closing = false;
function stop() {
  if (closing) return;
  closing = true;
  server.close(() => process.exit(0));
  // Keep-alive connections would hold close() open.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
