/** HMAC (RFC 2104) over node:crypto: the algorithms and output encodings HmacSign and HmacVerify share. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeBase64 } from '../encoding/base64-codec.js';
import type { Template } from '../../template.js';
import { bytesInput } from '../field-output.js';
import { literalChoice } from '../literal-choice.js';
import type { Execution, MemberReader, Row } from '../step.js';
import { keyMaterial, secretText } from './secret-member.js';

export const HMAC_ALGORITHMS = ['sha256', 'sha384', 'sha512'] as const;
export type HmacAlgorithm = (typeof HMAC_ALGORITHMS)[number];
export const MAC_ENCODINGS = ['hex', 'base64'] as const;
export type MacEncoding = (typeof MAC_ENCODINGS)[number];

const HEX = /^(?:[0-9A-Fa-f]{2})*$/;

export function hmac(algorithm: HmacAlgorithm, key: Uint8Array, data: Uint8Array): Buffer {
  return createHmac(algorithm, key).update(data).digest();
}

/** The MAC a caller sent, as bytes; undefined when it is not in the encoding (a mismatch, not an error). */
export function decodeMac(text: string, encoding: MacEncoding): Buffer | undefined {
  if (encoding === 'hex') return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
  try {
    return decodeBase64(text, false, 'provided_mac');
  } catch {
    return undefined;
  }
}

/** Constant-time equality of two MACs (lengths differ: false at once; the length is not secret). */
export function macEquals(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The members HmacSign and HmacVerify share, read at save. */
export interface HmacMembers {
  readonly input: Template;
  readonly secret: Template;
  readonly output: readonly string[];
  readonly algorithm: HmacAlgorithm;
  readonly encoding: MacEncoding;
}

export function hmacMembers(m: MemberReader): HmacMembers {
  return {
    input: m.template('input'),
    secret: keyMaterial(m, 'secret'),
    output: m.fieldPath('output_field'),
    algorithm: literalChoice(m, 'algorithm', HMAC_ALGORITHMS, 'sha256'),
    encoding: literalChoice(m, 'encoding', MAC_ENCODINGS, 'hex'),
  };
}

/** The HMAC of the step's `input` for one working record. */
export function hmacOf(cfg: HmacMembers, x: Execution, row: Row | undefined): Buffer {
  const key = Buffer.from(secretText(x, cfg.secret, row, 'secret'), 'utf8');
  return hmac(cfg.algorithm, key, bytesInput(x, cfg.input, row, 'input'));
}
