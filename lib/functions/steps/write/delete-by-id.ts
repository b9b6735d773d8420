/**
 * DeleteById: moves the record `record_id` (an id or primary-key-alias
 * value) to the trash. A missing record fails the step (404). The working
 * records become the deleted record as it was.
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { collectionOf, compileTarget, type WriteTarget } from './write-members.js';

interface DeleteByIdConfig {
  readonly target: WriteTarget;
  readonly recordId: Template;
}

export const deleteById = step<DeleteByIdConfig>({
  type: 'DeleteById',
  access: 'write',
  compile: (m) => ({ target: compileTarget(m), recordId: m.template('record_id') }),
  run: (cfg, rows, x) => {
    const row = rows[0];
    const id = x.text(cfg.recordId, row, 'record_id');
    return x.session.deleteAll(collectionOf(cfg.target, x, row), [id], cfg.target.bypassRipple);
  },
});
