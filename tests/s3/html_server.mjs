// An HTTP server on loopback that answers every request with an HTML page
// (200, text/html), as a captive portal or a web server would when the
// S3 endpoint is set to the wrong address.
// node html_server.mjs  -> prints `listening PORT`; stops on SIGTERM.
import http from 'node:http';

const page = '<!DOCTYPE html>\n<html><head><title>Welcome</title></head>' +
  '<body><h1>It works!</h1><p>This is not an object store.</p></body></html>\n';
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8',
                         'Content-Length': Buffer.byteLength(page) });
    res.end(req.method === 'HEAD' ? undefined : page);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => { server.close(); process.exit(0); });
