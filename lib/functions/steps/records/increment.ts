/**
 * Increment: adds `by` (also spelled `amount`; a template resolved against
 * each record; default 1) to `field` of each working record, as the
 * `increment` update action does: a missing field starts at 0, the numeric
 * type is kept (Integer stays exact, Decimal keeps its scale), a
 * non-numeric field or amount fails the step. Working records only.
 */
import { applyActionSequence } from '../../../engine/index.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { editEach, targetField } from './edit-each.js';

interface IncrementConfig {
  readonly field: string;
  readonly by?: Template;
}

export const increment = step<IncrementConfig>({
  type: 'Increment',
  access: 'none',
  compile: (m) => {
    const by = m.optionalTemplate(['by', 'amount']);
    return { field: targetField(m, 'field'), ...(by ? { by } : {}) };
  },
  run: (cfg, rows, x) => editEach(rows, (row) => {
    const value = cfg.by ? x.resolve(cfg.by, row) : 1;
    return applyActionSequence(row, [{ action: 'increment', field: cfg.field, value }]);
  }),
});
