// A loopback HTTP server that is not S3: it answers every request with an
// HTML page (403, or 200 for listings), as a proxy's or a portal's login
// page would. Prints "listening PORT" first; runs until SIGTERM.
import http from 'node:http';

const page = '<!DOCTYPE html><html><head><title>Sign in</title></head>' +
  '<body><h1>Please sign in</h1></body></html>';
const server = http.createServer((req, res) => {
  req.resume();
  const listing = /[?&]list-type=2/.test(req.url);
  res.writeHead(listing ? 200 : 403, { 'Content-Type': 'text/html' });
  res.end(req.method === 'HEAD' ? undefined : page);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
