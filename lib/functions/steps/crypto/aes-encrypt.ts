/**
 * AesEncrypt: `plaintext` (UTF-8 text or binary data) sealed with AES-256-GCM
 * under `key` (32 bytes, `key_encoding` hex (default), base64 or base64url)
 * and a fresh random nonce; `{ciphertext, nonce}` (both base64, the tag
 * appended to the ciphertext) under `output_field`.
 */
import type { Template } from '../../template.js';
import { bytesInput, writeEach } from '../field-output.js';
import { literalChoice } from '../literal-choice.js';
import { step } from '../step.js';
import { aesKey, KEY_ENCODINGS, seal, type KeyEncoding } from './aes-gcm.js';
import { keyMaterial, secretText } from './secret-member.js';

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
  compile: (m) => ({
    plaintext: m.template('plaintext'),
    key: keyMaterial(m, 'key'),
    output: m.fieldPath('output_field'),
    keyEncoding: literalChoice(m, 'key_encoding', KEY_ENCODINGS, 'hex'),
  }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const key = aesKey(secretText(x, cfg.key, row, 'key'), cfg.keyEncoding);
    return { ...seal(key, bytesInput(x, cfg.plaintext, row, 'plaintext')) };
  }),
});
