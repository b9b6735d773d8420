/**
 * Appends batches to the current log segment under a durability mode.
 *
 * - `always`: resolves after the fsync that covers the batches. The write
 *   queue hands over every batch queued while the previous fsync ran, so
 *   concurrent writers share one write and one fsync (group commit).
 * - `batch`: resolves after the write; an fsync follows within `batchMs`.
 * - `replicated`: as `always` here (a cluster's log adds its own wait).
 * - `none`: resolves after the write; the OS flushes when it likes (we fsync
 *   only once `NONE_RETAIN_BYTES` are waiting, to bound what heal keeps).
 *
 * Appends may overlap (the write queue hands over the groups computed while
 * a fsync runs): frames handed over during a write or fsync wait, and the
 * next cycle writes all of them at once and fsyncs once, so one write and
 * one fsync answer every append of that cycle. A cycle starts in the event
 * loop's next check phase, so the frames handed over in the rest of the
 * current turn join it too. Frames reach the file in
 * call order, each append resolves only once its own frames are durable (or
 * written, in `batch`/`none`), appends resolve in call order, and a failure
 * fails every append not yet answered.
 *
 * Zero fill ahead (`zeroFillBytes`): a segment is kept up to that many
 * bytes longer than its frames, the extra bytes written as zeros and made
 * durable with the frames. Frames then overwrite blocks the file already
 * has, so the fsync that covers them need not commit the file's new size
 * too (as PostgreSQL fills WAL segments before use): measured on one
 * pinned core, 14% more `always` inserts per second. Readers take
 * zero fill up to a segment's end as its end (FORMAT.md); a clean close and
 * a rotation cut it off.
 *
 * Any write or fsync failure is sticky: the writer refuses further appends,
 * reports the fault (the engine turns read-only) and cuts the file back to
 * the last acknowledged frame, so a rejected batch never survives to be
 * replayed. `heal()` is the way back: frames acknowledged but not yet fsynced
 * are kept in memory, and heal rewrites them after the last durable offset,
 * because a failed fsync may have dropped them from the page cache.
 */
import assert from 'node:assert';
import path from 'node:path';
import { encodeHeader, HEADER_SIZE } from '../frame.js';
import { encodeBatchFrames, SpareFrames } from './batch-payload.js';
import type { StorageFile, StorageFs } from '../fs.js';
import { describeFault, type StorageFault, type StorageOperation } from '../storage-fault.js';
import type { LoggedBatch } from '../../write/effects.js';
import type { EngineObserver } from '../../observer.js';
import type { CommitLog, DurabilityMode, StagedGroup } from './commit-log.js';

export { DURABILITY_MODES, type DurabilityMode } from './commit-log.js';

export const LOG_MAGIC = 'EDDYLOG';
export const LOG_VERSION = 1;
/** In `none` mode, an fsync runs once this many acknowledged bytes wait for one. */
export const NONE_RETAIN_BYTES = 16 * 1024 * 1024;
/**
 * heal() first writes and fsyncs this much to a scratch file: a disk still full fails here, before the log is touched.
 */
export const HEAL_PROBE_BYTES = 64 * 1024;
export const HEAL_PROBE_FILE = 'heal-probe.tmp';
/** The zero fill a database's log keeps ahead of its frames (see zeroFillBytes). */
export const LOG_ZERO_FILL_BYTES = 1024 * 1024;

/**
 * Resolves in the event loop's next check phase. A write cycle starts there rather than where its first frames
 * are handed over: the requests served in the rest of this turn hand theirs over meanwhile, so more commits share
 * the cycle's fsync (about 170 µs of the core each, on a server pinned to one) while the loop is busy, and an idle
 * loop reaches its check phase at once. Measured on the bank-transfer bench: 4% more transfers per second.
 */
