/**
 * The state journal: while a checkpoint is held, every change applyBatch
 * makes to DbState first records what it replaces, so the state can be put
 * back to any checkpoint by undoing the changes made since, newest first.
 * The cost of a restore is the number of changes since the checkpoint, not
 * the number of records: a collection dropped meanwhile comes back as the
 * same object, a record as the same frozen entry.
 *
 * A restore also says what changed, as a batch of effects and its change
 * feed, so everything derived from the state (query and unique indexes,
 * search indexes, TTL tracking, compiled functions, connections of a
 * revoked key) follows the way it follows any commit.
 */
import type { Effect } from './effects.js';
import type { RecordChange } from './change-feed.js';
import type {
  ApiKeyRecord,
  CollectionMeta,
  CollectionState,
  DbState,
  KvEntry,
  RecordEntry,
  TrashEntry,
} from './state.js';

/** A collection's counters that record writes move. */
interface Counters {
  readonly lastOrd: number;
  readonly membershipVersion: number;
  readonly changeSeq: number;
  readonly expiringRecords: number;
}

type JournalEntry =
  | {
      readonly kind: 'record';
      readonly collection: string;
      readonly coll: CollectionState;
      readonly id: string;
      readonly before: RecordEntry | undefined;
      readonly counters: Counters;
    }
  /** setCollection: `before` is undefined when it created the collection. */
  | {
      readonly kind: 'collection';
      readonly name: string;
      readonly before: CollectionState | undefined;
      readonly meta: CollectionMeta | undefined;
      readonly changeSeq: number;
    }
  | {
      readonly kind: 'dropCollection';
      readonly name: string;
      readonly coll: CollectionState | undefined;
      readonly trash: Map<string, TrashEntry> | undefined;
    }
  | {
      readonly kind: 'trash';
      readonly collection: string;
      readonly id: string;
      readonly before: TrashEntry | undefined;
      readonly hadMap: boolean;
    }
  | { readonly kind: 'kv'; readonly key: string; readonly before: KvEntry | undefined; readonly links?: Set<string> }
  | {
      readonly kind: 'kvClear';
      readonly kv: Map<string, KvEntry>;
      readonly links: Map<string, Set<string>>;
    }
  | { readonly kind: 'link'; readonly key: string; readonly member: string; readonly had: boolean }
  | { readonly kind: 'apiKey'; readonly id: string; readonly before: ApiKeyRecord | undefined }
  | { readonly kind: 'config'; readonly before: Readonly<Record<string, unknown>> }
  | { readonly kind: 'seq'; readonly seq: number; readonly origin?: string; readonly originSeq?: number };

/** What a restore changed: the effects that lead from the state before it to the state after, and their feed. */
export interface RestoredChanges {
  readonly effects: Effect[];
  readonly changes: RecordChange[];
  readonly schemaChanged: string[];
}

export class StateJournal {
  /** Entries from absolute position `base` on. */
  private entries: JournalEntry[] = [];
  private base = 0;

  /** The absolute position of the next change: a checkpoint is one of these. */
  get position(): number {
    return this.base + this.entries.length;
  }

  /** Forgets the changes before `position` (no checkpoint older than it is held any more). */
  forgetBefore(position: number): void {
    const drop = Math.min(position - this.base, this.entries.length);
    if (drop <= 0) return;
    this.entries = this.entries.slice(drop);
    this.base += drop;
  }

  /** Number of changes held (for health and specs). */
  get size(): number {
    return this.entries.length;
  }

  record(collection: string, coll: CollectionState, id: string): void {
    this.entries.push({
      kind: 'record',
      collection,
      coll,
      id,
      before: coll.records.get(id),
      counters: {
        lastOrd: coll.lastOrd,
        membershipVersion: coll.membershipVersion,
        changeSeq: coll.changeSeq,
        expiringRecords: coll.expiringRecords,
      },
    });
  }

  collection(name: string, before: CollectionState | undefined): void {
    this.entries.push({ kind: 'collection', name, before, meta: before?.meta, changeSeq: before?.changeSeq ?? 0 });
  }

  dropCollection(name: string, coll: CollectionState | undefined, trash: Map<string, TrashEntry> | undefined): void {
    this.entries.push({ kind: 'dropCollection', name, coll, trash });
  }

  trash(collection: string, id: string, map: Map<string, TrashEntry> | undefined): void {
    this.entries.push({ kind: 'trash', collection, id, before: map?.get(id), hadMap: map !== undefined });
  }

  kv(state: DbState, key: string, removesLinks: boolean): void {
    const links = removesLinks ? state.kvLinks.get(key) : undefined;
    this.entries.push({ kind: 'kv', key, before: state.kv.get(key), ...(links ? { links } : {}) });
  }

  kvClear(state: DbState): void {
    this.entries.push({ kind: 'kvClear', kv: new Map(state.kv), links: new Map(state.kvLinks) });
  }

  link(state: DbState, key: string, member: string): void {
    this.entries.push({ kind: 'link', key, member, had: state.kvLinks.get(key)?.has(member) ?? false });
  }

  apiKey(state: DbState, id: string): void {
    this.entries.push({ kind: 'apiKey', id, before: state.keys.get(id) });
  }

