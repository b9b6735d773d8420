/**
 * bcrypt (Provos and Mazières, 1999; OpenBSD's bcrypt.c is the reference):
 * the expensive key schedule EksBlowfishSetup(cost, salt, key) and 64
 * encryptions of "OrpheanBeholderScryDoubt".
 *
 * The 2^cost rounds run either in one go (`bcryptRawSync`, in a worker
 * thread: bcrypt-runners.ts) or in slices on the event loop that yield
 * between them (`bcryptRawSliced`, where no worker pool is given), so other
 * requests are served while a hash is computed either way.
 *
 * Blowfish's initial P-array and S-boxes are by definition (Schneier, 1993)
 * the first 1042 32-bit words of the fractional part of pi in hexadecimal
 * (P = 0x243f6a88 ... 0x8979fb1b, then S0..S3 = 0xd1310ba6 ... 0x3ac372e6).
 * They are computed once, on first use, with Machin's formula
 * (pi = 16 atan(1/5) - 4 atan(1/239)) in BigInt fixed point with 64 guard
 * bits, instead of 1042 pasted constants; the bcrypt known-answer tests pin
 * every word. Names follow the reference: `p` and `s` are Blowfish's
 * P-array and S-boxes, `l` and `r` (`xl`, `xr`) the halves of a block.
 */
import assert from 'node:assert';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

const P_WORDS = 18;
const S_WORDS = 4 * 256;
const WORDS = P_WORDS + S_WORDS;
const GUARD_BITS = 64n;

interface BlowfishTables {
  readonly p: Uint32Array;
  /** The four S-boxes back to back (S0 at 0, S1 at 256, S2 at 512, S3 at 768). */
  readonly s: Uint32Array;
}

let tables: BlowfishTables | undefined;

function blowfishTables(): BlowfishTables {
  tables ??= computeTables();
  return tables;
}

