/**
 * A distinct-value counter with bounded memory, for ApproxDistinct.
 *
 * Values arrive as their engine hash keys (`hashKey`), hashed to 53 bits
 * (cyrb53). Up to EXACT_LIMIT distinct hashes are kept in a Set, so small
 * counts are exact (barring a 53-bit hash collision). Past that the Set is
 * folded into a HyperLogLog of 2^12 one-byte registers (4 KiB; standard error
 * about 1.04/sqrt(4096) = 1.6%), with linear counting for the small range.
 * Memory per counter never passes the larger of the two.
 */

const PRECISION = 12;
const REGISTERS = 1 << PRECISION;
const EXACT_LIMIT = 256;
const ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);

/** cyrb53 (public domain): a well-mixed 53-bit hash of a string. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

export class DistinctCounter {
  private exact: Set<number> | undefined = new Set();
  private registers: Uint8Array | undefined;

  /** Counts one value, given as its hash key. */
  add(key: string): void {
    const hash = hash53(key);
    if (this.exact !== undefined) {
      this.exact.add(hash);
      if (this.exact.size <= EXACT_LIMIT) return;
      this.registers = new Uint8Array(REGISTERS);
      for (const seen of this.exact) this.record(seen);
      this.exact = undefined;
      return;
    }
    this.record(hash);
  }

  /** The exact count while small, else the HyperLogLog estimate, rounded. */
  estimate(): number {
    if (this.exact !== undefined) return this.exact.size;
    const registers = this.registers!;
    let harmonic = 0;
    let zeros = 0;
    for (const register of registers) {
      harmonic += 2 ** -register;
      if (register === 0) zeros++;
    }
    const raw = (ALPHA * REGISTERS * REGISTERS) / harmonic;
    // Linear counting is the better estimate while many registers are still empty.
    const estimate = raw <= 2.5 * REGISTERS && zeros > 0 ? REGISTERS * Math.log(REGISTERS / zeros) : raw;
    return Math.round(estimate);
  }

  /** The low 12 bits pick the register; the rank is 1 + the leading zeros of the other 41 bits. */
  private record(hash: number): void {
    const index = hash % REGISTERS;
    const rest = Math.floor(hash / REGISTERS);
    const high = Math.floor(rest / 4294967296);
    const rank = high !== 0 ? Math.clz32(high) - 22 : 10 + Math.clz32(rest >>> 0);
    if (rank > this.registers![index]!) this.registers![index] = rank;
  }
}
