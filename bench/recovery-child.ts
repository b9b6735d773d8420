/**
 * Measured in a fresh process (run with --expose-gc): recovery time and heap
 * bytes for a data directory, either through EddyDB (`eddy`) or as the bare
 * reference (`bare`): decode every log frame with msgpackr and put each
 * record into a Map, with no validation, effects or indexes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { unpack } from 'msgpackr';
import { Database } from '../lib/engine/index.js';

const [dir, mode] = process.argv.slice(2) as [string, 'eddy' | 'bare'];
const gc = (globalThis as { gc?: () => void }).gc!;
gc();
const heap0 = process.memoryUsage().heapUsed;
const t0 = performance.now();
let count = 0;
let keep: unknown;
if (mode === 'eddy') {
  const db = await Database.open({ dataDir: dir });
  count = await db.records.count('bench');
  keep = db;
} else {
  const map = new Map<string, unknown>();
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.seg'))
    .sort()) {
    const buf = readFileSync(path.join(dir, f));
    let off = 12;
    while (off + 8 <= buf.length) {
      const len = buf.readUInt32LE(off);
      const batch = unpack(buf.subarray(off + 8, off + 8 + len)) as {
        effects: Array<{ t: string; id: string; fields: unknown }>;
      };
      for (const e of batch.effects) if (e.t === 'put') map.set(e.id, e.fields);
      off += 8 + len;
    }
  }
  count = map.size;
  keep = map;
}
const ms = performance.now() - t0;
gc();
const heap = process.memoryUsage().heapUsed - heap0;
console.log(JSON.stringify({ ms, heap, count }));
void keep;
process.exit(0);
