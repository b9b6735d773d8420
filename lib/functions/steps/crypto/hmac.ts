/**
 * HmacSign and HmacVerify: the HMAC (RFC 2104, node:crypto) of `input`
 * (UTF-8 text or binary data) with `secret` (UTF-8), `algorithm` sha256
 * (default), sha384 or sha512, encoded `hex` (default) or `base64`, under
 * `output_field`. HmacVerify compares `provided_mac` in constant time; a
 * MAC that is not valid hex or base64 is simply false.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Template } from '../../template.js';
import { decodeBase64, isHex } from './encoding.js';
import { keyMaterial, literalChoice } from '../members.js';
import { step, type Execution, type MemberReader, type Row } from '../step.js';
import { bytesInput, secretText, textInput, writeEach } from '../working-records.js';

const HMAC_ALGORITHMS = ['sha256', 'sha384', 'sha512'] as const;
type HmacAlgorithm = (typeof HMAC_ALGORITHMS)[number];
const MAC_ENCODINGS = ['hex', 'base64'] as const;
type MacEncoding = (typeof MAC_ENCODINGS)[number];

function hmac(algorithm: HmacAlgorithm, key: Uint8Array, data: Uint8Array): Buffer {
  return createHmac(algorithm, key).update(data).digest();
}

/** The MAC a caller sent, as bytes; undefined when it is not in the encoding (a mismatch, not an error). */
function decodeMac(text: string, encoding: MacEncoding): Buffer | undefined {
  if (encoding === 'hex') return isHex(text) ? Buffer.from(text, 'hex') : undefined;
  try {
    return decodeBase64(text, false, 'provided_mac');
  } catch {
    return undefined;
  }
}

/** Constant-time equality of two MACs (lengths differ: false at once; the length is not secret). */
function macEquals(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The members HmacSign and HmacVerify share, read at save. */
interface HmacMembers {
  readonly input: Template;
  readonly secret: Template;
  readonly output: readonly string[];
  readonly algorithm: HmacAlgorithm;
  readonly encoding: MacEncoding;
}

function hmacMembers(members: MemberReader): HmacMembers {
  return {
    input: members.template('input'),
    secret: keyMaterial(members, 'secret'),
    output: members.fieldPath('output_field'),
    algorithm: literalChoice(members, 'algorithm', HMAC_ALGORITHMS, 'sha256'),
    encoding: literalChoice(members, 'encoding', MAC_ENCODINGS, 'hex'),
  };
}

/** The HMAC of the step's `input` for one working record. */
function hmacOf(config: HmacMembers, run: Execution, row: Row | undefined): Buffer {
  const key = Buffer.from(secretText(run, config.secret, row, 'secret'), 'utf8');
  return hmac(config.algorithm, key, bytesInput(run, config.input, row, 'input'));
}

export const hmacSign = step<HmacMembers>({
  type: 'HmacSign',
  secretMembers: ['secret'],
  access: 'none',
  compile: hmacMembers,
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => hmacOf(config, run, row).toString(config.encoding)),
});

export const hmacVerify = step<HmacMembers & { readonly providedMac: Template }>({
  type: 'HmacVerify',
  secretMembers: ['secret'],
  access: 'none',
  compile: (members) => ({ ...hmacMembers(members), providedMac: members.template('provided_mac') }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const provided = decodeMac(textInput(run, config.providedMac, row, 'provided_mac'), config.encoding);
      return provided !== undefined && macEquals(hmacOf(config, run, row), provided);
    }),
});
