/**
 * The recent committed record changes that Serializable commits check their
 * predicate reads against: for each change, its seq and the record images
 * before and after it (references to the frozen records, never copies).
 *
 * Fed by the commit listener, and only while a Serializable transaction with
 * predicate reads is open (start/stop); trimmed to what the oldest such read
 * still needs. Bounded: past `limit` changes the oldest batches are dropped,
 * and a read older than them can no longer be validated (covers() is false,
 * so that commit fails with a retryable 409 instead of passing unchecked).
 */
import assert from 'node:assert';
import type { Effect, LoggedBatch } from '../write/effects.js';
import type { CommitInfo } from '../write/change-feed.js';
import type { Fields } from '../values/index.js';

/** One committed change of one record, or the drop of the whole collection. */
export interface HistoryChange {
  readonly seq: number;
  /** The record id ('' when `dropped`). */
  readonly id: string;
  /** The record before the change (absent for inserts). */
  readonly before?: Fields | undefined;
  /** The record after the change (absent for deletes). */
  readonly after?: Fields | undefined;
  /** The collection was dropped: every record in it changed. */
  readonly dropped?: true;
}

/** Default bound on the changes kept (about 60 bytes each, plus the records they pin). */
export const DEFAULT_HISTORY_LIMIT = 100_000;

export class ChangeHistory {
  private readonly byCollection = new Map<string, { changes: HistoryChange[]; head: number }>();
  /** Batches in seq order with their change counts, for trimming the oldest first. */
  private batches: Array<{ seq: number; size: number }> = [];
  private batchHead = 0;
  private total = 0;
  private isRecording = false;
  /** Every change with a seq above this one is held. */
  private completeAfter = 0;

  constructor(readonly limit = DEFAULT_HISTORY_LIMIT) {
    assert(limit >= 1, 'the change history must be able to hold at least one change');
  }

  get recording(): boolean {
    return this.isRecording;
  }

  /** Number of changes held. */
  get size(): number {
    return this.total;
  }

  /** Starts recording the changes committed after `seq` (no-op while recording). */
  start(seq: number): void {
    if (this.isRecording) return;
    this.isRecording = true;
    this.completeAfter = seq;
  }

  /** Stops recording and forgets everything. */
  stop(): void {
    this.isRecording = false;
    this.byCollection.clear();
    this.batches = [];
    this.batchHead = 0;
    this.total = 0;
  }

  /** True when every change committed after `seq` is held, so a read at `seq` can be validated. */
  covers(seq: number): boolean {
    return this.isRecording && seq >= this.completeAfter;
  }

  /** Commit listener: records the batch's record changes and collection drops, then enforces the bound. */
  follow(batch: LoggedBatch, info: CommitInfo): void {
    if (!this.isRecording) return;
    let size = 0;
    for (const ch of info.changes) {
      this.push(ch.collection, { seq: batch.seq, id: ch.id, before: ch.before, after: ch.fields });
      size += 1;
    }
    for (const effect of batch.effects as Effect[]) {
      if (effect.kind !== 'dropCollection') continue;
      this.push(effect.name, { seq: batch.seq, id: '', dropped: true });
      size += 1;
    }
    if (size === 0) return;
    this.batches.push({ seq: batch.seq, size });
    this.total += size;
    if (this.total > this.limit) this.dropOldest();
  }

  /** Forgets the changes at or below `seq`: no open read needs them. */
  trimThrough(seq: number): void {
    if (seq > this.completeAfter) this.completeAfter = seq;
    while (this.batchHead < this.batches.length && this.batches[this.batchHead]!.seq <= seq) {
      this.total -= this.batches[this.batchHead]!.size;
      this.batchHead += 1;
    }
    this.compactBatches();
    for (const [collection, list] of this.byCollection) {
      while (list.head < list.changes.length && list.changes[list.head]!.seq <= seq) list.head += 1;
      if (list.head === list.changes.length) this.byCollection.delete(collection);
      else if (list.head > 64 && list.head * 2 > list.changes.length) {
        list.changes = list.changes.slice(list.head);
        list.head = 0;
      }
    }
  }

  /**
   * The held changes of collection `collection` committed after `seq`, oldest first.
   * REQUIRES: covers(seq), or the answer may be missing changes.
   */
  *changesAfter(collection: string, seq: number): IterableIterator<HistoryChange> {
    const list = this.byCollection.get(collection);
    if (!list) return;
    let lo = list.head,
      hi = list.changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list.changes[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < list.changes.length; i++) yield list.changes[i]!;
  }

  private push(collection: string, change: HistoryChange): void {
    let list = this.byCollection.get(collection);
    if (!list) this.byCollection.set(collection, (list = { changes: [], head: 0 }));
    list.changes.push(change);
  }

  /** Drops whole batches, oldest first, until the bound holds; reads before them become unverifiable. */
  private dropOldest(): void {
    let cut = this.completeAfter;
    let total = this.total;
    for (let i = this.batchHead; i < this.batches.length && total > this.limit; i++) {
      total -= this.batches[i]!.size;
      cut = this.batches[i]!.seq;
    }
    this.completeAfter = cut;
    this.trimThrough(cut);
  }

  private compactBatches(): void {
    if (this.batchHead > 64 && this.batchHead * 2 > this.batches.length) {
      this.batches = this.batches.slice(this.batchHead);
      this.batchHead = 0;
    }
  }
}
