/**
 * Record ids: opaque, URL-safe, unguessable, and revealing no order.
 *
 * An id is one AES-256 block (a pseudo-random permutation under a per-database
 * key) encrypting a 64-bit counter and 64 random bits, written as 22
 * characters of base64url. The permutation makes ids collision-free for
 * distinct inputs; the random half and the secret key make them unguessable;
 * ciphertexts carry no visible order.
 *
 * Seeded (`IdGenerator.seeded`, for tests): the key is the SHA-256 of the
 * seed, the counter starts at 0 and the random half comes from a small
 * seeded generator, so the ids are a pure function of the seed and of how
 * many were made before: the same in every run, and guessable by design.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { InvalidInput } from '../../errors.js';
import { isInt64 } from '../values/index.js';

/**
 * Where a generator's sequence is (save, load). Taking and restoring it is
 * O(1): the run made ahead is shared, never changed (a refill makes a new one).
 */
export interface IdState {
  readonly hi: number;
  readonly lo: number;
  /** The seeded generator's state; undefined when the random halves come from the OS. */
  readonly random: number | undefined;
  readonly ready: readonly string[];
  readonly readyAt: number;
}

export class IdGenerator {
  /**
   * A 64-bit counter as two 32-bit halves (BigInt arithmetic per id cost
   * more than the encryption). Starts from the clock so ids stay distinct
   * across restarts (from 0 when seeded).
   */
  private hi: number;
  private lo: number;
  /** ECB without padding encrypts each 16-byte block independently, so one cipher serves every id. */
  private readonly cipher;
  /** mulberry32's state when seeded; undefined: random halves from randomBytes. */
  private random: number | undefined;

  constructor(key: Buffer, seeded?: { readonly random: number }) {
    if (key.length !== 32) throw new Error('id key must be 32 bytes');
    this.cipher = createCipheriv('aes-256-ecb', key, null);
    this.cipher.setAutoPadding(false);
    const start = seeded ? 0n : BigInt(Date.now()) << 16n;
    this.hi = Number(start >> 32n);
    this.lo = Number(start & 0xffffffffn);
    this.random = seeded ? seeded.random >>> 0 : undefined;
  }

  /** Ids that depend only on `seed` and on how many were made before (see the header). */
  static seeded(seed: string): IdGenerator {
    const key = createHash('sha256').update(seed, 'utf8').digest();
    const random = createHash('sha256').update('random half\0').update(seed, 'utf8').digest().readUInt32BE(0);
    return new IdGenerator(key, { random });
  }

  /** Ids made ahead: one random draw and one cipher call serve a run of ids. */
  private ready: readonly string[] = [];
  private readyAt = 0;

  next(): string {
    if (this.readyAt === this.ready.length) this.refill();
    return this.ready[this.readyAt++]!;
  }

  /** Where the sequence is now: after `load` of it, `next` makes the same ids as it makes after this call. */
  save(): IdState {
    return { hi: this.hi, lo: this.lo, random: this.random, ready: this.ready, readyAt: this.readyAt };
  }

  /**
   * REQUIRES: a state this generator saved. Returns the sequence to it. Seeded,
   * the ids made afterwards repeat those made after the save; unseeded, those
   * of the run made ahead repeat, and later ones get new random halves.
   */
  load(state: IdState): void {
    this.hi = state.hi;
    this.lo = state.lo;
    this.random = state.random;
    this.ready = state.ready;
    this.readyAt = state.readyAt;
  }

  /** Encrypts ID_RUN blocks of (counter, 64 random bits) at once: 16 bytes in, 16 bytes out per id. */
  private refill(): void {
    const blocks = this.random === undefined ? randomBytes(ID_RUN * 16) : this.seededBlocks();
    for (let i = 0; i < ID_RUN; i++) {
      this.lo += 1;
      if (this.lo > 0xffffffff) {
        this.lo = 0;
        this.hi = (this.hi + 1) >>> 0;
      }
      blocks.writeUInt32BE(this.hi, i * 16);
      blocks.writeUInt32BE(this.lo, i * 16 + 4);
    }
    const enc = this.cipher.update(blocks);
    const ids = new Array<string>(ID_RUN);
    for (let i = 0; i < ID_RUN; i++) ids[i] = enc.toString('base64url', i * 16, i * 16 + 16);
    this.ready = ids;
    this.readyAt = 0;
  }

  /** ID_RUN blocks whose random halves (bytes 8-15) come from the seeded generator. */
  private seededBlocks(): Buffer {
    const blocks = Buffer.alloc(ID_RUN * 16);
    for (let i = 0; i < ID_RUN; i++) {
      blocks.writeUInt32BE(this.nextRandom(), i * 16 + 8);
      blocks.writeUInt32BE(this.nextRandom(), i * 16 + 12);
    }
    return blocks;
  }

  /** mulberry32: small and fast; seeded ids need repeatability, not secrecy. */
  private nextRandom(): number {
    const state = (this.random! + 0x6d2b79f5) >>> 0;
    this.random = state;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
}

/**
 * Ids made per refill: enough that the random draw and the cipher call of a
 * refill are small beside the encryptions they serve. The counter values of
 * a partly used run are skipped at a restart, which costs nothing but those
 * values.
 */
const ID_RUN = 256;

const MAX_ID_LENGTH = 512;

/** Validates a client-supplied id (body `id` or path segment). */
export function validateId(id: unknown, what = 'id'): string {
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  // An integer id beyond 2^53 is taken by its exact digits, like a smaller one.
  if (typeof id === 'bigint' && isInt64(id)) return id.toString();
  if (typeof id !== 'string' || id.length === 0) throw new InvalidInput(`Invalid ${what}: expected a non-empty string`);
  if (id.length > MAX_ID_LENGTH) throw new InvalidInput(`Invalid ${what}: longer than ${MAX_ID_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) throw new InvalidInput(`Invalid ${what}: control characters are not allowed`);
  return id;
}
