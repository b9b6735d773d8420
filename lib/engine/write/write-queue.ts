/**
 * The single writer. Operations are queued and run in order, in groups: a
 * group costs one log write and one fsync (group commit).
 *
 * Per group: each operation computes its effects against a WorkingView
 * (committed state plus the effects of the groups still in flight and of
 * the group's earlier operations), the group is encoded and handed to the
 * log, and only when its append is durable are its batches applied to
 * DbState, published to listeners and acknowledged, in order.
 *
 * Pipelined: while a group's write and fsync run, what is submitted
 * meanwhile is cut into groups at once (one per I/O phase), computed over
 * the effects of the groups in flight, encoded and handed to the log, which
 * writes all of them in one write and fsyncs once as soon as the current
 * fsync returns. At most MAX_IN_FLIGHT groups are in flight. Readers still
 * see only durable writes, and groups are applied and answered in order.
 * A failed append fails its group and every group after it (they were
 * computed over its effects); none of them is applied.
 *
 * When the log fails, StorageHealth turns the engine read-only: the failed
 * group and every later write are refused (never applied), and the repair
 * runs here, between groups, so no append races it.
 */
import { toDbError } from '../../errors.js';
import { applyBatch } from './apply-batch.js';
import type { Effect, LoggedBatch } from './effects.js';
import type { DbState } from './state.js';
import type { StateJournal } from './journal.js';
import { WorkingView } from './working-view.js';
import { yieldToLoop } from '../time/slices.js';
import { describeOver, stateBefore, type BeforeImages, type CommitInfo } from './change-feed.js';
import type { CommitLog } from '../storage/log/commit-log.js';
import type { StorageHealth } from '../storage/storage-health.js';
import { fallbackEngineLog, type EngineLog } from '../engine-log.js';
import type { EngineObserver } from '../observer.js';

export interface OpResult<R> {
  readonly effects: readonly Effect[];
  readonly result: R;
  /** Set when applying a batch received from a replication peer. */
  readonly origin?: { readonly node: string; readonly seq: number };
  /**
   * A fork of the group's view into which exactly `effects` were staged (a
   * large batch stages chunk by chunk): the writer adopts it rather than
   * staging them again, when the view has not changed since the fork.
   */
  readonly staged?: WorkingView;
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
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export type CommitListener = (batch: LoggedBatch, info: CommitInfo) => void;

/** Groups handed to the log and not yet acknowledged (a bound on the work staged over non-durable effects). */
const MAX_IN_FLIGHT = 64;

/** A group handed to the log, waiting for its append before it is applied and acknowledged. */
interface InFlight {
  readonly batches: readonly LoggedBatch[];
  /** Each batch's changes, described as it was staged (only with `describeWhenStaged`). */
  readonly infos?: readonly CommitInfo[];
  readonly done: ReadonlyArray<{ p: Pending; result: unknown }>;
  /** Settles (never rejects) once the append is durable or failed; `error` tells which. */
  readonly settled: Promise<void>;
  finished: boolean;
  error?: unknown;
  /** The records the group writes, as `collection NUL id`: built when a reader first asks (writtenRecords). */
  written?: ReadonlySet<string>;
  /** Told once the group is applied (or failed): what waits to read its writes. */
  appliedWaiters?: Array<() => void>;
}

/** The records a group's batches put or delete, as `collection NUL id`. */
function writtenRecords(batches: readonly LoggedBatch[]): Set<string> {
  const keys = new Set<string>();
  for (const batch of batches)
    for (const effect of batch.effects)
      if (effect.kind === 'put' || effect.kind === 'delete') keys.add(`${effect.collection}\u0000${effect.id}`);
  return keys;
}

function tellApplied(group: InFlight): void {
  const waiters = group.appliedWaiters;
  group.appliedWaiters = undefined;
  if (waiters) for (const waiter of waiters) waiter();
}

export class WriteQueue {
  private queue: Pending[] = [];
  private running = false;
  /** Oldest first; each was computed over the effects of the ones before it. */
  private inflight: InFlight[] = [];
  /**
   * The committed state plus the effects of every group in flight: the next group is computed on it.
   * Dropped when a group is applied (the state moved) and rebuilt, only when needed, from those still in flight.
   */
  private view: WorkingView | undefined;
  /** Set while drain waits for the oldest group with room for another: a submit cuts the next group. */
  private wake: (() => void) | undefined;
  private readonly listeners: CommitListener[] = [];
  private idleWaiters: Array<() => void> = [];
  /** While a checkpoint is held: where each applied batch records what it replaces (journal.ts). */
  journal: StateJournal | undefined;
  /**
   * While set, `submit` refuses every write with the error it makes (a cluster replica: its writes come from the
   * cluster's log through `submitReplicated`, and clients write to the primary).
   */
  refuseWrites: (() => Error) | undefined;
  /**
   * Describe each batch's changes as it is staged, over the writer's view, and hand them to the log with the group
   * (a cluster's log publishes them before they are applied); applying then reuses them.
   */
  describeWhenStaged = false;
  /** The committed state as the images before the next batch (made once: a single insert is a batch of its own). */
  private readonly committedImages: BeforeImages;

