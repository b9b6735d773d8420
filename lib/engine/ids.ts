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
import { InvalidInput } from '../errors.js';
import { isInt64 } from './values/index.js';

/** Ids made per cipher call: one call encrypts this many blocks (ECB treats each block alone). */
const IDS_PER_CALL = 256;
const BLOCK = 16;

export class IdGenerator {
  /** Starts from the clock so ids stay distinct across restarts. */
  private counter = BigInt(Date.now()) << 16n;
  /** ECB without padding encrypts each 16-byte block independently, so one cipher serves every id. */
  private readonly cipher;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('id key must be 32 bytes');
    this.cipher = createCipheriv('aes-256-ecb', key, null);
    this.cipher.setAutoPadding(false);
  }

  /** Ids made ahead (one cipher call and one random draw per IDS_PER_CALL ids), used in order. */
  private ready: Buffer = Buffer.alloc(0);
  private readyAt = 0;

  next(): string {
    if (this.readyAt === this.ready.length) this.refill();
    const id = this.ready.toString('base64url', this.readyAt, this.readyAt + BLOCK);
    this.readyAt += BLOCK;
    return id;
  }

  /** Encrypts the next IDS_PER_CALL blocks of counter (8 bytes) and random bits (8 bytes). */
  private refill(): void {
    const plain = randomBytes(IDS_PER_CALL * BLOCK);
    for (let at = 0; at < plain.length; at += BLOCK) {
      this.counter += 1n;
      plain.writeBigUInt64BE(this.counter & 0xffffffffffffffffn, at);
    }
    this.ready = this.cipher.update(plain);
    this.readyAt = 0;
  }
}

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
