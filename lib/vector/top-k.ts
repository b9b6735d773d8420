/**
 * Bounded heaps that keep the k best items seen so far, in O(n log k).
 *
 * The root is the worst kept item, so a new item either replaces it or is
 * dropped. `BoundedHeap` takes any order (a query's sort keys use it);
 * `TopK` is the one for search hits: higher score, then smaller id
 * (`compareHits`). Neither deduplicates.
 */
import { compareHits, type VectorHit } from './vector-index.js';

export class BoundedHeap<T> {
  private readonly heap: T[] = [];

  /** REQUIRES: `k` is a non-negative integer. `compare` < 0 means the first is better (sorts first). */
  constructor(
    private readonly k: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** Whether k items are kept: a new one must beat `worst()` to stay. */
  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** The worst kept item. REQUIRES: size > 0. */
  worst(): T {
    return this.heap[0]!;
  }

  /** Offers an item; keeps it only if it is among the k best so far. */
  push(item: T): void {
    if (this.k === 0) return;
    if (this.heap.length < this.k) {
      this.heap.push(item);
      this.siftUp(this.heap.length - 1);
    } else if (this.compare(item, this.heap[0]!) < 0) {
      this.replaceWorst(item);
    }
  }

  /** Puts `item` in place of the worst kept item. REQUIRES: full, and `item` better than `worst()`. */
  replaceWorst(item: T): void {
    this.heap[0] = item;
    this.siftDown(0);
  }

  /** The kept items, in heap order (not sorted). */
  items(): readonly T[] {
    return this.heap;
  }

  private siftUp(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(h[i]!, h[parent]!) <= 0) return;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < h.length && this.compare(h[left]!, h[worst]!) > 0) worst = left;
      if (right < h.length && this.compare(h[right]!, h[worst]!) > 0) worst = right;
      if (worst === i) return;
      [h[i], h[worst]] = [h[worst]!, h[i]!];
      i = worst;
    }
  }
}

/** The k best search hits: higher score, then smaller id. */
export class TopK<T extends VectorHit> {
  private readonly heap: BoundedHeap<T>;

  /** REQUIRES: `k` is a non-negative integer. */
  constructor(k: number) {
    this.heap = new BoundedHeap<T>(k, compareHits);
  }

  /** Offers a hit; keeps it only if it is among the k best so far. */
  push(hit: T): void {
    this.heap.push(hit);
  }

  /** Whether a hit scoring `score` could be kept, so that a scan makes a hit only for those. */
  admits(score: number): boolean {
    if (!this.heap.full) return true;
    return this.heap.size > 0 && score >= this.heap.worst().score;
  }

  /** The kept hits, best first. */
  sorted(): T[] {
    return [...this.heap.items()].sort(compareHits);
  }
}
