/**
 * The single writer. Operations are queued and run in order; everything
 * queued while the previous group was being made durable forms the next
 * group, which costs one log write and one fsync (group commit).
 *
 * Per group: each operation computes its effects against a WorkingView
 * (committed state plus the group's earlier effects), the group is appended
 * to the log, and only when the append is durable are the batches applied
 * to DbState, published to listeners and acknowledged.
 *
 * When the log fails, StorageHealth turns the engine read-only: the failed
 * group and every later write are refused (never applied), and the repair
 * runs here, between groups, so no append races it.
 */
import { toDbError } from '../errors.js';
import { applyBatch } from './apply-batch.js';
import type { Effect, LoggedBatch } from './effects.js';
import type { DbState } from './state.js';
import { WorkingView } from './working-view.js';
import { describeChanges, type CommitInfo } from './change-feed.js';
import type { LogWriter } from './storage/log-writer.js';
import type { StorageHealth } from './storage-health.js';
import { fallbackEngineLog, type EngineLog } from './engine-log.js';

export interface OpResult<R> {
  readonly effects: readonly Effect[];
  readonly result: R;
  /** Set when applying a batch received from a replication peer. */
  readonly origin?: { readonly node: string; readonly seq: number };
}
/**
 * Computes a write's effects against the group's view. An operation that
 * returns a promise (a large batch computed in slices) keeps the writer
 * while it awaits: no other operation of this or a later group runs, and
 * nothing is applied to the state, until it has settled; readers meanwhile
 * see the committed state without any of it.
 */
export type Operation<R> = (view: WorkingView) => OpResult<R> | Promise<OpResult<R>>;

interface Pending {
  op: Operation<unknown>;
  /** Runs alone between groups (segment rotation, snapshot capture). */
  exclusive?: () => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export type CommitListener = (batch: LoggedBatch, info: CommitInfo) => void;

export class WriteQueue {
  private queue: Pending[] = [];
  private running = false;
  private readonly listeners: CommitListener[] = [];
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly state: DbState, private readonly log: LogWriter, private readonly health: StorageHealth,
    private readonly report: EngineLog = fallbackEngineLog) {
    log.onFailure = (fault) => health.fail(fault);
    health.repairWith(() => this.exclusive(() => log.heal()));
  }

  get readOnly(): boolean { return this.health.readOnly; }
  get readOnlyReason(): string | undefined { return this.health.cause?.message; }

  /** Called after each batch is durable and applied, in seq order. */
  onCommit(listener: CommitListener): void { this.listeners.push(listener); }

  /**
   * Runs `op` in the writer. Resolves with its result only after its effects
   * are durable under the log's mode and visible to readers.
   * Throws ReadOnlyRefusal (Unavailable) when the engine is read-only or
   * the log append fails; rethrows op errors.
   */
  submit<R>(op: Operation<R>): Promise<R> {
    if (this.health.readOnly) return Promise.reject(this.health.refuse());
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ op: op as Operation<unknown>, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /**
   * Runs `fn` between groups: no write is computed, logged or applied while
   * it runs. Used to rotate log segments and capture snapshots.
   */
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const op: Operation<unknown> = () => ({ effects: [], result: undefined });
      this.queue.push({ op, exclusive: fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Resolves when no group is in flight (used by snapshot and shutdown). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const cut = this.queue.findIndex((p) => p.exclusive);
        if (cut === 0) {
          const p = this.queue.shift()!;
          try { p.resolve(await p.exclusive!()); } catch (err) { p.reject(err); }
          continue;
        }
        const group = cut < 0 ? this.queue : this.queue.slice(0, cut);
        this.queue = cut < 0 ? [] : this.queue.slice(cut);
        await this.runGroup(group);
      }
    } finally {
      // Whatever happened, the writer must not stay "running" with nobody draining.
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** A fresh overlay holding `batches` (used after an operation's effects failed to stage). */
  private rebuildView(batches: readonly LoggedBatch[]): WorkingView {
    const view = new WorkingView(this.state, this.state.seq + 1);
    for (const b of batches) {
      view.stage(b.effects);
      view.nextSeq += 1;
    }
    return view;
  }

  private async runGroup(group: Pending[]): Promise<void> {
    let view = new WorkingView(this.state, this.state.seq + 1);
    const batches: LoggedBatch[] = [];
    const done: Array<{ p: Pending; result: unknown }> = [];
    for (const p of group) {
      if (this.health.readOnly) { p.reject(this.health.refuse()); continue; }
      let out: OpResult<unknown>;
      try {
        const r = p.op(view);
        out = r instanceof Promise ? await r : r;
      } catch (err) {
        p.reject(toDbError(err));
        continue;
      }
      if (out.effects.length > 0 || out.origin) {
        try {
          view.stage(out.effects);
        } catch (err) {
          // Effects the state cannot take (a bug in the operation): refuse this one before anything is
          // logged, and rebuild the overlay from the batches that staged cleanly, since this one may have
          // half-staged. Staging runs the same applyEffect as applyBatch, so what stages here applies later.
          p.reject(toDbError(err));
          view = this.rebuildView(batches);
          continue;
        }
        batches.push(out.origin
          ? { seq: view.nextSeq, effects: out.effects, origin: out.origin.node, originSeq: out.origin.seq }
          : { seq: view.nextSeq, effects: out.effects });
        view.nextSeq += 1;
      }
      done.push({ p, result: out.result });
    }
    if (batches.length > 0) {
      try {
        await this.log.append(batches);
      } catch (err) {
        // A disk fault has been reported (read-only) and the file cut back: nothing of this group remains.
        // Anything else (a batch that cannot be encoded) is a bug, and nothing was written either.
        for (const d of done) d.p.reject(this.health.readOnly ? this.health.refuse() : toDbError(err));
        return;
      }
      try {
        for (const b of batches) {
          const info = describeChanges(this.state, b);
          applyBatch(this.state, b);
          for (const l of this.listeners) {
            try { l(b, info); } catch (err) { this.report(`commit listener failed at seq ${b.seq}`, 'error', err); }
          }
        }
      } catch (err) {
        // Unreachable while staging and applying share applyEffect; if it happens, say so and answer
        // every caller rather than leave them waiting on a writer that stopped.
        this.report('applying a logged group failed; restart the server to replay the log', 'error', err);
        for (const d of done) d.p.reject(toDbError(err));
        return;
      }
    }
    for (const d of done) d.p.resolve(d.result);
  }
}
