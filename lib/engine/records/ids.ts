/**
 * Record ids: opaque, URL-safe, unguessable, and revealing no order.
 *
 * An id is one AES-256 block (a pseudo-random permutation under a per-database
 * key) encrypting a 64-bit counter and 64 random bits, written as 22
 * characters of base64url. The permutation makes ids collision-free for
 * distinct inputs; the random half and the secret key make them unguessable;
 * ciphertexts carry no visible order.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { InvalidInput } from '../../errors.js';
import { isInt64 } from '../values/index.js';

export class IdGenerator {
  /**
   * A 64-bit counter as two 32-bit halves (BigInt arithmetic per id cost
   * more than the encryption). Starts from the clock so ids stay distinct
   * across restarts.
   */
  private hi: number;
  private lo: number;
  /** ECB without padding encrypts each 16-byte block independently, so one cipher serves every id. */
  private readonly cipher;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('id key must be 32 bytes');
    this.cipher = createCipheriv('aes-256-ecb', key, null);
    this.cipher.setAutoPadding(false);
    const start = BigInt(Date.now()) << 16n;
    this.hi = Number(start >> 32n);
    this.lo = Number(start & 0xffffffffn);
  }

  /** Ids made ahead: one random draw and one cipher call serve a run of ids. */
  private ready: string[] = [];
  private readyAt = 0;

  next(): string {
    if (this.readyAt === this.ready.length) this.refill();
    return this.ready[this.readyAt++]!;
  }

  /** Encrypts ID_RUN blocks of (counter, 64 random bits) at once: 16 bytes in, 16 bytes out per id. */
  private refill(): void {
    const blocks = randomBytes(ID_RUN * 16);
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
