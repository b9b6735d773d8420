/**
 * The answers (JSON text or MessagePack) last rendered for records read by
 * id. A stored record is frozen and replaced on every write, so the record
 * object is its own version: an answer rendered for it stays right for as
 * long as it is stored, and a write needs no invalidation (the next read
 * brings a new object). Point reads of a hot set skip the writer.
 *
 * Bounded: at most MAX_ENTRIES records per rendering (JSON or MessagePack,
 * typed or bare values) are remembered, each answer of at most MAX_SIZE
 * characters or bytes; a ring forgets the oldest. A record deleted or
 * replaced meanwhile stays held until the ring comes round.
 */
import type { Fields } from '../../engine/index.js';

const MAX_ENTRIES = 16_384;
const MAX_SIZE = 1024;

export class RenderedRecords<T extends { readonly length: number }> {
  private readonly answers = new WeakMap<Fields, T>();
  private readonly ring: Array<Fields | undefined> = new Array<Fields | undefined>(MAX_ENTRIES).fill(undefined);
  private next = 0;

  /**
   * `render` makes the answer for a record; it must return a value nothing
   * else holds or changes (a Buffer of its own, not a slice of a pool).
   */
  constructor(private readonly render: (fields: Fields) => T | undefined) {}

  /** The answer rendered for `fields`, rendering (and remembering) it on first use. */
  answer(fields: Fields): T | undefined {
    const known = this.answers.get(fields);
    if (known !== undefined) return known;
    const rendered = this.render(fields);
    if (rendered === undefined || rendered.length > MAX_SIZE) return rendered;
    const evicted = this.ring[this.next];
    if (evicted !== undefined) this.answers.delete(evicted);
    this.ring[this.next] = fields;
    this.next = (this.next + 1) % MAX_ENTRIES;
    this.answers.set(fields, rendered);
    return rendered;
  }
}
