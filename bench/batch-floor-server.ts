/**
 * The batch floor: the least any Node server can do for a durable batch
 * insert, the reference `batch-insert-http` is read against. It takes the
 * body EddyDB's `POST /api/batch/insert/:collection` takes (`{inserts:
 * [{data}]}`, JSON or MessagePack by Content-Type), parses it, gives each
 * record an id (a 22-character counter, the length of EddyDB's ids),
 * encodes one log line per record (a 4-byte length, then the record with
 * its id in MessagePack), writes them with one write, fdatasyncs once, and
 * answers `{successful: [ids], failed: []}` with 201, as EddyDB does. No
 * routing, auth, schema, typed values, log framing of the batch, checksums,
 * state, indexes, change feed or slicing. Run transpiled (see
 * bench/lib/procs.ts `compiled`), not under tsx. The file is DURABLE_FILE.
 */
import http from 'node:http';
import { fdatasync, openSync, writeSync } from 'node:fs';
import { Packr } from 'msgpackr';

const file = process.env.DURABLE_FILE;
if (!file) throw new Error('DURABLE_FILE names the file to append to');
const fd = openSync(file, 'a', 0o600);
const packr = new Packr({ useRecords: false });
const datasync = () => new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
let n = 0;

function parse(type: string | undefined, body: Buffer): { inserts: Array<{ data: Record<string, unknown> }> } {
  return type === 'application/msgpack' ? packr.unpack(body) : JSON.parse(body.toString('utf8'));
}

/** One length-prefixed MessagePack line per record, in one buffer. */
function logLines(records: Array<Record<string, unknown>>): Buffer {
  const lines: Buffer[] = new Array(records.length * 2);
  let size = 0;
  for (let i = 0; i < records.length; i++) {
    // pack() answers a view of the packer's buffer that later calls do not overwrite.
    const line = packr.pack(records[i]);
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(line.length);
    lines[2 * i] = length;
    lines[2 * i + 1] = line;
    size += 4 + line.length;
  }
  return Buffer.concat(lines, size);
}

async function insertBatch(type: string | undefined, body: Buffer, res: http.ServerResponse): Promise<void> {
  const { inserts } = parse(type, body);
  const ids = new Array<string>(inserts.length);
  const records = new Array<Record<string, unknown>>(inserts.length);
  for (let i = 0; i < inserts.length; i++) {
    const id = String(n++).padStart(22, '0');
    ids[i] = id;
    // The parsed object takes its id, as the durable floor does (no copy).
    const record = inserts[i]!.data;
    record.id = id;
    records[i] = record;
  }
  writeSync(fd, logLines(records));
  await datasync();
  const answer = Buffer.from(JSON.stringify({ successful: ids, failed: [] }));
  res.writeHead(201, { 'content-type': 'application/json', 'content-length': answer.length });
  res.end(answer);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    insertBatch(req.headers['content-type'], Buffer.concat(chunks), res).catch((err: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(err.message);
    });
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
