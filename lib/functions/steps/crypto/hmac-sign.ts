/**
 * HmacSign: the HMAC of `input` (UTF-8 text or binary data) with `secret`
 * (UTF-8), `algorithm` sha256 (default), sha384 or sha512, encoded `hex`
 * (default) or `base64`, under `output_field`.
 */
import type { Template } from '../../templates/index.js';
import { bytesInput, writeEach } from '../field-output.js';
import { literalChoice } from '../literal-choice.js';
import { step } from '../step.js';
import { hmac, HMAC_ALGORITHMS, MAC_ENCODINGS, type HmacAlgorithm, type MacEncoding } from './hmac.js';
import { keyMaterial, secretText } from './secret-member.js';

interface HmacSignConfig {
  readonly input: Template;
  readonly secret: Template;
  readonly output: readonly string[];
  readonly algorithm: HmacAlgorithm;
  readonly encoding: MacEncoding;
}

export const hmacSign = step<HmacSignConfig>({
  type: 'HmacSign',
  secretMembers: ['secret'],
  access: 'none',
  compile: (m) => ({
    input: m.template('input'),
    secret: keyMaterial(m, 'secret'),
    output: m.fieldPath('output_field'),
    algorithm: literalChoice(m, 'algorithm', HMAC_ALGORITHMS, 'sha256'),
    encoding: literalChoice(m, 'encoding', MAC_ENCODINGS, 'hex'),
  }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const key = Buffer.from(secretText(x, cfg.secret, row, 'secret'), 'utf8');
    return hmac(cfg.algorithm, key, bytesInput(x, cfg.input, row, 'input')).toString(cfg.encoding);
  }),
});
