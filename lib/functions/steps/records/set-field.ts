/**
 * SetField: sets `field` on each working record to `value` (a template,
 * resolved against that record: `{{price}}` is the record's own price).
 * Working records only.
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { editEach, storedValue, targetField } from './edit-each.js';

interface SetFieldConfig {
  readonly field: string;
  readonly value: Template;
}

export const setField = step<SetFieldConfig>({
  type: 'SetField',
  access: 'none',
  compile: (m) => ({ field: targetField(m, 'field'), value: m.template('value') }),
  run: (cfg, rows, x) => editEach(rows, (row) => ({ ...row, [cfg.field]: storedValue(cfg.field, x.resolve(cfg.value, row)) })),
});
