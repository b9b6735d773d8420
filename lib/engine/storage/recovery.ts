/**
 * Recovery: newest valid snapshot, then replay of every later batch.
 *
 * - Leftover `.tmp` files (an interrupted snapshot) are removed.
 * - An invalid newest snapshot falls back to the previous one (longer replay).
 * - A torn final frame of the last segment (a crash mid-append) is truncated
 *   with a warning. A checksum or length failure anywhere else, or a gap in
 *   the seq sequence, stops startup with Corruption naming file and offset.
 */
import path from 'node:path';
import { Corruption } from '../../errors.js';
import { applyBatch } from '../apply-batch.js';
import { DbState } from '../state.js';
import type { LoggedBatch } from '../effects.js';
import { decodePayload } from './codec.js';
import { crc32 } from 'node:zlib';
import { checkHeader, FRAME_OVERHEAD, HEADER_SIZE, readFrame } from './frame.js';
import type { StorageFs } from './fs.js';
import { LOG_MAGIC, LOG_VERSION } from './log-writer.js';
import { loadSnapshot } from './snapshot.js';

export interface RecoveryResult {
  state: DbState;
  /** The last segment and its valid size, to reopen for appending. */
  lastSegment?: { name: string; size: number };
  snapshot?: string;
  replayed: number;
  warnings: string[];
}

export interface RecoveryOptions {
  log?: (msg: string) => void;
}

const isSegment = (f: string) => /^log-\d{16}\.seg$/.test(f);
const isSnapshot = (f: string) => /^snapshot-\d{16}\.snap$/.test(f);

export async function recover(fs: StorageFs, dir: string, opts: RecoveryOptions = {}): Promise<RecoveryResult> {
  const log = opts.log ?? (() => undefined);
  const warnings: string[] = [];
  const warn = (m: string) => { warnings.push(m); log(`warning: ${m}`); };
  const files = (await fs.readdir(dir)).sort();
  for (const f of files.filter((f) => f.endsWith('.tmp'))) {
    await fs.unlink(path.join(dir, f));
    warn(`removed leftover ${f}`);
  }
  const segments = files.filter(isSegment);
  const snapshots = files.filter(isSnapshot).reverse();

  let state: DbState | undefined;
  let snapshot: string | undefined;
  for (const snap of snapshots) {
    try {
      state = await loadSnapshot(fs, path.join(dir, snap));
      snapshot = snap;
      log(`loaded ${snap} (seq ${state.seq})`);
      break;
    } catch (err) {
      warn(`snapshot ${snap} is unusable (${(err as Error).message}); falling back to an older one`);
    }
  }
  state ??= new DbState();

  let replayed = 0;
  let lastSegment: RecoveryResult['lastSegment'];
  const started = Date.now();
  let lastProgress = started;
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i]!;
    const isLast = i === segments.length - 1;
    const file = path.join(dir, name);
    const buf = await fs.readFile(file);
    const valid = await replaySegment(buf, name, isLast, state, fs, file, warn, () => {
      replayed += 1;
      if (replayed % 100_000 === 0 && Date.now() - lastProgress > 1000) {
        lastProgress = Date.now();
        log(`recovery: replayed ${replayed} batches (seq ${state!.seq}), ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    });
    if (isLast) lastSegment = { name, size: valid };
  }
  return { state, lastSegment, snapshot, replayed, warnings };
}

async function replaySegment(
  buf: Buffer, name: string, isLast: boolean, state: DbState, fs: StorageFs, file: string,
  warn: (m: string) => void, onBatch: () => void,
): Promise<number> {
  if (buf.length < HEADER_SIZE && isLast) {
    warn(`${name}: torn header; recreating segment`);
    return truncate(fs, file, 0);
  }
  if (checkHeader(buf, LOG_MAGIC) !== LOG_VERSION) throw new Corruption(name, 0, 'bad segment header or version');
  let offset = HEADER_SIZE;
  for (;;) {
    const r = readFrame(buf, offset);
    if (r.kind === 'end') return offset;
    const batch = r.kind === 'frame' ? decodeBatch(r.payload) : undefined;
    if (!batch) {
      const reason = r.kind === 'frame' ? 'record is not a decodable batch' : r.reason;
      // A crash mid-append leaves garbage only at the very end: if any valid frame follows, this is data loss.
      if (!isLast || hasValidFrameAfter(buf, offset)) throw new Corruption(name, offset, reason);
      warn(`${name}: torn final record at byte ${offset} (${reason}); truncated`);
      return truncate(fs, file, offset);
    }
    if (batch.seq > state.seq) {
      if (batch.seq !== state.seq + 1) throw new Corruption(name, offset, `seq gap: expected ${state.seq + 1}, found ${batch.seq}`);
      applyBatch(state, batch);
      onBatch();
    }
    offset = (r as { next: number }).next;
  }
}

function decodeBatch(payload: Buffer): LoggedBatch | undefined {
  try {
    const batch = decodePayload<LoggedBatch>(payload);
    return typeof batch?.seq === 'number' && Array.isArray(batch.effects) ? batch : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when a complete, checksummed batch frame starts anywhere after
 * `offset`. Batches encode as a two-entry map (fixmap 0x82 or map16), which keeps the scan
 * cheap; a false positive needs a 32-bit CRC collision.
 */
function looksLikeBatch(buf: Buffer, at: number): boolean {
  return buf[at] === 0x82 || (buf[at] === 0xde && buf[at + 1] === 0 && buf[at + 2] === 2);
}

function hasValidFrameAfter(buf: Buffer, offset: number): boolean {
  for (let pos = offset + 1; pos + FRAME_OVERHEAD < buf.length; pos++) {
    const length = buf.readUInt32LE(pos);
    if (length < 3 || pos + FRAME_OVERHEAD + length > buf.length || !looksLikeBatch(buf, pos + FRAME_OVERHEAD)) continue;
    if (crc32(buf.subarray(pos + FRAME_OVERHEAD, pos + FRAME_OVERHEAD + length)) === buf.readUInt32LE(pos + 4)) return true;
  }
  return false;
}

async function truncate(fs: StorageFs, file: string, length: number): Promise<number> {
  const f = await fs.openAppend(file);
  try {
    await f.truncate(length);
    await f.sync();
  } finally {
    await f.close();
  }
  return length;
}
