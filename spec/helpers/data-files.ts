/**
 * Damaging real data files on purpose: list the frames of a segment or
 * snapshot (offset, size, snapshot frame kind), flip one byte, cut bytes off
 * the end. Used by the corruption and salvage specs.
 */
import { readdirSync, readFileSync, truncateSync, statSync, writeFileSync, cpSync } from 'node:fs';
import path from 'node:path';
import { decodePayload } from '../../lib/engine/storage/codec.js';

export interface FrameInfo {
  offset: number;
  size: number;
  k?: string;
  seq?: number;
  /** Rows of a snapshot's records frame. */
  rows?: number;
}

const HEADER = 12;

/** Every frame of a segment or snapshot file, with its snapshot kind `k` or batch `seq`. */
export function frames(file: string): FrameInfo[] {
  const buf = readFileSync(file);
  const out: FrameInfo[] = [];
  for (let at = HEADER; at + 8 <= buf.length;) {
    const length = buf.readUInt32LE(at);
    const payload = decodePayload<{ k?: string; seq?: number; rows?: unknown[] }>(
      buf.subarray(at + 8, at + 8 + length),
    );
    out.push({ offset: at, size: 8 + length, k: payload.k, seq: payload.seq, rows: payload.rows?.length });
    at += 8 + length;
  }
  return out;
}

/** XORs the byte at `at` with 0xff. */
export function flipByte(file: string, at: number): void {
  const buf = readFileSync(file);
  buf[at]! ^= 0xff;
  writeFileSync(file, buf);
}

export function cutTail(file: string, bytes: number): void {
  truncateSync(file, statSync(file).size - bytes);
}

export const segmentsOf = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /^log-\d{16}\.seg$/.test(f))
    .sort();
export const snapshotsOf = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /^snapshot-\d{16}\.snap$/.test(f))
    .sort();
export const damagedDirsOf = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith('damaged-'))
    .sort();

/** A copy of a prepared data directory (without its lock), so each case damages its own. */
export function copyDir(from: string, to: string): void {
  cpSync(from, to, { recursive: true, filter: (src) => path.basename(src) !== 'LOCK' });
}
