/**
 * Reading snapshots back: one frame walker serves three readers.
 *
 * - `readSnapshot` strict (recovery): any bad frame, a missing `end` frame or
 *   a wrong frame count throws Corruption with the byte offset.
 * - `readSnapshot` salvage: skips each damaged region by resyncing to the
 *   next valid frame, and says exactly what could not be read (byte ranges,
 *   frames, records per collection, missing sections).
 * - `verifySnapshot` (after writing): re-reads the file and checks that it
 *   holds exactly the frames written (checksums compared in order), without
 *   decoding the records again.
 */
import path from 'node:path';
import { Corruption } from '../../../errors.js';
import { CollectionState, DbState, recordKey, type ApiKeyRecord } from '../../write/state.js';
import { decodePayload } from '../codec.js';
import {
  checkHeader,
  findNextFrame,
  FRAME_OVERHEAD,
  FrameStream,
  HEADER_SIZE,
  MAX_FRAME,
  readFrame,
  type ByteRange,
  type FrameResult,
} from '../frame.js';
import type { StorageFs } from '../fs.js';
import { SNAP_MAGIC, SNAP_VERSION, toEntry, type Row, type SnapFrame, type WrittenSnapshot } from './snapshot.js';
import { yieldToLoop } from '../../time/slices.js';

/** Decoded rows held before they are put into their maps (see readSnapshot). */
const PUT_AFTER_ROWS = 200_000;
/** The members of a record's row (Row without a trash row's deletedAt). */
const ROW_MEMBERS = 5;
/** The most records a collection's frame may reserve room for (a damaged count must not allocate gigabytes). */
const MAX_RESERVED = 50_000_000;
const FRAME_KINDS = new Set(['meta', 'config', 'keys', 'ripple', 'kv', 'kvLinks', 'coll', 'recs', 'trash', 'end']);
/** Frames every snapshot has exactly once; salvage names the ones it could not read. */
const SECTIONS = ['meta', 'config', 'keys', 'ripple', 'kvLinks', 'end'] as const;

/** What a damaged snapshot lost, as far as its readable frames tell. */
export interface SnapshotDamage {
  readonly skipped: readonly ByteRange[];
  /** Frames not read; exact when the `end` frame was read, otherwise a lower bound. */
  readonly droppedFrames: number;
  readonly droppedFramesExact: boolean;
  /**
   * Per collection with unread records: how many were lost (null when its `coll` frame, which holds the count, was
   * lost).
   */
  readonly lostRecords: ReadonlyArray<{ collection: string; read: number; lost: number | null }>;
  /** Single frames that were not read ('config', 'keys', ...). */
  readonly missingSections: readonly string[];
}

interface Walked {
  frames: number;
  endFrames?: number;
  skipped: ByteRange[];
}

/**
 * Where walk() reads a snapshot's frames: the whole file in memory, or a
 * FrameStream over it (a few MB at a time). Only a whole file can `resync`
 * after damage, so only it is walked in salvage.
 */
interface FrameSource {
  head(length: number): Buffer | Promise<Buffer>;
  /** The frame at `offset`; `end` at or past the end of the file. */
  frameAt(offset: number): FrameResult | Promise<FrameResult>;
  /** Where the next plausible frame after the damaged one at `at` starts (the file's end when none does). */
  resync?(at: number): number;
}

function wholeFile(buf: Buffer): FrameSource {
  return {
    head: (length) => buf.subarray(0, length),
    frameAt: (offset) => (offset >= buf.length ? { kind: 'end' } : readFrame(buf, offset)),
    resync: (at) => findNextFrame(buf, at + 1) ?? buf.length,
  };
}

/**
 * Walks the frames of a snapshot, calling `visit` with each decoded frame.
 * Strict: throws Corruption at the first problem (including a throw from
 * `visit`). Salvage (a whole file): records the damaged range, resyncs, and
 * goes on.
 */
