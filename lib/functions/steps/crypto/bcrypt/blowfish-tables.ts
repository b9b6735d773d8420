/**
 * Blowfish's initial P-array and S-boxes: by definition (Schneier, 1993)
 * the first 1042 32-bit words of the fractional part of pi in hexadecimal
 * (P = 0x243f6a88 ... 0x8979fb1b, then S0..S3 = 0xd1310ba6 ... 0x3ac372e6).
 * Computed once, on first use, with Machin's formula
 * (pi = 16 atan(1/5) - 4 atan(1/239)) in BigInt fixed point with 64 guard
 * bits (about 80 ms), instead of 1042 pasted constants; the bcrypt
 * known-answer tests pin every word.
 */
const P_WORDS = 18;
const S_WORDS = 4 * 256;
const WORDS = P_WORDS + S_WORDS;
const GUARD_BITS = 64n;

export interface BlowfishTables {
  readonly p: Uint32Array;
  /** The four S-boxes back to back (S0 at 0, S1 at 256, S2 at 512, S3 at 768). */
  readonly s: Uint32Array;
}

let tables: BlowfishTables | undefined;

export function blowfishTables(): BlowfishTables {
  tables ??= computeTables();
  return tables;
}

function computeTables(): BlowfishTables {
  const bits = BigInt(WORDS * 32) + GUARD_BITS;
  const one = 1n << bits;
  const atanOfInverse = (x: bigint): bigint => {
    let sum = 0n;
    let term = one / x;
    const x2 = x * x;
    for (let k = 1n, sign = 1n; term !== 0n; k += 2n, sign = -sign) {
      sum += sign * (term / k);
      term /= x2;
    }
    return sum;
  };
  const pi = 16n * atanOfInverse(5n) - 4n * atanOfInverse(239n);
  let fraction = (pi - (3n << bits)) >> GUARD_BITS;
  const words = new Uint32Array(WORDS);
  for (let i = WORDS - 1; i >= 0; i--) {
    words[i] = Number(fraction & 0xffffffffn);
    fraction >>= 32n;
  }
  return Object.freeze({ p: words.slice(0, P_WORDS), s: words.slice(P_WORDS) });
}
