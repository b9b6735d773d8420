/**
 * CurrentDatetime: sets `field` (also spelled `output_field`, as the other
 * steps that produce a value name it) of each working record to the engine
 * clock's current instant, a DateTime value; every record of one step gets
 * the same instant. Working records only.
 */
import { step } from '../step.js';
import { editEach, storedValue, targetField } from './edit-each.js';

export const currentDatetime = step<{ readonly field: string }>({
  type: 'CurrentDatetime',
  access: 'none',
  compile: (m) => ({ field: targetField(m, ['field', 'output_field']) }),
  run: (cfg, rows, x) => {
    const now = storedValue(cfg.field, { type: 'DateTime', value: new Date(x.now()).toISOString() });
    return editEach(rows, (row) => ({ ...row, [cfg.field]: now }));
  },
});
