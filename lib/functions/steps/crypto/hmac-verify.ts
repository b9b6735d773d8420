/**
 * HmacVerify: true under `output_field` when `provided_mac` is the HMAC of
 * `input` with `secret` (same members as HmacSign), compared in constant
 * time. A MAC that is not valid hex or base64 is simply false.
 */
import type { Template } from '../../templates/index.js';
import { bytesInput, textInput, writeEach } from '../field-output.js';
import { literalChoice } from '../literal-choice.js';
import { step } from '../step.js';
import { decodeMac, hmac, HMAC_ALGORITHMS, MAC_ENCODINGS, macEquals, type HmacAlgorithm, type MacEncoding } from './hmac.js';
import { keyMaterial, secretText } from './secret-member.js';

interface HmacVerifyConfig {
  readonly input: Template;
  readonly providedMac: Template;
  readonly secret: Template;
  readonly output: readonly string[];
  readonly algorithm: HmacAlgorithm;
  readonly encoding: MacEncoding;
}

export const hmacVerify = step<HmacVerifyConfig>({
  type: 'HmacVerify',
  secretMembers: ['secret'],
  access: 'none',
  compile: (m) => ({
    input: m.template('input'),
    providedMac: m.template('provided_mac'),
    secret: keyMaterial(m, 'secret'),
    output: m.fieldPath('output_field'),
    algorithm: literalChoice(m, 'algorithm', HMAC_ALGORITHMS, 'sha256'),
    encoding: literalChoice(m, 'encoding', MAC_ENCODINGS, 'hex'),
  }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const key = Buffer.from(secretText(x, cfg.secret, row, 'secret'), 'utf8');
    const expected = hmac(cfg.algorithm, key, bytesInput(x, cfg.input, row, 'input'));
    const provided = decodeMac(textInput(x, cfg.providedMac, row, 'provided_mac'), cfg.encoding);
    return provided !== undefined && macEquals(expected, provided);
  }),
});
