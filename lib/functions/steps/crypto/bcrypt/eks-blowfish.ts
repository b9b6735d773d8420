/**
 * bcrypt (Provos and Mazières, 1999; OpenBSD's bcrypt.c is the reference):
 * the expensive key schedule EksBlowfishSetup(cost, salt, key) and 64
 * encryptions of "OrpheanBeholderScryDoubt".
 *
 * The 2^cost rounds run in slices; between slices the work yields to the
 * event loop (so other requests are served while a hash is computed) and
 * calls `checkpoint`, which may throw to abandon it (the call's time bound).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { blowfishTables } from './blowfish-tables.js';

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
    const t = blowfishTables();
    this.p = t.p.slice();
    this.s = t.s.slice();
  }

  /** Enciphers (l, r) in place (OpenBSD Blowfish_encipher). */
  encipher(left: number, right: number): void {
    const p = this.p;
    const s = this.s;
    let xl = left ^ p[0]!;
    let xr = right;
    for (let i = 1; i <= 16; i += 2) {
      xr ^= (((s[xl >>> 24]! + s[256 | ((xl >>> 16) & 0xff)]!) ^ s[512 | ((xl >>> 8) & 0xff)]!) + s[768 | (xl & 0xff)]!) ^ p[i]!;
      xl ^= (((s[xr >>> 24]! + s[256 | ((xr >>> 16) & 0xff)]!) ^ s[512 | ((xr >>> 8) & 0xff)]!) + s[768 | (xr & 0xff)]!) ^ p[i + 1]!;
    }
    this.l = (xr ^ p[17]!) >>> 0;
    this.r = xl >>> 0;
  }

  /** Blowfish_expandstate (salt given) or Blowfish_expand0state (salt undefined). */
  expand(key: Uint8Array, salt: Uint8Array | undefined): void {
    const p = this.p;
    const s = this.s;
    const k = new WordStream(key);
    for (let i = 0; i < 18; i++) p[i] = p[i]! ^ k.next();
    const d = salt ? new WordStream(salt) : undefined;
    let l = 0;
    let r = 0;
    for (let i = 0; i < 18; i += 2) {
      if (d) { l ^= d.next(); r ^= d.next(); }
      this.encipher(l, r);
      l = this.l; r = this.r;
      p[i] = l; p[i + 1] = r;
    }
    for (let i = 0; i < 1024; i += 2) {
      if (d) { l ^= d.next(); r ^= d.next(); }
      this.encipher(l, r);
      l = this.l; r = this.r;
      s[i] = l; s[i + 1] = r;
    }
  }
}

/** Big-endian 32-bit words read cyclically from bytes (OpenBSD Blowfish_stream2word). */
class WordStream {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}
  next(): number {
    let w = 0;
    for (let i = 0; i < 4; i++) {
      w = (w << 8) | this.bytes[this.at]!;
      this.at = (this.at + 1) % this.bytes.length;
    }
    return w >>> 0;
  }
}

/**
 * The 23 hash bytes of bcrypt for `key` (the password's bytes plus a NUL,
 * at most 72 used: see bcrypt-format.ts) and a 16-byte salt.
 */
export async function bcryptRaw(key: Uint8Array, salt: Uint8Array, cost: number, checkpoint: () => Promise<void>): Promise<Buffer> {
  const bf = new Blowfish();
  bf.expand(key, salt);
  const rounds = 2 ** cost;
  for (let done = 0; done < rounds;) {
    const end = Math.min(rounds, done + ROUNDS_PER_SLICE);
    for (; done < end; done++) {
      bf.expand(key, undefined);
      bf.expand(salt, undefined);
    }
    if (done < rounds) {
      await yieldToLoop();
      await checkpoint();
    }
  }
  const words = new WordStream(MAGIC);
  const c = Array.from({ length: 6 }, () => words.next());
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 6; j += 2) {
      bf.encipher(c[j]!, c[j + 1]!);
      c[j] = bf.l; c[j + 1] = bf.r;
    }
  }
  const out = Buffer.alloc(24);
  c.forEach((w, i) => out.writeUInt32BE(w, i * 4));
  return out.subarray(0, 23);
}
