/**
 * Reading snapshots back: one frame walker serves three readers.
 *
 * - `readSnapshot` strict (recovery): any bad frame, a missing `end` frame or
 *   a wrong frame count throws Corruption with the byte offset.
 * - `readSnapshot` salvage: skips each damaged region by resyncing to the
 *   next valid frame, and says exactly what could not be read (byte ranges,
 *   frames, records per collection, missing sections).
 * - `verifySnapshot` (after writing): re-reads the file and checks every
 *   frame, the seq, the frame count and every collection's record count,
 *   without building a second copy of the state.
 */
import path from 'node:path';
import { Corruption } from '../../errors.js';
import { CollectionState, DbState, type ApiKeyRecord } from '../state.js';
import { decodePayload } from './codec.js';
import { checkHeader, findNextFrame, HEADER_SIZE, readFrame, type ByteRange } from './frame.js';
import type { StorageFs } from './fs.js';
import { SNAP_MAGIC, SNAP_VERSION, toEntry, type SnapFrame, type WrittenSnapshot } from './snapshot.js';

const FRAME_KINDS = new Set(['meta', 'config', 'keys', 'ripple', 'kv', 'kvLinks', 'coll', 'recs', 'trash', 'end']);
/** Frames every snapshot has exactly once; salvage names the ones it could not read. */
const SECTIONS = ['meta', 'config', 'keys', 'ripple', 'kvLinks', 'end'] as const;

/** What a damaged snapshot lost, as far as its readable frames tell. */
export interface SnapshotDamage {
  readonly skipped: readonly ByteRange[];
  /** Frames not read; exact when the `end` frame was read, otherwise a lower bound. */
  readonly droppedFrames: number;
  readonly droppedFramesExact: boolean;
  /** Per collection with unread records: how many were lost (null when its `coll` frame, which holds the count, was lost). */
  readonly lostRecords: ReadonlyArray<{ collection: string; read: number; lost: number | null }>;
  /** Single frames that were not read ('config', 'keys', ...). */
  readonly missingSections: readonly string[];
}

interface Walked { frames: number; endFrames?: number; skipped: ByteRange[] }

/**
 * Walks the frames of a snapshot, calling `visit` with each decoded frame.
 * Strict: throws Corruption at the first problem (including a throw from
 * `visit`). Salvage: records the damaged range, resyncs, and goes on.
 */
async function walk(buf: Buffer, file: string, salvage: boolean, visit: (f: SnapFrame, offset: number) => void): Promise<Walked> {
  const out: Walked = { frames: 0, skipped: [] };
  let offset = HEADER_SIZE;
  const damaged = (at: number, reason: string): number => {
    if (!salvage) throw new Corruption(file, at, reason);
    const next = findNextFrame(buf, at + 1) ?? buf.length;
    out.skipped.push({ from: at, to: next, reason });
    return next;
  };
  if (checkHeader(buf, SNAP_MAGIC) !== SNAP_VERSION) {
    if (!salvage) throw new Corruption(file, 0, 'bad snapshot header (magic or format version)');
    out.skipped.push({ from: 0, to: Math.min(HEADER_SIZE, buf.length), reason: 'bad snapshot header (magic or format version)' });
  }
  while (offset < buf.length && out.endFrames === undefined) {
    const r = readFrame(buf, offset);
    if (r.kind === 'end') break;
    if (r.kind !== 'frame') { offset = damaged(offset, r.reason); continue; }
    let f: SnapFrame;
    try {
      f = decodePayload<SnapFrame>(r.payload);
      if (!FRAME_KINDS.has(f?.k)) throw new Error(`unknown frame kind ${String(f?.k)}`);
      visit(f, offset);
    } catch (err) {
      offset = damaged(offset, `undecodable frame: ${(err as Error).message}`);
      continue;
    }
    if (f.k === 'end') out.endFrames = f.frames + 1;
    out.frames += 1;
    offset = r.next;
    // One event-loop turn per frame (at most 2,000 rows): verification runs while writes go on.
    await new Promise<void>((res) => setImmediate(res));
  }
  if (out.endFrames === undefined && !salvage) throw new Corruption(file, offset, 'snapshot has no end frame (incomplete)');
  if (out.endFrames !== undefined && out.endFrames !== out.frames && !salvage) {
    throw new Corruption(file, offset, `end frame counts ${out.endFrames} frames, read ${out.frames}`);
  }
  return out;
}

/**
 * Loads a snapshot into a new state. `nameSeq` is the seq its file name
 * carries. Strict mode throws Corruption (file name, byte offset, reason) on
 * any damage; salvage mode returns what was readable plus a damage report
 * (undefined when the file is intact).
 */
