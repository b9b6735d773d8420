/** HexEncode: `input` (text as UTF-8, or binary data) as lowercase hex under `output_field`. */
import type { Template } from '../../template.js';
import { bytesInput, writeEach } from '../field-output.js';
import { step } from '../step.js';

export const hexEncode = step<{ input: Template; output: readonly string[] }>({
  type: 'HexEncode',
  access: 'none',
  compile: (m) => ({ input: m.template('input'), output: m.fieldPath('output_field') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => bytesInput(x, cfg.input, row, 'input').toString('hex')),
});
