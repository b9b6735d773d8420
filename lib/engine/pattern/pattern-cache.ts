/**
 * A bounded least-recently-used map from a pattern's source to what
 * compiling it gave. A Map iterates in insertion order, so re-inserting on
 * every hit keeps the least recently used entry first, where eviction takes
 * it. Compiling is a pure function of the source, so sharing one cache is
 * never observable except as speed.
 */
export class PatternCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(readonly capacity: number) {}

  get(source: string): T | undefined {
    const hit = this.entries.get(source);
    if (hit !== undefined) {
      this.entries.delete(source);
      this.entries.set(source, hit);
    }
    return hit;
  }

  set(source: string, value: T): void {
    this.entries.delete(source);
    this.entries.set(source, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
