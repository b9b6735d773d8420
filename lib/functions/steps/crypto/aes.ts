/**
 * AesEncrypt and AesDecrypt: AES-256-GCM over node:crypto with a 32-byte
 * `key` (`key_encoding` hex (default), base64 or base64url), a fresh random
 * 96-bit nonce per message (NIST SP 800-38D's recommended IV length), the
 * 128-bit tag appended to the ciphertext, both base64 (standard) on the
 * wire: `{ciphertext, nonce}`.
 *
 * - AesEncrypt: `plaintext` (UTF-8 text or binary data) sealed; the
 *   `{ciphertext, nonce}` object under `output_field`.
 * - AesDecrypt: the `{ciphertext, nonce}` object in the field named by
 *   `ciphertext_field` (AesEncrypt's output) opened; the UTF-8 plaintext
 *   under `output_field`, or null when the message is malformed, tampered
 *   with, sealed under another key or not UTF-8. A missing field or a key
 *   that is not 32 bytes fails the step.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { decodeBase64 } from './encoding.js';
import { keyMaterial, literalChoice } from '../members.js';
import { step } from '../step.js';
import { bytesInput, fieldInput, secretText, utf8OrNull, writeEach } from '../working-records.js';

const KEY_ENCODINGS = ['hex', 'base64', 'base64url'] as const;
type KeyEncoding = (typeof KEY_ENCODINGS)[number];

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEX_KEY = /^[0-9A-Fa-f]{64}$/;

/** The 32-byte key from its text; InvalidInput (never echoing the key) when it is not one. */
function aesKey(text: string, encoding: KeyEncoding): Buffer {
  const wrong = new InvalidInput(`'key' must be a 256-bit AES key: ${KEY_BYTES} bytes in ${encoding}`);
  if (encoding === 'hex') {
    if (!HEX_KEY.test(text)) throw wrong;
    return Buffer.from(text, 'hex');
  }
  let key: Buffer;
  try {
    key = decodeBase64(text, encoding === 'base64url', 'key');
  } catch {
    throw wrong;
  }
  if (key.length !== KEY_BYTES) throw wrong;
  return key;
}

interface Sealed {
  readonly ciphertext: string;
  readonly nonce: string;
}

function seal(key: Buffer, plaintext: Uint8Array, nonce: Buffer = randomBytes(NONCE_BYTES)): Sealed {
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return Object.freeze({ ciphertext: body.toString('base64'), nonce: nonce.toString('base64') });
}

/** The plaintext bytes, or null when the message is malformed, tampered with or sealed under another key. */
function open(key: Buffer, sealed: unknown): Buffer | null {
  if (sealed === null || typeof sealed !== 'object') return null;
  const { ciphertext, nonce } = sealed as Record<string, unknown>;
  if (typeof ciphertext !== 'string' || typeof nonce !== 'string') return null;
  let body: Buffer;
  let iv: Buffer;
  try {
    body = decodeBase64(ciphertext, false, 'ciphertext');
    iv = decodeBase64(nonce, false, 'nonce');
  } catch {
    return null;
  }
  if (iv.length !== NONCE_BYTES || body.length < TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return null;
  }
}

interface AesEncryptConfig {
  readonly plaintext: Template;
  readonly key: Template;
  readonly output: readonly string[];
  readonly keyEncoding: KeyEncoding;
}

export const aesEncrypt = step<AesEncryptConfig>({
  type: 'AesEncrypt',
  secretMembers: ['key'],
  access: 'none',
  compile: (members) => ({
    plaintext: members.template('plaintext'),
    key: keyMaterial(members, 'key'),
    output: members.fieldPath('output_field'),
    keyEncoding: literalChoice(members, 'key_encoding', KEY_ENCODINGS, 'hex'),
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const key = aesKey(secretText(run, config.key, row, 'key'), config.keyEncoding);
      return { ...seal(key, bytesInput(run, config.plaintext, row, 'plaintext')) };
    }),
});

interface AesDecryptConfig {
  readonly ciphertextField: readonly string[];
  readonly key: Template;
  readonly output: readonly string[];
  readonly keyEncoding: KeyEncoding;
}

export const aesDecrypt = step<AesDecryptConfig>({
  type: 'AesDecrypt',
  secretMembers: ['key'],
  access: 'none',
  compile: (members) => ({
    ciphertextField: members.fieldPath('ciphertext_field'),
    key: keyMaterial(members, 'key'),
    output: members.fieldPath('output_field'),
    keyEncoding: literalChoice(members, 'key_encoding', KEY_ENCODINGS, 'hex'),
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) => {
      const key = aesKey(secretText(run, config.key, row, 'key'), config.keyEncoding);
      const plain = open(key, fieldInput(run, config.ciphertextField, row, 'ciphertext_field'));
      return plain === null ? null : utf8OrNull(plain);
    }),
});
