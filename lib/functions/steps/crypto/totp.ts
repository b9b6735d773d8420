/**
 * TotpGenerate and TotpVerify: TOTP (RFC 6238) over HOTP (RFC 4226), with
 * node:crypto's HMAC: a base32 `secret` (RFC 4648; either case, spaces and
 * `=` padding ignored), T0 = 0, `period` seconds per step (default 30),
 * `digits` 6 (default) or 8, `algorithm` sha1 (default), sha256 or sha512.
 * The time is the engine's clock (`run.now()`), so tests and replicas agree.
 *
 * - TotpGenerate: the current code, as a string of `digits` digits, under
 *   `output_field`.
 * - TotpVerify: true under `output_field` when `code` is the code of the
 *   current time step or one within `skew` steps (default 1, at most 10)
 *   either side. A code sent as a number is read with its leading zeros
 *   restored; anything that is not `digits` digits is simply false.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { keyMaterial, literalChoice } from '../members.js';
import { step, type MemberReader } from '../step.js';
import { secretText, writeEach } from '../working-records.js';

const TOTP_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

interface TotpParams {
  readonly digits: 6 | 8;
  readonly period: number;
  readonly algorithm: TotpAlgorithm;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MAX_PERIOD = 86_400;
const MAX_SKEW = 10;

/** `digits`, `period` and `algorithm`, literals checked at save. */
function totpParams(members: MemberReader): TotpParams {
  const digits = members.optionalInteger('digits', 6, 8) ?? 6;
  if (digits !== 6 && digits !== 8) members.fail('must be 6 or 8', 'digits');
  return {
    digits,
    period: members.optionalInteger('period', 1, MAX_PERIOD) ?? 30,
    algorithm: literalChoice(members, 'algorithm', TOTP_ALGORITHMS, 'sha1'),
  };
}

/** The secret's bytes; InvalidInput (never echoing it) when it is not base32. */
function base32Secret(text: string): Buffer {
  const clean = text.replace(/[\s]/g, '').replace(/=+$/, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const char of clean) {
    const digit = BASE32.indexOf(char);
    if (digit < 0) throw new InvalidInput("'secret' is not base32 (RFC 4648: letters A-Z and digits 2-7)");
    acc = (acc << 5) | digit;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  if (out.length === 0) throw new InvalidInput("'secret' must hold at least one byte of base32");
  return Buffer.from(out);
}

/** The HOTP value for time step `counter`. */
function hotp(key: Uint8Array, counter: number, params: TotpParams): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(params.algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** params.digits).padStart(params.digits, '0');
}

/** The time step of `nowMs` (T0 = 0). */
function timeStep(nowMs: number, period: number): number {
  return Math.floor(Math.floor(nowMs / 1000) / period);
}

/** True when `code` is the TOTP of a step within `skew` steps of the current one (each compared in constant time). */
function verifyTotp(key: Uint8Array, code: string, nowMs: number, params: TotpParams, skew: number): boolean {
  if (!/^\d+$/.test(code) || code.length !== params.digits) return false;
  const given = Buffer.from(code);
  const now = timeStep(nowMs, params.period);
  let matched = false;
  for (let offset = -skew; offset <= skew; offset++) {
    if (now + offset < 0) continue;
    if (timingSafeEqual(Buffer.from(hotp(key, now + offset, params)), given)) matched = true;
  }
  return matched;
}

function codeText(given: unknown, digits: number): string {
  const raw = isTypedWrapper(given) ? given.value : given;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < 10 ** digits)
    return String(raw).padStart(digits, '0');
  return typeof raw === 'string' ? raw.trim() : '';
}

export const totpGenerate = step<{
  readonly secret: Template;
  readonly output: readonly string[];
  readonly params: TotpParams;
}>({
  type: 'TotpGenerate',
  secretMembers: ['secret'],
  access: 'none',
  compile: (members) => ({
    secret: keyMaterial(members, 'secret'),
    output: members.fieldPath('output_field'),
    params: totpParams(members),
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const key = base32Secret(secretText(run, config.secret, row, 'secret'));
      return hotp(key, timeStep(run.now(), config.params.period), config.params);
    }),
});

interface TotpVerifyConfig {
  readonly code: Template;
  readonly secret: Template;
  readonly output: readonly string[];
  readonly params: TotpParams;
  readonly skew: number;
}

export const totpVerify = step<TotpVerifyConfig>({
  type: 'TotpVerify',
  secretMembers: ['secret'],
  access: 'none',
  compile: (members) => ({
    code: members.template('code'),
    secret: keyMaterial(members, 'secret'),
    output: members.fieldPath('output_field'),
    params: totpParams(members),
    skew: members.optionalInteger('skew', 0, MAX_SKEW) ?? 1,
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const key = base32Secret(secretText(run, config.secret, row, 'secret'));
      const code = codeText(run.resolve(config.code, row), config.params.digits);
      return verifyTotp(key, code, run.now(), config.params, config.skew);
    }),
});
