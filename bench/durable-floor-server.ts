/**
 * The durable floor: the least any Node server can do for an `always`
 * insert, measured beside bare node:http so the insert ratio has a ceiling
 * to be read against. It reads the body, parses it, gives it an id, appends
 * it as one line to a file, and answers `{id}` once an fdatasync covers it,
 * with group commit: the bodies that arrive while a write and fsync run
 * share the next ones. No routing, auth, schema, log framing, checksums,
 * indexes or change feed. The write is synchronous (only the fsync goes to
 * the thread pool): of the variants tried it was the fastest here, 33-34k
 * against 29-30k inserts/s for an asynchronous write. Run transpiled (see
 * bench/lib/procs.ts `compiled`), not under tsx. The file is DURABLE_FILE.
 */
import http from 'node:http';
import { fdatasync, openSync, writeSync } from 'node:fs';

const file = process.env.DURABLE_FILE;
if (!file) throw new Error('DURABLE_FILE names the file to append to');
const fd = openSync(file, 'a', 0o600);
const datasync = () => new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
let n = 0;
let pending: Buffer[] = [];
let waiting: Array<{ res: http.ServerResponse; id: string }> = [];
let cycling = false;

async function commit(): Promise<void> {
  cycling = true;
  while (pending.length > 0) {
    const data = Buffer.concat(pending);
    const group = waiting;
    pending = [];
    waiting = [];
    writeSync(fd, data);
    await datasync();
    for (const { res, id } of group) {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id }));
    }
  }
  cycling = false;
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const record = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const id = `id-${n++}`;
    record.id = id;
    pending.push(Buffer.from(`${JSON.stringify(record)}\n`));
    waiting.push({ res, id });
    if (!cycling) void commit();
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
