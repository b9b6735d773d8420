/**
 * The reference for HTTP benchmarks: a bare node:http server that reads a
 * POST's body and answers the same payloads EddyDB would (an insert's `{id}`, the
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

/** Answers with Content-Length, as a tuned server does (no chunked framing). */
function send(res: http.ServerResponse, status: number, type: string, body: Buffer): void {
  res.writeHead(status, { 'content-type': type, 'content-length': body.length });
  res.end(body);
}

const server = http.createServer((req, res) => {
  // A GET has no body to read: it is answered at once, the same bytes EddyDB answers.
  if (req.method !== 'POST') {
    if (req.headers.accept === 'application/msgpack') send(res, 200, 'application/msgpack', msgpack);
    else send(res, 200, 'application/json', json);
    return;
  }
  req.on('data', () => undefined);
  req.on('end', () => send(res, 201, 'application/json', Buffer.from(JSON.stringify({ id: `id-${n++}` }))));
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
