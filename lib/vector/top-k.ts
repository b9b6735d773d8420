/**
 * A bounded heap that keeps the k best hits seen so far, in O(n log k).
 *
 * The root is the worst kept hit, so a new hit either replaces it or is
 * dropped. "Better" is `compareHits` order: higher score, then smaller id.
 * Used by exact search; it does not deduplicate ids.
 */
import { compareHits, type VectorHit } from './vector-index.js';

export class TopK<T extends VectorHit> {
  private readonly heap: T[] = [];

  /** REQUIRES: `k` is a non-negative integer. */
  constructor(private readonly k: number) {}

  /** Offers a hit; keeps it only if it is among the k best so far. */
  push(hit: T): void {
    if (this.k === 0) return;
    if (this.heap.length < this.k) {
      this.heap.push(hit);
      this.siftUp(this.heap.length - 1);
    } else if (compareHits(hit, this.heap[0]!) < 0) {
      this.heap[0] = hit;
      this.siftDown(0);
    }
  }

  /** The kept hits, best first. */
  sorted(): T[] {
    return [...this.heap].sort(compareHits);
  }

  /** True when `a` is worse than `b` (it belongs nearer the root). */
  private worse(a: T, b: T): boolean {
    return compareHits(a, b) > 0;
  }

  private siftUp(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(h[i]!, h[parent]!)) break;
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
      if (left < h.length && this.worse(h[left]!, h[worst]!)) worst = left;
      if (right < h.length && this.worse(h[right]!, h[worst]!)) worst = right;
      if (worst === i) return;
      [h[i], h[worst]] = [h[worst]!, h[i]!];
      i = worst;
    }
  }
}
