/**
 * The in-memory database state that effects are applied to.
 *
 * Records are frozen objects; a collection keeps them in a RecordTable
 * (record-table.ts: a hash index from id to slot, the fields and versions in
 * arrays by slot; O(1) writes, little memory per record). Entries carry the version stamp
 * (the log seq of the write that produced them) used by optimistic
 * transactions, and the collection carries a membership version that moves on
 * every insert and delete (kept in snapshots; Serializable checks the
 * predicates of its reads, see transactions/read-predicates.ts).
 */
import type { Fields, Value } from '../values/index.js';
import type { Schema } from '../schema/index.js';
import { RecordTable, type RecordEntry } from './table/index.js';

export type { RecordEntry };

/**
 * The map key for record `id`: the record's own `fields.id` string when it is
 * equal, so the key and the field share one string (a decoded log batch or
 * snapshot row carries two equal copies).
 */
export function recordKey(id: string, fields: Fields): string {
  const own = fields.id;
  return own === id ? own : id;
}

export interface QueryIndexDef {
  readonly field: string;
  readonly type: 'btree' | 'hash';
}

export interface CollectionMeta {
  readonly name: string;
  readonly createdAt: string;
  readonly schema?: Schema;
  /** Query indexes created through the admin routes (schema-declared ones live in the schema). */
  readonly indexes?: readonly QueryIndexDef[];
}

export class CollectionState {
  /** The records, by id, walked in insertion order (record-table.ts). */
  readonly records = new RecordTable();
  /** Moves on every insert and delete. */
  membershipVersion = 0;
  /**
   * Seq of the last batch that created this collection, changed its meta or
   * wrote one of its records (0 for what recovery loaded). Not persisted: it
   * tells an open transaction whether its cached view of the collection still
   * holds (see transactions/cached-view.ts).
   */
  changeSeq = 0;
  /**
   * Readers that see the collection as it was when they opened (a snapshot
   * being written, a query scanning in slices): each keeps the pre-image of
   * every id written since, so none of them copies the records.
   */
  private readers: Set<UndoLog> | undefined;
  /** Last insertion ordinal handed out: the slot of the newest record. */
  lastOrd = 0;
  /** Records that carry a TTL: while none does, the live count is the map's size. */
  expiringRecords = 0;
  constructor(public meta: CollectionMeta) {}

  /** Call before changing `records.get(id)`; `removing` when the write deletes it. */
  noteBeforeWrite(id: string, removing = false): void {
    const readers = this.readers;
    if (readers === undefined) return;
    const current = this.records.get(id);
    for (const reader of readers) reader.note(id, current, removing);
  }

  /** Opens a point-in-time reader of this collection; close it with `closeReader`. */
  openReader(): UndoLog {
    const log = new UndoLog(this.lastOrd);
    (this.readers ??= new Set()).add(log);
    return log;
  }

  closeReader(log: UndoLog): void {
    this.readers?.delete(log);
    if (this.readers?.size === 0) this.readers = undefined;
  }

  /** The records in insertion order. */
  inOrder(): IterableIterator<[string, RecordEntry]> {
    return this.records.entries();
  }

  /**
   * Renumbers the records densely once their table holds more empty slots
   * than records (a delete leaves one), unless something holds ords: an open
   * reader, a walk of the table, or `journalHeld` (a checkpoint's journal,
   * which sets records back in their slots).
   */
  compactIfDue(journalHeld: boolean): void {
    if (journalHeld || this.readers !== undefined || !this.records.compactionDue) return;
    this.lastOrd = this.records.compact();
  }
}

/**
 * What one point-in-time reader needs to see a collection as it was when
 * it opened: the pre-image of each id written since (null: it did not
 * exist then), and the ids whose pre-open record has gone (deleted, perhaps
 * inserted again as a new record), in the order they went, and by the slot
 * they stood in. Entries made after the open have ords above `openOrd`
 * (ords grow with insertion; only a checkpoint restore hands out an ord
 * again, to a record the pre-images mark as new), so a record put under an
 * id just made for it needs no pre-image (apply-batch.ts does not note it).
 */
export class UndoLog {
  readonly before = new Map<string, RecordEntry | null>();
  readonly gone: string[] = [];
  /** The ids in `gone` by the ord they stood at. */
  private goneBySlot: Map<number, string[]> | undefined;

  constructor(readonly openOrd: number) {}

  note(id: string, current: RecordEntry | undefined, removing: boolean): void {
    // A record newer than the open (its ord above openOrd) was not there then, whatever it holds now.
    if (!this.before.has(id))
      this.before.set(id, current !== undefined && (current.ord ?? 0) <= this.openOrd ? current : null);
    if (removing && current !== undefined && (current.ord ?? 0) <= this.openOrd) {
      this.gone.push(id);
      const ord = current.ord ?? 0;
      const ids = (this.goneBySlot ??= new Map()).get(ord);
      if (ids) ids.push(id);
      else this.goneBySlot.set(ord, [id]);
    }
  }

  /** The ids of the records gone from slot `ord` since the open (most often none). */
  goneAt(ord: number): readonly string[] | undefined {
    return this.goneBySlot?.get(ord);
  }

  /** The entry of `id` as it was at the open, from the live records `records`. */
  entryAt(records: ReadonlyMap<string, RecordEntry>, id: string): RecordEntry | undefined {
    const before = this.before.get(id);
    if (before !== undefined) return before ?? undefined;
    const live = records.get(id);
    return live !== undefined && (live.ord ?? 0) <= this.openOrd ? live : undefined;
  }
}

export interface TrashEntry {
  readonly entry: RecordEntry;
  readonly deletedAt: number;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  /** hex SHA-256 of the secret; the secret itself is never stored. */
  readonly hash: string;
  readonly admin: boolean;
  /** Per collection: allowed operations and writable fields. Absent means every collection. */
  readonly collection_permissions?: Readonly<Record<string, CollectionPermission>>;
  /** Key-value store grant. A key with neither this nor collection_permissions may use the whole store. */
  readonly kv_permissions?: KvPermission;
  /** Requests per window; undefined uses the global setting. */
  readonly rate_limit?: number;
  readonly created_at: string;
}

export interface CollectionPermission {
  readonly read: boolean;
  readonly write: boolean;
  /** When present, the only fields this key may write in the collection. */
  readonly writable_fields?: readonly string[];
}

export interface KvPermission {
  readonly read: boolean;
  readonly write: boolean;
  /** When present, the key may touch only KV keys starting with one of these. */
  readonly prefixes?: readonly string[];
}

export interface KvEntry {
  readonly value: Value;
  /** Absolute expiry in epoch ms. */
  readonly expiresAt?: number;
}

export class DbState {
  readonly collections = new Map<string, CollectionState>();
  readonly trash = new Map<string, Map<string, TrashEntry>>();
  readonly keys = new Map<string, ApiKeyRecord>();
  /** Settings changed at run time through PUT /api/config. */
  config: Readonly<Record<string, unknown>> = {};
  /** Seq of the last applied batch. */
  seq = 0;
  /** The key-value store. */
  readonly kv = new Map<string, KvEntry>();
  /** KV key -> linked records, as `collection\u0000id`. */
  readonly kvLinks = new Map<string, Set<string>>();
  /** Replication: the newest origin seq applied from each origin node (dedupe). */
  readonly rippleSeen = new Map<string, number>();
}