  constructor(
    private readonly state: DbState,
    private readonly log: CommitLog,
    private readonly health: StorageHealth,
    private readonly report: EngineLog = fallbackEngineLog,
    /** Told how many writes each group hands to the log (observer.ts). */
    private readonly observe?: EngineObserver,
  ) {
    log.onFailure = (fault) => health.fail(fault);
    health.repairWith(() => this.exclusive(() => log.heal()));
    this.committedImages = stateBefore(state);
  }

  get readOnly(): boolean {
    return this.health.readOnly;
  }
  get readOnlyReason(): string | undefined {
    return this.health.cause?.message;
  }

  /** Writes waiting for the writer, plus those in groups handed to the log and not yet acknowledged. */
  get depth(): number {
    let depth = this.queue.length;
    for (const group of this.inflight) depth += group.done.length;
    return depth;
  }

  /**
   * Resolves once every group in flight that writes record `id` of `collection` is applied (or failed), so that
   * a read then sees the write; undefined when no group in flight writes it. For a transaction's read: a version
   * it observed while a commit of the record is in flight is stale before the read is answered, and would only
   * make its own commit conflict.
   */
  writesApplied(collection: string, id: string): Promise<void> | undefined {
    const key = `${collection}\u0000${id}`;
    for (let i = this.inflight.length - 1; i >= 0; i--) {
      const group = this.inflight[i]!;
      if (group.batches.length === 0) continue;
      if (!(group.written ??= writtenRecords(group.batches)).has(key)) continue;
      // Groups are applied in order: the newest one writing the record is the one to wait for.
      return new Promise((resolve) => (group.appliedWaiters ??= []).push(resolve));
    }
    return undefined;
  }

