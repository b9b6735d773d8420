/**
 * TOTP (RFC 6238) over HOTP (RFC 4226), with node:crypto's HMAC: a base32
 * secret (RFC 4648; either case, spaces and `=` padding ignored), T0 = 0,
 * `period` seconds per step, 6 or 8 digits, HMAC-SHA1/256/512. The time is
 * the engine's clock (`x.now()`), so tests and replicas agree.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidInput } from '../../../errors.js';
import type { MemberReader } from '../step.js';
import { literalChoice } from '../literal-choice.js';

export const TOTP_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

export interface TotpParams {
  readonly digits: 6 | 8;
  readonly period: number;
  readonly algorithm: TotpAlgorithm;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MAX_PERIOD = 86_400;

/** `digits`, `period` and `algorithm`, literals checked at save. */
export function totpParams(m: MemberReader): TotpParams {
  const digits = m.optionalInteger('digits', 6, 8) ?? 6;
  if (digits !== 6 && digits !== 8) m.fail('must be 6 or 8', 'digits');
  return {
    digits,
    period: m.optionalInteger('period', 1, MAX_PERIOD) ?? 30,
    algorithm: literalChoice(m, 'algorithm', TOTP_ALGORITHMS, 'sha1'),
  };
}

/** The secret's bytes; InvalidInput (never echoing it) when it is not base32. */
export function base32Secret(text: string): Buffer {
  const clean = text.replace(/[\s]/g, '').replace(/=+$/, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const ch of clean) {
    const v = BASE32.indexOf(ch);
    if (v < 0) throw new InvalidInput("'secret' is not base32 (RFC 4648: letters A-Z and digits 2-7)");
    acc = (acc << 5) | v;
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
export function hotp(key: Uint8Array, counter: number, p: TotpParams): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(p.algorithm, key).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** p.digits).padStart(p.digits, '0');
}

/** The time step of `nowMs` (T0 = 0). */
export function timeStep(nowMs: number, period: number): number {
  return Math.floor(Math.floor(nowMs / 1000) / period);
}

/** True when `code` is the TOTP of a step within `skew` steps of now; every candidate compared in constant time. */
export function verifyTotp(key: Uint8Array, code: string, nowMs: number, p: TotpParams, skew: number): boolean {
  if (!/^\d+$/.test(code) || code.length !== p.digits) return false;
  const given = Buffer.from(code);
  const now = timeStep(nowMs, p.period);
  let ok = false;
  for (let d = -skew; d <= skew; d++) {
    if (now + d < 0) continue;
    if (timingSafeEqual(Buffer.from(hotp(key, now + d, p)), given)) ok = true;
  }
  return ok;
}
