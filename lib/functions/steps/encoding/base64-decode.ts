/**
 * Base64Decode: `input` decoded (standard alphabet, or `url_safe`) to UTF-8
 * text under `output_field`. Fail-closed: input that is not strict base64,
 * or bytes that are not UTF-8, fail the step.
 */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { textInput, utf8OrNull, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { decodeBase64 } from './base64-codec.js';

export const base64Decode = step<{ input: Template; output: readonly string[]; urlSafe: boolean }>({
  type: 'Base64Decode',
  access: 'none',
  compile: (m) => ({ input: m.template('input'), output: m.fieldPath('output_field'), urlSafe: m.optionalBoolean('url_safe') ?? false }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const text = utf8OrNull(decodeBase64(textInput(x, cfg.input, row, 'input'), cfg.urlSafe, 'input'));
    if (text === null) throw new InvalidInput("'input' decodes to bytes that are not UTF-8 text");
    return text;
  }),
});