async function walk(
  source: FrameSource,
  file: string,
  salvage: boolean,
  visit: (frame: SnapFrame, offset: number) => void,
): Promise<Walked> {
  const out: Walked = { frames: 0, skipped: [] };
  let offset = HEADER_SIZE;
  const damaged = (at: number, reason: string): number => {
    if (!salvage || !source.resync) throw new Corruption(file, at, reason);
    const next = source.resync(at);
    out.skipped.push({ from: at, to: next, reason });
    return next;
  };
  const head = await source.head(HEADER_SIZE);
  if (checkHeader(head, SNAP_MAGIC) !== SNAP_VERSION) {
    if (!salvage) throw new Corruption(file, 0, 'bad snapshot header (magic or format version)');
    out.skipped.push({ from: 0, to: head.length, reason: 'bad snapshot header (magic or format version)' });
  }
  while (out.endFrames === undefined) {
    const read = await source.frameAt(offset);
    if (read.kind === 'end') break;
    if (read.kind !== 'frame') {
      offset = damaged(offset, read.reason);
      continue;
    }
    let frame: SnapFrame;
    try {
      frame = decodePayload<SnapFrame>(read.payload);
      if (!FRAME_KINDS.has(frame?.k)) throw new Error(`unknown frame kind ${String(frame?.k)}`);
      visit(frame, offset);
    } catch (err) {
      offset = damaged(offset, `undecodable frame: ${(err as Error).message}`);
      continue;
    }
    if (frame.k === 'end') out.endFrames = frame.frames + 1;
    out.frames += 1;
    offset = read.next;
    // One event-loop turn per frame (at most 2,000 rows): verification runs while writes go on.
    await yieldToLoop();
  }
  if (out.endFrames === undefined && !salvage)
    throw new Corruption(file, offset, 'snapshot has no end frame (incomplete)');
  if (out.endFrames !== undefined && out.endFrames !== out.frames && !salvage) {
    throw new Corruption(file, offset, `end frame counts ${out.endFrames} frames, read ${out.frames}`);
  }
  return out;
}

/**
 * Loads a snapshot into a new state. `nameSeq` is the seq its file name
 * carries. Strict mode throws Corruption (file name, byte offset, reason) on
 * any damage, reading the file a few MB at a time; salvage mode reads it
 * whole and returns what was readable plus a damage report (undefined when
 * the file is intact).
 */
export async function readSnapshot(
  fs: StorageFs,
  file: string,
  nameSeq: number,
  opts: { salvage?: boolean } = {},
): Promise<{ state: DbState; damage?: SnapshotDamage }> {
  if (opts.salvage) return readSnapshotBytes(await fs.readFile(file), path.basename(file), nameSeq, opts);
  const stream = await FrameStream.open(fs, file);
  const name = path.basename(file);
  return loadSnapshot(name, nameSeq, false, (visit) => walk(stream, name, false, visit));
}

/** Throws (a damaged frame, in walk) unless `row` has the shape of a Row: a list with the fields second. */
function checkRow(row: unknown): asserts row is Row {
  if (!Array.isArray(row) || typeof row[1] !== 'object' || row[1] === null)
    throw new Error('a record row that is not [id, fields, ...]');
}

/** readSnapshot on the bytes of a snapshot file (`name` names it in errors): a backup holds one (storage/backup/). */
export async function readSnapshotBytes(
  buf: Buffer,
  name: string,
  nameSeq: number,
  opts: { salvage?: boolean } = {},
): Promise<{ state: DbState; damage?: SnapshotDamage }> {
  const salvage = opts.salvage ?? false;
  return loadSnapshot(name, nameSeq, salvage, (visit) => walk(wholeFile(buf), name, salvage, visit));
}

