/**
 * Snapshots: the whole state at one seq, written while writes continue.
 *
 * The writer opens a point-in-time reader on every collection
 * (CollectionState.openReader), so records changed after the snapshot
 * started are written with their pre-snapshot entry; no map is copied. Frames are written in
 * chunks with event-loop turns between them, which bounds the write stall.
 *
 * File: header 'EDDYSNAP' v1, then frames: meta, config, keys, per
 * collection a `coll` frame (with its record count) and `recs` chunks,
 * `trash` chunks, and a final `end` frame. A snapshot without its `end` frame
 * is invalid. Reading (strict, salvage, verification) is in snapshot-reader.ts.
 */
import path from 'node:path';
import { encodeFrame, encodeHeader } from '../frame.js';
import { encodePayload, packableFields } from '../codec.js';
import type { StorageFile, StorageFs } from '../fs.js';
import type { DbState, CollectionMeta, KvEntry, RecordEntry } from '../../write/state.js';
import { CollectionScan } from '../../query/collection-scan.js';
import type { Fields } from '../../values/index.js';
import { yieldToLoop } from '../../time/slices.js';

export const SNAP_MAGIC = 'EDDYSNAP';
export const SNAP_VERSION = 1;
const CHUNK = 2000;
/**
 * The size a records frame is made for, from the size of the rows before it
 * (at most CHUNK rows): a frame is encoded in one piece while the event loop
 * waits, and 2,000 records of 384-dimension vectors are 7 MB, about 100 ms.
 */
const FRAME_BYTES = 512 * 1024;
/** At most this many rows in a collection's first records frame: one row tells its size only roughly. */
const FIRST_FRAME_ROWS = 64;

/** The log segment size that starts a snapshot when none is configured, at the least. */
export const SNAPSHOT_BYTES = 64 * 1024 * 1024;

/**
 * The log segment size that starts a snapshot: `configured` when set; else
 * SNAPSHOT_BYTES, or half the last snapshot's size when that is more. A
 * snapshot rewrites the whole state: with a fixed threshold, a load of n
 * records wrote snapshots of O(n^2 / threshold) records (at 3M, about 10M
 * rows, back to back, each outlasting the 64 MiB of log after it). Waiting
 * for the log to reach half the last snapshot as well (Redis rewrites its
 * AOF after 100% growth) keeps the snapshot bytes written within twice the
 * bytes logged, and a recovery replays at most half a snapshot's worth of log.
 */
export function snapshotThreshold(configured: number | undefined, lastSnapshotBytes: number): number {
  return configured ?? Math.max(SNAPSHOT_BYTES, lastSnapshotBytes / 2);
}

export function snapshotName(seq: number): string {
  return `snapshot-${String(seq).padStart(16, '0')}.snap`;
}

export type Row = [
  id: string,
  fields: Fields,
  version: number,
  expiresAt: number | null,
  slidingMs: number | null,
  deletedAt?: number,
];

/** One frame of a snapshot. `count` (records at the snapshot's seq) is absent in files written before it was added. */
export type SnapFrame =
  | { k: 'meta'; seq: number; created_at: number }
  | { k: 'config'; v: Record<string, unknown> }
  | { k: 'keys'; v: unknown[] }
  | { k: 'ripple'; seen: Array<[string, number]> }
  | { k: 'kv'; rows: Array<[string, KvEntry]> }
  | { k: 'kvLinks'; rows: Array<[string, string[]]> }
  | { k: 'coll'; meta: CollectionMeta; membership: number; count?: number }
  | { k: 'recs'; c: string; rows: Row[] }
  | { k: 'trash'; c: string; rows: Row[] }
  | { k: 'end'; frames: number };

function row(id: string, entry: RecordEntry, deletedAt?: number): Row {
  const out: Row = [id, packableFields(entry.fields), entry.version, entry.expiresAt ?? null, entry.slidingMs ?? null];
  if (deletedAt !== undefined) out.push(deletedAt);
  return out;
}

export function toEntry(stored: Row, ord?: number): RecordEntry {
  // ord in the literal: a property added later would cost the entry an out-of-object property array.
  const entry: { fields: Fields; version: number; expiresAt?: number; slidingMs?: number; ord?: number } = {
    fields: stored[1],
    version: stored[2],
    ord,
  };
  if (stored[3] !== null) entry.expiresAt = stored[3];
  if (stored[4] !== null) entry.slidingMs = stored[4];
  return entry;
}

/** What a written snapshot holds, for verifying it after the rename. */
export interface WrittenSnapshot {
  readonly name: string;
  readonly seq: number;
  readonly bytes: number;
  /** Frames including the `end` frame. */
  readonly frames: number;
  /** The checksum of every frame in file order: verification compares the file against them. */
  readonly frameCrcs: readonly number[];
}

/** Where a snapshot's bytes go: a file, or a backup stream (storage/backup/). Resolves once it may take more. */
export type ByteSink = (bytes: Buffer) => Promise<void>;

/** What a snapshot's bytes hold once written. */
export interface SnapshotBytes {
  /** Bytes of the frames (the header not counted). */
  readonly bytes: number;
  /** Frames including the `end` frame. */
  readonly frames: number;
  readonly frameCrcs: readonly number[];
}

/**
 * The state at one seq, captured without a copy, its bytes not written yet:
 * `write` sends them (the header and every frame) to a sink, and whether
 * it completes or fails it lets go of the collections, as `close` does.
 */