function nextCheckPhase(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function segmentName(startSeq: number): string {
  return `log-${String(startSeq).padStart(16, '0')}.seg`;
}

/** A frame group acknowledged but not yet covered by an fsync; `end` is its end offset in the segment. */
interface UnsyncedFrames {
  readonly end: number;
  readonly data: Buffer;
  /** The caller keeps no view of `data`: its buffer may serve a later group once it is durable. */
  readonly handedOver: boolean;
}

export class LogWriter implements CommitLog {
  private file: StorageFile | undefined;
  private segment = '';
  private failure: StorageFault | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  /** End offset of the last acknowledged frame in the current segment. */
  private size = 0;
  /** Offset up to which the segment is known durable (last successful fsync). */
  private durableSize = 0;
  /** End offset of the bytes whose write completed (>= size while appends are in flight). */
  private written = 0;
  /** Length of the segment file as this writer made it: `written`, then zero fill up to here. */
  private filled = 0;
  /** Zeros written ahead of the frames (reused: never written into). */
  private zeros: Buffer | undefined;
  /** End offset of every frame handed over, written or still pending. */
  private handedOver = 0;
  /** Frames handed over and not yet written, in call order (the next cycle writes them at once). */
  private pending: Buffer[] = [];
  /**
   * Appends not yet answered, in call order, with the end offset each waits for and when it was handed over
   * (performance.now(), read only for an observer).
   */
  private waiting: Array<{
    end: number;
    data: Buffer;
    handedOver: boolean;
    at: number;
    resolve: () => void;
    reject: (error: unknown) => void;
  }> = [];
  /** True while the append cycle (pump) runs; `pumping` is its promise (heal waits for it). */
  private cycling = false;
  private pumping: Promise<void> = Promise.resolve();
  /** The cycle's write, while it runs (a failure elsewhere waits for it before cutting the file back). */
  private writing: Promise<void> | undefined;
  private unsynced: UnsyncedFrames[] = [];
  /** The buffer of the last large group written and no longer read, for the next one to write in. */
  private readonly spareFrames = new SpareFrames();
  /** A new segment a failed rotation may have left behind; heal() removes it. */
  private abandoned: string | undefined;
  /** Bytes appended to the current segment (snapshot threshold). */
  bytesInSegment = 0;
  /** Told once per failure, as soon as it happens (also for a background fsync). */
  onFailure: (fault: StorageFault) => void = () => undefined;
  /** Told of each acknowledged append and each fsync, with their latency (observer.ts). */
  observe: EngineObserver | undefined;
  /** Zero fill kept ahead of the frames (0: none; segments then grow by appending). */
  zeroFillBytes = 0;

  constructor(
    private readonly fs: StorageFs,
    private readonly dir: string,
    public mode: DurabilityMode,
    private readonly batchMs: number,
  ) {}

  /** `always`, and `replicated` (whose local log is kept as in `always`): each append waits for its fsync. */
  private get fsyncsEach(): boolean {
    return this.mode === 'always' || this.mode === 'replicated';
  }

  get failed(): StorageFault | undefined {
    return this.failure;
  }
  get currentSegment(): string {
    return this.segment;
  }

  /**
   * Starts a new segment whose first batch will carry `startSeq`, after
   * making the current one durable. On failure the current segment stays
   * the one appended to, and the writer is failed.
   */
  async openSegment(startSeq: number): Promise<void> {
    if (this.failure) throw this.failure.error;
    if (this.file) {
      await this.flush();
      await this.cutFill();
    }
    const name = segmentName(startSeq);
    const file = path.join(this.dir, name);
    let opened: StorageFile | undefined;
    try {
      opened = await this.fs.openWrite(file);
      await opened.write(encodeHeader(LOG_MAGIC, LOG_VERSION));
      await opened.sync();
      await this.fs.syncDir(this.dir);
    } catch (err) {
      await opened?.close().catch(() => undefined);
      this.abandoned = file;
      throw await this.fail('rotate', err, file);
    }
    await this.closeFile();
    this.file = opened;
    this.segment = name;
    this.size = this.durableSize = this.written = this.handedOver = this.filled = HEADER_SIZE;
    this.unsynced = [];
    this.bytesInSegment = 0;
  }

  /** Reopens an existing segment for appending after recovery; `size` ends its last frame (zero fill may follow). */
  async reopen(name: string, size: number): Promise<void> {
    await this.closeFile();
    const file = path.join(this.dir, name);
    this.file = await this.fs.openUpdate(file);
    this.segment = name;
    this.filled = Math.max(size, await this.fs.size(file));
    this.size = this.durableSize = this.written = this.handedOver = size;
    this.unsynced = [];
    this.bytesInSegment = size;
  }

  /**
   * The frames of `batches`, ready for appendEncoded. A large batch is packed
   * in slices that yield (batch-payload.ts), so the answer may be a promise.
   * Throws (or rejects) on a batch that cannot be encoded; nothing is written.
   */
  encode(batches: readonly LoggedBatch[]): Buffer | Promise<Buffer> {
    return encodeBatchFrames(batches, this.spareFrames);
  }

  /** encode() then appendEncoded(). */
  async append(batches: readonly LoggedBatch[]): Promise<void> {
    if (this.failure) throw this.failure.error;
    const data = this.encode(batches);
    return this.appendEncoded(data instanceof Promise ? await data : data);
  }

  /**
   * REQUIRES: an open segment. Appends may overlap: frames handed over while
   * a write or fsync runs wait, and the next cycle writes them all at once
   * (one write) and, in `always`, fsyncs them once. Appends resolve in call
   * order, once their frames are durable per the mode; on a disk failure
   * every append not yet answered throws (and fails the writer), and none of
   * their frames remain in the file.
   */
  appendEncoded(data: Buffer, _group?: StagedGroup, handedOver = false): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    this.handedOver += data.length;
    const end = this.handedOver;
    this.pending.push(data);
    const at = this.observe ? performance.now() : 0;
    const answered = new Promise<void>((resolve, reject) =>
      this.waiting.push({ end, data, handedOver, at, resolve, reject }),
    );
    if (!this.cycling) {
      this.cycling = true;
      this.pumping = this.pump();
    }
    return answered;
  }

  /**
   * Cycles until nothing is pending: one write of everything pending, then (always) one fsync; answers the appends it
   * covered.
   */
  private async pump(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.failure) {
        await nextCheckPhase();
        // Looked at again: a background fsync may have failed the writer meanwhile (batch, none).
        if (this.pending.length > 0 && !this.failure) await this.writeCycle();
      }
      if (this.failure) this.refuseWaiting(this.failure.error);
    } catch (err) {
      // writeCycle reports disk faults itself; anything else is a bug, and no append may wait forever on it.
      this.refuseWaiting(err instanceof Error ? err : new Error(String(err)));
    } finally {
      // Cleared in the step that saw nothing pending, so an append made after it starts a new cycle.
      this.cycling = false;
    }
  }

  /** One write of everything pending, then (always) one fsync; answers the appends it covered. */
  private async writeCycle(): Promise<void> {
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    const file = this.file!;
    let stage: StorageOperation = 'write';
    try {
      this.writing = this.writeAndFill(file, data);
      await this.writing;
      if (this.fsyncsEach) {
        stage = 'fsync';
        await this.timedSync(file);
        this.markDurable(this.written);
      }
    } catch (err) {
      // The only write in flight is this one, so the file can be cut back at once.
      await this.fail(stage, err, undefined, false);
      return;
    } finally {
      this.writing = undefined;
    }
    // A background fsync failed meanwhile (batch, none): these bytes count as rejected too, and they may
    // have landed after its cut, so cut again.
    const late = this.failure as StorageFault | undefined;
    if (late) {
      await this.fail(late.operation, late.error, undefined, false);
      return;
    }
    this.answer();
  }

  /** Writes `data` after the frames written so far, then zero fill ahead of them when it runs short. */
  private async writeAndFill(file: StorageFile, data: Buffer): Promise<void> {
    await file.write(data, this.written);
    this.written += data.length;
    this.filled = Math.max(this.filled, this.written);
    const want = this.zeroFillBytes;
    // A large write (a bulk batch) extends the file in one go anyway; filling after each would write its bytes twice.
    if (want === 0 || this.filled - this.written >= want / 2 || data.length >= want / 4) return;
    const zeros = this.zeros?.length === want ? this.zeros : (this.zeros = Buffer.alloc(want));
    const bytes = this.written + want - this.filled;
    try {
      await file.write(zeros.subarray(0, bytes), this.filled);
      this.filled += bytes;
    } catch {
      // Zero fill only saves work: frames are written past the end of the file without it, as when appending.
      // A disk too full for it fails the next frame write instead, and that is reported.
    }
  }

  /** Resolves, in order, the appends whose frames are now written (batch, none) or durable (always). */
  private answer(): void {
    const reached = this.fsyncsEach ? this.durableSize : this.written;
    const observe = this.observe;
    const now = observe ? performance.now() : 0;
    while (this.waiting.length > 0 && this.waiting[0]!.end <= reached) {
      const waiter = this.waiting.shift()!;
      this.size = waiter.end;
      this.bytesInSegment += waiter.data.length;
      if (!this.fsyncsEach) this.unsynced.push({ end: waiter.end, data: waiter.data, handedOver: waiter.handedOver });
      observe?.logAppend?.((now - waiter.at) / 1000, waiter.data.length);
      waiter.resolve();
      // Durable, and so never written again (heal rewrites only unsynced frames).
      if (this.fsyncsEach && waiter.handedOver) this.spareFrames.giveBack(waiter.data);
    }
    if (this.fsyncsEach) return;
    if (this.mode === 'batch' || this.size - this.durableSize >= NONE_RETAIN_BYTES) this.scheduleSync();
  }

  private refuseWaiting(error: Error): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.pending = [];
    this.handedOver = this.written;
    for (const waiter of waiting) waiter.reject(error);
  }

  /** One fsync covering every completed write; throws (failing the writer) on error. */
  private syncWritten(): Promise<void> {
    const file = this.file!;
    const upto = this.written;
    const run = (async () => {
      try {
        await this.timedSync(file);
      } catch (err) {
        throw await this.fail('fsync', err);
      }
      this.markDurable(upto);
    })();
    this.syncing = run;
    return run.finally(() => {
      if (this.syncing === run) this.syncing = undefined;
    });
  }

  /**
   * Flushes anything written but not yet fsynced (batch and none modes). Throws (failing the writer) on an fsync error.
   */
  async flush(): Promise<void> {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    while (this.syncing) await this.syncing.catch(() => undefined);
    // Frames still pending in an append cycle are not covered: that cycle schedules its own fsync once written.
    if (!this.file || this.failure || this.durableSize >= this.written) return;
    await this.syncWritten();
  }

  /**
   * REQUIRES: a failed writer and no append in flight (the write queue runs
   * this between groups). Proves the disk takes writes again (a probe file),
   * cuts the segment back to its last durable offset, rewrites the frames
   * acknowledged since, and fsyncs the file and the directory; only then is
   * the writer usable again. Throws, leaving it failed, when any step fails.
   */
  async heal(): Promise<void> {
    await this.pumping;
    while (this.syncing) await this.syncing.catch(() => undefined);
    if (!this.failure) return;
    await this.probe();
    if (this.abandoned) {
      if (this.fs.exists(this.abandoned)) await this.fs.unlink(this.abandoned);
      this.abandoned = undefined;
    }
    const segment = path.join(this.dir, this.segment);
    const actual = await this.fs.size(segment);
    // Truncating "up" would put zeros between durable frames and the rewritten ones: refuse, stay read-only.
    if (actual < this.durableSize)
      throw new Error(`${this.segment} is ${actual} bytes but ${this.durableSize} were fsynced; not healing`);
    await this.closeFile();
    const file = await this.fs.openUpdate(segment);
    try {
      await file.truncate(this.durableSize);
      if (this.unsynced.length > 0) await file.write(Buffer.concat(this.unsynced.map((u) => u.data)), this.durableSize);
      await file.sync();
      await this.fs.syncDir(this.dir);
    } catch (err) {
      await file.close().catch(() => undefined);
      throw err;
    }
    assert.equal(
      this.durableSize + this.unsynced.reduce((n, u) => n + u.data.length, 0),
      this.size,
      'the kept frames fill the gap up to the last acknowledged one',
    );
    this.file = file;
    this.written = this.handedOver = this.filled = this.size;
    this.markDurable(this.size);
    this.failure = undefined;
  }

  async close(): Promise<void> {
    if (!this.failure) await this.flush().catch(() => undefined);
    if (!this.failure && !this.cycling) await this.cutFill();
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    await this.closeFile();
  }

  /** Writes and fsyncs a scratch file, then removes it. */
  private async probe(): Promise<void> {
    const file = path.join(this.dir, HEAL_PROBE_FILE);
    const handle = await this.fs.openWrite(file);
    try {
      await handle.write(Buffer.alloc(HEAL_PROBE_BYTES));
      await handle.sync();
    } finally {
      await handle.close().catch(() => undefined);
      // A probe left behind is harmless: recovery removes every *.tmp at startup.
      await this.fs.unlink(file).catch(() => undefined);
    }
  }

  /** fsyncs `file`, telling the observer how long it took (a failed fsync is not timed). */
  private timedSync(file: StorageFile): Promise<void> {
    const observe = this.observe;
    if (!observe) return file.sync();
    const started = performance.now();
    return file.sync().then(() => observe.logFsync?.((performance.now() - started) / 1000));
  }

  private markDurable(upto: number): void {
    this.durableSize = Math.max(this.durableSize, upto);
    if (this.unsynced.length === 0) return;
    const kept: UnsyncedFrames[] = [];
    for (const frames of this.unsynced) {
      if (frames.end > this.durableSize) kept.push(frames);
      else if (frames.handedOver) this.spareFrames.giveBack(frames.data);
    }
    this.unsynced = kept;
  }

  /**
   * Records the first failure and tells the engine, then cuts the file back
   * to the last acknowledged frame (best effort: a torn or rejected frame
   * must not be replayed; heal() cuts again before anything is appended).
   */
  private async fail(
    operation: StorageOperation,
    err: unknown,
    file = path.join(this.dir, this.segment),
    waitForWrites = true,
  ): Promise<Error> {
    if (!this.failure) {
      this.failure = describeFault(err, operation, file, this.dir);
      this.onFailure(this.failure);
    }
    // A write still in flight would land after the cut (at its offset, or at the end): let it finish first.
    // (The append cycle passes false: its own write is the one in flight, and it is done.)
    if (waitForWrites) await this.writing?.catch(() => undefined);
    await this.cutBack().catch(() => undefined);
    return err instanceof Error ? err : this.failure.error;
  }

  /** Truncates the segment to the last acknowledged frame; never extends a file the disk already shortened. */
  private async cutBack(): Promise<void> {
    if (!this.file || (await this.fs.size(path.join(this.dir, this.segment))) <= this.size) return;
    await this.file.truncate(this.size);
    this.filled = this.size;
  }

  /**
   * Cuts the zero fill off a segment the writer leaves (best effort, not fsynced: zero fill reads as the end
   * anyway), so files at rest end at their last frame.
   */
  private async cutFill(): Promise<void> {
    if (!this.file || this.filled <= this.written) return;
    try {
      await this.file.truncate(this.written);
      this.filled = this.written;
    } catch {
      // Left as it is: still a readable segment.
    }
  }

  private scheduleSync(): void {
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      // A failure is reported through onFailure; nobody awaits this fsync.
      this.flush().catch(() => undefined);
    }, this.batchMs);
    this.syncTimer.unref();
  }

  private async closeFile(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file) await file.close().catch(() => undefined);
  }
}
