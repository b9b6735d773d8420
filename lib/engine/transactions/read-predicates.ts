/**
 * The predicates a Serializable transaction read through, and their check at
 * commit. A find records (collection, filter); a search, an unfiltered find
 * or a join target records the whole collection. Each predicate keeps the
 * committed seq it was evaluated against. At commit, a record change
 * committed after that seq whose image before or after the change matches
 * the predicate (inserts: after; deletes: before; updates: either) means the
 * read would now answer differently: a conflict. The filter is evaluated by
 * the query's own matcher; sort, skip and limit are ignored (conservative).
 */
import { matchFilter, type Filter } from '../query/index.js';
import type { WorkingView } from '../write/working-view.js';
import type { Fields } from '../values/index.js';
import type { ChangeHistory } from './change-history.js';

export interface ReadPredicate {
  readonly collection: string;
  /** Undefined: the whole collection. */
  readonly filter?: Filter;
  /** Committed seq the read was evaluated against. */
  readonly seq: number;
}

/** One entry of a 409 conflict list. */
export interface TxConflict {
  collection: string;
  id?: string;
  reason: string;
}

/** Past this many distinct predicates on one collection they collapse into one whole-collection read. */
export const MAX_PREDICATES_PER_COLLECTION = 32;

const REASON_MATCH =
  'a record changed by another transaction since this transaction read the collection matches a query it made';
const REASON_WHOLE = 'a collection this transaction searched or read in full changed since it read it';
const REASON_DROPPED = 'a collection this transaction queried was dropped since it read it';

/** A transaction's predicate reads: bounded per collection, oldest first. */
export class ReadPredicates {
  private readonly list: ReadPredicate[] = [];

  get size(): number {
    return this.list.length;
  }

  /** Seq of the oldest read, which the change history must still cover (undefined when none). */
  get oldestSeq(): number | undefined {
    let min: number | undefined;
    for (const predicate of this.list) if (min === undefined || predicate.seq < min) min = predicate.seq;
    return min;
  }

  [Symbol.iterator](): IterableIterator<ReadPredicate> {
    return this.list[Symbol.iterator]();
  }

  /**
   * Records a read. Skips one an earlier predicate already covers (a
   * whole-collection read, or the same parsed filter); past
   * MAX_PREDICATES_PER_COLLECTION the collection's predicates become one
   * whole-collection predicate at their oldest seq, which conflicts on a
   * superset of what they would.
   */
  add(predicate: ReadPredicate): void {
    let onCollection = 0,
      oldest = predicate.seq;
    for (const held of this.list) {
      if (held.collection !== predicate.collection) continue;
      if (!held.filter || held.filter === predicate.filter) return;
      onCollection += 1;
      oldest = Math.min(oldest, held.seq);
    }
    if (onCollection < MAX_PREDICATES_PER_COLLECTION) {
      this.list.push(predicate);
      return;
    }
    const others = this.list.filter((q) => q.collection !== predicate.collection);
    this.list.length = 0;
    this.list.push(...others, { collection: predicate.collection, seq: oldest });
  }
}

/**
 * The first conflict of each predicate: a change committed after its seq
 * (from `history`) or staged earlier in the current writer group (from
 * `view`) that matches it, a drop of its collection, or a history that no
 * longer reaches back to its seq (bound exceeded). Empty when none.
 */
export function predicateConflicts(
  predicates: ReadPredicates,
  history: ChangeHistory,
  view: WorkingView,
): TxConflict[] {
  const out: TxConflict[] = [];
  for (const predicate of predicates) {
    const conflict = firstConflict(predicate, history, view);
    if (conflict && !out.some((x) => x.collection === conflict.collection && x.id === conflict.id)) out.push(conflict);
  }
  return out;
}

function firstConflict(predicate: ReadPredicate, history: ChangeHistory, view: WorkingView): TxConflict | undefined {
  const collection = predicate.collection;
  if (!history.covers(predicate.seq)) {
    return {
      collection,
      reason:
        `more than ${history.limit} changes were committed while this transaction was open, beyond the change ` +
        `history Serializable checks its queries against`,
    };
  }
  const matches = (fields: Fields | undefined) =>
    fields !== undefined && (!predicate.filter || matchFilter(predicate.filter, fields));
  const reason = predicate.filter ? REASON_MATCH : REASON_WHOLE;
  for (const ch of history.changesAfter(collection, predicate.seq)) {
    if (ch.dropped) return { collection, reason: REASON_DROPPED };
    if (matches(ch.before) || matches(ch.after)) return { collection, id: ch.id, reason };
  }
  // Commits earlier in this writer group are staged in the view, not yet in the history.
  if (view.droppedHere(collection)) return { collection, reason: REASON_DROPPED };
  for (const [id, fields] of view.changedImages(collection)) if (matches(fields)) return { collection, id, reason };
  return undefined;
}