  /** Called after each batch is durable and applied, in seq order. */
  onCommit(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  /**
   * Runs `op` in the writer. Resolves with its result only after its effects
   * are durable under the log's mode and visible to readers.
   * Throws ReadOnlyRefusal (Unavailable) when the engine is read-only or
   * the log append fails; rethrows op errors.
   */
  submit<R>(op: Operation<R>): Promise<R> {
    if (this.refuseWrites) return Promise.reject(this.refuseWrites());
    return this.submitReplicated(op);
  }

  /** submit, past `refuseWrites`: a batch the cluster's log holds, applied on a replica. */
  submitReplicated<R>(op: Operation<R>): Promise<R> {
    if (this.health.readOnly) return Promise.reject(this.health.refuse());
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ op: op as Operation<unknown>, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) void this.drain();
      else this.wake?.();
    });
  }

  /**
   * Runs `fn` between groups: no write is computed, logged or applied while
   * it runs. Used to rotate log segments and capture snapshots.
   */
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const op: Operation<unknown> = () => ({ effects: [], result: undefined });
      this.queue.push({ op, exclusive: fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /**
   * Runs `change` between groups, like exclusive, then tells the commit
   * listeners of the batch it returns: for a change made to the state
   * outside the log (a checkpoint restored), so that what derives from the
   * state follows it as it follows a commit.
   */
  changeOutsideLog<R>(change: () => Promise<{ batch: LoggedBatch; info: CommitInfo; result: R }>): Promise<R> {
    return this.exclusive(async () => {
      const { batch, info, result } = await change();
      this.view = undefined;
      this.publish(batch, info);
      return result;
    });
  }

  private publish(batch: LoggedBatch, info: CommitInfo): void {
    for (const listener of this.listeners) {
      try {
        listener(batch, info);
      } catch (err) {
        this.report(`commit listener failed at seq ${batch.seq}`, 'error', err);
      }
    }
  }

  /** Resolves when no group is in flight (used by snapshot and shutdown). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async drain(): Promise<void> {
    this.running = true;
    let yielded = false;
    try {
      while (this.queue.length > 0 || this.inflight.length > 0) {
        const next = this.queue[0];
        if (this.inflight[0]?.finished) {
          await this.finishOldest();
        } else if (next?.exclusive && this.inflight.length === 0) {
          this.queue.shift();
          try {
            next.resolve(await next.exclusive());
          } catch (err) {
            next.reject(err);
          }
        } else if (next && !next.exclusive && this.inflight.length < MAX_IN_FLIGHT) {
          if (this.inflight.length > 0 && !yielded) {
            // With groups in flight, the next group is cut on the next turn, after I/O callbacks have run: an
            // operation refused over an in-flight group (a transaction that read the state before it) is retried
            // by its caller at once, and without this turn the retries would spin in microtasks while the append
            // that would settle them never completes (a livelock the commit bench ran into, out of memory).
            await yieldToLoop();
            yielded = true;
            continue;
          }
          yielded = false;
          await this.startGroup(this.cutGroup());
        } else {
          await this.progress(next === undefined && this.inflight.length < MAX_IN_FLIGHT);
        }
      }
    } finally {
      // Whatever happened, the writer must not stay "running" with nobody draining.
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }

  /**
   * Waits for the oldest group's append or, when `room`, for a submit. The
   * submit is taken after the current I/O phase (setImmediate), so requests
   * that arrived together form one group rather than one group each.
   */
  private progress(room: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      void this.inflight[0]!.settled.then(resolve);
      if (room)
        this.wake = () => {
          this.wake = undefined;
          setImmediate(resolve);
        };
    }).finally(() => {
      this.wake = undefined;
    });
  }

  /** Takes the operations queued up to the next exclusive one. */
  private cutGroup(): Pending[] {
    const cut = this.queue.findIndex((p) => p.exclusive);
    const group = cut < 0 ? this.queue : this.queue.slice(0, cut);
    this.queue = cut < 0 ? [] : this.queue.slice(cut);
    return group;
  }

  /**
   * A fresh overlay over the state holding `batches` (those of the groups in flight, and of this group after an
   * operation's effects failed to stage).
   */
  private rebuildView(batches: readonly LoggedBatch[]): WorkingView {
    const view = new WorkingView(this.state, this.state.seq + 1);
    for (const batch of batches) {
      view.stage(batch.effects);
      view.nextSeq += 1;
    }
    return view;
  }

  /** Computes `group` over the state and the groups in flight, and hands its batches to the log. */
  private async startGroup(group: Pending[]): Promise<void> {
    let view = (this.view ??= this.rebuildView(this.inflight.flatMap((g) => g.batches)));
    const batches: LoggedBatch[] = [];
    const infos: CommitInfo[] | undefined = this.describeWhenStaged ? [] : undefined;
    const done: Array<{ p: Pending; result: unknown }> = [];
    for (const pending of group) {
      if (this.health.readOnly) {
        pending.reject(this.health.refuse());
        continue;
      }
      let out: OpResult<unknown>;
      try {
        const result = pending.op(view);
        out = result instanceof Promise ? await result : result;
      } catch (err) {
        pending.reject(toDbError(err));
        continue;
      }
      if (out.effects.length > 0 || out.origin) {
        const batch: LoggedBatch = out.origin
          ? { seq: view.nextSeq, effects: out.effects, origin: out.origin.node, originSeq: out.origin.seq }
          : { seq: view.nextSeq, effects: out.effects };
        // Before staging: the view then holds what the state will hold just before this batch is applied.
        const info = infos ? describeOver(view, batch) : undefined;
        try {
          if (!out.staged || !view.adopt(out.staged)) view.stage(out.effects);
        } catch (err) {
          // Effects the state cannot take (a bug in the operation): refuse this one before anything is
          // logged, and rebuild the overlay from the batches that staged cleanly, since this one may have
          // half-staged. Staging runs the same applyEffect as applyBatch, so what stages here applies later.
          pending.reject(toDbError(err));
          view = this.view = this.rebuildView([...this.inflight.flatMap((g) => g.batches), ...batches]);
          continue;
        }
        batches.push(batch);
        if (info) infos!.push(info);
        view.nextSeq += 1;
      }
      done.push({ p: pending, result: out.result });
    }
    if (batches.length > 0) {
      let data: Buffer;
      try {
        const encoded = this.log.encode(batches);
        data = encoded instanceof Promise ? await encoded : encoded;
      } catch (err) {
        // A batch that cannot be encoded is a bug; nothing was written, and no later group saw these effects.
        for (const item of done) item.p.reject(toDbError(err));
        this.view = undefined;
        return;
      }
      this.observe?.writeGroup?.(batches.length);
      // Handed over: nothing here reads the frames again.
      const appended = this.log.appendEncoded(data, infos ? { batches, infos } : undefined, true);
      const inFlight: InFlight = {
        batches,
        infos,
        done,
        finished: false,
        settled: appended.then(
          () => {
            inFlight.finished = true;
          },
          (err: unknown) => {
            inFlight.finished = true;
            inFlight.error = err;
          },
        ),
      };
      this.inflight.push(inFlight);
    } else if (done.length > 0) {
      // Answered in order, after the groups before it (their effects are what these results saw).
      this.inflight.push({ batches, done, finished: true, settled: Promise.resolve() });
    }
  }

  /** Applies, publishes and acknowledges the oldest group, or fails it and every group after it. */
  private async finishOldest(): Promise<void> {
    const group = this.inflight.shift()!;
    if (group.batches.length > 0) this.view = undefined;
    if (group.error !== undefined) {
      // A disk fault has been reported (read-only) and the file cut back: nothing of this group remains, and
      // the groups after it were computed over its effects, so they fail too (the writer refuses their appends).
      const failed = [group, ...this.inflight];
      this.inflight = [];
      for (const failedGroup of failed) {
        tellApplied(failedGroup);
        for (const item of failedGroup.done)
          item.p.reject(this.health.readOnly ? this.health.refuse() : toDbError(group.error));
      }
      // No append may still be running when the next group (or a repair) starts.
      await Promise.all(failed.map((f) => f.settled));
      return;
    }
    try {
      for (let i = 0; i < group.batches.length; i++) {
        const batch = group.batches[i]!;
        const info = group.infos?.[i] ?? describeOver(this.committedImages, batch);
        applyBatch(this.state, batch, this.journal);
        this.publish(batch, info);
      }
    } catch (err) {
      // Unreachable while staging and applying share applyEffect; if it happens, say so and answer
      // every caller rather than leave them waiting on a writer that stopped.
      this.report('applying a logged group failed; restart the server to replay the log', 'error', err);
      tellApplied(group);
      for (const item of group.done) item.p.reject(toDbError(err));
      return;
    }
    tellApplied(group);
    for (const item of group.done) item.p.resolve(item.result);
  }
}
