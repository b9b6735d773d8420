/**
 * Fans committed changes out to subscribers (WebSocket and SSE). Each
 * committed batch becomes at most one MutationNotification per collection
 * and event kind: `{collection, event, record_ids, records, timestamp}`,
 * where `records` is the record for a single change and an array for a
 * batch. Nothing is sent for staged or rolled-back work, because only
 * committed batches reach the feed.
 */
import { randomBytes } from 'node:crypto';
import { recordToWire, type CommitInfo, type Database, type RecordChange } from '../engine/index.js';

export interface MutationPayload {
  collection: string;
  event: string;
  record_ids: string[];
  records: unknown;
  timestamp: string;
}

export interface SchemaPayload { collection: string; version: number; primary_key_alias: string }

export interface Subscriber {
  readonly id: string;
  readonly collection: string;
  readonly filterField?: string;
  readonly filterValue?: string;
  mutation(p: MutationPayload): void;
  schema(p: SchemaPayload): void;
}

export class Notifier {
  private readonly byCollection = new Map<string, Set<Subscriber>>();

  constructor(private readonly db: Database) {
    db.onCommit((_b, info) => this.publish(info));
  }

  static newId(): string {
    return `sub_${randomBytes(16).toString('hex')}`;
  }

  add(s: Subscriber): void {
    let set = this.byCollection.get(s.collection);
    if (!set) this.byCollection.set(s.collection, (set = new Set()));
    set.add(s);
  }

  remove(s: Subscriber): boolean {
    const set = this.byCollection.get(s.collection);
    const had = set?.delete(s) ?? false;
    if (set?.size === 0) this.byCollection.delete(s.collection);
    return had;
  }

  count(): number {
    let n = 0;
    for (const s of this.byCollection.values()) n += s.size;
    return n;
  }

  private publish(info: CommitInfo): void {
    if (this.byCollection.size === 0) return;
    const typed = this.db.settings().use_typed_values;
    const timestamp = new Date(this.db.now()).toISOString().replace('Z', '+00:00');
    const groups = new Map<string, RecordChange[]>();
    for (const ch of info.changes) {
      if (!this.byCollection.has(ch.collection)) continue;
      const key = `${ch.collection}\u0000${ch.event}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(ch);
    }
    const payload = (mine: RecordChange[]): MutationPayload => {
      const records = mine.map((c) => (c.fields ? recordToWire(c.fields, { typed }) : { id: c.id }));
      return { collection: mine[0]!.collection, event: mine[0]!.event, record_ids: mine.map((c) => c.id), records: records.length === 1 ? records[0] : records, timestamp };
    };
    for (const changes of groups.values()) {
      const subs = this.byCollection.get(changes[0]!.collection)!;
      // Unfiltered subscribers share one payload object (transports may serialise it once).
      let shared: MutationPayload | undefined;
      for (const s of subs) {
        if (s.filterField === undefined) { s.mutation(shared ??= payload(changes)); continue; }
        const mine = changes.filter((c) => matches(c, s));
        if (mine.length > 0) s.mutation(payload(mine));
      }
    }
    for (const c of info.schemaChanged) {
      const meta = this.db.state.collections.get(c)?.meta;
      const payload = { collection: c, version: meta?.schema?.version ?? 1, primary_key_alias: meta?.schema?.primary_key_alias ?? 'id' };
      for (const s of this.byCollection.get(c) ?? []) s.schema(payload);
    }
  }
}

function matches(c: RecordChange, s: Subscriber): boolean {
  if (!c.fields) return false;
  const v = c.fields[s.filterField!];
  if (v === undefined) return false;
  const bare = v !== null && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
  return String(bare) === s.filterValue;
}
