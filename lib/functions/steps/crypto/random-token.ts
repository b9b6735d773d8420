/**
 * RandomToken: `bytes` (1-1024) from the system's CSPRNG, encoded `hex`
 * (default), `base64` or `base64url` (unpadded), under `output_field`; a
 * fresh token per working record.
 */
import { randomBytes } from 'node:crypto';
import { InvalidInput } from '../../../errors.js';
import { isConstant, type Template } from '../../template.js';
import { writeEach } from '../field-output.js';
import { literalChoice } from '../literal-choice.js';
import { step } from '../step.js';

const ENCODINGS = ['hex', 'base64', 'base64url'] as const;
export const MAX_TOKEN_BYTES = 1024;

interface RandomTokenConfig {
  readonly bytes: Template;
  readonly output: readonly string[];
  readonly encoding: (typeof ENCODINGS)[number];
}

function tokenBytes(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_TOKEN_BYTES) {
    throw new InvalidInput(`'bytes' must be an integer between 1 and ${MAX_TOKEN_BYTES}`);
  }
  return v;
}

export const randomToken = step<RandomTokenConfig>({
  type: 'RandomToken',
  access: 'none',
  compile: (m) => {
    const bytes = m.template('bytes');
    if (isConstant(bytes)) {
      try { tokenBytes(bytes.v); } catch (err) { m.fail((err as Error).message.replace(/^'bytes' /, ''), 'bytes'); }
    }
    return { bytes, output: m.fieldPath('output_field'), encoding: literalChoice(m, 'encoding', ENCODINGS, 'hex') };
  },
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => randomBytes(tokenBytes(x.resolve(cfg.bytes, row))).toString(cfg.encoding)),
});
