/**
 * The reference for HTTP benchmarks: a bare node:http server that reads the
 * body and answers the same payloads EddyDB would (an insert's `{id}`, the
 * exact record EddyDB returns for a read, given as JSON in BARE_RECORD, as
 * JSON or as MessagePack when `Accept` asks for it), with no routing, auth,
 * parsing or storage. It is the physical limit for a Node server on this
 * machine. Run transpiled (see bench/lib/procs.ts `compiled`), not under tsx.
 */
import http from 'node:http';
import { pack } from 'msgpackr';

const value: unknown = process.env.BARE_RECORD
  ? JSON.parse(process.env.BARE_RECORD)
  : { id: 'HRyywbdBVyCcVdEAf35kVQ', name: { type: 'String', value: 'Ann' }, age: { type: 'Integer', value: 31 } };
const json = Buffer.from(JSON.stringify(value));
const msgpack = pack(value);
let n = 0;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'POST') {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: `id-${n++}` }));
    } else if (req.headers.accept === 'application/msgpack') {
      res.writeHead(200, { 'content-type': 'application/msgpack' });
      res.end(msgpack);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(json);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${addr.port}`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