  config(state: DbState): void {
    this.entries.push({ kind: 'config', before: state.config });
  }

  seq(state: DbState, origin: string | undefined): void {
    const originSeq = origin === undefined ? undefined : state.rippleSeen.get(origin);
    this.entries.push({
      kind: 'seq',
      seq: state.seq,
      ...(origin !== undefined ? { origin } : {}),
      ...(originSeq !== undefined ? { originSeq } : {}),
    });
  }

  /**
   * Puts `state` back as it was at `position`, then moves its seq to
   * `newSeq` (seqs never go back: listeners and transactions rely on it)
   * and stamps what changed with it. Returns what changed.
   */
  undoTo(state: DbState, position: number, newSeq: number): RestoredChanges {
    if (position < this.base) throw new Error(`journal position ${position} was forgotten (held from ${this.base})`);
    const undone = this.entries.slice(position - this.base);
    const before = Snapshot.of(state, undone);
    for (let i = undone.length - 1; i >= 0; i--) undoEntry(state, undone[i]!);
    this.entries.length = position - this.base;
    state.seq = newSeq;
    return before.diff(state, newSeq);
  }
}

function undoEntry(state: DbState, entry: JournalEntry): void {
  switch (entry.kind) {
    case 'record': {
      const { coll, id, before, counters } = entry;
      coll.noteBeforeWrite(id, before === undefined);
      // Set again after a delete, a record stands in its own slot again (record-table.ts): its place in the order.
      if (before === undefined) coll.records.delete(id);
      else coll.records.set(id, before);
      coll.lastOrd = counters.lastOrd;
      coll.membershipVersion = counters.membershipVersion;
      coll.changeSeq = counters.changeSeq;
      coll.expiringRecords = counters.expiringRecords;
      return;
    }
    case 'collection':
      if (entry.before === undefined) state.collections.delete(entry.name);
      else {
        entry.before.meta = entry.meta!;
        entry.before.changeSeq = entry.changeSeq;
      }
      return;
    case 'dropCollection':
      if (entry.coll) state.collections.set(entry.name, entry.coll);
      if (entry.trash) state.trash.set(entry.name, entry.trash);
      return;
    case 'trash': {
      let map = state.trash.get(entry.collection);
      if (!entry.hadMap) {
        state.trash.delete(entry.collection);
        return;
      }
      if (!map) state.trash.set(entry.collection, (map = new Map()));
      if (entry.before === undefined) map.delete(entry.id);
      else map.set(entry.id, entry.before);
      return;
    }
    case 'kv':
      if (entry.before === undefined) state.kv.delete(entry.key);
      else state.kv.set(entry.key, entry.before);
      if (entry.links) state.kvLinks.set(entry.key, entry.links);
      return;
    case 'kvClear':
      for (const [key, value] of entry.kv) state.kv.set(key, value);
      for (const [key, links] of entry.links) state.kvLinks.set(key, links);
      return;
    case 'link': {
      let links = state.kvLinks.get(entry.key);
      if (entry.had) {
        if (!links) state.kvLinks.set(entry.key, (links = new Set()));
        links.add(entry.member);
      } else {
        links?.delete(entry.member);
        if (links?.size === 0) state.kvLinks.delete(entry.key);
      }
      return;
    }
    case 'apiKey':
      if (entry.before === undefined) state.keys.delete(entry.id);
      else state.keys.set(entry.id, entry.before);
      return;
    case 'config':
      state.config = entry.before;
      return;
    case 'seq':
      state.seq = entry.seq;
      if (entry.origin !== undefined) {
        if (entry.originSeq === undefined) state.rippleSeen.delete(entry.origin);
        else state.rippleSeen.set(entry.origin, entry.originSeq);
      }
      return;
  }
}

/**
 * The parts of the state a restore will touch, as they are before it, so
 * that afterwards the difference can be told as effects and changes.
 */
class Snapshot {
  private constructor(
    /** Each touched collection's object and its meta before the restore. */
    private readonly collections: Map<string, { coll?: CollectionState; meta?: CollectionMeta }>,
    /** collection name -> id -> the record's entry before the restore. */
    private readonly records: Map<string, Map<string, RecordEntry | undefined>>,
    private readonly kv: Map<string, KvEntry | undefined>,
    private readonly links: Map<string, ReadonlySet<string>>,
    private readonly keys: Map<string, ApiKeyRecord | undefined>,
    private readonly config: Readonly<Record<string, unknown>> | undefined,
  ) {}

