/**
 * Which records staged in a WorkingView hold each value of a field: the
 * staged half of a unique check or an alias lookup (the committed half is
 * UniqueIndexes). It keeps a staged write from re-reading every record
 * staged before it, which would make a large batch or transaction into a
 * collection with a unique field O(n^2).
 *
 * One index per (field, key kind), built from the view's staged records the
 * first time it is asked for and then kept current as images are staged or
 * removed, so it does not depend on the schema: a schema change inside the
 * group needs nothing. Keys are those of UniqueIndexes (uniqueValueKey,
 * aliasKey), so buckets may hold more ids than match and callers compare the
 * records themselves, exactly as they compared a scan's.
 *
 * Buckets are immutable (an id or a frozen array), so copying an index for
 * a fork is one shallow Map copy.
 */
import { aliasKey, uniqueValueKey } from '../indexes/value-keys.js';
import type { Fields, Value } from '../values/index.js';

export type KeyKind = 'unique' | 'alias';
const KEY_FNS: Record<KeyKind, (value: Value) => string> = { unique: uniqueValueKey, alias: aliasKey };

type Bucket = string | readonly string[];
const NONE: readonly string[] = Object.freeze([]);

class FieldValues {
  constructor(
    readonly field: string,
    readonly keyFn: (value: Value) => string,
    readonly byKey = new Map<string, Bucket>(),
  ) {}

  add(id: string, fields: Fields): void {
    if (!Object.hasOwn(fields, this.field)) return;
    const key = this.keyFn(fields[this.field]!);
    const bucket = this.byKey.get(key);
    this.byKey.set(
      key,
      bucket === undefined ? id : Object.freeze(typeof bucket === 'string' ? [bucket, id] : [...bucket, id]),
    );
  }

  remove(id: string, fields: Fields): void {
    if (!Object.hasOwn(fields, this.field)) return;
    const key = this.keyFn(fields[this.field]!);
    const bucket = this.byKey.get(key);
    if (bucket === undefined) return;
    if (typeof bucket === 'string') {
      if (bucket === id) this.byKey.delete(key);
      return;
    }
    const rest = bucket.filter((x) => x !== id);
    this.byKey.set(key, rest.length === 1 ? rest[0]! : Object.freeze(rest));
  }

  holders(key: string): readonly string[] {
    const bucket = this.byKey.get(key);
    return bucket === undefined ? NONE : typeof bucket === 'string' ? [bucket] : bucket;
  }

  copy(): FieldValues {
    return new FieldValues(this.field, this.keyFn, new Map(this.byKey));
  }
}

/** The staged value indexes of one collection of one view. */
export class StagedValues {
  private readonly indexes = new Map<string, FieldValues>();

  /** Follows an image staged for `id` (`before` is the staged image it replaces, if any). */
  put(id: string, before: Fields | undefined, after: Fields): void {
    for (const idx of this.indexes.values()) {
      if (before) idx.remove(id, before);
      idx.add(id, after);
    }
  }

  /** Follows the removal of the staged image `before` of `id`. */
  remove(id: string, before: Fields): void {
    for (const idx of this.indexes.values()) idx.remove(id, before);
  }

  /**
   * Ids of staged records whose `field` may equal `value` (a superset of those
   * that do). `staged` lists the collection's staged records, read only to
   * build the index the first time it is asked for.
   */
  holders(field: string, kind: KeyKind, value: Value, staged: () => Iterable<[string, Fields]>): readonly string[] {
    const name = `${kind}:${field}`;
    let idx = this.indexes.get(name);
    if (!idx) {
      idx = new FieldValues(field, KEY_FNS[kind]);
      for (const [id, fields] of staged()) idx.add(id, fields);
      this.indexes.set(name, idx);
    }
    return idx.holders(idx.keyFn(value));
  }

  copy(): StagedValues {
    const out = new StagedValues();
    for (const [name, idx] of this.indexes) out.indexes.set(name, idx.copy());
    return out;
  }
}
