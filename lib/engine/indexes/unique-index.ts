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

  constructor(readonly field: string, private readonly keyFn: (v: Value) => string) {}

  set(id: string, fields: { readonly [k: string]: Value } | undefined): void {
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

  holders(v: Value): ReadonlySet<string> {
    return this.byKey.get(this.keyFn(v)) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

export class UniqueIndexes {
  /** Collection -> ('u:' or 'a:' + field) -> index. */
  private readonly byCollection = new Map<string, Map<string, FieldIndex>>();

  constructor(private readonly db: EngineCore) {
    db.onCommit((b) => this.follow(b));
  }

  /** Ids of committed records whose `field` may equal `v` (a superset of those that do). */
  valueHolders(c: string, field: string, v: Value): ReadonlySet<string> {
    return this.index(c, 'u:' + field, field, uniqueValueKey)?.holders(v) ?? EMPTY;
  }

  /** Ids of committed records whose alias `field` reads as `text` (exactly those). */
  aliasHolders(c: string, field: string, text: string): ReadonlySet<string> {
    const idx = this.index(c, 'a:' + field, field, aliasKey);
    return idx?.holders(text) ?? EMPTY;
  }

  private index(c: string, key: string, field: string, keyFn: (v: Value) => string): FieldIndex | undefined {
    const coll = this.db.state.collections.get(c);
    if (!coll) return undefined;
    let byField = this.byCollection.get(c);
    if (!byField) this.byCollection.set(c, (byField = new Map()));
    let idx = byField.get(key);
    if (!idx) {
      idx = new FieldIndex(field, keyFn);
      for (const [id, e] of coll.records) idx.set(id, e.fields);
      byField.set(key, idx);
    }
    return idx;
  }

  /** Runs after the batch is applied: each touched record is re-read from the committed state. */
  private follow(b: LoggedBatch): void {
    try {
      this.followEffects(b);
    } catch (err) {
      // An index that missed a change would answer wrongly: forget them all and rebuild on next use.
      this.byCollection.clear();
      throw err;
    }
  }

  private followEffects(b: LoggedBatch): void {
    for (const e of b.effects) {
      if (e.kind === 'createCollection' || e.kind === 'setCollectionMeta') this.byCollection.delete(e.meta.name);
      else if (e.kind === 'dropCollection') this.byCollection.delete(e.name);
      else if (e.kind === 'put' || e.kind === 'delete' || e.kind === 'restore') {
        const byField = this.byCollection.get(e.collection);
        if (!byField) continue;
        const fields = this.db.state.collections.get(e.collection)?.records.get(e.id)?.fields;
        for (const idx of byField.values()) idx.set(e.id, fields);
      }
    }
  }
}
