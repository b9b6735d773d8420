/**
 * Applies pending changes and runs index walks (builds and catch-ups, see
 * index-entry.ts) in the background: one entry at a time, pending changes
 * first, in slices of at most `sliceMs` of work, each slice in its own
 * event-loop turn (setImmediate), so requests are served between slices.
 *
 * For an HNSW graph a slice only copies vectors into a batch (a few µs
 * each) and posts it to the HNSW worker, which inserts them beside the
 * request thread. Batches are sized to about BATCH_WORK_MS of the worker's
 * measured insert cost, and at most MAX_IN_FLIGHT are posted at once: a
 * search posted to the worker waits behind at most those (about 30 ms),
 * and the worker does not idle while this thread is slow to post the next
 * (a busy machine). The entry is taken up again when a batch is
 * answered. A walk ends once its last batch is answered.
 */
import { Unavailable } from '../../errors.js';
import type { RecordEntry } from '../write/state.js';
import { resuming } from '../time/slices.js';
import type { IndexEntry } from './index-entry.js';

/** Default work per slice: well under the 20 ms a request may wait for the event loop. */
export const DEFAULT_SLICE_MS = 10;

/** Worker time a batch of graph changes is sized to. */
const BATCH_WORK_MS = 8;
/** Batches of one graph posted and not answered at once: enough that the worker never waits for this thread. */
const MAX_IN_FLIGHT = 4;
/** At least this many changes a batch, however slow inserts look: each batch costs a round trip to the worker. */
const MIN_BATCH = 16;
const MAX_BATCH = 4096;