export async function readSnapshot(fs: StorageFs, file: string, nameSeq: number, opts: { salvage?: boolean } = {}): Promise<{ state: DbState; damage?: SnapshotDamage }> {
  const name = path.basename(file);
  const buf = await fs.readFile(file);
  const state = new DbState();
  state.seq = nameSeq;
  const seen = new Set<string>();
  const counts = new Map<string, number | null>();
  const read = new Map<string, number>();
  const visit = (f: SnapFrame): void => {
    seen.add(f.k);
    switch (f.k) {
      case 'meta':
        if (f.seq !== nameSeq) throw new Error(`meta seq ${f.seq} does not match the file name`);
        break;
      case 'config': state.config = f.v; break;
      case 'keys': for (const k of f.v as ApiKeyRecord[]) state.keys.set(k.id, k); break;
      case 'ripple': for (const [node, seq] of f.seen) state.rippleSeen.set(node, seq); break;
      case 'kv': for (const [key, entry] of f.rows) state.kv.set(key, entry); break;
      case 'kvLinks': for (const [key, links] of f.rows) state.kvLinks.set(key, new Set(links)); break;
      case 'coll': {
        const coll = new CollectionState(f.meta);
        coll.membershipVersion = f.membership;
        state.collections.set(f.meta.name, coll);
        counts.set(f.meta.name, f.count ?? null);
        break;
      }
      case 'recs': {
        let coll = state.collections.get(f.c);
        if (!coll && !opts.salvage) throw new Error(`records for unknown collection ${f.c}`);
        // Salvage: the collection's own frame was lost; keep its records under a bare definition.
        if (!coll) state.collections.set(f.c, (coll = new CollectionState({ name: f.c, createdAt: new Date(0).toISOString() })));
        for (const r of f.rows) coll.records.set(r[0], toEntry(r, ++coll.lastOrd));
        read.set(f.c, (read.get(f.c) ?? 0) + f.rows.length);
        break;
      }
      case 'trash': {
        let t = state.trash.get(f.c);
        if (!t) state.trash.set(f.c, (t = new Map()));
        for (const r of f.rows) t.set(r[0], { entry: toEntry(r), deletedAt: r[5] ?? 0 });
        break;
      }
      case 'end': break;
    }
  };
  const walked = await walk(buf, name, opts.salvage ?? false, visit);
  if (walked.skipped.length === 0 && walked.endFrames === walked.frames) return { state };
  return { state, damage: describeDamage(walked, seen, counts, read) };
}

function describeDamage(walked: Walked, seen: Set<string>, counts: Map<string, number | null>, read: Map<string, number>): SnapshotDamage {
  const lostRecords: Array<{ collection: string; read: number; lost: number | null }> = [];
  for (const [collection, count] of counts) {
    const n = read.get(collection) ?? 0;
    if (count === null || n < count) lostRecords.push({ collection, read: n, lost: count === null ? null : count - n });
  }
  for (const [collection, n] of read) if (!counts.has(collection)) lostRecords.push({ collection, read: n, lost: null });
  const exact = walked.endFrames !== undefined;
  return {
    skipped: walked.skipped,
    droppedFrames: exact ? walked.endFrames! - walked.frames : Math.max(1, walked.skipped.length),
    droppedFramesExact: exact,
    lostRecords,
    missingSections: SECTIONS.filter((s) => !seen.has(s)),
  };
}

/**
 * Re-reads a snapshot just written and checks it completely: every frame's
 * checksum and payload, the meta seq, the end frame's count, and each
 * collection's record count against what the writer saw. Throws Corruption
 * on any mismatch. Yields to the event loop between frames.
 */
export async function verifySnapshot(fs: StorageFs, dir: string, written: WrittenSnapshot): Promise<void> {
  const { name } = written;
  const buf = await fs.readFile(path.join(dir, name));
  const rows = new Map<string, number>();
  let seq: number | undefined;
  const walked = await walk(buf, name, false, (f) => {
    if (f.k === 'meta') seq = f.seq;
    else if (f.k === 'recs') rows.set(f.c, (rows.get(f.c) ?? 0) + f.rows.length);
  });
  const at = buf.length;
  if (seq !== written.seq) throw new Corruption(name, HEADER_SIZE, `meta seq ${seq} where ${written.seq} was written`);
  if (walked.frames !== written.frames) throw new Corruption(name, at, `${walked.frames} frames read where ${written.frames} were written`);
  for (const [c, count] of written.counts) {
    if ((rows.get(c) ?? 0) !== count) throw new Corruption(name, at, `collection ${c}: ${rows.get(c) ?? 0} records read where ${count} were written`);
  }
}
