/**
 * `eddydb verify`: walks every segment and snapshot of a data directory and
 * checks each frame's checksum and each payload's decodability, without
 * loading anything into memory beyond one file at a time.
 */
import path from 'node:path';
import { checkHeader, HEADER_SIZE, readFrame } from './frame.js';
import { decodePayload } from './codec.js';
import type { StorageFs } from './fs.js';
import { LOG_MAGIC, LOG_VERSION } from './log-writer.js';
import { SNAP_MAGIC, SNAP_VERSION } from './snapshot.js';

export interface FileReport {
  file: string;
  kind: 'segment' | 'snapshot';
  frames: number;
  bytes: number;
  ok: boolean;
  /** What is wrong and where, when not ok. */
  problem?: string;
}

export async function verifyDataDir(fs: StorageFs, dir: string): Promise<FileReport[]> {
  const files = (await fs.readdir(dir)).sort().filter((f) => /^(log-\d{16}\.seg|snapshot-\d{16}\.snap)$/.test(f));
  const reports: FileReport[] = [];
  for (const file of files) {
    const kind = file.endsWith('.seg') ? 'segment' : 'snapshot';
    const buf = await fs.readFile(path.join(dir, file));
    reports.push(verifyFile(file, kind, buf));
  }
  return reports;
}

function verifyFile(file: string, kind: FileReport['kind'], buf: Buffer): FileReport {
  const report: FileReport = { file, kind, frames: 0, bytes: buf.length, ok: true };
  const [magic, version] = kind === 'segment' ? [LOG_MAGIC, LOG_VERSION] : [SNAP_MAGIC, SNAP_VERSION];
  if (checkHeader(buf, magic) !== version) return { ...report, ok: false, problem: 'bad header (magic or format version) at byte 0' };
  let offset = HEADER_SIZE;
  let last: unknown;
  for (;;) {
    const r = readFrame(buf, offset);
    if (r.kind === 'end') break;
    if (r.kind !== 'frame') return { ...report, ok: false, problem: `${r.reason} at byte ${offset}` };
    try {
      last = decodePayload(r.payload);
    } catch (err) {
      return { ...report, ok: false, problem: `undecodable payload at byte ${offset}: ${(err as Error).message}` };
    }
    report.frames += 1;
    offset = r.next;
  }
  if (kind === 'snapshot' && (last as { k?: string } | undefined)?.k !== 'end') {
    return { ...report, ok: false, problem: 'snapshot has no end frame (incomplete)' };
  }
  return report;
}
