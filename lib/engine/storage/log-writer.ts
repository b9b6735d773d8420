/**
 * Appends batches to the current log segment under a durability mode.
 *
 * - `always`: resolves after the fsync that covers the batches. The write
 *   queue hands over every batch queued while the previous fsync ran, so
 *   concurrent writers share one write and one fsync (group commit).
 * - `batch`: resolves after the write; an fsync follows within `batchMs`.
 * - `none`: resolves after the write; the OS flushes when it likes.
 *
 * Any write or fsync failure is sticky: the writer refuses further appends
 * and the engine turns read-only, so nothing is acknowledged that may be lost.
 */
import path from 'node:path';
import { encodeFrame, encodeHeader } from './frame.js';
import { encodePayload } from './codec.js';
import type { StorageFile, StorageFs } from './fs.js';
import type { LoggedBatch } from '../effects.js';

export type DurabilityMode = 'always' | 'batch' | 'none';
export const DURABILITY_MODES: readonly DurabilityMode[] = ['always', 'batch', 'none'];

export const LOG_MAGIC = 'EDDYLOG';
export const LOG_VERSION = 1;

export function segmentName(startSeq: number): string {
  return `log-${String(startSeq).padStart(16, '0')}.seg`;
}

export class LogWriter {
  private file: StorageFile | undefined;
  private segment = '';
  private failure: Error | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private dirty = false;
  /** Bytes appended to the current segment (snapshot threshold). */
  bytesInSegment = 0;

  constructor(
    private readonly fs: StorageFs,
    private readonly dir: string,
    public mode: DurabilityMode,
    private readonly batchMs: number,
  ) {}

  get failed(): Error | undefined { return this.failure; }
  get currentSegment(): string { return this.segment; }

  /** Starts a new segment whose first batch will carry `startSeq`. */
  async openSegment(startSeq: number): Promise<void> {
    await this.closeFile();
    const name = segmentName(startSeq);
    const file = await this.fs.openWrite(path.join(this.dir, name));
    try {
      await file.write(encodeHeader(LOG_MAGIC, LOG_VERSION));
      await file.sync();
      await this.fs.syncDir(this.dir);
    } catch (err) {
      this.failure = err as Error;
      throw err;
    }
    this.file = file;
    this.segment = name;
    this.bytesInSegment = 0;
  }

  /** Reopens an existing segment for appending after recovery. */
  async reopen(name: string, size: number): Promise<void> {
    await this.closeFile();
    this.file = await this.fs.openAppend(path.join(this.dir, name));
    this.segment = name;
    this.bytesInSegment = size;
  }

  /** REQUIRES: an open segment. Resolves once durable per the mode; throws if the disk failed. */
  async append(batches: readonly LoggedBatch[]): Promise<void> {
    if (this.failure) throw this.failure;
    const frames = batches.map((b) => encodeFrame(encodePayload({ seq: b.seq, effects: b.effects })));
    const data = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    try {
      await this.file!.write(data);
      this.bytesInSegment += data.length;
      if (this.mode === 'always') await this.file!.sync();
      else if (this.mode === 'batch') this.scheduleSync();
    } catch (err) {
      this.failure = err as Error;
      throw err;
    }
  }

  /** Flushes anything written but not yet fsynced (batch and none modes). */
  async flush(): Promise<void> {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if (!this.file || this.failure) return;
    try {
      await this.file.sync();
      this.dirty = false;
    } catch (err) {
      this.failure = err as Error;
      throw err;
    }
  }

  async close(): Promise<void> {
    if (!this.failure) await this.flush().catch(() => undefined);
    await this.closeFile();
  }

  private scheduleSync(): void {
    this.dirty = true;
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      if (this.dirty) this.flush().catch(() => undefined);
    }, this.batchMs);
    this.syncTimer.unref();
  }

  private async closeFile(): Promise<void> {
    const f = this.file;
    this.file = undefined;
    if (f) await f.close().catch(() => undefined);
  }
}
