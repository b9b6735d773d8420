/**
 * applyBatch: the one function that changes DbState. Live writes (after the
 * log append is durable) and recovery replay both call it, so what is
 * replayed is exactly what was served. No I/O, no clock, no randomness.
 *
 * What each effect means is applyEffect's (apply-effect.ts); this file only
 * says how DbState stores it: version stamps, insertion order, the
 * membership and change seqs of a collection, and the snapshot's undo log.
 */
import assert from 'node:assert';
import { applyEffect, type EffectTarget, type RecordImage } from './apply-effect.js';
import type { StateJournal } from './journal.js';
import {
  CollectionState,
  recordKey,
  type ApiKeyRecord,
  type CollectionMeta,
  type DbState,
  type KvEntry,
  type RecordEntry,
  type TrashEntry,
} from './state.js';
import type { LoggedBatch } from './effects.js';

/** Applies `batch`; with a `journal`, each change first records what it replaces (see journal.ts). */
export function applyBatch(state: DbState, batch: LoggedBatch, journal?: StateJournal): void {
  if (batch.seq <= state.seq) assert.fail(`batch seq ${batch.seq} must follow state seq ${state.seq}`);
  journal?.seq(state, batch.origin);
  const target = new StateTarget(state, batch.seq, journal);
  for (const effect of batch.effects) applyEffect(target, effect);
  if (batch.origin !== undefined && batch.originSeq !== undefined) state.rippleSeen.set(batch.origin, batch.originSeq);
  state.seq = batch.seq;
}

/** DbState as the target of the effects of batch `seq`. */
class StateTarget implements EffectTarget {
  constructor(
    private readonly state: DbState,
    private readonly seq: number,
    private readonly journal: StateJournal | undefined,
  ) {}

  collection(name: string): CollectionMeta | undefined {
    return this.state.collections.get(name)?.meta;
  }
  record(collection: string, id: string): RecordEntry | undefined {
    return this.state.collections.get(collection)?.records.get(id);
  }
  trashed(collection: string, id: string): TrashEntry | undefined {
    return this.state.trash.get(collection)?.get(id);
  }
  config(): Readonly<Record<string, unknown>> {
    return this.state.config;
  }

  setCollection(meta: CollectionMeta): void {
    let coll = this.state.collections.get(meta.name);
    this.journal?.collection(meta.name, coll);
    if (coll) coll.meta = meta;
    else this.state.collections.set(meta.name, (coll = new CollectionState(meta)));
    coll.changeSeq = this.seq;
  }

  dropCollection(name: string): void {
    this.journal?.dropCollection(name, this.state.collections.get(name), this.state.trash.get(name));
    this.state.collections.delete(name);
    this.state.trash.delete(name);
  }

  putRecord(collection: string, id: string, image: RecordImage, madeId: boolean): void {
    const coll = this.state.collections.get(collection);
    // The message is made only on failure (this runs for every record of a batch).
    if (!coll) assert.fail(`put into missing collection ${collection}`);
    const records = coll.records;
    // An update keeps its record's slot (its insertion ordinal); a new record takes the next.
    const slot = madeId ? undefined : records.slotOf(id);
    this.journal?.record(collection, coll, id);
    if (slot === undefined) coll.membershipVersion = this.seq;
    // A record under a made id takes an ord above every open reader's: they skip it without a pre-image.
    if (!madeId) coll.noteBeforeWrite(id);
    if (slot !== undefined && records.expiresAtIn(slot) !== undefined) coll.expiringRecords--;
    const { fields, expiresAt } = image;
    records.put(recordKey(id, fields), fields, this.seq, slot ?? ++coll.lastOrd, expiresAt, image.slidingMs);
    if (expiresAt !== undefined) coll.expiringRecords++;
    coll.changeSeq = this.seq;
  }

  removeRecord(collection: string, id: string): void {
    const coll = this.state.collections.get(collection)!;
    this.journal?.record(collection, coll, id);
    if (coll.expiringRecords > 0 && coll.records.get(id)?.expiresAt !== undefined) coll.expiringRecords--;
    coll.noteBeforeWrite(id, true);
    coll.records.delete(id);
    coll.compactIfDue(this.journal !== undefined);
    coll.membershipVersion = this.seq;
    coll.changeSeq = this.seq;
  }

  putTrashed(collection: string, id: string, trashed: TrashEntry): void {
    let trash = this.state.trash.get(collection);
    this.journal?.trash(collection, id, trash);
    if (!trash) this.state.trash.set(collection, (trash = new Map()));
    trash.set(id, trashed);
  }

  removeTrashed(collection: string, id: string): void {
    this.journal?.trash(collection, id, this.state.trash.get(collection));
    this.state.trash.get(collection)?.delete(id);
  }

  setKv(key: string, entry: KvEntry): void {
    this.journal?.kv(this.state, key, false);
    this.state.kv.set(key, entry);
  }

  deleteKv(key: string): void {
    this.journal?.kv(this.state, key, true);
    this.state.kv.delete(key);
    this.state.kvLinks.delete(key);
  }

  clearKv(): void {
    this.journal?.kvClear(this.state);
    this.state.kv.clear();
    this.state.kvLinks.clear();
  }

  link(key: string, collection: string, id: string): void {
    this.journal?.link(this.state, key, `${collection}\u0000${id}`);
    let links = this.state.kvLinks.get(key);
    if (!links) this.state.kvLinks.set(key, (links = new Set()));
    links.add(`${collection}\u0000${id}`);
  }

  unlink(key: string, collection: string, id: string): void {
    this.journal?.link(this.state, key, `${collection}\u0000${id}`);
    const links = this.state.kvLinks.get(key);
    links?.delete(`${collection}\u0000${id}`);
    if (links?.size === 0) this.state.kvLinks.delete(key);
  }

  setApiKey(key: ApiKeyRecord): void {
    this.journal?.apiKey(this.state, key.id);
    this.state.keys.set(key.id, key);
  }
  deleteApiKey(id: string): void {
    this.journal?.apiKey(this.state, id);
    this.state.keys.delete(id);
  }
  setConfig(config: Readonly<Record<string, unknown>>): void {
    this.journal?.config(this.state);
    this.state.config = config;
  }
}
