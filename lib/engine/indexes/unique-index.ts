/**
 * Which committed records hold a value of a unique field, or a primary-key
 * alias text: the lookups behind unique checks and alias resolution, so a
 * write does not scan its collection.
 *
 * Built lazily per (collection, field) from the committed records on first
 * use and kept current by the commit listener, which re-reads each record a
 * logged effect touched (after the batch is applied). A schema change or a
 * drop forgets the collection (rebuilt on next use). Buckets may hold more
 * ids than match (lists and objects share one bucket): callers compare the
 * records themselves, so answers stay exactly those of a scan.
 */
import type { EngineCore } from '../core.js';
import type { LoggedBatch } from '../write/effects.js';
import type { Value } from '../values/index.js';
import { aliasKey, uniqueValueKey } from './value-keys.js';

export { aliasKey, uniqueValueKey };

class FieldIndex {
  private readonly byKey = new Map<string, Set<string>>();
  private readonly keyOf = new Map<string, string>();

  constructor(
    readonly field: string,
    private readonly keyFn: (value: Value) => string,
  ) {}

  set(id: string, fields: { readonly [name: string]: Value } | undefined): void {
    this.remove(id);
    if (!fields || !Object.hasOwn(fields, this.field)) return;
    const key = this.keyFn(fields[this.field]!);
    let ids = this.byKey.get(key);
    if (!ids) this.byKey.set(key, (ids = new Set()));
    ids.add(id);
    this.keyOf.set(id, key);
  }

  remove(id: string): void {
    const key = this.keyOf.get(id);
    if (key === undefined) return;
    this.keyOf.delete(id);
    const ids = this.byKey.get(key)!;
    ids.delete(id);
    if (ids.size === 0) this.byKey.delete(key);
  }

  holders(value: Value): ReadonlySet<string> {
    return this.byKey.get(this.keyFn(value)) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

export class UniqueIndexes {
  /** Collection -> ('u:' or 'a:' + field) -> index. */
  private readonly byCollection = new Map<string, Map<string, FieldIndex>>();

  constructor(private readonly db: EngineCore) {
    db.onCommit((b) => this.follow(b));
  }

  /** Ids of committed records whose `field` may equal `value` (a superset of those that do). */
  valueHolders(collection: string, field: string, value: Value): ReadonlySet<string> {
    return this.index(collection, 'u:' + field, field, uniqueValueKey)?.holders(value) ?? EMPTY;
  }

  /** Ids of committed records whose alias `field` reads as `text` (exactly those). */
  aliasHolders(collection: string, field: string, text: string): ReadonlySet<string> {
    const idx = this.index(collection, 'a:' + field, field, aliasKey);
    return idx?.holders(text) ?? EMPTY;
  }

  private index(
    collection: string,
    key: string,
    field: string,
    keyFn: (value: Value) => string,
  ): FieldIndex | undefined {
    const coll = this.db.state.collections.get(collection);
    if (!coll) return undefined;
    let byField = this.byCollection.get(collection);
    if (!byField) this.byCollection.set(collection, (byField = new Map()));
    let idx = byField.get(key);
    if (!idx) {
      idx = new FieldIndex(field, keyFn);
      for (const [id, entry] of coll.records) idx.set(id, entry.fields);
      byField.set(key, idx);
    }
    return idx;
  }

  /** Runs after the batch is applied: each touched record is re-read from the committed state. */
  private follow(batch: LoggedBatch): void {
    try {
      this.followEffects(batch);
    } catch (err) {
      // An index that missed a change would answer wrongly: forget them all and rebuild on next use.
      this.byCollection.clear();
      throw err;
    }
  }

  private followEffects(batch: LoggedBatch): void {
    for (const effect of batch.effects) {
      if (effect.kind === 'createCollection' || effect.kind === 'setCollectionMeta')
        this.byCollection.delete(effect.meta.name);
      else if (effect.kind === 'dropCollection') this.byCollection.delete(effect.name);
      else if (effect.kind === 'put' || effect.kind === 'delete' || effect.kind === 'restore') {
        const byField = this.byCollection.get(effect.collection);
        if (!byField) continue;
        const fields = this.db.state.collections.get(effect.collection)?.records.get(effect.id)?.fields;
        for (const idx of byField.values()) idx.set(effect.id, fields);
      }
    }
  }
}