export class BackgroundBuilds {
  private readonly queue: IndexEntry[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;
  /** Searches waiting for an entry to catch up (SearchIndexes.textReady, settledVector). */
  private waiters: Array<{
    entry: IndexEntry;
    maxPending: number;
    /** Waits for the pending changes alone (paced), not for a walk or the batches in flight. */
    pendingOnly: boolean;
    resolve: () => void;
    reject: (err: Error) => void;
  }> = [];

  constructor(
    /** The current records of a collection (undefined once dropped). */
    private readonly recordsOf: (collection: string) => ReadonlyMap<string, RecordEntry> | undefined,
    /** True while `entry` is still the one registered (a drop or a config change replaces it). */
    private readonly isCurrent: (entry: IndexEntry) => boolean,
    private readonly sliceMs = DEFAULT_SLICE_MS,
  ) {}

  /** Queues `entry`'s pending changes or walk (a loaded index: after its file is read). */
  enqueue(entry: IndexEntry): void {
    if (!this.queue.includes(entry)) this.queue.push(entry);
    this.schedule();
  }

  /**
   * Applies `entry`'s pending changes and runs its walk to the end now (a ready index's few pending changes; specs).
   */
  finish(entry: IndexEntry): void {
    if (entry.hasWork() && !entry.loading) this.work(entry, Infinity);
    this.settleWaiters();
  }

  /**
   * Resolves once `entry`'s walk is over (built, caught up, or failed; a
   * graph's batches applied by the worker) and at most `maxPending` changes
   * wait to be applied, or once it is no longer the registered entry; moves
   * it first in line meanwhile. Rejects with Unavailable once the builds are
   * stopped (the server closes).
   */
  caughtUp(entry: IndexEntry, maxPending = Infinity): Promise<void> {
    if (this.stopped) return Promise.reject(new Unavailable('the server is closing'));
    if (this.isCaughtUp(entry, maxPending)) return Promise.resolve();
    const at = this.queue.indexOf(entry);
    if (at > 0) this.queue.splice(at, 1);
    if (at !== 0 && !entry.loading) this.queue.unshift(entry);
    return new Promise((resolve, reject) => {
      this.waiters.push({ entry, maxPending, pendingOnly: false, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Resolves once at most `maxPending` of `entry`'s committed changes wait to be taken in (handed to the HNSW
   * worker, for a graph), or once it is loading, failed, replaced or the builds are stopped; never rejects. A walk
   * (a build of the records already there) is not waited for: its changes are not pending, and pending changes go
   * first.
   */
  paced(entry: IndexEntry, maxPending: number): Promise<void> {
    if (this.stopped || this.isPaced(entry, maxPending)) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ entry, maxPending, pendingOnly: true, resolve, reject: () => resolve() });
      this.enqueue(entry);
    });
  }

  /** Replaced (a drop or a config change) or failed: nothing of it to wait for. */
  private isOver(entry: IndexEntry): boolean {
    return !this.isCurrent(entry) || entry.state === 'failed';
  }

  private isCaughtUp(entry: IndexEntry, maxPending: number): boolean {
    if (this.isOver(entry)) return true;
    if (entry.walk || entry.loading || (entry.remote?.inFlight ?? 0) > 0) return false;
    return entry.pending.size <= maxPending;
  }

  private isPaced(entry: IndexEntry, maxPending: number): boolean {
    return this.isOver(entry) || !!entry.loading || entry.pending.size <= maxPending;
  }

  /** Settles the waiters whose entry caught up or was replaced. */
  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => {
      const over = waiter.pendingOnly
        ? this.isPaced(waiter.entry, waiter.maxPending)
        : this.isCaughtUp(waiter.entry, waiter.maxPending);
      if (over) waiter.resolve();
      return !over;
    });
  }

  /** Stops scheduling slices (on close); walks in progress stay unfinished. */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Unavailable('the server is closing'));
  }

  private schedule(): void {
    if (this.scheduled || this.stopped || this.queue.length === 0) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      resuming();
      this.slice();
      this.settleWaiters();
      this.schedule();
    });
  }

  private slice(): void {
    const entry = this.queue[0]!;
    const throttled = (entry.remote?.inFlight ?? 0) >= MAX_IN_FLIGHT;
    if (!this.isCurrent(entry) || !entry.hasWork() || entry.loading || throttled) {
      // A loaded index is queued again once its file is read; a throttled graph once a batch is answered.
      this.queue.shift();
      return;
    }
    this.work(entry, this.sliceMs);
    if (!entry.hasWork() || (entry.remote?.inFlight ?? 0) >= MAX_IN_FLIGHT) this.queue.shift();
  }

  /**
   * Applies pending changes, then walks, for up to `budgetMs` (at least one step); ends the walk when it reaches the
   * end.
   */
  private work(entry: IndexEntry, budgetMs: number): void {
    const records = this.recordsOf(entry.collection);
    const start = performance.now();
    const batchLimit = entry.remote
      ? Math.max(MIN_BATCH, Math.min(MAX_BATCH, Math.round((BATCH_WORK_MS * 1000) / entry.remote.insertUs)))
      : Infinity;
    try {
      do {
        if ((entry.batch?.length ?? 0) >= batchLimit) break;
        if (entry.applyOnePending()) continue;
        const walk = entry.walk;
        if (!walk || walk.pos >= walk.ids.length) break;
        const id = walk.ids[walk.pos++]!;
        entry.walkStep(id, records?.get(id));
      } while (performance.now() - start < budgetMs);
      const walk = entry.walk;
      if (walk && walk.pos >= walk.ids.length) {
        // A loaded graph may hold records deleted after its snapshot.
        if (walk.sinceSeq >= 0 && entry.batch)
          for (const id of entry.loadedIds) if (!records?.has(id)) entry.batch.remove(id);
        entry.loadedIds = [];
        entry.walk = undefined;
      }
      this.post(entry);
      this.settle(entry);
    } catch (err) {
      this.failed(entry, err as Error);
    }
  }

  /** Posts the entry's batch of graph changes to the worker; the entry is taken up again once it is applied. */
  private post(entry: IndexEntry): void {
    const { remote, batch } = entry;
    if (!remote || !batch || batch.length === 0) return;
    remote.apply(batch).then(
      () => {
        this.settle(entry);
        if (entry.hasWork()) this.enqueue(entry);
        this.settleWaiters();
      },
      (err: Error) => {
        if (this.isCurrent(entry)) this.failed(entry, err);
        this.settleWaiters();
      },
    );
  }

  /** A walk over and every batch applied: the index is ready. */
  private settle(entry: IndexEntry): void {
    if (entry.walk || entry.loading || (entry.remote?.inFlight ?? 0) > 0) return;
    if (entry.state === 'building' || entry.state === 'stale') entry.state = 'ready';
  }

  /** The index cannot be kept: searches scan exactly from now on; `note` says why. */
  failed(entry: IndexEntry, err: Error): void {
    entry.walk = undefined;
    entry.pending.clear();
    entry.dispose();
    entry.index = undefined;
    entry.state = 'failed';
    entry.note = `build failed: ${err.message}`;
  }
}
