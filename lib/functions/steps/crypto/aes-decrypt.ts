/**
 * AesDecrypt: the `{ciphertext, nonce}` object in the field named by
 * `ciphertext_field` (AesEncrypt's output) opened with `key` (as
 * AesEncrypt); the UTF-8 plaintext under `output_field`, or null when the
 * message is malformed, tampered with, sealed under another key or not
 * UTF-8. A missing field or a key that is not 32 bytes fails the step.
 */
import type { Template } from '../../template.js';
import { fieldInput, utf8OrNull, writeEach } from '../field-output.js';
import { literalChoice } from '../literal-choice.js';
import { step } from '../step.js';
import { aesKey, KEY_ENCODINGS, open, type KeyEncoding } from './aes-gcm.js';
import { keyMaterial, secretText } from './secret-member.js';

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
  compile: (m) => ({
    ciphertextField: m.fieldPath('ciphertext_field'),
    key: keyMaterial(m, 'key'),
    output: m.fieldPath('output_field'),
    keyEncoding: literalChoice(m, 'key_encoding', KEY_ENCODINGS, 'hex'),
  }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const key = aesKey(secretText(x, cfg.key, row, 'key'), cfg.keyEncoding);
    const plain = open(key, fieldInput(x, cfg.ciphertextField, row, 'ciphertext_field'));
    return plain === null ? null : utf8OrNull(plain);
  }),
});
