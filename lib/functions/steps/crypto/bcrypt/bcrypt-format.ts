/**
 * The modular-crypt form of bcrypt hashes, `$2b$<cost>$<22 salt chars><31
 * hash chars>`, in bcrypt's own base64 alphabet (`./A-Za-z0-9`, no
 * padding). New hashes are `$2b$`; `$2a$` and `$2y$` verify the same way
 * (they differ from `$2b$` only for passwords longer than 255 bytes, which
 * are cut to 72 bytes before that matters). `$2x$` (crypt_blowfish's
 * sign-extension bug) is not produced by any current implementation and
 * is refused.
 *
 * The key is the password's UTF-8 bytes and a NUL, of which bcrypt uses at
 * most 72 bytes: longer passwords are cut there, as every bcrypt does.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { bcryptRaw } from './eks-blowfish.js';

export const MIN_BCRYPT_COST = 4;
export const MAX_BCRYPT_COST = 31;
export const DEFAULT_BCRYPT_COST = 12;

const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HASH = /^\$2([aby])\$(\d\d)\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;
const MAX_KEY_BYTES = 72;

function encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i]!;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    out += ALPHABET[b0 >> 2]!;
    out += ALPHABET[((b0 & 0x03) << 4) | ((b1 ?? 0) >> 4)]!;
    if (b1 === undefined) break;
    out += ALPHABET[((b1 & 0x0f) << 2) | ((b2 ?? 0) >> 6)]!;
    if (b2 === undefined) break;
    out += ALPHABET[b2 & 0x3f]!;
  }
  return out;
}

/** The first `length` bytes of bcrypt-base64 `text` (already checked to be in the alphabet). */
function decode(text: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (const ch of text) {
    acc = (acc << 6) | ALPHABET.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (n < length) out[n++] = (acc >> bits) & 0xff;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

function keyOf(password: string): Buffer {
  const bytes = Buffer.concat([Buffer.from(password, 'utf8'), Buffer.from([0])]);
  return bytes.length > MAX_KEY_BYTES ? bytes.subarray(0, MAX_KEY_BYTES) : bytes;
}

/** A new `$2b$` hash of `password` with a random 16-byte salt. */
export async function bcryptHash(password: string, cost: number, checkpoint: () => Promise<void>, salt: Uint8Array = randomBytes(16)): Promise<string> {
  const raw = await bcryptRaw(keyOf(password), salt, cost, checkpoint);
  return `$2b$${String(cost).padStart(2, '0')}$${encode(salt).slice(0, 22)}${encode(raw)}`;
}

/** The parts of a hash, or undefined when it is not a bcrypt hash this server verifies. */
export function parseBcryptHash(hash: string): { prefix: string; cost: number; salt: Buffer; digest: string } | undefined {
  const m = HASH.exec(hash);
  if (!m) return undefined;
  const cost = Number(m[2]);
  if (cost < MIN_BCRYPT_COST || cost > MAX_BCRYPT_COST) return undefined;
  return { prefix: `$2${m[1]}$${m[2]}$`, cost, salt: decode(m[3]!, 16), digest: m[4]! };
}

/** True when `password` hashes to `hash` (compared in constant time); false for anything that is not a bcrypt hash. */
export async function bcryptVerify(password: string, hash: string, checkpoint: () => Promise<void>): Promise<boolean> {
  const parsed = parseBcryptHash(hash);
  if (!parsed) return false;
  const raw = await bcryptRaw(keyOf(password), parsed.salt, parsed.cost, checkpoint);
  const ours = Buffer.from(encode(raw));
  const theirs = Buffer.from(parsed.digest);
  return ours.length === theirs.length && timingSafeEqual(ours, theirs);
}
