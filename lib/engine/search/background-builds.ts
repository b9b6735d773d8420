/**
 * Applies pending changes and runs index walks (builds and catch-ups, see
 * index-entry.ts) in the background: one entry at a time, pending changes
 * first, in slices of at most `sliceMs` of work,
 * each slice in its own event-loop turn (setImmediate), so requests are
 * served between slices; a slice holds a few HNSW inserts.
 *
 * Chosen over a worker thread that builds with hnswlib and hands back the
 * serialized graph: slices need no second copy of the vectors, no file
 * handoff, and no catch-up of the writes made during a long build in
 * another thread; they cost the main core the same CPU, spread thinly.
 */
import { Unavailable } from '../../errors.js';
import { HnswIndex } from '../../vector/index.js';
import type { RecordEntry } from '../write/state.js';
import { resuming } from '../time/slices.js';
import type { IndexEntry } from './index-entry.js';

/** Default work per slice: well under the 20 ms a request may wait for the event loop. */
export const DEFAULT_SLICE_MS = 10;

export class BackgroundBuilds {
  private readonly queue: IndexEntry[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;
  /** Searches waiting for an entry's walk to end (SearchIndexes.textReady). */
  private waiters: Array<{ entry: IndexEntry; resolve: () => void; reject: (err: Error) => void }> = [];

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
   * Resolves once `entry`'s walk is over (built, caught up, or failed), or it
   * is no longer the registered entry; moves it first in line meanwhile.
   * Rejects with Unavailable once the builds are stopped (the server closes).
   */
  walked(entry: IndexEntry): Promise<void> {
    if (this.stopped) return Promise.reject(new Unavailable('the server is closing'));
    if (!this.isCurrent(entry) || (!entry.walk && !entry.loading)) return Promise.resolve();
    const at = this.queue.indexOf(entry);
    if (at > 0) this.queue.splice(at, 1);
    if (at !== 0 && !entry.loading) this.queue.unshift(entry);
    return new Promise((resolve, reject) => {
      this.waiters.push({ entry, resolve, reject });
      this.schedule();
    });
  }

  /** Settles the waiters whose entry's walk is over or which was replaced. */
  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => {
      const over = !this.isCurrent(waiter.entry) || (!waiter.entry.walk && !waiter.entry.loading);
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
    if (!this.isCurrent(entry) || !entry.hasWork() || entry.loading) {
      this.queue.shift(); // a loaded index is queued again once its file is read
      return;
    }
    this.work(entry, this.sliceMs);
    if (!entry.hasWork()) this.queue.shift();
  }

  /**
   * Applies pending changes, then walks, for up to `budgetMs` (at least one step); ends the walk when it reaches the
   * end.
   */
  private work(entry: IndexEntry, budgetMs: number): void {
    const records = this.recordsOf(entry.collection);
    const start = performance.now();
    try {
      do {
        if (entry.applyOnePending()) continue;
        const walk = entry.walk;
        if (!walk || walk.pos >= walk.ids.length) break;
        const id = walk.ids[walk.pos++]!;
        entry.walkStep(id, records?.get(id));
      } while (performance.now() - start < budgetMs);
      const walk = entry.walk;
      if (!walk || walk.pos < walk.ids.length) return;
      // A loaded graph may hold records deleted after its snapshot.
      if (walk.sinceSeq >= 0 && entry.index instanceof HnswIndex) {
        const gone = [...entry.index.ids()].filter((id) => !records?.has(id));
        for (const id of gone) entry.index.remove(id);
      }
      entry.walk = undefined;
      entry.state = 'ready';
    } catch (err) {
      entry.walk = undefined;
      entry.pending.clear();
      entry.index = undefined;
      entry.state = 'failed';
      entry.note = `build failed: ${(err as Error).message}`;
    }
  }
}
