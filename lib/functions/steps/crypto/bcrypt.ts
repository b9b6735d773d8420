/**
 * BcryptHash and BcryptVerify, and the modular-crypt form of bcrypt
 * hashes.
 *
 * - BcryptHash: a bcrypt hash (`$2b$`, random salt) of `plain` under
 *   `output_field`; `cost` a literal from 4 to 31 (default 12), and at run
 *   time at most the setting `function_bcrypt_max_cost` (default 14), else
 *   a 400 naming both.
 * - BcryptVerify: true under `output_field` when `plain` matches the bcrypt
 *   hash in the field named by `hash_field` (a record field or a
 *   parameter; `$2a$`, `$2b$` and `$2y$` hashes). A missing field or a
 *   value that is not a bcrypt hash gives false, not an error (a login for
 *   an unknown user is a failed login). The hash may come from the caller,
 *   so its cost is bounded before any work: above
 *   `function_bcrypt_max_cost` it is a 400 naming the cost and the limit,
 *   not 2^31 rounds.
 *
 * The hash is this server's own (eks-blowfish.ts: OpenBSD's algorithm,
 * pinned by the published test vectors and checked against bcryptjs in
 * both directions by spec/functions/steps/crypto/bcrypt.spec.ts) so that
 * it can run on the server's worker threads (`run.bcrypt`,
 * bcrypt-runners.ts) and be stopped there: the event loop keeps answering
 * other requests while it runs. The call's time bound
 * (`function_timeout_ms`) ends a hash that would outlast it: each step of
 * cost doubles the time.
 *
 * The form is `$2b$<cost>$<22 salt chars><31 hash chars>`, in bcrypt's own
 * base64 alphabet (`./A-Za-z0-9`, no padding). New hashes are `$2b$`;
 * `$2a$` and `$2y$` verify the same way (they differ from `$2b$` only for
 * passwords longer than 255 bytes, which are cut to 72 bytes before that
 * matters). `$2x$` (crypt_blowfish's sign-extension bug) is not produced by
 * any current implementation and is refused.
 *
 * The key is the password's UTF-8 bytes and a NUL, of which bcrypt reads
 * at most 72 bytes. Other bcrypts cut a longer password there, silently,
 * so two passwords sharing their first 72 bytes hash alike; here a
 * password over 72 bytes is refused (InvalidInput), for hashing and for
 * verifying alike: no hash made here can come from one.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { BcryptRunner } from '../../services.js';
import type { Template } from '../../template.js';
import { step } from '../step.js';
import { textInput, writeEach } from '../working-records.js';

export const MIN_BCRYPT_COST = 4;
export const MAX_BCRYPT_COST = 31;
export const DEFAULT_BCRYPT_COST = 12;

const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HASH = /^\$2([aby])\$(\d\d)\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;
/** The most password bytes bcrypt reads. */
export const MAX_PASSWORD_BYTES = 72;

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
  let written = 0;
  for (const char of text) {
    acc = (acc << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (written < length) out[written++] = (acc >> bits) & 0xff;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** A hash's parts: its `$2x$NN$` prefix, cost, 16-byte salt and the 31 characters of its digest. */
export interface ParsedBcryptHash {
  readonly prefix: string;
  readonly cost: number;
  readonly salt: Buffer;
  readonly digest: string;
}

/** bcrypt's key for `password`: its UTF-8 bytes and a NUL. InvalidInput when it is longer than 72 bytes. */
export function passwordKey(password: string): Buffer {
  const bytes = Buffer.from(password, 'utf8');
  if (bytes.length > MAX_PASSWORD_BYTES) {
    throw new InvalidInput(
      `The password is ${bytes.length} bytes of UTF-8; bcrypt reads at most ${MAX_PASSWORD_BYTES}, so a longer one ` +
        `is refused rather than cut`,
    );
  }
  return Buffer.concat([bytes, Buffer.from([0])]);
}

/**
 * A new `$2b$` hash of `password` with a random 16-byte salt. Throws what `passwordKey` throws and what `runner`
 * rejects with.
 */
export async function bcryptHash(
  password: string,
  cost: number,
  runner: BcryptRunner,
  salt: Uint8Array = randomBytes(16),
): Promise<string> {
  const raw = await runner.raw({ key: passwordKey(password), salt, cost });
  return `$2b$${String(cost).padStart(2, '0')}$${encode(salt).slice(0, 22)}${encode(raw)}`;
}

/** The parts of a hash, or undefined when it is not a bcrypt hash this server verifies. */
export function parseBcryptHash(hash: string): ParsedBcryptHash | undefined {
  const parts = HASH.exec(hash);
  if (!parts) return undefined;
  const cost = Number(parts[2]);
  if (cost < MIN_BCRYPT_COST || cost > MAX_BCRYPT_COST) return undefined;
  return { prefix: `$2${parts[1]}$${parts[2]}$`, cost, salt: decode(parts[3]!, 16), digest: parts[4]! };
}

/**
 * True when `password` hashes to `hash` (compared in constant time). Throws what `passwordKey` throws and what `runner`
 * rejects with.
 */
export async function bcryptVerify(password: string, hash: ParsedBcryptHash, runner: BcryptRunner): Promise<boolean> {
  const raw = await runner.raw({ key: passwordKey(password), salt: hash.salt, cost: hash.cost });
  const ours = Buffer.from(encode(raw));
  const theirs = Buffer.from(hash.digest);
  return ours.length === theirs.length && timingSafeEqual(ours, theirs);
}

/**
 * InvalidInput naming `what`, its cost and the limit when `cost` is above `limit` (the setting
 * `function_bcrypt_max_cost`).
 */
export function checkBcryptCost(cost: number, limit: number, what: string): void {
  if (cost > limit) {
    throw new InvalidInput(
      `${what} ${cost} is above this server's limit of ${limit} (setting function_bcrypt_max_cost): each step of ` +
        `cost doubles the work`,
    );
  }
}

export const bcryptHashStep = step<{
  readonly plain: Template;
  readonly output: readonly string[];
  readonly cost: number;
}>({
  type: 'BcryptHash',
  access: 'none',
  compile: (members) => ({
    plain: members.template('plain'),
    output: members.fieldPath('output_field'),
    cost: members.optionalInteger('cost', MIN_BCRYPT_COST, MAX_BCRYPT_COST) ?? DEFAULT_BCRYPT_COST,
  }),
  run: (config, rows, run) => {
    checkBcryptCost(config.cost, run.settings().function_bcrypt_max_cost, 'BcryptHash cost');
    return writeEach(rows, config.output, (row) =>
      bcryptHash(textInput(run, config.plain, row, 'plain'), config.cost, run.bcrypt),
    );
  },
});

export const bcryptVerifyStep = step<{
  readonly plain: Template;
  readonly hashField: readonly string[];
  readonly output: readonly string[];
}>({
  type: 'BcryptVerify',
  access: 'none',
  compile: (members) => ({
    plain: members.template('plain'),
    hashField: members.fieldPath('hash_field'),
    output: members.fieldPath('output_field'),
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, async (row) => {
      const plain = textInput(run, config.plain, row, 'plain');
      const hit = run.scope(row).lookup(config.hashField);
      const value = hit.found && isTypedWrapper(hit.value) ? hit.value.value : hit.value;
      const hash = typeof value === 'string' ? parseBcryptHash(value) : undefined;
      if (!hash) return false;
      checkBcryptCost(hash.cost, run.settings().function_bcrypt_max_cost, "The bcrypt hash's cost");
      return bcryptVerify(plain, hash, run.bcrypt);
    }),
});