export interface SnapshotCapture {
  readonly seq: number;
  write(sink: ByteSink): Promise<SnapshotBytes>;
  /** Lets go of the point-in-time readers without writing. Idempotent. */
  close(): void;
}

/**
 * Captures `state` as of now. REQUIRES: called between write groups (the
 * collections are marked synchronously, here). Until written or closed,
 * each collection keeps the pre-image of every record written meanwhile.
 */
export function captureSnapshot(state: DbState, now: number): SnapshotCapture {
  const seq = state.seq;
  // Every collection's point-in-time reader opens now; expiry is not judged (expired records are state until swept).
  const colls = [...state.collections.values()].map((c) => ({
    meta: c.meta,
    membership: c.membershipVersion,
    count: c.records.size,
    scan: new CollectionScan(c, now),
  }));
  const trash = [...state.trash].map(([c, m]) => [c, [...m]] as const);
  const config = { ...state.config };
  const keys = [...state.keys.values()];
  const ripple = [...state.rippleSeen];
  const kv = [...state.kv];
  const kvLinks = [...state.kvLinks].map(([key, set]): [string, string[]] => [key, [...set]]);
  let closed = false;
  const close = () => {
    closed = true;
    for (const { scan } of colls) scan.close();
  };
  const write = async (sink: ByteSink): Promise<SnapshotBytes> => {
    if (closed) throw new Error(`the capture at seq ${seq} was closed before it was written`);
    let frames = 0,
      bytes = 0;
    const frameCrcs: number[] = [];
    /** Writes a frame; resolves with its size. */
    const put = async (frame: SnapFrame): Promise<number> => {
      const buf = encodeFrame(encodePayload(frame));
      frames += 1;
      bytes += buf.length;
      frameCrcs.push(buf.readUInt32LE(4));
      await sink(buf);
      return buf.length;
    };
    try {
      await sink(encodeHeader(SNAP_MAGIC, SNAP_VERSION));
      await put({ k: 'meta', seq, created_at: now });
      await put({ k: 'config', v: config });
      await put({ k: 'keys', v: keys });
      await put({ k: 'ripple', seen: ripple });
      for (let i = 0; i < kv.length; i += CHUNK) await put({ k: 'kv', rows: kv.slice(i, i + CHUNK) });
      await put({ k: 'kvLinks', rows: kvLinks });
      for (const { meta, membership, count, scan } of colls) {
        await put({ k: 'coll', meta, membership, count });
        await writeRecords(meta.name, scan, put);
      }
      for (const [collection, entries] of trash) {
        for (let i = 0; i < entries.length; i += CHUNK) {
          await put({
            k: 'trash',
            c: collection,
            rows: entries.slice(i, i + CHUNK).map(([id, t]) => row(id, t.entry, t.deletedAt)),
          });
        }
      }
      await put({ k: 'end', frames });
    } finally {
      close();
    }
    return { bytes, frames, frameCrcs };
  };
  return { seq, write, close };
}

/**
 * Writes a snapshot of `state` as of now to `dir`. Durable on return (fsync,
 * rename, directory fsync). REQUIRES: called between write groups (the
 * collections are marked synchronously, before the first await).
 */
export async function writeSnapshot(fs: StorageFs, dir: string, state: DbState, now: number): Promise<WrittenSnapshot> {
  const capture = captureSnapshot(state, now);
  const name = snapshotName(capture.seq);
  const tmp = path.join(dir, name + '.tmp');
  let file: StorageFile;
  try {
    file = await fs.openWrite(tmp);
  } catch (err) {
    capture.close();
    throw err;
  }
  let written: SnapshotBytes | undefined;
  try {
    written = await capture.write((buf) => file.write(buf));
    await file.sync();
  } finally {
    // A failed snapshot (a full disk) leaves no partial file behind; the log still covers everything.
    if (!written) await fs.unlink(tmp).catch(() => undefined);
    await file.close();
  }
  await fs.rename(tmp, path.join(dir, name));
  await fs.syncDir(dir);
  return { name, seq: capture.seq, ...written };
}

/**
 * The collection's records as they were when the snapshot began, each once, in insertion order, in frames of
 * about FRAME_BYTES (the first sized by its first row, and at most FIRST_FRAME_ROWS; each later one by the rows of
 * the frame before).
 */
async function writeRecords(
  name: string,
  scan: CollectionScan,
  put: (frame: SnapFrame) => Promise<number>,
): Promise<void> {
  let rows: Row[] = [];
  let limit = 0;
  const rowsFor = (bytesPerRow: number) => Math.max(1, Math.min(CHUNK, Math.floor(FRAME_BYTES / bytesPerRow)));
  const flush = async (): Promise<boolean> => {
    const chunk = rows;
    rows = [];
    const bytes = await put({ k: 'recs', c: name, rows: chunk });
    limit = rowsFor(bytes / chunk.length);
    await yieldToLoop();
    return true;
  };
  await scan.eachEntry((id, entry) => {
    const next = row(id, entry);
    if (limit === 0) limit = Math.min(FIRST_FRAME_ROWS, rowsFor(encodePayload(next).length));
    rows.push(next);
    return rows.length >= limit ? flush() : true;
  });
  if (rows.length > 0) await flush();
}
