/**
 * Reads logged batches back from the segments, for replication catch-up
 * ("ship the log from a sequence number"). Stops at the first bad frame,
 * which can only be an in-progress append at the tail, or at zero fill.
 */
import path from 'node:path';
import { decodeBatch, releaseSource } from '../codec.js';
import { HEADER_SIZE, readFrame } from '../frame.js';
import type { StorageFs } from '../fs.js';
import type { LoggedBatch } from '../../write/effects.js';

const SEGMENT = /^log-(\d{16})\.seg$/;

/** Up to `limit` batches with seq > `afterSeq`, in order; `firstAvailable` is the oldest seq still on disk. */
export async function readBatchesAfter(
  fs: StorageFs,
  dir: string,
  afterSeq: number,
  limit: number,
): Promise<{ batches: LoggedBatch[]; firstAvailable: number }> {
  const segs = (await fs.readdir(dir)).filter((f) => SEGMENT.test(f)).sort();
  const starts = segs.map((f) => Number(SEGMENT.exec(f)![1]));
  const batches: LoggedBatch[] = [];
  for (let i = 0; i < segs.length && batches.length < limit; i++) {
    const nextStart = starts[i + 1];
    if (nextStart !== undefined && nextStart <= afterSeq + 1) continue;
    const buf = await fs.readFile(path.join(dir, segs[i]!));
    let offset = HEADER_SIZE;
    for (;;) {
      const read = readFrame(buf, offset);
      // An empty frame is the zero fill a segment may end in.
      if (read.kind !== 'frame' || read.payload.length === 0) break;
      const batch = decodeBatch(read.payload);
      if (!batch) break;
      if (batch.seq > afterSeq) batches.push(batch);
      if (batches.length >= limit) break;
      offset = read.next;
    }
  }
  releaseSource();
  return { batches, firstAvailable: starts[0] ?? afterSeq + 1 };
}
