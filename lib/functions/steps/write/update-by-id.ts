/**
 * UpdateById: merges `updates` into the record `record_id` (an id or
 * primary-key-alias value); `ttl` resets its expiry. A missing record fails
 * the step (404). The working records become the updated record.
 */
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { collectionOf, compileBody, compileTarget, resolveBody, type BodyMember, type WriteTarget } from './write-members.js';

interface UpdateByIdConfig {
  readonly target: WriteTarget;
  readonly recordId: Template;
  readonly updates: BodyMember;
}

export const updateById = step<UpdateByIdConfig>({
  type: 'UpdateById',
  access: 'write',
  compile: (m) => ({ target: compileTarget(m), recordId: m.template('record_id'), updates: compileBody(m, 'updates') }),
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const collection = collectionOf(cfg.target, x, row);
    const id = x.text(cfg.recordId, row, 'record_id');
    return [await x.session.update(collection, id, resolveBody(cfg.updates, x, row), cfg.target.bypassRipple)];
  },
});
