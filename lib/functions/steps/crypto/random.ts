/**
 * The random-value steps, a fresh value per working record under
 * `output_field`:
 * - RandomToken: `bytes` (1-1024) from the system's CSPRNG, encoded `hex`
 *   (default), `base64` or `base64url` (unpadded).
 * - UuidGenerate: a random (version 4) UUID.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { InvalidInput } from '../../../errors.js';
import { isConstant, type Template } from '../../template.js';
import { literalChoice } from '../members.js';
import { step } from '../step.js';
import { writeEach } from '../working-records.js';

const ENCODINGS = ['hex', 'base64', 'base64url'] as const;
const MAX_TOKEN_BYTES = 1024;

interface RandomTokenConfig {
  readonly bytes: Template;
  readonly output: readonly string[];
  readonly encoding: (typeof ENCODINGS)[number];
}

function tokenBytes(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TOKEN_BYTES) {
    throw new InvalidInput(`'bytes' must be an integer between 1 and ${MAX_TOKEN_BYTES}`);
  }
  return value;
}

export const randomToken = step<RandomTokenConfig>({
  type: 'RandomToken',
  access: 'none',
  compile: (members) => {
    const bytes = members.template('bytes');
    if (isConstant(bytes)) {
      try {
        tokenBytes(bytes.value);
      } catch (err) {
        members.fail((err as Error).message.replace(/^'bytes' /, ''), 'bytes');
      }
    }
    return {
      bytes,
      output: members.fieldPath('output_field'),
      encoding: literalChoice(members, 'encoding', ENCODINGS, 'hex'),
    };
  },
  run: (config, rows, run) =>
    writeEach(rows, config.output, (row) =>
      randomBytes(tokenBytes(run.resolve(config.bytes, row))).toString(config.encoding),
    ),
});

export const uuidGenerate = step<{ readonly output: readonly string[] }>({
  type: 'UuidGenerate',
  access: 'none',
  compile: (members) => ({ output: members.fieldPath('output_field') }),
  run: (config, rows) => writeEach(rows, config.output, () => randomUUID()),
});
