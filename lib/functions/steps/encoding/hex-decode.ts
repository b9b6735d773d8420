/**
 * HexDecode: `input` (pairs of hex digits, either case) decoded to UTF-8
 * text under `output_field`. Fail-closed: an odd length, a non-hex
 * character or bytes that are not UTF-8 fail the step (node's decoder would
 * stop silently at the first bad pair).
 */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { textInput, utf8OrNull, writeEach } from '../field-output.js';
import { step } from '../step.js';

const HEX = /^(?:[0-9A-Fa-f]{2})*$/;

export const hexDecode = step<{ input: Template; output: readonly string[] }>({
  type: 'HexDecode',
  access: 'none',
  compile: (m) => ({ input: m.template('input'), output: m.fieldPath('output_field') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => {
    const input = textInput(x, cfg.input, row, 'input');
    if (!HEX.test(input)) throw new InvalidInput("'input' is not valid hex: an even number of the digits 0-9 and a-f expected");
    const text = utf8OrNull(Buffer.from(input, 'hex'));
    if (text === null) throw new InvalidInput("'input' decodes to bytes that are not UTF-8 text");
    return text;
  }),
});
