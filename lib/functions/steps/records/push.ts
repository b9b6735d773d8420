/**
 * Push: appends `value` (a template resolved against each record) to the
 * array `field` of each working record, as the `push` update action does:
 * a missing field becomes a one-element array, a Set or Vector keeps its
 * type, a field that is not an array fails the step. Working records only.
 */
import { applyActionSequence } from '../../../engine/index.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { editEach, targetField } from './edit-each.js';

interface PushConfig {
  readonly field: string;
  readonly value: Template;
}

export const push = step<PushConfig>({
  type: 'Push',
  access: 'none',
  compile: (m) => ({ field: targetField(m, 'field'), value: m.template('value') }),
  run: (cfg, rows, x) => editEach(rows, (row) =>
    applyActionSequence(row, [{ action: 'push', field: cfg.field, value: x.resolve(cfg.value, row) }])),
});
