/**
 * One query index over one top-level field: `hash` (equality) or `btree`
 * (equality and ranges, a sorted-btree B+ tree ordered like query sorting).
 *
 * Only scalar values are indexed. Records whose value is an array, object,
 * Set or Vector can match conditions in ways an index cannot answer (In on
 * an array field matches any element), so they are kept aside and always
 * returned as candidates; the planner re-checks the whole filter, which is
 * what keeps indexed and unindexed results identical. Numbers are keyed by
 * exact value (values/compare.ts): an Integer beyond 2^53 (a bigint) and a
 * Float holding the same number share one key, and unequal neighbours that
 * floats would round together (2^53 and 2^53 + 1) never do.
 */
import { createRequire } from 'node:module';
import type sortedBtreeTypes from 'sorted-btree';
import { hashKey, sortCompare, Tagged, type Value } from '../values/index.js';

// sorted-btree is CommonJS with the class on `exports.default`; loaders disagree on ESM interop, require does not.
const BTree = (createRequire(import.meta.url)('sorted-btree') as { default: typeof sortedBtreeTypes.default }).default;

export type IndexType = 'btree' | 'hash';

function isScalar(value: Value | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (value instanceof Tagged) return !['Set', 'Vector', 'Binary', 'Bytes'].includes(value.type);
  return typeof value !== 'object';
}

export interface RangeBound {
  readonly value: Value;
  readonly inclusive: boolean;
}

export class QueryIndex {
  private readonly hash = new Map<string, Set<string>>();
  private readonly tree = new BTree<Value, Set<string>>(undefined, (a: Value, b: Value) => sortCompare(a, b));
  /** id -> indexed key, to unindex on update and delete. */
  private readonly keyOf = new Map<string, Value>();
  /** Ids whose value cannot be indexed (always candidates). */
  readonly unindexable = new Set<string>();

  constructor(
    readonly field: string,
    readonly type: IndexType,
  ) {}

  get size(): number {
    return this.keyOf.size + this.unindexable.size;
  }

  set(id: string, value: Value | undefined): void {
    this.remove(id);
    if (value === undefined || value === null) return;
    if (!isScalar(value)) {
      this.unindexable.add(id);
      return;
    }
    this.keyOf.set(id, value);
    if (this.type === 'hash') {
      const key = hashKey(value);
      let ids = this.hash.get(key);
      if (!ids) this.hash.set(key, (ids = new Set()));
      ids.add(id);
    } else {
      let ids = this.tree.get(value);
      if (!ids) this.tree.set(value, (ids = new Set()));
      ids.add(id);
    }
  }

  remove(id: string): void {
    this.unindexable.delete(id);
    const old = this.keyOf.get(id);
    if (old === undefined) return;
    this.keyOf.delete(id);
    if (this.type === 'hash') {
      const key = hashKey(old);
      const ids = this.hash.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.hash.delete(key);
    } else {
      const ids = this.tree.get(old);
      ids?.delete(id);
      if (ids?.size === 0) this.tree.delete(old);
    }
  }

  /** Ids whose value equals `value`. */
  equal(value: Value): Iterable<string> {
    if (this.type === 'hash') return this.hash.get(hashKey(value)) ?? [];
    return this.tree.get(value) ?? [];
  }

  /** Ids whose value lies within the bounds (btree only). */
  range(lower?: RangeBound, upper?: RangeBound): string[] {
    const out: string[] = [];
    const lo = lower?.value ?? this.tree.minKey();
    if (lo === undefined) return out;
    this.tree.forRange(lo, upper?.value ?? this.tree.maxKey()!, true, (key: Value, ids: Set<string>) => {
      if (lower && !lower.inclusive && sortCompare(key, lower.value) === 0) return;
      if (upper && !upper.inclusive && sortCompare(key, upper.value) === 0) return;
      for (const id of ids) out.push(id);
    });
    return out;
  }
}
