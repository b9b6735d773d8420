/**
 * The engine's change subscriptions: a caller subscribes to one collection
 * (optionally filtered by a field's value) and is told of every committed
 * change to it. Each committed batch becomes at most one mutation notice per
 * collection and event kind: `{collection, event, record_ids, records,
 * timestamp}`, where `records` is the record for a single change and an
 * array for a batch, and one schema notice per collection whose schema or
 * key alias changed. Nothing is told of staged or rolled-back work, because
 * only committed batches reach the commit listeners.
 *
 * Listeners run inside the commit listener, so they must only hand the
 * notice on (the transports queue it for their stream).
 */
import { randomBytes } from 'node:crypto';
import type { CommitInfo, RecordChange } from './change-feed.js';
import type { DbState } from './state.js';
import { recordToWire } from '../values/index.js';
import type { LoggedBatch } from './effects.js';

export interface MutationNotice {
  collection: string;
  event: string;
  record_ids: string[];
  records: unknown;
  timestamp: string;
}

export interface SchemaNotice {
  collection: string;
  version: number;
  primary_key_alias: string;
}

export interface ChangeListener {
  mutation(notice: MutationNotice): void;
  schema(notice: SchemaNotice): void;
  /** The notifier ended the subscription (`endAll`): the stream should end. */
  ended?(): void;
}

/** Only changes whose record has `field` equal to `value` (compared as text, typed wrappers unwrapped). */
export interface ChangeFilter {
  readonly field: string;
  readonly value: string;
}

/** An open subscription; `close` stops its notices (idempotent). */
export interface ChangeSubscription {
  readonly id: string;
  close(): void;
}

/** What the notifier needs of the database: the commit feed, the clock, the output setting and the schemas. */
export interface ChangeSource {
  onCommit(listener: (batch: LoggedBatch, info: CommitInfo) => void): void;
  now(): number;
  settings(): { readonly use_typed_values: boolean };
  readonly state: DbState;
}

interface Subscriber {
  readonly collection: string;
  readonly filter: ChangeFilter | undefined;
  readonly listener: ChangeListener;
}

export class ChangeNotifier {
  private readonly byCollection = new Map<string, Set<Subscriber>>();

  constructor(private readonly db: ChangeSource) {
    db.onCommit((_b, info) => this.publish(info));
  }

  subscribe(collection: string, filter: ChangeFilter | undefined, listener: ChangeListener): ChangeSubscription {
    const subscriber: Subscriber = { collection, filter, listener };
    let set = this.byCollection.get(collection);
    if (!set) this.byCollection.set(collection, (set = new Set()));
    set.add(subscriber);
    return { id: `sub_${randomBytes(16).toString('hex')}`, close: () => this.remove(subscriber) };
  }

  /** Open subscriptions (for tests and health). */
  count(): number {
    let count = 0;
    for (const subscribers of this.byCollection.values()) count += subscribers.size;
    return count;
  }

  /** Ends every subscription (a checkpoint restored: what they watched is gone); returns how many. */
  endAll(): number {
    const subscribers = [...this.byCollection.values()].flatMap((set) => [...set]);
    this.byCollection.clear();
    for (const subscriber of subscribers) subscriber.listener.ended?.();
    return subscribers.length;
  }

  private remove(subscriber: Subscriber): void {
    const set = this.byCollection.get(subscriber.collection);
    set?.delete(subscriber);
    if (set?.size === 0) this.byCollection.delete(subscriber.collection);
  }

  private publish(info: CommitInfo): void {
    if (this.byCollection.size === 0) return;
    const typed = this.db.settings().use_typed_values;
    const timestamp = new Date(this.db.now()).toISOString().replace('Z', '+00:00');
    const groups = new Map<string, RecordChange[]>();
    for (const ch of info.changes) {
      if (!this.byCollection.has(ch.collection)) continue;
      const key = `${ch.collection}\u0000${ch.event}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(ch);
    }
    const notice = (mine: RecordChange[]): MutationNotice => {
      const records = mine.map((c) => (c.fields ? recordToWire(c.fields, { typed }) : { id: c.id }));
      return {
        collection: mine[0]!.collection,
        event: mine[0]!.event,
        record_ids: mine.map((c) => c.id),
        records: records.length === 1 ? records[0] : records,
        timestamp,
      };
    };
    for (const changes of groups.values()) {
      const subs = this.byCollection.get(changes[0]!.collection)!;
      // Unfiltered subscribers share one notice object (transports may serialise it once).
      let shared: MutationNotice | undefined;
      for (const subscriber of subs) {
        if (subscriber.filter === undefined) {
          subscriber.listener.mutation((shared ??= notice(changes)));
          continue;
        }
        const mine = changes.filter((c) => matches(c, subscriber.filter!));
        if (mine.length > 0) subscriber.listener.mutation(notice(mine));
      }
    }
    for (const collection of info.schemaChanged) {
      const meta = this.db.state.collections.get(collection)?.meta;
      const schemaNotice = {
        collection,
        version: meta?.schema?.version ?? 1,
        primary_key_alias: meta?.schema?.primary_key_alias ?? 'id',
      };
      for (const subscriber of this.byCollection.get(collection) ?? []) subscriber.listener.schema(schemaNotice);
    }
  }
}

function matches(change: RecordChange, filter: ChangeFilter): boolean {
  if (!change.fields) return false;
  const value = change.fields[filter.field];
  if (value === undefined) return false;
  const bare =
    value !== null && typeof value === 'object' && 'value' in value ? (value as { value: unknown }).value : value;
  return String(bare) === filter.value;
}