/** A state from the frames `walkFrames` visits (see readSnapshot). */
async function loadSnapshot(
  name: string,
  nameSeq: number,
  salvage: boolean,
  walkFrames: (visit: (frame: SnapFrame) => void) => Promise<Walked>,
): Promise<{ state: DbState; damage?: SnapshotDamage }> {
  const state = new DbState();
  state.seq = nameSeq;
  const seen = new Set<string>();
  const counts = new Map<string, number | null>();
  const read = new Map<string, number>();
  /**
   * Records are put into their collection's table some frames after they are
   * decoded (PUT_AFTER_ROWS), in the same order. Put at once, each new record
   * was young and the growing table old, so each put also cost the collector
   * a remembered slot: recovery of a 1M-record snapshot took about 0.35 s
   * more. Put all at the end, the map's outgrown tables were left for the
   * next full collection, 60 MB more resident after recovery.
   * What is held of a frame is its rows' members copied into one flat list
   * (ROW_MEMBERS each), not the rows: held, every row's own array (about 90
   * bytes) lived long enough to be promoted beside its record, only to die
   * in old space. Copied out, they die young with their frame: a snapshot
   * of 1M records recovered in 3.25-3.38 s against 3.40-3.68 s, with about
   * 40 MB less resident right after (docs/benchmarks.md, Notes).
   */
  const rows = new Map<CollectionState, unknown[][]>();
  let held = 0;
  const putRows = () => {
    for (const [coll, list] of rows) {
      const records = coll.records;
      for (const members of list)
        for (let i = 0; i < members.length; i += ROW_MEMBERS) {
          const fields = members[i + 1] as Row[1];
          records.put(
            recordKey(members[i] as Row[0], fields),
            fields,
            members[i + 2] as Row[2],
            ++coll.lastOrd,
            (members[i + 3] as Row[3]) ?? undefined,
            (members[i + 4] as Row[4]) ?? undefined,
          );
        }
    }
    rows.clear();
    held = 0;
  };
  const visit = (frame: SnapFrame): void => {
    seen.add(frame.k);
    switch (frame.k) {
      case 'meta':
        if (frame.seq !== nameSeq) throw new Error(`meta seq ${frame.seq} does not match the file name`);
        break;
      case 'config':
        state.config = frame.v;
        break;
      case 'keys':
        for (const record of frame.v as ApiKeyRecord[]) state.keys.set(record.id, record);
        break;
      case 'ripple':
        for (const [node, seq] of frame.seen) state.rippleSeen.set(node, seq);
        break;
      case 'kv':
        for (const [key, entry] of frame.rows) state.kv.set(key, entry);
        break;
      case 'kvLinks':
        for (const [key, links] of frame.rows) state.kvLinks.set(key, new Set(links));
        break;
      case 'coll': {
        const coll = new CollectionState(frame.meta);
        coll.membershipVersion = frame.membership;
        // Room for every record at once: the table does not grow (copy, rehash) record by record.
        if (typeof frame.count === 'number' && frame.count <= MAX_RESERVED) coll.records.reserve(frame.count);
        state.collections.set(frame.meta.name, coll);
        counts.set(frame.meta.name, frame.count ?? null);
        break;
      }
      case 'recs': {
        let coll = state.collections.get(frame.c);
        if (!coll && !salvage) throw new Error(`records for unknown collection ${frame.c}`);
        // Salvage: the collection's own frame was lost; keep its records under a bare definition.
        if (!coll)
          state.collections.set(
            frame.c,
            (coll = new CollectionState({ name: frame.c, createdAt: new Date(0).toISOString() })),
          );
        let pending = rows.get(coll);
        if (!pending) rows.set(coll, (pending = []));
        const members: unknown[] = new Array(frame.rows.length * ROW_MEMBERS);
        let at = 0;
        for (const row of frame.rows) {
          // Checked here, where a throw reports the frame as damaged: the members are put frames later.
          checkRow(row);
          if (row[3] !== null) coll.expiringRecords++;
          for (let m = 0; m < ROW_MEMBERS; m++) members[at++] = row[m];
        }
        pending.push(members);
        read.set(frame.c, (read.get(frame.c) ?? 0) + frame.rows.length);
        held += frame.rows.length;
        if (held >= PUT_AFTER_ROWS) putRows();
        break;
      }
      case 'trash': {
        let trash = state.trash.get(frame.c);
        if (!trash) state.trash.set(frame.c, (trash = new Map()));
        for (const row of frame.rows) {
          checkRow(row);
          trash.set(row[0], { entry: toEntry(row), deletedAt: row[5] ?? 0 });
        }
        break;
      }
      case 'end':
        break;
    }
  };
  const walked = await walkFrames(visit);
  putRows();
  if (walked.skipped.length === 0 && walked.endFrames === walked.frames) return { state };
  return { state, damage: describeDamage(walked, seen, counts, read) };
}

