/**
 * The reference for HTTP benchmarks: a bare node:http server that reads the
 * body and answers the same payloads EddyDB would (an insert's `{id}` and a
 * typed record), with no routing, auth, parsing or storage. It is the
 * physical limit for a Node server on this machine.
 */
import http from 'node:http';

const record = JSON.stringify({ id: 'HRyywbdBVyCcVdEAf35kVQ', name: { type: 'String', value: 'Ann' }, age: { type: 'Integer', value: 31 } });
let n = 0;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = req.method === 'POST' ? JSON.stringify({ id: `id-${n++}` }) : record;
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${addr.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
