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
import { encodePayload } from '../codec.js';
import { PayloadWriter } from '../log/payload-writer.js';
import type { StorageFile, StorageFs } from '../fs.js';
import type { DbState, CollectionMeta, KvEntry, RecordEntry } from '../../write/state.js';
import { CollectionScan } from '../../query/collection-scan.js';
import type { Fields } from '../../values/index.js';
import { yieldToLoop } from '../../time/slices.js';

export const SNAP_MAGIC = 'EDDYSNAP';
export const SNAP_VERSION = 1;
const CHUNK = 2000;
/**
 * A records frame ends once it passes this size (or holds CHUNK rows): a
 * frame is encoded in one piece while the event loop waits, and 2,000
 * records of 384-dimension vectors are 7 MB, about 100 ms.
 */
const FRAME_BYTES = 512 * 1024;

/**
 * A snapshot's file is synced each time this much more of it is written, so
 * that its last fsync is short: one fsync of a whole 200 MB snapshot held
 * the log's fsyncs behind it for 170-180 ms (every write then waited that
 * long); synced every 16 MiB the longest write took 30 ms.
 */
export const SNAPSHOT_SYNC_BYTES = 16 * 1024 * 1024;

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
    /** Writes an encoded frame (its header and payload). */
    const putBytes = async (buf: Buffer): Promise<void> => {
      frames += 1;
      bytes += buf.length;
      frameCrcs.push(buf.readUInt32LE(4));
      await sink(buf);
    };
    const put = (frame: SnapFrame): Promise<void> => putBytes(encodeFrame(encodePayload(frame)));
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
        const rows = new RowFrames('recs', meta.name, putBytes);
        await scan.eachEntry((id, entry) => rows.add(id, entry));
        await rows.end();
      }
      for (const [collection, entries] of trash) {
        const rows = new RowFrames('trash', collection, putBytes);
        for (const [id, trashed] of entries) {
          const added = rows.add(id, trashed.entry, trashed.deletedAt);
          if (added !== true) await added;
        }
        await rows.end();
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
 * Writes a snapshot of `state` as of now to `dir`, synced every `syncBytes`
 * as it goes (SNAPSHOT_SYNC_BYTES). Durable on return (fsync, rename,
 * directory fsync). REQUIRES: called between write groups (the
 * collections are marked synchronously, before the first await).
 */
export async function writeSnapshot(
  fs: StorageFs,
  dir: string,
  state: DbState,
  now: number,
  syncBytes = SNAPSHOT_SYNC_BYTES,
): Promise<WrittenSnapshot> {
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
    let unsynced = 0;
    written = await capture.write(async (buf) => {
      await file.write(buf);
      unsynced += buf.length;
      if (unsynced < syncBytes) return;
      unsynced = 0;
      await file.sync();
    });
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
 * A collection's rows (records or trash) as `recs` or `trash` frames,
 * written straight into each frame's buffer (PayloadWriter: no row arrays,
 * no second copy), each frame ending once it holds CHUNK rows or passes
 * FRAME_BYTES, with an event-loop turn after it.
 */
class RowFrames {
  private readonly writer = new PayloadWriter(0);

  constructor(
    private readonly kind: 'recs' | 'trash',
    private readonly collection: string,
    private readonly putBytes: (frame: Buffer) => Promise<void>,
  ) {}

  /** Adds a row; the promise, when there is one, settles once a full frame is written. */
  add(id: string, entry: RecordEntry, deletedAt?: number): true | Promise<boolean> {
    if (!this.writer.inRows) this.writer.beginRows(this.kind, this.collection, FRAME_BYTES + FRAME_BYTES / 8);
    this.writer.row(id, entry, deletedAt);
    return this.writer.rows >= CHUNK || this.writer.length >= FRAME_BYTES ? this.flush() : true;
  }

  /** Writes the last frame, if it holds any row. */
  async end(): Promise<void> {
    if (this.writer.inRows) await this.flush();
  }

  private async flush(): Promise<boolean> {
    this.writer.endRows();
    // bytes() hands the buffer over: the sink may keep it (a backup queues it), and the next frame gets its own.
    await this.putBytes(this.writer.bytes());
    await yieldToLoop();
    return true;
  }
}
