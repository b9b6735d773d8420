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

  /** Random bytes drawn in bulk: one system call per 512 ids instead of one per id. */
  private pool = Buffer.alloc(0);
  private poolAt = 0;

  next(): string {
    const block = Buffer.alloc(16);
    this.counter += 1n;
    block.writeBigUInt64BE(this.counter & 0xffffffffffffffffn, 0);
    if (this.poolAt + 8 > this.pool.length) { this.pool = randomBytes(4096); this.poolAt = 0; }
    this.pool.copy(block, 8, this.poolAt, this.poolAt + 8);
    this.poolAt += 8;
    return this.cipher.update(block).toString('base64url');
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