  static of(state: DbState, undone: readonly JournalEntry[]): Snapshot {
    const collections = new Map<string, { coll?: CollectionState; meta?: CollectionMeta }>();
    const records = new Map<string, Map<string, RecordEntry | undefined>>();
    const kv = new Map<string, KvEntry | undefined>();
    const links = new Map<string, ReadonlySet<string>>();
    const keys = new Map<string, ApiKeyRecord | undefined>();
    let config: Readonly<Record<string, unknown>> | undefined;
    const noteKv = (key: string) => {
      if (kv.has(key)) return;
      kv.set(key, state.kv.get(key));
      links.set(key, new Set(state.kvLinks.get(key)));
    };
    for (const entry of undone) {
      switch (entry.kind) {
        case 'record': {
          let ids = records.get(entry.collection);
          if (!ids) records.set(entry.collection, (ids = new Map()));
          if (!ids.has(entry.id)) ids.set(entry.id, state.collections.get(entry.collection)?.records.get(entry.id));
          break;
        }
        case 'collection':
        case 'dropCollection':
          if (!collections.has(entry.name)) {
            const coll = state.collections.get(entry.name);
            collections.set(entry.name, coll ? { coll, meta: coll.meta } : {});
          }
          break;
        case 'kv':
        case 'link':
          noteKv(entry.key);
          break;
        case 'kvClear':
          for (const key of entry.kv.keys()) noteKv(key);
          for (const key of entry.links.keys()) noteKv(key);
          break;
        case 'apiKey':
          if (!keys.has(entry.id)) keys.set(entry.id, state.keys.get(entry.id));
          break;
        case 'config':
          config ??= state.config;
          break;
        default:
          break;
      }
    }
    return new Snapshot(collections, records, kv, links, keys, config);
  }

  /** The effects and changes that lead from this snapshot to `state`. */
  diff(state: DbState, seq: number): RestoredChanges {
    const effects: Effect[] = [];
    const changes: RecordChange[] = [];
    const schemaChanged: string[] = [];
    const wholesale = new Set<string>();
    for (const [name, { coll: was, meta: wasMeta }] of this.collections) {
      const now = state.collections.get(name);
      if (was === now) {
        if (now && now.meta !== wasMeta) {
          effects.push({ kind: 'setCollectionMeta', meta: now.meta });
          schemaChanged.push(name);
        }
        continue;
      }
      // Replaced whole: derived structures drop what they had of it and take the restored collection as new.
      wholesale.add(name);
      if (was) {
        effects.push({ kind: 'dropCollection', name });
        // Every record of a collection made after the checkpoint was written since, so the journal touched it.
        for (const [id, entry] of this.records.get(name) ?? [])
          if (entry) changes.push({ collection: name, event: 'delete', id, before: entry.fields });
      }
      if (now) {
        effects.push({ kind: 'createCollection', meta: now.meta });
        schemaChanged.push(name);
        for (const [id, entry] of now.records) {
          effects.push(putOf(name, id, entry));
          changes.push({ collection: name, event: 'insert', id, fields: entry.fields });
        }
        now.changeSeq = now.membershipVersion = seq;
      }
    }
    for (const [name, ids] of this.records) {
      if (wholesale.has(name)) continue;
      const coll = state.collections.get(name);
      if (coll) coll.changeSeq = coll.membershipVersion = seq;
      for (const [id, was] of ids) {
        const now = coll?.records.get(id);
        if (was === now) continue;
        if (now === undefined) {
          if (coll && was) {
            effects.push({ kind: 'delete', collection: name, id });
            changes.push({ collection: name, event: 'delete', id, before: was.fields });
          }
        } else {
          effects.push(putOf(name, id, now));
          changes.push({
            collection: name,
            event: was ? 'update' : 'insert',
            id,
            fields: now.fields,
            ...(was ? { before: was.fields } : {}),
          });
        }
      }
    }
    for (const [key, was] of this.kv) {
      const now = state.kv.get(key);
      let wasLinks = this.links.get(key) ?? new Set<string>();
      if (now !== was) {
        if (now === undefined) {
          effects.push({ kind: 'kvDelete', key });
          // Applied, a kvDelete drops the key's links too: the links to keep are linked again below.
          wasLinks = new Set<string>();
        } else
          effects.push({
            kind: 'kvSet',
            key,
            value: now.value,
            ...(now.expiresAt !== undefined ? { expiresAt: now.expiresAt } : {}),
          });
      }
      const nowLinks = state.kvLinks.get(key) ?? new Set<string>();
      for (const member of nowLinks) if (!wasLinks.has(member)) effects.push(linkOf('kvLink', key, member));
      for (const member of wasLinks) if (!nowLinks.has(member)) effects.push(linkOf('kvUnlink', key, member));
    }
    for (const [id, was] of this.keys) {
      const now = state.keys.get(id);
      if (now === was) continue;
      effects.push(now ? { kind: 'keyPut', key: now } : { kind: 'keyDelete', id });
    }
    if (this.config !== undefined && this.config !== state.config)
      effects.push({ kind: 'config', values: state.config });
    return { effects, changes, schemaChanged };
  }
}

function putOf(collection: string, id: string, entry: RecordEntry): Effect {
  return {
    kind: 'put',
    collection,
    id,
    fields: entry.fields,
    ...(entry.expiresAt !== undefined ? { expiresAt: entry.expiresAt } : {}),
    ...(entry.slidingMs !== undefined ? { slidingMs: entry.slidingMs } : {}),
  };
}

function linkOf(kind: 'kvLink' | 'kvUnlink', key: string, member: string): Effect {
  const split = member.indexOf('\u0000');
  return { kind, key, collection: member.slice(0, split), id: member.slice(split + 1) };
}
