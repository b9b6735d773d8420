/** UuidGenerate: a random (version 4) UUID under `output_field`, a fresh one per working record. */
import { randomUUID } from 'node:crypto';
import { step } from '../step.js';
import { writeEach } from '../field-output.js';

export const uuidGenerate = step<{ output: readonly string[] }>({
  type: 'UuidGenerate',
  access: 'none',
  compile: (m) => ({ output: m.fieldPath('output_field') }),
  run: (cfg, rows) => writeEach(rows, cfg.output, () => randomUUID()),
});