function describeDamage(
  walked: Walked,
  seen: Set<string>,
  counts: Map<string, number | null>,
  read: Map<string, number>,
): SnapshotDamage {
  const lostRecords: Array<{ collection: string; read: number; lost: number | null }> = [];
  for (const [collection, count] of counts) {
    const readCount = read.get(collection) ?? 0;
    if (count === null || readCount < count)
      lostRecords.push({ collection, read: readCount, lost: count === null ? null : count - readCount });
  }
  for (const [collection, count] of read)
    if (!counts.has(collection)) lostRecords.push({ collection, read: count, lost: null });
  const exact = walked.endFrames !== undefined;
  return {
    skipped: walked.skipped,
    droppedFrames: exact ? walked.endFrames! - walked.frames : Math.max(1, walked.skipped.length),
    droppedFramesExact: exact,
    lostRecords,
    missingSections: SECTIONS.filter((s) => !seen.has(s)),
  };
}

/** Bytes read per step of verification: small, so no large buffer puts pressure on the collector. */
const VERIFY_CHUNK = 4 * 1024 * 1024;

/**
 * Re-reads a snapshot just written and checks that the file holds exactly
 * the frames written: the header, then every frame with its checksum intact
 * and equal to the one the writer computed, in order, and nothing after the
 * last. Byte-identical frames carry the same records, so nothing is decoded
 * but the meta frame. The file is read in 4 MiB pieces with an event-loop
 * turn after each: decoding every row again, or reading the whole file into
 * one buffer, would make the collector stall the writers around it.
 * Throws Corruption on any mismatch.
 */
export async function verifySnapshot(fs: StorageFs, dir: string, written: WrittenSnapshot): Promise<void> {
  const { name } = written;
  const file = path.join(dir, name);
  let chunk = Buffer.alloc(VERIFY_CHUNK);
  /** The bytes of [position, position + length) of the file (fewer at its end). */
  const read = async (position: number, length: number): Promise<Buffer> => {
    if (chunk.length < length) chunk = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const bytes = await fs.readAt(file, chunk.subarray(got, length), position + got);
      if (bytes === 0) break;
      got += bytes;
    }
    return chunk.subarray(0, got);
  };
  if (checkHeader(await read(0, HEADER_SIZE), SNAP_MAGIC) !== SNAP_VERSION)
    throw new Corruption(name, 0, 'bad snapshot header (magic or format version)');
  const frames = written.frameCrcs;
  /** Checks frame `position` at `at` of `buf` (which starts at file offset `base`); returns the offset after it. */
  const check = (buf: Buffer, at: number, base: number, position: number): number => {
    const frameRead = readFrame(buf, at);
    if (frameRead.kind === 'end')
      throw new Corruption(name, base + at, `${position} frames read where ${frames.length} were written`);
    if (frameRead.kind !== 'frame') throw new Corruption(name, base + at, frameRead.reason);
    if (buf.readUInt32LE(at + 4) !== frames[position]) {
      throw new Corruption(name, base + at, `frame ${position} differs from the frame written`);
    }
    if (position === 0) {
      const meta = decodePayload<SnapFrame>(frameRead.payload);
      if (meta.k !== 'meta' || meta.seq !== written.seq)
        throw new Corruption(name, base + at, `meta frame does not name seq ${written.seq}`);
    }
    return frameRead.next;
  };
  const fits = (buf: Buffer, at: number) =>
    buf.length - at >= FRAME_OVERHEAD && at + FRAME_OVERHEAD + buf.readUInt32LE(at) <= buf.length;
  let offset = HEADER_SIZE;
  let index = 0;
  while (index < frames.length) {
    let buf = await read(offset, VERIFY_CHUNK);
    let at = 0;
    while (index < frames.length && fits(buf, at)) at = check(buf, at, offset, index++);
    if (at === 0) {
      // The next frame does not fit in one piece (or the file ends inside it): read it whole.
      const length = buf.length >= FRAME_OVERHEAD ? buf.readUInt32LE(0) : 0;
      if (length > MAX_FRAME) throw new Corruption(name, offset, `frame length ${length} exceeds the maximum`);
      buf = await read(offset, FRAME_OVERHEAD + length);
      at = check(buf, 0, offset, index++);
    }
    offset += at;
    await yieldToLoop();
  }
  if ((await read(offset, 1)).length !== 0) throw new Corruption(name, offset, 'bytes after the last frame written');
}
