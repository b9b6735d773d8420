/** Base64Encode: `input` (text as UTF-8, or binary data) as base64, standard or `url_safe` (unpadded), under `output_field`. */
import type { Template } from '../../template.js';
import { bytesInput, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { encodeBase64 } from './base64-codec.js';

export const base64Encode = step<{ input: Template; output: readonly string[]; urlSafe: boolean }>({
  type: 'Base64Encode',
  access: 'none',
  compile: (m) => ({ input: m.template('input'), output: m.fieldPath('output_field'), urlSafe: m.optionalBoolean('url_safe') ?? false }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => encodeBase64(bytesInput(x, cfg.input, row, 'input'), cfg.urlSafe)),
});