function computeTables(): BlowfishTables {
  const bits = BigInt(WORDS * 32) + GUARD_BITS;
  const one = 1n << bits;
  const atanOfInverse = (denominator: bigint): bigint => {
    let sum = 0n;
    let term = one / denominator;
    const squared = denominator * denominator;
    for (let odd = 1n, sign = 1n; term !== 0n; odd += 2n, sign = -sign) {
      sum += sign * (term / odd);
      term /= squared;
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

/** Rounds of the expensive loop per slice: about half a millisecond of work (0.07 ms a round). */
const ROUNDS_PER_SLICE = 8;
const MAGIC = Buffer.from('OrpheanBeholderScryDoubt', 'latin1');

class Blowfish {
  readonly p: Uint32Array;
  readonly s: Uint32Array;
  /** A reused output pair of `encipher`. */
  l = 0;
  r = 0;

  constructor() {
    const tables = blowfishTables();
    this.p = tables.p.slice();
    this.s = tables.s.slice();
  }

  /** Enciphers (l, r) in place (OpenBSD Blowfish_encipher). */
  encipher(left: number, right: number): void {
    const p = this.p;
    const s = this.s;
    let xl = left ^ p[0]!;
    let xr = right;
    for (let i = 1; i <= 16; i += 2) {
      xr ^=
        (((s[xl >>> 24]! + s[256 | ((xl >>> 16) & 0xff)]!) ^ s[512 | ((xl >>> 8) & 0xff)]!) + s[768 | (xl & 0xff)]!) ^
        p[i]!;
      xl ^=
        (((s[xr >>> 24]! + s[256 | ((xr >>> 16) & 0xff)]!) ^ s[512 | ((xr >>> 8) & 0xff)]!) + s[768 | (xr & 0xff)]!) ^
        p[i + 1]!;
    }
    this.l = (xr ^ p[17]!) >>> 0;
    this.r = xl >>> 0;
  }

  /** Blowfish_expandstate (salt given) or Blowfish_expand0state (salt undefined). */
  expand(key: Uint8Array, salt: Uint8Array | undefined): void {
    const p = this.p;
    const s = this.s;
    const keyWords = new WordStream(key);
    for (let i = 0; i < 18; i++) p[i] = p[i]! ^ keyWords.next();
    const saltWords = salt ? new WordStream(salt) : undefined;
    let l = 0;
    let r = 0;
    for (let i = 0; i < 18; i += 2) {
      if (saltWords) {
        l ^= saltWords.next();
        r ^= saltWords.next();
      }
      this.encipher(l, r);
      l = this.l;
      r = this.r;
      p[i] = l;
      p[i + 1] = r;
    }
    for (let i = 0; i < 1024; i += 2) {
      if (saltWords) {
        l ^= saltWords.next();
        r ^= saltWords.next();
      }
      this.encipher(l, r);
      l = this.l;
      r = this.r;
      s[i] = l;
      s[i + 1] = r;
    }
  }
}

/** Big-endian 32-bit words read cyclically from bytes (OpenBSD Blowfish_stream2word). */
class WordStream {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}
  next(): number {
    let word = 0;
    for (let i = 0; i < 4; i++) {
      word = (word << 8) | this.bytes[this.at]!;
      this.at = (this.at + 1) % this.bytes.length;
    }
    return word >>> 0;
  }
}

/**
 * One bcrypt computation for `key` (the password's bytes plus a NUL, at
 * most 72 used: see bcrypt.ts) and a 16-byte salt: the salted
 * setup, the 2^cost expensive rounds run `step` by `step`, then the 64
 * encryptions that make the digest. Holds no timer and no promise, so the
 * same state runs sliced on the event loop or in one go in a worker.
 */
export class EksBlowfish {
  private readonly bf = new Blowfish();
  private readonly rounds: number;
  private done = 0;

  constructor(
    private readonly key: Uint8Array,
    private readonly salt: Uint8Array,
    cost: number,
  ) {
    this.bf.expand(key, salt);
    this.rounds = 2 ** cost;
  }

  /** Runs up to `n` more expensive rounds; true once all of them have run. */
  step(n: number): boolean {
    const end = Math.min(this.rounds, this.done + n);
    for (; this.done < end; this.done++) {
      this.bf.expand(this.key, undefined);
      this.bf.expand(this.salt, undefined);
    }
    return this.done === this.rounds;
  }

  /** The 23 hash bytes. REQUIRES: every round has run (`step` returned true). */
  digest(): Buffer {
    assert(this.done === this.rounds, 'bcrypt digest asked before the expensive rounds finished');
    const bf = this.bf;
    const words = new WordStream(MAGIC);
    const cdata = Array.from({ length: 6 }, () => words.next());
    for (let i = 0; i < 64; i++) {
      for (let j = 0; j < 6; j += 2) {
        bf.encipher(cdata[j]!, cdata[j + 1]!);
        cdata[j] = bf.l;
        cdata[j + 1] = bf.r;
      }
    }
    const out = Buffer.alloc(24);
    cdata.forEach((word, i) => out.writeUInt32BE(word, i * 4));
    return out.subarray(0, 23);
  }
}

/** The 23 hash bytes in one go, holding the thread for all 2^cost rounds: for worker threads only. */
export function bcryptRawSync(key: Uint8Array, salt: Uint8Array, cost: number): Buffer {
  const state = new EksBlowfish(key, salt, cost);
  state.step(Infinity);
  return state.digest();
}

/**
 * The 23 hash bytes, computed on the event loop in slices of about half a
 * millisecond with a yield between them; `checkpoint` runs after each yield
 * and may throw to abandon the work (an aborted call).
 */
export async function bcryptRawSliced(
  key: Uint8Array,
  salt: Uint8Array,
  cost: number,
  checkpoint: () => void,
): Promise<Buffer> {
  const state = new EksBlowfish(key, salt, cost);
  while (!state.step(ROUNDS_PER_SLICE)) {
    await yieldToLoop();
    checkpoint();
  }
  return state.digest();
}
