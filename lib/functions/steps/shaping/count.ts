/** Count: the working records become one record `{<output_field>: n}` (default `count`). */
import { assertSafeKey } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { step } from '../step.js';

export const count = step<{ field: string }>({
  type: 'Count',
  access: 'none',
  compile: (m) => {
    const field = m.optionalString('output_field') || 'count';
    atPath(`${m.path}.output_field`, () => assertSafeKey(field, 'output_field'));
    return { field };
  },
  run: (cfg, rows) => [{ [cfg.field]: rows.length }],
});
